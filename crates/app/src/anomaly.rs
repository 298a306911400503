//! Application-layer anomalies as they occur: each time a parser or the protocol
//! detection meets one of its events, one [`AppAnomaly`] is queued in the worker's
//! [`Anomalies`] (in [`crate::AppCtx`]), with the transaction it belongs to. The engine
//! drains the queue after each packet went through the app layer and writes one EVE
//! `anomaly` record per occurrence, as Suricata's anomaly logger does; the per-flow
//! [`crate::Events`] set (what `app-layer-event` rules match) is kept beside it.

use crate::AppProto;

/// Where in the application layer an anomaly was met (Suricata's `anomaly.layer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnomalyLayer {
    /// Protocol detection (`proto_detect`: `APPLAYER_DETECT_PROTOCOL_ONLY_ONE_DIRECTION`, ...).
    ProtoDetect,
    /// The protocol's parser (`proto_parser`: `GZIP_DECOMPRESSION_FAILED`, ...).
    ProtoParser,
}

impl AnomalyLayer {
    /// The name Suricata writes in `anomaly.layer`.
    pub fn name(self) -> &'static str {
        match self {
            AnomalyLayer::ProtoDetect => "proto_detect",
            AnomalyLayer::ProtoParser => "proto_parser",
        }
    }
}

/// Protocol detection found a protocol for one direction of a TCP flow and gave up on
/// the other (Suricata's event of that name).
pub const ONLY_ONE_DIRECTION: &str = "APPLAYER_DETECT_PROTOCOL_ONLY_ONE_DIRECTION";

/// The two directions of a flow were detected as different protocols.
pub const MISMATCH_BOTH_DIRECTIONS: &str = "APPLAYER_MISMATCH_PROTOCOL_BOTH_DIRECTIONS";

/// One occurrence of an application-layer event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppAnomaly {
    /// The flow's protocol when the event was raised.
    pub proto: AppProto,
    /// Detection or parser.
    pub layer: AnomalyLayer,
    /// The event: for a parser, its `app-layer-event` name from the protocol's event
    /// table (`http.gzip_decompression_failed`); for detection, Suricata's name
    /// ([`ONLY_ONE_DIRECTION`]).
    pub event: &'static str,
    /// The transaction it belongs to (`None`: the packet's, as detection events are).
    pub tx_id: Option<u64>,
}

impl AppAnomaly {
    /// The name Suricata writes in `anomaly.event`: a parser event without its protocol
    /// prefix, upper case for the protocols whose parsers are Suricata's C ones (HTTP's
    /// libhtp events, SMTP), as is for the Rust ones (`malformed_data`).
    pub fn eve_event(&self) -> String {
        let bare = match self.layer {
            AnomalyLayer::ProtoDetect => return self.event.to_string(),
            AnomalyLayer::ProtoParser => self.event.split_once('.').map_or(self.event, |s| s.1),
        };
        match self.proto {
            AppProto::Http | AppProto::Smtp | AppProto::Dnp3 => bare.to_ascii_uppercase(),
            _ => bare.to_string(),
        }
    }
}

/// Occurrences queued at most between two drains (one packet's worth); more are
/// counted in [`Anomalies::dropped`], never lost silently.
pub const MAX_QUEUED: usize = 4096;

/// The worker's queue of anomalies raised since the last drain. Off by default: a
/// run that logs no anomalies queues nothing.
#[derive(Clone, Debug, Default)]
pub struct Anomalies {
    on: bool,
    queue: Vec<AppAnomaly>,
    dropped: u64,
}

impl Anomalies {
    /// Starts (or stops) queueing occurrences.
    pub fn set_enabled(&mut self, on: bool) {
        self.on = on;
        if !on {
            self.queue = Vec::new();
        }
    }

    /// Queues one occurrence (counted as dropped past [`MAX_QUEUED`]); nothing when off.
    pub fn push(&mut self, a: AppAnomaly) {
        if !self.on {
            return;
        }
        if self.queue.len() < MAX_QUEUED {
            self.queue.push(a);
        } else {
            self.dropped += 1;
        }
    }

    /// A parser event of `proto` on transaction `tx_id`.
    pub fn parser(&mut self, proto: AppProto, event: &'static str, tx_id: Option<u64>) {
        self.push(AppAnomaly {
            proto,
            layer: AnomalyLayer::ProtoParser,
            event,
            tx_id,
        });
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Takes every queued occurrence, oldest first.
    pub fn drain(&mut self) -> std::vec::Drain<'_, AppAnomaly> {
        self.queue.drain(..)
    }

    /// Occurrences dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eve_names_follow_suricata() {
        let a = |proto, layer, event| AppAnomaly {
            proto,
            layer,
            event,
            tx_id: None,
        };
        let p = AnomalyLayer::ProtoParser;
        assert_eq!(
            a(AppProto::Http, p, "http.gzip_decompression_failed").eve_event(),
            "GZIP_DECOMPRESSION_FAILED"
        );
        assert_eq!(
            a(AppProto::Dns, p, "dns.malformed_data").eve_event(),
            "malformed_data"
        );
        assert_eq!(
            a(
                AppProto::Smtp,
                AnomalyLayer::ProtoDetect,
                ONLY_ONE_DIRECTION
            )
            .eve_event(),
            ONLY_ONE_DIRECTION
        );
        assert_eq!(AnomalyLayer::ProtoDetect.name(), "proto_detect");
    }

    #[test]
    fn the_queue_is_bounded_and_counts_what_it_drops() {
        let mut q = Anomalies::default();
        q.parser(AppProto::Http, "http.x", None);
        assert!(q.is_empty(), "off by default");
        q.set_enabled(true);
        for _ in 0..MAX_QUEUED + 3 {
            q.parser(AppProto::Http, "http.x", Some(1));
        }
        assert_eq!(q.dropped(), 3);
        assert_eq!(q.drain().count(), MAX_QUEUED);
        assert!(q.is_empty());
    }
}

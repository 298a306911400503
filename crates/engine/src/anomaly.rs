//! EVE `anomaly` records: the decoder events of each packet (`types: decode: yes`) and
//! the application-layer events (`types: applayer: yes`, the default) raised while a
//! packet went through the app layer, or while a flow that ended was flushed, one
//! record per occurrence as Suricata's anomaly logger writes them, and the TCP stream
//! events the flow tracker raised on each packet (`types: stream: yes`).

use crate::alerts::AlertSink;
use app::AppCtx;
use output::eve::{app_anomaly, decode_anomaly, event_record, stream_anomaly};
use output::EventMeta;
use wire::{ip_addr, Packet, Timestamp};

/// Which anomaly records a pipeline writes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AnomalyLog {
    decode: bool,
    applayer: bool,
    stream: bool,
}

impl AnomalyLog {
    /// The records `config` asks for (the `anomaly` type on, and its kinds).
    pub(crate) fn new(config: &crate::config::EngineConfig) -> Self {
        let on = config.eve_types.engine("anomaly");
        let opts = config.eve_options.anomaly;
        AnomalyLog {
            decode: on && opts.decode,
            applayer: on && opts.applayer,
            stream: on && opts.stream,
        }
    }

    /// Starts queueing the app layer's events in `ctx` if they are logged.
    pub(crate) fn prepare(&self, ctx: &mut AppCtx) {
        ctx.anomalies.set_enabled(self.applayer);
    }

    /// Writes the application-layer events queued in `ctx`, with the header `meta`
    /// gives: the packet's (the one whose processing raised them: for stream data,
    /// the peer's acknowledgement that handed it to the app layer, as in Suricata), or
    /// the end-of-flow pseudo-packet's.
    pub(crate) fn app(
        &self,
        ctx: &mut AppCtx,
        meta: impl FnOnce() -> EventMeta,
        sink: &mut AlertSink,
    ) {
        if ctx.anomalies.is_empty() {
            return;
        }
        let meta = meta();
        for a in ctx.anomalies.drain() {
            sink.event(&event_record(&meta, "anomaly", a.tx_id, app_anomaly(&a)));
        }
    }

    /// Writes the stream events `events` the flow tracker raised on packet `p` of the
    /// flow `flow_id`.
    pub(crate) fn stream(
        &self,
        p: &Packet,
        flow_id: u64,
        pcap_cnt: Option<u64>,
        events: wire::StreamEvents,
        sink: &mut AlertSink,
    ) {
        if !self.stream || events.is_empty() {
            return;
        }
        let meta = packet_meta(p, flow_id, pcap_cnt);
        for e in events.iter() {
            sink.event(&event_record(
                &meta,
                "anomaly",
                None,
                stream_anomaly(e.name()),
            ));
        }
    }

    /// Writes the decoder events of packet `p`, which came in frame `buf`.
    pub(crate) fn decode(
        &self,
        p: &Packet,
        buf: &[u8],
        pcap_cnt: Option<u64>,
        sink: &mut AlertSink,
    ) {
        if !self.decode || p.n_events == 0 {
            return;
        }
        let flow_id = flow::adapter::flow_key(p, buf).map_or(0, |k| crate::detection::flow_id(&k));
        let meta = packet_meta(p, flow_id, pcap_cnt);
        // A packet whose IP header did not decode has no addresses (as Suricata's).
        let no_ip = !matches!(p.ip_version, 4 | 6) || p.has(wire::flags::IP_HDR_BROKEN);
        for e in p.events() {
            let mut rec = event_record(&meta, "anomaly", None, decode_anomaly(e.name()));
            if let (true, Some(o)) = (no_ip, rec.as_object_mut()) {
                for k in ["src_ip", "src_port", "dest_ip", "dest_port", "proto"] {
                    o.remove(k);
                }
            }
            sink.event(&rec);
        }
    }
}

/// The header of a record written when flow `ended` was flushed at time `ts` (the
/// end-of-flow pseudo-packet: client to server, no `pcap_cnt`).
pub(crate) fn ended_meta(ended: &flow::Ended<'_>, ts: Timestamp) -> EventMeta {
    let k = &ended.key;
    let v4 = k.family == flow::Family::V4;
    let (c, s, cp, sp) = if ended.client_is_src {
        (&k.src, &k.dst, k.sport, k.dport)
    } else {
        (&k.dst, &k.src, k.dport, k.sport)
    };
    EventMeta {
        ts_secs: ts.secs() as i64,
        ts_micros: ts.subsec_nanos() / 1000,
        flow_id: crate::detection::flow_id(k),
        pcap_cnt: None,
        vlan: k.vlan,
        src_ip: ip_addr(v4, c),
        src_port: cp,
        dest_ip: ip_addr(v4, s),
        dest_port: sp,
        proto: k.proto,
        pkt_src: "stream (flow timeout)",
    }
}

/// The header of a record about packet `p`, in the packet's direction.
pub(crate) fn packet_meta(p: &Packet, flow_id: u64, pcap_cnt: Option<u64>) -> EventMeta {
    let v4 = p.ip_version == 4;
    EventMeta {
        ts_secs: p.ts.secs() as i64,
        ts_micros: p.ts.subsec_nanos() / 1000,
        flow_id,
        pcap_cnt,
        vlan: p.vlan,
        src_ip: ip_addr(v4, &p.src),
        src_port: p.sport,
        dest_ip: ip_addr(v4, &p.dst),
        dest_port: p.dport,
        proto: p.proto,
        pkt_src: if pcap_cnt.is_some() {
            "wire/pcap"
        } else {
            "defrag"
        },
    }
}

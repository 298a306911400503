//! IPS mode (`--simulate-ips`): the detection verdicts take effect. A dropped packet
//! is counted and, when the verdict covers the flow, every later packet of the flow is
//! dropped before the application layer and detection see it. Offline, a `reject` is
//! recorded (counted), not sent. Counters use Suricata's `ips.*` names. Live inline
//! (`crate::inline`), the verdict of each captured frame ([`FrameVerdict`]) decides
//! whether it is forwarded, and a reject is sent.

use detect::{FlowDetect, Reject, Verdict};
use wire::{flags, Packet, Tunnel};

/// What IPS mode decided about one captured frame (all the packets decoded from it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameVerdict {
    /// A packet of the frame was dropped (by a rule, or its flow was dropped before):
    /// the frame must not be forwarded.
    pub drop: bool,
    /// The first `reject*` verdict on the frame with the packet it rejected, whose
    /// offsets point into the frame (none for packets found inside tunnels or rebuilt
    /// from fragments: those are dropped without an answer).
    pub reject: Option<(Reject, Packet)>,
}

/// Why a packet was dropped (Suricata's `ips.drop_reason.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DropReason {
    /// A `drop`/`reject` rule matched the packet.
    Rules,
    /// The packet belongs to a flow dropped earlier.
    FlowDrop,
    /// An exception policy dropped it (memory cap or app-layer error).
    Exception(crate::exception::Condition),
    /// `stream.midstream-policy` dropped the flow at this packet.
    Midstream,
}

/// Per-worker IPS state: whether verdicts apply, and the counters.
#[derive(Debug, Default, Clone)]
pub(crate) struct Ips {
    /// Verdicts take effect (IPS mode).
    pub(crate) enabled: bool,
    accepted: u64,
    blocked: u64,
    rejected: u64,
    /// Packets rewritten by the inline stream to the data it accepted first.
    replaced: u64,
    reason_rules: u64,
    reason_flow_drop: u64,
    /// Drops by exception policy, per condition.
    reason_exception: [u64; 5],
    reason_midstream: u64,
    /// The verdict of the frame being processed.
    frame: FrameVerdict,
    /// The frame's own packet being processed (not tunnelled, not a fragment).
    current: Option<Packet>,
    /// Why the packet being processed was dropped, in Suricata's words (EVE `drop`).
    packet_drop: Option<&'static str>,
}

impl Ips {
    pub(crate) fn new(enabled: bool) -> Self {
        Ips {
            enabled,
            ..Ips::default()
        }
    }

    /// A new captured frame starts: its verdict is accept until a packet is dropped.
    pub(crate) fn begin_frame(&mut self) {
        if self.enabled {
            self.frame = FrameVerdict::default();
        }
    }

    /// A packet decoded from the frame is about to be inspected.
    pub(crate) fn begin_packet(&mut self, p: &Packet) {
        self.packet_drop = None;
        if self.enabled {
            self.current = (p.tunnel == Tunnel::None && !p.has(flags::FRAGMENT)).then_some(*p);
        }
    }

    /// The verdict of the frame processed last.
    pub(crate) fn frame(&self) -> FrameVerdict {
        self.frame
    }

    /// True when `fd`'s flow was dropped: the packet is counted as blocked and goes
    /// no further.
    pub(crate) fn flow_dropped(&mut self, fd: &FlowDetect) -> bool {
        if self.enabled && fd.is_dropped() {
            self.drop(DropReason::FlowDrop);
            return true;
        }
        false
    }

    /// Applies the verdict of a packet's inspection: counts it and, for a flow-wide
    /// drop, marks the flow (`fd`) dropped (in IDS mode too: only detection stops).
    pub(crate) fn apply(&mut self, v: Verdict, fd: Option<&mut FlowDetect>) {
        if !self.enabled {
            // IDS mode: nothing is dropped, but like Suricata a flow-wide drop still
            // ends the flow's inspection (no later alerts; the app layer goes on).
            if let (true, Some(fd)) = (v.drop_flow, fd) {
                fd.drop_flow();
            }
            return;
        }
        if !v.drop {
            self.accepted += 1;
            return;
        }
        if let Some(r) = v.reject {
            self.rejected += 1;
            if self.frame.reject.is_none() {
                self.frame.reject = self.current.map(|p| (r, p));
            }
        }
        self.drop(DropReason::Rules);
        if v.drop_flow {
            if let Some(fd) = fd {
                fd.drop_flow();
            }
        }
    }

    /// The stream rewrote the packet's payload to the data it received first
    /// (Suricata's inline normalization of overlapping data): `ips.replaced`.
    pub(crate) fn replaced(&mut self) {
        if self.enabled {
            self.replaced += 1;
        }
    }

    /// An exception policy dropped the packet (`reject`: and rejected it).
    pub(crate) fn exception_drop(&mut self, c: crate::exception::Condition, reject: bool) {
        self.policy_drop(DropReason::Exception(c), reject);
    }

    /// A packet of a flow that `stream.midstream-policy` dropped (inline drop-flow or
    /// reject): `first` is the packet the policy was applied to (counted under
    /// `ips.drop_reason.stream_midstream`, answered with a reset under `reject`); the
    /// later ones count as packets of a dropped flow.
    pub(crate) fn midstream_drop(&mut self, first: bool, reject: bool) {
        match first {
            true => self.policy_drop(DropReason::Midstream, reject),
            false if self.enabled => self.drop(DropReason::FlowDrop),
            false => {}
        }
    }

    fn policy_drop(&mut self, reason: DropReason, reject: bool) {
        if !self.enabled {
            return;
        }
        if reject {
            self.rejected += 1;
            // Suricata's `reject` policy answers the packet's source.
            if self.frame.reject.is_none() {
                self.frame.reject = self.current.map(|p| (Reject::Src, p));
            }
        }
        self.drop(reason);
    }

    /// Why the packet being processed was dropped, if it was (taken: asked once).
    pub(crate) fn take_drop(&mut self) -> Option<&'static str> {
        self.packet_drop.take()
    }

    fn drop(&mut self, reason: DropReason) {
        self.blocked += 1;
        self.frame.drop = true;
        self.packet_drop.get_or_insert(match reason {
            DropReason::Rules => "rules",
            DropReason::FlowDrop => "flow drop",
            DropReason::Midstream => "stream midstream",
            DropReason::Exception(c) => {
                use crate::exception::Condition as C;
                match c {
                    C::SsnMemcap => "stream memcap",
                    C::ReassemblyMemcap => "stream reassembly",
                    C::DefragMemcap => "defrag memcap",
                    C::FlowMemcap => "flow memcap",
                    C::AppLayerError => "applayer error",
                }
            }
        });
        match reason {
            DropReason::Rules => self.reason_rules += 1,
            DropReason::FlowDrop => self.reason_flow_drop += 1,
            DropReason::Exception(c) => self.reason_exception[c as usize] += 1,
            DropReason::Midstream => self.reason_midstream += 1,
        }
    }

    /// The `ips.*` counters (none outside IPS mode).
    pub(crate) fn counters(&self) -> Vec<(&'static str, u64)> {
        if !self.enabled {
            return Vec::new();
        }
        vec![
            ("ips.accepted", self.accepted),
            ("ips.blocked", self.blocked),
            ("ips.rejected", self.rejected),
            ("ips.replaced", self.replaced),
            ("ips.drop_reason.rules", self.reason_rules),
            ("ips.drop_reason.flow_drop", self.reason_flow_drop),
            ("ips.drop_reason.stream_midstream", self.reason_midstream),
        ]
        .into_iter()
        .chain(
            crate::exception::Condition::ALL
                .iter()
                .map(|c| (c.drop_reason(), self.reason_exception[*c as usize])),
        )
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_mode_drops_nothing_but_a_flow_drop_ends_inspection() {
        let mut ips = Ips::new(false);
        let mut fd = FlowDetect::new();
        let packet_only = Verdict {
            drop: true,
            ..Verdict::default()
        };
        ips.apply(packet_only, Some(&mut fd));
        assert!(!fd.is_dropped());
        let v = Verdict {
            drop: true,
            drop_flow: true,
            ..Verdict::default()
        };
        ips.apply(v, Some(&mut fd));
        // Detection of the flow ends (Suricata logs no later alert of the flow) ...
        assert!(fd.is_dropped());
        // ... but its packets still go through: nothing is blocked or counted.
        assert!(!ips.flow_dropped(&fd));
        assert!(ips.counters().is_empty());
    }

    #[test]
    fn flow_drop_blocks_later_packets() {
        let mut ips = Ips::new(true);
        let mut fd = FlowDetect::new();
        ips.apply(Verdict::default(), Some(&mut fd));
        let packet_only = Verdict {
            drop: true,
            ..Verdict::default()
        };
        ips.apply(packet_only, Some(&mut fd));
        assert!(!ips.flow_dropped(&fd));
        let flow = Verdict {
            drop: true,
            drop_flow: true,
            reject: Some(detect::Reject::Src),
            ..Verdict::default()
        };
        ips.apply(flow, Some(&mut fd));
        assert!(ips.flow_dropped(&fd));
        let c: std::collections::HashMap<_, _> = ips.counters().into_iter().collect();
        assert_eq!(c["ips.accepted"], 1);
        assert_eq!(c["ips.blocked"], 3);
        assert_eq!(c["ips.rejected"], 1);
        assert_eq!(c["ips.drop_reason.rules"], 2);
        assert_eq!(c["ips.drop_reason.flow_drop"], 1);
    }

    #[test]
    fn frame_verdict_follows_its_packets() {
        let mut ips = Ips::new(true);
        let own = Packet {
            proto: 6,
            ..Packet::default()
        };
        let reject = Verdict {
            drop: true,
            reject: Some(Reject::Dst),
            ..Verdict::default()
        };
        ips.begin_frame();
        ips.begin_packet(&own);
        ips.apply(Verdict::default(), None);
        assert_eq!(ips.frame(), FrameVerdict::default());
        ips.apply(reject, None);
        assert_eq!(
            ips.frame(),
            FrameVerdict {
                drop: true,
                reject: Some((Reject::Dst, own)),
            }
        );
        // A new frame starts accepted; a tunnelled packet is dropped without an answer.
        ips.begin_frame();
        assert_eq!(ips.frame(), FrameVerdict::default());
        ips.begin_packet(&Packet {
            tunnel: Tunnel::Gre,
            ..own
        });
        ips.apply(reject, None);
        assert_eq!(
            ips.frame(),
            FrameVerdict {
                drop: true,
                reject: None,
            }
        );
        // An exception policy's reject answers the source of the frame's own packet.
        ips.begin_frame();
        ips.begin_packet(&own);
        ips.exception_drop(crate::exception::Condition::FlowMemcap, true);
        assert_eq!(
            ips.frame(),
            FrameVerdict {
                drop: true,
                reject: Some((Reject::Src, own)),
            }
        );
    }
}

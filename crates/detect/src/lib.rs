//! Osprey's detection engine, as a library without I/O: rules from the `rules` crate are
//! compiled into signature groups with multi-pattern prefilters (`mpm`), candidates are
//! verified in Suricata's order (header, flow, packet options, flowbits, then the
//! buffer programs: content, pcre, byte_*, isdataat, bsize, urilen) and alerts are
//! finalized with Suricata's IDS semantics (one alert per rule per packet, action-order,
//! `pass`, thresholds and suppressions, `packet-alert-max`).
//!
//! - [`Detector::build`] compiles once; the detector is shared read-only by workers.
//! - [`Scratch`] is per worker (candidate lists, threshold counters).
//! - [`FlowDetect`] is per flow (flowbits, which rules already matched which
//!   transaction, flow-level pass); the engine stores it beside the flow.
//! - [`Detector::inspect`] takes an [`Input`]: the packet the alerts land on, its flow
//!   context, and what to inspect in this call (the packet, a reassembled stream chunk,
//!   the flow's application-layer transactions).
//!
//! # When the engine calls `inspect` (what Suricata 7 does in IDS mode)
//!
//! Learned from the reference corpus (`bug-78-http-uri`, `alert-testmyids-midstream5`,
//! `iponly-midstream-01`, `alert-max__*`):
//!
//! - Every decoded packet: one call with `packet_rules: true`. For TCP packets whose
//!   payload the stream engine added, set [`FlowInfo::payload_in_stream`]: stream-capable
//!   payload rules then skip the raw packet payload (only `dsize`, `flow:no_stream`,
//!   `tcp-pkt` rules see it).
//! - Raw stream: data of direction D that became acknowledged (by a packet of the other
//!   direction) is inspected on the *next packet of direction D*, passed as
//!   [`Input::stream`] with that packet; the alert lands on that packet.
//! - App layer: transactions are inspected in the packet's direction only
//!   (request-side rules on to-server packets, response-side on to-client packets). A
//!   request parsed when the server's ACK arrives alerts on the client's next packet.
//!   Pass [`Input::app`] on every packet of a flow with app-layer state.
//! - End of flow / end of capture: one pseudo packet per direction (no `pcap_cnt`),
//!   with `packet_rules: true`, the leftover stream chunk and the app state; IP-only
//!   rules that never ran for a direction alert there.
//!
//! ```
//! use detect::{DetectOptions, Detector, Input};
//! let (set, _) = rules::RuleSet::load_str(
//!     r#"alert udp any any -> any 53 (msg:"x"; content:"evil"; sid:1;)"#,
//!     None,
//!     &rules::Vars::suricata_default(),
//!     &Default::default(),
//! );
//! let (det, diags) = Detector::build(&set.rules, &DetectOptions::default(), &rules::Vars::default());
//! assert!(diags.is_empty());
//! assert_eq!(det.len(), 1);
//! let mut scratch = det.scratch();
//! let _ = &mut scratch;
//! let _ = Input::packet;
//! ```
#![deny(missing_docs)]

pub mod analysis;
mod app_dir;
mod asn1;
mod base64;
mod batch;
mod bidir;
mod body_scan;
mod buffer_program;
mod bypass;
mod byte_jump;
mod bytes;
mod cand_pool;
mod csum_opt;
mod detector;
mod events;
mod fastpat;
mod files;
mod flowint;
mod flowstate;
mod frames;
pub mod fuzzing;
mod hdr_buf;
mod header_proto;
mod host_case;
mod input;
mod ip_proto_opt;
mod iponly;
mod ipopts;
mod keyword_opts;
pub mod lists;
mod log_config;
pub mod lua;
mod meta_opts;
mod mpm_blind;
mod offload;
mod only_stream;
mod options;
mod packet_opts;
mod pcre;
mod pcre_dfa;
mod pkt_only;
mod prefilter;
mod program;
mod proto_buffer;
mod rpc_opt;
mod search;
mod seen_list;
mod sig;
mod state;
mod stream_event;
mod stream_memo;
mod tag;
mod threshold;
mod tls;
mod tls_content;
mod tls_store;
mod transform;
mod vars;
mod verdict;
mod xbits;
mod xform_check;
pub use log_config::LogMarks;

/// Helpers shared by the unit tests of several modules.
#[cfg(test)]
pub(crate) mod testutil {
    use crate::{DetectOptions, Detector};

    /// A detector built from `text` (rules, one a line) with the default options and
    /// Suricata's default variables; panics on any diagnostic.
    pub(crate) fn detector(text: &str) -> Detector {
        let (set, _) = rules::RuleSet::load_str(
            text,
            None,
            &rules::Vars::suricata_default(),
            &Default::default(),
        );
        let (d, diags) = Detector::build(
            &set.rules,
            &DetectOptions::default(),
            &rules::Vars::default(),
        );
        assert!(diags.is_empty(), "{diags:?}");
        d
    }

    /// Whether the detector refuses the one rule `rule` (which the rules crate loads):
    /// the build's diagnostics are not empty.
    pub(crate) fn refused(rule: &str) -> bool {
        let (set, _) = rules::RuleSet::load_str(
            rule,
            None,
            &rules::Vars::suricata_default(),
            &Default::default(),
        );
        assert_eq!(set.rules.len(), 1, "{rule}");
        let (_, diags) = Detector::build(
            &set.rules,
            &DetectOptions::default(),
            &rules::Vars::default(),
        );
        !diags.is_empty()
    }

    /// An IPv4 packet 10.0.0.1:1234 -> 10.0.0.2:80 of protocol `proto` whose payload is
    /// `payload`, at offset 54 of its frame.
    pub(crate) fn packet(proto: u8, payload: &[u8]) -> (wire::Packet, Vec<u8>) {
        let mut frame = vec![0u8; 54];
        frame.extend_from_slice(payload);
        let p = wire::Packet {
            ip_version: 4,
            proto,
            src: [10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            dst: [10, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            sport: 1234,
            dport: 80,
            payload_off: 54,
            payload_len: payload.len() as u32,
            ..wire::Packet::default()
        };
        (p, frame)
    }
}

pub use batch::{BatchMatches, BatchPrefilter, CpuBatchPrefilter, ItemMatches};
pub use detector::{Detector, RuleInfo};
pub use fastpat::{FpReason, NoFastPattern};
pub use files::FileNeeds;
pub use input::{Alert, FlowCounts, FlowInfo, FrameHit, Input, MatchedOn};
pub use offload::{OffloadPlan, PcreDfas};
pub use options::{ActionClass, BuildStats, DetectOptions, DiagKind, Diagnostic};
pub use pcre::PcreLimits;
pub use pcre_dfa::{pcre_dfa, NoDfa, PCRE_DFA_MAX_STATES};
pub use program::{MAX_VARS, RECURSION_LIMIT};
pub use state::{FlowDetect, Scratch, ScratchStats, MAX_TX_DONE};
pub use stream_memo::StreamLayout;
pub use tag::TagPacket;
pub use threshold::{
    Deferred as DeferredThreshold, SharedThresholds, Verdict as ThresholdVerdict,
    MAX_THRESHOLD_ENTRIES,
};
pub use vars::FlowVars;
pub use verdict::{Reject, Verdict};

#[cfg(test)]
mod tests {
    #[test]
    fn shared_types_are_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<crate::Detector>();
        check::<crate::Scratch>();
        check::<crate::FlowDetect>();
    }
}

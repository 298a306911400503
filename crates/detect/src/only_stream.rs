//! Rules that inspect the reassembled stream only (`flow:only_stream`, the `tcp-stream`
//! protocol; Suricata's `SIG_FLAG_REQUIRE_STREAM`), as Suricata 7.0.10 treats them:
//! a packet keyword in such a rule makes Suricata refuse it ("can't mix packet keywords
//! with tcp-stream or flow:only_stream"), and one without a payload keyword has nothing
//! to inspect, so it never alerts (tests/parity/cases/only-stream-no-payload; found by
//! the differential batch, dt-28-457) unless it is IP-only (`alert tcp-stream ...` with
//! no option is, and alerts on the first packet of each direction).

use crate::packet_opts::HdrOpt;
use crate::sig::{failed, PayloadMode, PktOpt, Refusal, Sig};

/// Whether Suricata counts `o` as a packet keyword (one that sets its
/// `SIG_FLAG_REQUIRE_PACKET`). Checked one by one against Suricata 7.0.10: `icmp_seq`,
/// `stream_size`, `decode-event` and the checksum keywords are not.
fn packet_keyword(o: &PktOpt) -> bool {
    match o {
        PktOpt::IcmpSeq(_) | PktOpt::Intel(_) | PktOpt::State(_) | PktOpt::Lua(_) => false,
        PktOpt::Hdr(h) => !matches!(
            h,
            HdrOpt::L3Proto(_)
                | HdrOpt::Event(_)
                | HdrOpt::EngineEvent(_)
                | HdrOpt::Csum(_)
                | HdrOpt::Stream(_)
        ),
        _ => true,
    }
}

/// Refuses a stream-only rule (`only_stream`) with a packet keyword, as Suricata does.
pub(crate) fn check(sig: &Sig, only_stream: bool) -> Result<(), Refusal> {
    if only_stream && sig.pkt.iter().any(packet_keyword) {
        return Err(failed(
            "flow",
            "can't mix packet keywords with tcp-stream or flow:only_stream",
        ));
    }
    Ok(())
}

/// Whether a rule without payload keywords can never match: it inspects the stream
/// only, there is no stream keyword to inspect it with, and it is not IP-only.
pub(crate) fn never_matches(sig: &Sig) -> bool {
    sig.payload.is_none() && sig.payload_mode == PayloadMode::Stream && !sig.iponly
}

#[cfg(test)]
mod tests {
    /// The diagnostics of loading the one rule `rule` (empty: loaded).
    fn load(rule: &str) -> Vec<String> {
        let vars = rules::Vars::suricata_default();
        let (set, _) = rules::RuleSet::load_str(rule, None, &vars, &Default::default());
        let (_, diags) =
            crate::Detector::build(&set.rules, &crate::DetectOptions::default(), &vars);
        diags.iter().map(|d| format!("{d:?}")).collect()
    }

    #[test]
    fn packet_keywords_are_refused_with_only_stream() {
        for o in [
            "ttl:3;",
            "flags:S;",
            "dsize:3;",
            "ip_proto:6;",
            "fragbits:M;",
            "tcp.mss:1;",
            "icmp_id:1;",
            "window:3;",
            "sameip;",
            "ipopts:rr;",
        ] {
            let r = format!("alert tcp any any -> any any (flow:only_stream; {o} sid:1;)");
            assert!(!load(&r).is_empty(), "{r} loaded");
            let r = format!("alert tcp-stream any any -> any any ({o} sid:1;)");
            assert!(!load(&r).is_empty(), "{r} loaded");
            // ip_proto loads in `ip` rules only (as Suricata 7.0.10: detect/ip_proto_opt.rs).
            let p = if o.starts_with("ip_proto") {
                "ip"
            } else {
                "tcp"
            };
            let r = format!("alert {p} any any -> any any (flow:to_server; {o} sid:1;)");
            assert!(load(&r).is_empty(), "{r} refused");
        }
        for o in [
            "icmp_seq:1;",
            "flowbits:isset,a;",
            "stream_size:server,>,1;",
            "",
        ] {
            let r = format!("alert tcp any any -> any any (flow:only_stream; {o} sid:1;)");
            assert!(load(&r).is_empty(), "{r} refused");
        }
    }
}

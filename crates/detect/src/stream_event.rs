//! `stream-event:<name>` and `engine-event:stream.<name>`: the TCP tracker raised the
//! stream event on the packet (the set comes with the packet's flow context,
//! [`crate::FlowCounts::stream_events`]). A name Suricata 7.0.10 knows whose event
//! Osprey's tracker does not raise is an unsupported rule, with the reason
//! ([`wire::StreamEvent::not_raised`]; `wrong_thread` loads: its condition cannot arise
//! in Osprey); an unknown name is a rule error, as in Suricata.

use crate::input::FlowInfo;
use crate::packet_opts::HdrOpt;
use crate::sig::{failed, unsupported, Refusal};

/// The condition for `keyword` (`stream-event` or `engine-event`) with event name
/// `name` (without the `stream.` prefix).
pub(crate) fn compile(keyword: &str, name: &str) -> Result<HdrOpt, Refusal> {
    if name.is_empty() {
        return Err(failed(keyword, format!("{keyword} needs an event name")));
    }
    let e = wire::StreamEvent::from_name(name)
        .ok_or_else(|| failed(keyword, format!("{keyword}:{name}: unknown stream event")))?;
    match e.not_raised() {
        Some(why) if e != wire::StreamEvent::WrongThread => Err(unsupported(
            keyword,
            format!("{keyword}:{name}: Osprey's TCP tracker does not raise this event ({why})"),
        )),
        _ => Ok(HdrOpt::Stream(e)),
    }
}

/// Whether the packet whose flow context is `flow` carries event `e`.
pub(crate) fn holds(e: wire::StreamEvent, flow: Option<FlowInfo>) -> bool {
    flow.is_some_and(|f| f.counts.stream_events.has(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raised_names_load_others_are_unsupported_and_unknown_ones_fail() {
        for &e in wire::StreamEvent::ALL {
            match compile("stream-event", e.name()) {
                Ok(opt) => {
                    assert_eq!(opt, HdrOpt::Stream(e));
                    assert!(
                        e.not_raised().is_none() || e == wire::StreamEvent::WrongThread,
                        "{e:?}"
                    );
                }
                Err(r) => assert!(r.unsupported && e.not_raised().is_some(), "{e:?}"),
            }
        }
        assert!(
            compile("engine-event", "suspected_rst_inject")
                .unwrap_err()
                .unsupported
        );
        assert_eq!(
            compile("stream-event", "3whs_synack_resend_with_different_ack").unwrap(),
            HdrOpt::Stream(wire::StreamEvent::ThreewhsSynackResendWithDiffAck)
        );
        for bad in ["", "no_such_event", "memcap", "stream.est_invalid_ack"] {
            assert!(
                !compile("stream-event", bad).unwrap_err().unsupported,
                "{bad}"
            );
        }
    }

    #[test]
    fn holds_on_the_packets_set_only() {
        let e = wire::StreamEvent::EstInvalidAck;
        assert!(!holds(e, None));
        let mut f = FlowInfo {
            to_server: true,
            established: true,
            payload_in_stream: false,
            app_proto: app::AppProto::Unknown,
            counts: Default::default(),
        };
        assert!(!holds(e, Some(f)));
        f.counts.stream_events.set(e);
        assert!(holds(e, Some(f)));
        assert!(!holds(wire::StreamEvent::PktInvalidAck, Some(f)));
    }
}

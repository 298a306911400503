//! Conditions on what the flow tracker counted: `stream_size` (TCP sequence space
//! used per side) and `flow.age` (seconds since the flow's first packet).

use rules::IntCmp;

use crate::input::FlowInfo;
use crate::sig::Refusal;

/// Which sides of the TCP stream `stream_size` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The server's stream.
    Server,
    /// The client's stream.
    Client,
    /// Both must match.
    Both,
    /// One must match.
    Either,
}

/// A flow-counter condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateOpt {
    /// `stream_size:<side>,<op>,<n>`.
    StreamSize { side: Side, cmp: IntCmp },
    /// `flow.age:<cmp>`.
    FlowAge(IntCmp),
}

fn bad(kw: &str, msg: String) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: kw.to_owned(),
        message: msg,
    }
}

/// `stream_size` from the parsed rule option.
pub(crate) fn stream_size(side: &str, op: &str, size: u64) -> Result<StateOpt, Refusal> {
    let side = match side {
        "server" => Side::Server,
        "client" => Side::Client,
        "both" => Side::Both,
        "either" => Side::Either,
        s => return Err(bad("stream_size", format!("unknown side '{s}'"))),
    };
    let cmp = match op {
        "<" => IntCmp::Lt(size),
        "<=" => IntCmp::Le(size),
        ">" => IntCmp::Gt(size),
        ">=" => IntCmp::Ge(size),
        "=" => IntCmp::Eq(size),
        "!=" => IntCmp::Ne(size),
        o => return Err(bad("stream_size", format!("unknown operator '{o}'"))),
    };
    Ok(StateOpt::StreamSize { side, cmp })
}

/// `flow.age` from its value (a 32-bit comparison as Suricata's integer keywords).
pub(crate) fn flow_age(val: Option<&str>) -> Result<StateOpt, Refusal> {
    let v = val.ok_or_else(|| bad("flow.age", "flow.age needs a value".into()))?;
    let max = u64::from(u32::MAX);
    match rules::values::int_cmp(v, max) {
        // Suricata 7.0.10 refuses comparisons that can never or always hold (`<0`,
        // `>=0`; found by the differential harness's `flowkw` family), as its unsigned
        // integer keywords do.
        Ok(IntCmp::Lt(0) | IntCmp::Ge(0)) => Err(bad(
            "flow.age",
            format!("flow.age:{v}: a comparison that never or always holds"),
        )),
        Ok(IntCmp::Gt(n) | IntCmp::Le(n)) if n == max => Err(bad(
            "flow.age",
            format!("flow.age:{v}: a comparison that never or always holds"),
        )),
        Ok(c) => Ok(StateOpt::FlowAge(c)),
        Err(e) => Err(bad("flow.age", format!("flow.age: {e}"))),
    }
}

impl StateOpt {
    /// Whether the packet's flow satisfies the condition (never without a flow;
    /// `stream_size` never without a TCP session), evaluated at `now_secs`.
    pub(crate) fn matches(&self, flow: Option<FlowInfo>, now_secs: u64) -> bool {
        let Some(f) = flow else { return false };
        match *self {
            StateOpt::StreamSize { side, cmp } => {
                let Some([c, s]) = f.counts.stream else {
                    return false;
                };
                let (c, s) = (cmp.matches(c as u64), cmp.matches(s as u64));
                match side {
                    Side::Server => s,
                    Side::Client => c,
                    Side::Both => c && s,
                    Side::Either => c || s,
                }
            }
            StateOpt::FlowAge(cmp) => cmp.matches(now_secs.saturating_sub(f.counts.first_secs)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::FlowCounts;

    fn flow(stream: Option<[u32; 2]>, first_secs: u64) -> Option<FlowInfo> {
        Some(FlowInfo {
            to_server: true,
            established: true,
            payload_in_stream: false,
            app_proto: app::AppProto::Unknown,
            counts: FlowCounts {
                first_secs,
                stream,
                ..Default::default()
            },
        })
    }

    #[test]
    fn stream_size_sides() {
        let f = flow(Some([1, 200]), 0);
        let m = |side: &str, op: &str, n: u64| stream_size(side, op, n).unwrap().matches(f, 0);
        assert!(m("client", "=", 1) && !m("server", "=", 1));
        assert!(m("server", ">", 100) && m("server", "<=", 200) && !m("server", "<", 200));
        assert!(m("either", "<", 5) && !m("both", "<", 5) && m("both", "<", 201));
        assert!(m("client", "!=", 2));
        assert!(!stream_size("server", "<", 5)
            .unwrap()
            .matches(flow(None, 0), 0));
        assert!(!stream_size("server", "<", 5).unwrap().matches(None, 0));
        assert!(stream_size("up", "<", 5).is_err() && stream_size("server", "~", 5).is_err());
    }

    #[test]
    fn flow_age_counts_seconds_since_the_first_packet() {
        let f = flow(None, 100);
        assert!(flow_age(Some(">5")).unwrap().matches(f, 106));
        assert!(flow_age(Some("<0")).is_err() && flow_age(Some(">=0")).is_err());
        assert!(flow_age(Some("<=0")).is_ok() && flow_age(Some(">0")).is_ok());
        assert!(!flow_age(Some(">5")).unwrap().matches(f, 105));
        assert!(flow_age(Some("0")).unwrap().matches(f, 100));
        assert!(flow_age(Some("2-9")).unwrap().matches(f, 103));
        assert!(flow_age(None).is_err() && flow_age(Some("x")).is_err());
    }
}

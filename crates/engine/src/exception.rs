//! Suricata 7's exception policies: what to do with a packet or flow when a limit is
//! hit or an error happens (`exception-policy` master switch and the per-condition
//! keys such as `stream.midstream-policy`). Resolution follows Suricata 7: an unset
//! key takes the master switch; `auto` is `drop-flow` inline and `ignore` otherwise;
//! outside IPS mode the drop and reject policies degrade to `ignore`; with midstream
//! pick-up on, the midstream policy may only bypass or pass the flow.

/// One exception policy value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExceptionPolicy {
    /// Nothing special happens (`ignore`).
    Ignore,
    /// Drop the packet (`drop-packet`).
    DropPacket,
    /// Drop the packet and the rest of the flow (`drop-flow`).
    DropFlow,
    /// Let the packet through uninspected (`pass-packet`).
    PassPacket,
    /// Let the rest of the flow through uninspected (`pass-flow`).
    PassFlow,
    /// Bypass the flow (`bypass`).
    Bypass,
    /// Drop the flow and send a reset (`reject`).
    Reject,
}

impl ExceptionPolicy {
    /// Parses a configuration value; `auto` is resolved with `ips`.
    pub fn parse(value: &str, ips: bool) -> Option<Self> {
        Some(match value.trim().to_ascii_lowercase().as_str() {
            "ignore" => Self::Ignore,
            "drop-packet" => Self::DropPacket,
            "drop-flow" => Self::DropFlow,
            "pass-packet" => Self::PassPacket,
            "pass-flow" => Self::PassFlow,
            "bypass" => Self::Bypass,
            "reject" => Self::Reject,
            "auto" if ips => Self::DropFlow,
            "auto" => Self::Ignore,
            _ => return None,
        })
    }

    /// True for the policies that drop traffic.
    pub fn drops(self) -> bool {
        matches!(self, Self::DropPacket | Self::DropFlow | Self::Reject)
    }

    /// True for the policies that stop inspecting the flow without dropping it.
    pub fn passes_flow(self) -> bool {
        matches!(self, Self::PassFlow | Self::Bypass)
    }

    /// Outside IPS mode a drop or reject policy cannot act: it becomes `ignore`.
    pub fn for_mode(self, ips: bool) -> Self {
        if !ips && self.drops() {
            Self::Ignore
        } else {
            self
        }
    }
}

/// The master switch (`exception-policy`), `auto` when unset or not understood.
pub fn master(value: Option<&str>, ips: bool) -> ExceptionPolicy {
    value
        .and_then(|v| ExceptionPolicy::parse(v, ips))
        .unwrap_or(ExceptionPolicy::parse("auto", ips).unwrap_or(ExceptionPolicy::Ignore))
        .for_mode(ips)
}

/// A per-condition key's policy: its own value, else the master switch; adjusted for
/// the mode.
pub fn resolve(value: Option<&str>, master: ExceptionPolicy, ips: bool) -> ExceptionPolicy {
    value
        .and_then(|v| ExceptionPolicy::parse(v, ips))
        .unwrap_or(master)
        .for_mode(ips)
}

/// `stream.midstream-policy`: with pick-up on, only bypass and pass-flow apply
/// (other values act as `ignore`).
pub fn midstream(
    value: Option<&str>,
    master: ExceptionPolicy,
    ips: bool,
    midstream_on: bool,
) -> ExceptionPolicy {
    let p = resolve(value, master, ips);
    if midstream_on && !p.passes_flow() {
        ExceptionPolicy::Ignore
    } else {
        p
    }
}

#[cfg(test)]
mod tests {
    use super::ExceptionPolicy::*;
    use super::*;

    #[test]
    fn parses_every_value() {
        for (s, p) in [
            ("ignore", Ignore),
            ("drop-packet", DropPacket),
            ("drop-flow", DropFlow),
            ("pass-packet", PassPacket),
            ("pass-flow", PassFlow),
            ("bypass", Bypass),
            ("Reject", Reject),
        ] {
            assert_eq!(ExceptionPolicy::parse(s, true), Some(p));
        }
        assert_eq!(ExceptionPolicy::parse("sometimes", true), None);
    }

    #[test]
    fn auto_is_drop_flow_inline_and_ignore_otherwise() {
        assert_eq!(master(None, true), DropFlow);
        assert_eq!(master(Some("auto"), true), DropFlow);
        assert_eq!(master(None, false), Ignore);
        assert_eq!(master(Some("auto"), false), Ignore);
    }

    #[test]
    fn ids_mode_degrades_drop_and_reject_to_ignore() {
        for p in ["drop-packet", "drop-flow", "reject"] {
            assert_eq!(resolve(Some(p), Ignore, false), Ignore);
            assert_ne!(resolve(Some(p), Ignore, true), Ignore);
        }
        assert_eq!(resolve(Some("pass-flow"), Ignore, false), PassFlow);
        assert_eq!(resolve(Some("bypass"), Ignore, false), Bypass);
        assert_eq!(master(Some("drop-flow"), false), Ignore);
    }

    #[test]
    fn unset_key_takes_the_master_switch() {
        assert_eq!(resolve(None, Bypass, true), Bypass);
        assert_eq!(resolve(Some("ignore"), Bypass, true), Ignore);
        assert_eq!(resolve(Some("bogus"), PassFlow, true), PassFlow);
    }

    #[test]
    fn midstream_on_keeps_only_pass_and_bypass() {
        assert_eq!(midstream(Some("drop-flow"), Ignore, true, true), Ignore);
        assert_eq!(midstream(Some("reject"), Ignore, true, true), Ignore);
        assert_eq!(midstream(Some("pass-flow"), Ignore, true, true), PassFlow);
        assert_eq!(midstream(None, Bypass, true, true), Bypass);
        assert_eq!(midstream(Some("drop-flow"), Ignore, true, false), DropFlow);
        assert_eq!(midstream(None, DropFlow, true, false), DropFlow);
    }
}

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

impl ExceptionPolicy {
    /// The suffix of this policy's counter (`drop_flow`, ...); `None` for `ignore`.
    pub fn stat_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Ignore => return None,
            Self::DropPacket => "drop_packet",
            Self::DropFlow => "drop_flow",
            Self::PassPacket => "pass_packet",
            Self::PassFlow => "pass_flow",
            Self::Bypass => "bypass",
            Self::Reject => "reject",
        })
    }

    /// The policy for a condition that can only act on the packet (`flow.memcap`,
    /// `defrag.memcap`): a flow policy acts on the packet alone (drop-flow and reject
    /// drop the packet, pass-flow and bypass pass it).
    pub fn packet_only(self) -> Self {
        match self {
            Self::DropFlow | Self::Reject => Self::DropPacket,
            Self::PassFlow | Self::Bypass => Self::PassPacket,
            p => p,
        }
    }
}

/// The conditions that have an exception policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// No memory for a new TCP session (`stream.memcap`).
    SsnMemcap,
    /// No memory for a segment (`stream.reassembly.memcap`).
    ReassemblyMemcap,
    /// No memory for a fragment (`defrag.memcap`).
    DefragMemcap,
    /// No flow could be had (`flow.memcap`).
    FlowMemcap,
    /// An application-layer parser failed (`app-layer.error-policy`).
    AppLayerError,
}

impl Condition {
    /// Every condition.
    pub const ALL: [Condition; 5] = [
        Condition::SsnMemcap,
        Condition::ReassemblyMemcap,
        Condition::DefragMemcap,
        Condition::FlowMemcap,
        Condition::AppLayerError,
    ];

    /// Suricata's counter group of the condition (one counter per policy under it).
    pub fn counter_prefix(self) -> &'static str {
        match self {
            Condition::SsnMemcap => "tcp.ssn_memcap_exception_policy",
            Condition::ReassemblyMemcap => "tcp.reassembly_exception_policy",
            Condition::DefragMemcap => "defrag.memcap_exception_policy",
            Condition::FlowMemcap => "flow.memcap_exception_policy",
            Condition::AppLayerError => "app_layer.error.exception_policy",
        }
    }

    /// The configuration key of the condition's policy.
    pub fn key(self) -> &'static str {
        match self {
            Condition::SsnMemcap => "stream.memcap-policy",
            Condition::ReassemblyMemcap => "stream.reassembly.memcap-policy",
            Condition::DefragMemcap => "defrag.memcap-policy",
            Condition::FlowMemcap => "flow.memcap-policy",
            Condition::AppLayerError => "app-layer.error-policy",
        }
    }

    fn packet_only(self) -> bool {
        matches!(self, Condition::DefragMemcap | Condition::FlowMemcap)
    }

    /// Suricata's `ips.drop_reason.*` counter of the packets its policy dropped.
    pub fn drop_reason(self) -> &'static str {
        match self {
            Condition::SsnMemcap => "ips.drop_reason.stream_memcap",
            Condition::ReassemblyMemcap => "ips.drop_reason.stream_reassembly",
            Condition::DefragMemcap => "ips.drop_reason.defrag_memcap",
            Condition::FlowMemcap => "ips.drop_reason.flow_memcap",
            Condition::AppLayerError => "ips.drop_reason.applayer_error",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The policy of every condition of a run, resolved against the master switch and
/// the mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policies([ExceptionPolicy; 5]);

impl Default for Policies {
    fn default() -> Self {
        Policies([ExceptionPolicy::Ignore; 5])
    }
}

impl Policies {
    /// Resolves each condition's key (read with `get`) against `master`.
    pub fn resolve(
        get: impl Fn(&str) -> Option<String>,
        master: ExceptionPolicy,
        ips: bool,
    ) -> Self {
        let mut p = Policies::default();
        for c in Condition::ALL {
            let v = resolve(get(c.key()).as_deref(), master, ips);
            p.0[c.index()] = if c.packet_only() { v.packet_only() } else { v };
        }
        p
    }

    /// The policy of `c`.
    pub fn get(&self, c: Condition) -> ExceptionPolicy {
        self.0[c.index()]
    }
}

/// How often each policy was applied, per condition.
#[derive(Debug, Default, Clone)]
pub struct PolicyStats([[u64; 7]; 5]);

impl PolicyStats {
    /// Counts one application of `p` for `c` (`ignore` is not counted).
    pub fn record(&mut self, c: Condition, p: ExceptionPolicy) {
        self.0[c.index()][p as usize] += 1;
    }

    /// How often `p` was applied for `c`.
    pub fn count(&self, c: Condition, p: ExceptionPolicy) -> u64 {
        self.0[c.index()][p as usize]
    }

    /// Suricata's counters (`tcp.reassembly_exception_policy.drop_flow`, ...): for
    /// each condition whose policy is not `ignore`, the policies it can apply.
    pub fn counters(&self, policies: &Policies) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for c in Condition::ALL {
            if policies.get(c) == ExceptionPolicy::Ignore {
                continue;
            }
            for p in ALL_POLICIES {
                if c.packet_only() && p.packet_only() != p {
                    continue;
                }
                if let Some(name) = p.stat_name() {
                    out.push((format!("{}.{name}", c.counter_prefix()), self.count(c, p)));
                }
            }
        }
        out
    }
}

/// Conditions forced at given packets, as Suricata's `--simulate-*` options force
/// them (its debug/QA builds; release builds accept the options and do nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Simulate {
    /// `--simulate-packet-flow-memcap`: the packet (`pcap_cnt`) finds the flow table full.
    pub flow_memcap: Option<u64>,
    /// `--simulate-packet-tcp-ssn-memcap`: the packet finds no session memory.
    pub ssn_memcap: Option<u64>,
    /// `--simulate-packet-tcp-reassembly-memcap`: the packet's segment finds no
    /// reassembly memory.
    pub reassembly_memcap: Option<u64>,
    /// `--simulate-packet-defrag-memcap`: the fragment finds no defrag memory.
    pub defrag_memcap: Option<u64>,
    /// `--simulate-applayer-error-at-offset-ts`: the to-server parser fails when its
    /// data reaches this stream offset.
    pub applayer_error_ts: Option<u64>,
    /// `--simulate-applayer-error-at-offset-tc`: the same, to client.
    pub applayer_error_tc: Option<u64>,
}

impl Simulate {
    /// True when some condition is forced.
    pub fn any(&self) -> bool {
        *self != Simulate::default()
    }
}

const ALL_POLICIES: [ExceptionPolicy; 7] = [
    ExceptionPolicy::Ignore,
    ExceptionPolicy::DropPacket,
    ExceptionPolicy::DropFlow,
    ExceptionPolicy::PassPacket,
    ExceptionPolicy::PassFlow,
    ExceptionPolicy::Bypass,
    ExceptionPolicy::Reject,
];

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
    fn packet_only_conditions_fold_flow_policies() {
        let get = |k: &str| match k {
            "flow.memcap-policy" => Some("drop-flow".to_string()),
            "defrag.memcap-policy" => Some("bypass".to_string()),
            "stream.reassembly.memcap-policy" => Some("pass-flow".to_string()),
            _ => None,
        };
        let p = Policies::resolve(get, Reject, true);
        assert_eq!(p.get(Condition::FlowMemcap), DropPacket);
        assert_eq!(p.get(Condition::DefragMemcap), PassPacket);
        assert_eq!(p.get(Condition::ReassemblyMemcap), PassFlow);
        assert_eq!(p.get(Condition::SsnMemcap), Reject);
        assert_eq!(p.get(Condition::AppLayerError), Reject);
        let ids = Policies::resolve(get, Reject, false);
        assert_eq!(ids.get(Condition::FlowMemcap), Ignore);
        assert_eq!(ids.get(Condition::SsnMemcap), Ignore);
        assert_eq!(ids.get(Condition::DefragMemcap), PassPacket);
    }

    #[test]
    fn counters_use_suricata_names() {
        let get = |k: &str| (k == "stream.reassembly.memcap-policy").then(|| "drop-flow".into());
        let p = Policies::resolve(get, Ignore, true);
        let mut st = PolicyStats::default();
        st.record(Condition::ReassemblyMemcap, DropFlow);
        st.record(Condition::ReassemblyMemcap, DropFlow);
        let c: std::collections::HashMap<_, _> = st.counters(&p).into_iter().collect();
        assert_eq!(c["tcp.reassembly_exception_policy.drop_flow"], 2);
        assert_eq!(c["tcp.reassembly_exception_policy.pass_packet"], 0);
        assert_eq!(c.len(), 6);
        let p = Policies::resolve(|_| Some("drop-packet".into()), Ignore, true);
        let names: Vec<_> = st.counters(&p).into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"flow.memcap_exception_policy.drop_packet".to_string()));
        assert!(!names.contains(&"flow.memcap_exception_policy.drop_flow".to_string()));
        assert!(names.contains(&"app_layer.error.exception_policy.bypass".to_string()));
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

//! What a tracker is configured with: per-protocol timeouts, the tracker configuration,
//! the session memory unit and the conditions forced by `--simulate-*`.

use crate::budget::SharedCaps;
use crate::reasm::ReasmLimits;
use crate::tcp::TcpConfig;
use std::sync::Arc;

/// Flow timeouts of one protocol, in seconds (Suricata's `flow-timeouts.<proto>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// `new`.
    pub new: u32,
    /// `established`.
    pub established: u32,
    /// `closed`.
    pub closed: u32,
    /// `emergency-new`.
    pub emergency_new: u32,
    /// `emergency-established`.
    pub emergency_established: u32,
    /// `emergency-closed`.
    pub emergency_closed: u32,
    /// `bypassed`: a bypassed flow's timeout, whatever its state (Suricata's local
    /// bypass: the flow's packets skip the stream engine, so it never closes).
    pub bypassed: u32,
    /// `emergency-bypassed`.
    pub emergency_bypassed: u32,
}

/// The class [`Timeouts::get`] takes for a bypassed flow (the others are
/// [`FlowState`](super::FlowState)'s values).
pub(super) const BYPASSED: u8 = 3;

impl Timeouts {
    /// Suricata's defaults for TCP.
    pub const TCP: Timeouts = Timeouts {
        new: 60,
        established: 600,
        closed: 60,
        emergency_new: 5,
        emergency_established: 100,
        emergency_closed: 10,
        bypassed: 100,
        emergency_bypassed: 50,
    };
    /// Suricata's defaults for UDP.
    pub const UDP: Timeouts = Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
        bypassed: 100,
        emergency_bypassed: 50,
    };
    /// Suricata's defaults for ICMP.
    pub const ICMP: Timeouts = Timeouts::UDP;
    /// Suricata's defaults for any other protocol.
    pub const DEFAULT: Timeouts = Timeouts::UDP;

    pub(super) fn get(&self, class: u8, emergency: bool) -> u32 {
        match (class, emergency) {
            (BYPASSED, false) => self.bypassed,
            (BYPASSED, true) => self.emergency_bypassed,
            (0, false) => self.new,
            (1, false) => self.established,
            (_, false) => self.closed,
            (0, true) => self.emergency_new,
            (1, true) => self.emergency_established,
            (_, true) => self.emergency_closed,
        }
    }
}

/// Configuration of a [`FlowTracker`](super::FlowTracker) (defaults are Suricata 7's).
#[derive(Clone, Debug)]
pub struct Config {
    /// Most flows held (Suricata derives it from `flow.memcap`, 128 MB).
    pub max_flows: usize,
    /// Hash buckets (`flow.hash-size`).
    pub hash_size: usize,
    /// Timeouts for TCP, UDP, ICMP, other.
    pub timeouts: [Timeouts; 4],
    /// TCP options.
    pub tcp: TcpConfig,
    /// Reassembly limits and overlap policy.
    pub reassembly: ReasmLimits,
    /// Reassembly memory cap in bytes (`stream.reassembly.memcap`, 256 MB).
    pub reassembly_memcap: usize,
    /// Defragmentation limits.
    pub defrag: crate::defrag::DefragConfig,
    /// `stream.midstream-policy` is `bypass` or `pass-flow`: a TCP flow whose first
    /// packet cannot start a session (pick-up off), or that is picked up midstream
    /// (pick-up on), is bypassed.
    pub midstream_bypass: bool,
    /// `stream.midstream-policy` is `drop-flow`, `drop-packet` or `reject` inline: a
    /// TCP flow whose first packet cannot start a session (pick-up off) is stopped
    /// (no app layer, no detection; nothing reaches the other side).
    pub midstream_drop: bool,
    /// Inline stream mode (`stream.inline`): stream bytes reach the app layer and raw
    /// inspection when they arrive in order, on the packet carrying them, without
    /// waiting for the receiver's ACK; [`Update::app`](super::Update::app) is then the packet's own stream.
    pub inline: bool,
    /// TCP session memory cap in bytes (`stream.memcap`, 64 MB): each session counts
    /// [`SESSION_BYTES`]; a session that would pass the cap is not created.
    pub ssn_memcap: usize,
    /// Counter suffix of the midstream policy (`bypass`, `drop_flow`, ...): the
    /// `tcp.midstream_exception_policy.*` counter it is counted under.
    pub midstream_policy_name: &'static str,
    /// `vlan.use-for-tracking`: VLAN ids are part of the flow key (Suricata's default);
    /// when off, both directions of a flow meet whatever their VLAN tags.
    pub vlan_tracking: bool,
    /// The memory budgets shared by every worker of the run (`stream.memcap`,
    /// `stream.reassembly.memcap`, `flow.memcap` are caps for the whole engine): give
    /// each worker's tracker a clone of the same [`Arc`].
    pub shared: Arc<SharedCaps>,
    /// `flow.emergency-recovery`: emergency mode ends once this percentage of the flow
    /// table's capacity is free again (Suricata's default: 30).
    pub emergency_recovery: u8,
    /// `host-os-policy`: the overlap policies per host, for defragmentation (the
    /// datagram's destination) and stream reassembly (the host receiving the
    /// segments); hosts it does not list use `defrag.policy` / `reassembly.policy`.
    /// Shared by every worker.
    pub host_policy: Arc<crate::host_policy::HostPolicy>,
    /// `stats.stream-events`: count each TCP stream event raised under
    /// `stream.<event>` (off by default, as in Suricata).
    pub stream_event_stats: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_flows: (128 << 20) / 512,
            hash_size: 65536,
            timeouts: [
                Timeouts::TCP,
                Timeouts::UDP,
                Timeouts::ICMP,
                Timeouts::DEFAULT,
            ],
            tcp: TcpConfig::default(),
            reassembly: ReasmLimits::default(),
            reassembly_memcap: 256 << 20,
            defrag: crate::defrag::DefragConfig::default(),
            midstream_bypass: false,
            midstream_drop: false,
            inline: false,
            ssn_memcap: 64 << 20,
            midstream_policy_name: "bypass",
            vlan_tracking: true,
            shared: SharedCaps::new(),
            emergency_recovery: 30,
            host_policy: Arc::default(),
            stream_event_stats: false,
        }
    }
}

/// Memory a TCP session counts against `stream.memcap` (about Suricata's session
/// size): at the defaults, 64 MB holds as many sessions as the flow table holds flows.
pub const SESSION_BYTES: usize = 256;

/// Conditions forced on the next packet (Suricata's `--simulate-*` fault injection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Simulated {
    /// The flow table is full: no flow for the packet.
    pub flow_memcap: bool,
    /// No memory for a new session: a session the packet would start is not created.
    pub ssn_memcap: bool,
    /// No reassembly memory: the packet's segment is refused.
    pub reassembly_memcap: bool,
}

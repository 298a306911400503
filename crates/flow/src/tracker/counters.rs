//! The tracker's counters, under Suricata's names.

use super::{Config, FlowTracker};
use crate::budget::pressure;
use crate::tcp::TcpState;

/// Tracker counters (see [`FlowTracker::counters`] for their names).
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub(super) flow_total: u64,
    pub(super) flow_proto: [u64; 5],
    pub(super) tcp_reuse: u64,
    pub(super) end_state: [u64; 3],
    pub(super) end_tcp_state: [u64; 11],
    pub(super) sessions: u64,
    pub(super) midstream: u64,
    pub(super) midstream_exception: u64,
    pub(super) syn: u64,
    pub(super) synack: u64,
    pub(super) rst: u64,
    pub(super) gaps: u64,
    pub(super) overlap: u64,
    pub(super) overlap_diff: u64,
    pub(super) depth_reached: u64,
    pub(super) segment_memcap_drop: u64,
    pub(super) ssn_memcap_drop: u64,
    pub(super) ack_unseen: u64,
    pub(super) pseudo: u64,
    pub(super) out_of_window: u64,
    pub(super) no_flow: u64,
    /// Flows that ended bypassed (`flow.end.state.local_bypassed`).
    pub(super) end_bypassed: u64,
    /// Packets and bytes of flows bypassed before them (`flow_bypassed.local_*`).
    pub(super) bypassed_pkts: u64,
    pub(super) bypassed_bytes: u64,
    pub(super) stream_events: StreamEventCounts,
}

/// How often each TCP stream event was raised (`stats.stream-events`).
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamEventCounts(pub(super) [u64; wire::StreamEvent::ALL.len()]);

impl Default for StreamEventCounts {
    fn default() -> Self {
        StreamEventCounts([0; wire::StreamEvent::ALL.len()])
    }
}

impl FlowTracker {
    /// Counters under Suricata's names (ours under `osprey.`), defrag included.
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let s = &self.stats;
        let t = self.table.stats();
        let tcp_states = TcpState::ALL
            .into_iter()
            .filter(|st| *st != TcpState::None)
            .map(|st| (end_tcp_state_name(st), s.end_tcp_state[st as usize]));
        [
            ("flow.total", s.flow_total),
            ("flow.tcp", s.flow_proto[0]),
            ("flow.udp", s.flow_proto[1]),
            ("flow.icmpv4", s.flow_proto[2]),
            ("flow.icmpv6", s.flow_proto[3]),
            ("flow.tcp_reuse", s.tcp_reuse),
            ("flow.active", self.table.len() as u64),
            ("flow.emerg_mode_entered", t.emerg_mode_entered),
            ("flow.end.state.new", s.end_state[0]),
            ("flow.end.state.established", s.end_state[1]),
            ("flow.end.state.closed", s.end_state[2]),
            ("flow.mgr.flows_timeout", t.timeouts),
            ("tcp.sessions", s.sessions),
            ("tcp.midstream_pickups", s.midstream),
            ("tcp.ssn_memcap_drop", s.ssn_memcap_drop),
            ("tcp.syn", s.syn),
            ("tcp.synack", s.synack),
            ("tcp.rst", s.rst),
            ("tcp.pseudo", s.pseudo),
            ("tcp.reassembly_gap", s.gaps),
            ("tcp.overlap", s.overlap),
            ("tcp.overlap_diff_data", s.overlap_diff),
            ("tcp.stream_depth_reached", s.depth_reached),
            ("tcp.segment_memcap_drop", s.segment_memcap_drop),
            ("tcp.ack_unseen_data", s.ack_unseen),
            ("tcp.reassembly_memuse", self.reasm_memuse as u64),
            ("flow.emerg_mode_over", t.emerg_mode_over),
            ("flow.memuse", self.table.memuse() as u64),
            ("tcp.memuse", self.session_memuse() as u64),
            ("memcap_pressure", self.memcap_pressure(false)),
            ("memcap_pressure_max", self.memcap_pressure(true)),
            ("osprey.flow.emergency_evicted", t.emergency_evicted),
            ("osprey.flow.table_full", s.no_flow),
            ("osprey.tcp.out_of_window", s.out_of_window),
            ("flow.end.state.local_bypassed", s.end_bypassed),
            // Capture bypass (a capture method that drops a flow's packets itself)
            // does not exist in Osprey: always 0, as Suricata's on pcap input.
            ("flow.end.state.capture_bypassed", 0),
            ("flow_bypassed.local_pkts", s.bypassed_pkts),
            ("flow_bypassed.local_bytes", s.bypassed_bytes),
            ("flow_bypassed.local_capture_pkts", 0),
            ("flow_bypassed.local_capture_bytes", 0),
            ("flow_bypassed.closed", 0),
            ("flow_bypassed.pkts", 0),
            ("flow_bypassed.bytes", 0),
        ]
        .into_iter()
        .chain(tcp_states)
        .chain(self.midstream_counter())
        .chain(self.stream_event_counters())
        .chain(self.defrag.counters())
    }
    /// `stream.<event>` for every stream event (zeros included, as Suricata prints
    /// them) when `stats.stream-events` is on.
    fn stream_event_counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let on = self.cfg.stream_event_stats;
        wire::StreamEvent::ALL
            .iter()
            .filter(move |_| on)
            .map(|&e| (e.counter_name(), self.stats.stream_events.0[e as usize]))
    }

    /// `tcp.midstream_exception_policy.<policy>` when a midstream policy is set.
    fn midstream_counter(&self) -> Option<(&'static str, u64)> {
        if !(self.cfg.midstream_bypass || self.cfg.midstream_drop) {
            return None;
        }
        let name = match self.cfg.midstream_policy_name {
            "drop_flow" => "tcp.midstream_exception_policy.drop_flow",
            "reject" => "tcp.midstream_exception_policy.reject",
            "pass_flow" => "tcp.midstream_exception_policy.pass_flow",
            "drop_packet" => "tcp.midstream_exception_policy.drop_packet",
            _ => "tcp.midstream_exception_policy.bypass",
        };
        Some((name, self.stats.midstream_exception))
    }

    /// Suricata's `memcap_pressure`: the highest share (percent) of its cap that one of
    /// the run's shared budgets (flows, sessions, reassembly, defrag) uses now or, with `peak`,
    /// ever used (`memcap_pressure_max`).
    pub fn memcap_pressure(&self, peak: bool) -> u64 {
        let c = &self.cfg.shared;
        let v = |b: &crate::Budget| if peak { b.peak() } else { b.used() };
        [
            pressure(v(&c.flows), self.cfg.max_flows),
            pressure(v(&c.sessions), self.cfg.ssn_memcap),
            pressure(v(&c.reassembly), self.cfg.reassembly_memcap),
            pressure(v(&c.defrag), self.cfg.defrag.memcap),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// Packets the midstream policy was applied to.
    pub fn midstream_exceptions(&self) -> u64 {
        self.stats.midstream_exception
    }

    /// The configuration the tracker runs with.
    pub fn config(&self) -> &Config {
        &self.cfg
    }
}

fn end_tcp_state_name(st: TcpState) -> &'static str {
    match st {
        TcpState::None => "flow.end.tcp_state.none",
        TcpState::SynSent => "flow.end.tcp_state.syn_sent",
        TcpState::SynRecv => "flow.end.tcp_state.syn_recv",
        TcpState::Established => "flow.end.tcp_state.established",
        TcpState::FinWait1 => "flow.end.tcp_state.fin_wait1",
        TcpState::FinWait2 => "flow.end.tcp_state.fin_wait2",
        TcpState::Closing => "flow.end.tcp_state.closing",
        TcpState::CloseWait => "flow.end.tcp_state.close_wait",
        TcpState::LastAck => "flow.end.tcp_state.last_ack",
        TcpState::TimeWait => "flow.end.tcp_state.time_wait",
        TcpState::Closed => "flow.end.tcp_state.closed",
    }
}

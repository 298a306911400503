//! The `flow` and `netflow` EVE records of the flows that end, written after the flow's
//! last app-layer records (as Suricata's flow loggers run when the flow is freed), and
//! what the engine remembers per flow for them ([`FlowMarks`]: ICMP types, TTLs,
//! alerted), updated per packet without allocation.

use crate::alerts::AlertSink;
use crate::flows::FlowExt;
use app::AppProto;
use flow::{EndReason, Ended, Family, FlowState};
use output::eve::{FlowRecord, FlowTcp};
use output::EveTypes;
use wire::{ip_addr, ip_proto, Direction, Packet, Timestamp};

/// What a flow record needs that the flow table does not keep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlowMarks {
    /// ICMP type and code per direction: the first to the server, the last to the
    /// client (ICMP flows).
    pub(crate) icmp: [Option<(u8, u8)>; 2],
    /// Smallest and largest TTL (hop limit) per direction.
    pub(crate) ttl: [Option<(u8, u8)>; 2],
    /// An alert was raised on the flow.
    pub(crate) alerted: bool,
}

impl FlowMarks {
    /// Notes packet `p`, of direction `dir`, of a flow of protocol `flow_proto`.
    pub(crate) fn packet(&mut self, p: &Packet, dir: Direction, flow_proto: u8) {
        let d = dir.index();
        if wire::is_icmp(flow_proto) && p.proto == flow_proto {
            let tc = (p.icmp_type, p.icmp_code);
            match dir {
                Direction::ToServer => {
                    self.icmp[d].get_or_insert(tc);
                }
                Direction::ToClient => self.icmp[d] = Some(tc),
            }
        }
        let (min, max) = self.ttl[d].get_or_insert((p.ttl, p.ttl));
        *min = (*min).min(p.ttl);
        *max = (*max).max(p.ttl);
    }
}

/// Alerts raised so far by `sink` (counted, or held for a shared threshold check):
/// compared before and after an inspection, it tells whether the inspection alerted.
pub(crate) fn alerts_raised(sink: &AlertSink) -> u64 {
    sink.count + sink.deferred.as_ref().map_or(0, |d| d.len() as u64)
}

/// Writes `flow` and `netflow` records when flows end, as the configuration asks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowLogger {
    flow: bool,
    netflow: bool,
    /// IPS mode: a dropped flow says `action: drop`.
    ips: bool,
}

impl FlowLogger {
    /// The logger of the EVE types `types`.
    pub(crate) fn new(types: &EveTypes, ips: bool) -> Self {
        FlowLogger {
            flow: types.engine("flow"),
            netflow: types.engine("netflow"),
            ips,
        }
    }

    /// Whether any record is written.
    pub(crate) fn enabled(&self) -> bool {
        self.flow || self.netflow
    }

    /// Logs `ended` (with the engine's state `ext`, when it had any, and the names of
    /// its flowbits) at time `now`.
    pub(crate) fn log(
        &self,
        ended: &Ended<'_>,
        ext: Option<&FlowExt>,
        flowbits: &[&str],
        now: Timestamp,
        sink: &mut AlertSink,
    ) {
        if !self.enabled() {
            return;
        }
        let k = &ended.key;
        let f = ended.flow;
        let v4 = k.family == Family::V4;
        let (c, s, cp, sp) = if ended.client_is_src {
            (&k.src, &k.dst, k.sport, k.dport)
        } else {
            (&k.dst, &k.src, k.dport, k.sport)
        };
        let marks = ext.map(|e| e.marks).unwrap_or_default();
        let app_proto = ext
            .and_then(|e| e.app.as_ref())
            .map(app::AppFlow::app_proto)
            .filter(|&p| p != AppProto::Unknown)
            .map(AppProto::name);
        let tcp = (k.proto == ip_proto::TCP).then(|| FlowTcp {
            flags: f.tcp_flags,
            state: (f.tcp.state != flow::TcpState::None).then(|| f.tcp.state.name()),
            gaps: f.gaps,
        });
        let record = FlowRecord {
            ts_us: now.secs() * 1_000_000 + u64::from(now.subsec_nanos() / 1000),
            flow_id: crate::detection::flow_id(k),
            vlan: k.vlan,
            src_ip: ip_addr(v4, c),
            dest_ip: ip_addr(v4, s),
            ports: wire::has_ports(k.proto).then_some((cp, sp)),
            proto: k.proto,
            icmp: marks.icmp,
            app_proto,
            app_proto_orig: ext
                .and_then(|e| e.app.as_ref())
                .and_then(app::AppFlow::app_proto_orig)
                .map(AppProto::name),
            pkts: f.pkts.map(u64::from),
            bytes: f.bytes,
            ttl: marks.ttl,
            start_us: f.first_us,
            end_us: ended.last_us,
            state: match f.state {
                FlowState::New => "new",
                FlowState::Established => "established",
                FlowState::Closed => "closed",
            },
            reason: match ended.reason {
                EndReason::Shutdown => "shutdown",
                // Suricata logs a flow its SYN reused, and one evicted under
                // emergency timeouts, as timed out.
                EndReason::Timeout | EndReason::Reused | EndReason::Emergency => "timeout",
            },
            emergency: ended.emergency,
            alerted: marks.alerted,
            dropped: self.ips && (f.dropped || ext.is_some_and(|e| e.detect.is_dropped())),
            passed: f.midstream_pass,
            flowbits,
            tcp,
            bypassed: f.locally_bypassed(),
        };
        if self.flow {
            let parent = ext
                .and_then(|e| e.app.as_ref())
                .and_then(app::AppFlow::parent_id);
            match parent {
                Some(p) => sink.event(&output::eve::with_parent_id(record.flow_eve(), p)),
                None => sink.event(&record.flow_eve()),
            }
        }
        if self.netflow {
            for r in record.netflow_eve() {
                sink.event(&r);
            }
        }
    }
}

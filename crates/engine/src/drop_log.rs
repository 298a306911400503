//! EVE `drop` records (IPS mode, `- drop:` in the eve-log types): one per packet an IPS
//! verdict dropped, or with `flows: start` (Suricata's default) the first dropped
//! packet of each direction of a flow, with the header fields Suricata writes.

use crate::alerts::AlertSink;
use crate::config::EngineConfig;
use flow::FlowKey;
use output::eve::{DropIp, DropL4, DropRecord};
use wire::{ip_addr, ip_proto, Direction, Packet};

/// Where a dropped packet was in its flow, as far as the flow stage got.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Seen {
    /// The packet's flow key (as seen on the packet).
    pub(crate) key: Option<FlowKey>,
    /// Its direction in the flow.
    pub(crate) dir: Option<Direction>,
}

/// Writes the drop records.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DropLogger {
    on: bool,
    all_flows: bool,
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

impl DropLogger {
    /// The logger a run's configuration asks for (drop records only in IPS mode).
    pub(crate) fn new(config: &EngineConfig) -> Self {
        DropLogger {
            on: config.ips && config.eve_types.engine("drop"),
            all_flows: config.eve_options.drop.all_flows,
        }
    }

    /// Whether `drop` records are written.
    pub(crate) fn enabled(&self) -> bool {
        self.on
    }

    /// Logs packet `p` (bytes `buf`) dropped for `reason`; `logged` is the flow's
    /// per-direction memory of drops already logged (`flows: start`), when it has one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn log(
        &self,
        p: &Packet,
        buf: &[u8],
        pcap_cnt: Option<u64>,
        seen: Seen,
        logged: Option<&mut [bool; 2]>,
        reason: &'static str,
        sink: &mut AlertSink,
    ) {
        let blocked = sink.blocked.take();
        if !self.on {
            return;
        }
        if let (Some(dir), Some(logged), false) = (seen.dir, logged, self.all_flows) {
            if std::mem::replace(&mut logged[dir.index()], true) {
                return;
            }
        }
        if let Some(record) = record(p, buf, pcap_cnt, seen, reason) {
            let mut eve = record.to_eve();
            if let (serde_json::Value::Object(o), Some(alert)) = (&mut eve, blocked) {
                o.extend(alert);
            }
            sink.event(&eve);
        }
    }
}

/// The record of a dropped packet (`None` for a packet without IP header).
fn record(
    p: &Packet,
    buf: &[u8],
    pcap_cnt: Option<u64>,
    seen: Seen,
    reason: &'static str,
) -> Option<DropRecord> {
    let l3 = p.l3_off as usize;
    let ip = match p.ip_version {
        4 => DropIp::V4 {
            len: be16(buf, l3 + 2)?,
            tos: p.tos,
            ttl: p.ttl,
            ipid: p.ip_id as u16,
        },
        6 => {
            let word = u32::from_be_bytes(buf.get(l3..l3 + 4)?.try_into().ok()?);
            DropIp::V6 {
                len: u32::from(be16(buf, l3 + 4)?) + 40,
                tc: (word >> 20) as u8,
                hoplimit: p.ttl,
                flowlbl: word & 0xf_ffff,
            }
        }
        _ => return None,
    };
    let l4 = p.l4_off as usize;
    let l4 = match p.proto {
        _ if p.l4_off == 0 => DropL4::Other,
        ip_proto::TCP => DropL4::Tcp {
            seq: p.seq,
            ack: p.ack,
            win: p.window,
            flags: p.tcp_flags,
            res: buf.get(l4 + 12).map_or(0, |b| b & 0x0f),
            urgp: be16(buf, l4 + 18).unwrap_or(0),
        },
        ip_proto::UDP => DropL4::Udp {
            len: be16(buf, l4 + 4).unwrap_or(0),
        },
        ip_proto::ICMP | ip_proto::ICMPV6
            if matches!((p.proto, p.icmp_type), (1, 0 | 8) | (58, 128 | 129)) =>
        {
            DropL4::IcmpEcho {
                id: be16(buf, l4 + 4).unwrap_or(0),
                seq: be16(buf, l4 + 6).unwrap_or(0),
            }
        }
        _ => DropL4::Other,
    };
    let v4 = p.ip_version == 4;
    let ports = wire::has_ports(p.proto).then_some((p.sport, p.dport));
    use wire::Tunnel as T;
    Some(DropRecord {
        ts_secs: p.ts.secs() as i64,
        ts_micros: p.ts.subsec_nanos() / 1000,
        flow_id: seen.key.as_ref().map_or(0, crate::detection::flow_id),
        pcap_cnt,
        vlan: p.vlan,
        src_ip: ip_addr(v4, &p.src),
        dest_ip: ip_addr(v4, &p.dst),
        ports,
        proto: p.proto,
        pkt_src: match p.tunnel {
            T::None => "wire/pcap",
            T::Reassembled => "defrag",
            T::Gre | T::Erspan => "gre tunnel",
            T::Vxlan => "vxlan encapsulation",
            T::Geneve => "geneve encapsulation",
            T::Teredo => "teredo tunnel",
            T::Ipv4InIpv4 | T::Ipv6InIpv4 => "ipv4 tunnel",
            T::Ipv4InIpv6 | T::Ipv6InIpv6 => "ipv6 tunnel",
        },
        to_server: seen.dir.map(|d| d == Direction::ToServer),
        ip,
        l4,
        reason,
    })
}

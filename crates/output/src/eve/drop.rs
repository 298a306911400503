//! The `drop` record of a packet an IPS verdict dropped, as Suricata writes it: the
//! packet's header (its own direction, not the flow's) and the `drop{}` object of its
//! IP and transport header fields and the reason.

use serde_json::{Map, Value};
use std::net::IpAddr;

/// The IP header fields of a dropped packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropIp {
    /// IPv4: total length, type of service, TTL, identification.
    V4 {
        /// Total length.
        len: u16,
        /// Type of service.
        tos: u8,
        /// Time to live.
        ttl: u8,
        /// Identification.
        ipid: u16,
    },
    /// IPv6: length (payload + 40), traffic class, hop limit, flow label.
    V6 {
        /// Length of the packet from the IPv6 header on.
        len: u32,
        /// Traffic class.
        tc: u8,
        /// Hop limit.
        hoplimit: u8,
        /// Flow label.
        flowlbl: u32,
    },
}

/// The transport header fields of a dropped packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropL4 {
    /// TCP.
    Tcp {
        /// Sequence number.
        seq: u32,
        /// Acknowledgement number.
        ack: u32,
        /// Window (unscaled).
        win: u16,
        /// Flag bits.
        flags: u8,
        /// The 4 reserved bits of the data-offset byte.
        res: u8,
        /// Urgent pointer.
        urgp: u16,
    },
    /// UDP: its length field.
    Udp {
        /// Length field.
        len: u16,
    },
    /// ICMP echo request/reply: identifier and sequence number.
    IcmpEcho {
        /// Identifier.
        id: u16,
        /// Sequence number.
        seq: u16,
    },
    /// Nothing more (other protocols, other ICMP types).
    Other,
}

/// A dropped packet.
#[derive(Clone, Debug)]
pub struct DropRecord {
    /// Packet time: Unix seconds.
    pub ts_secs: i64,
    /// Packet time: microseconds within the second.
    pub ts_micros: u32,
    /// Flow id, 0 for none.
    pub flow_id: u64,
    /// 1-based packet number (`None` inside a tunnel or for a reassembled datagram).
    pub pcap_cnt: Option<u64>,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// The packet's source.
    pub src_ip: IpAddr,
    /// The packet's destination.
    pub dest_ip: IpAddr,
    /// Source and destination port, for protocols with ports.
    pub ports: Option<(u16, u16)>,
    /// IP protocol number.
    pub proto: u8,
    /// Suricata's `pkt_src`.
    pub pkt_src: &'static str,
    /// The packet's direction in its flow (`Some(true)`: to the server).
    pub to_server: Option<bool>,
    /// IP header fields.
    pub ip: DropIp,
    /// Transport header fields.
    pub l4: DropL4,
    /// Why it was dropped, in Suricata's words (`rules`, `flow drop`, ...).
    pub reason: &'static str,
}

impl DropRecord {
    /// The EVE record.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        super::records::Header {
            ts_secs: self.ts_secs,
            ts_micros: self.ts_micros,
            flow_id: self.flow_id,
            pcap_cnt: self.pcap_cnt,
            vlan: self.vlan,
            src: (self.src_ip, self.ports.map(|p| p.0)),
            dest: (self.dest_ip, self.ports.map(|p| p.1)),
            proto: self.proto,
        }
        .write(&mut o, "drop");
        o.insert("pkt_src".into(), self.pkt_src.into());
        if let Some(ts) = self.to_server {
            let d = if ts { "to_server" } else { "to_client" };
            o.insert("direction".into(), d.into());
        }
        let mut d = Map::new();
        match self.ip {
            DropIp::V4 {
                len,
                tos,
                ttl,
                ipid,
            } => {
                d.insert("len".into(), len.into());
                d.insert("tos".into(), tos.into());
                d.insert("ttl".into(), ttl.into());
                d.insert("ipid".into(), ipid.into());
            }
            DropIp::V6 {
                len,
                tc,
                hoplimit,
                flowlbl,
            } => {
                d.insert("len".into(), len.into());
                d.insert("tc".into(), tc.into());
                d.insert("hoplimit".into(), hoplimit.into());
                d.insert("flowlbl".into(), flowlbl.into());
            }
        }
        match self.l4 {
            DropL4::Tcp {
                seq,
                ack,
                win,
                flags,
                res,
                urgp,
            } => {
                d.insert("tcpseq".into(), seq.into());
                d.insert("tcpack".into(), ack.into());
                d.insert("tcpwin".into(), win.into());
                // Suricata's order; every flag written, set or not.
                for (bit, name) in [
                    (0x02, "syn"),
                    (0x10, "ack"),
                    (0x08, "psh"),
                    (0x04, "rst"),
                    (0x20, "urg"),
                    (0x01, "fin"),
                ] {
                    d.insert(name.into(), (flags & bit != 0).into());
                }
                d.insert("tcpres".into(), res.into());
                d.insert("tcpurgp".into(), urgp.into());
            }
            DropL4::Udp { len } => {
                d.insert("udplen".into(), len.into());
            }
            DropL4::IcmpEcho { id, seq } => {
                d.insert("icmp_id".into(), id.into());
                d.insert("icmp_seq".into(), seq.into());
            }
            DropL4::Other => {}
        }
        d.insert("reason".into(), self.reason.into());
        o.insert("drop".into(), Value::Object(d));
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_drop_as_suricata_writes_it() {
        // Packet 7 of corpus case bug-1045 under a flow-dropping rule (Suricata 7.0.10,
        // --simulate-ips).
        let r = DropRecord {
            ts_secs: 1_385_479_820,
            ts_micros: 55_290,
            flow_id: 9,
            pcap_cnt: Some(7),
            vlan: [0, 0, 0],
            src_ip: "188.125.69.79".parse().unwrap(),
            dest_ip: "88.191.140.111".parse().unwrap(),
            ports: Some((25, 51906)),
            proto: 6,
            pkt_src: "wire/pcap",
            to_server: Some(false),
            ip: DropIp::V4 {
                len: 133,
                tos: 0,
                ttl: 55,
                ipid: 46328,
            },
            l4: DropL4::Tcp {
                seq: 2_819_290_912,
                ack: 193_523_780,
                win: 8326,
                flags: 0x18,
                res: 0,
                urgp: 0,
            },
            reason: "flow drop",
        };
        assert_eq!(
            r.to_eve().to_string(),
            r#"{"timestamp":"2013-11-26T15:30:20.055290+0000","flow_id":9,"pcap_cnt":7,"event_type":"drop","src_ip":"188.125.69.79","src_port":25,"dest_ip":"88.191.140.111","dest_port":51906,"proto":"TCP","pkt_src":"wire/pcap","direction":"to_client","drop":{"len":133,"tos":0,"ttl":55,"ipid":46328,"tcpseq":2819290912,"tcpack":193523780,"tcpwin":8326,"syn":false,"ack":true,"psh":true,"rst":false,"urg":false,"fin":false,"tcpres":0,"tcpurgp":0,"reason":"flow drop"}}"#
        );
    }

    #[test]
    fn ipv6_udp_drop() {
        let r = DropRecord {
            ts_secs: 0,
            ts_micros: 0,
            flow_id: 0,
            pcap_cnt: None,
            vlan: [0, 0, 0],
            src_ip: "2001:db8::1".parse().unwrap(),
            dest_ip: "2001:db8::2".parse().unwrap(),
            ports: Some((53, 5353)),
            proto: 17,
            pkt_src: "wire/pcap",
            to_server: None,
            ip: DropIp::V6 {
                len: 60,
                tc: 0,
                hoplimit: 64,
                flowlbl: 7,
            },
            l4: DropL4::Udp { len: 20 },
            reason: "rules",
        };
        let v = r.to_eve();
        assert!(v.get("flow_id").is_none() && v.get("pcap_cnt").is_none());
        assert!(v.get("direction").is_none());
        assert_eq!(
            v["drop"].to_string(),
            r#"{"len":60,"tc":0,"hoplimit":64,"flowlbl":7,"udplen":20,"reason":"rules"}"#
        );
    }
}

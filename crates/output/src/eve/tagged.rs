//! The EVE `packet` record of a packet tagged by a rule's `tag` (an eve-log output's
//! `alert: tagged-packets: yes`): the common header in the packet's own direction, then
//! the whole captured frame in base64 (`packet`) and its link type
//! (`packet_info.linktype`), as Suricata 7 writes it.

use super::Header;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Value};
use std::net::IpAddr;

/// A tagged packet.
#[derive(Clone, Copy, Debug)]
pub struct TaggedPacket<'a> {
    /// Packet time: Unix seconds.
    pub ts_secs: i64,
    /// Packet time: microseconds within the second.
    pub ts_micros: u32,
    /// Its flow's id, 0 for none.
    pub flow_id: u64,
    /// 1-based packet number.
    pub pcap_cnt: Option<u64>,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// Source address and port (no port for protocols without ports).
    pub src: (IpAddr, Option<u16>),
    /// Destination address and port.
    pub dest: (IpAddr, Option<u16>),
    /// IP protocol number.
    pub proto: u8,
    /// Suricata's `pkt_src`.
    pub pkt_src: &'static str,
    /// The captured frame.
    pub frame: &'a [u8],
    /// The capture's link type.
    pub linktype: u16,
}

impl TaggedPacket<'_> {
    /// The record.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        Header {
            ts_secs: self.ts_secs,
            ts_micros: self.ts_micros,
            flow_id: self.flow_id,
            pcap_cnt: self.pcap_cnt,
            vlan: self.vlan,
            src: self.src,
            dest: self.dest,
            proto: self.proto,
        }
        .write(&mut o, "packet");
        o.insert("pkt_src".into(), self.pkt_src.into());
        o.insert("packet".into(), STANDARD.encode(self.frame).into());
        let mut info = Map::new();
        info.insert("linktype".into(), self.linktype.into());
        o.insert("packet_info".into(), Value::Object(info));
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_as_suricata_writes_it() {
        let p = TaggedPacket {
            ts_secs: 0,
            ts_micros: 5,
            flow_id: 7,
            pcap_cnt: Some(8),
            vlan: [0, 0, 0],
            src: ("10.0.0.1".parse().unwrap(), Some(80)),
            dest: ("10.0.0.2".parse().unwrap(), Some(1234)),
            proto: 6,
            pkt_src: "wire/pcap",
            frame: b"\x00\x01\x02",
            linktype: 1,
        };
        let s = p.to_eve().to_string();
        assert!(
            s.ends_with(r#""event_type":"packet","src_ip":"10.0.0.1","src_port":80,"dest_ip":"10.0.0.2","dest_port":1234,"proto":"TCP","pkt_src":"wire/pcap","packet":"AAEC","packet_info":{"linktype":1}}"#),
            "{s}"
        );
        assert!(s.starts_with(r#"{"timestamp":"#), "{s}");
        assert!(s.contains(r#""flow_id":7,"pcap_cnt":8,"#), "{s}");
    }
}

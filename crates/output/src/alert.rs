//! Alert records: EVE JSON `alert` events and `fast.log` lines, as Suricata writes them.

use crate::time::eve_timestamp;
use serde_json::{json, Map, Value};
use std::net::IpAddr;

/// Everything an alert line says, as plain data (the detector fills it).
#[derive(Clone, Debug)]
pub struct AlertRecord<'a> {
    /// Packet time: Unix seconds.
    pub ts_secs: i64,
    /// Packet time: microseconds within the second.
    pub ts_micros: u32,
    /// Flow id (Suricata's `flow_id`), 0 when the packet has no flow.
    pub flow_id: u64,
    /// 1-based packet number in the capture; `None` for pseudo-packets (end-of-flow
    /// flushes), as Suricata omits it there.
    pub pcap_cnt: Option<u64>,
    /// Source address of the alert (the packet's, or swapped by `target`).
    pub src_ip: IpAddr,
    /// Source port (`None` for protocols without ports).
    pub src_port: Option<u16>,
    /// Destination address.
    pub dest_ip: IpAddr,
    /// Destination port.
    pub dest_port: Option<u16>,
    /// IP protocol number.
    pub proto: u8,
    /// Detected application protocol of the flow (`http`, `dns`, `tls`), if any.
    pub app_proto: Option<&'a str>,
    /// `allowed` or `blocked`.
    pub action: &'a str,
    /// Generator id.
    pub gid: u32,
    /// Signature id.
    pub sid: u32,
    /// Revision.
    pub rev: u32,
    /// The rule's `msg`.
    pub signature: &'a str,
    /// Classification description (from `classtype`), empty when none.
    pub category: &'a str,
    /// Priority (1 is most severe).
    pub severity: u32,
    /// The rule's `metadata` key/values, grouped by key as Suricata does.
    pub metadata: &'a [(String, String)],
    /// Extra objects attached to the event (`http`, `dns`, `tls`), by name.
    pub extra: &'a [(&'a str, Value)],
    /// ICMP type and code (ICMP and ICMPv6 packets), which fast.log writes in the
    /// places of the ports.
    pub icmp: Option<(u8, u8)>,
}

/// Suricata's `proto` string for an IP protocol number (IANA keywords, with Suricata's
/// `IP-in-IP` for 4); unnamed numbers are written as decimal.
pub fn proto_name(proto: u8) -> String {
    let name = match proto {
        0 => "HOPOPT",
        1 => "ICMP",
        2 => "IGMP",
        4 => "IP-in-IP",
        6 => "TCP",
        8 => "EGP",
        17 => "UDP",
        41 => "IPv6",
        43 => "IPv6-Route",
        44 => "IPv6-Frag",
        46 => "RSVP",
        47 => "GRE",
        50 => "ESP",
        51 => "AH",
        58 => "IPv6-ICMP",
        59 => "IPv6-NoNxt",
        60 => "IPv6-Opts",
        88 => "EIGRP",
        89 => "OSPF",
        103 => "PIM",
        112 => "VRRP",
        115 => "L2TP",
        132 => "SCTP",
        136 => "UDPLite",
        137 => "MPLS-in-IP",
        n => return n.to_string(),
    };
    name.into()
}

pub use app::log::ip_string;

impl AlertRecord<'_> {
    /// The EVE JSON object of this alert.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        o.insert(
            "timestamp".into(),
            eve_timestamp(self.ts_secs, self.ts_micros).into(),
        );
        if self.flow_id != 0 {
            o.insert("flow_id".into(), self.flow_id.into());
        }
        if let Some(cnt) = self.pcap_cnt {
            o.insert("pcap_cnt".into(), cnt.into());
        }
        o.insert("event_type".into(), "alert".into());
        o.insert("src_ip".into(), ip_string(self.src_ip).into());
        if let Some(p) = self.src_port {
            o.insert("src_port".into(), p.into());
        }
        o.insert("dest_ip".into(), ip_string(self.dest_ip).into());
        if let Some(p) = self.dest_port {
            o.insert("dest_port".into(), p.into());
        }
        o.insert("proto".into(), proto_name(self.proto).into());
        if let Some(app) = self.app_proto {
            o.insert("app_proto".into(), app.into());
        }
        let mut alert = json!({
            "action": self.action,
            "gid": self.gid,
            "signature_id": self.sid,
            "rev": self.rev,
            "signature": self.signature,
            "category": self.category,
            "severity": self.severity,
        });
        if !self.metadata.is_empty() {
            let mut md = Map::new();
            for (k, v) in self.metadata {
                let list = md
                    .entry(k.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(a) = list {
                    a.push(Value::from(v.as_str()));
                }
            }
            alert["metadata"] = Value::Object(md);
        }
        o.insert("alert".into(), alert);
        for (name, value) in self.extra {
            o.insert((*name).to_string(), value.clone());
        }
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> AlertRecord<'static> {
        AlertRecord {
            ts_secs: 1_210_953_054,
            ts_micros: 42,
            flow_id: 7,
            pcap_cnt: Some(13),
            src_ip: "192.168.2.16".parse().unwrap(),
            src_port: Some(1578),
            dest_ip: "75.126.203.78".parse().unwrap(),
            dest_port: Some(80),
            proto: 6,
            app_proto: Some("http"),
            action: "allowed",
            gid: 1,
            sid: 1000002,
            rev: 1,
            signature: "OSPREY SAMPLE Syncer statistics upload",
            category: "Potential Corporate Privacy Violation",
            severity: 1,
            metadata: &[],
            extra: &[],
            icmp: None,
        }
    }

    #[test]
    fn eve_fields() {
        let v = record().to_eve();
        assert_eq!(v["event_type"], "alert");
        assert_eq!(v["pcap_cnt"], 13);
        assert_eq!(v["proto"], "TCP");
        assert_eq!(v["alert"]["signature_id"], 1000002);
        assert_eq!(v["timestamp"], "2008-05-16T15:50:54.000042+0000");
        let mut r = record();
        r.pcap_cnt = None;
        assert!(r.to_eve().get("pcap_cnt").is_none());
    }

    #[test]
    fn ipv6_written_as_suricata_does() {
        let ip: IpAddr = "2001:0:4137:9e50:8000:f12a:b9c8:2815".parse().unwrap();
        assert_eq!(ip_string(ip), "2001:0000:4137:9e50:8000:f12a:b9c8:2815");
        assert_eq!(proto_name(58), "IPv6-ICMP");
    }
}

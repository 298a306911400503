//! The parts of an EVE alert record that come from the packet's context rather than the
//! rule: the flow it belongs to (`direction` and the `flow{}` object, counted when the
//! alert fires), the rule's `target:` (`alert.source`/`alert.target`) and, for a packet
//! found inside a tunnel, the outermost packet (`tunnel{}`).

use crate::alert::ip_string;
use crate::time::eve_timestamp;
use serde_json::{Map, Value};
use std::net::IpAddr;

/// The flow of an alerted packet as Suricata writes it in an alert: counters so far
/// (this packet included) and the flow's own direction (its first packet's, or the
/// client's after a handshake seen from its second step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertFlow {
    /// The alerted packet goes from the flow's source to its destination
    /// (`direction: to_server`).
    pub to_server: bool,
    /// Packets per direction: to the server, to the client.
    pub pkts: [u64; 2],
    /// Bytes per direction, counted as Suricata does (the whole captured frame; the
    /// inner packet for a tunnelled one).
    pub bytes: [u64; 2],
    /// Time of the flow's first packet, microseconds since the Unix epoch.
    pub start_us: u64,
    /// The flow's source (client) address.
    pub src_ip: IpAddr,
    /// The flow's destination (server) address.
    pub dest_ip: IpAddr,
    /// The client's port, `None` for protocols without ports.
    pub src_port: Option<u16>,
    /// The server's port.
    pub dest_port: Option<u16>,
    /// The flow is bypassed (a `bypass` rule matched the packet): Suricata adds the
    /// `bypassed{}` counters, all 0 under local bypass (see [`bypassed_counters`]).
    pub bypassed: bool,
}

/// Suricata's `bypassed{}` object of a locally bypassed flow: the packets and bytes a
/// capture method bypassed for it, none without capture bypass (which Osprey does not
/// have: its bypassed flows' packets are counted in the flow's own counters).
pub(crate) fn bypassed_counters() -> Value {
    let mut b = Map::new();
    for k in [
        "pkts_toserver",
        "pkts_toclient",
        "bytes_toserver",
        "bytes_toclient",
    ] {
        b.insert(k.into(), 0.into());
    }
    Value::Object(b)
}

impl AlertFlow {
    /// Suricata's `direction` of the alerted packet.
    pub fn direction(&self) -> &'static str {
        if self.to_server {
            "to_server"
        } else {
            "to_client"
        }
    }

    /// The `flow{}` object of the alert record.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        o.insert("pkts_toserver".into(), self.pkts[0].into());
        o.insert("pkts_toclient".into(), self.pkts[1].into());
        o.insert("bytes_toserver".into(), self.bytes[0].into());
        o.insert("bytes_toclient".into(), self.bytes[1].into());
        if self.bypassed {
            o.insert("bypassed".into(), bypassed_counters());
        }
        let secs = (self.start_us / 1_000_000) as i64;
        let micros = (self.start_us % 1_000_000) as u32;
        o.insert("start".into(), eve_timestamp(secs, micros).into());
        o.insert("src_ip".into(), ip_string(self.src_ip).into());
        o.insert("dest_ip".into(), ip_string(self.dest_ip).into());
        if let Some(p) = self.src_port {
            o.insert("src_port".into(), p.into());
        }
        if let Some(p) = self.dest_port {
            o.insert("dest_port".into(), p.into());
        }
        Value::Object(o)
    }

    /// The `flow{}` object of [`AlertFlow::to_eve`] as a field of `o`, written
    /// straight to bytes.
    pub(crate) fn write_json(&self, o: &mut crate::eve::json::Obj<'_>) {
        let mut f = o.obj("flow");
        f.uint("pkts_toserver", self.pkts[0]);
        f.uint("pkts_toclient", self.pkts[1]);
        f.uint("bytes_toserver", self.bytes[0]);
        f.uint("bytes_toclient", self.bytes[1]);
        if self.bypassed {
            f.value("bypassed", &bypassed_counters());
        }
        let secs = (self.start_us / 1_000_000) as i64;
        let micros = (self.start_us % 1_000_000) as u32;
        f.timestamp("start", secs, micros);
        f.ip("src_ip", self.src_ip);
        f.ip("dest_ip", self.dest_ip);
        if let Some(p) = self.src_port {
            f.uint("src_port", p.into());
        }
        if let Some(p) = self.dest_port {
            f.uint("dest_port", p.into());
        }
        f.close();
    }
}

/// The two ends of an alert of a rule with `target:` (Suricata's `alert.source` and
/// `alert.target`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertTarget {
    /// The attacking side: address and port (`None` without ports).
    pub source: (IpAddr, Option<u16>),
    /// The attacked side.
    pub target: (IpAddr, Option<u16>),
}

impl AlertTarget {
    /// The ends of an alert on a packet from `src` to `dest`: the target is the
    /// packet's source when `target_is_src` (`target:src_ip`), else its destination.
    pub fn new(
        src: (IpAddr, Option<u16>),
        dest: (IpAddr, Option<u16>),
        target_is_src: bool,
    ) -> AlertTarget {
        if target_is_src {
            AlertTarget {
                source: dest,
                target: src,
            }
        } else {
            AlertTarget {
                source: src,
                target: dest,
            }
        }
    }

    /// Adds `source` and `target` to the `alert` object.
    pub fn write(&self, alert: &mut Map<String, Value>) {
        let end = |(ip, port): (IpAddr, Option<u16>)| {
            let mut o = Map::new();
            o.insert("ip".into(), ip_string(ip).into());
            if let Some(p) = port {
                o.insert("port".into(), p.into());
            }
            Value::Object(o)
        };
        alert.insert("source".into(), end(self.source));
        alert.insert("target".into(), end(self.target));
    }

    /// [`AlertTarget::write`] into an `alert` object written straight to bytes.
    pub(crate) fn write_json(&self, alert: &mut crate::eve::json::Obj<'_>) {
        for (k, (ip, port)) in [("source", self.source), ("target", self.target)] {
            let mut e = alert.obj(k);
            e.ip("ip", ip);
            if let Some(p) = port {
                e.uint("port", p.into());
            }
            e.close();
        }
    }
}

/// The `tunnel{}` object of an alert on a packet found inside a tunnel: the captured
/// (outermost) packet's addresses, ports (0 without ports), protocol, `pcap_cnt` and
/// `pkt_src`, and how many tunnel layers down the alerted packet is (`depth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertTunnel {
    /// The outer packet's source address.
    pub src_ip: IpAddr,
    /// The outer packet's destination address.
    pub dest_ip: IpAddr,
    /// The outer packet's source port, 0 for protocols without ports.
    pub src_port: u16,
    /// The outer packet's destination port, 0 for protocols without ports.
    pub dest_port: u16,
    /// The outer packet's IP protocol number.
    pub proto: u8,
    /// Tunnel layers between the outer packet and the alerted one (1: directly inside).
    pub depth: u8,
    /// The outer packet's number in the capture.
    pub pcap_cnt: Option<u64>,
    /// The outer packet's `pkt_src`.
    pub pkt_src: &'static str,
}

impl AlertTunnel {
    /// The `tunnel{}` object, in Suricata's key order.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        o.insert("src_ip".into(), ip_string(self.src_ip).into());
        o.insert("src_port".into(), self.src_port.into());
        o.insert("dest_ip".into(), ip_string(self.dest_ip).into());
        o.insert("dest_port".into(), self.dest_port.into());
        o.insert("proto".into(), crate::alert::proto_name(self.proto).into());
        o.insert("depth".into(), self.depth.into());
        if let Some(n) = self.pcap_cnt {
            o.insert("pcap_cnt".into(), n.into());
        }
        o.insert("pkt_src".into(), self.pkt_src.into());
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn flow_object_in_suricata_order() {
        let f = AlertFlow {
            to_server: false,
            pkts: [3, 1],
            bytes: [435, 66],
            start_us: 1_468_449_727_199_672,
            src_ip: ip("82.165.177.154"),
            dest_ip: ip("10.16.1.11"),
            src_port: Some(80),
            dest_port: Some(54186),
            bypassed: false,
        };
        assert_eq!(f.direction(), "to_client");
        assert_eq!(
            f.to_eve().to_string(),
            r#"{"pkts_toserver":3,"pkts_toclient":1,"bytes_toserver":435,"bytes_toclient":66,"start":"2016-07-13T22:42:07.199672+0000","src_ip":"82.165.177.154","dest_ip":"10.16.1.11","src_port":80,"dest_port":54186}"#
        );
        let icmp = AlertFlow {
            src_port: None,
            dest_port: None,
            to_server: true,
            ..f
        };
        assert_eq!(icmp.direction(), "to_server");
        assert!(icmp.to_eve().get("src_port").is_none());
    }

    #[test]
    fn bypassed_flow_object_as_suricata_writes_it() {
        // Suricata 7.0.10, http-files.pcap packet 50: the alert of the `bypass` rule.
        let f = AlertFlow {
            to_server: true,
            pkts: [4, 5],
            bytes: [1775, 1708],
            start_us: 1_668_614_357_135_363,
            src_ip: ip("172.18.38.179"),
            dest_ip: ip("172.217.170.68"),
            src_port: Some(52316),
            dest_port: Some(443),
            bypassed: true,
        };
        assert_eq!(
            f.to_eve().to_string(),
            r#"{"pkts_toserver":4,"pkts_toclient":5,"bytes_toserver":1775,"bytes_toclient":1708,"bypassed":{"pkts_toserver":0,"pkts_toclient":0,"bytes_toserver":0,"bytes_toclient":0},"start":"2022-11-16T15:59:17.135363+0000","src_ip":"172.18.38.179","dest_ip":"172.217.170.68","src_port":52316,"dest_port":443}"#
        );
    }

    #[test]
    fn tunnel_object_as_suricata_writes_it() {
        // sv-ether.pcap frame 7559: ICMP inside GRE.
        let t = AlertTunnel {
            src_ip: ip("172.27.1.66"),
            dest_ip: ip("66.59.109.137"),
            src_port: 0,
            dest_port: 0,
            proto: 47,
            depth: 1,
            pcap_cnt: Some(7559),
            pkt_src: "wire/pcap",
        };
        assert_eq!(
            t.to_eve().to_string(),
            r#"{"src_ip":"172.27.1.66","src_port":0,"dest_ip":"66.59.109.137","dest_port":0,"proto":"GRE","depth":1,"pcap_cnt":7559,"pkt_src":"wire/pcap"}"#
        );
    }

    #[test]
    fn source_and_target() {
        let src = (ip("192.168.100.67"), Some(57632));
        let dst = (ip("13.233.207.118"), Some(80));
        let mut a = Map::new();
        AlertTarget::new(src, dst, true).write(&mut a);
        assert_eq!(
            Value::Object(a).to_string(),
            r#"{"source":{"ip":"13.233.207.118","port":80},"target":{"ip":"192.168.100.67","port":57632}}"#
        );
        let t = AlertTarget::new(src, dst, false);
        assert_eq!(t.source, src);
        assert_eq!(t.target, dst);
    }
}

//! Alert records: EVE JSON `alert` events and `fast.log` lines, as Suricata writes them.

use serde_json::{Map, Value};
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
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
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
    /// ICMP type and code (ICMP and ICMPv6 packets).
    pub icmp: Option<(u8, u8)>,
    /// Suricata's `pkt_src`: where the packet came from (`wire/pcap`, `defrag`,
    /// `stream (flow timeout)`, a tunnel).
    pub pkt_src: &'a str,
    /// The transaction the rule matched on (`tx_id`).
    pub tx_id: Option<u64>,
    /// `tx_id` is Suricata's guess (a stream match attributed to the direction's
    /// inspect transaction): written as `tx_guessed: true`.
    pub tx_guessed: bool,
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
    /// The flow's flowbits that are set, in the order they were set (top-level
    /// `metadata.flowbits`).
    pub flowbits: &'a [&'a str],
    /// `alert.source`/`alert.target` of a rule with `target:`.
    pub target: Option<crate::eve::AlertTarget>,
    /// Extra objects attached to the event (`http`, `dns`, `tls`), by name.
    pub extra: &'a [(&'a str, Value)],
    /// The packet's flow (`direction` and `flow{}`), `None` without one.
    pub flow: Option<crate::eve::AlertFlow>,
    /// The outermost packet, for a packet found inside a tunnel (`tunnel{}`).
    pub tunnel: Option<crate::eve::AlertTunnel>,
    /// The payload and frame, written as the output's alert options ask.
    pub payload: Option<(crate::eve::AlertPayload<'a>, crate::eve::AlertOptions)>,
    /// The application-layer frame a `frame` rule matched (`frame{}`).
    pub frame: Option<crate::eve::AlertFrame<'a>>,
}

/// Suricata 7.0.10's `proto` names for IP protocol numbers 0 to 143 (IANA keywords, with
/// Suricata's spellings: `IP-in-IP` for 4, `OSPF` for 89, `OS` for 94, `Any` for the
/// numbers IANA reserves for "any" protocol of a kind), as it writes them on packets of
/// each number; higher numbers are written as decimal.
const PROTO_NAMES: [&str; 144] = [
    "HOPOPT",
    "ICMP",
    "IGMP",
    "GGP",
    "IP-in-IP",
    "ST",
    "TCP",
    "CBT",
    "EGP",
    "IGP",
    "BBN-RCC-MON",
    "NVP-II",
    "PUP",
    "ARGUS",
    "EMCON",
    "XNET",
    "CHAOS",
    "UDP",
    "MUX",
    "DCN-MEAS",
    "HMP",
    "PRM",
    "XNS-IDP",
    "TRUNK-1",
    "TRUNK-2",
    "LEAF-1",
    "LEAF-2",
    "RDP",
    "IRTP",
    "ISO-TP4",
    "NETBLT",
    "MFE-NSP",
    "MERIT-INP",
    "DCCP",
    "3PC",
    "IDPR",
    "XTP",
    "DDP",
    "IDPR-CMTP",
    "TP++",
    "IL",
    "IPv6",
    "SDRP",
    "IPv6-Route",
    "IPv6-Frag",
    "IDRP",
    "RSVP",
    "GRE",
    "DSR",
    "BNA",
    "ESP",
    "AH",
    "I-NLSP",
    "SwIPe",
    "NARP",
    "MOBILE",
    "TLSP",
    "SKIP",
    "IPv6-ICMP",
    "IPv6-NoNxt",
    "IPv6-Opts",
    "Any",
    "CFTP",
    "Any",
    "SAT-EXPAK",
    "KRYPTOLAN",
    "RVD",
    "IPPC",
    "Any",
    "SAT-MON",
    "VISA",
    "IPCU",
    "CPNX",
    "CPHB",
    "WSN",
    "PVP",
    "BR-SAT-MON",
    "SUN-ND",
    "WB-MON",
    "WB-EXPAK",
    "ISO-IP",
    "VMTP",
    "SECURE-VMTP",
    "VINES",
    "TTP",
    "NSFNET-IGP",
    "DGP",
    "TCF",
    "EIGRP",
    "OSPF",
    "Sprite-RPC",
    "LARP",
    "MTP",
    "AX.25",
    "OS",
    "MICP",
    "SCC-SP",
    "ETHERIP",
    "ENCAP",
    "Any",
    "GMTP",
    "IFMP",
    "PNNI",
    "PIM",
    "ARIS",
    "SCPS",
    "QNX",
    "A/N",
    "IPComp",
    "SNP",
    "Compaq-Peer",
    "IPX-in-IP",
    "VRRP",
    "PGM",
    "Any",
    "L2TP",
    "DDX",
    "IATP",
    "STP",
    "SRP",
    "UTI",
    "SMP",
    "SM",
    "PTP",
    "IS-IS",
    "FIRE",
    "CRTP",
    "CRUDP",
    "SSCOPMCE",
    "IPLT",
    "SPS",
    "PIPE",
    "SCTP",
    "FC",
    "RSVP-E2E-IGNORE",
    "Mobility",
    "UDPLite",
    "MPLS-in-IP",
    "manet",
    "HIP",
    "Shim6",
    "WESP",
    "ROHC",
    "Ethernet",
];

/// Suricata's `proto` string for an IP protocol number ([`PROTO_NAMES`]; unnamed numbers
/// are written as decimal).
pub fn proto_name(proto: u8) -> String {
    match PROTO_NAMES.get(usize::from(proto)) {
        Some(name) => (*name).into(),
        None => proto.to_string(),
    }
}

/// The name of an IP protocol number that has one ([`PROTO_NAMES`]), without
/// allocating; `None` for the numbers written as decimal.
pub(crate) fn proto_static_name(proto: u8) -> Option<&'static str> {
    PROTO_NAMES.get(usize::from(proto)).copied()
}

pub use app::log::ip_string;

impl AlertRecord<'_> {
    /// The EVE JSON object of this alert.
    pub fn to_eve(&self) -> Value {
        self.to_eve_with(
            self.extra
                .iter()
                .map(|(name, value)| (*name, value.clone())),
        )
    }

    /// The common EVE header of this record (timestamp, flow id, packet count, VLANs,
    /// addresses, ports, protocol).
    fn header(&self) -> crate::eve::Header {
        crate::eve::Header {
            ts_secs: self.ts_secs,
            ts_micros: self.ts_micros,
            flow_id: self.flow_id,
            pcap_cnt: self.pcap_cnt,
            vlan: self.vlan,
            src: (self.src_ip, self.src_port),
            dest: (self.dest_ip, self.dest_port),
            proto: self.proto,
        }
    }

    /// [`AlertRecord::to_eve`] with the extra objects `extra` (moved into the record,
    /// not copied) in place of [`AlertRecord::extra`].
    pub fn to_eve_with<'b>(&self, extra: impl IntoIterator<Item = (&'b str, Value)>) -> Value {
        let mut o = Map::new();
        self.header().write(&mut o, "alert");
        if let Some((t, c)) = self.icmp {
            o.insert("icmp_type".into(), t.into());
            o.insert("icmp_code".into(), c.into());
        }
        o.insert("pkt_src".into(), self.pkt_src.into());
        if !self.flowbits.is_empty() {
            let mut md = Map::new();
            md.insert("flowbits".into(), self.flowbits.into());
            o.insert("metadata".into(), Value::Object(md));
        }
        if let Some(id) = self.tx_id {
            o.insert("tx_id".into(), id.into());
            if self.tx_guessed {
                o.insert("tx_guessed".into(), true.into());
            }
        }
        let mut alert = Map::new();
        alert.insert("action".into(), self.action.into());
        alert.insert("gid".into(), self.gid.into());
        alert.insert("signature_id".into(), self.sid.into());
        alert.insert("rev".into(), self.rev.into());
        alert.insert("signature".into(), self.signature.into());
        alert.insert("category".into(), self.category.into());
        alert.insert("severity".into(), self.severity.into());
        if let Some(t) = &self.target {
            t.write(&mut alert);
        }
        if !self.metadata.is_empty() {
            // As Suricata writes them: keys in name order, each key's values in the
            // reverse of the rule's order.
            let mut md: std::collections::BTreeMap<&str, Vec<Value>> = Default::default();
            for (k, v) in self.metadata.iter().rev() {
                md.entry(k.as_str()).or_default().push(v.as_str().into());
            }
            let md = md
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::Array(v)))
                .collect();
            alert.insert("metadata".into(), Value::Object(md));
        }
        o.insert("alert".into(), Value::Object(alert));
        if let Some(t) = &self.tunnel {
            o.insert("tunnel".into(), t.to_eve());
        }
        for (name, value) in extra {
            o.insert(name.to_string(), value);
        }
        if let Some(app) = self.app_proto {
            o.insert("app_proto".into(), app.into());
        }
        if let Some(f) = &self.flow {
            o.insert("direction".into(), f.direction().into());
            o.insert("flow".into(), f.to_eve());
        }
        // Suricata's order: the payload, the frame, then the captured packet.
        if let Some((p, opts)) = &self.payload {
            p.write_payload(opts, &mut o);
        }
        if let Some(f) = &self.frame {
            o.insert("frame".into(), f.to_eve());
        }
        if let Some((p, opts)) = &self.payload {
            p.write_packet(opts, &mut o);
        }
        Value::Object(o)
    }

    /// Appends this alert's EVE record, as [`AlertRecord::to_eve_with`] with `extra`
    /// would give it serialised (`Value::to_string`, byte for byte), to `out`, without
    /// building the `Value` tree. Returns `false` (and writes nothing) when an extra
    /// object's name is one of the record's own keys or repeats: a `Value` object would
    /// replace the earlier field in its place, so the caller builds the record as a
    /// `Value` then.
    pub fn write_eve(&self, extra: &[(&str, Value)], out: &mut Vec<u8>) -> bool {
        for (i, (name, _)) in extra.iter().enumerate() {
            if OWN_KEYS.contains(name) || extra[..i].iter().any(|(n, _)| n == name) {
                return false;
            }
        }
        use crate::eve::json::Obj;
        let mut o = Obj::open(out);
        self.header().write_json(&mut o, "alert");
        if let Some((t, c)) = self.icmp {
            o.uint("icmp_type", t.into());
            o.uint("icmp_code", c.into());
        }
        o.str("pkt_src", self.pkt_src);
        if !self.flowbits.is_empty() {
            let mut md = o.obj("metadata");
            let buf = md.key("flowbits");
            buf.push(b'[');
            for (i, bit) in self.flowbits.iter().enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                crate::eve::json::write_str(buf, bit);
            }
            buf.push(b']');
            md.close();
        }
        if let Some(id) = self.tx_id {
            o.uint("tx_id", id);
            if self.tx_guessed {
                o.bool("tx_guessed", true);
            }
        }
        let mut alert = o.obj("alert");
        alert.str("action", self.action);
        alert.uint("gid", self.gid.into());
        alert.uint("signature_id", self.sid.into());
        alert.uint("rev", self.rev.into());
        alert.str("signature", self.signature);
        alert.str("category", self.category);
        alert.uint("severity", self.severity.into());
        if let Some(t) = &self.target {
            t.write_json(&mut alert);
        }
        if !self.metadata.is_empty() {
            // As `to_eve_with`: keys in name order, each key's values in the reverse of
            // the rule's order (a rule has a handful: no map built).
            let mut md = alert.obj("metadata");
            let mut last: Option<&str> = None;
            loop {
                let next = self
                    .metadata
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .filter(|k| last.is_none_or(|l| *k > l))
                    .min();
                let Some(key) = next else { break };
                let buf = md.key(key);
                buf.push(b'[');
                let values = self.metadata.iter().rev().filter(|(k, _)| k == key);
                for (i, (_, v)) in values.enumerate() {
                    if i > 0 {
                        buf.push(b',');
                    }
                    crate::eve::json::write_str(buf, v);
                }
                buf.push(b']');
                last = Some(key);
            }
            md.close();
        }
        alert.close();
        if let Some(t) = &self.tunnel {
            o.value("tunnel", &t.to_eve());
        }
        for (name, value) in extra {
            o.value(name, value);
        }
        if let Some(app) = self.app_proto {
            o.str("app_proto", app);
        }
        if let Some(f) = &self.flow {
            o.str("direction", f.direction());
            f.write_json(&mut o);
        }
        // The rarer parts, written as `to_eve_with` writes them into its map.
        let mut rest = Map::new();
        if let Some((p, opts)) = &self.payload {
            p.write_payload(opts, &mut rest);
        }
        if let Some(f) = &self.frame {
            rest.insert("frame".into(), f.to_eve());
        }
        if let Some((p, opts)) = &self.payload {
            p.write_packet(opts, &mut rest);
        }
        for (k, v) in &rest {
            o.value(k, v);
        }
        o.close();
        true
    }
}

/// The top-level keys an alert record writes itself (an extra object by one of these
/// names would replace the field: [`AlertRecord::write_eve`] leaves such records to
/// [`AlertRecord::to_eve_with`]).
const OWN_KEYS: [&str; 27] = [
    "timestamp",
    "flow_id",
    "pcap_cnt",
    "event_type",
    "vlan",
    "src_ip",
    "src_port",
    "dest_ip",
    "dest_port",
    "proto",
    "icmp_type",
    "icmp_code",
    "pkt_src",
    "metadata",
    "tx_id",
    "tx_guessed",
    "alert",
    "tunnel",
    "app_proto",
    "direction",
    "flow",
    "payload",
    "payload_printable",
    "stream",
    "frame",
    "packet",
    "packet_info",
];

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Names as Suricata 7.0.10 writes them on a capture with one IPv4 packet of every
    /// protocol number (its EVE `proto`).
    #[test]
    fn protocol_names_are_suricatas() {
        let cases = [
            (0, "HOPOPT"),
            (4, "IP-in-IP"),
            (6, "TCP"),
            (50, "ESP"),
            (53, "SwIPe"),
            (61, "Any"),
            (89, "OSPF"),
            (94, "OS"),
            (116, "DDX"),
            (124, "IS-IS"),
            (135, "Mobility"),
            (138, "manet"),
            (143, "Ethernet"),
            (144, "144"),
            (255, "255"),
        ];
        for (n, name) in cases {
            assert_eq!(proto_name(n), name, "protocol {n}");
        }
    }

    /// An HTTP alert of the sample capture.
    pub(crate) fn record() -> AlertRecord<'static> {
        AlertRecord {
            ts_secs: 1_210_953_054,
            ts_micros: 42,
            flow_id: 7,
            pcap_cnt: Some(13),
            vlan: [0, 0, 0],
            src_ip: "192.168.2.16".parse().unwrap(),
            src_port: Some(1578),
            dest_ip: "75.126.203.78".parse().unwrap(),
            dest_port: Some(80),
            proto: 6,
            icmp: None,
            pkt_src: "wire/pcap",
            tx_id: None,
            tx_guessed: false,
            app_proto: Some("http"),
            action: "allowed",
            gid: 1,
            sid: 1000002,
            rev: 1,
            signature: "OSPREY SAMPLE Syncer statistics upload",
            category: "Potential Corporate Privacy Violation",
            severity: 1,
            metadata: &[],
            flowbits: &[],
            target: None,
            extra: &[],
            flow: None,
            tunnel: None,
            payload: None,
            frame: None,
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
    fn extra_objects_moved_in_write_what_copies_write() {
        let extra = [
            (
                "http",
                serde_json::json!({"hostname": "a.example", "url": "/x"}),
            ),
            ("files", serde_json::json!([{"filename": "f"}])),
        ];
        let mut r = record();
        r.extra = &extra;
        let copied = r.to_eve();
        assert_eq!(copied["http"]["hostname"], "a.example");
        let mut moved_in = record();
        moved_in.extra = &[];
        let moved = moved_in.to_eve_with(extra.iter().cloned());
        assert_eq!(copied.to_string(), moved.to_string());
        assert!(moved_in.to_eve().get("http").is_none());
    }

    #[test]
    fn context_fields_in_suricata_order() {
        let mut r = record();
        r.vlan = [3, 0, 0];
        r.tx_id = Some(2);
        let src = (r.src_ip, r.src_port);
        let dst = (r.dest_ip, r.dest_port);
        r.target = Some(crate::eve::AlertTarget::new(src, dst, true));
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        // Suricata 7.0.10 on `metadata: zeta b, alpha x, zeta a, zeta c, beta y`.
        let md = [
            kv("zeta", "b"),
            kv("alpha", "x"),
            kv("zeta", "a"),
            kv("zeta", "c"),
            kv("beta", "y"),
        ];
        r.metadata = &md;
        r.flowbits = &["b.one", "a.two"];
        r.flow = Some(crate::eve::AlertFlow {
            to_server: true,
            pkts: [4, 2],
            bytes: [409, 305],
            start_us: 1_210_953_053_000_001,
            src_ip: r.src_ip,
            dest_ip: r.dest_ip,
            src_port: r.src_port,
            dest_port: r.dest_port,
            bypassed: false,
        });
        let v = r.to_eve();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "timestamp",
                "flow_id",
                "pcap_cnt",
                "event_type",
                "vlan",
                "src_ip",
                "src_port",
                "dest_ip",
                "dest_port",
                "proto",
                "pkt_src",
                "metadata",
                "tx_id",
                "alert",
                "app_proto",
                "direction",
                "flow"
            ]
        );
        assert_eq!(v["vlan"], serde_json::json!([3]));
        assert_eq!(
            v["metadata"]["flowbits"],
            serde_json::json!(["b.one", "a.two"])
        );
        assert_eq!(v["tx_id"], 2);
        assert!(v.get("tx_guessed").is_none());
        r.tx_guessed = true;
        let v = r.to_eve();
        assert_eq!(v["tx_guessed"], true);
        assert_eq!(v["direction"], "to_server");
        assert_eq!(v["flow"]["pkts_toclient"], 2);
        assert_eq!(v["flow"]["start"], "2008-05-16T15:50:53.000001+0000");
        let alert: Vec<&str> = v["alert"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            alert,
            [
                "action",
                "gid",
                "signature_id",
                "rev",
                "signature",
                "category",
                "severity",
                "source",
                "target",
                "metadata"
            ]
        );
        assert_eq!(v["alert"]["target"]["ip"], "192.168.2.16");
        assert_eq!(
            v["alert"]["metadata"].to_string(),
            r#"{"alpha":["x"],"beta":["y"],"zeta":["c","a","b"]}"#
        );
        r.proto = 1;
        r.icmp = Some((8, 0));
        r.src_port = None;
        let v = r.to_eve();
        assert_eq!(
            (v["icmp_type"].clone(), v["icmp_code"].clone()),
            (8.into(), 0.into())
        );
        assert!(v.get("src_port").is_none());
    }

    /// `r` written by [`AlertRecord::write_eve`] and by `to_eve_with(...).to_string()`.
    fn both(r: &AlertRecord<'_>, extra: &[(&str, Value)]) -> (String, String) {
        let mut direct = b"prefix".to_vec();
        assert!(r.write_eve(extra, &mut direct));
        let direct = String::from_utf8(direct.split_off(6)).unwrap();
        (direct, r.to_eve_with(extra.iter().cloned()).to_string())
    }

    #[test]
    fn direct_bytes_equal_the_value_records() {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let md = [
            kv("zeta", "b"),
            kv("alpha", "x\"q"),
            kv("zeta", "a"),
            kv("zeta", "c"),
            kv("beta", "y"),
            kv("", "empty key"),
        ];
        let payload_bytes = b"GET /\x00\xff\r\n".to_vec();
        let frame_bytes = b"\x00\x01abc".to_vec();
        let extra = [
            (
                "http",
                serde_json::json!({"hostname": "a.example", "url": "/x\u{1}é", "length": 3}),
            ),
            ("files", serde_json::json!([{"filename": "f", "size": 0}])),
        ];
        let flow = crate::eve::AlertFlow {
            to_server: false,
            pkts: [4, 2],
            bytes: [409, u64::MAX],
            start_us: 1_210_953_053_000_001,
            src_ip: "2001:db8::7".parse().unwrap(),
            dest_ip: "10.1.2.3".parse().unwrap(),
            src_port: Some(1),
            dest_port: None,
            bypassed: false,
        };
        type Case = Box<dyn Fn(&mut AlertRecord<'_>)>;
        let mut cases: Vec<Case> = vec![
            Box::new(|_| {}),
            Box::new(|r| r.vlan = [3, 0, 0]),
            Box::new(|r| r.vlan = [0, 4095, 0]),
            Box::new(|r| r.vlan = [1, 2, 0]),
            Box::new(|r| {
                r.flow_id = 0;
                r.pcap_cnt = None;
                r.src_port = None;
                r.dest_port = None;
            }),
            Box::new(|r| {
                r.proto = 1;
                r.icmp = Some((8, 0));
            }),
            Box::new(|r| r.proto = 200),
            Box::new(|r| r.proto = 89),
            Box::new(|r| r.tx_id = Some(0)),
            Box::new(|r| {
                r.tx_id = Some(9);
                r.tx_guessed = true;
            }),
            Box::new(|r| r.tx_guessed = true),
            Box::new(|r| r.flowbits = &["b.one", "a\\two"]),
            Box::new(|r| {
                r.signature = "ET \"quoted\" \\ tab\t nl\n ctl\u{7f}\u{1b} ünï ☃";
                r.category = "";
                r.action = "blocked";
                r.app_proto = None;
            }),
            Box::new(|r| {
                r.src_ip = "2001:0:4137:9e50:8000:f12a:b9c8:2815".parse().unwrap();
                r.dest_ip = "::".parse().unwrap();
            }),
        ];
        let with_target: Case = Box::new(|r| {
            r.target = Some(crate::eve::AlertTarget::new(
                (r.src_ip, r.src_port),
                (r.dest_ip, None),
                true,
            ));
        });
        cases.push(with_target);
        cases.push(Box::new(|r| {
            r.target = Some(crate::eve::AlertTarget::new(
                (r.src_ip, r.src_port),
                (r.dest_ip, r.dest_port),
                false,
            ));
        }));
        cases.push(Box::new(|r| {
            r.tunnel = Some(crate::eve::AlertTunnel {
                src_ip: "1.2.3.4".parse().unwrap(),
                dest_ip: "5.6.7.8".parse().unwrap(),
                src_port: 0,
                dest_port: 0,
                proto: 47,
                depth: 1,
                pcap_cnt: Some(3),
                pkt_src: "wire/pcap",
            });
        }));
        for (n, case) in cases.iter().enumerate() {
            for variant in 0..16 {
                let mut r = record();
                case(&mut r);
                if variant & 1 != 0 {
                    r.metadata = &md;
                }
                if variant & 2 != 0 {
                    let mut f = flow;
                    f.bypassed = variant & 8 != 0;
                    f.to_server = variant & 8 == 0;
                    r.flow = Some(f);
                }
                if variant & 4 != 0 {
                    let opts = crate::eve::AlertOptions {
                        payload: true,
                        payload_printable: true,
                        packet: true,
                        ..crate::eve::AlertOptions::default()
                    };
                    let payload = crate::eve::AlertPayload {
                        payload: &payload_bytes,
                        stream: variant & 8 != 0,
                        packet: &payload_bytes,
                        linktype: 1,
                    };
                    r.payload = Some((payload, opts));
                    r.frame = Some(crate::eve::AlertFrame {
                        ty: "pdu",
                        id: 2,
                        to_server: true,
                        stream_offset: Some(10),
                        len: 5,
                        complete: true,
                        tx_id: None,
                        payload: &frame_bytes,
                    });
                }
                for ex in [&extra[..], &extra[..1], &[]] {
                    let (direct, value) = both(&r, ex);
                    assert_eq!(direct, value, "case {n}, variant {variant}");
                }
            }
        }
    }

    #[test]
    fn extra_objects_named_as_own_fields_are_left_to_values() {
        let r = record();
        let mut out = Vec::new();
        for name in ["flow", "alert", "metadata", "timestamp"] {
            let extra = [(name, serde_json::json!({}))];
            assert!(!r.write_eve(&extra, &mut out), "{name}");
        }
        let twice = [
            ("http", serde_json::json!({})),
            ("http", serde_json::json!(1)),
        ];
        assert!(!r.write_eve(&twice, &mut out));
        assert!(out.is_empty(), "nothing written when refused");
    }

    #[test]
    fn ipv6_written_as_suricata_does() {
        let ip: IpAddr = "2001:0:4137:9e50:8000:f12a:b9c8:2815".parse().unwrap();
        assert_eq!(ip_string(ip), "2001:0000:4137:9e50:8000:f12a:b9c8:2815");
        assert_eq!(proto_name(58), "IPv6-ICMP");
    }
}

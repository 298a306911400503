//! The records of a flow that ended: `flow` (one record for the whole flow) and
//! `netflow` (one record per direction), as Suricata writes them. Built from plain data
//! ([`FlowRecord`]) that the engine fills from its flow table and per-flow state.

use crate::alert::{ip_string, proto_name};
use crate::time::eve_timestamp;
use serde_json::{Map, Value};
use std::net::IpAddr;

/// The TCP side of a flow record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowTcp {
    /// TCP flags seen per direction (to server, to client) once a session existed.
    pub flags: [u8; 2],
    /// Suricata's name of the session state; `None` when no session was created.
    pub state: Option<&'static str>,
    /// Per direction: a gap was skipped in the stream.
    pub gaps: [bool; 2],
}

/// Everything a `flow` or `netflow` record says about one flow, oriented client →
/// server (index 0 of the per-direction arrays is to the server).
#[derive(Clone, Debug)]
pub struct FlowRecord<'a> {
    /// When the record is written (the engine's time when the flow was logged),
    /// microseconds since the Unix epoch.
    pub ts_us: u64,
    /// `flow_id`.
    pub flow_id: u64,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// The client's address.
    pub src_ip: IpAddr,
    /// The server's address.
    pub dest_ip: IpAddr,
    /// Client and server port, for protocols with ports.
    pub ports: Option<(u16, u16)>,
    /// IP protocol number.
    pub proto: u8,
    /// ICMP type and code of the first packet of each direction (ICMP flows).
    pub icmp: [Option<(u8, u8)>; 2],
    /// The flow's application protocol (`None`: not decided).
    pub app_proto: Option<&'static str>,
    /// The protocol the flow started as, when it changed protocol since (SMTP
    /// `STARTTLS` to TLS): `app_proto_orig`.
    pub app_proto_orig: Option<&'static str>,
    /// Packets per direction.
    pub pkts: [u64; 2],
    /// Bytes per direction.
    pub bytes: [u64; 2],
    /// Smallest and largest IP TTL (hop limit) per direction, when packets were seen.
    pub ttl: [Option<(u8, u8)>; 2],
    /// First packet, microseconds since the Unix epoch.
    pub start_us: u64,
    /// Last packet, microseconds since the Unix epoch.
    pub end_us: u64,
    /// Flow state: `new`, `established`, `closed`.
    pub state: &'static str,
    /// Why the flow ended: `timeout`, `shutdown`.
    pub reason: &'static str,
    /// The flow table was in emergency mode when the flow ended.
    pub emergency: bool,
    /// An alert was raised on the flow.
    pub alerted: bool,
    /// An IPS drop verdict was given on the flow (`action: drop`).
    pub dropped: bool,
    /// The flow was passed by an exception policy (`action: pass`).
    pub passed: bool,
    /// The flowbits set when the flow ended, in the order they were set.
    pub flowbits: &'a [&'a str],
    /// TCP flows: flags, session state, gaps.
    pub tcp: Option<FlowTcp>,
    /// The flow ended locally bypassed (a `bypass` rule, the `bypass` exception
    /// policy): `state` is `bypassed`, with `bypass: local` and the `bypassed{}`
    /// counters.
    pub bypassed: bool,
}

fn ts(us: u64) -> Value {
    eve_timestamp((us / 1_000_000) as i64, (us % 1_000_000) as u32).into()
}

/// Suricata's `age`: whole seconds from the first to the last packet.
fn age(start_us: u64, end_us: u64) -> u64 {
    (end_us / 1_000_000).saturating_sub(start_us / 1_000_000)
}

/// The flag booleans Suricata writes (only the ones set).
/// (The bits are TCP's: FIN 0x01 ... CWR 0x80, as in `wire::tcp_flags`.)
fn flag_bools(o: &mut Map<String, Value>, flags: u8) {
    for (bit, name) in [
        (0x02, "syn"),
        (0x01, "fin"),
        (0x04, "rst"),
        (0x08, "psh"),
        (0x10, "ack"),
        (0x20, "urg"),
        (0x40, "ecn"),
        (0x80, "cwr"),
    ] {
        if flags & bit != 0 {
            o.insert(name.into(), true.into());
        }
    }
}

impl FlowRecord<'_> {
    /// The header fields from `event_type` to `proto`, for the direction `rev` (the
    /// server → client view when set).
    fn header(&self, event_type: &str, rev: bool) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("timestamp".into(), ts(self.ts_us));
        o.insert("flow_id".into(), self.flow_id.into());
        o.insert("event_type".into(), event_type.into());
        let vlan: Vec<Value> = self
            .vlan
            .iter()
            .filter(|&&v| v != 0)
            .map(|&v| v.into())
            .collect();
        if !vlan.is_empty() {
            o.insert("vlan".into(), Value::Array(vlan));
        }
        let (a, b) = if rev {
            (self.dest_ip, self.src_ip)
        } else {
            (self.src_ip, self.dest_ip)
        };
        let ports = self.ports.map(|(c, s)| if rev { (s, c) } else { (c, s) });
        o.insert("src_ip".into(), ip_string(a).into());
        if let Some((p, _)) = ports {
            o.insert("src_port".into(), p.into());
        }
        o.insert("dest_ip".into(), ip_string(b).into());
        if let Some((_, p)) = ports {
            o.insert("dest_port".into(), p.into());
        }
        o.insert("proto".into(), proto_name(self.proto).into());
        o
    }

    /// The `flow` record.
    pub fn flow_eve(&self) -> Value {
        let mut o = self.header("flow", false);
        if let Some((t, c)) = self.icmp[0] {
            o.insert("icmp_type".into(), t.into());
            o.insert("icmp_code".into(), c.into());
        }
        if let Some((t, c)) = self.icmp[1] {
            o.insert("response_icmp_type".into(), t.into());
            o.insert("response_icmp_code".into(), c.into());
        }
        if let Some(a) = self.app_proto {
            o.insert("app_proto".into(), a.into());
        }
        if let Some(a) = self.app_proto_orig {
            o.insert("app_proto_orig".into(), a.into());
        }
        let mut f = Map::new();
        f.insert("pkts_toserver".into(), self.pkts[0].into());
        f.insert("pkts_toclient".into(), self.pkts[1].into());
        f.insert("bytes_toserver".into(), self.bytes[0].into());
        f.insert("bytes_toclient".into(), self.bytes[1].into());
        if self.bypassed {
            f.insert("bypassed".into(), super::alert_ctx::bypassed_counters());
        }
        f.insert("start".into(), ts(self.start_us));
        f.insert("end".into(), ts(self.end_us));
        f.insert("age".into(), age(self.start_us, self.end_us).into());
        if self.emergency {
            f.insert("emergency".into(), true.into());
        }
        if self.bypassed {
            f.insert("bypass".into(), "local".into());
            f.insert("state".into(), "bypassed".into());
        } else {
            f.insert("state".into(), self.state.into());
        }
        f.insert("reason".into(), self.reason.into());
        f.insert("alerted".into(), self.alerted.into());
        if self.dropped {
            f.insert("action".into(), "drop".into());
        } else if self.passed {
            f.insert("action".into(), "pass".into());
        }
        o.insert("flow".into(), Value::Object(f));
        if !self.flowbits.is_empty() {
            let mut m = Map::new();
            m.insert("flowbits".into(), self.flowbits.to_vec().into());
            o.insert("metadata".into(), Value::Object(m));
        }
        if let Some(tcp) = &self.tcp {
            let mut t = Map::new();
            let all = tcp.flags[0] | tcp.flags[1];
            t.insert("tcp_flags".into(), format!("{all:02x}").into());
            t.insert(
                "tcp_flags_ts".into(),
                format!("{:02x}", tcp.flags[0]).into(),
            );
            t.insert(
                "tcp_flags_tc".into(),
                format!("{:02x}", tcp.flags[1]).into(),
            );
            if let Some(state) = tcp.state {
                flag_bools(&mut t, all);
                t.insert("state".into(), state.into());
                if tcp.gaps[0] {
                    t.insert("ts_gap".into(), true.into());
                }
                if tcp.gaps[1] {
                    t.insert("tc_gap".into(), true.into());
                }
                // Osprey keeps each direction's stream in one contiguous buffer: one
                // region (Suricata's streaming buffer can hold several).
                t.insert("ts_max_regions".into(), 1.into());
                t.insert("tc_max_regions".into(), 1.into());
            }
            o.insert("tcp".into(), Value::Object(t));
        }
        Value::Object(o)
    }

    /// The `netflow` records: client → server, then server → client; as Suricata, a
    /// direction without packets has none.
    pub fn netflow_eve(&self) -> Vec<Value> {
        let dirs = [0, 1].into_iter().filter(|&d| self.pkts[d] > 0);
        dirs.map(|d| {
            let mut o = self.header("netflow", d == 1);
            if let Some((t, c)) = self.icmp[d] {
                o.insert("icmp_type".into(), t.into());
                o.insert("icmp_code".into(), c.into());
            }
            o.insert(
                "app_proto".into(),
                self.app_proto.unwrap_or("unknown").into(),
            );
            let mut n = Map::new();
            n.insert("pkts".into(), self.pkts[d].into());
            n.insert("bytes".into(), self.bytes[d].into());
            n.insert("start".into(), ts(self.start_us));
            n.insert("end".into(), ts(self.end_us));
            n.insert("age".into(), age(self.start_us, self.end_us).into());
            if let Some((min, max)) = self.ttl[d] {
                n.insert("min_ttl".into(), min.into());
                n.insert("max_ttl".into(), max.into());
            }
            o.insert("netflow".into(), Value::Object(n));
            if let Some(tcp) = &self.tcp {
                let mut t = Map::new();
                t.insert("tcp_flags".into(), format!("{:02x}", tcp.flags[d]).into());
                flag_bools(&mut t, tcp.flags[d]);
                o.insert("tcp".into(), Value::Object(t));
            }
            Value::Object(o)
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flow of corpus case bug-1045 (an SMTP session), as Suricata 7.0.10 logged it.
    fn smtp() -> FlowRecord<'static> {
        FlowRecord {
            ts_us: 1_385_479_820_306_047,
            flow_id: 7,
            vlan: [0, 0, 0],
            src_ip: "88.191.140.111".parse().unwrap(),
            dest_ip: "188.125.69.79".parse().unwrap(),
            ports: Some((51906, 25)),
            proto: 6,
            icmp: [None, None],
            app_proto: Some("smtp"),
            app_proto_orig: None,
            pkts: [11, 8],
            bytes: [1340, 808],
            ttl: [Some((64, 64)), Some((55, 55))],
            start_us: 1_385_479_819_952_558,
            end_us: 1_385_479_820_306_047,
            state: "closed",
            reason: "shutdown",
            emergency: false,
            alerted: false,
            dropped: false,
            passed: false,
            flowbits: &[],
            tcp: Some(FlowTcp {
                flags: [0x1f, 0x1b],
                state: Some("closed"),
                gaps: [false, false],
            }),
            bypassed: false,
        }
    }

    #[test]
    fn bypassed_flow_record_as_suricata_writes_it() {
        // Suricata 7.0.10 on http-files.pcap with a `bypass` rule matching packet 50.
        let r = FlowRecord {
            ts_us: 1_713_016_779_901_153,
            flow_id: 1_425_808_205_025_750,
            src_ip: "172.18.38.179".parse().unwrap(),
            dest_ip: "172.217.170.68".parse().unwrap(),
            ports: Some((52316, 443)),
            app_proto: Some("http"),
            pkts: [7, 9],
            bytes: [2577, 3887],
            start_us: 1_668_614_357_135_363,
            end_us: 1_668_614_362_696_902,
            state: "established",
            alerted: true,
            tcp: Some(FlowTcp {
                flags: [0x12, 0x12],
                state: Some("established"),
                gaps: [false, false],
            }),
            bypassed: true,
            ..smtp()
        };
        let want = r#"{"timestamp":"2024-04-13T13:59:39.901153+0000","flow_id":1425808205025750,"event_type":"flow","src_ip":"172.18.38.179","src_port":52316,"dest_ip":"172.217.170.68","dest_port":443,"proto":"TCP","app_proto":"http","flow":{"pkts_toserver":7,"pkts_toclient":9,"bytes_toserver":2577,"bytes_toclient":3887,"bypassed":{"pkts_toserver":0,"pkts_toclient":0,"bytes_toserver":0,"bytes_toclient":0},"start":"2022-11-16T15:59:17.135363+0000","end":"2022-11-16T15:59:22.696902+0000","age":5,"bypass":"local","state":"bypassed","reason":"shutdown","alerted":true},"tcp":{"tcp_flags":"12","tcp_flags_ts":"12","tcp_flags_tc":"12","syn":true,"ack":true,"state":"established","ts_max_regions":1,"tc_max_regions":1}}"#;
        assert_eq!(r.flow_eve().to_string(), want);
    }

    #[test]
    fn flow_record_as_suricata_writes_it() {
        let v = smtp().flow_eve();
        let want = r#"{"timestamp":"2013-11-26T15:30:20.306047+0000","flow_id":7,"event_type":"flow","src_ip":"88.191.140.111","src_port":51906,"dest_ip":"188.125.69.79","dest_port":25,"proto":"TCP","app_proto":"smtp","flow":{"pkts_toserver":11,"pkts_toclient":8,"bytes_toserver":1340,"bytes_toclient":808,"start":"2013-11-26T15:30:19.952558+0000","end":"2013-11-26T15:30:20.306047+0000","age":1,"state":"closed","reason":"shutdown","alerted":false},"tcp":{"tcp_flags":"1f","tcp_flags_ts":"1f","tcp_flags_tc":"1b","syn":true,"fin":true,"rst":true,"psh":true,"ack":true,"state":"closed","ts_max_regions":1,"tc_max_regions":1}}"#;
        assert_eq!(v.to_string(), want);
    }

    #[test]
    fn app_proto_orig_follows_app_proto() {
        // sv-ether.pcap's 10.16.1.11:34634 -> 25, SMTP then TLS after STARTTLS.
        let mut r = smtp();
        r.app_proto = Some("tls");
        r.app_proto_orig = Some("smtp");
        let v = r.flow_eve().to_string();
        assert!(v.contains(r#""proto":"TCP","app_proto":"tls","app_proto_orig":"smtp","flow":{"#));
    }

    #[test]
    fn netflow_records_one_per_direction() {
        let [a, b] = <[Value; 2]>::try_from(smtp().netflow_eve()).unwrap();
        assert_eq!(
            a.to_string(),
            r#"{"timestamp":"2013-11-26T15:30:20.306047+0000","flow_id":7,"event_type":"netflow","src_ip":"88.191.140.111","src_port":51906,"dest_ip":"188.125.69.79","dest_port":25,"proto":"TCP","app_proto":"smtp","netflow":{"pkts":11,"bytes":1340,"start":"2013-11-26T15:30:19.952558+0000","end":"2013-11-26T15:30:20.306047+0000","age":1,"min_ttl":64,"max_ttl":64},"tcp":{"tcp_flags":"1f","syn":true,"fin":true,"rst":true,"psh":true,"ack":true}}"#
        );
        assert_eq!(b["src_ip"], "188.125.69.79");
        assert_eq!(b["src_port"], 25);
        assert_eq!(b["dest_port"], 51906);
        assert_eq!(b["netflow"]["pkts"], 8);
        assert_eq!(b["netflow"]["min_ttl"], 55);
        assert_eq!(b["tcp"]["tcp_flags"], "1b");
        assert!(b["tcp"].get("rst").is_none());
        // A one-sided flow: one record.
        let mut r = smtp();
        r.pkts[1] = 0;
        r.bytes[1] = 0;
        let v = r.netflow_eve();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["src_port"], 51906);
    }

    #[test]
    fn icmp_flow_and_tcp_without_session() {
        let mut r = smtp();
        r.proto = 1;
        r.ports = None;
        r.app_proto = None;
        r.icmp = [Some((8, 0)), Some((0, 0))];
        r.tcp = None;
        r.vlan = [23, 0, 0];
        r.emergency = true;
        let v = r.flow_eve();
        assert_eq!(v["vlan"], serde_json::json!([23]));
        assert!(v.get("src_port").is_none() && v.get("app_proto").is_none());
        assert_eq!(v["icmp_type"], 8);
        assert_eq!(v["response_icmp_code"], 0);
        assert_eq!(v["flow"]["emergency"], true);
        assert!(v.get("tcp").is_none());
        // A TCP flow without session: the flags (none), nothing else.
        let mut r = smtp();
        r.tcp = Some(FlowTcp::default());
        let v = r.flow_eve();
        assert_eq!(
            v["tcp"].to_string(),
            r#"{"tcp_flags":"00","tcp_flags_ts":"00","tcp_flags_tc":"00"}"#
        );
    }
}

//! EVE event records: the common header of every record around a protocol's object
//! (the objects themselves come from the protocols, see [`app::Transaction::log`]).

use crate::alert::{ip_string, proto_name};
use crate::time::eve_timestamp;
use serde_json::{Map, Value};
use std::net::IpAddr;

pub use app::log::bytes_str;

/// Where an event record comes from: the common header of every EVE record.
#[derive(Clone, Debug)]
pub struct EventMeta {
    /// Packet time: Unix seconds.
    pub ts_secs: i64,
    /// Packet time: microseconds within the second.
    pub ts_micros: u32,
    /// Flow id (`flow_id`), 0 for none.
    pub flow_id: u64,
    /// 1-based packet number; `None` for pseudo-packets (flow end).
    pub pcap_cnt: Option<u64>,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// The flow's client address (app-layer records are written in flow direction).
    pub src_ip: IpAddr,
    /// The client's port.
    pub src_port: u16,
    /// The server address.
    pub dest_ip: IpAddr,
    /// The server port.
    pub dest_port: u16,
    /// IP protocol number.
    pub proto: u8,
    /// Suricata's `pkt_src`: `wire/pcap` for captured packets, `stream (flow timeout)`
    /// for the end-of-flow pseudo-packet.
    pub pkt_src: &'static str,
}

/// The fields every EVE record starts with, in Suricata's order: `timestamp`,
/// `flow_id` (when not 0), `pcap_cnt`, `event_type`, `vlan`, the addresses and ports
/// (ports only where given), `proto`. Each record kind writes its own fields after.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    /// Packet time: Unix seconds.
    pub ts_secs: i64,
    /// Packet time: microseconds within the second.
    pub ts_micros: u32,
    /// Flow id, 0 for none.
    pub flow_id: u64,
    /// 1-based packet number, if the record has one.
    pub pcap_cnt: Option<u64>,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// Source address and port.
    pub src: (IpAddr, Option<u16>),
    /// Destination address and port.
    pub dest: (IpAddr, Option<u16>),
    /// IP protocol number.
    pub proto: u8,
}

impl Header {
    /// Writes the header of an `event_type` record into `o`.
    pub(crate) fn write(&self, o: &mut Map<String, Value>, event_type: &str) {
        o.insert(
            "timestamp".into(),
            eve_timestamp(self.ts_secs, self.ts_micros).into(),
        );
        if self.flow_id != 0 {
            o.insert("flow_id".into(), self.flow_id.into());
        }
        if let Some(c) = self.pcap_cnt {
            o.insert("pcap_cnt".into(), c.into());
        }
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
        o.insert("src_ip".into(), ip_string(self.src.0).into());
        if let Some(p) = self.src.1 {
            o.insert("src_port".into(), p.into());
        }
        o.insert("dest_ip".into(), ip_string(self.dest.0).into());
        if let Some(p) = self.dest.1 {
            o.insert("dest_port".into(), p.into());
        }
        o.insert("proto".into(), proto_name(self.proto).into());
    }

    /// [`Header::write`] into a JSON object written straight to bytes.
    pub(crate) fn write_json(&self, o: &mut crate::eve::json::Obj<'_>, event_type: &str) {
        o.timestamp("timestamp", self.ts_secs, self.ts_micros);
        if self.flow_id != 0 {
            o.uint("flow_id", self.flow_id);
        }
        if let Some(c) = self.pcap_cnt {
            o.uint("pcap_cnt", c);
        }
        o.str("event_type", event_type);
        if self.vlan.iter().any(|&v| v != 0) {
            use std::io::Write;
            let buf = o.key("vlan");
            buf.push(b'[');
            for (i, v) in self.vlan.iter().filter(|&&v| v != 0).enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                let _ = write!(buf, "{v}");
            }
            buf.push(b']');
        }
        o.ip("src_ip", self.src.0);
        if let Some(p) = self.src.1 {
            o.uint("src_port", p.into());
        }
        o.ip("dest_ip", self.dest.0);
        if let Some(p) = self.dest.1 {
            o.uint("dest_port", p.into());
        }
        match crate::alert::proto_static_name(self.proto) {
            Some(name) => o.str("proto", name),
            None => {
                use std::io::Write;
                let _ = write!(o.key("proto"), "\"{}\"", self.proto);
            }
        }
    }
}

/// A whole event record: the header of `meta`, `event_type`, `tx_id` (top level, as
/// Suricata writes it for HTTP) and the protocol object under `event_type`.
pub fn event_record(meta: &EventMeta, event_type: &str, tx_id: Option<u64>, obj: Value) -> Value {
    let mut o = Map::new();
    Header {
        ts_secs: meta.ts_secs,
        ts_micros: meta.ts_micros,
        flow_id: meta.flow_id,
        pcap_cnt: meta.pcap_cnt,
        vlan: meta.vlan,
        src: (meta.src_ip, Some(meta.src_port)),
        dest: (meta.dest_ip, Some(meta.dest_port)),
        proto: meta.proto,
    }
    .write(&mut o, event_type);
    o.insert("pkt_src".into(), meta.pkt_src.into());
    if let Some(id) = tx_id {
        o.insert("tx_id".into(), id.into());
    }
    o.insert(event_type.into(), obj);
    Value::Object(o)
}

/// `record` with `parent_id` (the flow that announced this one, e.g. an FTP data
/// connection's control flow) right after its `flow_id`, where Suricata writes it.
pub fn with_parent_id(record: Value, parent: u64) -> Value {
    let Value::Object(o) = record else {
        return record;
    };
    let mut out = Map::new();
    for (k, v) in o {
        let after = k == "flow_id";
        out.insert(k, v);
        if after {
            out.insert("parent_id".into(), parent.into());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eve::{AppLogger, EveTypes, LogCursor};
    use app::{AppCtx, AppFlow, Direction, Transport};

    fn meta() -> EventMeta {
        EventMeta {
            ts_secs: 1_262_626_166,
            ts_micros: 981_520,
            flow_id: 5,
            pcap_cnt: Some(9),
            vlan: [6, 0, 0],
            src_ip: "192.168.2.3".parse().unwrap(),
            src_port: 39867,
            dest_ip: "209.85.225.105".parse().unwrap(),
            dest_port: 80,
            proto: 6,
            pkt_src: "wire/pcap",
        }
    }

    fn http_flow(req: &[u8], res: &[u8]) -> (AppCtx, AppFlow) {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 39867, 80);
        f.parse(&mut ctx, Direction::ToServer, req);
        f.parse(&mut ctx, Direction::ToClient, res);
        (ctx, f)
    }

    #[test]
    fn http_record_layout() {
        let (_, f) = http_flow(
            b"GET /a%20b?x=1 HTTP/1.1\r\nHost: WWW.Example.com:8080\r\nUser-Agent: Wget/1.11.4\r\n\
              X-Forwarded-For: 10.2.2.2\r\nReferer: http://r/\r\n\r\n",
            b"HTTP/1.1 206 Partial\r\nContent-Type: text/html; charset=UTF-8\r\n\
              Content-Range: bytes 500-1000/146515\r\nLocation: /next\r\nContent-Length: 3\r\n\r\nabc",
        );
        let logger = AppLogger::new(EveTypes::parse_list("http").unwrap());
        let mut recs = Vec::new();
        logger.log(&f, &mut LogCursor::default(), false, &mut meta, &mut |r| {
            recs.push(r)
        });
        assert_eq!(recs.len(), 1);
        let rec = &recs[0];
        let keys: Vec<&str> = rec
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
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
                "tx_id",
                "http"
            ]
        );
        assert_eq!(rec["timestamp"], "2010-01-04T17:29:26.981520+0000");
        assert_eq!(rec["vlan"], serde_json::json!([6]));
        assert_eq!(rec["tx_id"], 0);
        // The object is the protocol's own (its fields are tested in `app`).
        let mut obj = None;
        f.each_tx(&mut |tx| {
            if tx.id() == 0 {
                tx.log(false, &mut |_, o| obj = Some(o));
            }
        });
        assert_eq!(rec["http"], obj.unwrap());
        let (name, x) = crate::eve::alert_app_object(&f, 0).unwrap();
        assert_eq!(name, "http");
        assert_eq!(x["http_method"], "GET");
        assert_eq!(x["protocol"], "HTTP/1.1");
        assert_eq!(x["status"], 206);
        assert_eq!(x["redirect"], "/next");
        assert_eq!(x["http_refer"], "http://r/");
        assert_eq!(x["length"], 3);
    }
}

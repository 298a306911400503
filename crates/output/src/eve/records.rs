//! EVE `http`, `dns` and `tls` objects and event records, with Suricata 7's field names
//! and order (the default, non-extended layout unless asked for more).

use crate::alert::{ip_string, proto_name};
use crate::time::eve_timestamp;
use app::dns::parser::{rcode_name, rrtype_name, DnsAnswer, RData};
use app::dns::DnsTx;
use app::http::HttpTx;
use app::tls::parser::version_name;
use app::tls::TlsState;
use serde_json::{Map, Value};
use std::fmt::Write;
use std::net::IpAddr;

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
    pub vlan: [u16; 2],
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

/// Bytes as Suricata writes them into JSON: valid UTF-8 as is, otherwise ASCII as is
/// and every other byte as `\xNN`.
pub fn bytes_str(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(b.len() + 8);
            for &c in b {
                if c < 0x80 {
                    out.push(c as char);
                } else {
                    let _ = write!(out, "\\x{c:02x}");
                }
            }
            out
        }
    }
}

fn rrtype_str(t: u16) -> String {
    rrtype_name(t).map_or_else(|| t.to_string(), str::to_string)
}

/// A whole event record: the header of `meta`, `event_type`, `tx_id` (top level, as
/// Suricata writes it for HTTP) and the protocol object under `event_type`.
pub fn event_record(meta: &EventMeta, event_type: &str, tx_id: Option<u64>, obj: Value) -> Value {
    let mut o = Map::new();
    o.insert(
        "timestamp".into(),
        eve_timestamp(meta.ts_secs, meta.ts_micros).into(),
    );
    if meta.flow_id != 0 {
        o.insert("flow_id".into(), meta.flow_id.into());
    }
    if let Some(c) = meta.pcap_cnt {
        o.insert("pcap_cnt".into(), c.into());
    }
    o.insert("event_type".into(), event_type.into());
    let vlan: Vec<Value> = meta
        .vlan
        .iter()
        .filter(|&&v| v != 0)
        .map(|&v| v.into())
        .collect();
    if !vlan.is_empty() {
        o.insert("vlan".into(), Value::Array(vlan));
    }
    o.insert("src_ip".into(), ip_string(meta.src_ip).into());
    o.insert("src_port".into(), meta.src_port.into());
    o.insert("dest_ip".into(), ip_string(meta.dest_ip).into());
    o.insert("dest_port".into(), meta.dest_port.into());
    o.insert("proto".into(), proto_name(meta.proto).into());
    o.insert("pkt_src".into(), meta.pkt_src.into());
    if let Some(id) = tx_id {
        o.insert("tx_id".into(), id.into());
    }
    o.insert(event_type.into(), obj);
    Value::Object(o)
}

fn set_bytes(o: &mut Map<String, Value>, k: &str, v: Option<&[u8]>) {
    if let Some(v) = v {
        o.insert(k.into(), bytes_str(v).into());
    }
}

/// Parses `bytes START-END/SIZE` (`*` allowed for the range or the size).
fn content_range(raw: &[u8]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("raw".into(), bytes_str(raw).into());
    let s = String::from_utf8_lossy(raw);
    let s = s.trim();
    let rest = s
        .strip_prefix("bytes")
        .map(str::trim_start)
        .unwrap_or(s)
        .trim_start_matches(['=', ' ']);
    let Some((range, size)) = rest.split_once('/') else {
        return o;
    };
    let mut fields = Map::new();
    if range.trim() != "*" {
        let Some((a, b)) = range.split_once('-') else {
            return o;
        };
        match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
            (Ok(a), Ok(b)) => {
                fields.insert("start".into(), a.into());
                fields.insert("end".into(), b.into());
            }
            _ => return o,
        }
    }
    if size.trim() != "*" {
        match size.trim().parse::<u64>() {
            Ok(n) => {
                fields.insert("size".into(), n.into());
            }
            Err(_) => return o,
        }
    }
    o.extend(fields);
    o
}

/// The `http` object of a transaction: hostname, http_port, url, http_user_agent, xff,
/// http_content_type, content_range; with `extended` also http_refer, http_method,
/// protocol, status, redirect and length.
pub fn http_object(tx: &HttpTx, extended: bool) -> Value {
    let req = tx.request();
    let res = tx.response();
    let mut o = Map::new();
    set_bytes(&mut o, "hostname", tx.host());
    if let Some(p) = tx.port() {
        o.insert("http_port".into(), p.into());
    }
    set_bytes(&mut o, "url", tx.uri_raw());
    set_bytes(&mut o, "http_user_agent", req.header("user-agent"));
    set_bytes(&mut o, "xff", req.header("x-forwarded-for"));
    if let Some(ct) = res.header("content-type") {
        let end = ct.iter().position(|&b| b == b';').unwrap_or(ct.len());
        o.insert("http_content_type".into(), bytes_str(&ct[..end]).into());
    }
    if let Some(cr) = res.header("content-range") {
        o.insert("content_range".into(), Value::Object(content_range(cr)));
    }
    if extended {
        set_bytes(&mut o, "http_refer", req.header("referer"));
        set_bytes(&mut o, "http_method", tx.method());
        set_bytes(
            &mut o,
            "protocol",
            tx.request_protocol().filter(|p| !p.is_empty()),
        );
        if let Some(s) = tx.status() {
            o.insert("status".into(), s.into());
        }
        set_bytes(&mut o, "redirect", res.header("location"));
        o.insert("length".into(), res.body_wire_len().into());
    }
    Value::Object(o)
}

/// The `dns` objects of a request: one `query` record per question (Suricata's EVE
/// DNS v2). Empty for responses.
pub fn dns_query_objects(tx: &DnsTx) -> Vec<Value> {
    if tx.is_response() {
        return Vec::new();
    }
    let m = tx.message();
    m.queries
        .iter()
        .map(|q| {
            let mut o = Map::new();
            o.insert("version".into(), 2.into());
            o.insert("type".into(), "query".into());
            o.insert("id".into(), m.header.id.into());
            o.insert("rrname".into(), bytes_str(&q.name).into());
            o.insert("rrtype".into(), rrtype_str(q.rrtype).into());
            o.insert("tx_id".into(), tx.id().into());
            if m.header.flags & 0x0040 != 0 {
                o.insert("z".into(), true.into());
            }
            o.insert("opcode".into(), m.header.opcode().into());
            Value::Object(o)
        })
        .collect()
}

fn rdata_string(a: &DnsAnswer) -> Option<String> {
    Some(match &a.rdata {
        RData::A(b) => IpAddr::from(*b).to_string(),
        RData::Aaaa(b) => ip_string(IpAddr::from(*b)),
        RData::Name(n) => bytes_str(n),
        RData::Other(raw) if a.rrtype == 16 => {
            // TXT: the first character-string.
            let len = usize::from(*raw.first()?);
            bytes_str(raw.get(1..1 + len).unwrap_or(&raw[1..]))
        }
        RData::Other(raw) => bytes_str(raw),
    })
}

/// The `dns` object of a response: Suricata's v2 `answer` record (flags, rcode, the
/// answers detailed and grouped by type). `None` for requests.
pub fn dns_answer_object(tx: &DnsTx) -> Option<Value> {
    if !tx.is_response() {
        return None;
    }
    let m = tx.message();
    let f = m.header.flags;
    let mut o = Map::new();
    o.insert("version".into(), 2.into());
    o.insert("type".into(), "answer".into());
    o.insert("id".into(), m.header.id.into());
    o.insert("flags".into(), format!("{f:x}").into());
    for (bit, name) in [
        (0x8000, "qr"),
        (0x0400, "aa"),
        (0x0200, "tc"),
        (0x0100, "rd"),
        (0x0080, "ra"),
        (0x0040, "z"),
    ] {
        if f & bit != 0 {
            o.insert(name.into(), true.into());
        }
    }
    o.insert("opcode".into(), m.header.opcode().into());
    if let Some(q) = m.queries.first() {
        o.insert("rrname".into(), bytes_str(&q.name).into());
        o.insert("rrtype".into(), rrtype_str(q.rrtype).into());
    }
    let rcode = m.header.rcode();
    o.insert(
        "rcode".into(),
        rcode_name(rcode)
            .map_or_else(|| rcode.to_string(), str::to_string)
            .into(),
    );
    if !m.answers.is_empty() {
        let mut answers = Vec::with_capacity(m.answers.len());
        let mut grouped = Map::new();
        for a in &m.answers {
            let mut r = Map::new();
            r.insert("rrname".into(), bytes_str(&a.name).into());
            r.insert("rrtype".into(), rrtype_str(a.rrtype).into());
            r.insert("ttl".into(), a.ttl.into());
            if let Some(d) = rdata_string(a) {
                r.insert("rdata".into(), d.clone().into());
                if let Value::Array(list) = grouped
                    .entry(rrtype_str(a.rrtype))
                    .or_insert_with(|| Value::Array(Vec::new()))
                {
                    list.push(d.into());
                }
            }
            answers.push(Value::Object(r));
        }
        o.insert("answers".into(), Value::Array(answers));
        o.insert("grouped".into(), Value::Object(grouped));
    }
    Some(Value::Object(o))
}

/// The `tls` object of a session: subject and issuerdn of the server certificate when
/// it was seen; with `extended` also sni and version.
pub fn tls_object(t: &TlsState, extended: bool) -> Value {
    let mut o = Map::new();
    if let Some(s) = t.cert_subject() {
        o.insert("subject".into(), s.into());
    }
    if let Some(s) = t.cert_issuer() {
        o.insert("issuerdn".into(), s.into());
    }
    if extended {
        set_bytes(&mut o, "sni", t.sni());
        let v = t.version().or(t.client_version());
        o.insert(
            "version".into(),
            v.map_or("UNDETERMINED", version_name).into(),
        );
    }
    Value::Object(o)
}

/// The `dns` object of an alert on a DNS transaction: `query` (the question records)
/// for a request, `answer` for a response.
pub fn dns_alert_object(tx: &DnsTx) -> Value {
    let mut o = Map::new();
    let queries = dns_query_objects(tx);
    if !queries.is_empty() {
        o.insert("query".into(), Value::Array(queries));
    }
    if let Some(a) = dns_answer_object(tx) {
        o.insert("answer".into(), a);
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::{AppCtx, AppFlow, Direction, Transport};

    fn meta() -> EventMeta {
        EventMeta {
            ts_secs: 1_262_626_166,
            ts_micros: 981_520,
            flow_id: 5,
            pcap_cnt: Some(9),
            vlan: [6, 0],
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
        let tx = f.http().unwrap().tx(0).unwrap();
        let rec = event_record(&meta(), "http", Some(0), http_object(tx, false));
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
        let h = &rec["http"];
        let keys: Vec<&str> = h.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "hostname",
                "http_port",
                "url",
                "http_user_agent",
                "xff",
                "http_content_type",
                "content_range"
            ]
        );
        assert_eq!(h["hostname"], "www.example.com");
        assert_eq!(h["http_port"], 8080);
        assert_eq!(h["url"], "/a%20b?x=1");
        assert_eq!(h["http_content_type"], "text/html");
        assert_eq!(
            h["content_range"],
            serde_json::json!({"raw": "bytes 500-1000/146515", "start": 500, "end": 1000, "size": 146515})
        );
        let x = http_object(tx, true);
        assert_eq!(x["http_method"], "GET");
        assert_eq!(x["protocol"], "HTTP/1.1");
        assert_eq!(x["status"], 206);
        assert_eq!(x["redirect"], "/next");
        assert_eq!(x["http_refer"], "http://r/");
        assert_eq!(x["length"], 3);
    }

    #[test]
    fn content_range_variants() {
        let c = content_range(b"bytes */100");
        assert_eq!(c.get("size"), Some(&Value::from(100)));
        assert!(c.get("start").is_none());
        let c = content_range(b"nonsense");
        assert_eq!(c.len(), 1);
    }

    fn dns_msg(id: u16, flags: u16, name: &str, answer: Option<[u8; 4]>) -> Vec<u8> {
        let mut m = id.to_be_bytes().to_vec();
        m.extend_from_slice(&flags.to_be_bytes());
        m.extend_from_slice(&[0, 1, 0, u8::from(answer.is_some()), 0, 0, 0, 0]);
        for l in name.split('.') {
            m.push(l.len() as u8);
            m.extend_from_slice(l.as_bytes());
        }
        m.extend_from_slice(&[0, 0, 1, 0, 1]);
        if let Some(ip) = answer {
            m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 1, 44, 0, 4]);
            m.extend_from_slice(&ip);
        }
        m
    }

    fn query(id: u16, name: &str, _t: u16) -> Vec<u8> {
        dns_msg(id, 0x0100, name, None)
    }

    fn answer_a(id: u16, name: &str, ip: [u8; 4]) -> Vec<u8> {
        dns_msg(id, 0x8180, name, Some(ip))
    }

    #[test]
    fn dns_records() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Udp, 55000, 53);
        f.datagram(
            &mut ctx,
            Direction::ToServer,
            &query(43981, "test.example.com", 1),
        );
        f.datagram(
            &mut ctx,
            Direction::ToClient,
            &answer_a(43981, "test.example.com", [203, 0, 113, 42]),
        );
        let txs: Vec<_> = f.dns().unwrap().txs().collect();
        let q = dns_query_objects(txs[0]);
        assert_eq!(
            q,
            vec![
                serde_json::json!({"version": 2, "type": "query", "id": 43981,
                "rrname": "test.example.com", "rrtype": "A", "tx_id": 0, "opcode": 0})
            ]
        );
        assert!(dns_answer_object(txs[0]).is_none());
        assert!(dns_query_objects(txs[1]).is_empty());
        let a = dns_answer_object(txs[1]).unwrap();
        assert_eq!(a["type"], "answer");
        assert_eq!(a["qr"], true);
        assert_eq!(a["rcode"], "NOERROR");
        assert_eq!(a["rrname"], "test.example.com");
        assert_eq!(a["answers"][0]["rdata"], "203.0.113.42");
        assert_eq!(a["grouped"]["A"][0], "203.0.113.42");
        let alert = dns_alert_object(txs[0]);
        assert_eq!(alert["query"][0]["rrname"], "test.example.com");
    }

    #[test]
    fn bytes_as_suricata_writes_them() {
        assert_eq!(bytes_str(b"abc"), "abc");
        assert_eq!(bytes_str("é".as_bytes()), "é");
        assert_eq!(
            bytes_str(b"VACKD\x03\xc5\xe9\x01"),
            "VACKD\u{3}\\xc5\\xe9\u{1}"
        );
    }
}

//! DNS's EVE objects (Suricata's EVE DNS v2 layout).

use serde_json::{Map, Value};
use std::net::IpAddr;

use super::parser::{rcode_name, rrtype_name, DnsAnswer, RData};
use super::DnsTx;
use crate::log::{bytes_str, ip_string};

fn rrtype_str(t: u16) -> String {
    rrtype_name(t).map_or_else(|| t.to_string(), str::to_string)
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
        RData::Soa(_) | RData::Sshfp { .. } => return None,
    })
}

/// The structured data Suricata logs instead of `rdata` for SOA (`soa{}`) and SSHFP
/// (`sshfp{}`, the fingerprint as colon-separated hex) records: its key and value.
fn rdata_object(a: &DnsAnswer) -> Option<(&'static str, Value)> {
    match &a.rdata {
        RData::Soa(s) => {
            let mut o = Map::new();
            o.insert("mname".into(), bytes_str(&s.mname).into());
            o.insert("rname".into(), bytes_str(&s.rname).into());
            o.insert("serial".into(), s.serial.into());
            o.insert("refresh".into(), s.refresh.into());
            o.insert("retry".into(), s.retry.into());
            o.insert("expire".into(), s.expire.into());
            o.insert("minimum".into(), s.minimum.into());
            Some(("soa", Value::Object(o)))
        }
        RData::Sshfp {
            algo,
            fp_type,
            fingerprint,
        } => {
            let hex: Vec<String> = fingerprint.iter().map(|b| format!("{b:02x}")).collect();
            let mut o = Map::new();
            o.insert("fingerprint".into(), hex.join(":").into());
            o.insert("algo".into(), (*algo).into());
            o.insert("type".into(), (*fp_type).into());
            Some(("sshfp", Value::Object(o)))
        }
        _ => None,
    }
}

/// One record of the answer or authority section: `rrname`, `rrtype`, `ttl`, then
/// `rdata` or the structured `soa{}`/`sshfp{}`; with the value grouped under its type.
fn record(a: &DnsAnswer) -> (Value, Option<Value>) {
    let mut r = Map::new();
    r.insert("rrname".into(), bytes_str(&a.name).into());
    r.insert("rrtype".into(), rrtype_str(a.rrtype).into());
    r.insert("ttl".into(), a.ttl.into());
    let mut grouped = None;
    if let Some(d) = rdata_string(a) {
        r.insert("rdata".into(), d.clone().into());
        grouped = Some(d.into());
    } else if let Some((key, v)) = rdata_object(a) {
        r.insert(key.into(), v.clone());
        grouped = Some(v);
    }
    (Value::Object(r), grouped)
}

/// The character-strings of TXT data (at least one, possibly empty).
fn txt_strings(raw: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some((&len, tail)) = rest.split_first() {
        let n = usize::from(len).min(tail.len());
        out.push(bytes_str(&tail[..n]));
        rest = &tail[n..];
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

/// The entries of one record: one per character-string for TXT (as Suricata logs
/// them), else [`record`]'s one.
fn records(a: &DnsAnswer) -> Vec<(Value, Option<Value>)> {
    let RData::Other(raw) = &a.rdata else {
        return vec![record(a)];
    };
    if a.rrtype != 16 {
        return vec![record(a)];
    }
    txt_strings(raw)
        .into_iter()
        .map(|s| {
            let mut r = Map::new();
            r.insert("rrname".into(), bytes_str(&a.name).into());
            r.insert("rrtype".into(), rrtype_str(a.rrtype).into());
            r.insert("ttl".into(), a.ttl.into());
            r.insert("rdata".into(), s.clone().into());
            (Value::Object(r), Some(s.into()))
        })
        .collect()
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
            for (r, value) in records(a) {
                if let Some(v) = value {
                    if let Value::Array(list) = grouped
                        .entry(rrtype_str(a.rrtype))
                        .or_insert_with(|| Value::Array(Vec::new()))
                    {
                        list.push(v);
                    }
                }
                answers.push(r);
            }
        }
        o.insert("answers".into(), Value::Array(answers));
        o.insert("grouped".into(), Value::Object(grouped));
    }
    if !m.authorities.is_empty() {
        let list = m
            .authorities
            .iter()
            .flat_map(records)
            .map(|(r, _)| r)
            .collect();
        o.insert("authorities".into(), Value::Array(list));
    }
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppCtx, AppFlow, Direction, Transaction, Transport};

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
        let alert = Transaction::alert_object(txs[0]);
        assert_eq!(alert["query"][0]["rrname"], "test.example.com");
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The answer object of one response datagram (after its query).
    fn answer_of(response: &[u8]) -> Value {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Udp, 55000, 53);
        let mut q = response[..2].to_vec();
        q.extend_from_slice(&dns_msg(0, 0x0100, "x", None)[2..]);
        f.datagram(&mut ctx, Direction::ToServer, &q);
        f.datagram(&mut ctx, Direction::ToClient, response);
        let txs: Vec<_> = f.dns().unwrap().txs().collect();
        dns_answer_object(txs.last().unwrap()).unwrap()
    }

    /// sv-ether.pcap packet 1364: NXDOMAIN with the zone's SOA as its authority, as
    /// Suricata 7.0.10 logs it.
    #[test]
    fn soa_authority_as_suricata() {
        let r = unhex("cc4c818300010000000100000b736f66747570646174657304696e666f0000010001c0180006000100000383003002613004696e666f0b6166696c6961732d6e7374c018036e6f63c03677dde56c00000e100000070800093a8000000e10");
        let a = answer_of(&r);
        assert_eq!(
            a["authorities"],
            serde_json::json!([{"rrname": "info", "rrtype": "SOA", "ttl": 899, "soa": {
                "mname": "a0.info.afilias-nst.info", "rname": "noc.afilias-nst.info",
                "serial": 2011030892u32, "refresh": 3600, "retry": 1800, "expire": 604800,
                "minimum": 3600}}])
        );
        assert!(a.get("answers").is_none());
    }

    /// sv-ether.pcap packet 87224: two SSHFP answers, as Suricata 7.0.10 logs them.
    #[test]
    fn sshfp_answers_as_suricata() {
        let r = unhex("0bcd8380000100020000000107616e6f6e637673066e6574627364036f726700002c0001c00c002c00010001518000160101198c34a92fc0b2ab1da52b688c2f191d2d960c09c00c002c000100015180001603017a667d57b6d5f559f136fa9537605081452930ef00002904d0000000000000");
        let a = answer_of(&r);
        let first = serde_json::json!({"fingerprint":
            "19:8c:34:a9:2f:c0:b2:ab:1d:a5:2b:68:8c:2f:19:1d:2d:96:0c:09", "algo": 1, "type": 1});
        assert_eq!(
            a["answers"][0],
            serde_json::json!({"rrname": "anoncvs.netbsd.org", "rrtype": "SSHFP",
                "ttl": 86400, "sshfp": first})
        );
        assert_eq!(a["grouped"]["SSHFP"][0], first);
        assert_eq!(a["grouped"]["SSHFP"][1]["algo"], 3);
        assert!(a.get("authorities").is_none());
    }

    /// sv-ether.pcap packet 87018: an iodine TXT answer of two character-strings (the
    /// second empty), logged as two answers, and an NS authority, as Suricata does.
    #[test]
    fn txt_strings_as_answers() {
        let r = unhex("c22f818000010001000100010a41414141414f316b5141053d61757468037372760674756e6e656c03636f6d0000100001c00c00100001000000030022204168764d41414f316b4146453554453951546a46464e3039524e316c5953446b00c01d0002000100093a80000906696f64696e65c021c06b0001000100093a8000040a1e1c5f");
        let a = answer_of(&r);
        assert_eq!(
            a["grouped"]["TXT"],
            serde_json::json!(["AhvMAAO1kAFE5TE9QTjFFN09RN1lYSDk", ""])
        );
        assert_eq!(a["answers"][1]["rdata"], "");
        assert_eq!(a["authorities"][0]["rdata"], "iodine.tunnel.com");
        assert_eq!(txt_strings(&[]), [""]);
        assert_eq!(txt_strings(&[5, b'a']), ["a"]);
    }
}

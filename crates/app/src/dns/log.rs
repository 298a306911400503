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
}

//! The EVE `bittorrent_dht` object, in Suricata's key order: `transaction_id` and
//! `client_version` (hex), then `request_type` and `request` (`id`, `target`,
//! `info_hash`, `token` in hex, `implied_port`, `port`), `response` (`id`, `nodes`,
//! `nodes6`, `values`, `token`) or `error` (`num`, `msg`).

use serde_json::{Map, Value};

use super::message::{Body, DhtMessage, Node};
use crate::log::{bytes_str, ip_string};
use crate::tls::ja3::hex_lower as hex;

fn put_hex(o: &mut Map<String, Value>, k: &str, v: &Option<Vec<u8>>) {
    if let Some(v) = v {
        o.insert(k.into(), hex(v).into());
    }
}

fn nodes(o: &mut Map<String, Value>, k: &str, n: &[Node]) {
    if n.is_empty() {
        return;
    }
    let v = n.iter().map(|n| {
        let mut m = Map::new();
        m.insert("id".into(), hex(&n.id).into());
        m.insert("ip".into(), ip_string(n.ip).into());
        m.insert("port".into(), n.port.into());
        Value::Object(m)
    });
    o.insert(k.into(), v.collect());
}

/// The `bittorrent_dht` object of a message.
pub fn dht_object(m: &DhtMessage) -> Value {
    let mut o = Map::new();
    o.insert("transaction_id".into(), hex(&m.transaction_id).into());
    put_hex(&mut o, "client_version", &m.client_version);
    match &m.body {
        Body::Request(q, a) => {
            o.insert("request_type".into(), bytes_str(q).into());
            let mut r = Map::new();
            put_hex(&mut r, "id", &a.id);
            put_hex(&mut r, "target", &a.target);
            put_hex(&mut r, "info_hash", &a.info_hash);
            put_hex(&mut r, "token", &a.token);
            if let Some(p) = a.implied_port {
                r.insert("implied_port".into(), p.into());
            }
            if let Some(p) = a.port {
                r.insert("port".into(), p.into());
            }
            o.insert("request".into(), Value::Object(r));
        }
        Body::Response(a) => {
            let mut r = Map::new();
            put_hex(&mut r, "id", &a.id);
            nodes(&mut r, "nodes", &a.nodes);
            nodes(&mut r, "nodes6", &a.nodes6);
            if !a.values.is_empty() {
                let v = a.values.iter().map(|p| {
                    let mut m = Map::new();
                    m.insert("ip".into(), ip_string(p.ip).into());
                    m.insert("port".into(), p.port.into());
                    Value::Object(m)
                });
                r.insert("values".into(), v.collect());
            }
            put_hex(&mut r, "token", &a.token);
            o.insert("response".into(), Value::Object(r));
        }
        Body::Error(n, msg) => {
            let mut e = Map::new();
            e.insert("num".into(), (*n).into());
            e.insert("msg".into(), bytes_str(msg).into());
            o.insert("error".into(), Value::Object(e));
        }
        Body::None => {}
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::super::message::parse;
    use super::*;

    #[test]
    fn records_as_suricata_writes_them() {
        let o = |b: &[u8]| dht_object(&parse(b).unwrap()).to_string();
        // Suricata 7.0.10 on sv-ether.pcap.
        assert_eq!(
            o(include_bytes!("testdata/get_peers_values.bin")),
            r#"{"transaction_id":"6161","client_version":"55543132","response":{"id":"6162636465666768696a30313233343536373839","values":[{"ip":"97.120.106.101","port":11893},{"ip":"105.100.104.116","port":28269}],"token":"616f6575736e7468"}}"#
        );
        assert_eq!(
            o(include_bytes!("testdata/announce_implied.bin")),
            r#"{"transaction_id":"6161","request_type":"announce_peer","request":{"id":"6162636465666768696a30313233343536373839","info_hash":"6d6e6f707172737475767778797a313233343536","token":"616f6575736e7468","implied_port":1,"port":6881}}"#
        );
        assert_eq!(
            o(include_bytes!("testdata/find_node.bin")),
            r#"{"transaction_id":"6161","client_version":"55543031","request_type":"find_node","request":{"id":"6162636465666768696a30313233343536373839","target":"6d6e6f707172737475767778797a313233343536"}}"#
        );
        assert_eq!(
            o(include_bytes!("testdata/error.bin")),
            r#"{"transaction_id":"6161","error":{"num":203,"msg":"Malformed Packet"}}"#
        );
    }
}

//! The `quic` EVE object, with Suricata's keys in its order: `version`, `sni`, `ua`,
//! `cyu`, `ja3`, `ja3s`, `extensions`.

use serde_json::{json, Map, Value};

use super::header::version_string;
use super::hello::extension_name;
use super::QuicTx;
use crate::log::bytes_str;
use crate::tls::ja3::Ja3;

fn fp(j: &Ja3) -> Value {
    json!({"hash": j.hash.as_str(), "string": j.string})
}

/// The `quic` object of a transaction's record.
pub fn quic_object(tx: &QuicTx) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), version_string(tx.version).into());
    if let Some(s) = &tx.sni {
        o.insert("sni".into(), bytes_str(s).into());
    }
    if let Some(s) = &tx.ua {
        o.insert("ua".into(), bytes_str(s).into());
    }
    if !tx.cyu.is_empty() {
        o.insert("cyu".into(), tx.cyu.iter().map(fp).collect());
    }
    if let Some(j) = &tx.ja3 {
        o.insert("ja3".into(), fp(j));
    }
    if let Some(j) = &tx.ja3s {
        o.insert("ja3s".into(), fp(j));
    }
    if !tx.extensions.is_empty() {
        let ext = tx.extensions.iter().map(|e| {
            let mut x = Map::new();
            if let Some(n) = extension_name(e.ty) {
                x.insert("name".into(), n.into());
            }
            x.insert("type".into(), e.ty.into());
            if !e.values.is_empty() {
                x.insert("values".into(), e.values.clone().into());
            }
            Value::Object(x)
        });
        o.insert("extensions".into(), ext.collect());
    }
    Value::Object(o)
}

//! TLS's EVE object.

use serde_json::{Map, Value};

use super::parser::version_name;
use super::TlsState;
use crate::log::set_bytes;

/// The `tls` object of a session, in Suricata's order: subject and issuerdn of the
/// server certificate when it was seen; with `extended` also its serial and
/// fingerprint, sni, version, its validity, and the hellos' JA3 and JA3S; last the
/// protocol the flow started as when TLS took over from it (`from_proto`).
pub fn tls_object(t: &TlsState, extended: bool) -> Value {
    // Room for every key at once (growing the map as keys come took a few
    // allocations more per object).
    let mut o = Map::with_capacity(if extended { 11 } else { 3 });
    if let Some(s) = t.cert_subject() {
        o.insert("subject".into(), s.into());
    }
    if let Some(s) = t.cert_issuer() {
        o.insert("issuerdn".into(), s.into());
    }
    if extended {
        let cert = t.cert_info();
        if let Some(c) = cert {
            o.insert("serial".into(), c.serial.as_str().into());
            o.insert("fingerprint".into(), c.fingerprint.as_str().into());
        }
        set_bytes(&mut o, "sni", t.sni());
        let v = t.version().or(t.client_version());
        o.insert(
            "version".into(),
            v.map_or("UNDETERMINED", version_name).into(),
        );
        if let Some(c) = cert {
            o.insert("notbefore".into(), c.not_before.as_str().into());
            o.insert("notafter".into(), c.not_after.as_str().into());
        }
        for (key, j) in [("ja3", t.ja3()), ("ja3s", t.ja3s())] {
            if let Some(j) = j {
                let mut f = Map::with_capacity(2);
                f.insert("hash".into(), j.hash.as_str().into());
                f.insert("string".into(), j.string.as_str().into());
                o.insert(key.into(), Value::Object(f));
            }
        }
    }
    if let Some(p) = t.from_proto() {
        o.insert("from_proto".into(), p.name().into());
    }
    Value::Object(o)
}

//! TLS's EVE object.

use serde_json::{Map, Value};

use super::parser::version_name;
use super::TlsState;
use crate::log::set_bytes;

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

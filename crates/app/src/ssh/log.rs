//! The EVE `ssh` object: `client` and `server`, each with the `proto_version` and
//! `software_version` of its identification line and, when HASSH logging is on
//! (`app-layer.protocols.ssh.hassh`), its `hassh` `{hash, string}`.

use serde_json::{json, Map, Value};

use super::state::{SshSide, SshState};

/// The `ssh` object of a session; a side that sent no identification line is left out.
pub fn ssh_object(s: &SshState, hassh: bool) -> Value {
    let mut o = Map::new();
    for (key, side) in ["client", "server"].into_iter().zip(&s.sides) {
        if let Some(v) = side_object(side, hassh) {
            o.insert(key.into(), v);
        }
    }
    Value::Object(o)
}

fn side_object(side: &SshSide, hassh: bool) -> Option<Value> {
    let b = side.banner.as_ref()?;
    let text = |v: &[u8]| Value::String(String::from_utf8_lossy(v).into_owned());
    let mut o = Map::new();
    o.insert("proto_version".into(), text(&b.proto));
    o.insert("software_version".into(), text(&b.software));
    if let (true, Some((string, hash))) = (hassh, &side.hassh) {
        o.insert(
            "hassh".into(),
            json!({"hash": text(hash), "string": text(string)}),
        );
    }
    Some(Value::Object(o))
}

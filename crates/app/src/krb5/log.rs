//! The EVE `krb5` object, in Suricata's key order: `msg_type`, for an error
//! `failed_request` and `error_code`, then `cname`, `realm`, `sname` (`<empty>` when
//! absent), `encryption` (`<none>` for requests and errors) and `weak_encryption`, and
//! for a reply `ticket_encryption` and `ticket_weak_encryption`.

use serde_json::{Map, Value};

use super::parser::{self, etype_name, weak_etype};
use super::state::Krb5Tx;

/// The `krb5` object of a message.
pub fn krb5_object(tx: &Krb5Tx) -> Value {
    let m = &tx.msg;
    let mut o = Map::new();
    o.insert("msg_type".into(), parser::msg_type_name(m.msg_type).into());
    if let Some(code) = m.error_code {
        let req = tx
            .failed_request
            .map_or_else(|| "<none>".to_owned(), parser::msg_type_name);
        o.insert("failed_request".into(), req.into());
        o.insert("error_code".into(), parser::error_name(code).into());
    }
    let empty = || Value::from("<empty>");
    let name = |n: &Option<Vec<String>>| n.as_ref().map_or_else(empty, |v| v.join("/").into());
    o.insert("cname".into(), name(&m.cname));
    o.insert(
        "realm".into(),
        m.realm.as_ref().map_or_else(empty, |r| r.clone().into()),
    );
    o.insert("sname".into(), name(&m.sname));
    o.insert(
        "encryption".into(),
        m.etype
            .map_or_else(|| "<none>".to_owned(), etype_name)
            .into(),
    );
    o.insert(
        "weak_encryption".into(),
        m.etype.is_some_and(weak_etype).into(),
    );
    if let Some(t) = m.ticket_etype {
        o.insert("ticket_encryption".into(), etype_name(t).into());
        o.insert("ticket_weak_encryption".into(), weak_etype(t).into());
    }
    Value::Object(o)
}

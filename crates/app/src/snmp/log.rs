//! The EVE `snmp` object, in Suricata's key order: `version`, `pdu_type`, a v1 trap's
//! `trap_type`, `trap_oid` and `trap_address`, `vars` (when there are any), then
//! `community` (v1/v2c) or `usm` (v3, when its PDU is in the clear).

use serde_json::{Map, Value};

use super::parser::pdu_type_name;
use super::state::SnmpTx;

/// The `snmp` object of a message.
pub fn snmp_object(tx: &SnmpTx) -> Value {
    let i = &tx.info;
    let text = |v: &[u8]| Value::String(String::from_utf8_lossy(v).into_owned());
    let mut o = Map::new();
    o.insert("version".into(), i.version.into());
    o.insert("pdu_type".into(), pdu_type_name(i.pdu_type).into());
    if let Some((t, oid, addr)) = &i.trap {
        o.insert("trap_type".into(), t.clone().into());
        o.insert("trap_oid".into(), oid.clone().into());
        o.insert("trap_address".into(), addr.clone().into());
    }
    if !i.vars.is_empty() {
        o.insert("vars".into(), i.vars.clone().into());
    }
    if let Some(c) = &i.community {
        o.insert("community".into(), text(c));
    }
    if let (Some(u), Some(_)) = (&i.usm, i.pdu_type) {
        o.insert("usm".into(), text(u));
    }
    Value::Object(o)
}

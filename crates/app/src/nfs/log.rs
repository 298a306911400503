//! NFS's EVE objects as Suricata 7 writes them: `nfs` (version, procedure, filename,
//! hhash, id, file_tx, type, status, rename, read/write) and its sibling `rpc` (xid,
//! status, auth_type, creds).

use serde_json::{Map, Value};

use super::parser::{procedure_name, procedure_name_v4, status_name};
use super::NfsTx;
use crate::log::bytes_str;

/// The `nfs` object of a transaction.
pub fn nfs_object(tx: &NfsTx) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), tx.version.into());
    // A v4 transaction that is no file transaction is named by its operation.
    let name = if tx.version == 4 && !tx.file_tx {
        procedure_name_v4(tx.procedure)
    } else {
        procedure_name(tx.procedure)
    };
    o.insert("procedure".into(), name.into_owned().into());
    o.insert("filename".into(), bytes_str(&tx.filename).into());
    if let Some(h) = tx.hhash {
        o.insert("hhash".into(), format!("{h:08x}").into());
    }
    o.insert("id".into(), (tx.id + 1).into());
    o.insert("file_tx".into(), tx.file_tx.into());
    let responded = tx.response.is_some();
    o.insert(
        "type".into(),
        if responded { "response" } else { "request" }.into(),
    );
    if let Some((_, Some(s))) = tx.response {
        o.insert("status".into(), status_name(s).into_owned().into());
    }
    if let Some((from, to)) = &tx.rename {
        let mut r = Map::new();
        r.insert("from".into(), bytes_str(from).into());
        r.insert("to".into(), bytes_str(to).into());
        o.insert("rename".into(), Value::Object(r));
    }
    // Suricata writes the READ/WRITE progress for v2 and v3 only.
    if let Some(io) = tx.io.as_ref().filter(|_| tx.version < 4) {
        let mut r = Map::new();
        r.insert("first".into(), io.first.into());
        r.insert("last".into(), io.last.into());
        r.insert("last_xid".into(), io.last_xid.into());
        r.insert("chunks".into(), io.chunks.into());
        let key = if io.write { "write" } else { "read" };
        o.insert(key.into(), Value::Object(r));
    }
    Value::Object(o)
}

/// The `rpc` object beside it.
pub fn rpc_object(tx: &NfsTx) -> Value {
    let mut o = Map::new();
    o.insert("xid".into(), tx.xid.into());
    let accepted = tx.response.is_none_or(|(a, _)| a);
    o.insert(
        "status".into(),
        if accepted { "ACCEPTED" } else { "DENIED" }.into(),
    );
    o.insert("auth_type".into(), tx.flavor.name().into());
    if let Some(c) = &tx.creds {
        let mut m = Map::new();
        m.insert("machine_name".into(), bytes_str(&c.machine_name).into());
        m.insert("uid".into(), c.uid.into());
        m.insert("gid".into(), c.gid.into());
        o.insert("creds".into(), Value::Object(m));
    }
    Value::Object(o)
}

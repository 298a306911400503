//! The `dcerpc` EVE objects as Suricata 7 writes them: [`dcerpc_object`] for a
//! `dcerpc` record (DCERPC over TCP or UDP) and [`smb_dcerpc_object`] for the object
//! SMB records embed for DCERPC over a named pipe.

use serde_json::{Map, Value};

use super::parser::{ptype, ptype_name, uuid_string};
use super::state::{DceTx, Frags, Interface};

/// `request`: the opening PDU's name, `REQUEST_LOST` when only the answer was seen.
fn request_name(tx: &DceTx) -> Value {
    tx.request
        .map_or_else(|| "REQUEST_LOST".into(), |t| ptype_name(t).into())
}

/// `response`: the answering PDU's name, `UNREPLIED` while unanswered.
fn response_name(tx: &DceTx) -> Value {
    tx.response
        .map_or_else(|| "UNREPLIED".into(), |t| ptype_name(t).into())
}

/// `{frag_cnt, stub_data_size}`, with `opnum` first when given.
fn frags(opnum: Option<u16>, f: &Frags) -> Value {
    let mut o = Map::new();
    if let Some(op) = opnum {
        o.insert("opnum".into(), op.into());
    }
    o.insert("frag_cnt".into(), f.count.into());
    o.insert("stub_data_size".into(), f.size.into());
    Value::Object(o)
}

/// An interface as the records list it: `uuid`, `version` (`major.minor`), and the
/// answer's `ack_result` (and `ack_reason` with `reason`) once there is one.
pub fn interface_object(i: &Interface, ack: bool, reason: bool) -> Value {
    let mut o = Map::new();
    o.insert("uuid".into(), uuid_string(&i.uuid).into());
    o.insert(
        "version".into(),
        format!("{}.{}", i.version, i.version_minor).into(),
    );
    if ack {
        if let Some(r) = i.ack_result {
            o.insert("ack_result".into(), r.into());
        }
        if let (true, Some(r)) = (reason, i.ack_reason) {
            o.insert("ack_reason".into(), r.into());
        }
    }
    Value::Object(o)
}

/// Whether the request carries a request stub (`req`).
fn is_request(tx: &DceTx) -> bool {
    tx.request == Some(ptype::REQUEST)
}

/// Whether the answer carries a response stub (`res`).
fn is_response(tx: &DceTx) -> bool {
    tx.response == Some(ptype::RESPONSE)
}

/// The object of a `dcerpc` record: `request`, `req` (`opnum`, `frag_cnt`,
/// `stub_data_size`) for a request, `interfaces` for a bind, `response`, `res` for a
/// response, then `call_id` (connection-oriented) or `activityuuid` and `seqnum`
/// (connectionless), and `rpc_version`.
pub fn dcerpc_object(tx: &DceTx) -> Value {
    let mut o = Map::new();
    o.insert("request".into(), request_name(tx));
    if is_request(tx) {
        o.insert("req".into(), frags(tx.opnum, &tx.req));
    }
    if tx.request == Some(ptype::BIND) {
        let l = tx
            .interfaces
            .iter()
            .map(|i| interface_object(i, true, false))
            .collect();
        o.insert("interfaces".into(), Value::Array(l));
    }
    o.insert("response".into(), response_name(tx));
    if is_response(tx) {
        o.insert("res".into(), frags(None, &tx.res));
    }
    match tx.activity {
        Some(a) => {
            o.insert("activityuuid".into(), uuid_string(&a).into());
            o.insert("seqnum".into(), tx.call_id.into());
        }
        None => {
            o.insert("call_id".into(), tx.call_id.into());
        }
    }
    let (v, m) = tx.rpc_version;
    o.insert("rpc_version".into(), format!("{v}.{m}").into());
    Value::Object(o)
}

/// The `dcerpc` object an SMB record embeds for a call over a named pipe: `request`,
/// `response`, `opnum` and `req` for a request, `interfaces` (a bind's offers with
/// `ack_result`/`ack_reason`; for other calls the pipe's `bound` interfaces, when
/// given, as `uuid`/`version`), `res` for a response, `call_id`.
pub fn smb_dcerpc_object(tx: &DceTx, bound: Option<&[Interface]>) -> Value {
    let mut o = Map::new();
    o.insert("request".into(), request_name(tx));
    o.insert("response".into(), response_name(tx));
    if is_request(tx) {
        if let Some(op) = tx.opnum {
            o.insert("opnum".into(), op.into());
        }
        o.insert("req".into(), frags(None, &tx.req));
    }
    let list: Option<Vec<Value>> = if tx.request == Some(ptype::BIND) {
        Some(
            tx.interfaces
                .iter()
                .map(|i| interface_object(i, true, true))
                .collect(),
        )
    } else {
        bound.filter(|b| !b.is_empty()).map(|b| {
            b.iter()
                .map(|i| interface_object(i, false, false))
                .collect()
        })
    };
    if let Some(l) = list {
        o.insert("interfaces".into(), Value::Array(l));
    }
    if is_response(tx) {
        o.insert("res".into(), frags(None, &tx.res));
    }
    o.insert("call_id".into(), tx.call_id.into());
    Value::Object(o)
}

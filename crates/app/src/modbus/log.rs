//! The EVE `modbus` object as Suricata writes it: `id` (the transaction's number,
//! from 1), then `request` and `response` when present, each with the MBAP header,
//! the function, its access type, category and error flags (`sawp-modbus` flag names,
//! `NONE` when empty) and what its data holds (`exception`, `diagnostic`, `mei`,
//! `read`, `write` or raw `data`).

use serde_json::{Map, Value};

use sawp_modbus::{Data, Message, Read, Write};

use super::state::ModbusTx;
use crate::log::bytes_str;

/// The `modbus` object of a transaction.
pub fn modbus_object(tx: &ModbusTx) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), (tx.id + 1).into());
    if let Some(m) = &tx.request {
        o.insert("request".into(), message(m));
    }
    if let Some(m) = &tx.response {
        o.insert("response".into(), message(m));
    }
    Value::Object(o)
}

/// One message.
fn message(m: &Message) -> Value {
    let mut o = Map::new();
    o.insert("transaction_id".into(), m.transaction_id.into());
    o.insert("protocol_id".into(), m.protocol_id.into());
    o.insert("unit_id".into(), m.unit_id.into());
    o.insert("function_raw".into(), m.function.raw.into());
    o.insert(
        "function_code".into(),
        format!("{:?}", m.function.code).into(),
    );
    o.insert("access_type".into(), m.access_type.to_string().into());
    o.insert("category".into(), m.category.to_string().into());
    o.insert("error_flags".into(), m.error_flags.to_string().into());
    match &m.data {
        Data::Exception(e) => {
            o.insert(
                "exception".into(),
                code_object(e.raw.into(), format!("{:?}", e.code), None),
            );
        }
        Data::Diagnostic { func, data } => {
            o.insert(
                "diagnostic".into(),
                code_object(func.raw.into(), format!("{:?}", func.code), Some(data)),
            );
        }
        Data::MEI { mei_type, data } => {
            o.insert(
                "mei".into(),
                code_object(
                    mei_type.raw.into(),
                    format!("{:?}", mei_type.code),
                    Some(data),
                ),
            );
        }
        Data::Read(r) => {
            o.insert("read".into(), read(r));
        }
        Data::Write(w) => {
            o.insert("write".into(), write(w));
        }
        Data::ReadWrite { read: r, write: w } => {
            o.insert("read".into(), read(r));
            o.insert("write".into(), write(w));
        }
        Data::ByteVec(b) => {
            o.insert("data".into(), bytes_str(b).into());
        }
        Data::Empty => {}
    }
    Value::Object(o)
}

fn code_object(raw: u64, code: String, data: Option<&Vec<u8>>) -> Value {
    let mut o = Map::new();
    o.insert("raw".into(), raw.into());
    o.insert("code".into(), code.into());
    if let Some(d) = data {
        o.insert("data".into(), bytes_str(d).into());
    }
    Value::Object(o)
}

fn read(r: &Read) -> Value {
    let mut o = Map::new();
    match r {
        Read::Request { address, quantity } => {
            o.insert("address".into(), (*address).into());
            o.insert("quantity".into(), (*quantity).into());
        }
        Read::Response(data) => {
            o.insert("data".into(), bytes_str(data).into());
        }
    }
    Value::Object(o)
}

fn write(w: &Write) -> Value {
    let mut o = Map::new();
    match w {
        Write::MultReq {
            address,
            quantity,
            data,
        } => {
            o.insert("address".into(), (*address).into());
            o.insert("quantity".into(), (*quantity).into());
            o.insert("data".into(), bytes_str(data).into());
        }
        Write::Mask {
            address,
            and_mask,
            or_mask,
        } => {
            o.insert("address".into(), (*address).into());
            o.insert("and_mask".into(), (*and_mask).into());
            o.insert("or_mask".into(), (*or_mask).into());
        }
        Write::Other { address, data } => {
            o.insert("address".into(), (*address).into());
            o.insert("data".into(), (*data).into());
        }
    }
    Value::Object(o)
}

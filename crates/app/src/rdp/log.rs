//! The EVE `rdp` object, in Suricata's key order: `tx_id` (from 1), `event_type`
//! (`initial_request`, `initial_response`, `connect_request`, `connect_response`,
//! `tls_handshake`), then the message's fields: the cookie and request flags; the
//! server's flags and selected protocol, or the failure code and reason; the client
//! core data (`client{}`) and `channels`; the certificates' `x509_serials`.

use serde_json::{Map, Value};

use super::names;
use super::parser::{ClientCore, NegResponse};
use super::state::{Message, RdpTx};

fn client(c: &ClientCore) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), names::version(c.version).into());
    o.insert("desktop_width".into(), c.desktop_width.into());
    o.insert("desktop_height".into(), c.desktop_height.into());
    if let Some(d) = c.color_depth {
        o.insert("color_depth".into(), d.into());
    }
    o.insert(
        "keyboard_layout".into(),
        names::keyboard_layout(c.keyboard_layout).into(),
    );
    o.insert("build".into(), names::build(c.build).into());
    o.insert("client_name".into(), c.client_name.clone().into());
    if let Some(t) = names::keyboard_type(c.keyboard_type) {
        o.insert("keyboard_type".into(), t.into());
    }
    if c.keyboard_subtype != 0 {
        o.insert("keyboard_subtype".into(), c.keyboard_subtype.into());
    }
    o.insert("function_keys".into(), c.function_keys.into());
    if !c.ime.is_empty() {
        o.insert("ime".into(), c.ime.clone().into());
    }
    if let Some(p) = c.product_id {
        o.insert("product_id".into(), p.into());
    }
    if let Some(s) = c.serial_number.filter(|&s| s != 0) {
        o.insert("serial_number".into(), s.into());
    }
    if let Some(f) = c.capabilities {
        o.insert("capabilities".into(), names::capabilities(f).into());
    }
    if let Some(id) = c.id.as_ref().filter(|id| !id.is_empty()) {
        o.insert("id".into(), id.clone().into());
    }
    if let Some(h) = c.connection_type.and_then(names::connection_hint) {
        o.insert("connection_hint".into(), h.into());
    }
    if let Some(p) = c.physical {
        o.insert("physical_width".into(), p.width.into());
        o.insert("physical_height".into(), p.height.into());
        if let Some(x) = p.orientation {
            o.insert("desktop_orientation".into(), x.into());
        }
        if let Some(x) = p.scale {
            o.insert("scale_factor".into(), x.into());
        }
        if let Some(x) = p.device_scale {
            o.insert("device_scale_factor".into(), x.into());
        }
    }
    Value::Object(o)
}

/// The `rdp` object of one message.
pub fn rdp_object(tx: &RdpTx) -> Value {
    let mut o = Map::new();
    o.insert("tx_id".into(), (tx.id + 1).into());
    let kind = match &tx.msg {
        Message::InitialRequest { .. } => "initial_request",
        Message::InitialResponse(_) => "initial_response",
        Message::ConnectRequest { .. } => "connect_request",
        Message::ConnectResponse => "connect_response",
        Message::TlsHandshake(_) => "tls_handshake",
    };
    o.insert("event_type".into(), kind.into());
    match &tx.msg {
        Message::InitialRequest { cookie, neg } => {
            if let Some(c) = cookie {
                o.insert("cookie".into(), c.clone().into());
            }
            if let Some(n) = neg.filter(|n| n.flags != 0) {
                o.insert("flags".into(), names::request_flags(n.flags).into());
            }
        }
        Message::InitialResponse(Some(NegResponse::Selected { flags, protocol })) => {
            o.insert(
                "server_supports".into(),
                names::server_supports(*flags).into(),
            );
            o.insert("protocol".into(), names::protocol(*protocol).into());
        }
        Message::InitialResponse(Some(NegResponse::Failure(code))) => {
            o.insert("error_code".into(), (*code).into());
            o.insert("reason".into(), names::failure(*code).into());
        }
        Message::ConnectRequest {
            client: c,
            channels,
        } => {
            if let Some(c) = c {
                o.insert("client".into(), client(c));
            }
            if !channels.is_empty() {
                o.insert("channels".into(), channels.clone().into());
            }
        }
        Message::TlsHandshake(serials) => {
            o.insert("x509_serials".into(), serials.clone().into());
        }
        Message::InitialResponse(None) | Message::ConnectResponse => {}
    }
    Value::Object(o)
}

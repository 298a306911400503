//! MQTT's EVE object as Suricata 7 writes it: one member per packet of the
//! transaction, named by its type (`connect`, `connack`, `publish`, ...), each with the
//! fixed header's `qos`, `retain` and `dup` and the packet's fields; version 5
//! properties as `properties` (user properties under their own names).

use serde_json::{Map, Value};

use super::parser::{property_name, Body, Packet, PropValue, Property};
use super::MqttTx;
use crate::log::bytes_str;

/// The name of packet type `kind` in EVE.
pub fn type_name(kind: u8) -> Option<&'static str> {
    Some(match kind {
        1 => "connect",
        2 => "connack",
        3 => "publish",
        4 => "puback",
        5 => "pubrec",
        6 => "pubrel",
        7 => "pubcomp",
        8 => "subscribe",
        9 => "suback",
        10 => "unsubscribe",
        11 => "unsuback",
        12 => "pingreq",
        13 => "pingresp",
        14 => "disconnect",
        15 => "auth",
        _ => return None,
    })
}

/// The `mqtt` object of a transaction (`{}` for a packet of a reserved type or one
/// that did not parse).
pub fn mqtt_object(tx: &MqttTx) -> Value {
    let mut o = Map::new();
    for p in &tx.packets {
        if matches!(p.body, Body::Unassigned) {
            continue;
        }
        if let Some(name) = type_name(p.header.kind) {
            o.insert(name.into(), packet_object(p));
        }
    }
    Value::Object(o)
}

fn s(b: &[u8]) -> Value {
    bytes_str(b).into()
}

fn properties(o: &mut Map<String, Value>, props: &[Property]) {
    if props.is_empty() {
        return;
    }
    let mut m = Map::new();
    for p in props {
        match &p.value {
            PropValue::Int(v) => {
                m.insert(property_name(p.id).unwrap_or("unknown").into(), (*v).into());
            }
            PropValue::Bytes(b) => {
                m.insert(property_name(p.id).unwrap_or("unknown").into(), s(b));
            }
            PropValue::Pair(k, v) => {
                m.insert(bytes_str(k), s(v));
            }
        }
    }
    o.insert("properties".into(), Value::Object(m));
}

fn packet_object(p: &Packet) -> Value {
    let mut o = Map::new();
    o.insert("qos".into(), p.header.qos().into());
    o.insert("retain".into(), p.header.retain().into());
    o.insert("dup".into(), p.header.dup().into());
    match &p.body {
        Body::Connect(c) => {
            o.insert("protocol_string".into(), s(&c.protocol_string));
            o.insert("protocol_version".into(), c.protocol_version.into());
            o.insert("client_id".into(), s(&c.client_id));
            let f = |bit: u8| Value::Bool(c.flags & bit != 0);
            let mut flags = Map::new();
            flags.insert("username".into(), f(0x80));
            flags.insert("password".into(), f(0x40));
            flags.insert("will_retain".into(), f(0x20));
            flags.insert("will".into(), f(0x04));
            flags.insert("clean_session".into(), f(0x02));
            o.insert("flags".into(), Value::Object(flags));
            if let Some(u) = &c.username {
                o.insert("username".into(), s(u));
            }
            if let Some(pw) = &c.password {
                o.insert("password".into(), s(pw));
            }
            if let Some(w) = &c.will {
                let mut m = Map::new();
                m.insert("topic".into(), s(&w.topic));
                m.insert("message".into(), s(&w.message));
                properties(&mut m, &w.properties);
                o.insert("will".into(), Value::Object(m));
            }
            properties(&mut o, &c.properties);
        }
        Body::Connack {
            session_present,
            return_code,
            properties: props,
        } => {
            o.insert("session_present".into(), (*session_present).into());
            o.insert("return_code".into(), (*return_code).into());
            properties(&mut o, props);
        }
        Body::Publish {
            topic,
            message_id,
            message,
            properties: props,
        } => {
            o.insert("topic".into(), s(topic));
            if let Some(id) = message_id {
                o.insert("message_id".into(), (*id).into());
            }
            o.insert("message".into(), s(message));
            properties(&mut o, props);
        }
        Body::Ack {
            message_id,
            reason_code,
            properties: props,
        } => {
            o.insert("message_id".into(), (*message_id).into());
            if let Some(r) = reason_code {
                o.insert("reason_code".into(), (*r).into());
            }
            properties(&mut o, props);
        }
        Body::Subscribe {
            message_id,
            topics,
            properties: props,
        } => {
            o.insert("message_id".into(), (*message_id).into());
            let t = topics
                .iter()
                .map(|(t, q)| {
                    let mut m = Map::new();
                    m.insert("topic".into(), s(t));
                    m.insert("qos".into(), (*q).into());
                    Value::Object(m)
                })
                .collect();
            o.insert("topics".into(), Value::Array(t));
            properties(&mut o, props);
        }
        Body::Suback {
            message_id,
            qos_granted,
            properties: props,
        } => {
            o.insert("message_id".into(), (*message_id).into());
            let q = qos_granted.iter().map(|&q| q.into()).collect();
            o.insert("qos_granted".into(), Value::Array(q));
            properties(&mut o, props);
        }
        Body::Unsubscribe {
            message_id,
            topics,
            properties: props,
        } => {
            o.insert("message_id".into(), (*message_id).into());
            let t = topics.iter().map(|t| s(t)).collect();
            o.insert("topics".into(), Value::Array(t));
            properties(&mut o, props);
        }
        Body::Unsuback {
            message_id,
            reason_codes,
            properties: props,
        } => {
            o.insert("message_id".into(), (*message_id).into());
            if let Some(r) = reason_codes.as_ref().filter(|r| !r.is_empty()) {
                let r = r.iter().map(|&c| c.into()).collect();
                o.insert("reason_codes".into(), Value::Array(r));
            }
            properties(&mut o, props);
        }
        Body::Reason {
            reason_code,
            properties: props,
        } => {
            if let Some(r) = reason_code {
                o.insert("reason_code".into(), (*r).into());
            }
            properties(&mut o, props);
        }
        Body::Ping | Body::Unassigned => {}
        Body::Truncated => {
            o.insert("truncated".into(), true.into());
        }
    }
    Value::Object(o)
}

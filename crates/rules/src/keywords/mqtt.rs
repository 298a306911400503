//! MQTT: `mqtt.type`, `mqtt.flags`, `mqtt.qos`, `mqtt.reason_code`,
//! `mqtt.protocol_version`, `mqtt.connack.session_present` and `mqtt.connect.flags`,
//! matched on the control packets of a transaction (the `mqtt.*` buffers are in
//! `apps.rs`). Values as Suricata 7.0.10 accepts them.

use super::{push_app, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, AppValue, IntCmp};
use crate::diag::Reason;
use crate::parser::state::State;

/// MQTT.
const MQTT: &[AppProto] = &[AppProto::Mqtt];

/// The control packet type names `mqtt.type` takes, by type number (0 to 15).
pub const TYPES: [&str; 16] = [
    "UNASSIGNED",
    "CONNECT",
    "CONNACK",
    "PUBLISH",
    "PUBACK",
    "PUBREC",
    "PUBREL",
    "PUBCOMP",
    "SUBSCRIBE",
    "SUBACK",
    "UNSUBSCRIBE",
    "UNSUBACK",
    "PINGREQ",
    "PINGRESP",
    "DISCONNECT",
    "AUTH",
];

/// `mqtt.flags` names and their bits in the fixed header.
pub const FLAGS: &[(&str, u32)] = &[("dup", 8), ("retain", 1)];

/// `mqtt.connect.flags` names and their bits in the CONNECT flags byte.
pub const CONNECT_FLAGS: &[(&str, u32)] = &[
    ("username", 0x80),
    ("password", 0x40),
    ("will_retain", 0x20),
    ("will", 0x04),
    ("clean_session", 0x02),
];

/// MQTT keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("mqtt.type", Value::Required, Kind::Option, kind)
        .protos(MQTT)
        .about(
            "match the MQTT message type",
            "rules/mqtt-keywords.html#mqtt-type",
        ),
    Keyword::new("mqtt.flags", Value::Required, Kind::Option, flags)
        .protos(MQTT)
        .about(
            "match the MQTT header flags",
            "rules/mqtt-keywords.html#mqtt-flags",
        ),
    Keyword::new("mqtt.qos", Value::Required, Kind::Option, qos)
        .protos(MQTT)
        .about(
            "match the MQTT quality of service",
            "rules/mqtt-keywords.html#mqtt-qos",
        ),
    Keyword::new(
        "mqtt.reason_code",
        Value::Required,
        Kind::Option,
        reason_code,
    )
    .aliases(&["mqtt.connack.return_code"])
    .protos(MQTT)
    .about(
        "match the MQTT reason code",
        "rules/mqtt-keywords.html#mqtt-reason-code",
    ),
    Keyword::new(
        "mqtt.protocol_version",
        Value::Required,
        Kind::Option,
        protocol_version,
    )
    .protos(MQTT)
    .about(
        "compare the MQTT protocol version",
        "rules/mqtt-keywords.html#mqtt-protocol-version",
    ),
    Keyword::new(
        "mqtt.connack.session_present",
        Value::Required,
        Kind::Option,
        session_present,
    )
    .protos(MQTT)
    .about(
        "match the session present flag of an MQTT CONNACK",
        "rules/mqtt-keywords.html#mqtt-connack-session-present",
    ),
    Keyword::new(
        "mqtt.connect.flags",
        Value::Required,
        Kind::Option,
        connect_flags,
    )
    .protos(MQTT)
    .about(
        "match the flags of an MQTT CONNECT",
        "rules/mqtt-keywords.html#mqtt-connect-flags",
    ),
];

/// MQTT buffers are declared with the other protocols' (`apps.rs`).
pub(super) const STICKY: Stickies = &[];

/// The value without surrounding blanks and optional double quotes.
fn unquoted<'a>(c: &Ctx<'a>) -> &'a str {
    let v = c.o.value.unwrap_or("").trim();
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .trim()
}

/// `mqtt.type:NAME`: a packet type by name (any case; Suricata refuses numbers, and
/// the name of type 0, `UNASSIGNED`: Suricata 7.0.10 refuses `mqtt.type:unassigned`,
/// difftest mqtt seed 1 case 71).
fn kind(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    match TYPES.iter().skip(1).find(|t| t.eq_ignore_ascii_case(v)) {
        Some(t) => push_app(st, c, false, AppValue::Text((*t).to_owned())),
        None => st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            format!("unknown mqtt.type value {v}"),
        ),
    }
}

/// `mqtt.qos:N`: 0, 1 or 2, exactly.
fn qos(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    let n = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::uint(v, 2).map_err(|_| format!("invalid MQTT QOS level: {v}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![IntCmp::Eq(n)]));
}

/// `mqtt.reason_code:N`: a reason (or CONNACK return) code, exactly.
fn reason_code(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    let n = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::uint(v, 255).map_err(|_| format!("invalid MQTT reason code: {v}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![IntCmp::Eq(n)]));
}

/// `mqtt.protocol_version:N` or a comparison (`>3`).
fn protocol_version(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c);
    let cmp = tryv!(
        st,
        c.o,
        c.kw,
        crate::values::int_cmp(v, 255).map_err(|e| format!("mqtt.protocol_version: {e}"))
    );
    push_app(st, c, false, AppValue::Ints(vec![cmp]));
}

/// `mqtt.connack.session_present:true|false|yes|no`.
fn session_present(st: &mut State, c: &Ctx<'_>) {
    let v = unquoted(c).to_ascii_lowercase();
    let b = match v.as_str() {
        "true" | "yes" => "true",
        "false" | "no" => "false",
        _ => {
            return st.err(
                c.o.value_off,
                Reason::InvalidValue,
                c.kw,
                format!("invalid session_present flag definition: {v}"),
            )
        }
    };
    push_app(st, c, false, AppValue::Text(b.to_owned()));
}

/// `mqtt.flags:[!]dup,[!]retain`.
fn flags(st: &mut State, c: &Ctx<'_>) {
    bits(st, c, FLAGS)
}

/// `mqtt.connect.flags:[!]username,[!]password,[!]will,[!]will_retain,[!]clean_session`.
fn connect_flags(st: &mut State, c: &Ctx<'_>) {
    bits(st, c, CONNECT_FLAGS)
}

/// A comma-separated list of flag names, each optionally negated, each at most once.
fn bits(st: &mut State, c: &Ctx<'_>, names: &[(&str, u32)]) {
    let v = unquoted(c);
    let parsed = (|| {
        let (mut set, mut clear) = (0u32, 0u32);
        for item in crate::values::csv(v) {
            let (neg, name) = crate::values::negation(item);
            let Some(&(_, bit)) = names.iter().find(|(n, _)| *n == name.trim()) else {
                return Err(format!("invalid flag definition: {item}"));
            };
            if (set | clear) & bit != 0 {
                return Err(format!("duplicate flag: {item}"));
            }
            if neg {
                clear |= bit
            } else {
                set |= bit
            }
        }
        Ok((set, clear))
    })();
    let (set, clear) = tryv!(st, c.o, c.kw, parsed);
    let text = v.to_owned();
    push_app(st, c, false, AppValue::Bits { set, clear, text });
}

//! The `mqtt.*` transaction keywords: a transaction matches when one of its control
//! packets does (`mqtt.protocol_version` compares the flow's protocol level when the
//! transaction opened, as Suricata does for every transaction of the flow).

use rules::{AppOpt, AppValue};

use super::parser::{Body, Packet};
use super::MqttTx;
use crate::Direction;

/// The one direction Suricata 7.0.10 registers an `mqtt.*` keyword for (`None`: both):
/// the fixed-header fields and the CONNECT flags are inspected to the server only, the
/// CONNACK's session-present flag to the client only. A rule with `flow` of the other
/// direction fails to load ("rule mixes keywords with conflicting directions"); one
/// without `flow` inspects that direction only (found by the differential harness's
/// `mqtt` family, tests/parity/difftest/fixed/dt-1-mqtt-*).
pub fn option_direction(name: &str) -> Option<Direction> {
    match name {
        "mqtt.flags" | "mqtt.qos" | "mqtt.protocol_version" | "mqtt.connect.flags" => {
            Some(Direction::ToServer)
        }
        "mqtt.connack.session_present" => Some(Direction::ToClient),
        _ => None,
    }
}

/// Evaluates one `mqtt.*` keyword on a transaction inspected in `dir`: a transaction is
/// only ever inspected in the direction of the packet that opened it (Suricata's
/// transactions made for one direction skip the other's inspection) and once complete
/// (Suricata registers the MQTT keywords at progress 1: a QoS 2 PUBLISH is inspected
/// after its PUBCOMP), whatever the keyword's negation.
pub(crate) fn check(tx: &MqttTx, opt: &AppOpt, dir: Direction) -> bool {
    if dir != tx.dir || !tx.complete {
        return false;
    }
    let any = |f: &dyn Fn(&Packet) -> bool| tx.packets.iter().any(f);
    let hit = match (&opt.value, opt.name) {
        (AppValue::Text(t), "mqtt.type") => any(&|p| type_is(p.header.kind, t)),
        (AppValue::Bits { set, clear, .. }, "mqtt.flags") => {
            any(&|p| bits(u32::from(p.header.flags), *set, *clear))
        }
        (AppValue::Ints(v), "mqtt.qos") => {
            any(&|p| v.iter().any(|c| c.matches(u64::from(p.header.qos()))))
        }
        // The first packet that carries a code decides (a QoS 2 PUBLISH whose PUBREC says
        // 0x10 does not match `mqtt.reason_code:0` through its PUBCOMP's implied 0).
        (AppValue::Ints(v), "mqtt.reason_code") => tx
            .packets
            .iter()
            .find_map(|p| reason_codes(p, tx.version >= 5).next())
            .is_some_and(|r| v.iter().any(|c| c.matches(u64::from(r)))),
        (AppValue::Ints(v), "mqtt.protocol_version") => {
            tx.version != 0 && v.iter().any(|c| c.matches(u64::from(tx.version)))
        }
        // Suricata looks at a CONNACK that opens its transaction only (one answering a
        // CONNECT in the same transaction is not matched).
        (AppValue::Text(t), "mqtt.connack.session_present") => {
            tx.packets.first().is_some_and(|p| match &p.body {
                Body::Connack {
                    session_present, ..
                } => *session_present == (t == "true"),
                _ => false,
            })
        }
        (AppValue::Bits { set, clear, .. }, "mqtt.connect.flags") => any(&|p| match &p.body {
            Body::Connect(c) => bits(u32::from(c.flags), *set, *clear),
            _ => false,
        }),
        _ => return false,
    };
    hit != opt.negated
}

/// Whether packet type `kind` has the name `name` (`PUBLISH`, any case; 0 and the
/// reserved types are `UNASSIGNED`).
fn type_is(kind: u8, name: &str) -> bool {
    super::log::type_name(kind).map_or(name.eq_ignore_ascii_case("unassigned"), |n| {
        n.eq_ignore_ascii_case(name)
    })
}

/// Every bit of `set` set and every bit of `clear` clear in `v`.
fn bits(v: u32, set: u32, clear: u32) -> bool {
    v & set == set && v & clear == 0
}

/// The reason codes a packet carries: a CONNACK's return code, a SUBACK's and an
/// UNSUBACK's codes, an acknowledgement's, a DISCONNECT's or an AUTH's (absent in a
/// short version 5 packet: 0, success; absent before version 5: none).
fn reason_codes(p: &Packet, v5: bool) -> Box<dyn Iterator<Item = u8> + '_> {
    match &p.body {
        Body::Connack { return_code, .. } => Box::new(std::iter::once(*return_code)),
        Body::Suback { qos_granted, .. } => Box::new(qos_granted.iter().copied()),
        Body::Unsuback { reason_codes, .. } => Box::new(reason_codes.iter().flatten().copied()),
        Body::Ack { reason_code, .. } | Body::Reason { reason_code, .. } => {
            Box::new(reason_code.or(v5.then_some(0)).into_iter())
        }
        _ => Box::new(std::iter::empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::parser::FixedHeader;
    use rules::ast::{AppProto, IntCmp};

    fn opt(name: &'static str, value: AppValue) -> AppOpt {
        AppOpt {
            name,
            protos: &[AppProto::Mqtt],
            negated: false,
            value,
        }
    }

    fn packet(kind: u8, flags: u8, body: Body) -> Packet {
        Packet {
            header: FixedHeader {
                kind,
                flags,
                remaining: 0,
                len: 2,
            },
            body,
        }
    }

    fn check_ts(t: &MqttTx, o: &AppOpt) -> bool {
        check(t, o, Direction::ToServer)
    }

    fn tx(packets: Vec<Packet>, version: u8) -> MqttTx {
        MqttTx {
            id: 0,
            dir: crate::Direction::ToServer,
            packets,
            complete: true,
            events: Default::default(),
            version,
        }
    }

    #[test]
    fn type_flags_qos_and_version() {
        let publish = Body::Publish {
            topic: b"t".to_vec(),
            message_id: Some(1),
            message: vec![],
            properties: vec![],
        };
        let ack = Body::Ack {
            message_id: 1,
            reason_code: None,
            properties: vec![],
        };
        // PUBLISH QoS 1 with RETAIN, then its PUBACK.
        let t = tx(vec![packet(3, 0b0011, publish), packet(4, 0, ack)], 5);
        assert!(check_ts(
            &t,
            &opt("mqtt.type", AppValue::Text("PUBLISH".into()))
        ));
        assert!(check_ts(
            &t,
            &opt("mqtt.type", AppValue::Text("PUBACK".into()))
        ));
        assert!(!check_ts(
            &t,
            &opt("mqtt.type", AppValue::Text("CONNECT".into()))
        ));
        let flags = |set, clear| AppValue::Bits {
            set,
            clear,
            text: String::new(),
        };
        assert!(check_ts(&t, &opt("mqtt.flags", flags(1, 8))));
        assert!(!check_ts(&t, &opt("mqtt.flags", flags(8, 0))));
        let ints = |n| AppValue::Ints(vec![IntCmp::Eq(n)]);
        assert!(check_ts(&t, &opt("mqtt.qos", ints(1))));
        assert!(check_ts(&t, &opt("mqtt.qos", ints(0))), "the PUBACK's");
        assert!(!check_ts(&t, &opt("mqtt.qos", ints(2))));
        assert!(check_ts(&t, &opt("mqtt.reason_code", ints(0))));
        // The first code decides: PUBREC 0x10, then a PUBCOMP with its code left out.
        let rec = |kind, code| {
            let b = Body::Ack {
                message_id: 1,
                reason_code: code,
                properties: vec![],
            };
            packet(kind, 0, b)
        };
        let pubq2 = Body::Publish {
            topic: b"t".to_vec(),
            message_id: Some(1),
            message: vec![],
            properties: vec![],
        };
        let q2 = tx(
            vec![packet(3, 4, pubq2), rec(5, Some(0x10)), rec(7, None)],
            5,
        );
        assert!(!check_ts(&q2, &opt("mqtt.reason_code", ints(0))));
        assert!(check_ts(&q2, &opt("mqtt.reason_code", ints(0x10))));
        assert!(check_ts(&t, &opt("mqtt.protocol_version", ints(5))));
        let gt = AppValue::Ints(vec![IntCmp::Gt(5)]);
        assert!(!check_ts(&t, &opt("mqtt.protocol_version", gt)));
        let mut neg = opt("mqtt.type", AppValue::Text("CONNECT".into()));
        neg.negated = true;
        assert!(check_ts(&t, &neg));
    }

    #[test]
    fn connack_and_connect_flags() {
        let connack = Body::Connack {
            session_present: true,
            return_code: 5,
            properties: vec![],
        };
        let t = tx(vec![packet(2, 0, connack)], 0);
        let text = |s: &str| AppValue::Text(s.into());
        assert!(check_ts(
            &t,
            &opt("mqtt.connack.session_present", text("true"))
        ));
        assert!(!check_ts(
            &t,
            &opt("mqtt.connack.session_present", text("false"))
        ));
        let five = AppValue::Ints(vec![IntCmp::Eq(5)]);
        assert!(check_ts(&t, &opt("mqtt.reason_code", five)));
        let any_version = AppValue::Ints(vec![IntCmp::Ge(0)]);
        assert!(!check_ts(&t, &opt("mqtt.protocol_version", any_version)));
        let flags = AppValue::Bits {
            set: 0x02,
            clear: 0,
            text: "clean_session".into(),
        };
        assert!(!check_ts(&t, &opt("mqtt.connect.flags", flags)));
    }

    #[test]
    fn a_transaction_is_inspected_in_its_own_direction_only() {
        let t = tx(vec![packet(12, 0, Body::Ping)], 4);
        let mut o = opt("mqtt.type", AppValue::Text("PINGREQ".into()));
        assert!(check(&t, &o, Direction::ToServer));
        assert!(!check(&t, &o, Direction::ToClient));
        o.negated = true;
        assert!(!check(&t, &o, Direction::ToClient));
        let mut open = t.clone();
        open.complete = false;
        o.negated = false;
        assert!(!check(&open, &o, Direction::ToServer));
        assert_eq!(option_direction("mqtt.qos"), Some(Direction::ToServer));
        assert_eq!(
            option_direction("mqtt.connack.session_present"),
            Some(Direction::ToClient)
        );
        assert_eq!(option_direction("mqtt.type"), None);
    }
}

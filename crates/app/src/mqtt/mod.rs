//! MQTT 3.1.1 and 5.0 over TCP: control packets, transactions grouped as Suricata 7
//! groups them, the `mqtt` EVE object, the `mqtt.*` buffers and Suricata's MQTT
//! app-layer events. Suricata 7 takes a TCP flow on port 1883 for MQTT when its first
//! bytes are a well-formed control packet (a CONNECT naming `MQTT` or `MQIsdp`).
//!
//! - [`parser`]: fixed header, packet bodies, version 5 properties;
//! - [`state`]: the per-flow state ([`MqttState`]) and transactions ([`MqttTx`]);
//! - `proto`: the protocol contract and buffers; [`log`]: the EVE object;
//! - `keywords`: the `mqtt.*` transaction keywords (`mqtt.type`, `mqtt.flags` ...).

mod keywords;
pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub use keywords::option_direction;
pub(crate) use proto::{new_state, BUFFERS};
pub use state::{MqttState, MqttTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;
use parser::{fixed_header, Header};

/// MQTT's application-layer events, as Suricata names them.
pub(crate) static EVENTS: &[&str] = &[
    "mqtt.missing_connect",
    "mqtt.missing_publish",
    "mqtt.missing_subscribe",
    "mqtt.missing_unsubscribe",
    "mqtt.double_connect",
    "mqtt.unintroduced_message",
    "mqtt.invalid_qos_level",
    "mqtt.missing_msg_id",
    "mqtt.unassigned_msg_type",
    "mqtt.too_many_transactions",
    "mqtt.malformed_traffic",
];

/// `mqtt.missing_connect`: a CONNACK with no CONNECT before it.
pub(crate) const MISSING_CONNECT: usize = 0;
/// `mqtt.missing_publish`: a PUBACK/PUBREC/PUBREL/PUBCOMP with no PUBLISH.
pub(crate) const MISSING_PUBLISH: usize = 1;
/// `mqtt.missing_subscribe`: a SUBACK with no SUBSCRIBE.
pub(crate) const MISSING_SUBSCRIBE: usize = 2;
/// `mqtt.missing_unsubscribe`: an UNSUBACK with no UNSUBSCRIBE.
pub(crate) const MISSING_UNSUBSCRIBE: usize = 3;
/// `mqtt.double_connect`: a second CONNECT.
pub(crate) const DOUBLE_CONNECT: usize = 4;
/// `mqtt.unintroduced_message`: a packet after the CONNECT, before its CONNACK.
pub(crate) const UNINTRODUCED_MESSAGE: usize = 5;
/// `mqtt.invalid_qos_level`: a PUBLISH with QoS 3.
pub(crate) const INVALID_QOS_LEVEL: usize = 6;
/// `mqtt.unassigned_msg_type`: a packet of a reserved type.
pub(crate) const UNASSIGNED_MSG_TYPE: usize = 8;
/// `mqtt.malformed_traffic`: a packet that does not parse.
pub(crate) const MALFORMED_TRAFFIC: usize = 10;

/// Probes the first bytes of a TCP direction: a CONNECT naming `MQTT` or `MQIsdp`, or
/// the fixed header of any other assigned packet type with valid flags (either
/// direction: Suricata also takes a flow whose capture starts after the CONNECT).
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    let h = match fixed_header(data) {
        Header::Ok(h) => h,
        Header::Incomplete => return Probe::NeedMore,
        Header::Malformed => return Probe::NoMatch,
    };
    match h.kind {
        1 => {
            let b = &data[h.len..];
            if b.len() < 8 {
                return Probe::NeedMore;
            }
            if h.flags == 0 && (b.starts_with(b"\x00\x04MQTT") || b.starts_with(b"\x00\x06MQIsdp"))
            {
                Probe::Match(AppProto::Mqtt)
            } else {
                Probe::NoMatch
            }
        }
        3 if h.qos() < 3 && h.remaining <= state::MAX_MSG_LEN => Probe::Match(AppProto::Mqtt),
        // The other types' flags are fixed: 0010 for PUBREL, SUBSCRIBE and UNSUBSCRIBE.
        2..=14 if h.flags == u8::from(matches!(h.kind, 6 | 8 | 10)) << 1 => {
            Probe::Match(AppProto::Mqtt)
        }
        _ => Probe::NoMatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes() {
        let connect = b"\x10\x0e\x00\x04MQTT\x04\x02\x00\x3c\x00\x02P1";
        assert_eq!(
            probe_tcp(Direction::ToServer, connect),
            Probe::Match(AppProto::Mqtt)
        );
        assert_eq!(
            probe_tcp(Direction::ToServer, &connect[..5]),
            Probe::NeedMore
        );
        assert_eq!(
            probe_tcp(Direction::ToServer, b"GET / HTTP/1.1\r\n"),
            Probe::NoMatch
        );
        assert_eq!(
            probe_tcp(Direction::ToClient, b"\x20\x02\x00\x00"),
            Probe::Match(AppProto::Mqtt)
        );
        // A SUBSCRIBE first (sv-ether.pcap, port 60105); reserved types are not MQTT.
        let sub = b"\x82\x16\x00\x01\x00\x11house/bulbs/bulb1\x01";
        assert_eq!(
            probe_tcp(Direction::ToServer, sub),
            Probe::Match(AppProto::Mqtt)
        );
        assert_eq!(probe_tcp(Direction::ToServer, b"\x00\x00"), Probe::NoMatch);
    }
}

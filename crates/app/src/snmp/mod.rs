//! SNMP v1, v2c and v3 over UDP ports 161 and 162, parsed with rusticata's
//! `snmp-parser`: each message is one transaction, logged as Suricata's `snmp` record.
//!
//! - [`parser`]: the fields logged and matched;
//! - [`state`]: the per-flow state ([`SnmpState`]) and transactions ([`SnmpTx`]);
//! - `proto`: buffers, events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS, EVENTS, MALFORMED_DATA};
pub use state::{SnmpState, SnmpTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes a UDP payload: a whole SNMP message.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    if payload.first() == Some(&0x30) && parser::parse_message(payload).is_some() {
        Probe::Match(AppProto::Snmp)
    } else {
        Probe::NoMatch
    }
}

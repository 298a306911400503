//! Kerberos 5 (RFC 4120) over UDP and TCP port 88: AS and TGS requests and replies and
//! KRB-ERROR messages, parsed with rusticata's `kerberos-parser`; each message is one
//! transaction, logged as Suricata's `krb5` record.
//!
//! Suricata probes port 88 for a DER message with a Kerberos application tag (over
//! TCP after the 4-byte record length).
//!
//! - [`parser`]: message types and the fields logged, encryption type names;
//! - [`state`]: the per-flow state ([`Krb5State`]) and transactions ([`Krb5Tx`]);
//! - `proto`: buffers, events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS, EVENTS, MALFORMED_DATA, WEAK_ENCRYPTION};
pub use state::{Krb5State, Krb5Tx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Whether `data` starts a DER message with a Kerberos application tag Suricata
/// detects (AS/TGS request or reply, error) and a plausible length.
fn probe_der(data: &[u8]) -> Probe {
    match parser::app_tag(data) {
        None if data.is_empty() => Probe::NeedMore,
        Some(
            parser::AS_REQ | parser::AS_REP | parser::TGS_REQ | parser::TGS_REP | parser::ERROR,
        ) => match data.get(1) {
            None => Probe::NeedMore,
            // Definite lengths only: short form, or 1 to 4 length bytes.
            Some(&l) if l < 0x80 || (0x81..=0x84).contains(&l) => Probe::Match(AppProto::Krb5),
            Some(_) => Probe::NoMatch,
        },
        _ => Probe::NoMatch,
    }
}

/// Probes a TCP direction: a 4-byte record length, then a Kerberos message.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    if data.len() < 4 {
        return Probe::NeedMore;
    }
    let len = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
    if len & 0x8000_0000 != 0 || len < 2 {
        return Probe::NoMatch;
    }
    probe_der(&data[4..])
}

/// Probes a UDP payload for a Kerberos message.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    match probe_der(payload) {
        Probe::NeedMore => Probe::NoMatch,
        p => p,
    }
}

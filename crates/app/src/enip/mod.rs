//! EtherNet/IP (ENIP) over TCP and UDP port 44818: the 24-byte encapsulation header
//! (command, length, session handle, status, sender context, options) and its data;
//! each encapsulated message, in either direction, is one transaction, as Suricata
//! counts them. Suricata 7 writes no EVE record for ENIP; rules match its
//! transactions with `enip_command`.
//!
//! Off unless `app-layer.protocols.enip.enabled: yes` (as in Suricata's stock
//! configuration).
//!
//! - [`parser`]: the encapsulation header; [`state`]: the per-flow state
//!   ([`EnipState`]) and transactions ([`EnipTx`]); `proto`: the protocol contract.

pub mod cip;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, EVENTS};
pub use state::{EnipState, EnipTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Whether `data` starts with an encapsulation header of a known command.
fn probe(data: &[u8]) -> Probe {
    match parser::header(data) {
        None => Probe::NeedMore,
        Some(h) if parser::known_command(h.command) => Probe::Match(AppProto::Enip),
        Some(_) => Probe::NoMatch,
    }
}

/// Probes a TCP direction.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    probe(data)
}

/// Probes a UDP payload.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    match probe(payload) {
        Probe::NeedMore => Probe::NoMatch,
        p => p,
    }
}

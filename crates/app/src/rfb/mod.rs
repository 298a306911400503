//! RFB (VNC, RFC 6143) over TCP: the handshake (protocol versions, security types,
//! VNC authentication, security result, ClientInit and ServerInit) as the flow's one
//! transaction, logged as Suricata's `rfb` record.
//!
//! Suricata probes ports 5900 to 5909 for the `RFB xxx.yyy\n` version line.
//!
//! - [`parser`]: the version line and ServerInit;
//! - [`state`]: the per-flow handshake ([`RfbState`], [`RfbTx`]);
//! - `proto`: buffers, events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{
    new_state, BUFFERS, CONFUSED_STATE, EVENTS, MALFORMED_MESSAGE, UNIMPLEMENTED_SECURITY_TYPE,
    UNKNOWN_SECURITY_RESULT,
};
pub use state::{RfbState, RfbTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// The ports Suricata's stock configuration probes (`detection-ports: dp`).
pub(crate) const PORTS: &[u16] = &[5900, 5901, 5902, 5903, 5904, 5905, 5906, 5907, 5908, 5909];

/// Probes the first bytes of a TCP direction for the version line.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    if data.len() < 12 {
        return if b"RFB ".starts_with(&data[..data.len().min(4)]) {
            Probe::NeedMore
        } else {
            Probe::NoMatch
        };
    }
    match parser::version(&data[..12]) {
        Some(_) => Probe::Match(AppProto::Rfb),
        None => Probe::NoMatch,
    }
}

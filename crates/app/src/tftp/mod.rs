//! TFTP (RFC 1350) over UDP port 69, as Suricata 7 sees it: each read or write
//! request is a transaction, logged as `tftp` `{packet, file, mode}`. The transfer
//! (DATA/ACK) runs between other ports; Suricata does not follow it there.
//!
//! - [`parser`]: requests and the other packets' headers;
//! - [`state`]: the per-flow state ([`TftpState`]), transactions ([`TftpTx`]), the
//!   protocol contract and the EVE object.

pub mod parser;
pub mod state;

pub(crate) use state::new_state;
pub use state::{TftpState, TftpTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes a UDP payload: a read or write request going to the server.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    if dir == Direction::ToServer && parser::parse_request(payload).is_some() {
        Probe::Match(AppProto::Tftp)
    } else {
        Probe::NoMatch
    }
}

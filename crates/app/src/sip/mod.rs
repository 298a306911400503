//! SIP over UDP (RFC 3261), as Suricata 7.0 parses it: a datagram is one message and
//! one transaction, a request travelling to the server or a response travelling to the
//! client, logged as a `sip` EVE record and inspected through the `sip.*` buffers.
//! Suricata 7.0 takes a UDP flow on port 5060/5061 for SIP when its first datagram is
//! such a message (it has no SIP over TCP).
//!
//! - [`parser`]: start lines and header lines;
//! - [`state`]: the per-flow state ([`SipState`]) and transactions ([`SipTx`]);
//! - `proto`: the protocol contract and the buffers; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS};
pub use state::{SipState, SipTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

pub use parser::{is_request, is_response};

/// Probes a UDP payload for SIP: a request to the server or a response to the client.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    let ok = match dir {
        Direction::ToServer => is_request(payload),
        Direction::ToClient => is_response(payload),
    };
    if ok {
        Probe::Match(AppProto::Sip)
    } else {
        Probe::NoMatch
    }
}

//! IKE (ISAKMP, RFC 2408/2409; IKEv2, RFC 7296) over UDP ports 500 and 4500 (after
//! the 4-byte non-ESP marker of RFC 3948): each message is one transaction, logged as
//! Suricata's `ike` record. IKEv1 payloads are read here, IKEv2 ones with rusticata's
//! `ipsec-parser`.
//!
//! - [`parser`]: the ISAKMP header, IKEv1 payloads and attribute names;
//! - [`v2`]: IKEv2 payloads and Suricata's checks of proposed transforms;
//! - [`state`]: the per-flow state ([`IkeState`]) and transactions ([`IkeTx`]);
//! - `proto`: buffers, events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;
pub mod v2;

pub(crate) use proto::{new_state, BUFFERS, EVENTS, MALFORMED_DATA, MULTIPLE_SERVER_PROPOSAL};
pub use state::{IkeState, IkeTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// The message in a datagram: past the non-ESP marker (four zero bytes) when there is
/// one, and `natt` is set (the flow runs over port 4500). `None` for what is not IKE
/// there: a one-byte NAT keepalive, or once `natt` is set, an ESP packet (no marker).
pub(crate) fn strip_marker<'a>(data: &'a [u8], natt: &mut bool) -> Option<&'a [u8]> {
    match data {
        [0xff] => None,
        // A whole message whose initiator SPI starts with four zero bytes.
        _ if !*natt && plausible(data) => Some(data),
        [0, 0, 0, 0, rest @ ..] => {
            *natt = true;
            Some(rest)
        }
        _ if *natt => None,
        _ => Some(data),
    }
}

/// Whether `data` starts with an IKE header Suricata would take: version 1.0 or 2.0,
/// the length field covering exactly the datagram and, for IKEv2, an exchange type
/// from IKE_SA_INIT to INFORMATIONAL. An initiator SPI of zeros is taken too (Suricata
/// 7.0.10 detects such an exchange: found by the differential harness's `ike` family).
fn plausible(data: &[u8]) -> bool {
    let Some(h) = parser::header(data) else {
        return false;
    };
    h.minor == 0
        && h.length as usize == data.len()
        && match h.major {
            1 => true,
            2 => (34..=37).contains(&h.exchange_type),
            _ => false,
        }
}

/// Probes a UDP payload for an IKE message (after a non-ESP marker if any).
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    let data = match payload {
        [0, 0, 0, 0, rest @ ..] if !plausible(payload) => rest,
        _ => payload,
    };
    if plausible(data) {
        Probe::Match(AppProto::Ike)
    } else {
        Probe::NoMatch
    }
}

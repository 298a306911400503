//! NFS v2, v3 and v4 over ONC RPC ([`crate::rpc`]), on TCP (record marking) and UDP,
//! port 2049, as Suricata 7 sees it: each v2/v3 call is a transaction matched with its
//! reply by xid and logged once answered (NULL and GETATTR are not logged); READ and
//! WRITE data (v4: inside COMPOUNDs) goes into one file transaction per handle; file
//! handles get names from LOOKUP, CREATE and READDIRPLUS replies.
//!
//! - [`parser`]: procedure arguments and results, names of procedures and statuses;
//! - [`state`]: the per-flow state ([`NfsState`]) and transactions ([`NfsTx`]);
//! - `proto`: the protocol contract; [`log`]: the `nfs` and `rpc` EVE objects.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS};
pub use state::{NfsState, NfsTx};

use crate::detect::{AppProto, Probe};
use crate::rpc::{parse_message, Message};
use crate::Direction;

/// NFS's application-layer events (Suricata's `nfs-events.rules`).
pub(crate) static EVENTS: &[&str] = &["nfs.malformed_data", "nfs.too_many_transactions"];

/// The index in [`EVENTS`] of `nfs.malformed_data`.
pub(crate) const MALFORMED_DATA: usize = 0;
/// The index in [`EVENTS`] of `nfs.too_many_transactions`.
pub(crate) const TOO_MANY_TRANSACTIONS: usize = 1;

/// Whether `m` is an NFS call (program 100003, version 2 to 4) going to the server, or
/// an accepted reply going to the client.
fn probe_message(dir: Direction, m: &[u8]) -> bool {
    match (parse_message(m), dir) {
        (Some(Message::Call(c)), Direction::ToServer) => {
            c.prog == state::PROGRAM && (2..=4).contains(&c.vers)
        }
        (Some(Message::Reply(r)), Direction::ToClient) => r.accepted,
        _ => false,
    }
}

/// Probes the first bytes of a TCP direction: a record mark, then an RPC message (a
/// message longer than what arrived is judged by its first 40 bytes).
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    if data.len() < 4 + 40 {
        return Probe::NeedMore;
    }
    let len = (u32::from_be_bytes([data[0], data[1], data[2], data[3]]) & 0x7fff_ffff) as usize;
    let m = &data[4..data.len().min(4 + len)];
    let whole = data.len() >= 4 + len;
    let ok = if whole {
        probe_message(dir, m)
    } else {
        // The call header up to the credential is enough to tell.
        dir == Direction::ToServer
            && m[4..8] == [0, 0, 0, 0]
            && m[8..12] == [0, 0, 0, 2]
            && m[12..16] == state::PROGRAM.to_be_bytes()
    };
    if ok {
        Probe::Match(AppProto::Nfs)
    } else {
        Probe::NoMatch
    }
}

/// Shortest datagram that decides: as Suricata, a UDP flow holding only the NULL
/// procedure's 40-byte call and 24-byte reply stays undetected (sv-ether.pcap has two).
const MIN_DATAGRAM: usize = 44;

/// Probes a UDP payload for an NFS RPC message of at least [`MIN_DATAGRAM`] bytes.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    if payload.len() >= MIN_DATAGRAM && probe_message(dir, payload) {
        Probe::Match(AppProto::Nfs)
    } else {
        Probe::NoMatch
    }
}

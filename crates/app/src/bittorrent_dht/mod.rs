//! BitTorrent DHT (BEP 5) over UDP: KRPC queries, responses and errors, bencoded; each
//! message is one transaction, logged as Suricata's `bittorrent_dht` record.
//!
//! - [`bencode`]: a bounded bencode reader;
//! - [`message`]: the DHT message and its fields;
//! - [`state`]: the per-flow state ([`DhtState`]) and transactions ([`DhtTx`]);
//! - `proto`: events and the protocol contract; [`log`]: the EVE object.

pub mod bencode;
pub mod log;
pub mod message;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, EVENTS, MALFORMED_PACKET};
pub use state::{DhtState, DhtTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes a UDP payload: a dictionary whose first key is a query's arguments (`a`), a
/// response (`r`), an error (`e`, a list) or the `ip` some nodes put first.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    const STARTS: [&[u8]; 4] = [b"d1:ad", b"d1:rd", b"d2:ip", b"d1:el"];
    if STARTS.iter().any(|s| payload.starts_with(s)) {
        Probe::Match(AppProto::BittorrentDht)
    } else {
        Probe::NoMatch
    }
}

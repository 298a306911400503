//! DNS over UDP (one message per datagram) and TCP (messages with a 2-byte length
//! prefix), as Suricata's DNS parser sees it: every message, request or response, is
//! one transaction; `dns.query` is each question name of a request.
//!
//! - [`parser`]: zero-copy message parsing with bounded name decompression;
//! - [`state`]: per-flow state ([`DnsState`]) and transactions ([`DnsTx`]);
//! - `proto`: the buffer table and the protocol contract;
//! - [`log`]: the EVE `dns` objects (v2 `query` and `answer`).

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS, EVENTS, INVALID_OPCODE, MALFORMED_DATA, Z_FLAG_SET};

pub use parser::{rcode_name, rrtype_name, DnsAnswer, DnsHeader, DnsMessage, DnsQuery, RData};
pub use state::{DnsState, DnsTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes the first bytes of a TCP direction for a DNS message after its 2-byte
/// length: a whole message must have a first question that parses or is cut short; a
/// partial one is judged by its header alone (see [`parser::probe_header`]).
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    if data.len() < 2 + 12 {
        return Probe::NeedMore;
    }
    let len = usize::from(u16::from_be_bytes([data[0], data[1]]));
    let msg = &data[2..data.len().min(2 + len)];
    let complete = data.len() >= 2 + len;
    if len >= 12 && parser::probe_header(msg, dir, complete, len) {
        Probe::Match(AppProto::Dns)
    } else {
        Probe::NoMatch
    }
}

/// Probes a UDP payload for a DNS message.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    if parser::probe_header(payload, dir, true, payload.len()) {
        Probe::Match(AppProto::Dns)
    } else {
        Probe::NoMatch
    }
}

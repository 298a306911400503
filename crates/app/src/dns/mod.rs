//! DNS over UDP (one message per datagram) and TCP (messages with a 2-byte length
//! prefix), as Suricata's DNS parser sees it: every message, request or response, is
//! one transaction; `dns.query` is each question name of a request.
//!
//! - [`parser`]: zero-copy message parsing with bounded name decompression;
//! - [`state`]: per-flow state ([`DnsState`]) and transactions ([`DnsTx`]).

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS};

pub use parser::{rcode_name, rrtype_name, DnsAnswer, DnsHeader, DnsMessage, DnsQuery, RData};
pub use state::{DnsState, DnsTx};

//! DHCP (RFC 2131) over UDP ports 67 and 68: the BOOTP header and options of each
//! message; each message is one transaction; DHCPACKs are logged as Suricata's `dhcp`
//! record with its stock `extended: no`.
//!
//! - [`parser`]: the header and options;
//! - [`state`]: the per-flow state ([`DhcpState`]) and transactions ([`DhcpTx`]);
//! - `proto`: events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, EVENTS, MALFORMED_OPTIONS, TRUNCATED_OPTIONS};
pub use state::{DhcpState, DhcpTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes a UDP payload: a BOOTP header with `op` 1 or 2 and the DHCP magic cookie.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    if parser::looks_like_dhcp(payload) {
        Probe::Match(AppProto::Dhcp)
    } else {
        Probe::NoMatch
    }
}

//! SSH (RFC 4253) up to the start of encryption: each side's identification line
//! (protocol and software version), its binary packets in the clear, its KEXINIT
//! (HASSH and HASSH-server fingerprints) and its NEWKEYS. Once both sides sent NEWKEYS
//! the session is encrypted and the parser reads nothing more
//! ([`SshState::encrypted`]), as Suricata 7 stops there.
//!
//! Suricata takes a TCP flow for SSH on any port when a side's first bytes are `SSH-`.
//!
//! - [`parser`]: identification lines, packet headers, KEXINIT and HASSH;
//! - [`state`]: the per-flow state ([`SshState`], also its one transaction);
//! - `proto`: buffers, events and the protocol contract; [`log`]: the EVE object.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS, EVENTS, INVALID_BANNER, INVALID_RECORD, LONG_BANNER};
pub use state::{SshSide, SshState};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Probes the first bytes of either direction for `SSH-`.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    let n = data.len().min(parser::BANNER_PREFIX.len());
    if data[..n] != parser::BANNER_PREFIX[..n] {
        Probe::NoMatch
    } else if n < parser::BANNER_PREFIX.len() {
        Probe::NeedMore
    } else {
        Probe::Match(AppProto::Ssh)
    }
}

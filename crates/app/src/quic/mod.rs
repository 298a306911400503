//! QUIC over UDP as Suricata 7 parses it: IETF QUIC (v1 and drafts) whose Initial
//! packets are decrypted with the version's public keys to read the TLS ClientHello
//! and ServerHello (SNI, extensions, JA3/JA3S), and Google QUIC (`Q0xx`) whose
//! client hello (CHLO) gives the SNI, the user agent and the CYU fingerprint. Suricata
//! probes UDP port 443 for a long header with a version it knows.
//!
//! - [`header`]: packet headers and variable-length integers;
//! - [`crypto`]: Initial keys, header protection, AEAD;
//! - [`frames`]: Initial frames (CRYPTO) and Google QUIC's CHLO;
//! - [`hello`]: the TLS hellos, their extensions and fingerprints;
//! - [`state`]: the per-flow state ([`QuicState`]) and transactions ([`QuicTx`]);
//! - `proto`: the protocol contract and buffers; [`log`]: the EVE object.

pub mod crypto;
pub mod frames;
pub mod header;
pub mod hello;
pub mod log;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS};
pub use state::{QuicState, QuicTx};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// QUIC's application-layer events, as Suricata names them.
pub(crate) static EVENTS: &[&str] = &[
    "quic.failed_decrypt",
    "quic.error_on_data",
    "quic.crypto_frag_too_long",
];

/// `quic.failed_decrypt`: an Initial packet that does not open with the Initial keys.
pub(crate) const FAILED_DECRYPT: usize = 0;
/// `quic.error_on_data`: decrypted frames or a hello that do not parse.
pub(crate) const ERROR_ON_DATA: usize = 1;
/// `quic.crypto_frag_too_long`: CRYPTO frames reaching past what is kept.
pub(crate) const CRYPTO_FRAG_TOO_LONG: usize = 2;

/// Probes a UDP payload: a long header (or Google QUIC public header) with a version
/// Suricata knows, either direction.
pub(crate) fn probe_udp(_dir: Direction, payload: &[u8]) -> Probe {
    match header::parse(payload) {
        header::Parsed::Long(h) if header::is_known(h.version) => Probe::Match(AppProto::Quic),
        _ => Probe::NoMatch,
    }
}

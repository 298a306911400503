//! TLS handshake inspection: ClientHello (SNI, versions), ServerHello (negotiated
//! version) and the server's Certificate message (subject and issuer of the first
//! certificate, and the DER bytes of every certificate for `tls.certs`) while they travel
//! in the clear.
//!
//! - [`parser`]: zero-copy record and handshake message parsers;
//! - [`state`]: per-flow record/handshake reassembly ([`TlsState`]);
//! - `probe`: protocol detection (record headers);
//! - `proto`: the buffer table and the protocol contract (the session is one
//!   pseudo-transaction);
//! - [`log`]: the EVE `tls` object.

pub mod log;
pub mod parser;
mod probe;
mod proto;
pub mod state;

pub(crate) use probe::probe;
pub(crate) use proto::{new_state, BUFFERS};

pub use parser::version_name;
pub use state::TlsState;

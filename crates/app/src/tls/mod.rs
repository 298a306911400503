//! TLS handshake inspection: ClientHello (SNI, versions), ServerHello (negotiated
//! version) and the server's Certificate message (subject and issuer of the first
//! certificate, and the DER bytes of every certificate for `tls.certs`) while they travel
//! in the clear.
//!
//! - [`parser`]: zero-copy record and handshake message parsers;
//! - [`cert`]: the logged facts of a certificate (serial, fingerprint, validity);
//! - [`ja3`]: the JA3/JA3S fingerprints of the hellos; [`ja4`]: the ClientHello's JA4;
//! - `keywords`: `tls.version`, `ssl_version`, `ssl_state` and the certificate
//!   keywords, matched on the session;
//! - [`state`]: per-flow record/handshake reassembly ([`TlsState`]);
//! - `probe`: protocol detection (record headers);
//! - `proto`: the buffer table and the protocol contract (the session is one
//!   pseudo-transaction);
//! - [`log`]: the EVE `tls` object.

pub mod cert;
pub mod ja3;
pub mod ja4;
mod keywords;
pub mod log;
pub mod parser;
mod probe;
mod proto;
pub mod state;

pub(crate) use probe::probe;
pub(crate) use proto::{new_state, BUFFERS};

pub use parser::version_name;
pub use state::TlsState;

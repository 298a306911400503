//! HTTP/2 over cleartext TCP with prior knowledge (the client starts with the
//! connection preface), parsed into one transaction per stream whose `http.*`
//! buffers are the ones Suricata's generic HTTP keywords inspect on HTTP/2.
//!
//! - [`frame`]: the preface, frame headers and payload layouts;
//! - `huffman`: the HPACK Huffman code;
//! - [`hpack`]: HPACK header decompression with bounded tables;
//! - [`state`]: the per-flow streaming state machine ([`Http2State`]);
//! - `tx`: how a stream's header fields fill an [`HttpTx`](crate::http::HttpTx).

pub mod frame;
pub mod hpack;
mod huffman;
pub mod state;
mod tx;

#[cfg(test)]
mod fuzz_tests;

pub use state::Http2State;

use crate::detect::Probe;
use crate::AppProto;

/// Probes the first bytes of the client direction for the connection preface.
pub(crate) fn probe(data: &[u8]) -> Probe {
    let n = data.len().min(frame::PREFACE.len());
    if data[..n] != frame::PREFACE[..n] {
        Probe::NoMatch
    } else if n == frame::PREFACE.len() {
        Probe::Match(AppProto::Http2)
    } else {
        Probe::NeedMore
    }
}

//! HTTP/2 over cleartext TCP with prior knowledge (the client starts with the
//! connection preface), parsed into one transaction per stream whose `http.*`
//! buffers are the ones Suricata's generic HTTP keywords inspect on HTTP/2.
//!
//! - [`frame`]: the preface, frame headers and payload layouts;
//! - `huffman`: the HPACK Huffman code;
//! - [`hpack`]: HPACK header decompression with bounded tables;
//! - [`state`]: the per-flow streaming state machine ([`Http2State`]);
//! - [`log`]: a stream's EVE `http` object (`version: "2"`, header lists, `http2{}`);
//! - `tx`: how a stream's header fields fill an [`HttpTx`](crate::http::HttpTx);
//! - `keywords`: the `http2.*` transaction keywords.

pub mod frame;
pub mod hpack;
mod huffman;
pub(crate) mod keywords;
pub mod log;
pub mod state;
pub(crate) mod tx;

#[cfg(test)]
mod free_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod long_frame_tests;

pub use state::Http2State;

use crate::detect::Probe;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, Counter, Direction, Transport};

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

/// [`probe`] for the registry: only the client sends the preface.
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    match dir {
        Direction::ToServer => probe(data),
        Direction::ToClient => Probe::NoMatch,
    }
}

/// The state of a new HTTP/2 flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Http2(Box::default()), Counter::FlowHttp2))
}

/// HTTP/2 on the protocol contract: each stream is an HTTP transaction (HTTP's
/// buffers), logged as an EVE `http` record with its `http2` object, as Suricata does.
impl Protocol for Http2State {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        Http2State::parse(self, ctx, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        Http2State::gap(self, ctx, dir)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        Http2State::close(self, ctx)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.tx(id).map(|t| t as &dyn Transaction)
    }

    fn free_txs_before(&mut self, id: u64) {
        Http2State::free_txs_before(self, id)
    }
}

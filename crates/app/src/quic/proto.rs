//! QUIC on the protocol contract: one transaction per long-header packet, complete as
//! it arrives, logged as a `quic` record and inspected through the `quic.*` buffers.

use serde_json::Value;

use super::{QuicState, QuicTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// QUIC's inspection buffers, in the order [`QuicTx::each_buffer`] answers them.
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("quic.sni", Some(Direction::ToServer)),
    BufferDef::new("quic.ua", Some(Direction::ToServer)),
    BufferDef::new("quic.version", None),
    BufferDef::new("quic.cyu.hash", Some(Direction::ToServer)).multi(),
    BufferDef::new("quic.cyu.string", Some(Direction::ToServer)).multi(),
    BufferDef::new("ja3.hash", Some(Direction::ToServer)),
    BufferDef::new("ja3.string", Some(Direction::ToServer)),
    BufferDef::new("ja3s.hash", Some(Direction::ToClient)),
    BufferDef::new("ja3s.string", Some(Direction::ToClient)),
];

/// The state of a new QUIC flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Quic(Box::default()), Counter::FlowQuic))
}

impl Protocol for QuicState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if QuicState::datagram(self, ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        QuicState::events(self).each(super::EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

impl QuicTx {
    /// Calls `f` with each instance of buffer `i` of [`BUFFERS`].
    pub fn each_buffer(&self, i: usize, f: &mut dyn FnMut(&[u8])) {
        match i {
            0 => self.sni.iter().for_each(|s| f(s)),
            1 => self.ua.iter().for_each(|s| f(s)),
            2 if self.version_buffer => f(&self.version.to_be_bytes()),
            3 => self.cyu.iter().for_each(|c| f(c.hash.as_bytes())),
            4 => self.cyu.iter().for_each(|c| f(c.string.as_bytes())),
            5 => self.ja3.iter().for_each(|j| f(j.hash.as_bytes())),
            6 => self.ja3.iter().for_each(|j| f(j.string.as_bytes())),
            7 => self.ja3s.iter().for_each(|j| f(j.hash.as_bytes())),
            8 => self.ja3s.iter().for_each(|j| f(j.string.as_bytes())),
            _ => {}
        }
    }
}

impl Transaction for QuicTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Quic
    }

    /// A QUIC transaction is one packet: complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A QUIC transaction never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    fn buffers(&self, b: BufferId, _dir: Direction, f: &mut dyn FnMut(&[u8])) {
        self.each_buffer(b.local(), f)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::quic_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::quic_object(self)
    }

    /// A server's packet is written server → client, as Suricata writes it.
    fn log_reversed(&self) -> bool {
        self.dir == Direction::ToClient
    }
}

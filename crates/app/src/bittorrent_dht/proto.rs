//! BitTorrent DHT on the protocol contract: each message is a transaction, complete as
//! it arrives and logged then (without a `tx_id`, in the direction it travelled).

use serde_json::Value;

use super::state::{DhtState, DhtTx};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// BitTorrent DHT's application-layer events.
pub(crate) static EVENTS: &[&str] = &["bittorrent-dht.malformed_packet"];

/// A message that is not a DHT message or misses a required field.
pub(crate) const MALFORMED_PACKET: usize = 0;

/// The state of a new DHT flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    match t {
        Transport::Udp => Some((
            AppState::BittorrentDht(Box::default()),
            Counter::FlowBittorrentDht,
        )),
        Transport::Tcp => None,
    }
}

impl Protocol for DhtState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if self.message(ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        DhtState::events(self).each(EVENTS, f)
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

impl Transaction for DhtTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::BittorrentDht
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// No buffers: Suricata 7 has no BitTorrent DHT keywords.
    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::dht_object(&self.msg));
    }

    fn alert_object(&self) -> Value {
        super::log::dht_object(&self.msg)
    }
}

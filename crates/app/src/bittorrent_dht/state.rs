//! BitTorrent DHT's per-flow state: each datagram is one message and one transaction.
//! A message missing a required field is still a transaction (logged as far as it
//! goes), raises `bittorrent-dht.malformed_packet` and counts as a parser error, not as
//! a transaction, as Suricata counts them.

use std::collections::VecDeque;

use super::message::{self, DhtMessage};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// One DHT message.
#[derive(Clone, Debug)]
pub struct DhtTx {
    pub(crate) id: u64,
    /// The message.
    pub msg: DhtMessage,
}

/// The BitTorrent DHT state of one flow.
#[derive(Debug, Default)]
pub struct DhtState {
    txs: VecDeque<DhtTx>,
    next_id: u64,
    events: Events,
}

impl DhtState {
    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &DhtTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// One datagram; `false` when it is not a whole DHT message.
    pub fn message(&mut self, ctx: &mut AppCtx, _dir: Direction, data: &[u8]) -> bool {
        let Some(msg) = message::parse(data) else {
            self.events.raise(super::MALFORMED_PACKET);
            ctx.anomalies
                .parser(AppProto::BittorrentDht, super::EVENTS[0], None);
            ctx.counters.incr(Counter::ErrorBittorrentDht);
            return false;
        };
        let id = self.next_id;
        self.next_id += 1;
        let ok = !msg.malformed;
        if ok {
            ctx.counters.incr(Counter::TxBittorrentDht);
        } else {
            self.events.raise(super::MALFORMED_PACKET);
            ctx.anomalies
                .parser(AppProto::BittorrentDht, super::EVENTS[0], Some(id));
            ctx.counters.incr(Counter::ErrorBittorrentDht);
        }
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(DhtTx { id, msg });
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_message_is_logged_and_counted_as_an_error() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = DhtState::default();
        assert!(s.message(
            &mut ctx,
            Direction::ToServer,
            include_bytes!("testdata/find_node.bin")
        ));
        assert!(!s.message(
            &mut ctx,
            Direction::ToServer,
            include_bytes!("testdata/ping_no_t.bin")
        ));
        assert!(!s.message(&mut ctx, Direction::ToServer, b"d1:a"));
        assert_eq!(s.txs().count(), 2);
        assert_eq!(ctx.counters.get(Counter::TxBittorrentDht), 1);
        assert_eq!(ctx.counters.get(Counter::ErrorBittorrentDht), 2);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.tx_id).collect();
        assert_eq!(got, [Some(1), None]);
    }
}

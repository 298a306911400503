//! DHCP's per-flow state: each datagram is one message and one transaction, as
//! Suricata counts them.

use std::collections::VecDeque;

use super::parser::{self, DhcpMessage};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// One DHCP message.
#[derive(Clone, Debug)]
pub struct DhcpTx {
    pub(crate) id: u64,
    /// The message.
    pub msg: DhcpMessage,
}

/// The DHCP state of one flow.
#[derive(Debug, Default)]
pub struct DhcpState {
    txs: VecDeque<DhcpTx>,
    next_id: u64,
    events: Events,
}

impl DhcpState {
    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &DhcpTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
        self.events.raise(i);
        ctx.anomalies.parser(AppProto::Dhcp, super::EVENTS[i], tx);
    }

    /// One datagram; `false` when it is not a DHCP message (counts the parser
    /// error). Options that run past the end or have the wrong length raise
    /// `dhcp.truncated_options` / `dhcp.malformed_options` on the message.
    pub fn message(&mut self, ctx: &mut AppCtx, _dir: Direction, data: &[u8]) -> bool {
        let Some(msg) = parser::parse_message(data) else {
            ctx.counters.incr(Counter::ErrorDhcp);
            return false;
        };
        let id = self.next_id;
        self.next_id += 1;
        if msg.truncated {
            self.raise(ctx, super::TRUNCATED_OPTIONS, Some(id));
        }
        if msg.malformed {
            self.raise(ctx, super::MALFORMED_OPTIONS, Some(id));
        }
        ctx.counters.incr(Counter::TxDhcp);
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(DhcpTx { id, msg });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_events() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = DhcpState::default();
        let ack = super::super::parser::tests::ACK;
        assert!(s.message(&mut ctx, Direction::ToClient, ack));
        assert!(!s.message(&mut ctx, Direction::ToClient, &ack[..100]));
        let mut bad = ack[..parser::HEADER_LEN + 4].to_vec();
        bad.extend_from_slice(&[53, 1, 5, 58, 2, 0, 0, 12, 50]);
        assert!(s.message(&mut ctx, Direction::ToClient, &bad));
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(
            got,
            [
                ("dhcp.truncated_options", Some(1)),
                ("dhcp.malformed_options", Some(1))
            ]
        );
        assert_eq!(ctx.counters.get(Counter::TxDhcp), 2);
        assert_eq!(ctx.counters.get(Counter::ErrorDhcp), 1);
    }
}

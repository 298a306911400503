//! The per-flow SIP state: one transaction per message, as Suricata 7 keeps them (a
//! request travelling to the server or a response travelling to the client). A datagram
//! that does not parse as the message its direction expects is a parser error
//! (`app_layer.error.sip.parser`; Suricata 7.0 raises no app-layer event for it);
//! unlike a TCP stream, the flow's next datagram is parsed again.

use std::collections::VecDeque;

use super::parser::{parse_request, parse_response, StartLine};
use crate::{AppCtx, Counter, Direction};

/// One SIP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SipTx {
    /// Transaction id, increasing within the flow.
    pub id: u64,
    /// The direction the message travelled.
    pub dir: Direction,
    /// Its start line.
    pub start: StartLine,
}

/// SIP state of one flow.
#[derive(Debug, Default)]
pub struct SipState {
    txs: VecDeque<SipTx>,
    next_id: u64,
}

impl SipState {
    /// Messages (transactions) parsed so far.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &SipTx> {
        self.txs.iter()
    }

    /// One datagram travelling `dir`: `false` when it is not the message its direction
    /// expects (a parser error, counted).
    pub fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> bool {
        let msg = match dir {
            Direction::ToServer => parse_request(payload),
            Direction::ToClient => parse_response(payload),
        };
        let Some(msg) = msg else {
            ctx.counters.incr(Counter::ErrorSip);
            return false;
        };
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxSip);
        self.txs.push_back(SipTx {
            id,
            dir,
            start: msg.start,
        });
        while self.txs.len() > ctx.config.max_tx.max(1) {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVITE: &[u8] =
        b"INVITE sip:francisco@bestel.com:55060 SIP/2.0\r\nCSeq: 1 INVITE\r\n\r\n";
    const OK: &[u8] = b"SIP/2.0 200 Ok\r\nVia: SIP/2.0/UDP 200.57.7.195\r\nCSeq: 1 INVITE\r\n\r\n";

    #[test]
    fn a_message_against_its_direction_is_an_error() {
        let mut ctx = AppCtx::default();
        let mut s = SipState::default();
        assert!(s.datagram(&mut ctx, Direction::ToServer, INVITE));
        assert!(s.datagram(&mut ctx, Direction::ToClient, OK));
        assert!(!s.datagram(&mut ctx, Direction::ToServer, OK));
        assert!(!s.datagram(&mut ctx, Direction::ToClient, INVITE));
        // The next datagram is parsed again.
        assert!(s.datagram(&mut ctx, Direction::ToServer, INVITE));
        assert_eq!(s.tx_count(), 3);
        let ids: Vec<_> = s.txs().map(|t| (t.id, t.dir)).collect();
        assert_eq!(
            ids,
            [
                (0, Direction::ToServer),
                (1, Direction::ToClient),
                (2, Direction::ToServer)
            ]
        );
        assert_eq!(ctx.counters.get(Counter::TxSip), 3);
        assert_eq!(ctx.counters.get(Counter::ErrorSip), 2);
    }

    #[test]
    fn live_transactions_are_bounded() {
        let mut ctx = AppCtx::default();
        ctx.config.max_tx = 4;
        let mut s = SipState::default();
        for _ in 0..10 {
            s.datagram(&mut ctx, Direction::ToServer, INVITE);
        }
        assert_eq!(s.txs().count(), 4);
        assert_eq!(s.txs().next().unwrap().id, 6);
        assert_eq!(ctx.counters.get(Counter::TxLimit), 6);
    }
}

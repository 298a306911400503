//! ENIP's per-flow state: over TCP each direction's bytes are cut into encapsulated
//! messages (header and `length` bytes of data); over UDP each datagram holds them.
//! Every message is a transaction of its own.

use std::collections::VecDeque;

use super::parser::{self, Header, HEADER_LEN};
use crate::{AppCtx, Counter, Direction, Transport};

/// One encapsulated message.
#[derive(Clone, Debug)]
pub struct EnipTx {
    pub(crate) id: u64,
    /// The direction it travelled.
    pub dir: Direction,
    /// Its encapsulation header.
    pub header: Header,
    /// The CIP requests it carries (SendRRData, SendUnitData).
    pub cip: Vec<super::cip::CipService>,
}

/// The ENIP state of one flow.
#[derive(Debug)]
pub struct EnipState {
    transport: Transport,
    txs: VecDeque<EnipTx>,
    next_id: u64,
    buf: [Vec<u8>; 2],
    lost: [bool; 2],
    failed: bool,
    completed: [bool; 2],
}

impl EnipState {
    /// A fresh state over `transport`.
    pub fn new(transport: Transport) -> Self {
        EnipState {
            transport,
            txs: VecDeque::new(),
            next_id: 0,
            buf: Default::default(),
            lost: [false; 2],
            failed: false,
            completed: [false; 2],
        }
    }

    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &EnipTx> {
        self.txs.iter()
    }

    /// Whether the parser failed (TCP: nothing more is parsed).
    pub fn errored(&self) -> bool {
        self.failed
    }

    /// Whether a message of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()])
    }

    fn push(&mut self, ctx: &mut AppCtx, dir: Direction, header: Header, data: &[u8]) {
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        ctx.counters.incr(match self.transport {
            Transport::Tcp => Counter::TxEnipTcp,
            Transport::Udp => Counter::TxEnipUdp,
        });
        let id = self.next_id;
        self.next_id += 1;
        self.completed[dir.index()] = true;
        let cip = super::cip::requests(header.command, data);
        self.txs.push_back(EnipTx {
            id,
            dir,
            header,
            cip,
        });
    }

    /// In-order TCP bytes of one direction (a message is at most 24 + 65,535 bytes,
    /// so the buffer is bounded by the format).
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        if self.failed || self.lost[d] {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf[d]);
        buf.extend_from_slice(data);
        let mut rest: &[u8] = &buf;
        while let Some(h) = parser::header(rest) {
            let len = HEADER_LEN + usize::from(h.length);
            if rest.len() < len {
                break;
            }
            self.push(ctx, dir, h, &rest[HEADER_LEN..len]);
            rest = &rest[len..];
        }
        self.buf[d] = rest.to_vec();
    }

    /// One UDP payload: its messages; `false` (counted as a parser error) when it
    /// does not hold whole messages.
    pub fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, mut payload: &[u8]) -> bool {
        while !payload.is_empty() {
            let Some(h) = parser::header(payload) else {
                break;
            };
            let len = HEADER_LEN + usize::from(h.length);
            if payload.len() < len {
                break;
            }
            self.push(ctx, dir, h, &payload[HEADER_LEN..len]);
            payload = &payload[len..];
        }
        if payload.is_empty() {
            return true;
        }
        ctx.counters.incr(Counter::ErrorEnipUdp);
        false
    }

    /// A hole in one TCP direction: message boundaries are lost, that side is not
    /// read any more.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.buf[dir.index()].clear();
        self.lost[dir.index()] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pdu(command: u16, data: &[u8]) -> Vec<u8> {
        let mut p = command.to_le_bytes().to_vec();
        p.extend_from_slice(&(data.len() as u16).to_le_bytes());
        p.extend_from_slice(&[0; 20]);
        p.extend_from_slice(data);
        p
    }

    #[test]
    fn messages_in_any_split() {
        let mut stream = pdu(0x65, &[1, 0, 0, 0]);
        stream.extend(pdu(0x63, &[]));
        stream.extend(pdu(0x6f, &[0; 30]));
        stream.extend(pdu(0x99, &[0, 0]));
        for step in [1, 5, 24, 4096] {
            let mut ctx = AppCtx::default();
            let mut s = EnipState::new(Transport::Tcp);
            for c in stream.chunks(step) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            let cmds: Vec<u16> = s.txs().map(|t| t.header.command).collect();
            assert_eq!(cmds, [0x65, 0x63, 0x6f, 0x99]);
            assert_eq!(ctx.counters.get(Counter::TxEnipTcp), 4);
        }
    }

    #[test]
    fn datagrams_and_gaps() {
        let mut ctx = AppCtx::default();
        let mut s = EnipState::new(Transport::Udp);
        assert!(s.datagram(&mut ctx, Direction::ToServer, &pdu(0x63, &[])));
        assert!(!s.datagram(&mut ctx, Direction::ToClient, &pdu(0x63, &[1, 2])[..20]));
        assert_eq!(ctx.counters.get(Counter::ErrorEnipUdp), 1);
        assert_eq!(s.txs().count(), 1);
        let mut s = EnipState::new(Transport::Tcp);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &pdu(0x65, &[1, 0, 0, 0])[..10],
        );
        s.gap(&mut ctx, Direction::ToServer);
        s.parse(&mut ctx, Direction::ToServer, &pdu(0x65, &[1, 0, 0, 0]));
        s.parse(&mut ctx, Direction::ToClient, &pdu(0x65, &[1, 0, 0, 0]));
        let dirs: Vec<Direction> = s.txs().map(|t| t.dir).collect();
        assert_eq!(dirs, [Direction::ToClient]);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes(
            a in proptest::collection::vec(any::<u8>(), 0..400),
            step in 1usize..50,
        ) {
            let mut ctx = AppCtx::default();
            let mut s = EnipState::new(Transport::Tcp);
            for c in a.chunks(step) {
                s.parse(&mut ctx, Direction::ToClient, c);
            }
            let mut u = EnipState::new(Transport::Udp);
            u.datagram(&mut ctx, Direction::ToServer, &a);
            prop_assert!(s.buf[1].len() <= HEADER_LEN + 65_535);
        }
    }
}

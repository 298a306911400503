//! Modbus's per-flow state: each direction's bytes are cut into MBAP frames; a
//! request opens a transaction, a response completes the one whose request it
//! matches (transaction id, unit, function), and a response no request asked for is
//! a transaction of its own (`modbus.unsolicited_response`).

use std::collections::VecDeque;

use sawp::error::{Error, ErrorKind};
use sawp::parser::Parse;
use sawp_flags::Flag;
use sawp_modbus::{ErrorFlags, Message, Modbus};

use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// Bytes buffered per direction while a frame is incomplete (a frame is at most
/// 6 + 254 bytes; sawp skips longer declared lengths as malformed).
pub const MAX_BUFFER: usize = 4096;

/// Unanswered requests past which a new one raises `modbus.flooded` (Suricata's
/// default `request-flood`).
pub const REQUEST_FLOOD: usize = 500;

/// One request and its response (either may be missing).
#[derive(Debug)]
pub struct ModbusTx {
    pub(crate) id: u64,
    /// The request.
    pub request: Option<Message>,
    /// The response.
    pub response: Option<Message>,
    /// Events raised on the transaction (indices into [`super::EVENTS`]).
    pub events: Events,
}

impl ModbusTx {
    /// Complete once answered (an unsolicited response is complete at once).
    pub fn complete(&self) -> bool {
        self.response.is_some()
    }
}

/// The Modbus state of one flow.
#[derive(Debug, Default)]
pub struct ModbusState {
    txs: VecDeque<ModbusTx>,
    next_id: u64,
    buf: [Vec<u8>; 2],
    lost: [bool; 2],
    failed: bool,
    events: Events,
    completed: [bool; 2],
}

impl ModbusState {
    /// A fresh state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &ModbusTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the parser failed (nothing more is parsed).
    pub fn errored(&self) -> bool {
        self.failed
    }

    /// Whether a frame of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()])
    }

    /// In-order TCP bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        if self.failed || self.lost[d] {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf[d]);
        buf.extend_from_slice(data);
        let sdir = || match dir {
            Direction::ToServer => sawp::parser::Direction::ToServer,
            Direction::ToClient => sawp::parser::Direction::ToClient,
        };
        let parser = Modbus::default();
        let mut rest: &[u8] = &buf;
        while !rest.is_empty() {
            match parser.parse(rest, sdir()) {
                Ok((r, msg)) => {
                    if r.len() >= rest.len() {
                        // No progress: cannot happen with a frame header read.
                        break;
                    }
                    rest = r;
                    if let Some(msg) = msg {
                        self.completed[d] = true;
                        match dir {
                            Direction::ToServer => self.request(ctx, msg),
                            Direction::ToClient => self.response(ctx, msg),
                        }
                    }
                }
                Err(Error {
                    kind: ErrorKind::Incomplete(_),
                }) => break,
                Err(_) => {
                    self.fail(ctx);
                    return;
                }
            }
        }
        if rest.len() > MAX_BUFFER {
            ctx.counters.incr(Counter::ModbusBufferLimit);
            self.fail(ctx);
            return;
        }
        self.buf[d] = rest.to_vec();
    }

    fn fail(&mut self, ctx: &mut AppCtx) {
        self.failed = true;
        self.buf = Default::default();
        ctx.counters.incr(Counter::ErrorModbus);
    }

    /// A hole in one direction: frame boundaries are lost, that side is not read
    /// any more.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.buf[dir.index()].clear();
        self.lost[dir.index()] = true;
    }

    fn request(&mut self, ctx: &mut AppCtx, msg: Message) {
        let flooded = self.txs.iter().filter(|t| t.response.is_none()).count() >= REQUEST_FLOOD;
        let i = self.push(ctx, Some(msg), None);
        if flooded {
            self.raise(ctx, i, FLOODED);
        }
        self.raise_flags(ctx, i);
    }

    fn response(&mut self, ctx: &mut AppCtx, mut msg: Message) {
        let found = self.txs.iter().position(|t| {
            t.response.is_none() && t.request.as_ref().is_some_and(|r| same_pair(r, &msg))
        });
        match found {
            Some(i) => {
                if let Some(req) = &self.txs[i].request {
                    msg.matches(req);
                }
                self.txs[i].response = Some(msg);
                self.raise_flags(ctx, i);
            }
            None => {
                let i = self.push(ctx, None, Some(msg));
                self.raise(ctx, i, UNSOLICITED_RESPONSE);
                self.raise_flags(ctx, i);
            }
        }
    }

    fn push(
        &mut self,
        ctx: &mut AppCtx,
        request: Option<Message>,
        response: Option<Message>,
    ) -> usize {
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxModbus);
        self.txs.push_back(ModbusTx {
            id,
            request,
            response,
            events: Events::default(),
        });
        self.txs.len() - 1
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize, ev: usize) {
        let tx = &mut self.txs[i];
        if tx.events.has(ev) {
            return;
        }
        tx.events.raise(ev);
        self.events.raise(ev);
        ctx.anomalies
            .parser(AppProto::Modbus, super::EVENTS[ev], Some(tx.id));
    }

    /// The events the error flags of transaction `i`'s messages stand for.
    fn raise_flags(&mut self, ctx: &mut AppCtx, i: usize) {
        let tx = &self.txs[i];
        let both = tx.request.is_some() && tx.response.is_some();
        let mut flags = ErrorFlags::none();
        for m in [&tx.request, &tx.response].into_iter().flatten() {
            flags |= m.error_flags;
        }
        let table = [
            (ErrorFlags::PROTO_ID, INVALID_PROTOCOL_ID),
            (ErrorFlags::FUNC_CODE, INVALID_FUNCTION_CODE),
            (ErrorFlags::DATA_LENGTH, INVALID_LENGTH),
            (ErrorFlags::EXC_CODE, INVALID_EXCEPTION_CODE),
        ];
        for (f, ev) in table {
            if flags.intersects(f) {
                self.raise(ctx, i, ev);
            }
        }
        if flags.intersects(ErrorFlags::DATA_VALUE) {
            self.raise(ctx, i, if both { VALUE_MISMATCH } else { INVALID_VALUE });
        }
    }
}

/// Whether a request and a response belong together.
fn same_pair(a: &Message, b: &Message) -> bool {
    a.transaction_id == b.transaction_id
        && a.unit_id == b.unit_id
        && a.function.code == b.function.code
}

use super::proto::{
    FLOODED, INVALID_EXCEPTION_CODE, INVALID_FUNCTION_CODE, INVALID_LENGTH, INVALID_PROTOCOL_ID,
    INVALID_VALUE, UNSOLICITED_RESPONSE, VALUE_MISMATCH,
};

#[cfg(test)]
mod tests {
    use super::super::log::modbus_object;
    use super::*;
    use proptest::prelude::*;

    /// An MBAP frame: transaction id, protocol 0, length, unit, then the PDU.
    fn frame(tid: u16, unit: u8, pdu: &[u8]) -> Vec<u8> {
        let mut f = tid.to_be_bytes().to_vec();
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&(pdu.len() as u16 + 1).to_be_bytes());
        f.push(unit);
        f.extend_from_slice(pdu);
        f
    }

    /// The exchange of `tests/data/ics/modbus/input.pcap` (written by its
    /// `make_pcaps.py`), frame by frame.
    fn exchange() -> Vec<(Direction, Vec<u8>)> {
        use Direction::{ToClient as C, ToServer as S};
        let regs: Vec<u8> = [3, 20].into_iter().chain(0..20).collect();
        vec![
            (S, frame(1, 1, &[3, 0, 0, 0, 10])),
            (C, frame(1, 1, &regs)),
            (S, frame(2, 1, &[6, 0, 5, 0x12, 0x34])),
            (C, frame(2, 1, &[6, 0, 5, 0x12, 0x34])),
            (S, frame(3, 1, &[16, 0, 10, 0, 2, 4, 0xab, 0xcd, 0, 1])),
            (C, frame(3, 1, &[16, 0, 10, 0, 2])),
            (S, frame(4, 2, &[1, 0, 100, 0, 8])),
            (C, frame(4, 2, &[0x81, 2])),
            (S, frame(5, 1, &[8, 0, 0, 0xa5, 0x37])),
            (C, frame(5, 1, &[8, 0, 0, 0xa5, 0x37])),
            (S, frame(6, 1, &[23, 0, 20, 0, 2, 0, 30, 0, 1, 2, 0, 0x42])),
            (C, frame(6, 1, &[23, 4, 0, 7, 0, 8])),
            (S, frame(7, 1, &[4, 0, 0])),
            (S, frame(8, 1, &[5, 0, 50, 0xff, 0])),
            (C, frame(8, 1, &[5, 0, 50, 0xff, 0])),
            (C, frame(99, 1, &[6, 0, 1, 0, 1])),
        ]
    }

    #[test]
    fn pairs_requests_and_responses_in_any_split() {
        for step in [1, 3, 7, 4096] {
            let mut ctx = AppCtx::default();
            ctx.anomalies.set_enabled(true);
            let mut s = ModbusState::new();
            for (dir, bytes) in exchange() {
                for c in bytes.chunks(step) {
                    s.parse(&mut ctx, dir, c);
                }
            }
            assert!(!s.errored());
            let objects: Vec<String> = s.txs().map(|t| modbus_object(t).to_string()).collect();
            assert_eq!(objects.len(), 9);
            // As Suricata 7.0.10 logs them (expected.jsonl of the case).
            assert_eq!(
                objects[0],
                r#"{"id":1,"request":{"transaction_id":1,"protocol_id":0,"unit_id":1,"function_raw":3,"function_code":"RdHoldRegs","access_type":"READ | HOLDING","category":"PUBLIC_ASSIGNED","error_flags":"NONE","read":{"address":0,"quantity":10}},"response":{"transaction_id":1,"protocol_id":0,"unit_id":1,"function_raw":3,"function_code":"RdHoldRegs","access_type":"READ | HOLDING","category":"PUBLIC_ASSIGNED","error_flags":"DATA_VALUE","read":{"data":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013"}}}"#
            );
            assert_eq!(
                objects[3],
                r#"{"id":4,"request":{"transaction_id":4,"protocol_id":0,"unit_id":2,"function_raw":1,"function_code":"RdCoils","access_type":"READ | COILS","category":"PUBLIC_ASSIGNED","error_flags":"NONE","read":{"address":100,"quantity":8}},"response":{"transaction_id":4,"protocol_id":0,"unit_id":2,"function_raw":129,"function_code":"RdCoils","access_type":"READ | COILS","category":"PUBLIC_ASSIGNED","error_flags":"NONE","exception":{"raw":2,"code":"IllegalDataAddr"}}}"#
            );
            assert_eq!(
                objects[6],
                r#"{"id":7,"request":{"transaction_id":7,"protocol_id":0,"unit_id":1,"function_raw":4,"function_code":"RdInputRegs","access_type":"READ | INPUT","category":"PUBLIC_ASSIGNED","error_flags":"DATA_LENGTH","data":"\u0000\u0000"}}"#
            );
            assert_eq!(
                objects[8],
                r#"{"id":9,"response":{"transaction_id":99,"protocol_id":0,"unit_id":1,"function_raw":6,"function_code":"WrSingleReg","access_type":"WRITE | HOLDING | SINGLE | WRITE_SINGLE","category":"PUBLIC_ASSIGNED","error_flags":"NONE","write":{"address":1,"data":1}}}"#
            );
            let complete: Vec<bool> = s.txs().map(|t| t.complete()).collect();
            assert_eq!(complete.iter().filter(|c| !**c).count(), 1);
            let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
            assert_eq!(
                got,
                [
                    ("modbus.value_mismatch", Some(0)),
                    ("modbus.invalid_length", Some(6)),
                    ("modbus.unsolicited_response", Some(8)),
                ]
            );
            assert_eq!(ctx.counters.get(Counter::TxModbus), 9);
        }
    }

    #[test]
    fn floods_gaps_and_limits() {
        let mut ctx = AppCtx::default();
        let mut s = ModbusState::new();
        for i in 0..=REQUEST_FLOOD as u16 {
            s.parse(
                &mut ctx,
                Direction::ToServer,
                &frame(i, 1, &[3, 0, 0, 0, 1]),
            );
        }
        assert!(s.events().has(FLOODED));
        assert_eq!(s.txs().filter(|t| t.events.has(FLOODED)).count(), 1);
        // A gap ends parsing of that side only.
        s.gap(&mut ctx, Direction::ToServer);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &frame(1000, 1, &[3, 0, 0, 0, 1]),
        );
        assert_eq!(s.txs().count(), REQUEST_FLOOD + 1);
        s.parse(&mut ctx, Direction::ToClient, &frame(0, 1, &[3, 2, 0, 0]));
        assert!(s.txs().next().unwrap().complete());
        // The transaction limit drops the oldest, counted.
        let mut ctx = AppCtx::default();
        ctx.config.max_tx = 4;
        let mut s = ModbusState::new();
        for i in 0..6 {
            s.parse(
                &mut ctx,
                Direction::ToServer,
                &frame(i, 1, &[3, 0, 0, 0, 1]),
            );
        }
        assert_eq!(s.txs().count(), 4);
        assert_eq!(ctx.counters.get(Counter::TxLimit), 2);
        // A declared length out of range is skipped as a malformed frame.
        let mut s = ModbusState::new();
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &[0, 1, 0, 0, 0xff, 0xff, 1, 3],
        );
        assert!(s.events().has(INVALID_LENGTH) && !s.errored());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            a in proptest::collection::vec(any::<u8>(), 0..600),
            b in proptest::collection::vec(any::<u8>(), 0..600),
            step in 1usize..64,
        ) {
            let mut ctx = AppCtx::default();
            let mut s = ModbusState::new();
            for (x, y) in a.chunks(step).zip(b.chunks(step)) {
                s.parse(&mut ctx, Direction::ToServer, x);
                s.parse(&mut ctx, Direction::ToClient, y);
            }
            for t in s.txs() {
                let _ = modbus_object(t);
            }
            prop_assert!(s.txs().count() <= ctx.config.max_tx);
            prop_assert!(s.buf.iter().all(|b| b.len() <= MAX_BUFFER));
        }
    }
}

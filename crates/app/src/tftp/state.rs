//! Per-flow TFTP state: each read or write request is a transaction, logged as it
//! arrives (the transfer itself runs on other ports, which Suricata does not follow).

use serde_json::{Map, Value};

use super::parser::{is_packet, parse_request, Opcode};
use crate::flow::AppState;
use crate::log::bytes_str;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// One TFTP request.
#[derive(Clone, Debug)]
pub struct TftpTx {
    /// Transaction id within the flow.
    pub id: u64,
    /// Read or write.
    pub opcode: Opcode,
    /// The file name.
    pub file: Vec<u8>,
    /// The transfer mode.
    pub mode: Vec<u8>,
}

/// TFTP state of one flow.
#[derive(Debug, Default)]
pub struct TftpState {
    txs: Vec<TftpTx>,
    next_id: u64,
}

/// Requests kept per flow (a TFTP flow carries one; more are counted and dropped).
const MAX_TXS: usize = 32;

impl TftpState {
    /// The transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &TftpTx> {
        self.txs.iter()
    }
}

/// The state of a new TFTP flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Tftp(Box::default()), Counter::FlowTftp))
}

impl Protocol for TftpState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    /// A request becomes a transaction; other well-formed packets are taken; anything
    /// else is a parser error (counted).
    fn datagram(&mut self, ctx: &mut AppCtx, _dir: Direction, payload: &[u8]) -> ParseResult {
        if let Some(r) = parse_request(payload) {
            ctx.counters.incr(Counter::TxTftp);
            let id = self.next_id;
            self.next_id += 1;
            if self.txs.len() >= MAX_TXS {
                self.txs.remove(0);
                ctx.counters.incr(Counter::TxLimit);
            }
            self.txs.push(TftpTx {
                id,
                opcode: r.opcode,
                file: r.file.to_vec(),
                mode: r.mode.to_vec(),
            });
            ParseResult::Ok
        } else if is_packet(payload) {
            ParseResult::Ok
        } else {
            ctx.counters.incr(Counter::ErrorTftp);
            ParseResult::Error
        }
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs.iter().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs
            .iter()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

impl Transaction for TftpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Tftp
    }

    /// A request is complete as it arrives.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, self.alert_object());
    }

    /// `{packet, file, mode}`.
    fn alert_object(&self) -> Value {
        let mut o = Map::new();
        o.insert("packet".into(), self.opcode.name().into());
        o.insert("file".into(), bytes_str(&self.file).into());
        o.insert("mode".into(), bytes_str(&self.mode).into());
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_a_logged_transaction() {
        let mut ctx = AppCtx::default();
        let mut s = TftpState::default();
        let r = s.datagram(
            &mut ctx,
            Direction::ToServer,
            super::super::parser::tests::RRQ,
        );
        assert_eq!(r, ParseResult::Ok);
        let mut got = Vec::new();
        s.each_tx(&mut |t| t.log(false, &mut |_, v| got.push(v.to_string())));
        assert_eq!(
            got,
            [r#"{"packet":"read","file":"rfc1350.txt","mode":"octet"}"#]
        );
        assert_eq!(ctx.counters.get(Counter::TxTftp), 1);
        assert_eq!(
            s.datagram(&mut ctx, Direction::ToClient, b"\x00\x04\x00\x01"),
            ParseResult::Ok
        );
        assert_eq!(
            s.datagram(&mut ctx, Direction::ToClient, b"\x00\x07"),
            ParseResult::Error
        );
        assert_eq!(ctx.counters.get(Counter::ErrorTftp), 1);
    }
}

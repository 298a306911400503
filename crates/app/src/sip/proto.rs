//! SIP on the protocol contract: every message is a transaction, complete as it
//! arrives, logged as a `sip` record and inspected through the `sip.*` buffers.

use serde_json::Value;

use super::parser::StartLine;
use super::{SipState, SipTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// SIP's inspection buffers, in the order [`SipTx::buffer`] answers them: the request
/// line's parts, the status line's parts and the version of either.
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("sip.method", Some(Direction::ToServer)),
    BufferDef::new("sip.uri", Some(Direction::ToServer)),
    BufferDef::new("sip.request_line", Some(Direction::ToServer)),
    BufferDef::new("sip.stat_code", Some(Direction::ToClient)),
    BufferDef::new("sip.stat_msg", Some(Direction::ToClient)),
    BufferDef::new("sip.response_line", Some(Direction::ToClient)),
    BufferDef::new("sip.protocol", None),
];

/// The state of a new SIP flow (UDP only: Suricata 7.0 has no SIP over TCP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Sip(Box::default()), Counter::FlowSip))
}

impl Protocol for SipState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if SipState::datagram(self, ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
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

impl SipTx {
    /// Buffer `i` of [`BUFFERS`], when the message has it.
    pub fn buffer(&self, i: usize) -> Option<&[u8]> {
        match (&self.start, i) {
            (StartLine::Request { method, .. }, 0) => Some(method),
            (StartLine::Request { uri, .. }, 1) => Some(uri),
            (StartLine::Request { line, .. }, 2) => Some(line),
            (StartLine::Response { code, .. }, 3) => Some(code),
            (StartLine::Response { reason, .. }, 4) => Some(reason),
            (StartLine::Response { line, .. }, 5) => Some(line),
            (StartLine::Request { version, .. } | StartLine::Response { version, .. }, 6) => {
                Some(version)
            }
            _ => None,
        }
    }
}

impl Transaction for SipTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Sip
    }

    /// A SIP transaction is one message: complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A SIP transaction never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// `sip.protocol`, the one buffer of both directions, is the version of the
    /// message travelling the inspected direction: a request's in a to-server
    /// inspection, a response's in a to-client one (Suricata 7.0.10 reads the request or
    /// the response of the transaction by direction, and each message is its own
    /// transaction).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.local() == 6 && dir != self.dir {
            return;
        }
        if let Some(v) = self.buffer(b.local()) {
            f(v)
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::sip_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::sip_object(self)
    }

    /// A response's record is written server → client, as Suricata writes it.
    fn log_reversed(&self) -> bool {
        self.dir == Direction::ToClient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_follow_the_message() {
        let mut ctx = AppCtx::default();
        let mut s = SipState::default();
        let req = b"ACK sip:francisco@200.57.7.204:5061 SIP/2.0\r\nCSeq: 1 ACK\r\n\r\n";
        s.datagram(&mut ctx, Direction::ToServer, req);
        s.datagram(
            &mut ctx,
            Direction::ToClient,
            b"SIP/2.0 180 Ringing\r\n\r\n",
        );
        let txs: Vec<_> = s.txs().collect();
        fn all(t: &SipTx) -> Vec<Option<&[u8]>> {
            (0..7).map(|i| t.buffer(i)).collect()
        }
        assert_eq!(
            all(txs[0]),
            [
                Some(&b"ACK"[..]),
                Some(b"sip:francisco@200.57.7.204:5061"),
                Some(b"ACK sip:francisco@200.57.7.204:5061 SIP/2.0"),
                None,
                None,
                None,
                Some(b"SIP/2.0"),
            ]
        );
        assert_eq!(
            all(txs[1]),
            [
                None,
                None,
                None,
                Some(&b"180"[..]),
                Some(b"Ringing"),
                Some(b"SIP/2.0 180 Ringing"),
                Some(b"SIP/2.0"),
            ]
        );
        assert_eq!(BUFFERS.len(), 7);
    }

    #[test]
    fn the_protocol_buffer_is_the_inspected_direction_s_message() {
        let mut ctx = AppCtx::default();
        let mut s = SipState::default();
        s.datagram(
            &mut ctx,
            Direction::ToServer,
            b"BYE sip:a@b SIP/2.0\r\n\r\n",
        );
        s.datagram(&mut ctx, Direction::ToClient, b"SIP/2.0 200 OK\r\n\r\n");
        let proto = BufferId::of(AppProto::Sip, "sip.protocol").unwrap();
        let seen = |t: &SipTx, d| {
            let mut n = 0;
            Transaction::buffers(t, proto, d, &mut |_| n += 1);
            n
        };
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(seen(txs[0], Direction::ToServer), 1);
        assert_eq!(seen(txs[0], Direction::ToClient), 0);
        assert_eq!(seen(txs[1], Direction::ToServer), 0);
        assert_eq!(seen(txs[1], Direction::ToClient), 1);
    }
}

//! DCERPC flows on the protocol contract: the state over TCP or UDP, probes, buffers
//! and counters.

use serde_json::Value;

use super::keywords;
use super::parser::{self, ptype, CO_HDR};
use super::state::{DceTx, DcerpcConn, Outcome};
use super::udp::DcerpcUdp;
use crate::buffers::BufferDef;
use crate::detect::{AppProto, Probe};
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, BufferId, Counter, Direction, Transport};

/// DCERPC buffers: `dcerpc.stub_data` (request stub to the server, response stub to
/// the client).
pub(crate) static BUFFERS: &[BufferDef] = &[BufferDef::new("dcerpc.stub_data", None)];

/// Suricata 7 declares no DCERPC app-layer events.
pub(crate) static EVENTS: &[&str] = &[];

/// A DCERPC flow's state.
#[derive(Clone, Debug)]
pub enum DcerpcState {
    /// Connection-oriented, over TCP.
    Tcp(DcerpcConn),
    /// Connectionless, over UDP.
    Udp(DcerpcUdp),
}

impl DcerpcState {
    /// The live transactions, oldest first.
    pub fn txs(&self) -> Box<dyn Iterator<Item = &DceTx> + '_> {
        match self {
            DcerpcState::Tcp(c) => Box::new(c.txs()),
            DcerpcState::Udp(u) => Box::new(u.txs()),
        }
    }

    /// Counts what one parse call did; `true` when the parser failed there.
    fn account(&self, ctx: &mut AppCtx, o: &Outcome) -> bool {
        let (tx, err) = match self {
            DcerpcState::Tcp(_) => (Counter::TxDcerpcTcp, Counter::ErrorDcerpcTcp),
            DcerpcState::Udp(_) => (Counter::TxDcerpcUdp, Counter::ErrorDcerpcUdp),
        };
        for (c, n) in [
            (tx, o.new_txs),
            (Counter::TxLimit, o.dropped_txs),
            (Counter::DcerpcStubCut, o.cut_frags),
        ] {
            (0..n).for_each(|_| ctx.counters.incr(c));
        }
        if o.error {
            ctx.counters.incr(err);
        }
        o.error
    }
}

/// The state of a new DCERPC flow.
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    Some(match t {
        Transport::Tcp => (
            AppState::Dcerpc(Box::new(DcerpcState::Tcp(DcerpcConn::new()))),
            Counter::FlowDcerpcTcp,
        ),
        Transport::Udp => (
            AppState::Dcerpc(Box::new(DcerpcState::Udp(DcerpcUdp::new()))),
            Counter::FlowDcerpcUdp,
        ),
    })
}

/// Probes the first bytes of a TCP direction for a connection-oriented PDU header. To
/// the server the first PDU must be a bind or an alter_context, as a client opens an
/// association, or a request header as Suricata 7.0.10's probe reads one (version
/// 5.0, a data representation with integer and character formats known and a float
/// format of at most 3; the fragment length not checked: an ENIP message of command 5
/// to port 44818 is DCERPC to Suricata).
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    if data.first().is_some_and(|&b| b != 5) || data.get(1).is_some_and(|&b| b > 1) {
        return Probe::NoMatch;
    }
    if data.len() < CO_HDR {
        return Probe::NeedMore;
    }
    if dir == Direction::ToServer
        && data[1] == 0
        && data[2] == ptype::REQUEST
        && data[4] & 0xEE == 0
        && data[5] <= 3
    {
        return Probe::Match(AppProto::Dcerpc);
    }
    match parser::co_header(data) {
        Some(h)
            if dir == Direction::ToClient
                || matches!(h.ptype, ptype::BIND | ptype::ALTER_CONTEXT) =>
        {
            Probe::Match(AppProto::Dcerpc)
        }
        _ => Probe::NoMatch,
    }
}

/// Probes a UDP payload for a connectionless PDU (version 4, a connectionless type, a
/// body length that fits).
pub(crate) fn probe_udp(_dir: Direction, data: &[u8]) -> Probe {
    match parser::cl_header(data) {
        Some(_) => Probe::Match(AppProto::Dcerpc),
        None => Probe::NoMatch,
    }
}

impl Protocol for DcerpcState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        let DcerpcState::Tcp(c) = self else {
            return ParseResult::Ok;
        };
        let o = c.parse(dir, data, ctx.config.max_tx);
        if self.account(ctx, &o) {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn datagram(&mut self, ctx: &mut AppCtx, _dir: Direction, payload: &[u8]) -> ParseResult {
        let DcerpcState::Udp(u) = self else {
            return ParseResult::Ok;
        };
        let o = u.datagram(payload, ctx.config.max_tx);
        self.account(ctx, &o);
        ParseResult::Ok
    }

    fn gap(&mut self, _ctx: &mut AppCtx, dir: Direction, _len: u64) {
        if let DcerpcState::Tcp(c) = self {
            c.gap(dir)
        }
    }

    /// Over TCP, once bytes that are not a call's PDU were seen (parsing stops).
    fn errored(&self) -> bool {
        match self {
            DcerpcState::Tcp(c) => c.failed(),
            DcerpcState::Udp(_) => false,
        }
    }

    /// A completed PDU asks for raw stream inspection of its direction.
    fn take_completed(&mut self, dir: Direction) -> bool {
        match self {
            DcerpcState::Tcp(c) => c.take_completed(dir),
            DcerpcState::Udp(_) => false,
        }
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn each_tx_from(&self, from: u64, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().filter(|t| t.id >= from).for_each(|t| f(t))
    }

    fn each_tx_while(&self, f: &mut dyn FnMut(&dyn Transaction) -> bool) {
        for t in self.txs() {
            if !f(t) {
                break;
            }
        }
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

impl Transaction for DceTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Dcerpc
    }

    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => self.request_done(),
            Direction::ToClient => self.response_done(),
        }
    }

    fn fingerprint(&self) -> (u64, u64) {
        let h = mix(
            u64::from(self.request.unwrap_or(0xff)),
            u64::from(self.response.unwrap_or(0xff)),
        );
        let h = mix(h, u64::from(self.req.done) | u64::from(self.res.done) << 1);
        let h = mix(
            h,
            self.interfaces
                .iter()
                .filter(|i| i.ack_result.is_some())
                .count() as u64,
        );
        (h, mix(self.req.size, self.res.size))
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.local() == 0 {
            if let Some(s) = keywords::stub_data(self, dir) {
                f(s)
            }
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::dcerpc_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::dcerpc_object(self)
    }

    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        keywords::check(self, opt, dir)
    }

    fn dce_little_endian(&self) -> Option<bool> {
        Some(self.little_endian)
    }
}

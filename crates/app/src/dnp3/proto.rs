//! DNP3 on the protocol contract: each application fragment is a transaction of one
//! direction, logged once done; the `dnp3_func`, `dnp3_ind` and `dnp3_obj` keywords
//! and the `dnp3.data` buffer.

use serde_json::Value;

use super::state::{Dnp3State, Dnp3Tx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// DNP3's inspection buffer: the reassembled application fragment.
pub(crate) static BUFFERS: &[BufferDef] = &[BufferDef::new("dnp3.data", None)];

/// DNP3's application-layer events (Suricata's `dnp3-events.rules`).
pub(crate) static EVENTS: &[&str] = &[
    "dnp3.flooded",
    "dnp3.len_too_small",
    "dnp3.bad_link_crc",
    "dnp3.bad_transport_crc",
    "dnp3.malformed",
    "dnp3.unknown_object",
];

/// More unanswered requests than the flood limit.
pub(crate) const FLOODED: usize = 0;
/// A link length field below 5.
pub(crate) const LEN_TOO_SMALL: usize = 1;
/// A link header whose CRC is wrong.
pub(crate) const BAD_LINK_CRC: usize = 2;
/// A user data block whose CRC is wrong.
pub(crate) const BAD_TRANSPORT_CRC: usize = 3;
/// An object whose points could not be read.
pub(crate) const UNKNOWN_OBJECT: usize = 5;

/// The state of a new DNP3 flow (TCP only: Suricata 7 parses no DNP3 over UDP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| {
        (
            AppState::Dnp3(Box::new(Dnp3State::new())),
            Counter::FlowDnp3,
        )
    })
}

impl Protocol for Dnp3State {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        Dnp3State::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        Dnp3State::gap(self, ctx, dir)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        Dnp3State::close(self, ctx)
    }

    /// Nothing yet: Suricata 7.0.10 inspects an unfinished fragment on the flow's
    /// end, not on the packet that closes the session.
    fn session_closed(&mut self, _ctx: &mut AppCtx) {}

    fn errored(&self) -> bool {
        Dnp3State::errored(self)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        Dnp3State::take_completed(self, dir)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        Dnp3State::events(self).each(EVENTS, f)
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

impl Dnp3Tx {
    /// The direction the fragment travelled.
    fn dir(&self) -> Direction {
        if self.request {
            Direction::ToServer
        } else {
            Direction::ToClient
        }
    }
}

impl Transaction for Dnp3Tx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Dnp3
    }

    /// A fragment belongs to its own direction: complete there once done, never in
    /// the other (it is inspected in its direction only, as in Suricata).
    fn complete(&self, dir: Direction) -> bool {
        self.done && dir == self.dir()
    }

    fn is_final(&self) -> bool {
        self.done
    }

    fn fingerprint(&self) -> (u64, u64) {
        let h = mix_fingerprint(self.data.len() as u64, u64::from(self.done));
        let ev = (0..EVENTS.len())
            .filter(|&i| self.events.has(i))
            .fold(0u64, |a, i| a | 1 << i);
        (mix_fingerprint(h, ev), 0)
    }

    /// `dnp3.data`: the fragment, in its own direction, once done.
    fn buffers(&self, _b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if dir == self.dir() && self.done {
            f(&self.data)
        }
    }

    /// `dnp3_func` (the function code), `dnp3_ind` (any of the internal
    /// indications, responses only) and `dnp3_obj` (an object of that group and
    /// variation), in the fragment's direction once done.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        if dir != self.dir() || !self.done {
            return false;
        }
        let f = &self.fragment;
        let hit = match (opt.name, &opt.value) {
            ("dnp3_func", rules::AppValue::Ints(v)) => {
                v.iter().any(|c| c.matches(u64::from(f.function)))
            }
            ("dnp3_ind", rules::AppValue::Bits { set, .. }) => {
                f.iin.is_some_and(|i| u32::from(i) & set != 0)
            }
            ("dnp3_obj", rules::AppValue::Ints(v)) => match v.as_slice() {
                [g, var] => f
                    .objects
                    .iter()
                    .any(|o| g.matches(u64::from(o.group)) && var.matches(u64::from(o.variation))),
                _ => false,
            },
            _ => return false,
        };
        hit != opt.negated
    }

    fn tx_events(&self, _dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        self.events.each(EVENTS, f);
        true
    }

    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.done
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::dnp3_object(self));
    }

    fn alert_object(&self) -> Value {
        let key = if self.request { "request" } else { "response" };
        serde_json::json!({ key: super::log::dnp3_object(self) })
    }
}

//! Kerberos 5 on the protocol contract: each message is a transaction, complete as
//! it arrives and logged then (without a `tx_id`, as Suricata writes `krb5` records).

use serde_json::Value;

use super::state::{Krb5State, Krb5Tx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// Kerberos 5's inspection buffers: each component of the client and server principal
/// names of a reply or error (the client side only, as Suricata 7.0.10 registers them).
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("krb5.cname", Some(Direction::ToClient)).multi(),
    BufferDef::new("krb5.sname", Some(Direction::ToClient)).multi(),
];

/// Kerberos 5's application-layer events (Suricata's `kerberos-events.rules`).
pub(crate) static EVENTS: &[&str] = &["krb5.malformed_data", "krb5.weak_encryption"];

/// A message that does not parse.
pub(crate) const MALFORMED_DATA: usize = 0;
/// A reply whose encrypted part uses a weak encryption type.
pub(crate) const WEAK_ENCRYPTION: usize = 1;

/// The state of a new Kerberos 5 flow (UDP or TCP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    let counter = match t {
        Transport::Udp => Counter::FlowKrb5Udp,
        Transport::Tcp => Counter::FlowKrb5Tcp,
    };
    Some((AppState::Krb5(Box::new(Krb5State::new(t))), counter))
}

impl Protocol for Krb5State {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        Krb5State::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if self.message(ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        Krb5State::gap(self, ctx, dir)
    }

    fn errored(&self) -> bool {
        Krb5State::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        Krb5State::events(self).each(EVENTS, f)
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

impl Transaction for Krb5Tx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Krb5
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// The names of a message, in the direction it travelled only: with the buffers
    /// registered to the client (as in Suricata 7.0.10), the names of replies and
    /// errors (found by the differential harness's `krb5` family).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if dir != self.dir {
            return;
        }
        let names = match b.local() {
            0 => &self.msg.cname,
            1 => &self.msg.sname,
            _ => return,
        };
        for n in names.iter().flatten() {
            f(n.as_bytes())
        }
    }

    /// `krb5_msg_type` (the message type), `krb5_err_code` (an error's code; no
    /// match on other messages) and `krb5.ticket_encryption` (a reply's ticket
    /// encryption: weak or not, or one of a list of types).
    /// `app-layer-event:krb5.*` holds on the transaction that has the event, in its
    /// direction (a to-server rule never sees a reply's weak encryption: found by the
    /// differential harness's `krb5` family).
    fn tx_events(&self, dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        if dir == self.dir {
            self.events.each(EVENTS, f);
        }
        true
    }

    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        if dir != self.dir {
            return false;
        }
        if opt.name == "krb5.ticket_encryption" {
            let Some(t) = self.msg.ticket_etype else {
                return false;
            };
            return match &opt.value {
                rules::AppValue::Text(_) => super::parser::weak_etype(t) != opt.negated,
                rules::AppValue::Ints(v) => {
                    u64::try_from(t).is_ok_and(|t| v.iter().any(|c| c.matches(t)))
                }
                _ => false,
            };
        }
        let rules::AppValue::Ints(v) = &opt.value else {
            return false;
        };
        let value = match opt.name {
            "krb5_msg_type" => Some(u64::from(self.msg.msg_type)),
            "krb5_err_code" => self.msg.error_code.and_then(|c| u64::try_from(c).ok()),
            _ => return false,
        };
        value.is_some_and(|x| v.iter().any(|c| c.matches(x)) != opt.negated)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::krb5_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::krb5_object(self)
    }
}

//! ENIP on the protocol contract: each message is a transaction, complete as it
//! arrives; no EVE record (Suricata 7 has no ENIP logger).

use serde_json::Value;

use super::state::{EnipState, EnipTx};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// ENIP raises no application-layer events (Suricata 7 defines none).
pub(crate) static EVENTS: &[&str] = &[];

/// The state of a new ENIP flow (TCP or UDP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    let counter = match t {
        Transport::Tcp => Counter::FlowEnipTcp,
        Transport::Udp => Counter::FlowEnipUdp,
    };
    Some((AppState::Enip(Box::new(EnipState::new(t))), counter))
}

impl Protocol for EnipState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        EnipState::parse(self, ctx, dir, data);
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if EnipState::datagram(self, ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        EnipState::gap(self, ctx, dir)
    }

    fn errored(&self) -> bool {
        EnipState::errored(self)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        EnipState::take_completed(self, dir)
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

impl Transaction for EnipTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Enip
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    /// `enip_command`: the message's encapsulation command; `cip_service`: one of
    /// the CIP requests it carries ([`super::cip`]); inspected with the
    /// packets travelling its way.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        if dir != self.dir {
            return false;
        }
        match &opt.value {
            rules::AppValue::Ints(v) if opt.name == "enip_command" => {
                v.iter().any(|c| c.matches(u64::from(self.header.command))) != opt.negated
            }
            rules::AppValue::Ints(v) if opt.name == "cip_service" => {
                super::cip::rule_matches(&self.cip, v) != opt.negated
            }
            _ => false,
        }
    }

    /// Not logged (no `enip` EVE type in Suricata 7).
    fn log(&self, _extended: bool, _out: &mut dyn FnMut(Option<u64>, Value)) {}

    fn alert_object(&self) -> Value {
        Value::Null
    }
}

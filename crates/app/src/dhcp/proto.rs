//! DHCP on the protocol contract: each message is a transaction, complete as it
//! arrives; DHCPACKs are logged (without a `tx_id`, as Suricata writes `dhcp`
//! records).

use serde_json::Value;

use super::parser::{OPT_LEASE_TIME, OPT_REBINDING_TIME, OPT_RENEWAL_TIME};
use super::state::{DhcpState, DhcpTx};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// DHCP's application-layer events (Suricata's `dhcp-events.rules`).
pub(crate) static EVENTS: &[&str] = &["dhcp.malformed_options", "dhcp.truncated_options"];

/// An option whose length does not fit its code (or too many options).
pub(crate) const MALFORMED_OPTIONS: usize = 0;
/// An option that runs past the end of the message.
pub(crate) const TRUNCATED_OPTIONS: usize = 1;

/// The state of a new DHCP flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Dhcp(Box::default()), Counter::FlowDhcp))
}

impl Protocol for DhcpState {
    fn parse(&mut self, _ctx: &mut AppCtx, _dir: Direction, _data: &[u8]) -> ParseResult {
        ParseResult::Ok
    }

    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if self.message(ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ParseResult::Error
        }
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        DhcpState::events(self).each(EVENTS, f)
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

impl Transaction for DhcpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Dhcp
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// DHCP has no inspection buffers.
    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    /// `dhcp.leasetime`, `dhcp.renewal_time`, `dhcp.rebinding_time`: the message's
    /// time option (no match on a message without it).
    fn check(&self, opt: &rules::AppOpt, _dir: Direction) -> bool {
        let rules::AppValue::Ints(v) = &opt.value else {
            return false;
        };
        let code = match opt.name {
            "dhcp.leasetime" => OPT_LEASE_TIME,
            "dhcp.renewal_time" => OPT_RENEWAL_TIME,
            "dhcp.rebinding_time" => OPT_REBINDING_TIME,
            _ => return false,
        };
        self.msg
            .time(code)
            .is_some_and(|t| v.iter().any(|c| c.matches(u64::from(t))) != opt.negated)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        if let Some(o) = super::log::dhcp_object(self) {
            out(None, o);
        }
    }

    fn alert_object(&self) -> Value {
        super::log::dhcp_object(self).unwrap_or_else(|| Value::Object(Default::default()))
    }
}

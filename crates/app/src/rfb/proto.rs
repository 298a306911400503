//! RFB on the protocol contract: the handshake is the flow's one transaction,
//! complete with ServerInit (logged at the flow's end otherwise), without a `tx_id`.

use serde_json::Value;

use super::state::{RfbState, RfbTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// RFB's inspection buffer: the desktop name of ServerInit.
pub(crate) static BUFFERS: &[BufferDef] = &[BufferDef::new("rfb.name", Some(Direction::ToClient))];

/// RFB's application-layer events (Suricata's `rfb-events.rules`).
pub(crate) static EVENTS: &[&str] = &[
    "rfb.malformed_message",
    "rfb.unimplemented_security_type",
    "rfb.unknown_security_result",
    "rfb.confused_state",
];

/// A handshake message that does not parse.
pub(crate) const MALFORMED_MESSAGE: usize = 0;
/// A security type the parser does not follow.
pub(crate) const UNIMPLEMENTED_SECURITY_TYPE: usize = 1;
/// A security result other than OK, failed or too many.
pub(crate) const UNKNOWN_SECURITY_RESULT: usize = 2;
/// Bytes of the side the handshake does not wait for.
pub(crate) const CONFUSED_STATE: usize = 3;

/// The state of a new RFB flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    match t {
        Transport::Tcp => Some((AppState::Rfb(Box::default()), Counter::FlowRfb)),
        Transport::Udp => None,
    }
}

impl Protocol for RfbState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        RfbState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, _dir: Direction, _len: u64) {
        RfbState::gap(self, ctx)
    }

    fn errored(&self) -> bool {
        RfbState::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        RfbState::events(self).each(EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        if let Some(t) = self.tx() {
            f(t)
        }
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.tx().filter(|_| id == 0).map(|t| t as &dyn Transaction)
    }
}

impl Transaction for RfbTx {
    fn id(&self) -> u64 {
        0
    }

    fn proto(&self) -> AppProto {
        AppProto::Rfb
    }

    fn complete(&self, _dir: Direction) -> bool {
        self.complete
    }

    /// Grows with each handshake message, and changes when the transaction completes
    /// without one (a confused parser: `rfb.sectype` then reads 0, and the rules of a
    /// direction already inspected must see it again, as Suricata 7.0.10 matches them
    /// on that direction's next packet; difftest `rfb/rfb.sectype-*-client-t2`).
    fn fingerprint(&self) -> (u64, u64) {
        let n = u64::from(self.client_version.is_some())
            + u64::from(self.security_type.is_some())
            + u64::from(self.challenge.is_some())
            + u64::from(self.response.is_some())
            + u64::from(self.security_result.is_some())
            + u64::from(self.failure_reason.is_some())
            + u64::from(self.shared.is_some())
            + u64::from(self.server_init.is_some())
            + (u64::from(self.complete) << 8);
        (n, n)
    }

    fn buffers(&self, b: BufferId, _dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if let (0, Some((_, _, _, name))) = (b.local(), &self.server_init) {
            f(name)
        }
    }

    /// `rfb.sectype` (the security type in use) and `rfb.secresult` (`ok`, `fail`,
    /// `toomany` or `unknown`), once the transaction is complete, as Suricata 7.0.10
    /// registers them; a type the parser does not follow reads as 0 there (found by the
    /// differential harness's `rfb` family).
    fn check(&self, opt: &rules::AppOpt, _dir: Direction) -> bool {
        if !self.complete {
            return false;
        }
        match (opt.name, &opt.value) {
            ("rfb.sectype", rules::AppValue::Ints(v)) => {
                let t = self
                    .security_type
                    .filter(|t| matches!(t, 1 | 2))
                    .unwrap_or(0);
                v.iter().any(|c| c.matches(u64::from(t))) != opt.negated
            }
            // A result other than OK or failed completes the transaction but is not
            // matched (`toomany` holds on none in Suricata 7.0.10).
            ("rfb.secresult", rules::AppValue::Text(want)) => {
                self.security_result.filter(|&r| r <= 1).is_some_and(|r| {
                    super::log::result_name(r).eq_ignore_ascii_case(want) != opt.negated
                })
            }
            _ => false,
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::rfb_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::rfb_object(self)
    }
}

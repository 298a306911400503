//! RDP on the protocol contract: each message of the connection sequence is a
//! transaction, complete as it arrives and logged then (in the direction of the packet
//! that made it loggable, with the `rdp` object's own `tx_id` counted from 1, as
//! Suricata writes `rdp` records).

use serde_json::Value;

use super::state::{RdpState, RdpTx};
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// The state of a new RDP flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    match t {
        Transport::Tcp => Some((AppState::Rdp(Box::default()), Counter::FlowRdp)),
        Transport::Udp => None,
    }
}

impl Protocol for RdpState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        RdpState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, _dir: Direction, _len: u64) {
        RdpState::gap(self, ctx)
    }

    fn errored(&self) -> bool {
        RdpState::errored(self)
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

impl Transaction for RdpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Rdp
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// RDP has no inspection buffer.
    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::rdp_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::rdp_object(self)
    }
}

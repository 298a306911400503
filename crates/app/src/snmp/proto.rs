//! SNMP on the protocol contract: each message is a transaction, complete as it
//! arrives and logged then (without a `tx_id`, as Suricata writes `snmp` records).

use serde_json::Value;

use super::state::{SnmpState, SnmpTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// SNMP's inspection buffers: the community (v1/v2c) and the USM user name (v3).
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("snmp.community", None),
    BufferDef::new("snmp.usm", None),
];

/// SNMP's application-layer events.
pub(crate) static EVENTS: &[&str] = &["snmp.malformed_data"];

/// A datagram that is not an SNMP message.
pub(crate) const MALFORMED_DATA: usize = 0;

/// The state of a new SNMP flow (UDP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Udp).then(|| (AppState::Snmp(Box::default()), Counter::FlowSnmp))
}

impl Protocol for SnmpState {
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
        SnmpState::events(self).each(EVENTS, f)
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

impl Transaction for SnmpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Snmp
    }

    /// A message is complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A message never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// The community and USM user name of a message, in the direction it travelled
    /// only (a request is not inspected by a to-client rule, as in Suricata 7.0.10:
    /// found by the differential harness's `snmp` family).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if dir != self.dir {
            return;
        }
        let v = match b.local() {
            0 => &self.info.community,
            1 => &self.info.usm,
            _ => return,
        };
        if let Some(v) = v {
            f(v)
        }
    }

    /// `snmp.version` and `snmp.pdu_type` (no match on an encrypted v3 PDU), in the
    /// direction the message travelled only.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        let rules::AppValue::Ints(v) = &opt.value else {
            return false;
        };
        if dir != self.dir {
            return false;
        }
        let value = match opt.name {
            "snmp.version" => Some(u64::from(self.info.version)),
            "snmp.pdu_type" => self.info.pdu_type.map(u64::from),
            _ => return false,
        };
        value.is_some_and(|x| v.iter().any(|c| c.matches(x)) != opt.negated)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::snmp_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::snmp_object(self)
    }
}

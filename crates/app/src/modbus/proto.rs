//! Modbus on the protocol contract: a transaction is complete once answered, and
//! logged then (a request never answered is logged when the flow ends).

use serde_json::Value;

use super::state::{ModbusState, ModbusTx};
use crate::flow::AppState;
use crate::proto::{mix_fingerprint, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// Modbus's application-layer events (Suricata's `modbus-events.rules`).
pub(crate) static EVENTS: &[&str] = &[
    "modbus.unsolicited_response",
    "modbus.invalid_function_code",
    "modbus.invalid_length",
    "modbus.invalid_value",
    "modbus.invalid_exception_code",
    "modbus.value_mismatch",
    "modbus.flooded",
    "modbus.invalid_protocol_id",
];

/// A response no request asked for.
pub(crate) const UNSOLICITED_RESPONSE: usize = 0;
/// A function code out of the valid ones.
pub(crate) const INVALID_FUNCTION_CODE: usize = 1;
/// A length field that does not fit the function.
pub(crate) const INVALID_LENGTH: usize = 2;
/// A value out of its valid range.
pub(crate) const INVALID_VALUE: usize = 3;
/// An unknown exception code.
pub(crate) const INVALID_EXCEPTION_CODE: usize = 4;
/// A response whose values do not fit its request.
pub(crate) const VALUE_MISMATCH: usize = 5;
/// Too many unanswered requests.
pub(crate) const FLOODED: usize = 6;
/// A protocol identifier other than 0.
pub(crate) const INVALID_PROTOCOL_ID: usize = 7;

/// The state of a new Modbus flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| {
        (
            AppState::Modbus(Box::new(ModbusState::new())),
            Counter::FlowModbus,
        )
    })
}

impl Protocol for ModbusState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        ModbusState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        ModbusState::gap(self, ctx, dir)
    }

    fn errored(&self) -> bool {
        ModbusState::errored(self)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        ModbusState::take_completed(self, dir)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        ModbusState::events(self).each(EVENTS, f)
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

impl Transaction for ModbusTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Modbus
    }

    /// Both sides are done once the response is in.
    fn complete(&self, _dir: Direction) -> bool {
        ModbusTx::complete(self)
    }

    fn fingerprint(&self) -> (u64, u64) {
        let h = mix_fingerprint(
            u64::from(self.request.is_some()),
            u64::from(self.response.is_some()),
        );
        (h, 0)
    }

    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    /// The `modbus` keyword, on the request (on the response of an unsolicited one,
    /// as Suricata), inspected with the packets travelling to the server.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        if dir != Direction::ToServer {
            return false;
        }
        match (&opt.value, self.request.as_ref().or(self.response.as_ref())) {
            (rules::AppValue::Modbus(m), Some(msg)) if opt.name == "modbus" => {
                super::detect::matches(m, msg) != opt.negated
            }
            _ => false,
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::modbus_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::modbus_object(self)
    }
}

//! MQTT on the protocol contract: transactions as [`super::state`] groups them, logged
//! once complete (or at the end of the flow), inspected through the `mqtt.*` buffers.

use serde_json::Value;

use super::parser::Body;
use super::{MqttState, MqttTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// MQTT's inspection buffers, in the order [`MqttTx::each_buffer`] answers them.
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("mqtt.connect.clientid", Some(Direction::ToServer)),
    BufferDef::new("mqtt.connect.username", Some(Direction::ToServer)),
    BufferDef::new("mqtt.connect.password", Some(Direction::ToServer)),
    BufferDef::new("mqtt.connect.willtopic", Some(Direction::ToServer)),
    BufferDef::new("mqtt.connect.willmessage", Some(Direction::ToServer)),
    BufferDef::new("mqtt.publish.topic", None),
    BufferDef::new("mqtt.publish.message", None),
    // Suricata 7.0.10 takes `flow:to_client` with it (a SUBSCRIBE's transaction is still
    // inspected to the server only).
    BufferDef::new("mqtt.subscribe.topic", None).multi(),
    BufferDef::new("mqtt.unsubscribe.topic", Some(Direction::ToServer)).multi(),
];

/// The state of a new MQTT flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Mqtt(Box::default()), Counter::FlowMqtt))
}

impl Protocol for MqttState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        MqttState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            match self.need(dir) {
                0 => ParseResult::Ok,
                need => ParseResult::Incomplete { need },
            }
        }
    }

    fn errored(&self) -> bool {
        MqttState::errored(self)
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        MqttState::gap(self, ctx, dir)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        MqttState::take_completed(self, dir)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        MqttState::events(self).each(super::EVENTS, f)
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

impl MqttTx {
    /// Calls `f` with each instance of buffer `i` of [`BUFFERS`].
    pub fn each_buffer(&self, i: usize, f: &mut dyn FnMut(&[u8])) {
        for p in &self.packets {
            match (&p.body, i) {
                (Body::Connect(c), 0) => f(&c.client_id),
                (Body::Connect(c), 1) => c.username.iter().for_each(|u| f(u)),
                (Body::Connect(c), 2) => c.password.iter().for_each(|u| f(u)),
                (Body::Connect(c), 3) => c.will.iter().for_each(|w| f(&w.topic)),
                (Body::Connect(c), 4) => c.will.iter().for_each(|w| f(&w.message)),
                (Body::Publish { topic, .. }, 5) => f(topic),
                (Body::Publish { message, .. }, 6) => f(message),
                (Body::Subscribe { topics, .. }, 7) => topics.iter().for_each(|t| f(&t.0)),
                (Body::Unsubscribe { topics, .. }, 8) => topics.iter().for_each(|t| f(t)),
                _ => {}
            }
        }
    }
}

impl Transaction for MqttTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Mqtt
    }

    fn complete(&self, _dir: Direction) -> bool {
        self.complete
    }

    /// Its direction is inspected from the start (Suricata 7.0.10 alerts an MQTT
    /// event on the next packet the transaction's way, sv-ether port 38108), the other
    /// never.
    fn started(&self, dir: Direction) -> bool {
        dir == self.dir
    }

    /// The events raised on this transaction, seen by rules inspecting its direction
    /// only: Suricata 7.0.10 alerts each once (sv-ether: `mqtt.missing_connect` on the
    /// CONNACK's way, `mqtt.unintroduced_message` on the PUBLISH's).
    fn tx_events(&self, dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        if dir == self.dir {
            self.events.each(super::EVENTS, f);
        }
        true
    }

    fn fingerprint(&self) -> (u64, u64) {
        (mix(self.packets.len() as u64, u64::from(self.complete)), 0)
    }

    /// Nothing in the other direction than the packet that opened the transaction, nor
    /// before it is complete (see `super::keywords::check`).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if dir == self.dir && self.complete {
            self.each_buffer(b.local(), f)
        }
    }

    /// `mqtt.type`, `mqtt.flags`, `mqtt.qos` ... (see `super::keywords`).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        super::keywords::check(self, opt, dir)
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::mqtt_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::mqtt_object(self)
    }

    /// A transaction the server opened (a PUBLISH to the client, a CONNACK with no
    /// CONNECT) is written server -> client, as Suricata writes it.
    fn log_reversed(&self) -> bool {
        self.dir == Direction::ToClient
    }
}

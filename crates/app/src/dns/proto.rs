//! DNS on the protocol contract: every message is a transaction, complete as it
//! arrives; `dns.query` is each question name of a request.

use serde_json::{Map, Value};

use super::{DnsState, DnsTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// DNS's inspection buffers.
pub(crate) static BUFFERS: &[BufferDef] =
    &[BufferDef::new("dns.query", Some(Direction::ToServer)).multi()];

/// DNS's application-layer events: a message that does not parse, or a request sent
/// to the client / a response sent to the server (Suricata's `dns.malformed_data`); a
/// message with the reserved Z flag set (`dns.z_flag_set`) or an opcode from 7 up
/// (`dns.invalid_opcode`).
pub(crate) static EVENTS: &[&str] = &["dns.malformed_data", "dns.z_flag_set", "dns.invalid_opcode"];

/// The index in [`EVENTS`] of `dns.malformed_data`.
pub(crate) const MALFORMED_DATA: usize = 0;
/// The index in [`EVENTS`] of `dns.z_flag_set`.
pub(crate) const Z_FLAG_SET: usize = 1;
/// The index in [`EVENTS`] of `dns.invalid_opcode`.
pub(crate) const INVALID_OPCODE: usize = 2;

/// The state of a new DNS flow (UDP or TCP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    let counter = match t {
        Transport::Udp => Counter::FlowDnsUdp,
        Transport::Tcp => Counter::FlowDnsTcp,
    };
    Some((
        AppState::Dns(slabs::SlabBox::new(DnsState::new(t))),
        counter,
    ))
}

impl Protocol for DnsState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        DnsState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            match self.need(dir) {
                0 => ParseResult::Ok,
                need => ParseResult::Incomplete { need },
            }
        }
    }

    /// A message that does not parse is counted (`dns.malformed`), not an app-layer
    /// error: the next datagram is parsed as usual.
    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        self.message(ctx, dir, payload, None);
        ParseResult::Ok
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        DnsState::gap(self, ctx, dir)
    }

    fn errored(&self) -> bool {
        DnsState::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        DnsState::events(self).each(EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn each_tx_from(&self, from: u64, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().filter(|t| t.id() >= from).for_each(|t| f(t))
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
            .find(|t| t.id() == id)
            .map(|t| t as &dyn Transaction)
    }

    fn free_txs_before(&mut self, id: u64) {
        DnsState::free_txs_before(self, id)
    }
}

impl Transaction for DnsTx {
    fn id(&self) -> u64 {
        DnsTx::id(self)
    }

    fn proto(&self) -> AppProto {
        AppProto::Dns
    }

    /// A DNS transaction is one message: complete as soon as it exists.
    fn complete(&self, _dir: Direction) -> bool {
        true
    }

    /// A response answers the request of the same message id.
    fn log_pair(&self) -> Option<(u64, bool)> {
        Some((u64::from(self.message().header.id), self.is_response()))
    }

    /// A DNS transaction never changes.
    fn fingerprint(&self) -> (u64, u64) {
        (0, 0)
    }

    /// A DNS transaction is one message: its events (`dns.z_flag_set`,
    /// `dns.malformed_data` of a message behind it, ...) are seen by rules
    /// inspecting the direction it travelled (Suricata 7.0.10: a request's event
    /// alerts on the next packet to the server, a response's to the client).
    fn tx_events(&self, dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        if dir == self.direction() {
            self.events().each(EVENTS, f);
        }
        true
    }

    fn buffers(&self, b: BufferId, _dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.local() == 0 {
            self.queries().for_each(f)
        }
    }

    /// `dns.opcode`: the message's header opcode (a request or a response), inspected
    /// in the direction the message travelled only (as Suricata, which reads a
    /// transaction's request to the server and its response to the client).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        match (&opt.value, opt.name) {
            (rules::AppValue::Ints(v), "dns.opcode") if self.direction() == dir => {
                let op = u64::from(self.message().header.opcode());
                v.iter().any(|c| c.matches(op)) != opt.negated
            }
            _ => false,
        }
    }

    /// Each message as it arrives: one `query` record per question of a request, an
    /// `answer` record for a response (EVE DNS v2).
    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        for q in super::log::dns_query_objects(self) {
            out(None, q);
        }
        if let Some(a) = super::log::dns_answer_object(self) {
            out(None, a);
        }
    }

    /// `query` (the question records) for a request, `answer` for a response.
    /// As Suricata 7.0.10 writes it in an alert: the format `version` once at the top,
    /// then the `query` list and the `answer` object without their own `version`.
    fn alert_object(&self) -> Value {
        let mut o = Map::new();
        let mut version = None;
        let mut strip = |v: &mut Value| {
            if let Some(x) = v.as_object_mut().and_then(|m| m.shift_remove("version")) {
                version.get_or_insert(x);
            }
        };
        let mut queries = super::log::dns_query_objects(self);
        queries.iter_mut().for_each(&mut strip);
        let mut answer = super::log::dns_answer_object(self);
        if let Some(a) = answer.as_mut() {
            strip(a);
        }
        if let Some(v) = version {
            o.insert("version".into(), v);
        }
        if !queries.is_empty() {
            o.insert("query".into(), Value::Array(queries));
        }
        if let Some(a) = answer {
            o.insert("answer".into(), a);
        }
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_tcp_message_is_incomplete_with_the_bytes_it_needs() {
        let mut ctx = AppCtx::default();
        let mut d = DnsState::new(Transport::Tcp);
        let query = [
            0, 19, 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        let dir = Direction::ToServer;
        let r = Protocol::parse(&mut d, &mut ctx, dir, &query[..1]);
        assert_eq!(r, ParseResult::Incomplete { need: 1 });
        let r = Protocol::parse(&mut d, &mut ctx, dir, &query[1..10]);
        assert_eq!(r, ParseResult::Incomplete { need: 11 });
        let r = Protocol::parse(&mut d, &mut ctx, dir, &query[10..]);
        assert_eq!(r, ParseResult::Ok);
        let mut n = 0;
        Protocol::each_tx(&d, &mut |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn alert_object_has_the_version_at_the_top() {
        let mut ctx = AppCtx::default();
        let mut d = DnsState::new(Transport::Udp);
        let query = [
            0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        let o = Protocol::find_tx(&d, 0).unwrap().alert_object();
        // As Suricata 7.0.10 writes it (sv-ether.pcap frame 1642).
        assert_eq!(
            o.to_string(),
            r#"{"version":2,"query":[{"type":"query","id":4660,"rrname":"a","rrtype":"A","tx_id":0,"opcode":0}]}"#
        );
    }

    #[test]
    fn a_datagram_that_does_not_parse_is_counted_without_an_event() {
        // Suricata 7.0.10 on a query cut at every byte (tests/parity/cases/dns-udp-cut):
        // no `dns.malformed_data` alert and no anomaly record, after a whole query or not.
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut d = DnsState::new(Transport::Udp);
        let mut events = Vec::new();
        let query = [
            0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query[..15]);
        Protocol::events(&d, &mut |e| events.push(e));
        assert!(events.is_empty());
        assert!(ctx.anomalies.is_empty());
        assert_eq!(ctx.counters.get(Counter::DnsMalformed), 1);
    }

    #[test]
    fn opcode_is_inspected_in_the_direction_of_its_message() {
        let mut ctx = AppCtx::default();
        let mut d = DnsState::new(Transport::Udp);
        let query = [
            0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        let opt = rules::AppOpt {
            name: "dns.opcode",
            protos: &[],
            negated: false,
            value: rules::AppValue::Ints(vec![rules::IntCmp::Eq(0)]),
        };
        let tx = Protocol::find_tx(&d, 0).unwrap();
        assert!(tx.check(&opt, Direction::ToServer));
        assert!(!tx.check(&opt, Direction::ToClient));
    }

    #[test]
    fn events_are_seen_in_the_direction_of_their_message() {
        let mut ctx = AppCtx::default();
        let mut d = DnsState::new(Transport::Udp);
        // The Z flag (0x0040) on a query.
        let query = [
            0x12, 0x34, 0x01, 0x40, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        let tx = Protocol::find_tx(&d, 0).unwrap();
        let seen = |dir| {
            let mut v = Vec::new();
            assert!(tx.tx_events(dir, &mut |e| v.push(e)));
            v
        };
        assert_eq!(seen(Direction::ToServer), ["dns.z_flag_set"]);
        assert!(seen(Direction::ToClient).is_empty());
    }

    #[test]
    fn z_flag_and_opcode_are_raised_on_their_message() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut d = DnsState::new(Transport::Udp);
        // Z flag (0x0040) on the first query, opcode 7 on the second.
        let mut query = [
            0x12, 0x34, 0x01, 0x40, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1,
        ];
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        query[2] = 0x39;
        query[3] = 0x00;
        Protocol::datagram(&mut d, &mut ctx, Direction::ToServer, &query);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(
            got,
            [("dns.z_flag_set", Some(0)), ("dns.invalid_opcode", Some(1))]
        );
    }
}

//! The per-flow MQTT state: each direction's stream cut into control packets, and the
//! packets grouped into transactions as Suricata 7 groups them: CONNECT with its
//! CONNACK, a PUBLISH with its PUBACK (QoS 1) or PUBREC, PUBREL and PUBCOMP (QoS 2),
//! SUBSCRIBE with SUBACK and UNSUBSCRIBE with UNSUBACK (by packet identifier); every
//! other packet is a transaction of its own.
//!
//! Until the client's CONNECT is seen, only a CONNACK (raising `mqtt.missing_connect`)
//! makes a transaction; other packets are counted (`osprey.app.mqtt.skipped`) and not
//! kept, as Suricata does not log them. A packet that does not parse ends the flow's
//! parsing (`mqtt.malformed_traffic`, `app_layer.error.mqtt.parser`).

use std::collections::VecDeque;

use super::parser::{body, fixed_header, Body, FixedHeader, Header, Packet};
use crate::events::Events;
use crate::{AppCtx, AppProto, Counter, Direction};

/// Packets longer than this are not buffered: their header makes a transaction and the
/// rest is skipped (Suricata's `max-msg-length`, 1 MiB).
pub const MAX_MSG_LEN: usize = 1 << 20;

/// One transaction: the packets that belong together, in arrival order.
#[derive(Clone, Debug)]
pub struct MqttTx {
    /// Transaction id, increasing within the flow.
    pub id: u64,
    /// The direction its first packet travelled.
    pub dir: Direction,
    /// Its packets.
    pub packets: Vec<Packet>,
    /// No further packet belongs to it.
    pub complete: bool,
    /// Events raised on it (indices into [`super::EVENTS`]).
    pub events: Events,
    /// The flow's protocol level when it opened (`mqtt.protocol_version`; 0 before a
    /// CONNECT).
    pub version: u8,
}

impl MqttTx {
    /// The first packet's type, if any.
    pub fn kind(&self) -> Option<u8> {
        self.packets.first().map(|p| p.header.kind)
    }

    /// The packet identifier of its first packet (PUBLISH, SUBSCRIBE, UNSUBSCRIBE).
    fn message_id(&self) -> Option<u16> {
        match &self.packets.first()?.body {
            Body::Publish { message_id, .. } => *message_id,
            Body::Subscribe { message_id, .. } | Body::Unsubscribe { message_id, .. } => {
                Some(*message_id)
            }
            _ => None,
        }
    }
}

/// MQTT state of one flow.
#[derive(Debug, Default)]
pub struct MqttState {
    txs: VecDeque<MqttTx>,
    next_id: u64,
    /// The protocol level of the CONNECT (0 before it).
    version: u8,
    connected: bool,
    acknowledged: bool,
    buf: [Vec<u8>; 2],
    /// Bytes of an over-long packet still to skip, per direction.
    skip: [usize; 2],
    error: bool,
    /// A direction lost bytes to a gap: its packets can no longer be cut.
    lost: [bool; 2],
    events: Events,
    completed: [bool; 2],
}

fn side(dir: Direction) -> usize {
    match dir {
        Direction::ToServer => 0,
        Direction::ToClient => 1,
    }
}

impl MqttState {
    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &MqttTx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether a packet did not parse (parsing stopped).
    pub fn errored(&self) -> bool {
        self.error
    }

    /// The protocol level the CONNECT announced (0 before it).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Bytes still needed to finish the packet in progress in `dir` (0: none known).
    pub fn need(&self, dir: Direction) -> usize {
        let b = &self.buf[side(dir)];
        match fixed_header(b) {
            Header::Ok(h) if h.remaining <= MAX_MSG_LEN => (h.len + h.remaining) - b.len(),
            _ => 0,
        }
    }

    /// Whether a packet of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[side(dir)])
    }

    /// In-order stream bytes of `dir`.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, mut data: &[u8]) {
        let s = side(dir);
        while !data.is_empty() && !self.error && !self.lost[s] {
            if self.skip[s] > 0 {
                let n = self.skip[s].min(data.len());
                self.skip[s] -= n;
                data = &data[n..];
                continue;
            }
            let buf = &mut self.buf[s];
            // Take what the packet in progress needs (its header first).
            let want = match fixed_header(buf) {
                Header::Ok(h) => (h.len + h.remaining).min(h.len + MAX_MSG_LEN),
                Header::Incomplete => buf.len() + 1,
                Header::Malformed => 0,
            };
            let n = want.saturating_sub(buf.len()).min(data.len());
            buf.extend_from_slice(&data[..n]);
            data = &data[n..];
            match fixed_header(buf) {
                Header::Incomplete => {}
                Header::Malformed => self.malformed(ctx, dir),
                Header::Ok(h) if h.remaining > MAX_MSG_LEN => {
                    let taken = buf.len() - h.len;
                    self.skip[s] = h.remaining - taken;
                    buf.clear();
                    ctx.counters.incr(Counter::MqttTruncated);
                    let p = Packet {
                        header: h,
                        body: Body::Truncated,
                    };
                    self.packet(ctx, dir, p);
                }
                Header::Ok(h) if buf.len() == h.len + h.remaining => {
                    let bytes = std::mem::take(buf);
                    self.packet_bytes(ctx, dir, &h, &bytes[h.len..]);
                }
                Header::Ok(_) => {}
            }
        }
    }

    /// A hole in `dir`: the packet in progress is lost and, with no way to find the
    /// next packet's start, that direction is no longer parsed (counted).
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.buf[side(dir)].clear();
        self.lost[side(dir)] = true;
    }

    fn malformed(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let id = self.new_tx(ctx, dir, Vec::new(), true);
        self.raise(ctx, id, super::MALFORMED_TRAFFIC);
        ctx.counters.incr(Counter::ErrorMqtt);
        self.error = true;
    }

    fn packet_bytes(&mut self, ctx: &mut AppCtx, dir: Direction, h: &FixedHeader, b: &[u8]) {
        let v5 = self.version >= 5;
        match body(h, b, v5) {
            Ok(body) => self.packet(ctx, dir, Packet { header: *h, body }),
            Err(_) => self.malformed(ctx, dir),
        }
    }

    fn raise(&mut self, ctx: &mut AppCtx, id: u64, e: usize) {
        self.events.raise(e);
        if let Some(t) = self.txs.iter_mut().find(|t| t.id == id) {
            t.events.raise(e);
        }
        ctx.anomalies
            .parser(AppProto::Mqtt, super::EVENTS[e], Some(id));
    }

    fn new_tx(
        &mut self,
        ctx: &mut AppCtx,
        dir: Direction,
        packets: Vec<Packet>,
        complete: bool,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxMqtt);
        self.txs.push_back(MqttTx {
            id,
            dir,
            packets,
            complete,
            events: Events::default(),
            version: self.version,
        });
        while self.txs.len() > ctx.config.max_tx.max(1) {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        id
    }

    /// The open transaction whose first packet is of type `kind` with packet
    /// identifier `id` (any identifier for `None`).
    fn open_tx(&mut self, kind: u8, id: Option<u16>) -> Option<&mut MqttTx> {
        self.txs.iter_mut().find(|t| {
            !t.complete && t.kind() == Some(kind) && (id.is_none() || t.message_id() == id)
        })
    }

    /// Attaches `p` to the open transaction of type `kind` and identifier `id`,
    /// completing it when `last`; `false` when there is none.
    fn attach(&mut self, kind: u8, id: Option<u16>, p: &Packet, last: bool) -> bool {
        match self.open_tx(kind, id) {
            Some(t) => {
                t.packets.push(p.clone());
                t.complete |= last;
                true
            }
            None => false,
        }
    }

    fn packet(&mut self, ctx: &mut AppCtx, dir: Direction, p: Packet) {
        self.completed[side(dir)] = true;
        let kind = p.header.kind;
        if kind == 1 {
            let double = self.connected;
            if let Body::Connect(c) = &p.body {
                self.version = c.protocol_version;
            }
            self.connected = true;
            self.acknowledged = false;
            let id = self.new_tx(ctx, dir, vec![p], false);
            if double {
                self.raise(ctx, id, super::DOUBLE_CONNECT);
            }
            return;
        }
        if !self.connected && kind != 2 {
            ctx.counters.incr(Counter::MqttSkipped);
            return;
        }
        let unintroduced = self.connected && !self.acknowledged && kind != 2;
        let ack_id = match &p.body {
            Body::Ack { message_id, .. }
            | Body::Suback { message_id, .. }
            | Body::Unsuback { message_id, .. } => Some(*message_id),
            _ => None,
        };
        let (found, missing) = match kind {
            2 => {
                self.acknowledged = true;
                let last = true;
                (self.attach(1, None, &p, last), Some(super::MISSING_CONNECT))
            }
            4 => (
                self.attach(3, ack_id, &p, true),
                Some(super::MISSING_PUBLISH),
            ),
            5 | 6 => (
                self.attach(3, ack_id, &p, false),
                Some(super::MISSING_PUBLISH),
            ),
            7 => (
                self.attach(3, ack_id, &p, true),
                Some(super::MISSING_PUBLISH),
            ),
            9 => (
                self.attach(8, ack_id, &p, true),
                Some(super::MISSING_SUBSCRIBE),
            ),
            11 => (
                self.attach(10, ack_id, &p, true),
                Some(super::MISSING_UNSUBSCRIBE),
            ),
            _ => (false, None),
        };
        if found {
            return;
        }
        let unassigned = matches!(p.body, Body::Unassigned);
        let qos = p.header.qos();
        // A PUBLISH of QoS 3 (invalid) waits for an acknowledgement as QoS 1 and 2
        // do: Suricata 7.0.10 logs it at the end of the flow and inspects it as
        // incomplete (difftest mqtt, seed 1, cases 176 and 834).
        let waits = match kind {
            3 => qos != 0,
            8 | 10 => true,
            _ => false,
        };
        let id = self.new_tx(ctx, dir, vec![p], !waits);
        if let Some(e) = missing {
            self.raise(ctx, id, e);
        }
        if kind == 3 && qos == 3 {
            self.raise(ctx, id, super::INVALID_QOS_LEVEL);
        }
        if unassigned {
            self.raise(ctx, id, super::UNASSIGNED_MSG_TYPE);
        }
        if unintroduced {
            self.raise(ctx, id, super::UNINTRODUCED_MESSAGE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{ToClient as C, ToServer as S};

    /// Version 5 CONNECT with a bogus property length (sv-ether.pcap, port 37758).
    const BAD_CONNECT: &[u8] = b"\x10\x2f\x00\x04MQTT\x05\xc2\x00\x3c\xff\x21\x00\x14\x00\x13myvoiceismypassport\x00\x04user\x00\x04pass";
    /// Version 5 CONNECT and CONNACK (sv-ether.pcap, port 37844).
    const CONNECT: &[u8] = b"\x10\x2f\x00\x04MQTT\x05\xc2\x00\x3c\x03\x21\x00\x14\x00\x13myvoiceismypassport\x00\x04user\x00\x04pass";
    const CONNACK: &[u8] = b"\x20\x06\x00\x00\x03\x22\x00\x0a";

    fn feed(s: &mut MqttState, ctx: &mut AppCtx, turns: &[(Direction, &[u8])]) {
        for (d, b) in turns {
            s.parse(ctx, *d, b);
        }
    }

    fn kinds(s: &MqttState) -> Vec<(Vec<u8>, bool)> {
        s.txs()
            .map(|t| {
                (
                    t.packets.iter().map(|p| p.header.kind).collect(),
                    t.complete,
                )
            })
            .collect()
    }

    #[test]
    fn a_qos_2_publish_gathers_its_acknowledgements() {
        let mut ctx = AppCtx::default();
        let mut s = MqttState::default();
        // sv-ether.pcap, port 37844: PUBLISH QoS 2, PUBREC, PUBREL, PUBCOMP, DISCONNECT
        // (the client's packets split across calls).
        let publish = b"\x34\x1b\x00\x06topicX\x00\x01\x00baabaablacksheep";
        feed(
            &mut s,
            &mut ctx,
            &[
                (S, CONNECT),
                (C, CONNACK),
                (S, &publish[..5]),
                (S, &publish[5..]),
                (C, b"\x50\x02\x00\x01"),
                (S, b"\x62\x02\x00\x01"),
                (C, b"\x70\x02\x00\x01"),
                (S, b"\xe0\x00"),
            ],
        );
        assert_eq!(
            kinds(&s),
            [
                (vec![1, 2], true),
                (vec![3, 5, 6, 7], true),
                (vec![14], true)
            ]
        );
        assert_eq!(s.version(), 5);
        assert!(s.events().is_empty());
        assert_eq!(ctx.counters.get(Counter::TxMqtt), 3);
    }

    #[test]
    fn packets_out_of_place_raise_their_events() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = MqttState::default();
        // A CONNACK first, a SUBSCRIBE before any CONNECT (skipped), then a CONNECT
        // followed by a PUBLISH before its CONNACK (sv-ether.pcap, port 38108).
        let sub = b"\x82\x16\x00\x01\x00\x11house/bulbs/bulb1\x01";
        let connect = b"\x10\x2d\x00\x06MQIsdp\x03\xc2\x00\x3c\x00\x13myvoiceismypassport\x00\x04user\x00\x04pass";
        let publish = b"\x30\x18\x00\x06topicXbaabaablacksheep";
        feed(
            &mut s,
            &mut ctx,
            &[
                (C, b"\x20\x02\x00\x00"),
                (S, sub),
                (S, connect),
                (S, publish),
            ],
        );
        assert_eq!(
            kinds(&s),
            [(vec![2], true), (vec![1], false), (vec![3], true)]
        );
        assert_eq!(ctx.counters.get(Counter::MqttSkipped), 1);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(
            got,
            [
                ("mqtt.missing_connect", Some(0)),
                ("mqtt.unintroduced_message", Some(2))
            ]
        );
        // Rules see each event on its transaction, in that transaction's direction
        // only (Suricata 7.0.10 alerts each once on sv-ether).
        use crate::Transaction;
        let seen = |t: &MqttTx, dir| {
            let mut v = Vec::new();
            assert!(t.tx_events(dir, &mut |e| v.push(e)));
            (v, t.started(dir))
        };
        let txs: Vec<_> = s.txs.iter().collect();
        assert_eq!(seen(txs[0], C), (vec!["mqtt.missing_connect"], true));
        assert_eq!(seen(txs[0], S), (vec![], false));
        assert_eq!(seen(txs[1], S), (vec![], true));
        assert_eq!(seen(txs[2], S), (vec!["mqtt.unintroduced_message"], true));
        assert_eq!(seen(txs[2], C), (vec![], false));
    }

    #[test]
    fn a_malformed_packet_ends_parsing() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = MqttState::default();
        feed(&mut s, &mut ctx, &[(S, BAD_CONNECT), (C, CONNACK)]);
        assert!(s.errored());
        assert_eq!(kinds(&s), [(vec![], true)]);
        assert_eq!(ctx.counters.get(Counter::ErrorMqtt), 1);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        assert_eq!(got, ["mqtt.malformed_traffic"]);
    }

    #[test]
    fn reserved_types_and_qos_3_are_flagged() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = MqttState::default();
        // sv-ether.pcap, ports 38500 (PUBLISH with QoS 3) and 38458 (type 0).
        let publish = b"\x36\x1a\x00\x06topicX\x00\x01baabaablacksheep";
        let reserved = b"\x00\x18\x00\x06topicXbaabaablacksheep";
        let connect = b"\x10\x0e\x00\x04MQTT\x04\x02\x00\x3c\x00\x02P1";
        let connack = b"\x20\x02\x00\x00";
        feed(
            &mut s,
            &mut ctx,
            &[(S, connect), (C, connack), (S, publish), (S, reserved)],
        );
        // The QoS 3 PUBLISH waits for an acknowledgement, as QoS 1 and 2 do.
        assert_eq!(
            kinds(&s),
            [(vec![1, 2], true), (vec![3], false), (vec![0], true)]
        );
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(
            got,
            [
                ("mqtt.invalid_qos_level", Some(1)),
                ("mqtt.unassigned_msg_type", Some(2))
            ]
        );
    }

    #[test]
    fn long_packets_are_skipped_and_gaps_stop_a_direction() {
        let mut ctx = AppCtx::default();
        let mut s = MqttState::default();
        let connect = b"\x10\x0e\x00\x04MQTT\x04\x02\x00\x3c\x00\x02P1";
        feed(&mut s, &mut ctx, &[(S, connect), (C, b"\x20\x02\x00\x00")]);
        // A PUBLISH of 2 MiB: its header makes a transaction, its bytes are skipped.
        let mut big = vec![0x30, 0x80, 0x80, 0x80, 0x01];
        big.resize(5 + (2 << 20), b'x');
        s.parse(&mut ctx, S, &big);
        s.parse(&mut ctx, S, b"\xc0\x00");
        assert_eq!(ctx.counters.get(Counter::MqttTruncated), 1);
        assert_eq!(kinds(&s)[1..], [(vec![3], true), (vec![12], true)]);
        s.gap(&mut ctx, S);
        s.parse(&mut ctx, S, b"\xc0\x00");
        assert_eq!(kinds(&s).len(), 3);
        assert!(!s.errored());
    }

    #[test]
    fn live_transactions_are_bounded() {
        let mut ctx = AppCtx::default();
        ctx.config.max_tx = 8;
        let mut s = MqttState::default();
        let connect = b"\x10\x0e\x00\x04MQTT\x04\x02\x00\x3c\x00\x02P1";
        s.parse(&mut ctx, S, connect);
        for _ in 0..100 {
            s.parse(&mut ctx, S, b"\xc0\x00");
        }
        assert_eq!(s.txs().count(), 8);
        assert_eq!(ctx.counters.get(Counter::TxLimit), 93);
    }
}

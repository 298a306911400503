//! Per-flow DNS state: every parsed message becomes a transaction (Suricata's DNS
//! parser does the same: a response is its own transaction, `app_layer.tx.dns_*`
//! counts both).

use std::collections::VecDeque;

use super::parser::{parse_message_into, DnsMessage, RData};
use crate::{AppCtx, AppProto, Counter, Direction, Events, Transport};

/// One DNS message of a flow.
#[derive(Clone, Debug)]
pub struct DnsTx {
    id: u64,
    dir: Direction,
    message: DnsMessage,
    /// Events raised on this message (indices into [`EVENTS`](super::EVENTS)).
    events: Events,
}

impl DnsTx {
    /// Transaction id within the flow.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Direction the message travelled.
    pub fn direction(&self) -> Direction {
        self.dir
    }

    /// The events raised on this transaction (see [`super::EVENTS`]).
    pub fn events(&self) -> Events {
        self.events
    }

    /// The parsed message.
    pub fn message(&self) -> &DnsMessage {
        &self.message
    }

    /// Whether this is a response (QR bit set).
    pub fn is_response(&self) -> bool {
        self.message.header.is_response()
    }

    /// The `dns.query` buffers: each question name of a request (empty for responses).
    pub fn queries(&self) -> impl Iterator<Item = &[u8]> {
        let req = !self.is_response();
        self.message
            .queries
            .iter()
            .filter(move |_| req)
            .map(|q| q.name.as_slice())
    }
}

/// Most parsed messages of each direction kept per thread for the next ones (every
/// worker is one thread).
const MAX_SPARE: usize = 64;
/// A message is kept only while its lists and buffers hold at most this many bytes, so
/// the kept ones hold at most `2 * MAX_SPARE * MAX_SPARE_BYTES` (512 KiB) per thread.
const MAX_SPARE_BYTES: usize = 4096;

thread_local! {
    /// Messages of freed transactions, their lists and name buffers kept: a new message
    /// is parsed into one (`parse_message_into`), so DNS does not allocate per message
    /// once a worker is warm.
    /// Requests and responses apart (a response's records would be new in a request's
    /// lists), each up to [`MAX_SPARE`].
    static SPARE: std::cell::RefCell<[Vec<DnsMessage>; 2]> = const { std::cell::RefCell::new([Vec::new(), Vec::new()]) };
}

/// A message to parse into, going `dir`: a freed one of that direction when there is
/// one.
fn take_message(dir: Direction) -> DnsMessage {
    SPARE
        .try_with(|s| s.try_borrow_mut().ok()?[dir.index()].pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The bytes `msg`'s lists and buffers hold.
fn held_bytes(msg: &DnsMessage) -> usize {
    let rr = |a: &super::parser::DnsAnswer| {
        a.name.capacity()
            + match &a.rdata {
                RData::Name(b) | RData::Other(b) => b.capacity(),
                RData::Sshfp { fingerprint, .. } => fingerprint.capacity(),
                RData::Soa(s) => s.mname.capacity() + s.rname.capacity(),
                RData::A(_) | RData::Aaaa(_) => 0,
            }
    };
    msg.queries.capacity() * std::mem::size_of::<super::parser::DnsQuery>()
        + msg.queries.iter().map(|q| q.name.capacity()).sum::<usize>()
        + (msg.answers.capacity() + msg.authorities.capacity())
            * std::mem::size_of::<super::parser::DnsAnswer>()
        + msg
            .answers
            .iter()
            .chain(&msg.authorities)
            .map(rr)
            .sum::<usize>()
}

/// Keeps a message no transaction holds any more for [`take_message`], while there is
/// room and it is not too large.
fn give_message(msg: DnsMessage) {
    if held_bytes(&msg) > MAX_SPARE_BYTES {
        return;
    }
    let _ = SPARE.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            // A message that did not parse may hold a part of either kind: its header
            // says which lists it filled.
            let kept = &mut s[usize::from(msg.header.is_response())];
            if kept.len() < MAX_SPARE {
                kept.push(msg);
            }
        }
    });
}

impl Drop for DnsState {
    /// The flow is gone: its messages go back to the thread's spare ones.
    fn drop(&mut self) {
        while let Some(tx) = self.txs.pop_front() {
            give_message(tx.message);
        }
    }
}

/// DNS over TCP: reassembly of length-prefixed messages in one direction.
#[derive(Debug, Default)]
struct TcpSide {
    buf: Vec<u8>,
    lost: bool,
}

// The states of new DNS flows come from the worker's slab (`slabs`), not a box each.
slabs::slabbed!(DnsState);

/// DNS state of one flow.
#[derive(Debug)]
pub struct DnsState {
    transport: Transport,
    txs: VecDeque<DnsTx>,
    next_id: u64,
    tcp: [TcpSide; 2],
    /// A DNS-over-TCP message did not parse: Suricata's parser returns an error there.
    error: bool,
    /// Events raised (indices into [`EVENTS`](super::EVENTS)).
    events: Events,
}

impl DnsState {
    /// A fresh state for DNS over `transport`.
    pub fn new(transport: Transport) -> Self {
        DnsState {
            transport,
            txs: VecDeque::new(),
            next_id: 0,
            tcp: Default::default(),
            error: false,
            events: Events::default(),
        }
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &DnsTx> {
        self.txs.iter()
    }

    /// The application-layer events raised on the flow (see [`super::EVENTS`]).
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether a DNS-over-TCP message did not parse (or travelled the wrong way), where
    /// Suricata's parser returns an error, which ends the flow's app layer. A bad UDP
    /// datagram is only counted: Suricata's UDP parser carries on with the next one.
    pub fn errored(&self) -> bool {
        self.error
    }

    /// Number of transactions created so far.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// Frees transactions with an id below `id`.
    pub fn free_txs_before(&mut self, id: u64) {
        while self.txs.front().is_some_and(|t| t.id < id) {
            if let Some(tx) = self.txs.pop_front() {
                give_message(tx.message);
            }
        }
    }

    /// One message (a UDP payload, or a TCP message without its length prefix).
    /// Requests must travel to the server and responses to the client, as Suricata
    /// requires; other messages are counted malformed (`false`).
    ///
    /// Suricata sets `dns.malformed_data` on the flow's last transaction, where it is
    /// seen only while that transaction is still to be inspected and logged: behind a
    /// message parsed from the same stream chunk (`prior`, its transaction id). A
    /// datagram's event, one with no transaction before it in the chunk, or one on a
    /// message too short for the records its header counts (see
    /// [`super::parser::probe_header`]) is never seen: Suricata 7.0.10 logs no anomaly
    /// and matches no rule there (tests/parity/cases/dns-udp-cut, dns-tcp-cut).
    pub fn message(
        &mut self,
        ctx: &mut AppCtx,
        dir: Direction,
        m: &[u8],
        prior: Option<u64>,
    ) -> bool {
        let mut msg = take_message(dir);
        let parsed = parse_message_into(m, &mut msg);
        let msg = match parsed {
            Ok(()) if msg.header.is_response() == (dir == Direction::ToClient) => msg,
            _ => {
                give_message(msg);
                ctx.counters.incr(Counter::DnsMalformed);
                let long_enough = super::parser::probe_header(m, dir, false, m.len());
                let last = self.txs.back_mut().filter(|t| Some(t.id) == prior);
                if let (Some(tx), true) = (last, long_enough) {
                    self.events.raise(super::MALFORMED_DATA);
                    tx.events.raise(super::MALFORMED_DATA);
                    let event = super::EVENTS[super::MALFORMED_DATA];
                    ctx.anomalies.parser(AppProto::Dns, event, Some(tx.id));
                }
                return false;
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        let flags = [
            (msg.header.flags & 0x0040 != 0, super::Z_FLAG_SET),
            (msg.header.opcode() >= 7, super::INVALID_OPCODE),
        ];
        let mut events = Events::default();
        for (_, e) in flags.into_iter().filter(|f| f.0) {
            self.events.raise(e);
            events.raise(e);
            ctx.anomalies
                .parser(AppProto::Dns, super::EVENTS[e], Some(id));
        }
        ctx.counters.incr(match self.transport {
            Transport::Udp => Counter::TxDnsUdp,
            Transport::Tcp => Counter::TxDnsTcp,
        });
        self.txs.push_back(DnsTx {
            id,
            dir,
            message: msg,
            events,
        });
        while self.txs.len() > ctx.config.max_tx.max(1) {
            if let Some(tx) = self.txs.pop_front() {
                give_message(tx.message);
            }
            ctx.counters.incr(Counter::TxLimit);
        }
        true
    }

    /// One length-delimited message of DNS over TCP: one that does not parse is a
    /// parser error, and that direction stops.
    fn tcp_message(&mut self, ctx: &mut AppCtx, dir: Direction, m: &[u8], first: u64) -> bool {
        let prior = (self.next_id > first).then(|| self.next_id - 1);
        if self.message(ctx, dir, m, prior) {
            return true;
        }
        if !self.error {
            ctx.counters.incr(Counter::ErrorDnsTcp);
            self.error = true;
        }
        let side = &mut self.tcp[dir.index()];
        side.buf = Vec::new();
        side.lost = true;
        false
    }

    /// Stream bytes of DNS over TCP: 2-byte big-endian length, then the message. A
    /// zero length is skipped, as Suricata does (no message, no error).
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let first = self.next_id;
        if self.tcp[d].lost {
            return;
        }
        let mut input = data;
        // Zero-copy fast path: whole messages straight from `data`.
        if self.tcp[d].buf.is_empty() {
            while input.len() >= 2 {
                let len = usize::from(u16::from_be_bytes([input[0], input[1]]));
                if input.len() < 2 + len {
                    break;
                }
                if len > 0 && !self.tcp_message(ctx, dir, &input[2..2 + len], first) {
                    return;
                }
                input = &input[2 + len..];
            }
        }
        if input.is_empty() {
            return;
        }
        let cap = ctx.config.dns_tcp_limit.min(65_535) + 2;
        let side = &mut self.tcp[d];
        side.buf.extend_from_slice(input);
        let mut buf = std::mem::take(&mut side.buf);
        let mut off = 0;
        while buf.len() - off >= 2 {
            let len = usize::from(u16::from_be_bytes([buf[off], buf[off + 1]]));
            if buf.len() - off < 2 + len {
                break;
            }
            if len > 0 && !self.tcp_message(ctx, dir, &buf[off + 2..off + 2 + len], first) {
                return;
            }
            off += 2 + len;
        }
        buf.drain(..off);
        // A length prefix caps a message at 65,537 bytes: more pending means a bug.
        if buf.len() > cap {
            buf = Vec::new();
        }
        self.tcp[d].buf = buf;
    }

    /// How many more bytes direction `dir` needs to complete the TCP message it holds in
    /// part (the length prefix first); 0 when it holds none.
    pub fn need(&self, dir: Direction) -> usize {
        let buf = &self.tcp[dir.index()].buf;
        match buf.len() {
            0 => 0,
            1 => 1,
            n => (2 + usize::from(u16::from_be_bytes([buf[0], buf[1]]))).saturating_sub(n),
        }
    }

    /// A hole in a TCP direction: the message boundary is lost, so that direction
    /// stops.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        let side = &mut self.tcp[dir.index()];
        side.buf = Vec::new();
        side.lost = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse_message;
    use super::super::parser::tests::{answer_a, query};
    use super::*;

    fn tcp_stream(msgs: &[Vec<u8>]) -> Vec<u8> {
        let mut s = vec![];
        for m in msgs {
            s.extend_from_slice(&(m.len() as u16).to_be_bytes());
            s.extend_from_slice(m);
        }
        s
    }

    #[test]
    fn udp_messages_are_transactions() {
        let mut ctx = AppCtx::default();
        let mut s = DnsState::new(Transport::Udp);
        s.message(
            &mut ctx,
            Direction::ToServer,
            &query(1, "a.example", 1),
            None,
        );
        s.message(
            &mut ctx,
            Direction::ToClient,
            &answer_a(1, "a.example", [1, 1, 1, 1]),
            None,
        );
        s.message(&mut ctx, Direction::ToServer, b"junk", None);
        // A response sent to the server is not accepted.
        s.message(
            &mut ctx,
            Direction::ToServer,
            &answer_a(1, "x", [1, 1, 1, 1]),
            None,
        );
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 2);
        assert_eq!(
            txs[0].queries().collect::<Vec<_>>(),
            vec![&b"a.example"[..]]
        );
        assert_eq!(txs[1].queries().count(), 0);
        assert!(txs[1].is_response());
        assert_eq!(ctx.counters.get(Counter::TxDnsUdp), 2);
        assert_eq!(ctx.counters.get(Counter::DnsMalformed), 2);
        // Suricata's UDP parser carries on after a bad datagram: no parser error.
        assert!(!s.errored());
        assert_eq!(ctx.counters.get(Counter::ErrorDnsTcp), 0);
    }

    #[test]
    fn freed_messages_serve_the_next_ones_of_their_direction() {
        let mut ctx = AppCtx::default();
        let mut s = DnsState::new(Transport::Udp);
        let q = query(1, "the-first.example", 1);
        let r = answer_a(1, "the-first.example", [1, 1, 1, 1]);
        s.message(&mut ctx, Direction::ToServer, &q, None);
        s.message(&mut ctx, Direction::ToClient, &r, None);
        let txs: Vec<_> = s.txs().collect();
        let (qname, rname) = (
            txs[0].message().queries[0].name.as_ptr(),
            txs[1].message().answers[0].name.as_ptr(),
        );
        s.free_txs_before(2);
        // Another flow: its query takes the freed query's buffers, its response the
        // response's, and each parses as a fresh message would.
        let mut t = DnsState::new(Transport::Udp);
        let q2 = query(2, "second.example", 28);
        let r2 = answer_a(2, "second.example", [2, 2, 2, 2]);
        t.message(&mut ctx, Direction::ToServer, &q2, None);
        t.message(&mut ctx, Direction::ToClient, &r2, None);
        let txs: Vec<_> = t.txs().collect();
        assert_eq!(txs[0].message().queries[0].name.as_ptr(), qname);
        assert_eq!(txs[1].message().answers[0].name.as_ptr(), rname);
        assert_eq!(*txs[0].message(), parse_message(&q2).unwrap());
        assert_eq!(*txs[1].message(), parse_message(&r2).unwrap());
        // A dropped flow's messages are kept too; a message that did not parse goes
        // back at once.
        drop(t);
        let mut u = DnsState::new(Transport::Udp);
        u.message(&mut ctx, Direction::ToServer, b"junk", None);
        u.message(&mut ctx, Direction::ToServer, &q, None);
        let txs: Vec<_> = u.txs().collect();
        assert_eq!(txs.len(), 1);
        assert_eq!(*txs[0].message(), parse_message(&q).unwrap());
    }

    #[test]
    fn tcp_malformed_message_is_a_parser_error() {
        let mut stream = tcp_stream(&[query(1, "one.test", 1)]);
        stream.extend_from_slice(&tcp_stream(&[b"junk".to_vec(), query(2, "two.test", 1)]));
        for split in [1, 3, stream.len()] {
            let mut ctx = AppCtx::default();
            let mut s = DnsState::new(Transport::Tcp);
            for c in stream.chunks(split) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            assert!(s.errored(), "split {split}");
            assert_eq!(s.tx_count(), 1, "the direction stops at the bad message");
            assert_eq!(ctx.counters.get(Counter::ErrorDnsTcp), 1);
        }
    }

    #[test]
    fn tcp_any_split() {
        let stream = tcp_stream(&[query(1, "one.test", 1), query(2, "two.test", 28)]);
        for split in 1..stream.len() {
            let mut ctx = AppCtx::default();
            let mut s = DnsState::new(Transport::Tcp);
            for c in stream.chunks(split) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            let names: Vec<_> = s.txs().flat_map(|t| t.queries()).collect();
            assert_eq!(
                names,
                vec![&b"one.test"[..], &b"two.test"[..]],
                "split {split}"
            );
            assert_eq!(ctx.counters.get(Counter::TxDnsTcp), 2);
        }
    }

    #[test]
    fn tcp_zero_length_messages_are_skipped() {
        // Suricata 7.0.10 skips a zero length prefix (tests/parity/cases/dns-tcp-cut).
        let mut stream = vec![0, 0];
        stream.extend_from_slice(&tcp_stream(&[query(1, "one.test", 1)]));
        stream.extend_from_slice(&[0, 0, 0, 0]);
        for split in [1, 2, stream.len()] {
            let mut ctx = AppCtx::default();
            let mut s = DnsState::new(Transport::Tcp);
            for c in stream.chunks(split) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            assert!(!s.errored(), "split {split}");
            assert_eq!(s.tx_count(), 1, "split {split}");
            assert_eq!(s.need(Direction::ToServer), 0, "split {split}");
        }
    }

    #[test]
    fn malformed_data_is_raised_only_behind_a_message_of_the_same_chunk() {
        let q = query(1, "one.test", 1);
        let cut = &q[..q.len() - 3];
        // Cut short in a chunk of its own: counted, no event (Suricata 7.0.10).
        let mut ctx = AppCtx::default();
        let mut s = DnsState::new(Transport::Tcp);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &tcp_stream(std::slice::from_ref(&q)),
        );
        s.parse(&mut ctx, Direction::ToServer, &tcp_stream(&[cut.to_vec()]));
        assert!(s.errored());
        assert_eq!(ctx.counters.get(Counter::DnsMalformed), 1);
        assert!(s.events().is_empty());
        assert!(ctx.anomalies.is_empty());
        // Behind a whole message of the same chunk: on that message's transaction.
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = DnsState::new(Transport::Tcp);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &tcp_stream(&[q.clone(), cut.to_vec()]),
        );
        assert_eq!(s.tx_count(), 1);
        assert!(s
            .txs()
            .next()
            .unwrap()
            .events()
            .has(super::super::MALFORMED_DATA));
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(got, [("dns.malformed_data", Some(0))]);
        // A header alone counting two questions: too short to be DNS, no event.
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = DnsState::new(Transport::Tcp);
        let mut two = q[..12].to_vec();
        two[5] = 2;
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &tcp_stream(&[q.clone(), two]),
        );
        assert!(ctx.anomalies.is_empty());
    }

    #[test]
    fn tcp_gap_stops_direction() {
        let mut ctx = AppCtx::default();
        let mut s = DnsState::new(Transport::Tcp);
        s.gap(&mut ctx, Direction::ToServer);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &tcp_stream(&[query(1, "x.y", 1)]),
        );
        assert_eq!(s.tx_count(), 0);
    }

    /// `each_tx_from` and `each_tx_while` visit what `each_tx` does, from an id on or
    /// until stopped (the defaults of `Protocol` and DNS's own).
    #[test]
    fn each_tx_from_and_while_agree_with_each_tx() {
        use crate::proto::Protocol;
        let mut ctx = AppCtx::default();
        let mut s = DnsState::new(Transport::Udp);
        for i in 0..6u16 {
            s.message(&mut ctx, Direction::ToServer, &query(i, "a.test", 1), None);
        }
        let mut all = Vec::new();
        s.each_tx(&mut |t| all.push(t.id()));
        assert_eq!(all.len(), 6);
        for from in 0..8 {
            let mut got = Vec::new();
            s.each_tx_from(from, &mut |t| got.push(t.id()));
            let want: Vec<u64> = all.iter().copied().filter(|&i| i >= from).collect();
            assert_eq!(got, want, "from {from}");
            let mut upto = Vec::new();
            s.each_tx_while(&mut |t| {
                if t.id() >= from {
                    return false;
                }
                upto.push(t.id());
                true
            });
            let want: Vec<u64> = all.iter().copied().filter(|&i| i < from).collect();
            assert_eq!(upto, want, "while below {from}");
        }
    }
}

//! DNP3's per-flow state: each direction's bytes are cut into link frames (CRCs
//! checked), transport segments are reassembled from FIR to FIN, and each
//! application fragment is one transaction (requests from the master, responses and
//! unsolicited responses from the outstation; confirms make none), as Suricata.
//!
//! A transaction opens with its fragment's first segment and completes with its last;
//! one whose objects were all read is done then; one that stopped early (an unknown
//! object, missing data) or never got its last segment is done when the flow ends
//! (not when the TCP session closes: Suricata inspects it on the flow's end).

use std::collections::VecDeque;

use super::link::{frame, Frame, LinkHeader};
use super::parser::{parse, Fragment};
use super::proto::{BAD_LINK_CRC, BAD_TRANSPORT_CRC, FLOODED, LEN_TOO_SMALL, UNKNOWN_OBJECT};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// Bytes buffered per direction while a link frame is incomplete (a frame is at
/// most 292 bytes).
pub const MAX_BUFFER: usize = 4096;

/// Bytes of one application fragment reassembled from transport segments at most.
pub const MAX_FRAGMENT: usize = 65536;

/// Unanswered requests past which a new one raises `dnp3.flooded` (Suricata's
/// default `request-flood`).
pub const REQUEST_FLOOD: u64 = 500;

/// One application fragment.
#[derive(Debug)]
pub struct Dnp3Tx {
    pub(crate) id: u64,
    /// From the master (a request) or from the outstation.
    pub request: bool,
    /// The link header of the frame that ended the fragment.
    pub link: LinkHeader,
    /// The parsed fragment.
    pub fragment: Fragment,
    /// The fragment's bytes (the `dnp3.data` buffer).
    pub data: Vec<u8>,
    /// Done: every object read, or the flow ended.
    pub done: bool,
    /// Events raised on the transaction (indices into [`super::EVENTS`]).
    pub events: Events,
}

/// One direction's link and transport state.
#[derive(Debug, Default)]
struct Side {
    buf: Vec<u8>,
    /// Inside a fragment (a FIR segment came, its FIN not yet).
    in_fragment: bool,
    /// Application bytes of the fragment so far.
    len: usize,
    /// Transport segments of the fragment so far.
    segs: u32,
    /// The transaction of the fragment being reassembled (none for a confirm).
    open: Option<u64>,
    lost: bool,
}

/// The DNP3 state of one flow.
#[derive(Debug, Default)]
pub struct Dnp3State {
    txs: VecDeque<Dnp3Tx>,
    next_id: u64,
    sides: [Side; 2],
    failed: bool,
    events: Events,
    completed: [bool; 2],
    unreplied: u64,
}

impl Dnp3State {
    /// A fresh state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &Dnp3Tx> {
        self.txs.iter()
    }

    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the parser failed (nothing more is parsed).
    pub fn errored(&self) -> bool {
        self.failed
    }

    /// Whether a fragment of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()])
    }

    /// In-order TCP bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        if self.failed || self.sides[d].lost {
            return;
        }
        let mut buf = std::mem::take(&mut self.sides[d].buf);
        buf.extend_from_slice(data);
        let mut at = 0;
        while at < buf.len() {
            match frame(&buf[at..]) {
                Frame::Incomplete => break,
                Frame::NoStart => {
                    // Not a frame boundary: skip to the next start bytes.
                    let skip = buf[at + 1..]
                        .windows(2)
                        .position(|w| w == super::link::START)
                        .map_or(buf.len() - at, |p| p + 1);
                    for _ in 0..skip {
                        ctx.counters.incr(Counter::Dnp3Skipped);
                    }
                    at += skip;
                }
                Frame::TooSmall => return self.fail(ctx, LEN_TOO_SMALL),
                Frame::BadHeaderCrc => return self.fail(ctx, BAD_LINK_CRC),
                Frame::Whole { header, len, user } => {
                    at += len;
                    match user {
                        None => self.raise_current(BAD_TRANSPORT_CRC),
                        Some(u) if header.has_user_data() && !u.is_empty() => {
                            self.segment(ctx, dir, header, &u);
                            if self.failed {
                                // A short response segment: the frames after it in
                                // the same bytes are not read either.
                                return;
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        let rest = &buf[at..];
        if rest.len() > MAX_BUFFER {
            ctx.counters.incr(Counter::Dnp3BufferLimit);
            self.failed = true;
            ctx.counters.incr(Counter::ErrorDnp3);
            return;
        }
        self.sides[d].buf = rest.to_vec();
    }

    /// A parser error: the event on the current transaction, nothing more parsed.
    fn fail(&mut self, ctx: &mut AppCtx, ev: usize) {
        self.raise_current(ev);
        self.failed = true;
        self.sides = Default::default();
        ctx.counters.incr(Counter::ErrorDnp3);
    }

    /// One transport segment (header byte first) of direction `dir`.
    ///
    /// As Suricata 7.0.10: a first segment (FIR) opens the fragment's transaction at
    /// once, with its application header (function, internal indications) and the
    /// bytes so far; later segments add to it and the last (FIN) completes it. A
    /// fragment that never completes stays an unfinished transaction, inspected when
    /// the flow ends (its header matches then, no object was decoded).
    fn segment(&mut self, ctx: &mut AppCtx, dir: Direction, header: LinkHeader, u: &[u8]) {
        let d = dir.index();
        let th = u[0];
        // Suricata ignores a request segment with less than the application header's
        // two bytes after the transport header (the fragment it belongs to stays
        // unfinished), and a response segment with less than the header and internal
        // indications is a parser error that ends parsing (an open response stays
        // unfinished): the first segment of a fragment or the second; from the third
        // on, a short segment is taken as any other (found with hand-made fragments:
        // header, 4 bytes, then 2 completes; header, then 2 does not).
        let head = if dir == Direction::ToServer { 2 } else { 4 };
        let side = &self.sides[d];
        let third_on = th & 0x40 == 0 && side.in_fragment && side.segs >= 2;
        if u.len() - 1 < head && third_on {
            // The third segment on: the fragment is done without these bytes and its
            // objects are not decoded; a response side stops there.
            let open = self.sides[d].open.take();
            self.sides[d].in_fragment = false;
            if let Some(tx) = open.and_then(|id| self.txs.iter_mut().rev().find(|t| t.id == id)) {
                tx.done = true;
                self.completed[d] = true;
                queue_anomalies(ctx, tx);
            }
            if dir == Direction::ToClient {
                self.failed = true;
                self.sides = Default::default();
                ctx.counters.incr(Counter::ErrorDnp3);
            }
            return;
        }
        if u.len() - 1 < head {
            if dir == Direction::ToClient {
                self.failed = true;
                self.sides = Default::default();
                ctx.counters.incr(Counter::ErrorDnp3);
                return;
            }
            let side = &mut self.sides[d];
            side.in_fragment = false;
            side.open = None;
            return;
        }
        let app = &u[1..];
        if th & 0x40 != 0 {
            // A new fragment (one still open stays unfinished). A confirm from the
            // master makes no transaction.
            let side = &mut self.sides[d];
            side.in_fragment = true;
            side.segs = 1;
            side.len = app.len();
            side.open = None;
            if dir == Direction::ToClient || app[1] != 0 {
                let id = self.open_tx(ctx, dir, header, app);
                self.sides[d].open = Some(id);
            }
        } else {
            let side = &mut self.sides[d];
            if !side.in_fragment {
                return;
            }
            if side.len + app.len() > MAX_FRAGMENT {
                ctx.counters.incr(Counter::Dnp3BufferLimit);
                side.in_fragment = false;
                side.open = None;
                return;
            }
            side.len += app.len();
            side.segs += 1;
            if let Some(id) = side.open {
                if let Some(tx) = self.txs.iter_mut().rev().find(|t| t.id == id) {
                    tx.data.extend_from_slice(app);
                    tx.link = header;
                }
            }
        }
        if th & 0x80 == 0 {
            return;
        }
        let side = &mut self.sides[d];
        side.in_fragment = false;
        if let Some(id) = side.open.take() {
            self.finish(ctx, dir, id);
        }
    }

    /// Opens the transaction of a fragment whose first segment brought `app`: its
    /// application header read, not done.
    fn open_tx(&mut self, ctx: &mut AppCtx, dir: Direction, link: LinkHeader, app: &[u8]) -> u64 {
        let request = dir == Direction::ToServer;
        if self.txs.len() >= ctx.config.max_tx {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxDnp3);
        let head = if request { 2 } else { 4 };
        let mut fragment = parse(&app[..head], !request).unwrap_or_default();
        fragment.complete = false;
        self.txs.push_back(Dnp3Tx {
            id,
            request,
            link,
            fragment,
            data: app.to_vec(),
            done: false,
            events: Events::default(),
        });
        id
    }

    /// The last segment of transaction `id`'s fragment came: its objects decoded.
    fn finish(&mut self, ctx: &mut AppCtx, dir: Direction, id: u64) {
        let request = dir == Direction::ToServer;
        let Some(i) = self.txs.iter().rposition(|t| t.id == id) else {
            return;
        };
        let fragment = parse(&self.txs[i].data, !request).unwrap_or_default();
        self.completed[dir.index()] = true;
        let flooded = if request {
            self.unreplied += 1;
            self.unreplied > REQUEST_FLOOD
        } else {
            self.unreplied = self.unreplied.saturating_sub(1);
            false
        };
        let unknown = fragment.unknown_object;
        let tx = &mut self.txs[i];
        tx.done = fragment.complete;
        tx.fragment = fragment;
        for (on, ev) in [(unknown, UNKNOWN_OBJECT), (flooded, FLOODED)] {
            if on {
                tx.events.raise(ev);
                self.events.raise(ev);
            }
        }
        if self.txs[i].done {
            // Logged now: its events are written with it.
            queue_anomalies(ctx, &self.txs[i]);
        }
    }

    /// Raises `ev` on the newest transaction (and the flow). Suricata writes a
    /// transaction's events when it logs it: an event on a transaction logged
    /// already gets no anomaly record, one on a transaction not done yet gets it when
    /// the transaction is done.
    fn raise_current(&mut self, ev: usize) {
        self.events.raise(ev);
        if let Some(tx) = self.txs.back_mut() {
            tx.events.raise(ev);
        }
    }

    /// A hole in one direction: frame boundaries are lost, that side is not read
    /// any more.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.sides[dir.index()] = Side {
            lost: true,
            ..Default::default()
        };
    }

    /// The flow ended: every transaction is done (the events of those that were not
    /// are queued now, as they are logged).
    pub fn close(&mut self, ctx: &mut AppCtx) {
        for t in self.txs.iter_mut().filter(|t| !t.done) {
            t.done = true;
            queue_anomalies(ctx, t);
        }
    }
}

/// Queues an anomaly record for each event of `tx`.
fn queue_anomalies(ctx: &mut AppCtx, tx: &Dnp3Tx) {
    let id = tx.id;
    tx.events.each(super::EVENTS, &mut |e| {
        ctx.anomalies.parser(AppProto::Dnp3, e, Some(id))
    });
}

#[cfg(test)]
mod tests {
    use super::super::link::crc;
    use super::super::log::dnp3_object;
    use super::*;
    use proptest::prelude::*;

    /// The link frames of one fragment, in transport segments of `seg` bytes.
    fn frames(ctrl: u8, apdu: &[u8], seg: usize) -> Vec<u8> {
        let chunks: Vec<&[u8]> = apdu.chunks(seg).collect();
        let mut out = Vec::new();
        for (i, ch) in chunks.iter().enumerate() {
            let th = if i == 0 { 0x40 } else { 0 } | if i + 1 == chunks.len() { 0x80 } else { 0 };
            let mut user = vec![th];
            user.extend_from_slice(ch);
            let mut f = vec![0x05, 0x64, 5 + user.len() as u8, ctrl, 10, 0, 1, 0];
            f.extend_from_slice(&crc(&f).to_le_bytes());
            for b in user.chunks(16) {
                f.extend_from_slice(b);
                f.extend_from_slice(&crc(b).to_le_bytes());
            }
            out.extend(f);
        }
        out
    }

    /// One link frame carrying transport header `th` and application bytes `app`.
    fn frame(ctrl: u8, th: u8, app: &[u8]) -> Vec<u8> {
        let mut user = vec![th];
        user.extend_from_slice(app);
        let mut f = vec![0x05, 0x64, 5 + user.len() as u8, ctrl, 10, 0, 1, 0];
        f.extend_from_slice(&crc(&f).to_le_bytes());
        for b in user.chunks(16) {
            f.extend_from_slice(b);
            f.extend_from_slice(&crc(b).to_le_bytes());
        }
        f
    }

    #[test]
    fn segments_shorter_than_the_header_as_suricata() {
        // A request whose last segment carries one byte: unfinished until the end.
        let mut ctx = AppCtx::default();
        let mut s = Dnp3State::new();
        let mut b = frame(0xC4, 0x40, &[0xC0, 0x01, 60, 1, 6, 60]);
        b.extend(frame(0xC4, 0x81, &[2]));
        s.parse(&mut ctx, Direction::ToServer, &b);
        assert_eq!(s.txs.len(), 1);
        assert!(!s.txs[0].done && s.txs[0].fragment.objects.is_empty());
        assert_eq!(s.txs[0].fragment.function, 1);
        s.close(&mut ctx);
        assert!(s.txs[0].done);
        // A request whose first segment carries one byte: no transaction; the next
        // request is read.
        let mut s = Dnp3State::new();
        let mut b = frame(0xC4, 0x40, &[0xC0]);
        b.extend(frame(0xC4, 0x81, &[0x01, 60, 1, 6]));
        b.extend(frame(0xC4, 0xC2, &[0xC1, 0x01, 60, 2, 6]));
        s.parse(&mut ctx, Direction::ToServer, &b);
        assert_eq!(s.txs.len(), 1);
        assert_eq!(s.txs[0].fragment.objects.len(), 1);
        // A response segment with less than header and indications ends parsing.
        let mut s = Dnp3State::new();
        let mut b = frame(0x44, 0x40, &[0xC0, 0x81, 0x80, 0, 30, 2, 0, 5, 5, 1, 0x41]);
        b.extend(frame(0x44, 0x81, &[1, 0]));
        // An unsolicited response in the same bytes is not read.
        b.extend(frame(0x44, 0xC2, &[0xF2, 0x82, 0, 0]));
        s.parse(&mut ctx, Direction::ToClient, &b);
        // The response its first segment opened stays, unfinished, with its header.
        assert!(s.errored() && s.txs.len() == 1 && !s.txs[0].done);
        assert_eq!(s.txs[0].fragment.iin, Some(0x8000));
        s.close(&mut ctx);
        assert!(s.txs[0].done && s.txs[0].fragment.objects.is_empty());
        // From the third segment on, a short one ends the fragment without its bytes
        // (objects not decoded); on the response side parsing stops.
        let mut s = Dnp3State::new();
        let mut b = frame(0x44, 0x40, &[0xC0, 0x81, 0x80, 0]);
        b.extend(frame(0x44, 0x01, &[1, 2, 0, 0]));
        b.extend(frame(0x44, 0x82, &[0, 1]));
        s.parse(&mut ctx, Direction::ToClient, &b);
        assert!(s.errored() && s.txs[0].done);
        assert!(s.txs[0].fragment.objects.is_empty() && s.txs[0].data.len() == 8);
        let mut s = Dnp3State::new();
        let mut b = frame(0xC4, 0x40, &[0xC1, 0x01, 60]);
        b.extend(frame(0xC4, 0x01, &[2, 6]));
        b.extend(frame(0xC4, 0x82, &[60]));
        s.parse(&mut ctx, Direction::ToServer, &b);
        assert!(!s.errored() && s.txs[0].done && s.txs[0].data == [0xC1, 0x01, 60, 2, 6]);
        assert_eq!(s.txs[0].fragment.function, 1);
    }

    #[test]
    fn a_first_segment_opens_the_transaction() {
        let mut ctx = AppCtx::default();
        let mut s = Dnp3State::new();
        // An unsolicited response whose last segment never comes.
        let b = frame(0x44, 0x40, &[0xF0, 0x82, 0x80, 0x00, 2, 1, 0x17]);
        s.parse(&mut ctx, Direction::ToClient, &b);
        assert_eq!(s.txs.len(), 1);
        let tx = &s.txs[0];
        assert!(!tx.done && !tx.request);
        assert_eq!(
            (tx.fragment.function, tx.fragment.iin),
            (0x82, Some(0x8000))
        );
        assert_eq!(tx.data, [0xF0, 0x82, 0x80, 0x00, 2, 1, 0x17]);
        // A request in two segments: one transaction, done at its last.
        let mut b = frame(0xC4, 0x40, &[0xC1, 0x01, 60]);
        b.extend(frame(0xC4, 0x81, &[2, 6]));
        s.parse(&mut ctx, Direction::ToServer, &b);
        assert_eq!(s.txs.len(), 2);
        assert!(s.txs[1].done && s.txs[1].fragment.objects.len() == 1);
        assert!(!s.txs[0].done);
        // A confirm makes none.
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &frame(0xC4, 0xC2, &[0xD2, 0x00]),
        );
        assert_eq!(s.txs.len(), 2);
        s.close(&mut ctx);
        assert!(s.txs.iter().all(|t| t.done));
    }

    #[test]
    fn fragments_in_any_split() {
        let req = [0xC0, 0x01, 60, 1, 0x06];
        let mut resp = vec![0xC0, 0x81, 0x80, 0x00, 30, 1, 0x01, 0, 0, 59, 0];
        for i in 0..60i32 {
            resp.push(1);
            resp.extend_from_slice(&(i * 10).to_le_bytes());
        }
        let confirm = [0xD0, 0x00];
        for step in [1, 5, 17, 4096] {
            let mut ctx = AppCtx::default();
            let mut s = Dnp3State::new();
            let to_s = frames(0xC4, &req, 249);
            let to_c = frames(0x44, &resp, 100);
            let conf = frames(0xC4, &confirm, 249);
            for c in to_s.chunks(step) {
                s.parse(&mut ctx, Direction::ToServer, c);
            }
            for c in to_c.chunks(step) {
                s.parse(&mut ctx, Direction::ToClient, c);
            }
            s.parse(&mut ctx, Direction::ToServer, &conf);
            assert_eq!(s.txs().count(), 2);
            let r = dnp3_object(s.txs().nth(1).unwrap());
            assert_eq!(r["type"], "response");
            assert_eq!(r["iin"]["indicators"][0], "device_restart");
            let pts = r["application"]["objects"][0]["points"].as_array().unwrap();
            assert_eq!(pts.len(), 60);
            assert_eq!(pts[59]["value"], 590);
            assert_eq!(pts[0]["online"], 1);
            assert_eq!(ctx.counters.get(Counter::TxDnp3), 2);
        }
    }

    #[test]
    fn crc_errors_and_unknown_objects() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = Dnp3State::new();
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &frames(0xC4, &[0xC0, 1, 60, 1, 6], 249),
        );
        // A bad block CRC drops the frame, the next is read.
        let mut bad = frames(0xC4, &[0xC1, 1, 60, 1, 6], 249);
        bad[12] ^= 0xFF;
        s.parse(&mut ctx, Direction::ToServer, &bad);
        assert!(s.events().has(BAD_TRANSPORT_CRC) && !s.errored());
        // An unknown object: the transaction is not done, an anomaly is queued.
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &frames(0xC4, &[0xC2, 1, 99, 1, 0, 0, 1, 0, 0], 249),
        );
        assert_eq!(s.txs().count(), 2);
        assert!(!s.txs().nth(1).unwrap().done);
        assert!(ctx.anomalies.is_empty());
        s.close(&mut ctx);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect();
        assert_eq!(got, [("dnp3.unknown_object", Some(1))]);
        assert!(s.txs().all(|t| t.done));
        // A bad header CRC stops the parser.
        let mut bad = frames(0xC4, &[0xC3, 1, 60, 1, 6], 249);
        bad[8] ^= 1;
        s.parse(&mut ctx, Direction::ToServer, &bad);
        assert!(s.errored() && s.events().has(BAD_LINK_CRC));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            a in proptest::collection::vec(any::<u8>(), 0..800),
            b in proptest::collection::vec(any::<u8>(), 0..800),
            step in 1usize..64,
        ) {
            let mut ctx = AppCtx::default();
            let mut s = Dnp3State::new();
            let mut a = a;
            a.splice(0..0, frames(0x44, &b, 249));
            for (x, y) in a.chunks(step).zip(b.chunks(step)) {
                s.parse(&mut ctx, Direction::ToServer, x);
                s.parse(&mut ctx, Direction::ToClient, y);
            }
            for t in s.txs() {
                let _ = dnp3_object(t);
            }
            prop_assert!(s.txs().count() <= ctx.config.max_tx);
            prop_assert!(s.sides.iter().all(|x| x.buf.len() <= MAX_BUFFER));
        }
    }
}

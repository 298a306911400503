//! The per-flow HTTP/2 streaming state machine.
//!
//! Each direction reads frames out of stream chunks split at any byte: the 9-byte
//! header, then the payload. DATA payloads go straight from the input into the
//! stream's transaction (never buffered whole); other payloads are buffered up to
//! [`FRAME_LIMIT`] bytes and larger ones skipped. Header blocks (HEADERS or
//! PUSH_PROMISE plus CONTINUATIONs) are reassembled up to [`BLOCK_LIMIT`] bytes and
//! decoded with that direction's HPACK context.
//!
//! Every stream is one transaction (Suricata's model): the client's header block is
//! the request, the server's the response, DATA frames their bodies, END_STREAM (or
//! RST_STREAM) completes a side. The transactions are [`HttpTx`] values, filled so that
//! the `http.*` buffers read the way Suricata's HTTP/2 keywords do.
//!
//! Decoded header fields are kept up to `max_headers` fields and `header_raw_limit`
//! bytes of names and values per message (request or response, trailers included).
//!
//! A header block that cannot be kept in step (larger than the limits) ends parsing
//! of the connection, as does a stream gap: HPACK cannot resynchronize.

use std::collections::VecDeque;

use super::frame::{
    headers_fragment, push_promise_fragment, FrameHeader, FrameType, FLAG_ACK, FLAG_END_HEADERS,
    FLAG_END_STREAM, FLAG_PADDED, FLAG_PRIORITY, HEADER_LEN, PREFACE,
};
use super::hpack::{Block, Decoder};
use super::tx::{fill_request, fill_response};
use crate::http::decompress::{codings, Decoder as BodyDecoder};
use crate::http::tx::{HeaderName, HeaderValue};
use crate::http::{Header, HttpTx, Progress};
use crate::util::push_capped;
use crate::{AppCtx, Counter, Direction};

/// Largest non-DATA frame payload buffered; a larger one is skipped (a larger header
/// block fragment ends parsing: the HPACK context would be out of step).
pub const FRAME_LIMIT: usize = 64 * 1024;

/// Largest header block (HEADERS or PUSH_PROMISE with its CONTINUATIONs) reassembled.
pub const BLOCK_LIMIT: usize = 256 * 1024;

/// Frames from this length on are taken in part, as Suricata 7.0.10 does (whatever
/// of the payload a chunk holds, once that is [`LONG_FRAME_PART`] bytes or more; the
/// rest is skipped). Shorter DATA frames are delivered whole, when complete.
pub const LONG_FRAME: usize = 64 * 1024;

/// The least of a long frame's payload a chunk must hold for that part to be taken.
pub const LONG_FRAME_PART: usize = 256;

/// Where the reader of one direction is.
#[derive(Clone, Copy, Debug)]
enum Cur {
    /// Reading a frame header (the bytes so far are in `buf`).
    Header,
    /// Buffering the payload of a frame.
    Payload(FrameHeader),
    /// Streaming a DATA payload.
    Data {
        stream: u32,
        end_stream: bool,
        /// Payload bytes left, padding included.
        left: usize,
        /// Padding at the end of the payload; `None` while the pad length byte of a
        /// PADDED frame is still to come.
        pad: Option<usize>,
        /// Bytes of a long frame skipped after the part taken ([`LONG_FRAME`]).
        then_skip: usize,
    },
    /// Skipping a payload.
    Skip(usize),
}

/// A header block waiting for its CONTINUATION frames.
#[derive(Debug)]
struct Pending {
    stream: u32,
    end_stream: bool,
    /// A PUSH_PROMISE block: decoded to keep HPACK in step, then dropped.
    promise: bool,
    /// The HEADERS frame's priority weight (PRIORITY flag).
    priority: Option<u8>,
    data: Vec<u8>,
}

#[derive(Debug)]
struct Side {
    /// Bytes of the client preface still expected.
    preface: usize,
    buf: Vec<u8>,
    cur: Cur,
    hpack: Decoder,
    pending: Option<Pending>,
    stopped: bool,
}

impl Side {
    fn new(preface: usize) -> Side {
        Side {
            preface,
            buf: Vec::new(),
            cur: Cur::Header,
            hpack: Decoder::new(),
            pending: None,
            stopped: false,
        }
    }
}

/// One stream's transaction and what its parser keeps beside it.
struct Stream {
    id: u32,
    tx: HttpTx,
    /// Response body decoder (Content-Encoding).
    decoder: Option<BodyDecoder>,
}

/// HTTP/2 state of one flow: its live transactions (one per stream) and both
/// directions' frame readers.
pub struct Http2State {
    streams: VecDeque<Stream>,
    next_id: u64,
    sides: [Side; 2],
}

impl Default for Http2State {
    fn default() -> Self {
        Http2State {
            streams: VecDeque::new(),
            next_id: 0,
            sides: [Side::new(PREFACE.len()), Side::new(0)],
        }
    }
}

impl core::fmt::Debug for Http2State {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Http2State")
            .field("txs", &self.streams.len())
            .field("next_id", &self.next_id)
            .finish()
    }
}

impl Http2State {
    /// A fresh state; the client side expects the connection preface first.
    pub fn new() -> Self {
        Self::default()
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &HttpTx> {
        self.streams.iter().map(|s| &s.tx)
    }

    /// The transaction with id `id`, if still live.
    pub fn tx(&self, id: u64) -> Option<&HttpTx> {
        self.txs().find(|t| t.id == id)
    }

    /// The stream id of transaction `id`, if still live.
    pub fn stream_id(&self, id: u64) -> Option<u32> {
        self.streams.iter().find(|s| s.tx.id == id).map(|s| s.id)
    }

    /// Number of transaction ids given so far (the next one's id): one per stream and,
    /// as Suricata, one per connection-level (stream 0) frame other than DATA.
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// Frees transactions with an id below `id`.
    pub fn free_txs_before(&mut self, id: u64) {
        self.streams.retain(|s| s.tx.id >= id);
    }

    /// Feeds in-order stream bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let mut pos = 0;
        while pos < data.len() && !self.sides[d].stopped {
            let side = &mut self.sides[d];
            if side.preface > 0 {
                let done = PREFACE.len() - side.preface;
                let n = side.preface.min(data.len() - pos);
                if data[pos..pos + n] != PREFACE[done..done + n] {
                    side.stopped = true;
                    return;
                }
                side.preface -= n;
                pos += n;
                continue;
            }
            match side.cur {
                Cur::Header => {
                    let n = (HEADER_LEN - side.buf.len()).min(data.len() - pos);
                    side.buf.extend_from_slice(&data[pos..pos + n]);
                    pos += n;
                    if let Some(h) = FrameHeader::parse(&side.buf) {
                        side.buf.clear();
                        self.frame_header(ctx, dir, h);
                        self.long_frame(dir, data.len() - pos);
                    }
                }
                Cur::Payload(h) => {
                    let want = h.len as usize;
                    let n = (want - side.buf.len()).min(data.len() - pos);
                    side.buf.extend_from_slice(&data[pos..pos + n]);
                    pos += n;
                    if side.buf.len() == want {
                        let payload = std::mem::take(&mut side.buf);
                        side.cur = Cur::Header;
                        self.frame(ctx, dir, h, &payload);
                        let side = &mut self.sides[d];
                        if side.buf.is_empty() {
                            side.buf = payload;
                            side.buf.clear();
                        }
                    }
                }
                Cur::Skip(left) => {
                    let n = left.min(data.len() - pos);
                    pos += n;
                    side.cur = if n == left {
                        Cur::Header
                    } else {
                        Cur::Skip(left - n)
                    };
                }
                Cur::Data {
                    stream,
                    end_stream,
                    mut left,
                    mut pad,
                    then_skip,
                } => {
                    if pad.is_none() {
                        pad = Some(usize::from(data[pos]));
                        pos += 1;
                        left -= 1;
                    }
                    let pad_len = pad.unwrap_or(0);
                    let n = left.min(data.len() - pos);
                    let content = left.saturating_sub(pad_len).min(n);
                    let chunk = &data[pos..pos + content];
                    pos += n;
                    left -= n;
                    side.cur = if left == 0 && then_skip > 0 {
                        Cur::Skip(then_skip)
                    } else if left == 0 {
                        Cur::Header
                    } else {
                        Cur::Data {
                            stream,
                            end_stream,
                            left,
                            pad,
                            then_skip,
                        }
                    };
                    self.body(ctx, dir, stream, chunk);
                    if left == 0 && end_stream {
                        self.end_side(ctx, dir, stream);
                    }
                }
            }
        }
    }

    /// A hole in one direction's stream: HTTP/2 parsing of the flow ends (HPACK cannot
    /// resynchronize); messages in progress complete as truncated.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let _ = dir;
        ctx.counters.incr(Counter::Gap);
        self.close(ctx);
    }

    /// The flow ended (or parsing stopped): unfinished messages complete as truncated.
    pub fn close(&mut self, ctx: &mut AppCtx) {
        for side in &mut self.sides {
            side.stopped = true;
            side.buf = Vec::new();
            side.pending = None;
        }
        for s in &mut self.streams {
            for dir in [Direction::ToServer, Direction::ToClient] {
                s.end(ctx, dir, true);
            }
        }
    }

    /// A frame header is in: decide how its payload is read.
    fn frame_header(&mut self, ctx: &mut AppCtx, dir: Direction, h: FrameHeader) {
        let len = h.len as usize;
        if h.stream == 0 && h.ty != FrameType::DATA {
            // Suricata makes every connection-level frame a transaction of its own:
            // it takes a transaction id (a SETTINGS acknowledgement does not: on
            // sv-ether.pcap the ids Suricata 7.0.10 logs skip none for them).
            ctx.counters.incr(Counter::TxHttp2);
            if !(h.ty == FrameType::SETTINGS && h.has(FLAG_ACK)) {
                self.next_id += 1;
            }
        }
        // A frame read whole is noted once complete (in `frame`), as Suricata parses
        // it then; one streamed or skipped is noted now.
        if len > FRAME_LIMIT || (h.ty == FrameType::DATA && len >= LONG_FRAME) {
            self.note_frame(dir, h.stream, h.ty);
        }
        let side = &mut self.sides[dir.index()];
        side.cur = if h.ty == FrameType::DATA && h.stream != 0 && len >= LONG_FRAME {
            Cur::Data {
                stream: h.stream,
                end_stream: h.has(FLAG_END_STREAM),
                left: len,
                pad: (!h.has(FLAG_PADDED)).then_some(0),
                then_skip: 0,
            }
        } else if len > FRAME_LIMIT {
            if matches!(
                h.ty,
                FrameType::HEADERS | FrameType::PUSH_PROMISE | FrameType::CONTINUATION
            ) {
                // The header block cannot be decoded: HPACK is out of step for good.
                ctx.counters.incr(Counter::Http2FrameLimit);
                self.close(ctx);
                return;
            }
            Cur::Skip(len)
        } else if len == 0 {
            self.frame(ctx, dir, h, &[]);
            return;
        } else {
            Cur::Payload(h)
        };
    }

    /// A long DATA frame ([`LONG_FRAME`]) whose header just came, `avail` bytes of its
    /// payload in the chunk: with at least [`LONG_FRAME_PART`] of them, that part is
    /// the frame's payload and the rest is skipped (Suricata 7.0.10 raises
    /// `long_frame_data` there and inspects the part only: its END_STREAM ends the
    /// stream).
    fn long_frame(&mut self, dir: Direction, avail: usize) {
        let side = &mut self.sides[dir.index()];
        if let Cur::Data {
            left, then_skip, ..
        } = &mut side.cur
        {
            if *left > avail && avail >= LONG_FRAME_PART {
                *then_skip = *left - avail;
                *left = avail;
            }
        }
    }

    /// Notes a frame on its stream's transaction, if that exists yet (`http2.*`
    /// keywords).
    fn note_frame(&mut self, dir: Direction, stream: u32, ty: FrameType) {
        if stream == 0 {
            return;
        }
        if let Some(info) = self.stream_mut(stream).and_then(|s| s.tx.h2.as_mut()) {
            info.note_frame(dir.index(), ty.0);
        }
    }

    /// A whole (non-DATA, or empty DATA) frame.
    fn frame(&mut self, ctx: &mut AppCtx, dir: Direction, h: FrameHeader, p: &[u8]) {
        self.frame_body(ctx, dir, h, p);
        // A HEADERS or PRIORITY frame may just have opened the stream.
        self.note_frame(dir, h.stream, h.ty);
    }

    fn frame_body(&mut self, ctx: &mut AppCtx, dir: Direction, h: FrameHeader, p: &[u8]) {
        let d = dir.index();
        match h.ty {
            FrameType::DATA => {
                // A whole DATA frame (shorter than LONG_FRAME): its content without
                // the padding.
                let content = if h.has(FLAG_PADDED) {
                    p.split_first().and_then(|(&pad, rest)| {
                        let end = rest.len().checked_sub(usize::from(pad))?;
                        Some(&rest[..end])
                    })
                } else {
                    Some(p)
                };
                if let Some(c) = content.filter(|c| h.stream != 0 && !c.is_empty()) {
                    self.body(ctx, dir, h.stream, c);
                } else if h.stream != 0 {
                    // An empty DATA frame moves the stream to data too (Suricata's
                    // stream state: the header-based `http.*` buffers are then
                    // inspected, `tx::headers_inspectable`).
                    if let Some(m) = self.stream_mut(h.stream).map(|s| s.tx.msg_mut(dir)) {
                        if m.progress < Progress::Body {
                            m.progress = Progress::Body;
                        }
                    }
                }
                if h.has(FLAG_END_STREAM) {
                    self.end_side(ctx, dir, h.stream);
                }
            }
            FrameType::HEADERS => {
                let Some(frag) = headers_fragment(&h, p) else {
                    return;
                };
                let pad = usize::from(h.has(FLAG_PADDED));
                let priority = h.has(FLAG_PRIORITY).then(|| p.get(pad + 4).copied());
                self.sides[d].pending = Some(Pending {
                    stream: h.stream,
                    end_stream: h.has(FLAG_END_STREAM),
                    promise: false,
                    priority: priority.flatten(),
                    data: frag.to_vec(),
                });
                if h.has(FLAG_END_HEADERS) {
                    self.block_done(ctx, dir);
                }
            }
            FrameType::PUSH_PROMISE => {
                let Some((_, frag)) = push_promise_fragment(&h, p) else {
                    return;
                };
                self.sides[d].pending = Some(Pending {
                    stream: h.stream,
                    end_stream: false,
                    promise: true,
                    priority: None,
                    data: frag.to_vec(),
                });
                if h.has(FLAG_END_HEADERS) {
                    self.block_done(ctx, dir);
                }
            }
            FrameType::CONTINUATION => {
                let Some(pb) = self.sides[d].pending.as_mut() else {
                    return;
                };
                if pb.stream != h.stream {
                    return;
                }
                if push_capped(&mut pb.data, p, BLOCK_LIMIT) {
                    ctx.counters.incr(Counter::Http2FrameLimit);
                    self.close(ctx);
                    return;
                }
                if h.has(FLAG_END_HEADERS) {
                    self.block_done(ctx, dir);
                }
            }
            FrameType::SETTINGS if h.stream == 0 && !h.has(FLAG_ACK) && !p.is_empty() => {
                let settings = p
                    .chunks_exact(6)
                    .map(|c| {
                        let id = u16::from_be_bytes([c[0], c[1]]);
                        (id, u32::from_be_bytes([c[2], c[3], c[4], c[5]]))
                    })
                    .collect();
                self.global_tx(ctx, |info| {
                    info.settings[d] = settings;
                    info.note_frame(d, h.ty.0);
                });
            }
            FrameType::GOAWAY if h.stream == 0 && p.len() >= 8 => {
                let code = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
                let word = u32::from_be_bytes([p[0], p[1], p[2], p[3]]);
                self.global_tx(ctx, |info| {
                    info.goaway[d] = Some(code);
                    info.error_codes[d].push(word);
                    info.note_frame(d, h.ty.0);
                });
            }
            FrameType::PRIORITY if h.stream != 0 && p.len() == 5 => {
                if self.stream_mut(h.stream).is_none() {
                    self.new_stream(ctx, h.stream);
                }
                if let Some(info) = self.stream_mut(h.stream).and_then(|s| s.tx.h2.as_mut()) {
                    info.priority[d] = Some(p[4]);
                }
            }
            FrameType::WINDOW_UPDATE if h.stream != 0 && p.len() == 4 => {
                let inc = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) & 0x7fff_ffff;
                if let Some(info) = self.stream_mut(h.stream).and_then(|s| s.tx.h2.as_mut()) {
                    if info.windows[d].len() < super::log::H2Info::MAX_WINDOWS {
                        info.windows[d].push(inc);
                    }
                }
            }
            FrameType::RST_STREAM if h.stream != 0 => {
                if let (Some(info), Some(code)) = (
                    self.stream_mut(h.stream).and_then(|s| s.tx.h2.as_mut()),
                    p.get(..4),
                ) {
                    let code = u32::from_be_bytes([code[0], code[1], code[2], code[3]]);
                    info.error_code[d] = Some(code);
                    if info.error_codes[d].len() < super::log::H2Info::MAX_WINDOWS {
                        info.error_codes[d].push(code);
                    }
                }
                for dir in [Direction::ToServer, Direction::ToClient] {
                    self.end_side(ctx, dir, h.stream);
                }
            }
            _ => {}
        }
    }

    /// A header block is complete: decode it and apply it to its stream.
    fn block_done(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        let Some(pb) = self.sides[d].pending.take() else {
            return;
        };
        let block = self.sides[d].hpack.decode(
            &pb.data,
            ctx.config.max_headers,
            ctx.config.header_raw_limit,
        );
        if block.error.is_some() {
            ctx.counters.incr(Counter::Http2HeaderError);
        }
        if block.truncated {
            ctx.counters.incr(Counter::HttpHeaderLimit);
        }
        if pb.promise || pb.stream == 0 {
            return;
        }
        self.headers(ctx, dir, pb.stream, block);
        if let Some(w) = pb.priority {
            if let Some(info) = self.stream_mut(pb.stream).and_then(|s| s.tx.h2.as_mut()) {
                info.priority[d] = Some(w);
            }
        }
        if pb.end_stream {
            self.end_side(ctx, dir, pb.stream);
        }
    }

    /// Keeps the connection-level transaction of the frame just read (its id was
    /// taken with the frame header) for logging: complete, on stream 0, with what
    /// `fill` records.
    fn global_tx(&mut self, ctx: &mut AppCtx, fill: impl FnOnce(&mut super::log::H2Info)) {
        let mut info = super::log::H2Info::default();
        fill(&mut info);
        let mut tx = HttpTx {
            id: self.next_id.saturating_sub(1),
            h2: Some(Box::new(info)),
            ..HttpTx::default()
        };
        tx.request.progress = Progress::Complete;
        tx.response.progress = Progress::Complete;
        self.streams.push_back(Stream {
            id: 0,
            tx,
            decoder: None,
        });
        while self.streams.len() > ctx.config.max_tx.max(1) {
            self.streams.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
    }

    fn stream_mut(&mut self, id: u32) -> Option<&mut Stream> {
        self.streams.iter_mut().rev().find(|s| s.id == id)
    }

    fn new_stream(&mut self, ctx: &mut AppCtx, id: u32) {
        let tx_id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxHttp2);
        let mut tx = HttpTx {
            id: tx_id,
            h2: Some(Box::new(super::log::H2Info {
                stream_id: id,
                ..Default::default()
            })),
            ..HttpTx::default()
        };
        tx.request.min_inspect = ctx.config.request_body_minimal_inspect_size;
        tx.response.min_inspect = ctx.config.response_body_minimal_inspect_size;
        self.streams.push_back(Stream {
            id,
            tx,
            decoder: None,
        });
        while self.streams.len() > ctx.config.max_tx.max(1) {
            self.streams.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
    }

    fn headers(&mut self, ctx: &mut AppCtx, dir: Direction, id: u32, block: Block) {
        let max = ctx.config.max_headers;
        let byte_limit = ctx.config.header_raw_limit;
        let limit = ctx.config.response_body_decompress_layer_limit;
        if self.stream_mut(id).is_none() {
            self.new_stream(ctx, id);
        }
        let Some(s) = self.stream_mut(id) else {
            return;
        };
        if !block.size_updates.is_empty() {
            let at = s.tx.msg_mut(dir).headers.len();
            if let Some(info) = s.tx.h2.as_mut() {
                let u = &mut info.size_updates[dir.index()];
                u.extend(block.size_updates.iter().map(|&n| (at, n)));
            }
        }
        let m = s.tx.msg_mut(dir);
        let mut bytes: usize = m.headers.iter().map(|h| h.name.len() + h.value.len()).sum();
        for f in block.fields {
            bytes += f.name.len() + f.value.len();
            if m.headers.len() >= max || bytes > byte_limit {
                ctx.counters.incr(Counter::HttpHeaderLimit);
                break;
            }
            m.headers.push(Header {
                name: HeaderName::from_vec(f.name),
                value: HeaderValue::from_vec(f.value),
            });
        }
        match dir {
            Direction::ToServer => fill_request(&mut s.tx),
            Direction::ToClient => {
                fill_response(&mut s.tx);
                if s.decoder.is_none() {
                    if let Some(ce) = s.tx.response.header("content-encoding") {
                        let c = codings(ce, limit);
                        if !c.is_empty() {
                            s.decoder = Some(BodyDecoder::new(&c));
                        }
                    }
                }
            }
        }
        let m = s.tx.msg_mut(dir);
        if m.progress < Progress::Headers {
            m.progress = Progress::Headers;
        }
    }

    fn body(&mut self, ctx: &mut AppCtx, dir: Direction, id: u32, data: &[u8]) {
        let limit = match dir {
            Direction::ToServer => ctx.config.request_body_limit,
            Direction::ToClient => ctx.config.response_body_limit,
        };
        let Some(s) = self.stream_mut(id) else {
            return;
        };
        let decoder = match dir {
            Direction::ToServer => None,
            Direction::ToClient => s.decoder.as_mut(),
        };
        let m = s.tx.msg_mut(dir);
        if m.progress == Progress::Complete {
            return;
        }
        if m.progress < Progress::Body {
            m.progress = Progress::Body;
        }
        m.body_wire_len += data.len() as u64;
        let before = m.body.len();
        let room = limit.saturating_sub(before);
        let cut = match decoder {
            Some(dec) => {
                if room > 0 && dec.feed(data, &mut m.body, room) {
                    ctx.counters.incr(Counter::HttpDecompressError);
                }
                room == 0 || m.body.len() >= limit
            }
            None => {
                let cut = push_capped(&mut m.body, data, limit);
                m.body_len += (data.len() - (m.body.len() - before)) as u64;
                cut
            }
        };
        m.body_len += (m.body.len() - before) as u64;
        let fresh = before..m.body.len();
        let cut = cut && !data.is_empty();
        if cut && !m.body_truncated {
            m.body_truncated = true;
            ctx.counters.incr(match dir {
                Direction::ToServer => Counter::HttpRequestBodyLimit,
                Direction::ToClient => Counter::HttpResponseBodyLimit,
            });
        }
        crate::http::files::feed(ctx, &mut s.tx, dir, fresh, cut);
    }

    /// END_STREAM, RST_STREAM or the end of parsing: one side of a stream completes.
    fn end_side(&mut self, ctx: &mut AppCtx, dir: Direction, id: u32) {
        let stopped = self.sides[dir.index()].stopped;
        if let Some(s) = self.stream_mut(id) {
            s.end(ctx, dir, stopped);
        }
    }
}

impl Stream {
    /// One side of the stream completes (`cut`: because parsing stopped).
    fn end(&mut self, ctx: &mut AppCtx, dir: Direction, cut: bool) {
        let limit = match dir {
            Direction::ToServer => ctx.config.request_body_limit,
            Direction::ToClient => ctx.config.response_body_limit,
        };
        let dec = match dir {
            Direction::ToServer => None,
            Direction::ToClient => self.decoder.take(),
        };
        let m = self.tx.msg_mut(dir);
        if m.progress == Progress::Complete {
            return;
        }
        if let Some(mut dec) = dec {
            let before = m.body.len();
            dec.finish(&mut m.body, limit.saturating_sub(before));
            m.body_len += (m.body.len() - before) as u64;
            let fresh = before..m.body.len();
            crate::http::files::feed(ctx, &mut self.tx, dir, fresh, false);
        }
        let m = self.tx.msg_mut(dir);
        m.truncated = cut;
        m.progress = Progress::Complete;
        crate::http::files::end(&mut self.tx, dir);
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame::frame;
    use super::super::hpack::tests::literal_block;
    use super::*;
    use crate::http::HttpBuffer;

    fn headers(stream: u32, flags: u8, fields: &[(&str, &str)]) -> Vec<u8> {
        frame(FrameType::HEADERS, flags, stream, &literal_block(fields))
    }

    fn client(frames: &[Vec<u8>]) -> Vec<u8> {
        let mut v = PREFACE.to_vec();
        v.extend(frame(FrameType::SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 100]));
        for f in frames {
            v.extend_from_slice(f);
        }
        v
    }

    const POST: &[(&str, &str)] = &[
        (":method", "POST"),
        (":authority", "Example.com:8443"),
        (":scheme", "https"),
        (":path", "/log?x=1"),
        ("user-agent", "UA/1"),
        ("cookie", "a=b"),
    ];

    #[test]
    fn request_and_response_in_any_split() {
        let c = client(&[
            headers(3, FLAG_END_HEADERS, POST),
            frame(FrameType::DATA, FLAG_END_STREAM, 3, b"body!"),
        ]);
        let resp = frame(FrameType::SETTINGS, 0, 0, &[]);
        let mut s_bytes = resp.clone();
        s_bytes.extend(headers(
            3,
            FLAG_END_HEADERS,
            &[(":status", "200"), ("server", "gws")],
        ));
        s_bytes.extend(frame(
            FrameType::DATA,
            0x8 | FLAG_END_STREAM,
            3,
            &[2, b'o', b'k', 0, 0],
        ));
        for split in [1, 2, 7, 1000] {
            let mut ctx = AppCtx::default();
            let mut st = Http2State::new();
            for ch in c.chunks(split) {
                st.parse(&mut ctx, Direction::ToServer, ch);
            }
            for ch in s_bytes.chunks(split) {
                st.parse(&mut ctx, Direction::ToClient, ch);
            }
            // Suricata's ids: the client's SETTINGS is transaction 0, stream 3 is 1,
            // the server's SETTINGS 2.
            assert_eq!(st.tx_count(), 3);
            // The client's SETTINGS is kept to be logged; the server's is empty.
            assert_eq!(st.txs().count(), 2);
            let settings = st.tx(0).unwrap().h2().unwrap();
            assert_eq!(
                (settings.stream_id, &settings.settings[0][..]),
                (0, &[(3, 100)][..])
            );
            let tx = st.tx(1).unwrap();
            assert_eq!(st.stream_id(1), Some(3));
            assert_eq!(tx.h2().map(|h| h.stream_id), Some(3));
            let b = |b, d| {
                tx.buffer(b, d)
                    .map(|x| String::from_utf8_lossy(x).into_owned())
            };
            let ts = Direction::ToServer;
            let tc = Direction::ToClient;
            assert_eq!(b(HttpBuffer::Method, ts).as_deref(), Some("POST"));
            assert_eq!(b(HttpBuffer::Uri, ts).as_deref(), Some("/log?x=1"));
            assert_eq!(b(HttpBuffer::Host, ts).as_deref(), Some("example.com"));
            assert_eq!(
                b(HttpBuffer::HostRaw, ts).as_deref(),
                Some("Example.com:8443")
            );
            assert_eq!(b(HttpBuffer::UserAgent, ts).as_deref(), Some("UA/1"));
            assert_eq!(b(HttpBuffer::Cookie, ts).as_deref(), Some("a=b"));
            assert_eq!(
                b(HttpBuffer::Header, ts).as_deref(),
                Some(
                    ":method: POST\r\n:authority: Example.com:8443\r\n:scheme: https\r\n\
                     :path: /log?x=1\r\nuser-agent: UA/1\r\n"
                )
            );
            assert_eq!(
                b(HttpBuffer::HeaderNames, ts).as_deref(),
                Some("\r\nuser-agent\r\ncookie\r\n\r\n")
            );
            assert_eq!(b(HttpBuffer::RequestBody, ts).as_deref(), Some("body!"));
            assert_eq!(b(HttpBuffer::Protocol, ts).as_deref(), Some("HTTP/2"));
            assert_eq!(
                b(HttpBuffer::RequestLine, ts).as_deref(),
                Some("POST /log?x=1 HTTP/2")
            );
            assert_eq!(b(HttpBuffer::StatCode, tc).as_deref(), Some("200"));
            assert_eq!(b(HttpBuffer::Server, tc).as_deref(), Some("gws"));
            assert_eq!(b(HttpBuffer::ResponseBody, tc).as_deref(), Some("ok"));
            assert_eq!(tx.status(), Some(200));
            assert!(tx.is_complete());
            // Two SETTINGS frames on stream 0, one stream.
            assert_eq!(ctx.counters.get(Counter::TxHttp2), 3);
        }
    }

    #[test]
    fn header_buffers_wait_for_the_stream_to_reach_data() {
        // dt-1-11 (IPS mode): `http.stat_code` of an HTTP/2 response alerts on the
        // packet that completes its first DATA frame, not on its HEADERS frame.
        use crate::proto::Transaction;
        let inspectable =
            |st: &Http2State, d| super::super::tx::headers_inspectable(st.tx(1).unwrap(), d);
        let (ts, tc) = (Direction::ToServer, Direction::ToClient);
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(&mut ctx, ts, &client(&[headers(1, FLAG_END_HEADERS, POST)]));
        assert_eq!(st.tx(1).unwrap().method(), Some(&b"POST"[..]));
        assert!(!inspectable(&st, ts), "request HEADERS without END_STREAM");
        let fp = st.tx(1).unwrap().fingerprint();
        // An empty DATA frame is data.
        st.parse(&mut ctx, ts, &frame(FrameType::DATA, 0, 1, &[]));
        assert!(inspectable(&st, ts));
        assert_ne!(st.tx(1).unwrap().fingerprint(), fp);
        st.parse(&mut ctx, tc, &frame(FrameType::SETTINGS, 0, 0, &[]));
        st.parse(
            &mut ctx,
            tc,
            &headers(1, FLAG_END_HEADERS, &[(":status", "200")]),
        );
        assert!(!inspectable(&st, tc), "response HEADERS without END_STREAM");
        // A DATA frame cut short is not in yet; complete, it is.
        let data = frame(FrameType::DATA, FLAG_END_STREAM, 1, b"hello");
        st.parse(&mut ctx, tc, &data[..11]);
        assert!(!inspectable(&st, tc));
        st.parse(&mut ctx, tc, &data[11..]);
        assert!(inspectable(&st, tc));
        // A HEADERS frame that ends its side is enough.
        let mut st = Http2State::new();
        let mut ctx = AppCtx::default();
        st.parse(
            &mut ctx,
            ts,
            &client(&[headers(1, FLAG_END_HEADERS | FLAG_END_STREAM, POST)]),
        );
        assert!(inspectable(&st, ts));
        assert!(!inspectable(&st, tc));
        // The response's data makes the request's buffers inspectable too.
        let mut st = Http2State::new();
        let mut ctx = AppCtx::default();
        st.parse(&mut ctx, ts, &client(&[headers(1, FLAG_END_HEADERS, POST)]));
        st.parse(
            &mut ctx,
            tc,
            &headers(1, FLAG_END_HEADERS, &[(":status", "200")]),
        );
        st.parse(&mut ctx, tc, &frame(FrameType::DATA, 0, 1, b"x"));
        assert!(inspectable(&st, ts) && inspectable(&st, tc));
    }

    #[test]
    fn frame_types_change_the_fingerprint() {
        use crate::proto::Transaction;
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(
            &mut ctx,
            Direction::ToServer,
            &client(&[headers(1, FLAG_END_HEADERS, POST)]),
        );
        let fp = st.tx(1).unwrap().fingerprint();
        st.parse(
            &mut ctx,
            Direction::ToServer,
            &frame(FrameType::WINDOW_UPDATE, 0, 1, &[0, 0, 1, 0]),
        );
        assert_ne!(st.tx(1).unwrap().fingerprint(), fp);
    }

    #[test]
    fn continuation_priority_and_streams() {
        let block = literal_block(POST);
        let (a, b) = block.split_at(10);
        let mut first = vec![0, 0, 0, 1, 16];
        first.extend_from_slice(a);
        let c = client(&[
            frame(
                FrameType::HEADERS,
                FLAG_PRIORITY | FLAG_END_STREAM,
                1,
                &first,
            ),
            frame(FrameType::CONTINUATION, FLAG_END_HEADERS, 1, b),
            headers(5, FLAG_END_HEADERS, &[(":method", "GET"), (":path", "/b")]),
        ]);
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(&mut ctx, Direction::ToServer, &c);
        // The SETTINGS frame is transaction 0, the streams 1 and 2.
        assert_eq!(st.tx_count(), 3);
        let t0 = st.tx(1).unwrap();
        assert_eq!(t0.method(), Some(&b"POST"[..]));
        assert_eq!(t0.request().progress(), Progress::Complete);
        assert_eq!(t0.h2().unwrap().priority, [Some(16), None]);
        let t1 = st.tx(2).unwrap();
        assert_eq!(t1.uri(), Some(&b"/b"[..]));
        assert_eq!(t1.request().progress(), Progress::Headers);
        st.parse(
            &mut ctx,
            Direction::ToServer,
            &frame(FrameType::RST_STREAM, 0, 5, &[0, 0, 0, 8]),
        );
        assert!(st.tx(2).unwrap().is_complete());
        assert_eq!(st.tx(2).unwrap().h2().unwrap().error_code, [Some(8), None]);
        // A PRIORITY frame on a new stream opens its transaction.
        st.parse(
            &mut ctx,
            Direction::ToServer,
            &frame(FrameType::PRIORITY, 0, 7, &[0, 0, 0, 0, 200]),
        );
        assert_eq!(st.tx(3).unwrap().h2().unwrap().priority, [Some(200), None]);
    }

    #[test]
    fn goaway_code_word_and_every_rst_code() {
        let mut goaway = 1u32.to_be_bytes().to_vec();
        goaway.extend_from_slice(&12u32.to_be_bytes());
        let c = client(&[
            frame(FrameType::GOAWAY, 0, 0, &goaway),
            frame(FrameType::PING, 0, 0, &[0; 8]),
            frame(FrameType::WINDOW_UPDATE, 0, 0, &[0x80, 0, 0, 5]),
            headers(1, FLAG_END_HEADERS, &[(":method", "GET"), (":path", "/")]),
            frame(FrameType::RST_STREAM, 0, 1, &[0, 0, 0, 3]),
            frame(FrameType::RST_STREAM, 0, 1, &[0, 0, 0, 9]),
        ]);
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(&mut ctx, Direction::ToServer, &c);
        // SETTINGS 0, GOAWAY 1; PING 2 and WINDOW_UPDATE 3 take ids without a
        // transaction here (Suricata opens unlogged ones: a known difference).
        let g = st.tx(1).unwrap().h2().unwrap();
        assert_eq!(g.goaway, [Some(12), None]);
        // `http2.errorcode` reads the last-stream-id word, as Suricata 7.0.10 does.
        assert_eq!(g.error_codes, [vec![1], vec![]]);
        assert!(st.tx(2).is_none() && st.tx(3).is_none());
        // Both RST_STREAM codes of stream 1 are seen, the last one logged.
        let s1 = st.tx(4).unwrap().h2().unwrap();
        assert_eq!(s1.error_codes, [vec![3, 9], vec![]]);
        assert_eq!(s1.error_code, [Some(9), None]);
    }

    #[test]
    fn gap_completes_open_streams_as_truncated() {
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(
            &mut ctx,
            Direction::ToServer,
            &client(&[headers(1, FLAG_END_HEADERS, POST)]),
        );
        let tx = st.tx(1).unwrap();
        assert_eq!(tx.request().progress(), Progress::Headers);
        st.gap(&mut ctx, Direction::ToClient);
        let tx = st.tx(1).unwrap();
        assert!(tx.is_complete());
        assert!(tx.request().truncated());
        // Nothing is parsed after the gap.
        st.parse(&mut ctx, Direction::ToServer, &headers(3, 5, POST));
        assert_eq!(st.tx_count(), 2);
    }

    #[test]
    fn bad_preface_and_oversized_blocks_stop() {
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(&mut ctx, Direction::ToServer, b"GET / HTTP/1.1\r\n\r\n");
        st.parse(&mut ctx, Direction::ToServer, &headers(1, 4, POST));
        assert_eq!(st.tx_count(), 0);
        let mut st = Http2State::new();
        let mut c = client(&[]);
        c.extend_from_slice(&[0xff, 0xff, 0xff, 1, 4, 0, 0, 0, 1]);
        c.extend(std::iter::repeat_n(0, 100_000));
        st.parse(&mut ctx, Direction::ToServer, &c);
        st.parse(&mut ctx, Direction::ToServer, &headers(3, 4, POST));
        // Only the SETTINGS frame's transaction was made: no stream.
        assert_eq!(st.tx_count(), 1);
        assert!(st.txs().all(|t| t.h2().unwrap().stream_id == 0));
        assert_eq!(ctx.counters.get(Counter::Http2FrameLimit), 1);
    }
}

//! The per-flow HTTP/1.x streaming state machine.
//!
//! Each direction is a small machine (line → headers → body → line ...) fed stream
//! chunks split at any byte. Partial lines are kept in a per-direction buffer bounded by
//! the field limit; body bytes go straight from the input into the transaction (capped
//! by the body limits). Requests create transactions; responses attach to them in
//! order (pipelining), and a response with no request still gets one.
//!
//! Behaviour follows libhtp (Suricata's HTTP parser, IDS personality):
//! - lines end at LF; a trailing CR is dropped; in status lines and response headers a
//!   lone CR also ends a line;
//! - empty lines before a request or status line are ignored;
//! - a request line without a protocol is HTTP/0.9: no headers, no body;
//! - a status line not starting with `HTTP` starts an HTTP/0.9 response body that runs
//!   until the connection closes;
//! - header lines starting with SP/HT continue the previous header (folding);
//! - repeated headers merge with `", "`; a line without colon is a header with an empty
//!   name;
//! - bodies: `Transfer-Encoding` containing `chunked` wins over `Content-Length`; a
//!   response without either runs until close; HEAD, 1xx, 204 and 304 responses have no
//!   body; 1xx responses other than 101 are interim and the real response follows;
//! - 101 responses and successful CONNECTs turn the connection into a tunnel that is not
//!   parsed further;
//! - a stream gap ends HTTP parsing of the flow (libhtp cannot resynchronize).

use super::decompress::{codings_http1, Decoder};
use super::events::{self as ev, content_encoding_faults, response_header_fault};
use super::parser::{
    looks_like_response_line, parse_chunk_len, parse_content_length, parse_header_line,
    parse_protocol, parse_request_line, parse_response_line, parse_status, ProtocolVersion,
};
use super::tx::{fill_host, HttpTx, Message, Progress};
use super::uri::{host_port, host_range, normalize_uri_into, split_uri};
use crate::util::{chomp, contains_nocase, push_capped, trim};
use crate::{AppCtx, Counter, Direction, Events};

mod finalize;
mod inspect;
mod lines;
mod mem;
mod pool;
mod queue;
pub use pool::HttpBox;
mod start_line;

use lines::{
    header_follows, is_terminator, looks_like_header, next_line, starts_request, starts_response,
    Mode,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Line,
    Headers,
    Identity(u64),
    UntilClose,
    ChunkLen,
    ChunkData(u64),
    ChunkDataEnd,
    Trailers,
    /// A CONNECT request waits for its response; later request bytes are held back.
    ConnectWait,
    Tunnel,
    Stopped,
}

#[derive(Default)]
struct Side {
    line: Vec<u8>,
    pending: Option<Vec<u8>>,
    tx: Option<u64>,
    /// The body's content-coding decoder (boxed: most bodies have none).
    decoder: Option<Box<Decoder>>,
    st: Option<St>,
    /// Response headers: the last line ended in a bare LF; a CR right after it belongs
    /// to that line ending (libhtp's LF-CR line ending).
    after_lf: bool,
    /// The last line ended in LF-CR.
    lfcr: bool,
    /// Bytes of a `\r\n` to drop if they come next (libhtp's LFCRCRLFCRLF rule): 2
    /// expects CR then LF, 1 expects LF.
    swallow: u8,
    /// The byte after the last line returned was an LF (decides whether a
    /// whitespace-LF line ends the headers).
    next_lf: bool,
    /// The transaction whose message in this direction just completed (libhtp's
    /// `REQ_FINALIZE`/`RES_FINALIZE`): lines that cannot start a new message are more
    /// body of that transaction instead of a new one.
    finalized: Option<u64>,
    /// The bytes after a request line without protocol look like a header line
    /// (libhtp's "missing protocol" probe): the request has headers after all.
    header_follows: bool,
    /// The body of this side's message ended but the message is not complete yet
    /// (libhtp's `RES_FINALIZE`): see [`HttpState::end_body`].
    deferred: bool,
    /// Stream offset where the body of a `deferred` message ended (its frame's end).
    body_end: u64,
}

impl Side {
    fn st(&self) -> St {
        self.st.unwrap_or(St::Line)
    }
}

enum LineRes {
    Need,
    TooLong,
    Line(Vec<u8>),
}

/// HTTP state of one flow: its live transactions and both directions' parsers.
#[derive(Default)]
pub struct HttpState {
    txs: queue::TxQueue,
    next_id: u64,
    next_res: u64,
    sides: [Side; 2],
    connect_buf: Vec<u8>,
    /// Messages completed per direction since [`take_completed`](Self::take_completed).
    completed: [u32; 2],
    /// Stream offset per direction of the byte after the last one consumed.
    at: [u64; 2],
    /// Bytes fed per direction (gaps included).
    fed: [u64; 2],
    /// Stream offsets where messages ended since [`take_ends`](Self::take_ends) (only
    /// with `Config::frames`: the ends of the `http1.request`/`http1.response` frames).
    ends: [Vec<u64>; 2],
    /// A line went over the field limit: libhtp's `HTP_ERROR`, a parser error.
    error: bool,
    /// Events raised (indices into [`EVENTS`](super::EVENTS)).
    events: Events,
}

impl core::fmt::Debug for HttpState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HttpState")
            .field("txs", &self.txs.len())
            .field("next_id", &self.next_id)
            .finish()
    }
}

/// Gives a side's body decoder, if any, back to the thread's kept ones.
fn give_decoder(d: &mut Option<Box<Decoder>>) {
    if let Some(d) = d.take() {
        Decoder::give(d);
    }
}

fn find_tx(txs: &mut queue::TxQueue, id: Option<u64>) -> Option<&mut HttpTx> {
    let id = id?;
    let first = txs.front()?.id;
    let idx = usize::try_from(id.checked_sub(first)?).ok()?;
    txs.get_mut(idx)
}

impl HttpState {
    /// A fresh state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &HttpTx> {
        self.txs.iter()
    }

    /// The transaction with id `id`, if still live.
    pub fn tx(&self, id: u64) -> Option<&HttpTx> {
        let first = self.txs.front()?.id;
        self.txs.get(usize::try_from(id.checked_sub(first)?).ok()?)
    }

    /// Whether a message of `dir` completed since the last call (libhtp's request and
    /// response completion callbacks, which trigger Suricata's raw stream inspection).
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()]) > 0
    }

    /// The stream offsets of `dir` (counted from the first byte fed, gaps included)
    /// where messages ended since the last call, oldest first (recorded only with
    /// `Config::frames`).
    pub fn take_ends(&mut self, dir: Direction) -> Vec<u64> {
        std::mem::take(&mut self.ends[dir.index()])
    }

    /// Number of transactions created so far (the next transaction's id).
    pub fn tx_count(&self) -> u64 {
        self.next_id
    }

    /// The application-layer events raised on the flow (see [`super::EVENTS`]).
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the parser failed where libhtp returns an error (a line over the
    /// field limit, its "buffer over the limit"), which ends the flow's app layer.
    pub fn errored(&self) -> bool {
        self.error
    }

    /// Frees transactions with an id below `id` (the caller has inspected and logged
    /// them).
    pub fn free_txs_before(&mut self, id: u64) {
        while self.txs.front().is_some_and(|t| t.id < id) {
            pool::give_tx(self.txs.pop_front());
        }
    }

    /// Feeds in-order stream bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        self.parse_data(ctx, dir, data);
        self.settle_deferred(ctx, dir);
        pool::release_idle_line(&mut self.sides[dir.index()].line);
    }

    /// Part of a status line is held: the response of the transaction it will answer
    /// has begun (for the `app-layer-event` rules inspecting it, see
    /// [`crate::Transaction::started`]).
    fn response_begun(&mut self) {
        if self.sides[1].tx.is_some()
            || self.next_res >= self.next_id
            || crate::util::trim(&self.sides[1].line).is_empty()
        {
            return;
        }
        if let Some(tx) = find_tx(&mut self.txs, Some(self.next_res)) {
            tx.response.begun = true;
        }
    }

    fn parse_data(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let base = self.fed[d];
        self.fed[d] += data.len() as u64;
        let mut pos = 0;
        while pos < data.len() {
            self.at[d] = base + pos as u64;
            if dir == Direction::ToClient && self.eat_line_ending_tail(data, &mut pos) {
                continue;
            }
            let st = self.sides[d].st();
            if dir == Direction::ToClient && st == St::ChunkLen && self.bad_chunk_len(data, pos) {
                // Not a chunk size (libhtp gives up on chunking): everything from here on
                // is body until the connection closes.
                self.raise_once(ctx, dir, ev::INVALID_RESPONSE_CHUNK_LEN);
                let held = std::mem::take(&mut self.sides[d].line);
                self.sides[d].st = Some(St::UntilClose);
                self.body(ctx, dir, &held);
                continue;
            }
            match st {
                St::Tunnel | St::Stopped => return,
                St::ConnectWait => {
                    push_capped(&mut self.connect_buf, &data[pos..], ctx.config.field_limit);
                    return;
                }
                St::Identity(n) => {
                    let take = usize::try_from(n)
                        .unwrap_or(usize::MAX)
                        .min(data.len() - pos);
                    self.body(ctx, dir, &data[pos..pos + take]);
                    pos += take;
                    self.at[d] = base + pos as u64;
                    let left = n - take as u64;
                    if left == 0 {
                        self.end_body(ctx, dir);
                    } else {
                        self.sides[d].st = Some(St::Identity(left));
                    }
                }
                St::UntilClose => {
                    self.body(ctx, dir, &data[pos..]);
                    self.at[d] = self.fed[d];
                    return;
                }
                St::ChunkData(n) => {
                    let take = usize::try_from(n)
                        .unwrap_or(usize::MAX)
                        .min(data.len() - pos);
                    self.body(ctx, dir, &data[pos..pos + take]);
                    pos += take;
                    let left = n - take as u64;
                    self.sides[d].st = Some(if left == 0 {
                        St::ChunkDataEnd
                    } else {
                        St::ChunkData(left)
                    });
                }
                St::Line | St::Headers | St::ChunkLen | St::ChunkDataEnd | St::Trailers => {
                    let mode = match (dir, st) {
                        (Direction::ToClient, St::Headers) => Mode::ResponseHeader,
                        (Direction::ToClient, St::Line) => Mode::StatusLine,
                        _ => Mode::Lf,
                    };
                    match next_line(
                        &mut self.sides[d],
                        data,
                        &mut pos,
                        mode,
                        ctx.config.field_limit,
                    ) {
                        LineRes::Need => {
                            if dir == Direction::ToClient && st == St::Line {
                                self.response_begun();
                            }
                            return;
                        }
                        LineRes::TooLong => {
                            ctx.counters.incr(Counter::HttpFieldTooLong);
                            self.raise(ctx, dir, super::field_too_long_event(dir));
                            if !self.error {
                                ctx.counters.incr(Counter::ErrorHttp);
                                self.error = true;
                            }
                            self.stop(ctx, dir);
                            return;
                        }
                        LineRes::Line(mut buf) => {
                            self.at[d] = base + pos as u64;
                            if dir == Direction::ToServer && st == St::Line {
                                self.sides[d].header_follows = header_follows(&data[pos..]);
                            }
                            self.on_line(ctx, dir, st, &buf);
                            if st == St::Line && self.sides[d].st() == St::Headers {
                                self.reserve_headers_raw(ctx, dir, &data[pos..]);
                            }
                            // libhtp peeks at the next byte: a header line followed by
                            // one that does not fold into it is processed at once, not
                            // when the next line is complete (so a request cut inside
                            // its headers already shows the headers before the cut).
                            if st == St::Headers
                                && self.sides[d].st() == St::Headers
                                && data.get(pos).is_some_and(|&b| b != b' ' && b != b'\t')
                            {
                                self.flush_pending(ctx, dir);
                            }
                            buf.clear();
                            if self.sides[d].line.is_empty() {
                                self.sides[d].line = buf;
                            }
                        }
                    }
                }
            }
        }
    }

    /// A hole of `len` bytes in one direction's stream: HTTP parsing of the flow ends;
    /// messages in progress are marked truncated and complete.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, len: u64) {
        if let Some(tx) = find_tx(&mut self.txs, self.sides[dir.index()].tx) {
            super::files::gap(tx, dir, len);
        }
        ctx.counters.incr(Counter::Gap);
        self.fed[dir.index()] += len;
        self.stop(ctx, Direction::ToServer);
        self.stop(ctx, Direction::ToClient);
    }

    /// The flow ended: bodies delimited by the connection close complete, partial
    /// messages are marked truncated and complete.
    pub fn close(&mut self, ctx: &mut AppCtx) {
        for dir in [Direction::ToServer, Direction::ToClient] {
            let d = dir.index();
            self.at[d] = self.fed[d];
            let st = self.sides[d].st();
            // A partial line at the end of the stream is processed as a whole line (it
            // may also be one that ended in a lone CR right at the end of the data).
            if matches!(st, St::Line | St::Headers) && !self.sides[d].line.is_empty() {
                let buf = std::mem::take(&mut self.sides[d].line);
                self.sides[d].header_follows = false;
                self.on_line(ctx, dir, st, &buf);
            }
            if self.sides[d].st() == St::UntilClose {
                self.complete(ctx, dir);
            }
            self.stop(ctx, dir);
        }
    }

    /// Ends parsing of one direction, completing a message in progress as truncated.
    fn stop(&mut self, ctx: &mut AppCtx, dir: Direction) {
        self.finish_deferred(ctx, dir);
        let d = dir.index();
        if self.sides[d].pending.is_some() {
            self.flush_pending(ctx, dir);
        }
        if let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) {
            let m = tx.msg_mut(dir);
            if m.progress != Progress::Complete {
                m.truncated = true;
                if m.progress == Progress::Headers || m.progress == Progress::Line {
                    m.build_header_buffers(dir);
                }
            }
            self.finish_message(ctx, dir);
        }
        let side = &mut self.sides[d];
        side.st = Some(St::Stopped);
        side.line = Vec::new();
        give_decoder(&mut side.decoder);
        self.connect_buf = Vec::new();
    }

    fn new_tx(&mut self, ctx: &mut AppCtx) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxHttp);
        let mut tx = pool::tx(id);
        tx.request.min_inspect = ctx.config.min_inspect(Direction::ToServer);
        tx.response.min_inspect = ctx.config.min_inspect(Direction::ToClient);
        mem::push_tx(&mut self.txs, tx);
        while self.txs.len() > ctx.config.max_tx.max(1) {
            pool::give_tx(self.txs.pop_front());
            ctx.counters.incr(Counter::TxLimit);
        }
        id
    }

    fn on_line(&mut self, ctx: &mut AppCtx, dir: Direction, st: St, buf: &[u8]) {
        let d = dir.index();
        match st {
            St::Line => {
                if let Some(prev) = self.sides[d].finalized {
                    let starts = match dir {
                        Direction::ToServer => starts_request(buf),
                        Direction::ToClient => starts_response(buf),
                    };
                    if !starts {
                        // libhtp: more body of the message that just ended.
                        if !trim(buf).is_empty() {
                            let current = self.sides[d].tx.replace(prev);
                            self.body(ctx, dir, buf);
                            self.sides[d].tx = current;
                        }
                        return;
                    }
                    self.finish_deferred(ctx, dir);
                    self.sides[d].finalized = None;
                }
                match dir {
                    Direction::ToServer => self.request_line(ctx, buf),
                    Direction::ToClient => self.response_line(ctx, buf),
                }
            }
            St::Headers => self.header_line(ctx, dir, buf),
            St::ChunkLen => {
                let l = chomp(buf);
                if l.is_empty() {
                    return;
                }
                match parse_chunk_len(l) {
                    Some(0) => {
                        // The body is done: Suricata inspects it now, trailers or not.
                        if let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) {
                            tx.msg_mut(dir).body_done = true;
                        }
                        self.sides[d].st = Some(St::Trailers);
                    }
                    Some(n) => {
                        // (libhtp names an extension in either direction so.)
                        if ev::chunk_extension(l) {
                            self.raise(ctx, dir, ev::REQUEST_CHUNK_EXTENSION);
                        }
                        self.sides[d].st = Some(St::ChunkData(n))
                    }
                    None => match dir {
                        // An unparsable chunk size: the rest of a response is body
                        // until close; a request cannot be resynchronized.
                        Direction::ToClient => {
                            self.raise_once(ctx, dir, ev::INVALID_RESPONSE_CHUNK_LEN);
                            self.sides[d].st = Some(St::UntilClose);
                            self.body(ctx, dir, buf);
                        }
                        Direction::ToServer => self.stop(ctx, dir),
                    },
                }
            }
            St::ChunkDataEnd => self.sides[d].st = Some(St::ChunkLen),
            St::Trailers if chomp(buf).is_empty() => self.end_body(ctx, dir),
            St::Trailers if dir == Direction::ToClient && matches!(buf[0], b' ' | b'\t') => {
                // A trailer line folding into nothing.
                self.raise_once(ctx, dir, ev::INVALID_RESPONSE_FIELD_FOLDING);
            }
            _ => {}
        }
    }

    /// Gives the new message's raw headers room for the header block that follows its
    /// line in `rest` when the block's blank line is there (at most the raw header
    /// limit), and its header list room for one header per line of the block (at most
    /// the header limit): one allocation of each instead of a growth per header line.
    /// Only capacities: what is stored does not change.
    fn reserve_headers_raw(&mut self, ctx: &AppCtx, dir: Direction, rest: &[u8]) {
        let limit = ctx.config.header_raw_limit;
        let scan = &rest[..rest.len().min(limit.saturating_add(4))];
        let end = memchr::memmem::find(scan, b"\r\n\r\n")
            .map(|i| i + 4)
            .or_else(|| memchr::memmem::find(scan, b"\n\n").map(|i| i + 2));
        let Some(n) = end.map(|n| n.min(limit)) else {
            return;
        };
        // Lines before the blank one (folded lines make this an upper bound).
        let lines = memchr::memchr_iter(b'\n', &scan[..n])
            .count()
            .saturating_sub(1)
            .min(ctx.config.max_headers);
        if let Some(tx) = find_tx(&mut self.txs, self.sides[dir.index()].tx) {
            let m = tx.msg_mut(dir);
            if m.headers_raw.capacity() < n {
                m.headers_raw.reserve_exact(n - m.headers_raw.len());
            }
            if m.headers.capacity() < lines {
                m.headers.reserve_exact(lines - m.headers.len());
            }
        }
    }

    fn header_line(&mut self, ctx: &mut AppCtx, dir: Direction, buf: &[u8]) {
        let d = dir.index();
        if let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) {
            let m = tx.msg_mut(dir);
            let was_cut = m.headers_raw.len() >= ctx.config.header_raw_limit;
            if push_capped(&mut m.headers_raw, buf, ctx.config.header_raw_limit) && !was_cut {
                ctx.counters.incr(Counter::HttpHeaderRawLimit);
            }
        }
        let next_lf = self.sides[d].next_lf;
        if is_terminator(buf, next_lf) {
            self.flush_pending(ctx, dir);
            self.headers_complete(ctx, dir);
            return;
        }
        let l = chomp(buf);
        // A continuation line that itself looks like `Name: value` starts a new header
        // (what libhtp ends up doing with the http-evader folding tricks).
        let folded = matches!(buf[0], b' ' | b'\t') && !looks_like_header(l);
        if dir == Direction::ToClient
            && matches!(buf[0], b' ' | b'\t' | 0)
            && (self.sides[d].pending.is_none() || !folded)
        {
            // Folding with no header to fold into, or a folded line that is a header.
            self.raise_once(ctx, dir, ev::INVALID_RESPONSE_FIELD_FOLDING);
        }
        match &mut self.sides[d].pending {
            Some(p) if folded => {
                if push_capped(p, l, ctx.config.field_limit) {
                    ctx.counters.incr(Counter::HttpFieldTooLong);
                    self.raise(ctx, dir, super::field_too_long_event(dir));
                }
            }
            _ => {
                self.flush_pending(ctx, dir);
                self.sides[d].pending = Some(pool::line(l));
            }
        }
    }

    fn flush_pending(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        let Some(p) = self.sides[d].pending.take() else {
            return;
        };
        let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) else {
            return;
        };
        let h = parse_header_line(&p);
        let m = tx.msg_mut(dir);
        let dup_cl = dir == Direction::ToClient
            && p[h.name.clone()].eq_ignore_ascii_case(b"content-length")
            && m.header("content-length").is_some_and(|old| {
                let (a, b) = (
                    parse_content_length(old),
                    parse_content_length(&p[h.value.clone()]),
                );
                a.is_none() || b.is_none() || a != b
            });
        if !m.add_header(&p[h.name], &p[h.value], ctx.config.max_headers) {
            ctx.counters.incr(Counter::HttpHeaderLimit);
        }
        if dir == Direction::ToClient {
            // (A line starting with NUL was reported as folding.)
            let fault = match p.first() {
                Some(0) => ev::HeaderFault::default(),
                _ => response_header_fault(&p),
            };
            if fault.missing_colon {
                self.raise_once(ctx, dir, ev::RESPONSE_FIELD_MISSING_COLON);
            }
            if fault.invalid {
                self.raise_once(ctx, dir, ev::RESPONSE_HEADER_INVALID);
            }
            if dup_cl {
                self.raise(ctx, dir, ev::DUPLICATE_CONTENT_LENGTH_FIELD_IN_RESPONSE);
            }
        }
        pool::give_line(p);
    }

    /// Raises event `i` (of [`super::EVENTS`]) on the transaction of `dir`.
    fn raise(&mut self, ctx: &mut AppCtx, dir: Direction, i: usize) {
        ev::raise(&mut self.events, ctx, i, self.sides[dir.index()].tx);
    }

    /// Raises event `i` on the message of `dir`, unless it already raised it.
    fn raise_once(&mut self, ctx: &mut AppCtx, dir: Direction, i: usize) {
        let id = self.sides[dir.index()].tx;
        match find_tx(&mut self.txs, id) {
            Some(tx) => ev::raise_once(&mut self.events, ctx, tx.msg_mut(dir), i, id),
            None => ev::raise(&mut self.events, ctx, i, id),
        }
    }

    fn headers_complete(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) else {
            self.sides[d].st = Some(St::Line);
            return;
        };
        tx.msg_mut(dir).build_header_buffers(dir);
        let m = tx.msg_mut(dir);
        m.progress = Progress::Headers;
        let chunked = m.header("transfer-encoding").is_some_and(|v| {
            // NUL bytes are ignored (copied without them only when there are some).
            if v.contains(&0) {
                contains_nocase(
                    &v.iter().copied().filter(|&b| b != 0).collect::<Vec<u8>>(),
                    b"chunked",
                )
            } else {
                contains_nocase(v, b"chunked")
            }
        });
        let cl = m.header("content-length").map(parse_content_length);
        match dir {
            Direction::ToServer => {
                if tx.host.is_none() {
                    if let Some(h) = tx.request.header("host") {
                        let slots = [&mut tx.host, &mut tx.host_raw];
                        fill_host(slots, &mut tx.spare_hosts, h, &h[host_range(h)]);
                        tx.port = host_port(h);
                    }
                }
                if tx.request.version == Some(ProtocolVersion::V1_1)
                    && tx.request.header("host").is_none()
                {
                    let id = Some(tx.id);
                    ev::raise(&mut self.events, ctx, ev::MISSING_HOST_HEADER, id);
                }
                if ev::invalid_request_te(
                    tx.request.header("transfer-encoding"),
                    tx.request.version,
                ) {
                    let (e, id) = (ev::INVALID_TRANSFER_ENCODING_VALUE_IN_REQUEST, Some(tx.id));
                    ev::raise(&mut self.events, ctx, e, id);
                }
                let Some(tx) = find_tx(&mut self.txs, self.sides[d].tx) else {
                    return;
                };
                let next = if chunked {
                    St::ChunkLen
                } else {
                    match cl {
                        Some(Some(n)) if n > 0 => St::Identity(n),
                        _ => return self.complete(ctx, dir),
                    }
                };
                // libhtp undoes request codings too.
                let limit = ctx.config.response_body_decompress_layer_limit;
                give_decoder(&mut self.sides[0].decoder);
                self.sides[0].decoder = Decoder::boxed_for_header(
                    tx.request.header("content-encoding"),
                    limit,
                    &ctx.config.lzma,
                );
                if self.sides[0].decoder.is_some() {
                    tx.request.min_inspect =
                        inspect::decoded_min_inspect(ctx, tx.request.min_inspect);
                }
                tx.request.progress = Progress::Body;
                self.sides[0].st = Some(next);
            }
            Direction::ToClient => {
                let status = tx.status.unwrap_or(0);
                let method = tx.method().unwrap_or(b"");
                let head = method.eq_ignore_ascii_case(b"HEAD");
                let connect = method.eq_ignore_ascii_case(b"CONNECT");
                if (100..200).contains(&status) && status != 101 {
                    // Interim response: the final one follows for the same request.
                    tx.response = Message::default();
                    tx.status = None;
                    self.sides[1].st = Some(St::Line);
                    return;
                }
                if let Some(ce) = tx.response.header("content-encoding") {
                    let limit = ctx.config.response_body_decompress_layer_limit;
                    let (abnormal, too_many) = content_encoding_faults(ce, limit);
                    // More lzma layers listed than `lzma-enabled` allows.
                    let lzma_bomb = codings_http1(ce, limit, &ctx.config.lzma).1;
                    for _ in 0..abnormal {
                        self.raise(ctx, dir, ev::ABNORMAL_CE_HEADER);
                    }
                    if too_many {
                        self.raise(ctx, dir, ev::TOO_MANY_ENCODING_LAYERS);
                    }
                    if lzma_bomb {
                        self.raise(ctx, dir, ev::COMPRESSION_BOMB);
                    }
                }
                let has_len = chunked || cl.is_some();
                if (status == 101 && !has_len) || (connect && (200..300).contains(&status)) {
                    self.complete(ctx, dir);
                    self.sides[0].st = Some(St::Tunnel);
                    self.sides[1].st = Some(St::Tunnel);
                    self.connect_buf = Vec::new();
                    return;
                }
                if connect && self.sides[0].st() == St::ConnectWait {
                    // The tunnel was refused: requests go on.
                    self.sides[0].st = Some(St::Line);
                    let held = std::mem::take(&mut self.connect_buf);
                    self.parse(ctx, Direction::ToServer, &held);
                }
                let Some(tx) = find_tx(&mut self.txs, self.sides[1].tx) else {
                    return;
                };
                // libhtp still reads a body announced (chunked or by Content-Length)
                // on a 204/304.
                if head || ((status == 204 || status == 304) && !chunked && cl.is_none()) {
                    return self.complete(ctx, dir);
                }
                if chunked {
                    let te = tx.response.header("transfer-encoding").unwrap_or_default();
                    let abnormal = ev::abnormal_chunked(te);
                    let old = tx.response.version != Some(ProtocolVersion::V1_1);
                    if abnormal {
                        self.raise(ctx, dir, ev::RESPONSE_ABNORMAL_TRANSFER_ENCODING);
                    }
                    if old {
                        self.raise(ctx, dir, ev::RESPONSE_CHUNKED_OLD_PROTO);
                    }
                }
                let Some(tx) = find_tx(&mut self.txs, self.sides[1].tx) else {
                    return;
                };
                let next = if chunked {
                    St::ChunkLen
                } else {
                    match cl {
                        Some(Some(0)) => return self.complete(ctx, dir),
                        Some(Some(n)) => St::Identity(n),
                        _ => St::UntilClose,
                    }
                };
                let limit = ctx.config.response_body_decompress_layer_limit;
                give_decoder(&mut self.sides[1].decoder);
                self.sides[1].decoder = Decoder::boxed_for_header(
                    tx.response.header("content-encoding"),
                    limit,
                    &ctx.config.lzma,
                );
                if self.sides[1].decoder.is_some() {
                    tx.response.min_inspect =
                        inspect::decoded_min_inspect(ctx, tx.response.min_inspect);
                }
                tx.response.progress = Progress::Body;
                self.sides[1].st = Some(next);
            }
        }
    }

    fn body(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let side = &mut self.sides[d];
        let Some(tx) = find_tx(&mut self.txs, side.tx) else {
            return;
        };
        let (m, limit) = match dir {
            Direction::ToServer => (&mut tx.request, ctx.config.request_body_limit),
            Direction::ToClient => (&mut tx.response, ctx.config.response_body_limit),
        };
        if m.progress < Progress::Body {
            m.progress = Progress::Body;
        }
        m.body_wire_len += data.len() as u64;
        let room = limit.saturating_sub(m.body.len());
        if room == 0
            && side
                .decoder
                .as_ref()
                .is_some_and(|d| d.decodes_past_limit())
        {
            // libhtp decodes lzma past the body limit: its limits may fire there.
            if let Some(dec) = &mut side.decoder {
                let mut none = Vec::new();
                dec.feed(data, &mut none, 0);
                ev::raise_decoder_events(&mut self.events, ctx, dec, side.tx);
            }
        }
        if room == 0 {
            if !data.is_empty() && !m.body_truncated {
                m.body_truncated = true;
                ctx.counters.incr(match dir {
                    Direction::ToServer => Counter::HttpRequestBodyLimit,
                    Direction::ToClient => Counter::HttpResponseBodyLimit,
                });
            }
            if side.decoder.is_none() {
                m.body_len += data.len() as u64;
            }
            return;
        }
        let before = m.body.len();
        let cut = match &mut side.decoder {
            Some(dec) => {
                if dec.feed(data, &mut m.body, room) {
                    ctx.counters.incr(Counter::HttpDecompressError);
                }
                ev::raise_decoder_events(&mut self.events, ctx, dec, side.tx);
                m.body.len() >= limit
            }
            None => {
                let cut = push_capped(&mut m.body, data, limit);
                m.body_len += (data.len() - (m.body.len() - before)) as u64;
                cut
            }
        };
        m.body_len += (m.body.len() - before) as u64;
        let fresh = before..m.body.len();
        if cut && !m.body_truncated {
            m.body_truncated = true;
            ctx.counters.incr(match dir {
                Direction::ToServer => Counter::HttpRequestBodyLimit,
                Direction::ToClient => Counter::HttpResponseBodyLimit,
            });
        }
        super::files::feed(ctx, tx, dir, fresh, cut);
    }

    /// Flushes the decoder of a message that is ending.
    fn finish_message(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        let side = &mut self.sides[d];
        let dec = side.decoder.take();
        if let Some(tx) = find_tx(&mut self.txs, side.tx) {
            let m = tx.msg_mut(dir);
            if let Some(mut dec) = dec {
                let before = m.body.len();
                let limit = match dir {
                    Direction::ToServer => ctx.config.request_body_limit,
                    Direction::ToClient => ctx.config.response_body_limit,
                };
                let room = limit.saturating_sub(m.body.len());
                dec.finish(&mut m.body, room);
                ev::raise_decoder_events(&mut self.events, ctx, &mut dec, side.tx);
                Decoder::give(dec);
                m.body_len += (m.body.len() - before) as u64;
                let fresh = before..m.body.len();
                super::files::feed(ctx, tx, dir, fresh, false);
            }
            super::files::end(tx, dir);
            let m = tx.msg_mut(dir);
            m.progress = Progress::Complete;
            self.completed[d] += 1;
            // A message cut short by a gap or the end of the flow has no frame end
            // (Suricata 7.0.10 inspects no frame of a response open at the flow's end).
            if ctx.config.frames && !m.truncated {
                self.ends[d].push(self.at[d]);
            }
            if dir == Direction::ToClient {
                self.next_res = self.next_res.max(tx.id + 1);
            }
        }
        side.tx = None;
    }

    fn complete(&mut self, ctx: &mut AppCtx, dir: Direction) {
        let d = dir.index();
        let connect = dir == Direction::ToServer
            && find_tx(&mut self.txs, self.sides[d].tx)
                .and_then(|t| t.method().map(|m| m.eq_ignore_ascii_case(b"CONNECT")))
                .unwrap_or(false);
        self.sides[d].finalized = self.sides[d].tx;
        self.finish_message(ctx, dir);
        self.sides[d].st = Some(if connect { St::ConnectWait } else { St::Line });
    }
}

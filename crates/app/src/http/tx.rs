//! HTTP transactions: one request and its response, with the inspection buffers
//! Suricata builds from them.

use core::ops::Range;

use super::parser::ProtocolVersion;
use super::HttpBuffer;
use crate::Direction;

/// How far one side (request or response) of a transaction has been parsed. Suricata
/// inspects line and header buffers from [`Progress::Headers`] on, bodies while
/// [`Progress::Body`] and at [`Progress::Complete`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Progress {
    /// Nothing seen yet.
    #[default]
    None,
    /// The request or status line is in.
    Line,
    /// The headers are complete.
    Headers,
    /// Body data is expected or arriving.
    Body,
    /// The message is complete (or was cut by a gap or the end of the flow).
    Complete,
}

/// Bytes of a header name held inside its [`Header`], without an allocation of its own.
pub const NAME_INLINE: usize = 24;
/// Bytes of a header value held inside its [`Header`], without an allocation of its own.
pub const VALUE_INLINE: usize = 32;

/// A header name's bytes: inside the [`Header`] up to [`NAME_INLINE`] bytes (nearly
/// every name), on the heap beyond.
pub type HeaderName = smallvec::SmallVec<[u8; NAME_INLINE]>;
/// A header value's bytes: inside the [`Header`] up to [`VALUE_INLINE`] bytes (most
/// response header values), on the heap beyond.
pub type HeaderValue = smallvec::SmallVec<[u8; VALUE_INLINE]>;

/// One header after folding and merging: repeated names are joined with `", "` into
/// the first occurrence, as libhtp does (a repeated Content-Length keeps the first).
/// Short names and values are held inline, so most headers cost no allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The name as sent (case kept, surrounding whitespace removed).
    pub name: HeaderName,
    /// The value, trimmed.
    pub value: HeaderValue,
}

impl Header {
    /// Bytes this header holds on the heap (its name's and value's allocations, when
    /// they outgrew the inline room).
    pub fn heap_bytes(&self) -> usize {
        let heap = |spilled: bool, cap: usize| if spilled { cap } else { 0 };
        heap(self.name.spilled(), self.name.capacity())
            + heap(self.value.spilled(), self.value.capacity())
    }
}

/// Empties `buf` and fills it with `bytes`; a buffer too small grows to the whole
/// allocator chunk its bytes take anyway (see `chunk_room`).
fn fill<A: smallvec::Array<Item = u8>>(buf: &mut smallvec::SmallVec<A>, bytes: &[u8]) {
    buf.clear();
    if buf.capacity() < bytes.len() {
        buf.reserve_exact(chunk_room(bytes.len()));
    }
    buf.extend_from_slice(bytes);
}

/// `a == b` ignoring ASCII case and the NUL bytes of `a` (libhtp's
/// `bstr_cmp_c_nocasenorzero`).
pub(crate) fn eq_nocase_norzero(a: &[u8], b: &[u8]) -> bool {
    let mut it = a.iter().filter(|&&c| c != 0);
    for &c in b {
        match it.next() {
            Some(x) if x.eq_ignore_ascii_case(&c) => {}
            _ => return false,
        }
    }
    it.next().is_none()
}

/// One side of a transaction: a request or a response.
#[derive(Clone, Debug, Default)]
pub struct Message {
    /// The request or status line, without its terminator.
    pub(crate) line: Vec<u8>,
    pub(crate) headers: Vec<Header>,
    /// Emptied headers whose buffers the next headers reuse (a pooled message's).
    pub(crate) spare_headers: Vec<Header>,
    pub(crate) headers_raw: Vec<u8>,
    /// `http.start` (HTTP/1 only: the line, `\r\n`, `Name: value\r\n` per header,
    /// `\r\n`), `http.header` and `http.header_names`, one after the other in one
    /// buffer (one allocation per message, not three): see [`Message::start_buf`],
    /// [`Message::header_norm`], [`Message::header_names`].
    pub(crate) hdr_bufs: Vec<u8>,
    /// Where `http.header` and `http.header_names` start in `hdr_bufs`.
    pub(crate) hdr_at: [usize; 2],
    pub(crate) body: Vec<u8>,
    /// Body bytes after dechunking (before decompression), as libhtp's `message_len`.
    pub(crate) body_wire_len: u64,
    /// Body bytes after dechunking and decompression, as libhtp's `entity_len`.
    pub(crate) body_len: u64,
    pub(crate) body_truncated: bool,
    pub(crate) progress: Progress,
    /// Some of its start line arrived before the line was complete (libhtp's response
    /// has begun then: see [`crate::Transaction::started`]).
    pub(crate) begun: bool,
    /// Cut short by a gap, the end of the flow or a parse error.
    pub(crate) truncated: bool,
    /// Parts of the line: method/uri/protocol or protocol/status/message.
    pub(crate) parts: [Range<u32>; 3],
    pub(crate) version: Option<ProtocolVersion>,
    /// Body bytes needed before an unfinished body is inspected
    /// (`request-body-minimal-inspect-size` / `response-body-minimal-inspect-size`).
    pub(crate) min_inspect: usize,
    /// The last chunk was seen (trailers may still follow).
    pub(crate) body_done: bool,
    /// Events raised once per message so far (libhtp's per-transaction flags).
    pub(crate) raised: crate::Events,
    /// The body's file in the transaction's [`crate::Files`] (`None`: no body yet).
    pub(crate) file: Option<super::files::FileSlot>,
}

impl Message {
    /// `http.start` (empty until the headers are built, and for HTTP/2).
    pub(crate) fn start_buf(&self) -> &[u8] {
        self.hdr_bufs.get(..self.hdr_at[0]).unwrap_or_default()
    }

    /// `http.header`: `Name: value\r\n` per header, this direction's cookie header
    /// left out.
    pub(crate) fn header_norm(&self) -> &[u8] {
        self.hdr_bufs
            .get(self.hdr_at[0]..self.hdr_at[1])
            .unwrap_or_default()
    }

    /// `http.header_names`: `\r\n`, `Name\r\n` per header, `\r\n`.
    pub(crate) fn header_names(&self) -> &[u8] {
        self.hdr_bufs.get(self.hdr_at[1]..).unwrap_or_default()
    }

    /// The headers, in order of first appearance.
    pub fn headers(&self) -> &[Header] {
        &self.headers
    }

    /// The (merged) value of header `name`, compared case-insensitively and ignoring
    /// NUL bytes in the sent name, as libhtp's header lookups do.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|h| eq_nocase_norzero(&h.name, name.as_bytes()))
            .map(|h| h.value.as_slice())
    }

    /// How far this side has been parsed.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// The body kept for inspection (dechunked; responses also decompressed), at most
    /// the configured body limit.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Total body length after dechunking and decompression, including bytes beyond
    /// the body limit.
    pub fn body_len(&self) -> u64 {
        self.body_len
    }

    /// Body length as transferred (after dechunking, before decompression).
    pub fn body_wire_len(&self) -> u64 {
        self.body_wire_len
    }

    /// Whether the kept body was cut at the body limit.
    pub fn body_truncated(&self) -> bool {
        self.body_truncated
    }

    /// Whether the message was cut short by a gap, the end of the flow or a parse error.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The body as detection sees it: like Suricata, an unfinished body is inspected
    /// only once it holds the minimal inspect size (or hit the body limit); a complete
    /// one always.
    pub fn inspectable_body(&self) -> Option<&[u8]> {
        let ready = self.progress == Progress::Complete
            || self.body_done
            || self.body_truncated
            || self.body_len >= self.min_inspect as u64;
        (self.progress >= Progress::Body && ready && !self.body.is_empty())
            .then_some(self.body.as_slice())
    }

    /// The protocol version from the line (`None` before the line is in).
    pub fn version(&self) -> Option<ProtocolVersion> {
        self.version
    }

    fn part(&self, i: usize) -> Option<&[u8]> {
        if self.progress == Progress::None || self.parts[i].is_empty() {
            return None;
        }
        self.line.get(self.part_range(i))
    }

    /// Records where the line's three parts lie (in the line's bytes; a line is far
    /// shorter than 4 GiB: the field limit bounds it, and an offset beyond is kept as
    /// `u32::MAX`, a part that reads as absent).
    pub(crate) fn set_parts(&mut self, parts: [Range<usize>; 3]) {
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.parts = parts.map(|r| at(r.start)..at(r.end));
    }

    /// Where part `i` of the line lies.
    pub(crate) fn part_range(&self, i: usize) -> Range<usize> {
        let r = &self.parts[i];
        r.start as usize..r.end as usize
    }

    pub(crate) fn add_header(&mut self, name: &[u8], value: &[u8], max: usize) -> bool {
        if let Some(h) = self
            .headers
            .iter_mut()
            .find(|h| h.name.eq_ignore_ascii_case(name))
        {
            if !name.eq_ignore_ascii_case(b"content-length") {
                h.value.extend_from_slice(b", ");
                h.value.extend_from_slice(value);
            }
            return true;
        }
        if self.headers.len() >= max {
            return false;
        }
        if self.headers.len() == self.headers.capacity()
            && (HEADERS_FIRST..HEADERS_GROW_BY_ONE).contains(&self.headers.len())
        {
            // Past the first four, one entry at a time up to eight (then doubling): a
            // request with five headers held room for eight, 144 bytes in every open
            // flow. A pooled message keeps the capacity it grew to.
            self.headers.reserve_exact(1);
        }
        let mut h = self.spare_header(name.len(), value.len());
        // A new buffer gets the whole allocator chunk its bytes take anyway (see
        // `chunk_room`), so a reused header often fits the next one without a larger
        // fixed minimum: every open flow holds its request's headers.
        fill(&mut h.name, name);
        fill(&mut h.value, value);
        self.headers.push(h);
        true
    }

    /// A spare header whose buffers hold `name` and `value` bytes without growing, as
    /// far as the spare ones allow: the one with the smallest value buffer that fits,
    /// its name buffer swapped with the smallest fitting one of another spare header
    /// (headers of the next message have other lengths than the last one's in the
    /// same place). A new empty header when there is no spare one.
    fn spare_header(&mut self, name: usize, value: usize) -> Header {
        let spare = &mut self.spare_headers;
        // The smallest buffer of at least `need` bytes, else the largest.
        let best = |spare: &[Header], need: usize, cap: fn(&Header) -> usize| {
            let fits = spare
                .iter()
                .enumerate()
                .filter(|(_, h)| cap(h) >= need)
                .min_by_key(|(_, h)| cap(h));
            fits.or_else(|| spare.iter().enumerate().max_by_key(|(_, h)| cap(h)))
                .map(|(i, _)| i)
        };
        let Some(i) = best(spare, value, |h| h.value.capacity()) else {
            return Header::default();
        };
        let mut h = spare.swap_remove(i);
        if h.name.capacity() < name {
            if let Some(j) = best(spare, name, |h| h.name.capacity()) {
                if spare[j].name.capacity() > h.name.capacity() {
                    std::mem::swap(&mut h.name, &mut spare[j].name);
                }
            }
        }
        h
    }

    /// Builds `http.header` (`Name: value\r\n` per header, the cookie header of this
    /// direction left out) and `http.header_names` (`\r\n` + `Name\r\n` per header +
    /// `\r\n`) and `http.start` (the line and every header, as Suricata 7 builds it).
    pub(crate) fn build_header_buffers(&mut self, dir: Direction) {
        let skip: &[u8] = match dir {
            Direction::ToServer => b"cookie",
            Direction::ToClient => b"set-cookie",
        };
        // Each buffer's exact size first: one allocation of the right size instead of
        // doubling growth, whose slack every open flow's request kept.
        let (mut start, mut names, mut norm) = (self.line.len() + 4, 4, 0);
        for h in &self.headers {
            let line = h.name.len() + h.value.len() + 4;
            start += line;
            names += h.name.len() + 2;
            if !h.name.eq_ignore_ascii_case(skip) {
                norm += line;
            }
        }
        let b = &mut self.hdr_bufs;
        b.clear();
        b.reserve_exact(start + norm + names);
        b.extend_from_slice(&self.line);
        b.extend_from_slice(b"\r\n");
        for h in &self.headers {
            for part in [&h.name[..], b": ", &h.value, b"\r\n"] {
                b.extend_from_slice(part);
            }
        }
        b.extend_from_slice(b"\r\n");
        self.hdr_at[0] = b.len();
        for h in self
            .headers
            .iter()
            .filter(|h| !h.name.eq_ignore_ascii_case(skip))
        {
            for part in [&h.name[..], b": ", &h.value, b"\r\n"] {
                b.extend_from_slice(part);
            }
        }
        self.hdr_at[1] = b.len();
        b.extend_from_slice(b"\r\n");
        for h in &self.headers {
            b.extend_from_slice(&h.name);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"\r\n");
        // The header buffers are complete: drop the slack of their doubling growth (a
        // transaction in progress holds them for the rest of its message; with many
        // concurrent flows the slack was tens of MB). Small slack stays: buffers a
        // recycled transaction brings (`state/pool.rs`) would otherwise be reallocated.
        for b in [&mut self.line, &mut self.headers_raw, &mut self.hdr_bufs] {
            if b.capacity() - b.len() > SLACK_BYTES {
                b.shrink_to_fit();
            }
        }
        if self.headers.capacity() - self.headers.len() > SLACK_HEADERS {
            self.headers.shrink_to_fit();
        }
    }
}

/// The capacity to ask for `len` bytes: what the allocator's chunk for them holds
/// anyway (glibc: chunks of 16-byte steps with 8 bytes of header, at least 24 usable),
/// so the room costs no memory.
fn chunk_room(len: usize) -> usize {
    ((len + 8).div_ceil(16) * 16 - 8).max(24)
}

/// Header entries a message's first growth makes room for.
const HEADERS_FIRST: usize = 4;
/// Header entries held before the list grows by doubling (by one from
/// [`HEADERS_FIRST`] up to here).
const HEADERS_GROW_BY_ONE: usize = 8;

/// Spare bytes a completed header buffer may keep (more is given back).
const SLACK_BYTES: usize = 1024;
/// Spare header entries a completed message may keep.
const SLACK_HEADERS: usize = 8;

/// [`HttpTx::set_host`] on a transaction's fields (for a caller that holds its
/// request borrowed): `slots` are `host` and `host_raw`, `spare` their spare buffers.
pub(crate) fn fill_host(
    slots: [&mut Option<Vec<u8>>; 2],
    spare: &mut [Vec<u8>; 2],
    raw: &[u8],
    name: &[u8],
) {
    let [host, host_raw] = slots;
    let [spare_host, spare_raw] = spare;
    let mut h = host.take().unwrap_or_else(|| std::mem::take(spare_host));
    super::uri::normalize_host_into(name, &mut h);
    *host = Some(h);
    let mut r = host_raw.take().unwrap_or_else(|| std::mem::take(spare_raw));
    r.clear();
    r.extend_from_slice(raw);
    *host_raw = Some(r);
}

/// One HTTP transaction: a request and the response matched to it by order.
#[derive(Clone, Debug, Default)]
pub struct HttpTx {
    pub(crate) id: u64,
    pub(crate) request: Message,
    pub(crate) response: Message,
    pub(crate) uri_norm: Vec<u8>,
    pub(crate) host: Option<Vec<u8>>,
    pub(crate) host_raw: Option<Vec<u8>>,
    /// Emptied buffers for `host` and `host_raw` (a pooled transaction's, see
    /// [`HttpTx::set_host`]).
    pub(crate) spare_hosts: [Vec<u8>; 2],
    pub(crate) port: Option<u16>,
    pub(crate) status: Option<u16>,
    /// An HTTP/2 stream's own facts (`None` for HTTP/1).
    pub(crate) h2: Option<Box<crate::http2::log::H2Info>>,
    /// The bodies tracked as files.
    pub(crate) files: crate::Files,
    /// An emptied buffer for the next body file's name (a pooled transaction's).
    pub(crate) spare_file_name: Vec<u8>,
}

impl HttpTx {
    /// Sets `host` to `name` normalized and `host_raw` to `raw`, in the spare buffers
    /// when there are (a transaction from the pool): no allocation once warm.
    pub(crate) fn set_host(&mut self, raw: &[u8], name: &[u8]) {
        fill_host(
            [&mut self.host, &mut self.host_raw],
            &mut self.spare_hosts,
            raw,
            name,
        );
    }

    /// The transaction id within its flow (0, 1, 2, ... in request order).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// An HTTP/2 stream's own facts (stream id, priority, error codes); `None` for an
    /// HTTP/1 transaction.
    pub fn h2(&self) -> Option<&crate::http2::log::H2Info> {
        self.h2.as_deref()
    }

    /// The request side.
    pub fn request(&self) -> &Message {
        &self.request
    }

    /// The response side.
    pub fn response(&self) -> &Message {
        &self.response
    }

    /// The request (to server) or the response (to client).
    pub(crate) fn msg(&self, dir: Direction) -> &Message {
        match dir {
            Direction::ToServer => &self.request,
            Direction::ToClient => &self.response,
        }
    }

    /// The bodies tracked as files.
    pub fn files(&self) -> &crate::Files {
        &self.files
    }

    /// The request (to server) or the response (to client), for the parsers to fill.
    pub(crate) fn msg_mut(&mut self, dir: Direction) -> &mut Message {
        match dir {
            Direction::ToServer => &mut self.request,
            Direction::ToClient => &mut self.response,
        }
    }

    /// Progress of one side.
    pub fn progress(&self, dir: Direction) -> Progress {
        match dir {
            Direction::ToServer => self.request.progress,
            Direction::ToClient => self.response.progress,
        }
    }

    /// Whether both sides are complete.
    pub fn is_complete(&self) -> bool {
        self.request.progress == Progress::Complete && self.response.progress == Progress::Complete
    }

    /// `http.method`.
    pub fn method(&self) -> Option<&[u8]> {
        self.request.part(0)
    }

    /// `http.uri.raw`: the URI as on the request line.
    pub fn uri_raw(&self) -> Option<&[u8]> {
        self.request.part(1)
    }

    /// `http.uri`: the normalized URI.
    pub fn uri(&self) -> Option<&[u8]> {
        (self.request.progress != Progress::None).then_some(self.uri_norm.as_slice())
    }

    /// `http.protocol` of the request (empty for HTTP/0.9).
    pub fn request_protocol(&self) -> Option<&[u8]> {
        self.request.part(2)
    }

    /// `http.host`: the host name from the URI or Host header, lowercased, port
    /// stripped.
    pub fn host(&self) -> Option<&[u8]> {
        self.host.as_deref()
    }

    /// `http.host.raw`: the Host header value (or the URI's authority host) as sent.
    pub fn host_raw(&self) -> Option<&[u8]> {
        self.host_raw.as_deref()
    }

    /// The port given with the host (URI authority or Host header), as libhtp's
    /// `request_port_number` (EVE `http_port`).
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The response status code, when it parsed.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// `http.stat_code`: the status as sent.
    pub fn stat_code(&self) -> Option<&[u8]> {
        self.response.part(1)
    }

    /// `http.stat_msg`.
    pub fn stat_msg(&self) -> Option<&[u8]> {
        self.response.part(2)
    }

    /// `http.protocol` of the response.
    pub fn response_protocol(&self) -> Option<&[u8]> {
        self.response.part(0)
    }

    /// The buffer `b` as seen in direction `dir` (header-based buffers exist on both
    /// sides; request-only or response-only buffers ignore `dir`). `None` when the
    /// buffer does not exist (yet) in this transaction.
    pub fn buffer(&self, b: HttpBuffer, dir: Direction) -> Option<&[u8]> {
        let msg = match dir {
            Direction::ToServer => &self.request,
            Direction::ToClient => &self.response,
        };
        let headers_done = |m: &Message| m.progress >= Progress::Headers;
        match b {
            HttpBuffer::Method => self.method(),
            HttpBuffer::Uri => self.uri(),
            HttpBuffer::UriRaw => self.uri_raw(),
            HttpBuffer::RequestLine => {
                (self.request.progress != Progress::None).then_some(self.request.line.as_slice())
            }
            HttpBuffer::Protocol => match dir {
                Direction::ToServer => self.request_protocol(),
                Direction::ToClient => self.response_protocol(),
            },
            HttpBuffer::Header => headers_done(msg).then_some(msg.header_norm()),
            HttpBuffer::HeaderRaw => headers_done(msg).then_some(msg.headers_raw.as_slice()),
            HttpBuffer::HeaderNames => headers_done(msg).then_some(msg.header_names()),
            HttpBuffer::Cookie => match dir {
                Direction::ToServer => self.request.header("cookie"),
                Direction::ToClient => self.response.header("set-cookie"),
            },
            HttpBuffer::UserAgent => self.request.header("user-agent"),
            HttpBuffer::Host => self.host(),
            HttpBuffer::HostRaw => self.host_raw(),
            HttpBuffer::Accept => self.request.header("accept"),
            HttpBuffer::AcceptEnc => self.request.header("accept-encoding"),
            HttpBuffer::AcceptLang => self.request.header("accept-language"),
            HttpBuffer::Referer => self.request.header("referer"),
            HttpBuffer::Connection => msg.header("connection"),
            HttpBuffer::ContentType => msg.header("content-type"),
            HttpBuffer::ContentLen => msg.header("content-length"),
            HttpBuffer::RequestBody => self.request.inspectable_body(),
            HttpBuffer::StatCode => self.stat_code(),
            HttpBuffer::StatMsg => self.stat_msg(),
            HttpBuffer::ResponseLine => {
                (self.response.progress != Progress::None).then_some(self.response.line.as_slice())
            }
            HttpBuffer::ResponseBody => self.response.inspectable_body(),
            HttpBuffer::Server => self.response.header("server"),
            HttpBuffer::Location => self.response.header("location"),
            HttpBuffer::Start => headers_done(msg).then_some(msg.start_buf()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spare_headers_are_matched_to_the_lengths_they_hold() {
        let spare = |n: usize, v: usize| Header {
            name: HeaderName::with_capacity(n),
            value: HeaderValue::with_capacity(v),
        };
        let mut m = Message {
            spare_headers: vec![spare(8, 200), spare(24, 16), spare(40, 40)],
            ..Message::default()
        };
        // The heap buffers' addresses (inline ones move with their header).
        let ptrs = |hs: &[Header]| {
            let mut p: Vec<usize> = hs
                .iter()
                .flat_map(|h| {
                    [
                        h.name.spilled().then(|| h.name.as_ptr() as usize),
                        h.value.spilled().then(|| h.value.as_ptr() as usize),
                    ]
                })
                .flatten()
                .collect();
            p.sort_unstable();
            p
        };
        let before = ptrs(&m.spare_headers);
        // Taken from the end of the list, the first header grew a buffer, and the
        // last one too: matched, every one fits (the first with another's name buffer).
        assert!(m.add_header(b"User-Agent", &[b'u'; 150], 64));
        assert!(m.add_header(b"Host", b"example.com", 64));
        assert!(m.add_header(b"Accept-Language", &[b'l'; 30], 64));
        assert!(m.spare_headers.is_empty());
        assert_eq!(ptrs(&m.headers), before, "no buffer was replaced");
        assert_eq!(m.header("host"), Some(&b"example.com"[..]));
        assert_eq!(m.header("user-agent"), Some(&[b'u'; 150][..]));
        assert_eq!(&m.headers[2].name[..], b"Accept-Language");
        // No spare one fits: the largest is grown, and a header comes new without any.
        let mut m = Message {
            spare_headers: vec![spare(24, 24)],
            ..Message::default()
        };
        assert!(m.add_header(b"X", &[b'x'; 100], 64));
        assert!(m.add_header(b"Y", b"y", 64));
        assert_eq!(m.headers[0].value.capacity(), chunk_room(100));
        assert_eq!(m.headers[1].value.capacity(), VALUE_INLINE, "held inline");
        assert_eq!(m.headers[1].heap_bytes(), 0);
        assert_eq!(m.headers[0].heap_bytes(), chunk_room(100));
    }

    #[test]
    fn header_room_is_the_allocator_chunk() {
        let rooms: Vec<usize> = [0, 1, 24, 25, 40, 41, 100]
            .iter()
            .map(|&n| chunk_room(n))
            .collect();
        assert_eq!(rooms, [24, 24, 24, 40, 40, 56, 104]);
        let mut m = Message::default();
        assert!(m.add_header(b"Host", b"example.com", 64));
        assert!(m.add_header(b"User-Agent", &[b'a'; 100], 64));
        let caps: Vec<(usize, usize)> = m
            .headers
            .iter()
            .map(|h| (h.name.capacity(), h.value.capacity()))
            .collect();
        // Inline up to their room, then the allocator chunk.
        assert_eq!(caps, [(NAME_INLINE, VALUE_INLINE), (NAME_INLINE, 104)]);
        // Four entries first, then one at a time up to eight, then doubling.
        let mut caps = Vec::new();
        for i in 0..10u8 {
            assert!(m.add_header(&[b'a' + i], b"v", 64));
            caps.push(m.headers.capacity());
        }
        assert_eq!(caps, [4, 4, 5, 6, 7, 8, 16, 16, 16, 16]);
        assert_eq!(m.header("user-agent").map(<[u8]>::len), Some(100));
    }

    #[test]
    fn header_buffers_are_built_at_their_size() {
        let mut m = Message {
            line: b"GET / HTTP/1.1".to_vec(),
            ..Message::default()
        };
        for (n, v) in [
            (&b"Host"[..], &b"a.test"[..]),
            (b"Cookie", b"x=1"),
            (b"Accept", b"*/*"),
        ] {
            assert!(m.add_header(n, v, 64));
        }
        m.build_header_buffers(Direction::ToServer);
        assert_eq!(
            m.start_buf(),
            b"GET / HTTP/1.1\r\nHost: a.test\r\nCookie: x=1\r\nAccept: */*\r\n\r\n"
        );
        assert_eq!(m.header_norm(), b"Host: a.test\r\nAccept: */*\r\n");
        assert_eq!(m.header_names(), b"\r\nHost\r\nCookie\r\nAccept\r\n\r\n");
        // The three in one allocation of their size.
        assert_eq!(m.hdr_bufs.capacity(), m.hdr_bufs.len());
        // Built again (a pooled message's buffer) with fewer headers: no stale bytes.
        m.headers.truncate(1);
        m.build_header_buffers(Direction::ToClient);
        assert_eq!(m.start_buf(), b"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
        assert_eq!(m.header_norm(), b"Host: a.test\r\n");
        assert_eq!(m.header_names(), b"\r\nHost\r\n\r\n");
        let fresh = Message::default();
        assert!(fresh.start_buf().is_empty() && fresh.header_norm().is_empty());
        assert!(fresh.header_names().is_empty());
    }
}

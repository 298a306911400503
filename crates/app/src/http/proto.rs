//! HTTP/1.x on the protocol contract: its buffer table, its state as a [`Protocol`]
//! and its transactions (also HTTP/2's) as [`Transaction`]s.

use serde_json::Value;

use super::header_bufs::{self, Side};
use super::{HttpBuffer, HttpState, HttpTx, Progress, ALL_BUFFERS};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

const S: Option<Direction> = Some(Direction::ToServer);
const C: Option<Direction> = Some(Direction::ToClient);

/// HTTP's inspection buffers: [`ALL_BUFFERS`] in order (the local index of a
/// [`BufferId`] is the index there), then `file.data` (the body of the rule's
/// direction), `http2.header_name` (HTTP/2 only) and the header multi-buffers
/// `http.request_header`/`http.response_header` (`header_bufs.rs`).
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("http.method", S),
    BufferDef::new("http.uri", S).uri(),
    BufferDef::new("http.uri.raw", S).uri(),
    BufferDef::new("http.request_line", S),
    BufferDef::new("http.protocol", None),
    BufferDef::new("http.header", None),
    BufferDef::new("http.header.raw", None),
    BufferDef::new("http.header_names", None),
    BufferDef::new("http.cookie", None),
    BufferDef::new("http.user_agent", S),
    BufferDef::new("http.host", S),
    BufferDef::new("http.host.raw", S),
    BufferDef::new("http.accept", S),
    BufferDef::new("http.accept_enc", S),
    BufferDef::new("http.accept_lang", S),
    BufferDef::new("http.referer", S),
    BufferDef::new("http.connection", None),
    BufferDef::new("http.content_type", None),
    BufferDef::new("http.content_len", None),
    BufferDef::new("http.request_body", S).body(),
    BufferDef::new("http.stat_code", C),
    BufferDef::new("http.stat_msg", C),
    BufferDef::new("http.response_line", C),
    BufferDef::new("http.response_body", C).body(),
    BufferDef::new("http.server", C),
    BufferDef::new("http.location", C),
    BufferDef::new("http.start", None),
    BufferDef::new("file.data", None).file(),
    // Request names only (`http2::keywords::header_names`), but a rule may pair it
    // with response buffers or `flow:to_client`: Suricata 7.0.10 loads those rules.
    BufferDef::new("http2.header_name", None).multi(),
    BufferDef::new("http.request_header", S).multi(),
    BufferDef::new("http.response_header", C).multi(),
    // The name of each file of the direction (the URI's path, a multipart part's or a
    // `Content-Disposition` filename), as Suricata 7.0.10's `file.name` (the difftest
    // `filekw` family).
    BufferDef::new("file.name", None).multi(),
    // libmagic's description of each file of the direction, as Suricata 7.0.10's
    // `file.magic` (the difftest `appkw` family).
    BufferDef::new("file.magic", None).multi(),
];

/// The local index of `file.name` in [`BUFFERS`].
const FILE_NAME: usize = REQUEST_HEADER + 2;

/// The local index of `file.magic` in [`BUFFERS`].
const FILE_MAGIC: usize = FILE_NAME + 1;

/// The local index of `http.request_header` in [`BUFFERS`] (`http.response_header`
/// follows it).
const REQUEST_HEADER: usize = ALL_BUFFERS.len() + 2;

/// The header multi-buffer a local index names, if it names one.
fn header_side(local: usize) -> Option<Side> {
    match local.checked_sub(REQUEST_HEADER)? {
        0 => Some(Side::Request),
        1 => Some(Side::Response),
        _ => None,
    }
}

pub(crate) use super::events::EVENTS;

/// The index in [`EVENTS`] of a field over the limit in direction `dir`.
pub(crate) fn field_too_long_event(dir: Direction) -> usize {
    dir.index()
}

/// The state of a new HTTP/1 flow (in a slot of the worker's slab, `state/pool.rs`).
pub(crate) fn new_state(_: Transport) -> Option<(AppState, Counter)> {
    Some((AppState::Http(super::HttpBox::default()), Counter::FlowHttp))
}

impl Protocol for HttpState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        HttpState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, len: u64) {
        HttpState::gap(self, ctx, dir, len)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        HttpState::close(self, ctx)
    }

    fn errored(&self) -> bool {
        HttpState::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        HttpState::events(self).each(EVENTS, f)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        HttpState::take_completed(self, dir)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.tx(id).map(|t| t as &dyn Transaction)
    }

    /// Detection again once the flow's first request, a `CONNECT`, was answered 2xx.
    fn switch_to(&self) -> Option<AppProto> {
        self.connect_tunnel().map(|_| AppProto::Unknown)
    }

    /// The port the `CONNECT` asked for.
    fn switch_port(&self) -> Option<u16> {
        self.connect_tunnel().flatten()
    }

    fn free_txs_before(&mut self, id: u64) {
        HttpState::free_txs_before(self, id)
    }
}

impl Transaction for HttpTx {
    fn id(&self) -> u64 {
        HttpTx::id(self)
    }

    fn proto(&self) -> AppProto {
        AppProto::Http
    }

    fn complete(&self, dir: Direction) -> bool {
        self.progress(dir) == Progress::Complete
    }

    fn started(&self, dir: Direction) -> bool {
        self.progress(dir) != Progress::None
            || (dir == Direction::ToClient && self.response().begun)
    }

    fn is_final(&self) -> bool {
        self.is_complete()
    }

    fn fingerprint(&self) -> (u64, u64) {
        let (mut h, mut body) = (0, 0);
        for (m, d) in [
            (self.request(), Direction::ToServer),
            (self.response(), Direction::ToClient),
        ] {
            h = mix(h, m.progress() as u64);
            h = mix(h, m.headers().len() as u64);
            h = mix(h, u64::from(m.truncated()));
            let raw = self.buffer(HttpBuffer::HeaderRaw, d);
            h = mix(h, raw.map_or(u64::MAX, |b| b.len() as u64));
            body = mix(body, m.body_len());
            body = mix(body, u64::from(m.body_truncated()));
            let ib = m.inspectable_body().map_or(u64::MAX, |b| b.len() as u64);
            body = mix(body, ib);
        }
        // An HTTP/2 stream's frame types, window updates and error codes
        // (`http2.*` keywords) change without its messages changing.
        if let Some(i) = self.h2() {
            for d in 0..2 {
                h = mix(h, u64::from(i.frames[d]));
                h = mix(h, i.windows[d].len() as u64);
                h = mix(h, i.error_codes[d].len() as u64);
                h = mix(h, u64::from(i.priority[d].is_some()));
            }
        }
        (h, body)
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.local() == ALL_BUFFERS.len() + 1 {
            return crate::http2::keywords::header_names(self, dir, f);
        }
        if b.local() == FILE_NAME {
            if let Some(fs) = Transaction::files(self) {
                fs.iter()
                    .filter(|x| x.direction() == dir)
                    .for_each(|x| f(x.name()));
            }
            return;
        }
        if b.local() == FILE_MAGIC {
            // A file whose description is not known yet (too few bytes) has none.
            if let Some(fs) = Transaction::files(self) {
                fs.iter()
                    .filter(|x| x.direction() == dir)
                    .filter_map(|x| x.magic())
                    .for_each(|m| f(m.as_bytes()));
            }
            return;
        }
        if let Some(side) = header_side(b.local()) {
            return header_bufs::each(self, side, dir, f);
        }
        let h = match ALL_BUFFERS.get(b.local()) {
            Some(h) => *h,
            // `file.data` to the server: the uploaded files' bytes when the request
            // carries files (a multipart/form-data part, as Suricata 7.0.10; the
            // difftest `filekw` family), else the request body (also when the body
            // itself is the request's file, a POST or PUT: its file keeps no head).
            None if dir == Direction::ToServer
                && matches!(
                    self.request.file,
                    Some(super::files::FileSlot::Multipart(_))
                )
                && Transaction::files(self)
                    .is_some_and(|fs| fs.iter().any(|x| x.direction() == dir)) =>
            {
                if let Some(fs) = Transaction::files(self) {
                    fs.each_data(dir, f);
                }
                return;
            }
            // `file.data`: the body of the direction.
            None => match dir {
                Direction::ToServer => HttpBuffer::RequestBody,
                Direction::ToClient => HttpBuffer::ResponseBody,
            },
        };
        let body = matches!(h, HttpBuffer::RequestBody | HttpBuffer::ResponseBody);
        if !body && !crate::http2::tx::headers_inspectable(self, dir) {
            return;
        }
        if let Some(x) = self.buffer(h, dir) {
            f(x)
        }
    }

    fn prefilter_blind(&self, b: BufferId) -> bool {
        header_side(b.local()).is_some_and(|side| header_bufs::prefilter_blind(self, side))
    }

    /// The `http2.*` keywords (HTTP/2 transactions only).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        crate::http2::keywords::check(self, opt, dir)
    }

    fn log(&self, extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(
            Some(HttpTx::id(self)),
            super::log::http_object(self, extended),
        )
    }

    fn alert_object(&self) -> Value {
        super::log::http_object(self, true)
    }

    fn files(&self) -> Option<&crate::Files> {
        (!self.files.is_empty()).then_some(&self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_follows_all_buffers() {
        assert_eq!(BUFFERS.len(), ALL_BUFFERS.len() + 6);
        assert_eq!(BUFFERS[REQUEST_HEADER].name, "http.request_header");
        assert_eq!(BUFFERS[FILE_NAME].name, "file.name");
        assert_eq!(BufferId::by_name("file.name").unwrap().local(), FILE_NAME);
        assert_eq!(BUFFERS[FILE_MAGIC].name, "file.magic");
        assert_eq!(BufferId::by_name("file.magic").unwrap().local(), FILE_MAGIC);
        assert_eq!(BUFFERS[REQUEST_HEADER + 1].name, "http.response_header");
        assert_eq!(header_side(REQUEST_HEADER + 1), Some(Side::Response));
        assert_eq!(header_side(REQUEST_HEADER - 1), None);
        for (d, h) in BUFFERS.iter().zip(ALL_BUFFERS) {
            assert_eq!(d.name, h.name());
            assert_eq!(d.dir, h.direction());
        }
        let b = BufferId::by_name("http.host").unwrap();
        assert_eq!(ALL_BUFFERS[b.local()], HttpBuffer::Host);
    }

    #[test]
    fn file_magic_is_each_downloaded_files_libmagic_description() {
        if !crate::files::magic::available() {
            eprintln!("skipped: libmagic or its database is not installed");
            return;
        }
        let mut ctx = AppCtx::default();
        // What the engine sets when a rule uses `file.magic` (`Detector::file_needs`).
        ctx.config.files.magic = true;
        let mut h = HttpState::default();
        let pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n";
        h.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /a.pdf HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", pdf.len());
        h.parse(&mut ctx, Direction::ToClient, head.as_bytes());
        h.parse(&mut ctx, Direction::ToClient, pdf);
        let id = BufferId::by_name("file.magic").unwrap();
        let mut seen = Vec::new();
        h.each_tx(&mut |tx| {
            for d in [Direction::ToServer, Direction::ToClient] {
                tx.buffers(id, d, &mut |b| seen.push((d, b.to_vec())));
            }
        });
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].0, Direction::ToClient);
        assert!(seen[0].1.starts_with(b"PDF document"), "{seen:?}");
    }

    fn events_of(p: &dyn Protocol) -> Vec<&'static str> {
        let mut v = Vec::new();
        p.events(&mut |e| v.push(e));
        v
    }

    #[test]
    fn a_line_over_the_field_limit_raises_its_direction_event() {
        let mut ctx = AppCtx::default();
        ctx.config.field_limit = 64;
        let mut h = HttpState::default();
        h.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        assert!(events_of(&h).is_empty());
        h.parse(&mut ctx, Direction::ToClient, b"HTTP/1.1 200 OK\r\nX: ");
        h.parse(&mut ctx, Direction::ToClient, &[b'a'; 100]);
        assert_eq!(events_of(&h), ["http.response_field_too_long"]);
        let mut h = HttpState::default();
        h.parse(&mut ctx, Direction::ToServer, &[b'G'; 100]);
        assert_eq!(events_of(&h), ["http.request_field_too_long"]);
    }
}

//! Stream-level tests of the HTTP parser: handcrafted messages, libhtp quirks, limits,
//! and "any split gives the same transactions" (exhaustively for small messages, by
//! proptest for random ones).

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use proptest::prelude::*;

use super::{HttpBuffer, HttpState, Progress, ALL_BUFFERS};
use crate::{AppCtx, Counter, Direction};

use Direction::{ToClient, ToServer};

/// Everything the detector could see, as text, for comparing runs.
pub(crate) fn summary(s: &HttpState) -> String {
    let mut out = String::new();
    for tx in s.txs() {
        out += &format!(
            "tx {} req {:?} res {:?} status {:?}\n",
            tx.id(),
            tx.progress(ToServer),
            tx.progress(ToClient),
            tx.status()
        );
        for b in ALL_BUFFERS {
            for dir in [ToServer, ToClient] {
                if let Some(v) = tx.buffer(b, dir) {
                    out += &format!(
                        "  {} {:?} {:?}\n",
                        b.name(),
                        dir,
                        String::from_utf8_lossy(v)
                    );
                }
            }
        }
    }
    out
}

/// Feeds `(direction, bytes)` chunks, each cut into pieces of `split` bytes, then
/// closes.
fn run(chunks: &[(Direction, &[u8])], split: usize) -> (HttpState, AppCtx) {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    for (dir, data) in chunks {
        for piece in data.chunks(split.max(1)) {
            s.parse(&mut ctx, *dir, piece);
        }
    }
    s.close(&mut ctx);
    (s, ctx)
}

/// Checks that every split size gives the same result as feeding whole chunks.
fn same_for_all_splits(chunks: &[(Direction, &[u8])]) -> HttpState {
    let (whole, _) = run(chunks, usize::MAX);
    let want = summary(&whole);
    let max = chunks.iter().map(|(_, d)| d.len()).max().unwrap_or(1);
    for split in 1..=max.min(64) {
        assert_eq!(summary(&run(chunks, split).0), want, "split {split}");
    }
    whole
}

fn buf(s: &HttpState, id: u64, b: HttpBuffer, dir: Direction) -> Option<Vec<u8>> {
    s.tx(id).and_then(|t| t.buffer(b, dir)).map(<[u8]>::to_vec)
}

fn gzip(d: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(d).unwrap();
    e.finish().unwrap()
}

const REQ: &[u8] = b"GET /a/../b/%41?x=%41 HTTP/1.1\r\nHost: WWW.Example.com:8080\r\nUser-Agent: curl/8\r\nCookie: k=v\r\nAccept: */*\r\nX-A: 1\r\nX-A: 2\r\n\r\n";
const RES: &[u8] = b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nSet-Cookie: s=1\r\nContent-Length: 5\r\n\r\nhello";

#[test]
fn request_and_response_buffers() {
    let s = same_for_all_splits(&[(ToServer, REQ), (ToClient, RES)]);
    let b = |x, d| buf(&s, 0, x, d);
    assert_eq!(b(HttpBuffer::Method, ToServer).unwrap(), b"GET");
    assert_eq!(b(HttpBuffer::Uri, ToServer).unwrap(), b"/b/A?x=%41");
    assert_eq!(
        b(HttpBuffer::UriRaw, ToServer).unwrap(),
        b"/a/../b/%41?x=%41"
    );
    assert_eq!(
        b(HttpBuffer::RequestLine, ToServer).unwrap(),
        b"GET /a/../b/%41?x=%41 HTTP/1.1"
    );
    assert_eq!(b(HttpBuffer::Protocol, ToServer).unwrap(), b"HTTP/1.1");
    assert_eq!(b(HttpBuffer::Host, ToServer).unwrap(), b"www.example.com");
    assert_eq!(
        b(HttpBuffer::HostRaw, ToServer).unwrap(),
        b"WWW.Example.com:8080"
    );
    assert_eq!(b(HttpBuffer::UserAgent, ToServer).unwrap(), b"curl/8");
    assert_eq!(b(HttpBuffer::Cookie, ToServer).unwrap(), b"k=v");
    assert_eq!(b(HttpBuffer::Accept, ToServer).unwrap(), b"*/*");
    assert_eq!(
        b(HttpBuffer::Header, ToServer).unwrap(),
        &b"Host: WWW.Example.com:8080\r\nUser-Agent: curl/8\r\nAccept: */*\r\nX-A: 1, 2\r\n"[..]
    );
    assert_eq!(
        b(HttpBuffer::HeaderNames, ToServer).unwrap(),
        &b"\r\nHost\r\nUser-Agent\r\nCookie\r\nAccept\r\nX-A\r\n\r\n"[..]
    );
    assert_eq!(b(HttpBuffer::HeaderRaw, ToServer).unwrap(), &REQ[32..]);
    assert_eq!(b(HttpBuffer::StatCode, ToClient).unwrap(), b"200");
    assert_eq!(b(HttpBuffer::StatMsg, ToClient).unwrap(), b"OK");
    assert_eq!(
        b(HttpBuffer::ResponseLine, ToClient).unwrap(),
        b"HTTP/1.1 200 OK"
    );
    assert_eq!(b(HttpBuffer::Protocol, ToClient).unwrap(), b"HTTP/1.1");
    assert_eq!(b(HttpBuffer::Server, ToClient).unwrap(), b"nginx");
    assert_eq!(b(HttpBuffer::ContentType, ToClient).unwrap(), b"text/html");
    assert_eq!(b(HttpBuffer::ContentLen, ToClient).unwrap(), b"5");
    assert_eq!(b(HttpBuffer::Cookie, ToClient).unwrap(), b"s=1");
    assert_eq!(b(HttpBuffer::ResponseBody, ToClient).unwrap(), b"hello");
    assert!(!b(HttpBuffer::Header, ToClient)
        .unwrap()
        .windows(10)
        .any(|w| w == b"Set-Cookie"));
    assert_eq!(b(HttpBuffer::RequestBody, ToServer), None);
    // http.start as Suricata 7.0.10 matches it on these very bytes (checked with
    // `startswith; endswith;` rules): every header, merged, cookies included.
    assert_eq!(
        b(HttpBuffer::Start, ToServer).unwrap(),
        &b"GET /a/../b/%41?x=%41 HTTP/1.1\r\nHost: WWW.Example.com:8080\r\nUser-Agent: curl/8\r\nCookie: k=v\r\nAccept: */*\r\nX-A: 1, 2\r\n\r\n"[..]
    );
    assert_eq!(
        b(HttpBuffer::Start, ToClient).unwrap(),
        &b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nSet-Cookie: s=1\r\nContent-Length: 5\r\n\r\n"[..]
    );
    let tx = s.tx(0).unwrap();
    assert!(tx.is_complete());
    assert_eq!(tx.status(), Some(200));
}

#[test]
fn a_header_line_is_processed_once_the_next_line_starts() {
    // sv-ether frame 32312 (ET sid 2009358): an Nmap request cut inside its headers;
    // libhtp processes `User-Agent` as soon as a byte of the next, unfolded line is
    // there, so the user agent is inspectable before the headers are complete. A line
    // that ends the data waits (the next one may fold into it).
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(
        &mut ctx,
        ToServer,
        b"GET /a HTTP/1.1\r\nHost: h\r\nUser-Agent: Nmap\r\nConn",
    );
    assert_eq!(s.tx(0).unwrap().progress(ToServer), Progress::Line);
    assert_eq!(
        buf(&s, 0, HttpBuffer::UserAgent, ToServer).unwrap(),
        b"Nmap"
    );
    let mut s = HttpState::new();
    s.parse(
        &mut ctx,
        ToServer,
        b"GET /a HTTP/1.1\r\nUser-Agent: Nmap\r\n",
    );
    assert_eq!(buf(&s, 0, HttpBuffer::UserAgent, ToServer), None);
    s.parse(&mut ctx, ToServer, b" folded\r\n\r\n");
    assert_eq!(
        buf(&s, 0, HttpBuffer::UserAgent, ToServer).unwrap(),
        b"Nmap folded"
    );
}

#[test]
fn progress_is_reported_as_data_arrives() {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(
        &mut ctx,
        ToServer,
        b"POST /u HTTP/1.1\r\nContent-Length: 4\r\n",
    );
    assert_eq!(s.tx(0).unwrap().progress(ToServer), Progress::Line);
    assert_eq!(buf(&s, 0, HttpBuffer::Header, ToServer), None);
    s.parse(&mut ctx, ToServer, b"\r\nab");
    assert_eq!(s.tx(0).unwrap().progress(ToServer), Progress::Body);
    // Below the minimal inspect size an unfinished body is not inspected yet.
    assert_eq!(buf(&s, 0, HttpBuffer::RequestBody, ToServer), None);
    s.parse(&mut ctx, ToServer, b"cd");
    assert_eq!(s.tx(0).unwrap().progress(ToServer), Progress::Complete);
    assert_eq!(
        buf(&s, 0, HttpBuffer::RequestBody, ToServer).unwrap(),
        b"abcd"
    );
    assert_eq!(s.tx(0).unwrap().progress(ToClient), Progress::None);
    assert_eq!(ctx.counters.get(Counter::TxHttp), 1);
}

#[test]
fn pipelining_and_keep_alive() {
    let reqs = b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: b\r\nContent-Length: 3\r\n\r\nxyzGET /3 HTTP/1.0\r\n\r\n";
    let body = gzip(b"second body");
    let mut res =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n0\r\n\r\n".to_vec();
    res.extend_from_slice(
        format!(
            "HTTP/1.1 404 Not Found\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    res.extend_from_slice(&body);
    res.extend_from_slice(b"HTTP/1.0 200 OK\r\n\r\nuntil close");
    let s = same_for_all_splits(&[(ToServer, reqs), (ToClient, &res)]);
    assert_eq!(s.tx_count(), 3);
    assert_eq!(buf(&s, 0, HttpBuffer::Uri, ToServer).unwrap(), b"/1");
    assert_eq!(buf(&s, 1, HttpBuffer::Host, ToServer).unwrap(), b"b");
    assert_eq!(
        buf(&s, 1, HttpBuffer::RequestBody, ToServer).unwrap(),
        b"xyz"
    );
    assert_eq!(buf(&s, 2, HttpBuffer::Method, ToServer).unwrap(), b"GET");
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"one"
    );
    assert_eq!(buf(&s, 1, HttpBuffer::StatCode, ToClient).unwrap(), b"404");
    assert_eq!(
        buf(&s, 1, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"second body"
    );
    assert_eq!(
        buf(&s, 2, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"until close"
    );
    assert!(s.txs().all(|t| t.is_complete()));
}

#[test]
fn chunked_gzip_response_any_split() {
    let body = gzip(&b"X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR".repeat(20));
    let mut res =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
    for c in body.chunks(7) {
        res.extend_from_slice(format!("{:x};ext=1\r\n", c.len()).as_bytes());
        res.extend_from_slice(c);
        res.extend_from_slice(b"\r\n");
    }
    res.extend_from_slice(b"0\r\nTrailer: x\r\n\r\n");
    let s = same_for_all_splits(&[(ToServer, b"GET / HTTP/1.1\r\n\r\n"), (ToClient, &res)]);
    let got = buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap();
    assert_eq!(got, b"X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR".repeat(20));
    assert_eq!(
        s.tx(0).unwrap().response().body_wire_len(),
        body.len() as u64
    );
}

#[test]
fn folding_and_odd_line_endings() {
    let req = b"\r\n\nGET /f HTTP/1.1\nHost: h\nX-Long: a\r\n  b\r\n\tc\n\n";
    // Response headers also end at a lone CR and at LF-CR; a status line only at LF.
    let res = b"HTTP/1.1 200 OK\r\nServer: s\rX: \r\r\nContent-Length: 2\n\r\r\n\r\nok";
    let s = same_for_all_splits(&[(ToServer, req), (ToClient, res)]);
    assert_eq!(
        buf(&s, 0, HttpBuffer::Header, ToServer).unwrap(),
        b"Host: h\r\nX-Long: a  b\tc\r\n"
    );
    assert_eq!(buf(&s, 0, HttpBuffer::Server, ToClient).unwrap(), b"s");
    assert_eq!(buf(&s, 0, HttpBuffer::ContentLen, ToClient).unwrap(), b"2");
    assert_eq!(
        buf(&s, 0, HttpBuffer::Header, ToClient).unwrap(),
        b"Server: s\r\nX: \r\nContent-Length: 2\r\n"
    );
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"ok"
    );
}

#[test]
fn http09_and_headerless_response() {
    let s = same_for_all_splits(&[(ToServer, b"GET /old\r\n"), (ToClient, b"<html>hi</html>")]);
    let tx = s.tx(0).unwrap();
    assert_eq!(tx.buffer(HttpBuffer::Protocol, ToServer), None);
    assert_eq!(tx.buffer(HttpBuffer::Uri, ToServer).unwrap(), b"/old");
    assert_eq!(tx.progress(ToServer), Progress::Complete);
    assert_eq!(
        tx.buffer(HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"<html>hi</html>"
    );
    assert_eq!(tx.buffer(HttpBuffer::StatCode, ToClient), None);
}

#[test]
fn bodiless_responses_and_interim() {
    let reqs = b"HEAD / HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\n\r\nPOST /p HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nZ";
    let res = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 304 Not Modified\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
    let s = same_for_all_splits(&[(ToServer, reqs), (ToClient, res)]);
    assert_eq!(s.tx_count(), 3);
    assert_eq!(s.tx(0).unwrap().status(), Some(200));
    assert_eq!(s.tx(1).unwrap().status(), Some(304));
    assert_eq!(s.tx(2).unwrap().status(), Some(201));
    assert_eq!(
        buf(&s, 2, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"ok"
    );
    assert!(s.txs().all(|t| t.is_complete()));
}

#[test]
fn absolute_uri_and_response_without_request() {
    let s = same_for_all_splits(&[
        (ToServer, b"GET http://Proxy.Example.ORG./p?q HTTP/1.1\r\nHost: other\r\n\r\n"),
        (ToClient, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"),
    ]);
    assert_eq!(
        buf(&s, 0, HttpBuffer::Host, ToServer).unwrap(),
        b"proxy.example.org"
    );
    assert_eq!(buf(&s, 0, HttpBuffer::Uri, ToServer).unwrap(), b"/p?q");
    assert_eq!(s.tx_count(), 2);
    assert_eq!(s.tx(1).unwrap().status(), Some(500));
    assert_eq!(buf(&s, 1, HttpBuffer::Method, ToServer), None);
}

#[test]
fn connect_tunnel_and_upgrade() {
    let (s, _) = run(
        &[
            (
                ToServer,
                b"CONNECT h:443 HTTP/1.1\r\n\r\n\x16\x03\x01garbage",
            ),
            (
                ToClient,
                b"HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x03more",
            ),
        ],
        usize::MAX,
    );
    assert_eq!(s.tx_count(), 1);
    // A refused CONNECT lets the held request through.
    let (s, _) = run(
        &[
            (
                ToServer,
                b"CONNECT h:443 HTTP/1.1\r\n\r\nGET /after HTTP/1.1\r\n\r\n",
            ),
            (ToClient, b"HTTP/1.1 403 No\r\nContent-Length: 0\r\n\r\n"),
        ],
        usize::MAX,
    );
    assert_eq!(s.tx_count(), 2);
    assert_eq!(buf(&s, 1, HttpBuffer::Uri, ToServer).unwrap(), b"/after");
    let (s, _) = run(
        &[
            (
                ToServer,
                b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n\x81\x05hello",
            ),
            (ToClient, b"HTTP/1.1 101 Switching\r\n\r\n\x81\x05hello"),
        ],
        usize::MAX,
    );
    assert_eq!(s.tx_count(), 1);
}

#[test]
fn limits_are_counted() {
    let mut ctx = AppCtx::default();
    ctx.config.request_body_limit = 10;
    ctx.config.field_limit = 100;
    let mut s = HttpState::new();
    s.parse(
        &mut ctx,
        ToServer,
        b"POST / HTTP/1.1\r\nContent-Length: 20\r\n\r\n",
    );
    s.parse(&mut ctx, ToServer, &[b'a'; 20]);
    let tx = s.tx(0).unwrap();
    assert_eq!(tx.request().body(), &[b'a'; 10]);
    assert_eq!(tx.request().body_len(), 20);
    assert!(tx.request().body_truncated());
    assert_eq!(ctx.counters.get(Counter::HttpRequestBodyLimit), 1);
    assert!(!s.errored());
    s.parse(&mut ctx, ToServer, &[b'x'; 200]);
    assert_eq!(ctx.counters.get(Counter::HttpFieldTooLong), 1);
    assert!(
        s.errored(),
        "libhtp's buffer over the limit is a parser error"
    );
    assert_eq!(ctx.counters.get(Counter::ErrorHttp), 1);
    s.parse(&mut ctx, ToServer, b"\r\nGET / HTTP/1.1\r\n\r\n");
    assert_eq!(s.tx_count(), 1, "direction stopped after an over-long line");
}

#[test]
fn gap_ends_parsing() {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    s.parse(
        &mut ctx,
        ToClient,
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
    );
    s.gap(&mut ctx, ToClient, 100);
    s.parse(&mut ctx, ToServer, b"GET /2 HTTP/1.1\r\n\r\n");
    assert_eq!(s.tx_count(), 1);
    let tx = s.tx(0).unwrap();
    assert_eq!(tx.progress(ToClient), Progress::Complete);
    assert!(tx.response().truncated());
    assert_eq!(tx.response().body(), b"abc");
    assert_eq!(ctx.counters.get(Counter::Gap), 1);
}

#[test]
fn max_tx_bounds_memory() {
    let mut ctx = AppCtx::default();
    ctx.config.max_tx = 4;
    let mut s = HttpState::new();
    for _ in 0..10 {
        s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    }
    assert_eq!(s.txs().count(), 4);
    assert_eq!(s.tx_count(), 10);
    assert_eq!(ctx.counters.get(Counter::TxLimit), 6);
    s.free_txs_before(8);
    assert_eq!(s.txs().count(), 2);
    assert!(s.tx(7).is_none() && s.tx(8).is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(a in proptest::collection::vec(any::<u8>(), 0..600),
                                b in proptest::collection::vec(any::<u8>(), 0..600),
                                split in 1usize..50) {
        let (s, _) = run(&[(ToServer, &a), (ToClient, &b)], split);
        let _ = summary(&s);
    }

    #[test]
    fn any_split_same_transactions(pick in proptest::collection::vec(0usize..6, 1..6),
                                   split in 1usize..40) {
        const REQS: [&[u8]; 6] = [
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n",
            b"POST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
            b"PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
            b"GET /d HTTP/1.0\nX: a\n b\n\n",
            b"\r\nOPTIONS * HTTP/1.1\r\nA:\r\n\r\n",
            b"GET /e?%41 HTTP/1.1\r\nCookie: c\r\nCookie: d\r\n\r\n",
        ];
        const RESS: [&[u8]; 6] = [
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            b"HTTP/1.1 404 NF\rContent-Length: 0\r\r",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No\r\n\r\n",
            b"HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 1\r\n\r\n.",
            b"HTTP/1.1 200 OK\r\nSet-Cookie: a\r\nContent-Length: 0\r\n\r\n",
        ];
        let req: Vec<u8> = pick.iter().flat_map(|&i| REQS[i].iter().copied()).collect();
        let res: Vec<u8> = pick.iter().flat_map(|&i| RESS[i].iter().copied()).collect();
        let whole = summary(&run(&[(ToServer, &req), (ToClient, &res)], usize::MAX).0);
        let split_run = summary(&run(&[(ToServer, &req), (ToClient, &res)], split).0);
        prop_assert_eq!(whole, split_run);
    }
}

/// libhtp behaviours the http-evader corpus pins down (see tests/http_evader.rs).
#[test]
fn libhtp_evasion_rules() {
    let get = (ToServer, &b"GET / HTTP/1.1\r\n\r\n"[..]);
    let body_of = |res: &[u8]| {
        let s = same_for_all_splits(&[get, (ToClient, res)]);
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap_or_default()
    };
    // Announced chunked, sent raw: body until close.
    assert_eq!(
        body_of(b"HTTP/1.1 200 ok\r\nTransfer-Encoding: chunked\r\n\r\nX5O!raw"),
        b"X5O!raw"
    );
    // A continuation line that looks like a header is a header.
    assert_eq!(
        body_of(b"HTTP/1.1 200 ok\r\nConnection: close\r\n Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
        b"ab"
    );
    // NUL bytes in a header name are ignored by lookups.
    assert_eq!(
        body_of(b"HTTP/1.1 200 ok\r\nTransfer-Encoding\0:chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
        b"ab"
    );
    // 101 with a length is not a protocol switch; 204 with chunking has a body.
    assert_eq!(
        body_of(b"HTTP/1.1 101 ok\r\nContent-Length: 2\r\n\r\nab"),
        b"ab"
    );
    assert_eq!(
        body_of(b"HTTP/1.1 204 ok\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
        b"ab"
    );
    // Junk before the status line is skipped when an H line follows.
    assert_eq!(
        body_of(b" SIP/2.0 200 ok\r\nHTTP/1.1 200 ok\r\nContent-Length: 2\r\n\r\nab"),
        b"ab"
    );
    // Whitespace-LF ends headers unless another LF follows.
    assert_eq!(
        body_of(b"HTTP/1.1 200 ok\r\nContent-Length: 2\n\t\nab"),
        b"ab"
    );
    assert_eq!(
        body_of(b"HTTP/1.1 200 ok\r\nContent-Length: 2\n\t\n\nab"),
        b"ab"
    );
    // A status line may end at a lone CR.
    assert_eq!(
        body_of(b"HTTP/1.1 200\rTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
        b"ab"
    );
}

#[test]
fn unfinished_body_is_inspected_from_the_minimal_inspect_size() {
    let mut ctx = AppCtx::default();
    ctx.config.response_body_minimal_inspect_size = 4;
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    s.parse(
        &mut ctx,
        ToClient,
        b"HTTP/1.1 200 ok\r\nConnection: close\r\n\r\nabc",
    );
    assert_eq!(buf(&s, 0, HttpBuffer::ResponseBody, ToClient), None);
    s.parse(&mut ctx, ToClient, b"d");
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"abcd"
    );
}

#[test]
fn inline_body_is_inspected_as_it_comes_unless_decompressed() {
    let mut ctx = AppCtx::default();
    ctx.config.http_body_inline = true;
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    s.parse(
        &mut ctx,
        ToClient,
        b"HTTP/1.1 200 ok\r\nContent-Length: 10\r\n\r\nabc",
    );
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"abc"
    );
    // A gzip body waits for its end (libhtp hands decompressed bytes on in blocks).
    let z = gzip(b"hello world");
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    let head = format!(
        "HTTP/1.1 200 ok\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        z.len()
    );
    s.parse(&mut ctx, ToClient, head.as_bytes());
    s.parse(&mut ctx, ToClient, &z[..z.len() - 4]);
    assert_eq!(buf(&s, 0, HttpBuffer::ResponseBody, ToClient), None);
    s.parse(&mut ctx, ToClient, &z[z.len() - 4..]);
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"hello world"
    );
}

#[test]
fn chunked_body_is_inspected_at_its_last_chunk() {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    s.parse(
        &mut ctx,
        ToClient,
        b"HTTP/1.1 200 ok\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    );
    assert_eq!(buf(&s, 0, HttpBuffer::ResponseBody, ToClient), None);
    // Trailers still to come: the body itself is done.
    s.parse(&mut ctx, ToClient, b"0\r\nfoobar\r\n");
    assert_eq!(s.tx(0).unwrap().progress(ToClient), Progress::Body);
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"abc"
    );
}

#[test]
fn content_length_body_on_204_is_read() {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\n\r\n");
    s.parse(
        &mut ctx,
        ToClient,
        b"HTTP/1.1 204 ok\r\nContent-Length: 3\r\n\r\nabc",
    );
    assert_eq!(s.tx(0).unwrap().progress(ToClient), Progress::Complete);
    assert_eq!(
        buf(&s, 0, HttpBuffer::ResponseBody, ToClient).unwrap(),
        b"abc"
    );
}

#[test]
fn junk_after_a_complete_response_is_its_body_not_a_new_transaction() {
    // The http-evader `close,clen,content,junk` responses of sv-ether.pcap: libhtp's
    // RES_FINALIZE keeps lines that do not start with `HTTP` on the response that ended.
    let s = same_for_all_splits(&[
        (ToServer, b"GET /x HTTP/1.1\r\nHost: a\r\n\r\n"),
        (
            ToClient,
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabcjunk junk\r\nmore\r\n",
        ),
    ]);
    assert_eq!(s.tx_count(), 1);
    assert_eq!(s.tx(0).unwrap().status(), Some(200));
    // A real status line after the junk still starts the next response.
    let s = same_for_all_splits(&[
        (ToServer, b"GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\n"),
        (
            ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxjunk\r\n  http/1.1 404 No\r\nContent-Length: 0\r\n\r\n",
        ),
    ]);
    assert_eq!(s.tx_count(), 2);
    assert_eq!(s.tx(1).unwrap().status(), Some(404));
}

#[test]
fn lines_after_a_request_start_one_only_with_a_known_method() {
    // libhtp's REQ_FINALIZE: after a request, lines without a method are its body.
    let s = same_for_all_splits(&[(
        ToServer,
        b"GET /a HTTP/1.1\r\n\r\nczxt2s\r\n*/*\r\nConnection: Keep-Alive\r\nGET /next HTTP/1.1\r\n\r\n",
    )]);
    assert_eq!(s.tx_count(), 2);
    assert_eq!(
        buf(&s, 1, HttpBuffer::Uri, ToServer).unwrap(),
        b"/next".to_vec()
    );
    // `get` is not `GET`: the method list is case-sensitive.
    let s = same_for_all_splits(&[(ToServer, b"GET /a HTTP/1.0\r\n\r\nget /b HTTP/1.0\r\n\r\n")]);
    assert_eq!(s.tx_count(), 1);
}

#[test]
fn request_line_without_protocol_followed_by_headers_has_headers() {
    // 192.168.140.10 -> 5.8.88.25 in sv-ether.pcap: libhtp probes the bytes after a
    // protocol-less request line and parses headers when they look like one.
    let (s, _) = run(
        &[(
            ToServer,
            b"GET /gen.php?x=1\r\nHost: 5.8.88.25\r\nUser-Agent:Mozilla/5.0 (Windows NT 6.1)\r\n\r\n\r\n",
        )],
        usize::MAX,
    );
    assert_eq!(s.tx_count(), 1);
    assert_eq!(
        buf(&s, 0, HttpBuffer::Host, ToServer).unwrap(),
        b"5.8.88.25".to_vec()
    );
    assert_eq!(
        buf(&s, 0, HttpBuffer::UserAgent, ToServer).unwrap(),
        b"Mozilla/5.0 (Windows NT 6.1)".to_vec()
    );
    // Without a header after it, it stays HTTP/0.9: the next line is not a header.
    let (s, _) = run(&[(ToServer, b"GET /a\r\nfoo bar\r\n")], usize::MAX);
    assert_eq!(s.tx_count(), 1);
    assert_eq!(buf(&s, 0, HttpBuffer::Host, ToServer), None);
}

#[test]
fn completed_messages_are_reported_once_per_direction() {
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\nHost: a\r\n");
    assert!(!s.take_completed(ToServer), "headers not ended yet");
    s.parse(&mut ctx, ToServer, b"\r\n");
    assert!(s.take_completed(ToServer));
    assert!(!s.take_completed(ToServer), "reported once");
    assert!(!s.take_completed(ToClient));
    s.parse(&mut ctx, ToClient, RES);
    assert!(s.take_completed(ToClient));
}

#[test]
fn raw_headers_in_one_chunk_take_one_buffer_of_their_size() {
    // A thread of its own: no transaction pooled by an earlier test on this one.
    std::thread::spawn(|| {
        let head = b"Host: a.test\r\nUser-Agent: test-agent/1.0\r\nAccept: */*\r\n\r\n";
        let req = [&b"GET /a HTTP/1.1\r\n"[..], head].concat();
        let (whole, _) = run(&[(ToServer, &req)], usize::MAX);
        let (bytewise, _) = run(&[(ToServer, &req)], 1);
        let raw = |s: &HttpState| s.txs().next().unwrap().request.headers_raw.clone();
        assert_eq!(raw(&whole), raw(&bytewise));
        let tx = whole.txs().next().unwrap();
        // Reserved at once for the block up to its blank line, and the list for its
        // three header lines.
        assert_eq!(tx.request.headers_raw.capacity(), head.len());
        assert!(!tx.request.headers_raw.is_empty());
        assert_eq!(tx.request.headers().len(), 3);
        assert_eq!(tx.request.headers.capacity(), 3);
    })
    .join()
    .unwrap();
}

#[test]
fn a_response_begins_with_part_of_its_status_line() {
    use crate::Transaction;
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    s.parse(&mut ctx, ToServer, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    assert!(!s.tx(0).unwrap().started(ToClient));
    // Line endings alone before a response do not begin it (not compared with
    // Suricata: libhtp skips them before a status line).
    s.parse(&mut ctx, ToClient, b"\r\n");
    assert!(!s.tx(0).unwrap().started(ToClient));
    s.parse(&mut ctx, ToClient, b"HTTP/1.1 2");
    let tx = s.tx(0).unwrap();
    assert!(tx.started(ToClient) && tx.started(ToServer));
    assert_eq!(tx.progress(ToClient), Progress::None);
    s.parse(&mut ctx, ToClient, b"00 OK\r\nContent-Length: 0\r\n\r\n");
    assert!(Transaction::complete(s.tx(0).unwrap(), ToClient));
}

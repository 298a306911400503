//! HTTP's application-layer events: libhtp's warnings as Suricata names them
//! (`app-layer-event:http.<name>`, `anomaly.event` in upper case), and the checks
//! that find them in request and response lines and headers. The state machine
//! ([`super::HttpState`]) calls [`raise`] where libhtp logs the warning: once per
//! occurrence, or once per message where libhtp keeps a flag ([`raise_once`]).

use super::parser::ProtocolVersion;
use super::tx::Message;
use crate::util::trim;
use crate::{AppCtx, AppProto, Events};

/// HTTP's events, in table order (the indices below).
pub(crate) static EVENTS: &[&str] = &[
    "http.request_field_too_long",
    "http.response_field_too_long",
    "http.gzip_decompression_failed",
    "http.response_header_invalid",
    "http.abnormal_ce_header",
    "http.response_abnormal_transfer_encoding",
    "http.invalid_response_chunk_len",
    "http.request_chunk_extension",
    "http.response_field_missing_colon",
    "http.invalid_response_field_folding",
    "http.response_chunked_old_proto",
    "http.response_invalid_protocol",
    "http.response_invalid_status",
    "http.too_many_encoding_layers",
    "http.duplicate_content_length_field_in_response",
    "http.missing_host_header",
    "http.unable_to_match_response_to_request",
    "http.invalid_transfer_encoding_value_in_request",
    "http.lzma_memlimit_reached",
    "http.compression_bomb",
];

/// A response body failed to decompress (each failure and restart of libhtp's
/// decompressor).
pub(crate) const GZIP_DECOMPRESSION_FAILED: usize = 2;
/// A response header name that is empty, followed by whitespace before its colon, or
/// not a token (once per response).
pub(crate) const RESPONSE_HEADER_INVALID: usize = 3;
/// A `Content-Encoding` token naming gzip or deflate abnormally, or an unknown one.
pub(crate) const ABNORMAL_CE_HEADER: usize = 4;
/// A response `Transfer-Encoding` with `chunked` that is not exactly `chunked`.
pub(crate) const RESPONSE_ABNORMAL_TRANSFER_ENCODING: usize = 5;
/// A response chunk-size line that is not a chunk size (once per response).
pub(crate) const INVALID_RESPONSE_CHUNK_LEN: usize = 6;
/// A chunk-size line with an extension (`;name=value`), each one (libhtp reports
/// those of responses under this name too).
pub(crate) const REQUEST_CHUNK_EXTENSION: usize = 7;
/// A response header line without a colon (once per response).
pub(crate) const RESPONSE_FIELD_MISSING_COLON: usize = 8;
/// A folded response header line with no header before it (once per response).
pub(crate) const INVALID_RESPONSE_FIELD_FOLDING: usize = 9;
/// A chunked response on HTTP/1.0 or HTTP/0.9.
pub(crate) const RESPONSE_CHUNKED_OLD_PROTO: usize = 10;
/// A status line whose protocol does not parse.
pub(crate) const RESPONSE_INVALID_PROTOCOL: usize = 11;
/// A status line whose status is not a number from 100 to 999.
pub(crate) const RESPONSE_INVALID_STATUS: usize = 12;
/// More compressing `Content-Encoding` layers than the decompression layer limit.
pub(crate) const TOO_MANY_ENCODING_LAYERS: usize = 13;
/// A repeated response `Content-Length` with another or an unparsable value.
pub(crate) const DUPLICATE_CONTENT_LENGTH_FIELD_IN_RESPONSE: usize = 14;
/// An HTTP/1.1 request without a `Host` header.
pub(crate) const MISSING_HOST_HEADER: usize = 15;
/// A response with no request left to answer.
pub(crate) const UNABLE_TO_MATCH_RESPONSE_TO_REQUEST: usize = 16;
/// A request `Transfer-Encoding` without `chunked`, or `chunked` on a request older
/// than HTTP/1.1 (libhtp's invalid T-E flag; see [`invalid_request_te`]).
pub(crate) const INVALID_TRANSFER_ENCODING_VALUE_IN_REQUEST: usize = 17;
/// An lzma body's output reached `lzma-memlimit` with a larger dictionary.
pub(crate) const LZMA_MEMLIMIT_REACHED: usize = 18;
/// A body decompressed past `compression-bomb-limit` at over 2048 times its size, or
/// a `Content-Encoding` list with more lzma layers than `lzma-enabled` allows.
pub(crate) const COMPRESSION_BOMB: usize = 19;

/// Raises event `i` on transaction `tx`: in the flow's set (for rules) and as one
/// occurrence (for the EVE anomaly log).
pub(crate) fn raise(events: &mut Events, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
    events.raise(i);
    ctx.anomalies.parser(AppProto::Http, EVENTS[i], tx);
}

/// Raises event `i` unless message `m` already raised it (libhtp's per-transaction
/// flags).
pub(crate) fn raise_once(
    events: &mut Events,
    ctx: &mut AppCtx,
    m: &mut Message,
    i: usize,
    tx: Option<u64>,
) {
    if !m.raised.has(i) {
        m.raised.raise(i);
        raise(events, ctx, i, tx);
    }
}

/// Raises the events a body decoder found since it was last asked, in libhtp's
/// order: the lzma memory limit, the decompression failures, compression bombs.
pub(crate) fn raise_decoder_events(
    events: &mut Events,
    ctx: &mut AppCtx,
    dec: &mut super::decompress::Decoder,
    tx: Option<u64>,
) {
    let lz = dec.take_lzma_events();
    for _ in 0..lz.memlimit {
        raise(events, ctx, LZMA_MEMLIMIT_REACHED, tx);
    }
    for _ in 0..dec.take_failures() {
        raise(events, ctx, GZIP_DECOMPRESSION_FAILED, tx);
    }
    for _ in 0..lz.bomb {
        raise(events, ctx, COMPRESSION_BOMB, tx);
    }
    for _ in 0..lz.cut {
        ctx.counters
            .incr(crate::counters::Counter::HttpDecompressCut);
    }
}

/// What libhtp finds wrong with one response header line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeaderFault {
    /// No colon at all.
    pub(crate) missing_colon: bool,
    /// An empty name, whitespace between the name and the colon, or a name that is
    /// not a token.
    pub(crate) invalid: bool,
}

/// Checks a response header line (folded continuations appended) as libhtp's
/// generic response header parser does.
pub(crate) fn response_header_fault(line: &[u8]) -> HeaderFault {
    let Some(colon) = memchr::memchr(b':', line) else {
        return HeaderFault {
            missing_colon: true,
            invalid: false,
        };
    };
    let name = &line[..colon];
    let bare = trim(name);
    let lws_after = name
        .last()
        .is_some_and(|b| matches!(b, b' ' | b'\t' | 0x0b | 0x0c | b'\r'));
    HeaderFault {
        missing_colon: false,
        invalid: bare.is_empty() || lws_after || !bare.iter().all(|&b| is_token(b)),
    }
}

/// RFC 2616's token characters.
fn is_token(b: u8) -> bool {
    (33..127).contains(&b) && !b"()<>@,;:\\\"/[]?={}".contains(&b)
}

/// The `Content-Encoding` findings of a response: how many tokens are abnormal
/// (gzip or deflate spelt otherwise, unknown codings), and whether more compressing
/// layers than `limit` are stacked. A value that is exactly one known coding (any
/// case) is not looked into, as libhtp's fast path does not.
pub(crate) fn content_encoding_faults(value: &[u8], limit: usize) -> (u32, bool) {
    // Copied without its NUL bytes only when it has some (one allocation per response
    // with a Content-Encoding header before).
    let v: std::borrow::Cow<'_, [u8]> = if memchr::memchr(0, value).is_some() {
        value
            .iter()
            .copied()
            .filter(|&b| b != 0)
            .collect::<Vec<u8>>()
            .into()
    } else {
        value.into()
    };
    let v = trim(&v);
    const FAST: [&[u8]; 6] = [
        b"gzip",
        b"x-gzip",
        b"deflate",
        b"x-deflate",
        b"lzma",
        b"inflate",
    ];
    if FAST.iter().any(|f| v.eq_ignore_ascii_case(f)) {
        return (0, false);
    }
    let (mut abnormal, mut layers) = (0, 0);
    for tok in v.split(|&b| b == b',' || b == b' ').map(trim) {
        if tok.is_empty() {
            continue;
        }
        let has = |w: &[u8]| crate::util::contains_nocase(tok, w);
        let compress = if has(b"gzip") {
            abnormal += u32::from(tok != b"gzip" && tok != b"x-gzip");
            true
        } else if has(b"deflate") {
            abnormal += u32::from(tok != b"deflate" && tok != b"x-deflate");
            true
        } else if tok == b"lzma" {
            // libhtp takes `lzma` in a list only as written: `x-lzma` is unknown.
            true
        } else if tok.eq_ignore_ascii_case(b"inflate") || tok.eq_ignore_ascii_case(b"none") {
            false
        } else {
            abnormal += 1;
            false
        };
        if compress {
            layers += 1;
            if layers > limit {
                return (abnormal, true);
            }
        }
    }
    (abnormal, false)
}

/// Whether a status line's protocol is one libhtp knows, spelt exactly
/// (`HTTP/1.1`, `HTTP/1.0`, `HTTP/0.9`); anything else is `RESPONSE_INVALID_PROTOCOL`.
pub(crate) fn exact_protocol(p: &[u8]) -> bool {
    matches!(trim(p), b"HTTP/1.1" | b"HTTP/1.0" | b"HTTP/0.9")
}

/// Whether a response `Transfer-Encoding` naming `chunked` says more than that.
pub(crate) fn abnormal_chunked(te: &[u8]) -> bool {
    !trim(te).eq_ignore_ascii_case(b"chunked")
}

/// Whether a request's `Transfer-Encoding` (`te`, if any) is invalid as libhtp judges
/// it: it does not name `chunked` (any case, anywhere in the value), or it does on a
/// request whose protocol is older than HTTP/1.1 or did not parse (checked against
/// Suricata 7.0.10: `identity` and HTTP/1.0 `chunked` raise the event, `gzip, chunked`
/// and `Chunked` on HTTP/1.1 do not).
pub(crate) fn invalid_request_te(te: Option<&[u8]>, version: Option<ProtocolVersion>) -> bool {
    let Some(te) = te else { return false };
    if !crate::util::contains_nocase(te, b"chunked") {
        return true;
    }
    !matches!(version, Some(ProtocolVersion::V1_1 | ProtocolVersion::V2))
}

/// Whether a chunk-size line carries a chunk extension (`1a;name=value`).
pub(crate) fn chunk_extension(line: &[u8]) -> bool {
    let t = trim(line);
    let digits = t.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    digits > 0 && trim(&t[digits..]).first() == Some(&b';')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::HttpState;
    use crate::Direction;

    /// Feeds `req` then `res` through a fresh state; returns `(event, tx_id)` of each
    /// occurrence, in order.
    fn occurrences(req: &[u8], res: &[u8]) -> Vec<(&'static str, Option<u64>)> {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut h = HttpState::new();
        h.parse(&mut ctx, Direction::ToServer, req);
        h.parse(&mut ctx, Direction::ToClient, res);
        h.close(&mut ctx);
        ctx.anomalies.drain().map(|a| (a.event, a.tx_id)).collect()
    }

    #[test]
    fn response_warnings_are_raised_on_their_transaction() {
        let got = occurrences(
            b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n\
              HTTP/1.0 200 OK\r\n folded first\r\nNoColon\r\nX y: 1\r\nZ : 2\r\n\
              Content-Length: 3\r\nContent-Length: 4\r\nContent-Encoding: identity, br\r\n\
              Transfer-Encoding: chunked, x\r\n\r\nzz\r\n",
        );
        assert_eq!(
            got,
            [
                ("http.missing_host_header", Some(1)),
                ("http.invalid_response_field_folding", Some(1)),
                ("http.response_field_missing_colon", Some(1)),
                ("http.response_header_invalid", Some(1)),
                ("http.duplicate_content_length_field_in_response", Some(1)),
                ("http.abnormal_ce_header", Some(1)),
                ("http.abnormal_ce_header", Some(1)),
                ("http.response_abnormal_transfer_encoding", Some(1)),
                ("http.response_chunked_old_proto", Some(1)),
                ("http.invalid_response_chunk_len", Some(1)),
            ]
        );
    }

    #[test]
    fn status_lines_and_unanswered_responses() {
        let got = occurrences(
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            b"HTTP/1.1x 2000 OK\r\nContent-Length: 0\r\n\r\n\
              HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        );
        assert_eq!(
            got,
            [
                ("http.response_invalid_protocol", Some(0)),
                ("http.response_invalid_status", Some(0)),
                ("http.unable_to_match_response_to_request", Some(1)),
            ]
        );
    }

    #[test]
    fn a_body_that_is_not_gzip_fails_every_try() {
        let got = occurrences(
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello",
        );
        assert_eq!(got, [("http.gzip_decompression_failed", Some(0)); 4]);
        // A real gzip body raises nothing; an HTTP/1.1 chunked request with extensions
        // raises one event per extension.
        let got = occurrences(
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\
              1;a\r\nx\r\n1 ;b\r\ny\r\n0\r\n\r\n",
            b"HTTP/1.1 204 No Content\r\n\r\n",
        );
        assert_eq!(got, [("http.request_chunk_extension", Some(0)); 2]);
    }

    #[test]
    fn header_faults() {
        let f = response_header_fault;
        assert_eq!(f(b"Server: x"), HeaderFault::default());
        assert!(f(b"no colon here").missing_colon);
        assert!(f(b": empty name").invalid);
        assert!(f(b"Server : x").invalid);
        assert!(f(b"Transfer-Encoding\x0b:chunked").invalid);
        assert!(f(b"Bad(name): x").invalid);
        assert!(!f(b"X-Ok-Name: a:b").invalid);
    }

    #[test]
    fn content_encodings() {
        assert_eq!(content_encoding_faults(b"GZIP", 2), (0, false));
        assert_eq!(content_encoding_faults(b"gzip, deflate", 2), (0, false));
        assert_eq!(content_encoding_faults(b"gzip,gzip,gzip", 2), (0, true));
        assert_eq!(content_encoding_faults(b"Gzip, deflate", 2), (1, false));
        assert_eq!(content_encoding_faults(b"br", 2), (1, false));
        // Suricata 7.0.10 (tests/parity/cases/http-lzma-default): `x-lzma` is unknown.
        assert_eq!(content_encoding_faults(b"x-lzma", 2), (1, false));
        assert_eq!(content_encoding_faults(b"LZMA", 2), (0, false));
        assert_eq!(content_encoding_faults(b"lzma, gzip", 2), (0, false));
        assert_eq!(content_encoding_faults(b"identity, x-gzip2", 2), (2, false));
    }

    #[test]
    fn chunk_lines() {
        assert!(chunk_extension(b"1a;ext=1"));
        assert!(chunk_extension(b"10 ; x"));
        assert!(!chunk_extension(b"1a"));
        assert!(!chunk_extension(b";x"));
        assert!(exact_protocol(b"HTTP/1.1") && exact_protocol(b" HTTP/1.0"));
        assert!(!exact_protocol(b"http/1.1") && !exact_protocol(b"HTTP/1.2"));
        assert!(abnormal_chunked(b"chunked, gzip"));
        assert!(!abnormal_chunked(b" Chunked"));
    }

    #[test]
    fn request_transfer_encoding_as_libhtp_judges_it() {
        use ProtocolVersion::*;
        assert!(!invalid_request_te(None, Some(V1_0)));
        assert!(invalid_request_te(Some(b"identity"), Some(V1_1)));
        assert!(invalid_request_te(Some(b"chunked"), Some(V1_0)));
        assert!(invalid_request_te(Some(b"chunked"), Some(Invalid)));
        assert!(!invalid_request_te(Some(b"gzip, chunked"), Some(V1_1)));
        assert!(!invalid_request_te(Some(b"Chunked"), Some(V1_1)));
        let got = occurrences(
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: x\r\nContent-Length: 1\r\n\r\nz",
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        );
        assert_eq!(
            got,
            [("http.invalid_transfer_encoding_value_in_request", Some(0))]
        );
    }
}

//! Filling an [`HttpTx`] from an HTTP/2 stream's header fields so that the `http.*`
//! buffers read as Suricata's HTTP/2 keywords do:
//!
//! - `http.method`, `http.uri` (and `http.uri.raw`): `:method` and `:path` as sent;
//! - `http.host.raw`: `:authority` (or a `host` header); `http.host`: its host part,
//!   lowercased, port stripped;
//! - `http.request_line`: `METHOD PATH HTTP/2`; `http.protocol`: `HTTP/2`;
//! - `http.stat_code`: `:status`; `http.response_line`: `HTTP/2 STATUS`; no
//!   `http.stat_msg`;
//! - `http.header`: every field (pseudo-headers included) as `name: value\r\n`, the
//!   cookie of the direction left out; `http.header.raw` the same with the cookie;
//!   `http.header_names`: the regular (non-pseudo) names, `\r\n`-framed as for HTTP/1;
//! - single-header buffers (`http.user_agent`, `http.cookie`, ...): the first field of
//!   that name.

use crate::http::uri::{host_port, host_range, normalize_host};
use crate::http::{HttpTx, Message, ProtocolVersion};
use crate::Direction;

const PROTOCOL: &[u8] = b"HTTP/2";

/// The first field named `name` (pseudo-headers included).
fn field<'a>(m: &'a Message, name: &str) -> Option<&'a [u8]> {
    m.headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name.as_bytes()))
        .map(|h| h.value.as_slice())
}

/// Rebuilds `http.header`, `http.header.raw` and `http.header_names` of one side.
fn build_header_buffers(m: &mut Message, dir: Direction) {
    let skip: &[u8] = match dir {
        Direction::ToServer => b"cookie",
        Direction::ToClient => b"set-cookie",
    };
    // `http.header` then `http.header_names` in the message's one buffer (no
    // `http.start` for HTTP/2).
    let b = &mut m.hdr_bufs;
    b.clear();
    m.headers_raw.clear();
    for h in &m.headers {
        for part in [&h.name[..], b": ", &h.value, b"\r\n"] {
            m.headers_raw.extend_from_slice(part);
            if !h.name.eq_ignore_ascii_case(skip) {
                b.extend_from_slice(part);
            }
        }
    }
    m.hdr_at = [0, b.len()];
    b.extend_from_slice(b"\r\n");
    for h in m.headers.iter().filter(|h| !h.name.starts_with(b":")) {
        b.extend_from_slice(&h.name);
        b.extend_from_slice(b"\r\n");
    }
    b.extend_from_slice(b"\r\n");
}

/// Sets the request-side fields of `tx` from its request header fields.
pub(super) fn fill_request(tx: &mut HttpTx) {
    let m = &mut tx.request;
    let method = field(m, ":method").unwrap_or_default().to_vec();
    let path = field(m, ":path").unwrap_or_default().to_vec();
    let mut line = method.clone();
    line.push(b' ');
    line.extend_from_slice(&path);
    line.push(b' ');
    let proto_at = line.len();
    line.extend_from_slice(PROTOCOL);
    m.set_parts([
        0..method.len(),
        method.len() + 1..method.len() + 1 + path.len(),
        proto_at..line.len(),
    ]);
    m.line = line;
    m.version = Some(ProtocolVersion::V2);
    build_header_buffers(m, Direction::ToServer);
    tx.uri_norm = path;
    let auth = field(m, ":authority")
        .or_else(|| field(m, "host"))
        .map(<[u8]>::to_vec);
    if let Some(a) = auth {
        tx.host = Some(normalize_host(&a[host_range(&a)]));
        tx.port = host_port(&a);
        tx.host_raw = Some(a);
    }
}

/// Sets the response-side fields of `tx` from its response header fields.
pub(super) fn fill_response(tx: &mut HttpTx) {
    let m = &mut tx.response;
    // An interim (1xx) block and the final one: the last status counts.
    let status = m
        .headers
        .iter()
        .rev()
        .find(|h| h.name[..] == b":status"[..])
        .map(|h| h.value.clone())
        .unwrap_or_default();
    let mut line = PROTOCOL.to_vec();
    line.push(b' ');
    line.extend_from_slice(&status);
    let end = line.len();
    m.set_parts([0..PROTOCOL.len(), PROTOCOL.len() + 1..end, end..end]);
    m.line = line;
    m.version = Some(ProtocolVersion::V2);
    build_header_buffers(m, Direction::ToClient);
    tx.status = std::str::from_utf8(&status)
        .ok()
        .and_then(|s| s.parse().ok());
}

/// Whether the `http.*` buffers built from header fields (every one above but the
/// bodies) are inspected in `dir` yet. An HTTP/1 transaction: always (each buffer says
/// itself when it exists). An HTTP/2 stream, as Suricata 7.0.10, whose stream state
/// must have reached data in the rule's direction: to the server once the request sent
/// a DATA frame or ended (END_STREAM), or the response sent data; to the client once
/// the response sent a DATA frame (an empty one too) or ended. A HEADERS frame alone
/// does not make them inspectable (`http.request_header`, `http.response_header` and
/// the `http2.*` keywords are, from the HEADERS frame on).
pub(crate) fn headers_inspectable(tx: &HttpTx, dir: Direction) -> bool {
    if tx.h2().is_none() {
        return true;
    }
    let data = |m: &Message| m.progress >= crate::http::Progress::Body;
    match dir {
        Direction::ToServer => data(&tx.request) || data(&tx.response),
        Direction::ToClient => data(&tx.response),
    }
}

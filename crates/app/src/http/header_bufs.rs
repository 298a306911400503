//! The `http.request_header` and `http.response_header` multi-buffers: one instance per
//! header of the message, `name: value`, as Suricata 7.0.10 inspects them.
//!
//! What Suricata 7.0.10 does, found by running it on `cli/tests/data/keywords24.pcap`
//! (HTTP/2) and `http-files.pcap` (HTTP/1):
//! - HTTP/1 headers are inspected too, each after libhtp's folding and merging (a
//!   repeated name is one instance, its values joined with `", "`), names in the case
//!   sent (`Host: ...` matches, `host: ...` does not);
//! - HTTP/2 headers are inspected one field each (two `cookie` fields are two
//!   instances), pseudo-headers included (`:method: GET`), names as sent (lowercase);
//! - the request's headers are inspected to the server, the response's to the client;
//!   a header is there once the message's headers were parsed.
//!
//! HTTP/2 responses have one more twist, [`prefilter_blind`]: Suricata's
//! multi-pattern matcher never finds a pattern in them.

use super::{HttpTx, Message, Progress};
use crate::Direction;

/// Which message's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// `http.request_header`.
    Request,
    /// `http.response_header`.
    Response,
}

impl Side {
    fn dir(self) -> Direction {
        match self {
            Side::Request => Direction::ToServer,
            Side::Response => Direction::ToClient,
        }
    }
}

/// Calls `f` with each header of `side` as `name: value`, when `dir` is that side's
/// direction and its headers were parsed; nothing otherwise.
pub(crate) fn each(tx: &HttpTx, side: Side, dir: Direction, f: &mut dyn FnMut(&[u8])) {
    if dir != side.dir() {
        return;
    }
    let m: &Message = match side {
        Side::Request => tx.request(),
        Side::Response => tx.response(),
    };
    if m.progress() < Progress::Headers || m.headers().is_empty() {
        return;
    }
    // One buffer reused for every header of the message.
    let mut line = Vec::new();
    for h in m.headers() {
        line.clear();
        line.extend_from_slice(&h.name);
        line.extend_from_slice(b": ");
        line.extend_from_slice(&h.value);
        f(&line);
    }
}

/// Whether Suricata 7.0.10's multi-pattern matcher misses `side`'s headers of `tx`:
/// those of an HTTP/2 response. There a rule whose fast pattern is an
/// `http.response_header` content never matches, while the same content matches when
/// the fast pattern lies in another buffer and `pcre` or `bsize` alone match
/// (`cli/tests/keywords_request_header.rs` holds the evidence).
pub(crate) fn prefilter_blind(tx: &HttpTx, side: Side) -> bool {
    side == Side::Response && tx.h2().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::HttpState;
    use crate::AppCtx;

    fn lines(tx: &HttpTx, side: Side, dir: Direction) -> Vec<String> {
        let mut v = Vec::new();
        each(tx, side, dir, &mut |b| {
            v.push(String::from_utf8_lossy(b).into_owned())
        });
        v
    }

    #[test]
    fn http1_headers_merged_in_their_case_per_direction() {
        let mut ctx = AppCtx::default();
        let mut h = HttpState::default();
        h.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\nUser-Agent:  u \r\n\r\n",
        );
        let tx = h.txs().next().expect("a transaction");
        assert_eq!(
            lines(tx, Side::Request, Direction::ToServer),
            ["Host: a", "X-A: 1, 2", "User-Agent: u"]
        );
        assert!(lines(tx, Side::Request, Direction::ToClient).is_empty());
        // No response yet.
        assert!(lines(tx, Side::Response, Direction::ToClient).is_empty());
        assert!(!prefilter_blind(tx, Side::Response));
        h.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nServer: s\r\nContent-Length: 0\r\n\r\n",
        );
        let tx = h.txs().next().expect("a transaction");
        assert_eq!(
            lines(tx, Side::Response, Direction::ToClient),
            ["Server: s", "Content-Length: 0"]
        );
        assert!(lines(tx, Side::Response, Direction::ToServer).is_empty());
    }

    #[test]
    fn a_request_cut_in_its_headers_has_no_instance_yet() {
        let mut ctx = AppCtx::default();
        let mut h = HttpState::default();
        h.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET / HTTP/1.1\r\nHost: a\r\n",
        );
        let tx = h.txs().next().expect("a transaction from its request line");
        assert!(lines(tx, Side::Request, Direction::ToServer).is_empty());
    }
}

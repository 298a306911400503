//! The `http2.*` transaction keywords, evaluated on an HTTP/2 transaction (a stream's,
//! or a connection-level one for SETTINGS and GOAWAY) for the frames the packet's side
//! sent: `http2.frametype` (a frame of that type), `http2.errorcode` (a RST_STREAM's
//! or GOAWAY's code), `http2.priority` (the priority weight field), `http2.window` (a
//! WINDOW_UPDATE increment on the stream), `http2.size_update` (an HPACK dynamic
//! table size update) and `http2.settings` (a setting, with its value compared).
//! Connection-level PING and WINDOW_UPDATE frames open no transaction here (Suricata
//! opens one it never logs), so they match none of these.

use rules::{AppOpt, AppValue};

use crate::http::HttpTx;
use crate::Direction;

/// The `http2.header_name` buffer: each request header name of an HTTP/2 stream,
/// pseudo-headers included, one instance each (Suricata 7.0.10 inspects it in the
/// request only: a `flow:to_client` rule reads nothing); nothing for HTTP/1.
///
/// Suricata stops at an HPACK dynamic table size update: a request block that starts
/// with one has no header name instances (checked against it: `http2.header_name;
/// content:":method";` then never matches, `http.request_header` still does).
pub(crate) fn header_names(tx: &HttpTx, dir: Direction, f: &mut dyn FnMut(&[u8])) {
    if let (Some(info), Direction::ToServer) = (tx.h2(), dir) {
        let headers = tx.request().headers();
        let end = info.size_updates[0]
            .first()
            .map_or(headers.len(), |&(at, _)| at.min(headers.len()));
        headers[..end].iter().for_each(|h| f(&h.name));
    }
}

/// Evaluates one `http2.*` keyword; `false` on an HTTP/1 transaction.
pub(crate) fn check(tx: &HttpTx, opt: &AppOpt, dir: Direction) -> bool {
    let Some(info) = tx.h2() else {
        return false;
    };
    let d = dir.index();
    let any = |v: &[rules::ast::IntCmp], x: u64| v.iter().any(|c| c.matches(x));
    let hit = match (&opt.value, opt.name) {
        (AppValue::Ints(v), "http2.frametype") => (0..16u64)
            .filter(|t| info.frames[d] & (1 << t) != 0)
            .any(|t| any(v, t)),
        (AppValue::Ints(v), "http2.errorcode") => {
            info.error_codes[d].iter().any(|&c| any(v, u64::from(c)))
        }
        (AppValue::Ints(v), "http2.priority") => {
            info.priority[d].is_some_and(|p| any(v, u64::from(p)))
        }
        (AppValue::Ints(v), "http2.window") => {
            info.windows[d].iter().any(|&w| any(v, u64::from(w)))
        }
        (AppValue::Ints(v), "http2.size_update") => {
            info.size_updates[d].iter().any(|&(_, n)| any(v, n as u64))
        }
        (AppValue::Text(t), "http2.settings") => match rules::keywords::http2_settings(t) {
            Ok((id, cmp)) => info.settings[d]
                .iter()
                .any(|&(i, val)| i == id && cmp.is_none_or(|c| c.matches(u64::from(val)))),
            Err(_) => false,
        },
        _ => return false,
    };
    hit != opt.negated
}

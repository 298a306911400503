//! HTTP/1.x protocol detection.

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// Methods that start an HTTP request (libhtp's list), matched case-insensitively and
/// followed by a space or tab, as Suricata's HTTP patterns are.
pub(crate) const METHODS: &[&[u8]] = &[
    b"GET",
    b"POST",
    b"HEAD",
    b"PUT",
    b"DELETE",
    b"TRACE",
    b"OPTIONS",
    b"CONNECT",
    b"PATCH",
    b"PROPFIND",
    b"PROPPATCH",
    b"MKCOL",
    b"COPY",
    b"MOVE",
    b"LOCK",
    b"UNLOCK",
    b"CHECKOUT",
    b"UNCHECKOUT",
    b"CHECKIN",
    b"UPDATE",
    b"LABEL",
    b"REPORT",
    b"MKWORKSPACE",
    b"MKACTIVITY",
    b"MERGE",
    b"INVALID",
    b"VERSION-CONTROL",
    b"BASELINE-CONTROL",
];

/// Matches `pat` at the start of `data` case-insensitively: `Match` if all of it is
/// there, `NeedMore` if `data` is a strict prefix of it.
fn prefix(data: &[u8], pat: &[u8]) -> Probe {
    let n = data.len().min(pat.len());
    if !data[..n].eq_ignore_ascii_case(&pat[..n]) {
        Probe::NoMatch
    } else if n == pat.len() {
        Probe::Match(AppProto::Unknown)
    } else {
        Probe::NeedMore
    }
}

/// Probes the first bytes of a direction for an HTTP request (a method) or response
/// (`HTTP/`), on any port.
pub(crate) fn probe(dir: Direction, data: &[u8]) -> Probe {
    let mut need = false;
    match dir {
        Direction::ToServer => {
            for m in METHODS {
                match prefix(data, m) {
                    Probe::NoMatch => {}
                    Probe::NeedMore => need = true,
                    Probe::Match(_) => match data.get(m.len()) {
                        Some(b' ' | b'\t') => return Probe::Match(AppProto::Http),
                        Some(_) => {}
                        None => need = true,
                    },
                }
            }
        }
        Direction::ToClient => match prefix(data, b"HTTP/") {
            Probe::Match(_) => return Probe::Match(AppProto::Http),
            Probe::NeedMore => need = true,
            Probe::NoMatch => {}
        },
    }
    if need {
        Probe::NeedMore
    } else {
        Probe::NoMatch
    }
}

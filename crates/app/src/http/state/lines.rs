//! Line reading for the HTTP/1.x state machine: where lines end (libhtp's CR/LF rules
//! per direction and state), and the small tests on a line's first bytes that decide
//! what it starts.

use super::{HttpState, LineRes, Side};
use crate::http::parser::looks_like_response_line;
use crate::util::{chomp, trim};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Whether a line after a completed request starts a new one: its first word (after
/// leading whitespace) is a method libhtp knows, compared case-sensitively (unlike
/// protocol detection).
pub(super) fn starts_request(line: &[u8]) -> bool {
    let start = line
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(line.len());
    let rest = &line[start..];
    let end = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
    end > 0 && crate::http::METHODS.contains(&&rest[..end])
}

/// Whether a line after a completed response starts a new one: `HTTP`, in any case,
/// after whitespace and NUL bytes (libhtp's test before treating it as body).
pub(super) fn starts_response(line: &[u8]) -> bool {
    let start = line
        .iter()
        .position(|&b| !is_space(b) && b != 0)
        .unwrap_or(line.len());
    line.len() >= start + 4 && line[start..start + 4].eq_ignore_ascii_case(b"HTTP")
}

/// libhtp's probe after a request line without protocol: the data that follows looks
/// like a header line (a colon before any other whitespace than spaces inside the name).
pub(super) fn header_follows(data: &[u8]) -> bool {
    let mut after_spaces = false;
    for &b in data {
        match b {
            b':' => return true,
            b' ' | b'\t' => after_spaces = true,
            _ if is_space(b) || after_spaces => return false,
            _ => {}
        }
    }
    false
}

/// libhtp's end-of-headers test: an empty line (`\n`, `\r\n`), or one whitespace
/// byte before a bare LF unless another LF follows (then that LF ends the headers).
pub(super) fn is_terminator(line: &[u8], next_lf: bool) -> bool {
    match line {
        b"\n" | b"\r\n" => true,
        [b' ' | b'\t', b'\n'] => !next_lf,
        _ => false,
    }
}

/// Whether a (continuation) line is `token:` after leading whitespace.
pub(super) fn looks_like_header(l: &[u8]) -> bool {
    let t = trim(l);
    match memchr::memchr(b':', t) {
        Some(c) if c > 0 => t[..c].iter().all(|&b| {
            b.is_ascii_graphic()
                && !matches!(
                    b,
                    b'(' | b')'
                        | b'<'
                        | b'>'
                        | b'@'
                        | b','
                        | b';'
                        | b'\\'
                        | b'"'
                        | b'/'
                        | b'['
                        | b']'
                        | b'?'
                        | b'='
                        | b'{'
                        | b'}'
                )
        }),
        _ => false,
    }
}

/// How lines end.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// At LF (requests, chunk sizes, trailers).
    Lf,
    /// A status line: as response headers; a line that is not a status line is
    /// dropped when the next line starts with `H`.
    StatusLine,
    /// Response headers, as libhtp: CRLF, LF (a following CR joins the ending), or a
    /// lone CR (not CR CR, and not a line that is only a CR).
    ResponseHeader,
}

/// Takes the next complete line (with its terminator) from `data[*pos..]`, joining it
/// to a partial line kept from earlier chunks.
pub(super) fn next_line(
    side: &mut Side,
    data: &[u8],
    pos: &mut usize,
    mode: Mode,
    limit: usize,
) -> LineRes {
    let cr = mode != Mode::Lf;
    if side.line.capacity() == 0 {
        // A flow's first line (or the first since a stop): a pooled buffer.
        side.line = super::pool::line(b"");
    }
    loop {
        // A line that ended in CR at the end of the last chunk: decide with this byte.
        if cr && side.line.last() == Some(&b'\r') {
            let Some(&b) = data.get(*pos) else {
                return LineRes::Need;
            };
            match b {
                b'\n' => {
                    side.line.push(b'\n');
                    *pos += 1;
                    if let Some(r) = complete(side, data, pos, mode) {
                        return r;
                    }
                    continue;
                }
                b'\r' => {}
                _ if side.line.len() >= 2 => {
                    if let Some(r) = complete(side, data, pos, mode) {
                        return r;
                    }
                    continue;
                }
                _ => {}
            }
        } else if side.line.last() == Some(&b'\n') {
            // A line waiting for one more byte (see `complete`).
            if let Some(r) = complete(side, data, pos, mode) {
                return r;
            }
            continue;
        }
        let rest = &data[*pos..];
        let found = if cr {
            memchr::memchr2(b'\n', b'\r', rest)
        } else {
            memchr::memchr(b'\n', rest)
        };
        let Some(i) = found else {
            if side.line.len() + rest.len() > limit {
                return LineRes::TooLong;
            }
            side.line.extend_from_slice(rest);
            *pos = data.len();
            return LineRes::Need;
        };
        if side.line.len() + i > limit {
            return LineRes::TooLong;
        }
        side.line.extend_from_slice(&rest[..=i]);
        *pos += i + 1;
        if rest[i] == b'\r' {
            // Decided at the top of the loop once the next byte is known.
            continue;
        }
        if let Some(r) = complete(side, data, pos, mode) {
            return r;
        }
    }
}

/// A line has ended (held in `side.line`). Returns it, or `None` when the decision
/// needs the next byte (`Need` if there is none yet) or the line is dropped.
fn complete(side: &mut Side, data: &[u8], pos: &mut usize, mode: Mode) -> Option<LineRes> {
    let lws_lf = matches!(side.line.as_slice(), [b' ' | b'\t', b'\n']);
    // (After a body libhtp's RES_FINALIZE takes any line at once: no peeking.)
    let not_status = mode == Mode::StatusLine && !side.deferred && {
        let l = chomp(&side.line);
        !trim(l).is_empty() && !looks_like_response_line(l)
    };
    if lws_lf || not_status {
        let Some(&b) = data.get(*pos) else {
            return Some(LineRes::Need);
        };
        side.next_lf = b == b'\n';
        if not_status && (b == b'H' || b == b'h') {
            // libhtp skips a non-status line when the next one starts with H.
            side.line.clear();
            return None;
        }
    } else {
        side.next_lf = false;
    }
    Some(finish_line(side, mode))
}

fn finish_line(side: &mut Side, mode: Mode) -> LineRes {
    if mode != Mode::Lf {
        let crlf = side.line.ends_with(b"\r\n");
        side.after_lf = !crlf && side.line.last() == Some(&b'\n');
        // LF-CR then an empty CRLF line: a CRLF right after is part of the same ending
        // (any other byte in between resets the rule).
        if side.lfcr && side.line == b"\r\n" {
            side.swallow = 2;
        }
        side.lfcr = false;
    }
    LineRes::Line(std::mem::take(&mut side.line))
}

/// The response direction's line-ending quirks and chunk-size check.
impl HttpState {
    /// Drops the CR of an LF-CR line ending and the extra CRLF of libhtp's LFCRCRLFCRLF
    /// rule in the response direction. Returns whether a byte was eaten.
    pub(super) fn eat_line_ending_tail(&mut self, data: &[u8], pos: &mut usize) -> bool {
        let side = &mut self.sides[1];
        let b = data[*pos];
        if side.after_lf {
            side.after_lf = false;
            if b == b'\r' {
                side.lfcr = true;
                *pos += 1;
                return true;
            }
        }
        match side.swallow {
            2 if b == b'\r' => {
                side.swallow = 1;
                *pos += 1;
                true
            }
            1 if b == b'\n' => {
                side.swallow = 0;
                *pos += 1;
                true
            }
            0 => false,
            _ => {
                side.swallow = 0;
                false
            }
        }
    }

    /// Whether the chunk-size line being read (held bytes, then `data[pos..]`) starts
    /// with something that cannot be a chunk size.
    pub(super) fn bad_chunk_len(&self, data: &[u8], pos: usize) -> bool {
        let held = &self.sides[1].line;
        let first = held
            .iter()
            .chain(data[pos..].iter())
            .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c));
        first.is_some_and(|b| !b.is_ascii_hexdigit())
    }
}

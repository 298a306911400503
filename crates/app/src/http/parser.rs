//! Zero-copy parsers for single HTTP/1.x lines: request line, response line, header
//! line, chunk length and Content-Length, with libhtp's (IDS personality) tolerance.
//!
//! Every function takes one line with its terminator already removed and returns
//! ranges into it, so the caller can keep one copy of the line and hand out slices.

use core::ops::Range;

use crate::util::trim;

/// libhtp's notion of whitespace (`htp_is_space`).
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// HTTP protocol version as a number: 9 for 0.9, 100 for 1.0, 101 for 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// No protocol on the request line, or one that did not parse.
    Invalid,
    /// HTTP/0.9 (a request line without a protocol).
    V0_9,
    /// HTTP/1.0.
    V1_0,
    /// HTTP/1.1 (and any later 1.x).
    V1_1,
    /// HTTP/2: a transaction built from an HTTP/2 stream.
    V2,
}

/// Parses a protocol string as libhtp does: `HTTP/1.0`, `HTTP/1.1`, `HTTP/0.9`, case
/// insensitive, surrounding whitespace allowed.
pub(crate) fn parse_protocol(p: &[u8]) -> ProtocolVersion {
    let p = trim(p);
    if p.len() < 8 || !p[..5].eq_ignore_ascii_case(b"HTTP/") {
        return ProtocolVersion::Invalid;
    }
    match &p[5..] {
        b"0.9" => ProtocolVersion::V0_9,
        b"1.0" => ProtocolVersion::V1_0,
        b"1.1" => ProtocolVersion::V1_1,
        v if v.len() == 3 && v[0] == b'1' && v[1] == b'.' && v[2].is_ascii_digit() => {
            ProtocolVersion::V1_1
        }
        _ => ProtocolVersion::Invalid,
    }
}

/// The parts of a request line, as ranges into the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RequestLine {
    pub method: Range<usize>,
    pub uri: Range<usize>,
    /// Empty when the line has no protocol (HTTP/0.9).
    pub protocol: Range<usize>,
}

/// Splits a request line like libhtp's generic parser: leading whitespace ignored, the
/// method ends at whitespace, the URI at the first SP (or, if there is none, at any
/// whitespace), the rest after whitespace is the protocol.
pub(crate) fn parse_request_line(line: &[u8]) -> RequestLine {
    let len = line.len();
    let mut pos = 0;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    let m_start = pos;
    while pos < len && !is_space(line[pos]) {
        pos += 1;
    }
    let method = m_start..pos;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    let u_start = pos;
    let mut bad_delim = false;
    while pos < len && line[pos] != b' ' {
        if is_space(line[pos]) {
            bad_delim = true;
        }
        pos += 1;
    }
    if bad_delim && pos == len {
        pos = u_start;
        while pos < len && !is_space(line[pos]) {
            pos += 1;
        }
    }
    let uri = u_start..pos;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    RequestLine {
        method,
        uri,
        protocol: pos..len,
    }
}

/// The parts of a response line, as ranges into the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ResponseLine {
    pub protocol: Range<usize>,
    pub status: Range<usize>,
    pub message: Range<usize>,
}

/// Splits a status line: protocol, whitespace, status code, whitespace, message.
pub(crate) fn parse_response_line(line: &[u8]) -> ResponseLine {
    let len = line.len();
    let mut pos = 0;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    let p_start = pos;
    while pos < len && !is_space(line[pos]) {
        pos += 1;
    }
    let protocol = p_start..pos;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    let s_start = pos;
    while pos < len && !is_space(line[pos]) {
        pos += 1;
    }
    let status = s_start..pos;
    while pos < len && is_space(line[pos]) {
        pos += 1;
    }
    ResponseLine {
        protocol,
        status,
        message: pos..len,
    }
}

/// Parses a status code: exactly three digits, 100 to 999.
pub(crate) fn parse_status(s: &[u8]) -> Option<u16> {
    let s = trim(s);
    if s.len() != 3 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = s.iter().fold(0u16, |a, &d| a * 10 + u16::from(d - b'0'));
    (v >= 100).then_some(v)
}

/// Whether a response line starts like one (`HTTP` after optional whitespace, case
/// insensitive); libhtp treats anything else as the start of an HTTP/0.9 body.
pub(crate) fn looks_like_response_line(line: &[u8]) -> bool {
    let t = trim(line);
    t.len() >= 4 && t[..4].eq_ignore_ascii_case(b"HTTP")
}

/// A header line split into name and value ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderLine {
    pub name: Range<usize>,
    pub value: Range<usize>,
}

/// Splits `Name: value` as libhtp does: the name ends at the first colon (trailing
/// whitespace dropped), the value is trimmed. A line without a colon becomes a header
/// with an empty name whose value is the whole line, so its bytes stay inspectable.
pub(crate) fn parse_header_line(line: &[u8]) -> HeaderLine {
    match memchr::memchr(b':', line) {
        None => {
            let v = trim_range(line, 0..line.len());
            HeaderLine {
                name: 0..0,
                value: v,
            }
        }
        Some(colon) => {
            let name = trim_range(line, 0..colon);
            let value = trim_range(line, colon + 1..line.len());
            HeaderLine { name, value }
        }
    }
}

fn trim_range(s: &[u8], r: Range<usize>) -> Range<usize> {
    let mut a = r.start;
    let mut b = r.end;
    while a < b && is_space(s[a]) {
        a += 1;
    }
    while b > a && is_space(s[b - 1]) {
        b -= 1;
    }
    a..b
}

/// Parses a Content-Length value as libhtp does: bytes before the first digit are
/// skipped, the digits that follow are the length, anything after them is ignored
/// (`a68bc`, `-68` and `68 34` are all 68 to Suricata 7.0.10). `None` when there is no
/// digit or the number overflows.
pub(crate) fn parse_content_length(v: &[u8]) -> Option<u64> {
    let start = v.iter().position(u8::is_ascii_digit)?;
    let mut n: u64 = 0;
    for &d in v[start..].iter().take_while(|d| d.is_ascii_digit()) {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

/// Parses a chunk-size line: optional leading whitespace, hex digits, then anything
/// (chunk extensions after `;`, trailing whitespace) ignored. `None` when there are no
/// hex digits or the size overflows.
pub(crate) fn parse_chunk_len(line: &[u8]) -> Option<u64> {
    let mut i = 0;
    while i < line.len() && is_space(line[i]) {
        i += 1;
    }
    let start = i;
    let mut n: u64 = 0;
    while i < line.len() {
        let d = match line[i] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        n = n.checked_mul(16)?.checked_add(u64::from(d))?;
        i += 1;
    }
    if i == start {
        return None;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(l: &[u8]) -> (&[u8], &[u8], &[u8]) {
        let r = parse_request_line(l);
        (&l[r.method], &l[r.uri], &l[r.protocol])
    }

    #[test]
    fn request_lines() {
        assert_eq!(
            req(b"GET /a?b HTTP/1.1"),
            (&b"GET"[..], &b"/a?b"[..], &b"HTTP/1.1"[..])
        );
        assert_eq!(req(b"GET /"), (&b"GET"[..], &b"/"[..], &b""[..]));
        assert_eq!(
            req(b"  POST   /x   HTTP/1.0"),
            (&b"POST"[..], &b"/x"[..], &b"HTTP/1.0"[..])
        );
        // Tab as the only delimiter after the URI.
        assert_eq!(
            req(b"GET\t/x\tHTTP/1.0"),
            (&b"GET"[..], &b"/x"[..], &b"HTTP/1.0"[..])
        );
        // A URI with a tab inside and a space delimiter keeps the tab.
        assert_eq!(
            req(b"GET /a\tb HTTP/1.0"),
            (&b"GET"[..], &b"/a\tb"[..], &b"HTTP/1.0"[..])
        );
        assert_eq!(req(b"GET"), (&b"GET"[..], &b""[..], &b""[..]));
        assert_eq!(req(b""), (&b""[..], &b""[..], &b""[..]));
    }

    #[test]
    fn protocols() {
        assert_eq!(parse_protocol(b"HTTP/1.1"), ProtocolVersion::V1_1);
        assert_eq!(parse_protocol(b"http/1.0"), ProtocolVersion::V1_0);
        assert_eq!(parse_protocol(b"HTTP/0.9"), ProtocolVersion::V0_9);
        assert_eq!(parse_protocol(b"HTTP/2.0"), ProtocolVersion::Invalid);
        assert_eq!(parse_protocol(b"FOO"), ProtocolVersion::Invalid);
    }

    #[test]
    fn response_lines() {
        let l = b"HTTP/1.1 200 OK fine";
        let r = parse_response_line(l);
        assert_eq!(&l[r.protocol.clone()], b"HTTP/1.1");
        assert_eq!(&l[r.status.clone()], b"200");
        assert_eq!(&l[r.message.clone()], b"OK fine");
        assert_eq!(parse_status(b"200"), Some(200));
        assert_eq!(parse_status(b"20"), None);
        assert_eq!(parse_status(b"099"), None);
        assert!(looks_like_response_line(b" http/1.0 200"));
        assert!(!looks_like_response_line(b"<html>"));
    }

    #[test]
    fn header_lines() {
        let l = b"Host :  example.com  ";
        let h = parse_header_line(l);
        assert_eq!(&l[h.name], b"Host");
        assert_eq!(&l[h.value], b"example.com");
        let l = b"no colon here";
        let h = parse_header_line(l);
        assert_eq!(&l[h.name], b"");
        assert_eq!(&l[h.value], b"no colon here");
        let l = b"X:";
        let h = parse_header_line(l);
        assert_eq!(&l[h.value], b"");
    }

    #[test]
    fn lengths() {
        assert_eq!(parse_content_length(b" 12 "), Some(12));
        // Junk around the digits is skipped (Suricata 7.0.10 reads each as 68).
        assert_eq!(parse_content_length(b"-68"), Some(68));
        assert_eq!(parse_content_length(b"a68bc"), Some(68));
        assert_eq!(parse_content_length(b"68 34"), Some(68));
        assert_eq!(parse_content_length(b"ab cd"), None);
        assert_eq!(parse_content_length(b""), None);
        assert_eq!(parse_content_length(b"99999999999999999999999"), None);
        assert_eq!(parse_chunk_len(b"1a;ext=1"), Some(26));
        assert_eq!(parse_chunk_len(b"  F "), Some(15));
        assert_eq!(parse_chunk_len(b"xyz"), None);
        assert_eq!(parse_chunk_len(b""), None);
        assert_eq!(parse_chunk_len(b"fffffffffffffffff"), None);
    }
}

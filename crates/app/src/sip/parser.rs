//! SIP start lines and header lines, with the grammar Suricata's SIP parser accepts
//! (RFC 3261's start line and header lines): request line `METHOD SP Request-URI SP
//! SIP/version CRLF`, status line `SIP/version SP code SP reason CRLF`, then `name:
//! value CRLF` header lines up to an empty line. The body is not looked at, except that
//! over TCP its `Content-Length` says where the next message starts.

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!%'*+-._`".contains(&b)
}

fn is_uri(b: u8) -> bool {
    is_token(b) || b"~#@:;=?+&$,/".contains(&b)
}

fn is_version(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"./".contains(&b)
}

fn is_reason(b: u8) -> bool {
    is_token(b) || b"$&(),/:;=?@[\\]^ ".contains(&b)
}

fn is_header_value(b: u8) -> bool {
    is_token(b) || b"\"#$&(),/;:<=>?@[]{}^|~\\\t ".contains(&b)
}

/// Splits off the longest prefix of bytes in `class`; `None` if it is empty.
fn take1(b: &[u8], class: fn(u8) -> bool) -> Option<(&[u8], &[u8])> {
    let n = b.iter().take_while(|&&c| class(c)).count();
    (n > 0).then(|| b.split_at(n))
}

fn tag<'a>(b: &'a [u8], t: &[u8]) -> Option<&'a [u8]> {
    b.strip_prefix(t)
}

/// `SIP/version`: the whole token and the rest.
fn version(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = tag(b, b"SIP/")?;
    let (v, rest) = take1(rest, is_version)?;
    Some((&b[..4 + v.len()], rest))
}

/// Header lines up to and including the empty line that ends them: the rest, and the
/// value of `Content-Length` (or its compact form `l`) when one is given.
fn headers(mut b: &[u8]) -> Option<(&[u8], Option<usize>)> {
    let mut length = None;
    loop {
        if let Some(rest) = tag(b, b"\r\n") {
            return Some((rest, length));
        }
        let (name, rest) = take1(b, is_token)?;
        let rest = rest.trim_ascii_start();
        let rest = tag(rest, b":")?;
        let rest = &rest[rest
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count()..];
        let n = rest.iter().take_while(|&&c| is_header_value(c)).count();
        if name.eq_ignore_ascii_case(b"content-length") || name.eq_ignore_ascii_case(b"l") {
            length = std::str::from_utf8(&rest[..n]).ok()?.trim().parse().ok();
        }
        b = tag(&rest[n..], b"\r\n")?;
    }
}

/// The start line of a SIP message (the parts EVE and the `sip.*` buffers show).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartLine {
    /// A request.
    Request {
        /// `INVITE`, `ACK`, ...
        method: Vec<u8>,
        /// The Request-URI.
        uri: Vec<u8>,
        /// `SIP/2.0`.
        version: Vec<u8>,
        /// The whole line, without its CRLF.
        line: Vec<u8>,
    },
    /// A response.
    Response {
        /// `SIP/2.0`.
        version: Vec<u8>,
        /// The three-digit status code.
        code: Vec<u8>,
        /// The reason phrase (possibly empty).
        reason: Vec<u8>,
        /// The whole line, without its CRLF.
        line: Vec<u8>,
    },
}

/// A parsed message: its start line and the bytes it spans (headers, and over TCP
/// the body `Content-Length` announces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The start line.
    pub start: StartLine,
    /// Bytes up to the end of the header block.
    pub head_len: usize,
    /// The announced body length, if any.
    pub body_len: Option<usize>,
}

/// Parses a request: request line and header lines; `None` if `b` is not one (or is
/// incomplete).
pub fn parse_request(b: &[u8]) -> Option<Message> {
    let (method, rest) = take1(b, |c| c.is_ascii_alphabetic())?;
    let (uri, rest) = take1(tag(rest, b" ")?, is_uri)?;
    let (version, rest) = version(tag(rest, b" ")?)?;
    let line = &b[..b.len() - rest.len()];
    let (after, body_len) = headers(tag(rest, b"\r\n")?)?;
    Some(Message {
        start: StartLine::Request {
            method: method.to_vec(),
            uri: uri.to_vec(),
            version: version.to_vec(),
            line: line.to_vec(),
        },
        head_len: b.len() - after.len(),
        body_len,
    })
}

/// Parses a response: status line and header lines; `None` if `b` is not one (or is
/// incomplete).
pub fn parse_response(b: &[u8]) -> Option<Message> {
    let (version, rest) = version(b)?;
    let rest = tag(rest, b" ")?;
    let code = rest.get(..3)?;
    let rest = tag(&rest[3..], b" ")?;
    let n = rest.iter().take_while(|&&c| is_reason(c)).count();
    let (reason, rest) = rest.split_at(n);
    let line = &b[..b.len() - rest.len()];
    let (after, body_len) = headers(tag(rest, b"\r\n")?)?;
    Some(Message {
        start: StartLine::Response {
            version: version.to_vec(),
            code: code.to_vec(),
            reason: reason.to_vec(),
            line: line.to_vec(),
        },
        head_len: b.len() - after.len(),
        body_len,
    })
}

/// Whether `b` is a SIP request: request line and header lines.
pub fn is_request(b: &[u8]) -> bool {
    parse_request(b).is_some()
}

/// Whether `b` is a SIP response: status line and header lines.
pub fn is_response(b: &[u8]) -> bool {
    parse_response(b).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// sv-ether.pcap frame 66120 (the start of the datagram).
    pub(crate) const INVITE: &[u8] = b"INVITE sip:francisco@bestel.com:55060 SIP/2.0\r\n\
        Via: SIP/2.0/UDP 200.57.7.195;branch=z9hG4bKff9b46fb055c0521cc24024da96cd290\r\n\
        From: <sip:200.57.7.195:55061;user=phone>;tag=GR52RWG346-34\r\n\
        Call-ID: 12013223@200.57.7.195\r\n\
        CSeq: 1 INVITE\r\n\
        Content-Length: 4\r\n\
        \r\n\
        v=0\n";
    const OK: &[u8] = b"SIP/2.0 200 Ok\r\nVia: SIP/2.0/UDP 200.57.7.195\r\nCSeq: 1 INVITE\r\n\r\n";

    #[test]
    fn requests_and_responses() {
        assert!(is_request(INVITE));
        assert!(!is_response(INVITE));
        assert!(is_response(OK));
        assert!(!is_request(OK));
        assert!(is_response(b"SIP/2.0 100 Trying\r\n\r\n"));
        // Incomplete or damaged messages.
        assert!(!is_request(&INVITE[..40]));
        assert!(!is_request(b"INVITE sip:a SIP/2.0\r\nVia x\r\n\r\n"));
        assert!(!is_response(b"SIP/2.0 20 OK\r\n\r\n"));
        assert!(!is_request(b""));
    }

    #[test]
    fn start_line_fields() {
        let m = parse_request(INVITE).unwrap();
        assert_eq!(
            m.start,
            StartLine::Request {
                method: b"INVITE".to_vec(),
                uri: b"sip:francisco@bestel.com:55060".to_vec(),
                version: b"SIP/2.0".to_vec(),
                line: b"INVITE sip:francisco@bestel.com:55060 SIP/2.0".to_vec(),
            }
        );
        assert_eq!(m.body_len, Some(4));
        assert_eq!(&INVITE[m.head_len..], b"v=0\n");
        let m = parse_response(OK).unwrap();
        assert_eq!(
            m.start,
            StartLine::Response {
                version: b"SIP/2.0".to_vec(),
                code: b"200".to_vec(),
                reason: b"Ok".to_vec(),
                line: b"SIP/2.0 200 Ok".to_vec(),
            }
        );
        assert_eq!((m.head_len, m.body_len), (OK.len(), None));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Some(m) = parse_request(&b) {
                prop_assert!(m.head_len <= b.len());
            }
            if let Some(m) = parse_response(&b) {
                prop_assert!(m.head_len <= b.len());
            }
        }
    }
}

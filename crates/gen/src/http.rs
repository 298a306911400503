//! HTTP/1.1 requests and responses: what goes on the wire and the inspection buffers the
//! engine derives from it (normalized header block `Name: Value\r\n...`, header values,
//! URI, method, bodies).

/// One HTTP request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Method token.
    pub method: Vec<u8>,
    /// Request target (starts with `/`).
    pub uri: Vec<u8>,
    /// Headers in order (without Content-Length, added from the body).
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// Body.
    pub body: Vec<u8>,
}

/// One HTTP response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// Three-digit status code.
    pub status: Vec<u8>,
    /// Reason phrase.
    pub reason: Vec<u8>,
    /// Headers in order (without Content-Length).
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// Body (sent with Content-Length).
    pub body: Vec<u8>,
}

fn push_headers(out: &mut Vec<u8>, headers: &[(Vec<u8>, Vec<u8>)], body: &[u8], always_len: bool) {
    for (n, v) in headers {
        out.extend_from_slice(n);
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.extend_from_slice(b"\r\n");
    }
    if always_len || !body.is_empty() {
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
}

/// The header block as the engine normalizes it (`Name: Value\r\n` per header).
pub fn header_block(headers: &[(Vec<u8>, Vec<u8>)], body: &[u8], always_len: bool) -> Vec<u8> {
    let mut out = Vec::new();
    push_headers(&mut out, headers, body, always_len);
    out
}

impl Request {
    /// Whether the method carries a body with Content-Length.
    fn sends_length(&self) -> bool {
        !self.body.is_empty() || self.method == b"POST" || self.method == b"PUT"
    }

    /// Wire bytes.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 + self.body.len());
        out.extend_from_slice(&self.method);
        out.push(b' ');
        out.extend_from_slice(&self.uri);
        out.extend_from_slice(b" HTTP/1.1\r\n");
        push_headers(&mut out, &self.headers, &self.body, self.sends_length());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }

    /// The normalized `http.header` buffer.
    pub fn header_buffer(&self) -> Vec<u8> {
        header_block(&self.headers, &self.body, self.sends_length())
    }

    /// A header's value (first of that name, case-insensitive).
    pub fn header(&self, name: &[u8]) -> Option<&[u8]> {
        find_header(&self.headers, name)
    }
}

impl Response {
    /// Wire bytes.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 + self.body.len());
        out.extend_from_slice(b"HTTP/1.1 ");
        out.extend_from_slice(&self.status);
        out.push(b' ');
        out.extend_from_slice(&self.reason);
        out.extend_from_slice(b"\r\n");
        push_headers(&mut out, &self.headers, &self.body, true);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }

    /// The normalized `http.header` buffer of the response.
    pub fn header_buffer(&self) -> Vec<u8> {
        header_block(&self.headers, &self.body, true)
    }

    /// A header's value.
    pub fn header(&self, name: &[u8]) -> Option<&[u8]> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &'a [(Vec<u8>, Vec<u8>)], name: &[u8]) -> Option<&'a [u8]> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// Splits a header block (`Name: Value\r\n...`, last line ending optional) into headers;
/// `None` when a line is not a well-formed header that normalizes to itself.
pub fn parse_header_lines(block: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    let body = block.strip_suffix(b"\r\n").unwrap_or(block);
    for line in split_crlf(body) {
        let colon = line.iter().position(|&b| b == b':')?;
        let (name, rest) = (&line[..colon], &line[colon + 1..]);
        let value = rest.strip_prefix(b" ")?;
        let token = |b: &u8| b.is_ascii_alphanumeric() || b"-_".contains(b);
        if name.is_empty() || !name.iter().all(token) || !value_ok(value) {
            return None;
        }
        out.push((name.to_vec(), value.to_vec()));
    }
    Some(out)
}

fn split_crlf(b: &[u8]) -> Vec<&[u8]> {
    let mut v = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\r' && b[i + 1] == b'\n' {
            v.push(&b[start..i]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    v.push(&b[start..]);
    v
}

/// A header value that survives parsing unchanged: non-empty, no CR/LF/NUL, no
/// surrounding whitespace, not folded.
pub fn value_ok(v: &[u8]) -> bool {
    !v.is_empty()
        && !v.iter().any(|&b| b == b'\r' || b == b'\n' || b == 0)
        && !v[0].is_ascii_whitespace()
        && !v[v.len() - 1].is_ascii_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_renders_with_length() {
        let r = Request {
            method: b"POST".to_vec(),
            uri: b"/a".to_vec(),
            headers: vec![(b"Host".to_vec(), b"x.test".to_vec())],
            body: b"abc".to_vec(),
        };
        assert_eq!(
            r.render(),
            b"POST /a HTTP/1.1\r\nHost: x.test\r\nContent-Length: 3\r\n\r\nabc".to_vec()
        );
        assert_eq!(
            r.header_buffer(),
            b"Host: x.test\r\nContent-Length: 3\r\n".to_vec()
        );
        assert_eq!(r.header(b"host"), Some(&b"x.test"[..]));
    }

    #[test]
    fn header_lines_parse_strictly() {
        let h = parse_header_lines(b"A: b\r\nC-d: e f\r\n").unwrap();
        assert_eq!(h.len(), 2);
        assert!(parse_header_lines(b"A:b").is_none());
        assert!(parse_header_lines(b"A: b \r\n").is_none());
        assert!(parse_header_lines(b"A b: c").is_none());
    }
}

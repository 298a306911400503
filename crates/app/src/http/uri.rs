//! Request-URI splitting and normalization as libhtp does it with Suricata's defaults
//! (IDS personality, paths not lowercased, no double decoding):
//!
//! - the URI is split into scheme, authority, path, query and fragment;
//! - the path is %-decoded (`%XX`, `%uXXXX`; invalid escapes keep their `%`), `\` and
//!   `%2f` become `/`, runs of `/` collapse, UTF-8 sequences are reduced to single bytes
//!   (best fit, `?` otherwise) and dot segments are removed;
//! - the query is kept raw, the fragment is %-decoded;
//! - `http.uri` is `path[?query][#fragment]` (scheme and authority dropped).

use core::ops::Range;

use crate::util::trim;

/// The components of a request URI, as ranges into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct UriParts {
    pub authority: Option<Range<usize>>,
    pub path: Option<Range<usize>>,
    pub query: Option<Range<usize>>,
    pub fragment: Option<Range<usize>>,
}

/// Splits a request URI like libhtp's `htp_parse_uri`.
pub(crate) fn split_uri(u: &[u8]) -> UriParts {
    let len = u.len();
    let mut parts = UriParts::default();
    let mut pos = 0;
    if len > 0 && u[0] != b'/' {
        // A scheme needs a colon; without one the whole thing is an (odd) path.
        if let Some(colon) = memchr::memchr(b':', u) {
            pos = colon + 1;
            if pos + 2 < len && u[pos] == b'/' && u[pos + 1] == b'/' && u[pos + 2] != b'/' {
                pos += 2;
                let start = pos;
                while pos < len && !matches!(u[pos], b'/' | b'?' | b'#') {
                    pos += 1;
                }
                parts.authority = Some(start..pos);
            }
        }
    }
    let start = pos;
    while pos < len && u[pos] != b'?' && u[pos] != b'#' {
        pos += 1;
    }
    if pos > start {
        parts.path = Some(start..pos);
    }
    if pos < len && u[pos] == b'?' {
        pos += 1;
        let start = pos;
        while pos < len && u[pos] != b'#' {
            pos += 1;
        }
        parts.query = Some(start..pos);
    }
    if pos < len && u[pos] == b'#' {
        parts.fragment = Some(pos + 1..len);
    }
    parts
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn hex2(a: u8, b: u8) -> Option<u8> {
    Some(hex(a)? << 4 | hex(b)?)
}

/// Maps a code point above 0xff to one byte: full-width ASCII to ASCII, the rest `?`.
fn bestfit(cp: u32) -> u8 {
    if (0xff01..=0xff5e).contains(&cp) {
        (cp - 0xff01 + 0x21) as u8
    } else if cp <= 0xff {
        cp as u8
    } else {
        b'?'
    }
}

/// %-decodes a path with the IDS personality's settings, converting `\` to `/` and
/// collapsing runs of `/`.
fn decode_path(p: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < p.len() {
        let mut c = p[i];
        let mut step = 1;
        if c == b'%' {
            if i + 5 < p.len() && (p[i + 1] == b'u' || p[i + 1] == b'U') {
                if let (Some(hi), Some(lo)) = (hex2(p[i + 2], p[i + 3]), hex2(p[i + 4], p[i + 5])) {
                    c = if hi == 0 {
                        lo
                    } else {
                        bestfit(u32::from(hi) << 8 | u32::from(lo))
                    };
                    step = 6;
                }
            } else if i + 2 < p.len() {
                if let Some(v) = hex2(p[i + 1], p[i + 2]) {
                    c = v;
                    step = 3;
                }
            }
        }
        if c == b'\\' {
            c = b'/';
        }
        if c == b'/' && out.last() == Some(&b'/') {
            i += step;
            continue;
        }
        out.push(c);
        i += step;
    }
}

/// Replaces valid multi-byte UTF-8 sequences by one best-fit byte each; invalid
/// sequences are left alone.
fn utf8_bestfit(p: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < p.len() {
        let b = p[i];
        let (n, init) = match b {
            0xc2..=0xdf => (2, u32::from(b & 0x1f)),
            0xe0..=0xef => (3, u32::from(b & 0x0f)),
            0xf0..=0xf4 => (4, u32::from(b & 0x07)),
            _ => (1, 0),
        };
        if n > 1 && i + n <= p.len() && p[i + 1..i + n].iter().all(|&c| c & 0xc0 == 0x80) {
            let cp = p[i + 1..i + n]
                .iter()
                .fold(init, |a, &c| a << 6 | u32::from(c & 0x3f));
            let min = [0, 0, 0x80, 0x800, 0x10000][n];
            if cp >= min && !(0xd800..=0xdfff).contains(&cp) && cp <= 0x10ffff {
                out.push(bestfit(cp));
                i += n;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
}

/// Removes `.` and `..` segments (RFC 3986, section 5.2.4).
pub(crate) fn remove_dot_segments(input: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(input.len());
    dot_segments_into(input, &mut out);
    out
}

/// [`remove_dot_segments`] written into `out`, which must be empty.
fn dot_segments_into(input: &[u8], out: &mut Vec<u8>) {
    debug_assert!(out.is_empty());
    let mut inp = input;
    while !inp.is_empty() {
        if inp.starts_with(b"../") {
            inp = &inp[3..];
        } else if inp.starts_with(b"./") || inp.starts_with(b"/./") {
            inp = &inp[2..];
        } else if inp == b"/." {
            inp = b"/";
        } else if inp.starts_with(b"/../") || inp == b"/.." {
            inp = if inp.len() == 3 { b"/" } else { &inp[3..] };
            match out.iter().rposition(|&b| b == b'/') {
                Some(p) => out.truncate(p),
                None => out.clear(),
            }
        } else if inp == b"." || inp == b".." {
            inp = b"";
        } else {
            let skip = usize::from(inp[0] == b'/');
            let end = inp[skip..]
                .iter()
                .position(|&b| b == b'/')
                .map_or(inp.len(), |p| p + skip);
            out.extend_from_slice(&inp[..end]);
            inp = &inp[end..];
        }
    }
}

/// Plain %-decoding (`%XX` only, invalid escapes kept), used for the fragment.
fn decode_plain(p: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'%' && i + 2 < p.len() {
            if let Some(v) = hex2(p[i + 1], p[i + 2]) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(p[i]);
        i += 1;
    }
}

/// The normalized path of `path` (decode, best fit, dot segments).
pub(crate) fn normalize_path(path: &[u8]) -> Vec<u8> {
    let mut decoded = Vec::with_capacity(path.len());
    decode_path(path, &mut decoded);
    let mut fitted = Vec::with_capacity(decoded.len());
    utf8_bestfit(&decoded, &mut fitted);
    remove_dot_segments(&fitted)
}

thread_local! {
    /// The decoded and best-fitted path while a URI is normalized (this thread's, so
    /// normalizing allocates nothing once they have grown).
    static SCRATCH: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// Writes [`normalize_path`] of `path` into the empty `out`, through this thread's
/// scratch buffers (no allocation once they and `out` have grown).
pub(crate) fn normalize_path_into(path: &[u8], out: &mut Vec<u8>) {
    let done = SCRATCH.try_with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else {
            return false;
        };
        let (decoded, fitted) = &mut *s;
        decoded.clear();
        fitted.clear();
        decode_path(path, decoded);
        utf8_bestfit(decoded, fitted);
        dot_segments_into(fitted, out);
        true
    });
    if done != Ok(true) {
        out.extend_from_slice(&normalize_path(path));
    }
}

/// Builds Suricata's `http.uri` from a raw request URI.
#[cfg(test)]
pub(crate) fn normalize_uri(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    normalize_uri_into(raw, &mut out);
    out
}

/// Writes Suricata's `http.uri` of the raw request URI `raw` into `out` (emptied
/// first; its room is reused).
pub(crate) fn normalize_uri_into(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    // Room for the raw URI's length at once (the normalized one is rarely longer), not
    // a growth per path segment.
    if out.capacity() < raw.len() {
        out.reserve_exact(raw.len());
    }
    let parts = split_uri(raw);
    if let Some(r) = &parts.path {
        normalize_path_into(&raw[r.clone()], out);
    }
    if let Some(q) = parts.query {
        out.push(b'?');
        out.extend_from_slice(&raw[q]);
    }
    if let Some(f) = parts.fragment {
        out.push(b'#');
        decode_plain(&raw[f], out);
    }
}

/// The host part of an authority (`user:pass@host:port`) or Host header value, without
/// port, as a range into `a`.
pub(crate) fn host_range(a: &[u8]) -> Range<usize> {
    let a_trim = trim(a);
    let off = a_trim.as_ptr() as usize - a.as_ptr() as usize;
    let mut start = 0;
    if let Some(at) = a_trim.iter().rposition(|&b| b == b'@') {
        start = at + 1;
    }
    let h = &a_trim[start..];
    let end = if h.first() == Some(&b'[') {
        h.iter().position(|&b| b == b']').map_or(h.len(), |p| p + 1)
    } else {
        h.iter().position(|&b| b == b':').unwrap_or(h.len())
    };
    off + start..off + start + end
}

/// The port of an authority or Host header value (`host:8080`, `[::1]:443`), as libhtp's
/// `request_port_number`: `None` when absent or not a valid port.
pub(crate) fn host_port(a: &[u8]) -> Option<u16> {
    let a = trim(a);
    let r = host_range(a);
    let rest = trim(a.get(r.end..)?);
    let digits = trim(rest.strip_prefix(b":")?);
    if digits.is_empty() || digits.len() > 5 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Normalizes a host name: lowercase, trailing dots removed.
pub(crate) fn normalize_host(h: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(h.len());
    normalize_host_into(h, &mut v);
    v
}

/// [`normalize_host`] into `out` (emptied first, its buffer kept).
pub(crate) fn normalize_host_into(h: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(h.iter().map(u8::to_ascii_lowercase));
    while out.last() == Some(&b'.') {
        out.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        assert_eq!(host_port(b"example.com:8080"), Some(8080));
        assert_eq!(host_port(b" u@h:443 "), Some(443));
        assert_eq!(host_port(b"[::1]:81"), Some(81));
        assert_eq!(host_port(b"example.com"), None);
        assert_eq!(host_port(b"example.com:"), None);
        assert_eq!(host_port(b"example.com:99999"), None);
        assert_eq!(host_port(b"example.com:8x"), None);
    }

    fn n(u: &str) -> String {
        String::from_utf8_lossy(&normalize_uri(u.as_bytes())).into_owned()
    }

    #[test]
    fn normalizing_into_a_used_buffer_gives_the_same_uri() {
        let mut out = b"left over from the last request".to_vec();
        for u in [
            &b"/a/./b/../c?x=%41#f%41"[..],
            b"http://h/%2e%2e/x",
            b"/\xc3\xa9/..",
            b"*",
            b"",
        ] {
            normalize_uri_into(u, &mut out);
            assert_eq!(out, normalize_path_uri_reference(u), "{u:?}");
        }
    }

    /// The URI built the way it was before the scratch buffers.
    fn normalize_path_uri_reference(raw: &[u8]) -> Vec<u8> {
        let parts = split_uri(raw);
        let mut out = parts
            .path
            .map(|r| remove_dot_segments(&normalize_path_steps(&raw[r])))
            .unwrap_or_default();
        if let Some(q) = parts.query {
            out.push(b'?');
            out.extend_from_slice(&raw[q]);
        }
        if let Some(f) = parts.fragment {
            out.push(b'#');
            decode_plain(&raw[f], &mut out);
        }
        out
    }

    fn normalize_path_steps(path: &[u8]) -> Vec<u8> {
        let mut decoded = Vec::new();
        decode_path(path, &mut decoded);
        let mut fitted = Vec::new();
        utf8_bestfit(&decoded, &mut fitted);
        fitted
    }

    #[test]
    fn splits() {
        let u = b"http://user@Host:8080/p/a?q=1#frag";
        let p = split_uri(u);
        assert_eq!(&u[p.authority.unwrap()], b"user@Host:8080");
        assert_eq!(&u[p.path.unwrap()], b"/p/a");
        assert_eq!(&u[p.query.unwrap()], b"q=1");
        assert_eq!(&u[p.fragment.unwrap()], b"frag");
        let p = split_uri(b"index.html");
        assert_eq!(p.path, Some(0..10));
    }

    #[test]
    fn normalizes_paths() {
        assert_eq!(n("/a/b/../c"), "/a/c");
        assert_eq!(n("/a/./b"), "/a/b");
        assert_eq!(n("/a//b///c"), "/a/b/c");
        assert_eq!(n("/a\\b"), "/a/b");
        assert_eq!(n("/%41%42c"), "/ABc");
        assert_eq!(n("/a%2fb"), "/a/b");
        assert_eq!(n("/%zz%4"), "/%zz%4");
        assert_eq!(n("/%u0041"), "/A");
        assert_eq!(n("/%uff21"), "/A");
        assert_eq!(n("/../../etc/passwd"), "/etc/passwd");
        assert_eq!(n("/a/%2e%2e/b"), "/b");
        assert_eq!(n("/x?a=%41&b=/../"), "/x?a=%41&b=/../");
        assert_eq!(n("/x#%41"), "/x#A");
        assert_eq!(n("http://h.com/a?b"), "/a?b");
        assert_eq!(n("http://h.com"), "");
        assert_eq!(normalize_uri("/\u{e9}\u{4e2d}".as_bytes()), b"/\xe9?");
        assert_eq!(normalize_uri(b"/%c3%a9"), b"/\xe9");
        assert_eq!(normalize_uri(b"/\xc3"), b"/\xc3");
        assert_eq!(n("/a?"), "/a?");
    }

    #[test]
    fn hosts() {
        let h = b" User@WWW.Example.COM.:80 ";
        assert_eq!(normalize_host(&h[host_range(h)]), b"www.example.com");
        let h = b"[::1]:80";
        assert_eq!(&h[host_range(h)], b"[::1]");
        let h = b"";
        assert_eq!(&h[host_range(h)], b"");
    }
}

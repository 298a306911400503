//! Every HTTP/1 sticky buffer with the payload keywords' edge values: a request (GET,
//! POST, PUT, DELETE, OPTIONS; HTTP/1.0 or 1.1) with optional Accept, Accept-Encoding,
//! Accept-Language, Referer, Cookie, Connection headers (names in their usual case or all
//! lowercase, values after one space or after spaces and tabs), a Host with uppercase
//! letters, and its response (200, 201, 301, 302, 404, 500 with their messages; Location,
//! Set-Cookie, Server optional), each cut over one or two segments. The rule is on the
//! request or the response side and takes one to three conditions in a random order, each
//! on one buffer (`http.uri`, `http.uri.raw`, `http.method`, `http.request_line`,
//! `http.protocol`, `http.header`, `http.header.raw`, `http.header_names`, `http.start`,
//! `http.cookie`, `http.user_agent`, `http.host`, `http.host.raw`, `http.accept`,
//! `http.accept_enc`, `http.accept_lang`, `http.referer`, `http.connection`,
//! `http.content_type`, `http.content_len`, `http.stat_code`, `http.stat_msg`,
//! `http.response_line`, `http.server`, `http.location`, the bodies; `http.request_header`
//! and `http.response_header`, HTTP/2-only in Suricata 7) in one of these forms: a content
//! anywhere; `offset`/`depth` at the piece's place, at 0, at the buffer's end and past it;
//! `startswith`/`endswith`; `bsize` with every operator around the length; `isdataat`
//! absolute and relative, plain and negated, at the last byte and one past; two contents
//! with `distance`/`within` (negative distances included); a negated content; `pcre` on
//! the sticky buffer or with the buffer's pcre flag (`/U`, `/I`, `/M`, `/H`, `/D`, `/C`,
//! `/V`, `/W`, `/Z`, `/S`, `/Y`, `/P`, `/Q`); the Snort-style content modifier
//! (`http_uri`, `http_raw_header` ...); each content with `nocase` (uppercased) and
//! `fast_pattern` variants. A miss spoils one condition by one byte or one unit.

use super::bufcond::{cond, Buf};
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// HTTP/1 sticky buffers and their modifiers.
pub const HTTPBUF: Family = Family {
    name: "httpbuf",
    keywords: &[
        "http.uri",
        "http.uri.raw",
        "http.method",
        "http.request_line",
        "http.protocol",
        "http.header",
        "http.header.raw",
        "http.header_names",
        "http.start",
        "http.cookie",
        "http.user_agent",
        "http.host",
        "http.host.raw",
        "http.accept",
        "http.accept_enc",
        "http.accept_lang",
        "http.referer",
        "http.connection",
        "http.content_type",
        "http.content_len",
        "http.stat_code",
        "http.stat_msg",
        "http.response_line",
        "http.server",
        "http.location",
        "http.request_body",
        "http.response_body",
        "http.request_header",
        "http.response_header",
        "http_uri",
        "http_raw_uri",
        "http_method",
        "http_client_body",
        "http_server_body",
        "http_header",
        "http_raw_header",
        "http_cookie",
        "http_user_agent",
        "http_host",
        "http_raw_host",
        "http_stat_code",
        "http_stat_msg",
        "content",
        "nocase",
        "offset",
        "depth",
        "distance",
        "within",
        "startswith",
        "endswith",
        "bsize",
        "isdataat",
        "pcre",
        "fast_pattern",
    ],
    weight: 5,
    make: httpbuf,
};

/// A header line as sent: the name, the colon, spacing and the value.
struct Header {
    name: String,
    value: Vec<u8>,
    spacing: &'static str,
}

impl Header {
    fn raw(&self) -> Vec<u8> {
        [
            self.name.as_bytes(),
            b":",
            self.spacing.as_bytes(),
            &self.value,
            b"\r\n",
        ]
        .concat()
    }
}

/// One message (request or response) and the buffers its headers make.
struct Msg {
    line: Vec<u8>,
    headers: Vec<Header>,
    body: Vec<u8>,
}

impl Msg {
    fn bytes(&self) -> Vec<u8> {
        let mut b = self.line.clone();
        b.extend_from_slice(b"\r\n");
        for h in &self.headers {
            b.extend_from_slice(&h.raw());
        }
        b.extend_from_slice(b"\r\n");
        b.extend_from_slice(&self.body);
        b
    }

    fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.clone())
    }

    /// `http.header`: `Name: value\r\n` per header, without the direction's cookie
    /// header.
    fn header_norm(&self, cookie: &str) -> Vec<u8> {
        let mut b = Vec::new();
        for h in self
            .headers
            .iter()
            .filter(|h| !h.name.eq_ignore_ascii_case(cookie))
        {
            b.extend_from_slice(h.name.as_bytes());
            b.extend_from_slice(b": ");
            b.extend_from_slice(&h.value);
            b.extend_from_slice(b"\r\n");
        }
        b
    }

    /// `http.header.raw`: the header lines as sent, with the empty line.
    fn header_raw(&self) -> Vec<u8> {
        let mut b: Vec<u8> = self.headers.iter().flat_map(|h| h.raw()).collect();
        b.extend_from_slice(b"\r\n");
        b
    }

    /// `http.header_names`: `\r\n`, each name and `\r\n`, then `\r\n`.
    fn header_names(&self) -> Vec<u8> {
        let mut b = b"\r\n".to_vec();
        for h in &self.headers {
            b.extend_from_slice(h.name.as_bytes());
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"\r\n");
        b
    }

    /// `http.start`: the line and every header (normalised), with the empty line.
    fn start(&self) -> Vec<u8> {
        let mut b = self.line.clone();
        b.extend_from_slice(b"\r\n");
        for h in &self.headers {
            b.extend_from_slice(h.name.as_bytes());
            b.extend_from_slice(b": ");
            b.extend_from_slice(&h.value);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"\r\n");
        b
    }
}

fn text(n: &[u8]) -> String {
    String::from_utf8_lossy(n).into_owned()
}

/// A header name as usually written or all lowercase.
fn hname(name: &str, lower: bool) -> String {
    if lower {
        name.to_ascii_lowercase()
    } else {
        name.to_string()
    }
}

/// A buffer description (`http.host` contents must be lowercase).
pub(super) fn buf(
    kw: &'static str,
    modifier: Option<&'static str>,
    flag: Option<char>,
    value: Option<Vec<u8>>,
) -> Buf {
    Buf {
        kw,
        modifier,
        flag,
        value,
        lower_only: kw == "http.host",
    }
}

/// `http.header` (the message's `cookie` header left out), `http.header.raw`,
/// `http.header_names` and `http.start` of message `m`, in that order.
fn header_bufs(m: &Msg, cookie: &str) -> [Buf; 4] {
    [
        buf(
            "http.header",
            Some("http_header"),
            Some('H'),
            Some(m.header_norm(cookie)),
        ),
        buf(
            "http.header.raw",
            Some("http_raw_header"),
            Some('D'),
            Some(m.header_raw()),
        ),
        buf("http.header_names", None, None, Some(m.header_names())),
        buf("http.start", None, None, Some(m.start())),
    ]
}

/// The request and its buffers.
fn request(g: &mut Gen<'_>, lower: bool) -> (Msg, Vec<Buf>) {
    let method = g.pick(&["GET", "GET", "POST", "PUT", "DELETE", "OPTIONS"]);
    let version = g.pick(&["HTTP/1.1", "HTTP/1.1", "HTTP/1.0"]);
    let n = g.size(3, 8);
    let path = text(&g.needle(n));
    let file = text(&g.needle(4));
    let q = text(&g.needle(3));
    let uri = format!("/{path}/{file}.php?{q}=1");
    let host_l = text(&g.needle(6));
    let host = {
        // Some uppercase letters: `http.host` lowercases, `http.host.raw` keeps them.
        let mut h = host_l.clone().into_bytes();
        for c in h.iter_mut() {
            if g.chance(0.3) {
                c.make_ascii_uppercase();
            }
        }
        format!("{}.test", text(&h))
    };
    let spacing = |g: &mut Gen<'_>| {
        if g.chance(0.2) {
            g.pick(&["  ", " \t", "\t"])
        } else {
            " "
        }
    };
    let mut headers = vec![
        Header {
            name: hname("Host", lower),
            value: host.clone().into_bytes(),
            spacing: spacing(g),
        },
        Header {
            name: hname("User-Agent", lower),
            value: format!("dt/{}", text(&g.needle(7))).into_bytes(),
            spacing: spacing(g),
        },
    ];
    let optional: [(&str, Vec<u8>); 6] = [
        (
            "Accept",
            format!("text/{}", text(&g.needle(4))).into_bytes(),
        ),
        (
            "Accept-Encoding",
            format!("gzip, {}", text(&g.needle(5))).into_bytes(),
        ),
        (
            "Accept-Language",
            format!("en-{}", text(&g.needle(2))).into_bytes(),
        ),
        (
            "Referer",
            format!("http://{}.test/{}", text(&g.needle(4)), text(&g.needle(3))).into_bytes(),
        ),
        (
            "Cookie",
            format!("sid={}; t={}", text(&g.needle(6)), text(&g.needle(2))).into_bytes(),
        ),
        (
            "Connection",
            g.pick(&[&b"keep-alive"[..], b"close"]).to_vec(),
        ),
    ];
    for (name, value) in optional {
        if g.chance(0.6) {
            let name = hname(name, lower);
            let spacing = spacing(g);
            headers.push(Header {
                name,
                value,
                spacing,
            });
        }
    }
    let body = if matches!(method, "POST" | "PUT") {
        let n = g.size(5, 40);
        let mut b = g.filler(n);
        let k = g.size(3, 5.min(n));
        let at = g.size(0, n - k);
        let nd = g.needle(k);
        b[at..at + k].copy_from_slice(&nd);
        headers.push(Header {
            name: hname("Content-Type", lower),
            value: b"application/x-www-form-urlencoded".to_vec(),
            spacing: " ",
        });
        headers.push(Header {
            name: hname("Content-Length", lower),
            value: b.len().to_string().into_bytes(),
            spacing: " ",
        });
        b
    } else {
        Vec::new()
    };
    // Header order shuffled (Host stays anywhere).
    for i in (1..headers.len()).rev() {
        let j = g.size(0, i);
        headers.swap(i, j);
    }
    let line = format!("{method} {uri} {version}").into_bytes();
    let m = Msg {
        line: line.clone(),
        headers,
        body,
    };
    let h = |n: &str| m.header(n);
    let mut bufs = vec![
        buf(
            "http.method",
            Some("http_method"),
            Some('M'),
            Some(method.into()),
        ),
        buf(
            "http.uri",
            Some("http_uri"),
            Some('U'),
            Some(uri.clone().into()),
        ),
        buf(
            "http.uri.raw",
            Some("http_raw_uri"),
            Some('I'),
            Some(uri.into()),
        ),
        buf("http.request_line", None, None, Some(line)),
        buf("http.protocol", None, None, Some(version.into())),
    ];
    bufs.extend(header_bufs(&m, "cookie"));
    bufs.extend([
        buf("http.cookie", Some("http_cookie"), Some('C'), h("cookie")),
        buf(
            "http.user_agent",
            Some("http_user_agent"),
            Some('V'),
            h("user-agent"),
        ),
        buf(
            "http.host",
            Some("http_host"),
            Some('W'),
            Some(host.to_ascii_lowercase().into_bytes()),
        ),
        buf(
            "http.host.raw",
            Some("http_raw_host"),
            Some('Z'),
            Some(host.into_bytes()),
        ),
        buf("http.accept", None, None, h("accept")),
        buf("http.accept_enc", None, None, h("accept-encoding")),
        buf("http.accept_lang", None, None, h("accept-language")),
        buf("http.referer", None, None, h("referer")),
        buf("http.connection", None, None, h("connection")),
        buf("http.content_type", None, None, h("content-type")),
        buf("http.content_len", None, None, h("content-length")),
        buf(
            "http.request_body",
            Some("http_client_body"),
            Some('P'),
            (!m.body.is_empty()).then(|| m.body.clone()),
        ),
        // HTTP/2 only in Suricata 7.0.10: never a buffer of an HTTP/1 transaction.
        buf(
            "http.request_header",
            None,
            None,
            h("host").map(|_| [b"Host: ".as_slice(), &host_l.into_bytes()].concat()),
        ),
    ]);
    (m, bufs)
}

/// The response and its buffers.
fn response(g: &mut Gen<'_>, lower: bool, version: &[u8]) -> (Msg, Vec<Buf>) {
    let (code, msg) = g.pick(&[
        ("200", "OK"),
        ("200", "OK"),
        ("201", "Created"),
        ("301", "Moved Permanently"),
        ("302", "Found"),
        ("404", "Not Found"),
        ("500", "Internal Server Error"),
    ]);
    let n = g.size(10, 80);
    let mut body = g.filler(n);
    let k = g.size(4, 6);
    let at = g.size(0, n - k);
    let nd = g.needle(k);
    body[at..at + k].copy_from_slice(&nd);
    let mut headers = vec![
        Header {
            name: hname("Content-Type", lower),
            value: g.pick(&[&b"text/html"[..], b"application/json"]).to_vec(),
            spacing: " ",
        },
        Header {
            name: hname("Content-Length", lower),
            value: body.len().to_string().into_bytes(),
            spacing: " ",
        },
    ];
    if g.chance(0.7) {
        let v = format!("dtsrv/{}", text(&g.needle(4))).into_bytes();
        headers.push(Header {
            name: hname("Server", lower),
            value: v,
            spacing: " ",
        });
    }
    if code.starts_with('3') || g.chance(0.2) {
        let v = format!("http://{}.test/{}", text(&g.needle(5)), text(&g.needle(3))).into_bytes();
        headers.push(Header {
            name: hname("Location", lower),
            value: v,
            spacing: " ",
        });
    }
    if g.chance(0.4) {
        let v = format!("id={}; Path=/", text(&g.needle(6))).into_bytes();
        headers.push(Header {
            name: hname("Set-Cookie", lower),
            value: v,
            spacing: " ",
        });
    }
    if g.chance(0.3) {
        headers.push(Header {
            name: hname("Connection", lower),
            value: b"close".to_vec(),
            spacing: " ",
        });
    }
    for i in (1..headers.len()).rev() {
        let j = g.size(0, i);
        headers.swap(i, j);
    }
    let line = [version, format!(" {code} {msg}").as_bytes()].concat();
    let m = Msg {
        line: line.clone(),
        headers,
        body,
    };
    let h = |n: &str| m.header(n);
    let mut bufs = vec![
        buf("http.response_line", None, None, Some(line)),
        buf("http.protocol", None, None, Some(version.to_vec())),
        buf(
            "http.stat_code",
            Some("http_stat_code"),
            Some('S'),
            Some(code.into()),
        ),
        buf(
            "http.stat_msg",
            Some("http_stat_msg"),
            Some('Y'),
            Some(msg.into()),
        ),
    ];
    bufs.extend(header_bufs(&m, "set-cookie"));
    bufs.extend([
        buf(
            "http.cookie",
            Some("http_cookie"),
            Some('C'),
            h("set-cookie"),
        ),
        buf("http.server", None, None, h("server")),
        buf("http.location", None, None, h("location")),
        buf("http.connection", None, None, h("connection")),
        buf("http.content_type", None, None, h("content-type")),
        buf("http.content_len", None, None, h("content-length")),
        buf(
            "http.response_body",
            Some("http_server_body"),
            Some('Q'),
            Some(m.body.clone()),
        ),
        buf(
            "http.response_header",
            None,
            None,
            h("content-type").map(|v| [b"Content-Type: ".as_slice(), &v].concat()),
        ),
    ]);
    (m, bufs)
}

fn httpbuf(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let lower = g.chance(0.2);
    let (req, req_bufs) = request(g, lower);
    let version = req
        .line
        .rsplit(|&c| c == b' ')
        .next()
        .unwrap_or(b"HTTP/1.1");
    let (resp, resp_bufs) = response(g, lower, version);
    let side = if g.chance(0.6) { 'S' } else { 'C' };
    let mut f = Flow::new(g.index, v6, 80);
    let (ci, si) = (30_000u32, 60_000u32);
    f.handshake(ci, si);
    let (c0, s0) = (ci + 1, si + 1);
    // Each message in one or two segments.
    let send = |f: &mut Flow, g: &mut Gen<'_>, from_client: bool, seq: u32, ack: u32, m: &[u8]| {
        let cut = if m.len() > 2 && g.chance(0.3) {
            g.size(1, m.len() - 1)
        } else {
            m.len()
        };
        let mut s = seq;
        for part in [&m[..cut], &m[cut..]] {
            if !part.is_empty() {
                f.tcp(from_client, s, ack, PSH | ACK, &[], part);
                s += part.len() as u32;
            }
        }
        s
    };
    let rq = req.bytes();
    let c1 = send(&mut f, g, true, c0, s0, &rq);
    let rs = resp.bytes();
    let s1 = send(&mut f, g, false, s0, c1, &rs);
    f.tcp(true, c1, s1, ACK, &[], &[]);
    f.close(c1, s1);
    let mut bufs = if side == 'S' { req_bufs } else { resp_bufs };
    // Rare: the HTTP/2-only header buffers (never present over HTTP/1).
    if !g.chance(0.05) {
        bufs.retain(|b| !b.kw.ends_with("_header"));
    }
    let k = g.size(1, 3);
    let mut conds = Vec::new();
    let mut forms = Vec::new();
    let mut h2only = false;
    for _ in 0..k {
        let i = g.size(0, bufs.len() - 1);
        let b = bufs.swap_remove(i);
        h2only |= b.kw.ends_with("_header");
        let (form, c) = cond(g, &b);
        forms.push(form);
        conds.push(c);
        if bufs.is_empty() {
            break;
        }
    }
    let mut texts = super::bufcond::texts(g, intent, conds.iter());
    if g.chance(0.2) {
        // `fast_pattern` on one content (the last content of a condition).
        let i = g.size(0, texts.len() - 1);
        if let Some(p) = texts[i].rfind("content:") {
            if !texts[i][p..].starts_with("content:!") {
                let end = texts[i][p..].find(';').map(|e| p + e + 1);
                if let Some(e) = end {
                    texts[i].insert_str(e, " fast_pattern;");
                }
            }
        }
    }
    let name = format!(
        "{}{}-{}",
        if h2only { "h2hdr-" } else { "" },
        if side == 'S' { "req" } else { "resp" },
        forms.first().copied().unwrap_or("content")
    );
    let s = base(&name, intent, v6, L4::Tcp, g.pick(&["http", "tcp"]));
    // A flow direction in most rules (Suricata refuses raw-header rules without one).
    let flow = match (g.size(0, 4), side) {
        (0, _) => "",
        (1, 'S') => "flow:established,to_server; ",
        (1, _) => "flow:established,to_client; ",
        (_, 'S') => "flow:to_server; ",
        _ => "flow:to_client; ",
    };
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(s, f, 80, opts, side == 'C', rq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn buffers_model_the_messages() {
        let mut rng = Rng::new(3);
        let mut g = Gen {
            rng: &mut rng,
            index: 1,
        };
        let (m, bufs) = request(&mut g, false);
        let raw = m.bytes();
        let find = |k: &str| {
            bufs.iter()
                .find(|b| b.kw == k)
                .and_then(|b| b.value.clone())
                .unwrap()
        };
        // The line, the raw headers and the body make the message.
        let line = find("http.request_line");
        assert!(raw.starts_with(&line));
        let hr = find("http.header.raw");
        assert_eq!(&raw[line.len() + 2..line.len() + 2 + hr.len()], &hr[..]);
        assert!(find("http.header_names").starts_with(b"\r\nHost\r\n") || !raw.is_empty());
        assert!(find("http.start").ends_with(b"\r\n\r\n"));
        assert_eq!(
            find("http.host"),
            find("http.host.raw").to_ascii_lowercase()
        );
        assert!(!find("http.header").windows(7).any(|w| w == b"Cookie:"));
    }

    #[test]
    fn conditions_parse() {
        let mut rng = Rng::new(5);
        let mut forms = std::collections::BTreeSet::new();
        let mut ok = 0;
        for index in 0..600 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = httpbuf(&mut g);
            forms.insert(s.template.clone());
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        // Edge values Suricata refuses are written on purpose (about 9% in a batch).
        assert!(ok >= 520, "{ok} of 600 parse");
        assert!(forms.len() >= 20, "{forms:?}");
    }
}

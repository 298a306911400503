//! HTTP/1.1 over TCP port 80: a GET or POST and a response whose body is sent with a
//! Content-Length, chunked, cut short (the connection closes before the announced
//! length), or compressed (gzip, zlib deflate, raw deflate; gzip and chunked; lzma
//! whole, cut short, or with xz's header, which libhtp's lzma decoder refuses: passed
//! through unless the batch runs with `--set ...lzma-enabled=yes`), in one to three
//! segments. The rule puts one to four sticky-buffer conditions in a random order
//! (`file_data`/`http.response_body` on the body always, with `http.uri`,
//! `http.method`, `http.host`, `http.user_agent`, `http.header`, `http.content_type`,
//! `http.stat_code`, `http.server`, `http.request_body`; request-only and
//! response-only buffers mixed in one rule of ten), each content with modifiers (`nocase`, `startswith`,
//! `endswith`, `fast_pattern`); a miss spoils one condition's last byte. A gzip body
//! whose deflate data is broken at its first block (`gzip-bad`) gets an
//! `app-layer-event` rule instead (`http.gzip_decompression_failed` to hit,
//! `http.compression_bomb` to miss), to the client or to the server: the packet and
//! count of the event alerts are compared.

use std::io::Write as _;

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// HTTP/1 bodies and sticky buffers.
pub const HTTP: Family = Family {
    name: "http",
    keywords: &[
        "file_data",
        "http.response_body",
        "http.request_body",
        "http.uri",
        "http.method",
        "http.host",
        "http.user_agent",
        "http.header",
        "http.stat_code",
        "http.server",
        "http.content_type",
        "content",
        "nocase",
        "startswith",
        "endswith",
        "fast_pattern",
        "app-layer-event",
    ],
    weight: 5,
    make: http,
};

/// A body encoded as the variant says: the bytes on the wire and the extra headers.
fn encode(variant: &str, body: &[u8], chunks: &[usize]) -> (Vec<u8>, String) {
    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use flate2::Compression;
    let compressed = match variant {
        "gzip" | "gzip-chunked" | "gzip-bad" => {
            let mut e = GzEncoder::new(Vec::new(), Compression::default());
            let _ = e.write_all(body);
            let mut d = e.finish().unwrap_or_default();
            if variant == "gzip-bad" {
                // The first deflate block's header (after gzip's 10 bytes) names the
                // reserved block type 3: decompression fails there.
                if let Some(b) = d.get_mut(10) {
                    *b = 0xff;
                }
            }
            Some((d, "gzip"))
        }
        "deflate" => {
            let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
            let _ = e.write_all(body);
            Some((e.finish().unwrap_or_default(), "deflate"))
        }
        "deflate-raw" => {
            let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
            let _ = e.write_all(body);
            Some((e.finish().unwrap_or_default(), "deflate"))
        }
        "lzma" | "lzma-cut" | "lzma-xz" => {
            // lzma-alone (lzma-rs writes literals only, with the end marker).
            let mut d = Vec::new();
            let _ = lzma_rs::lzma_compress(&mut &body[..], &mut d);
            if variant == "lzma-cut" {
                // The stream cut a little before its end (its last bytes hold the
                // last literals and the end marker).
                d.truncate(d.len().saturating_sub(3 + body.len() / 4));
            } else if variant == "lzma-xz" {
                // Property byte 0xfd, as xz data starts: refused by libhtp.
                d[0] = 0xfd;
            }
            Some((d, "lzma"))
        }
        _ => None,
    };
    let (data, enc) = match compressed {
        Some((d, e)) => (d, format!("Content-Encoding: {e}\r\n")),
        None => (body.to_vec(), String::new()),
    };
    if variant == "chunked" || variant == "gzip-chunked" {
        let mut out = Vec::new();
        let mut off = 0usize;
        for &c in chunks.iter().chain(std::iter::once(&usize::MAX)) {
            let end = off.saturating_add(c).min(data.len());
            if end > off {
                out.extend_from_slice(format!("{:x}\r\n", end - off).as_bytes());
                out.extend_from_slice(&data[off..end]);
                out.extend_from_slice(b"\r\n");
            }
            off = end;
        }
        out.extend_from_slice(b"0\r\n\r\n");
        (out, format!("{enc}Transfer-Encoding: chunked\r\n"))
    } else if variant == "cut" {
        let h = format!("Content-Length: {}\r\n", data.len() + 10);
        (data, h)
    } else {
        let h = format!("{enc}Content-Length: {}\r\n", data.len());
        (data, h)
    }
}

/// One rule condition: its text, and its text when it must just miss.
struct Cond {
    hit: String,
    miss: String,
}

fn cond(g: &mut Gen<'_>, kw: &str, value: &[u8], lowercase_only: bool, whole: bool) -> Cond {
    // A piece of the value: whole (startswith/endswith), its start, its end, or inside;
    // anchored only where the value is the whole buffer.
    let n = value.len();
    let pick = if whole {
        g.size(0, 3)
    } else {
        3 + g.size(0, 1)
    };
    let (piece, m) = match pick {
        4 => (value.to_vec(), ""),
        0 => (value.to_vec(), " startswith; endswith;"),
        1 => (value[..n.min(5)].to_vec(), " startswith;"),
        2 => (value[n.saturating_sub(4)..].to_vec(), " endswith;"),
        _ => {
            let a = g.size(0, n.saturating_sub(3));
            (value[a..(a + 3).min(n)].to_vec(), "")
        }
    };
    let nocase = !lowercase_only && g.chance(0.25);
    let piece = if nocase {
        piece.to_ascii_uppercase()
    } else {
        piece
    };
    let nc = if nocase { " nocase;" } else { "" };
    let text = |c: &[u8]| format!("{kw}; content:\"{}\";{nc}{m}", content_text(c));
    Cond {
        hit: text(&piece),
        miss: text(&spoil(&piece)),
    }
}

fn http(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "length",
        "chunked",
        "cut",
        "gzip",
        "deflate",
        "deflate-raw",
        "gzip-chunked",
        "lzma",
        "lzma-cut",
        "lzma-xz",
        "gzip-bad",
    ]);
    let intent = g.intent();
    let v6 = g.v6();
    let post = g.chance(0.3);
    let mut s = base(variant, intent, v6, L4::Tcp, "http");
    s.tweaks.dport = Some(80);
    let mut f = Flow::new(g.index, v6, 80);
    // Request.
    let pl = g.size(3, 8);
    let path = g.needle(pl);
    let host = g.needle(6);
    let ua = g.needle(7);
    let tag = g.needle(5);
    let uri = format!("/{}/x.html?q=1", String::from_utf8_lossy(&path));
    let req_body = if post { g.needle(12) } else { Vec::new() };
    let method = if post { "POST" } else { "GET" };
    let mut req = format!(
        "{method} {uri} HTTP/1.1\r\nHost: {}.test\r\nUser-Agent: {}\r\nX-Tag: {}\r\nAccept: */*\r\n",
        String::from_utf8_lossy(&host),
        String::from_utf8_lossy(&ua),
        String::from_utf8_lossy(&tag)
    )
    .into_bytes();
    if post {
        req.extend_from_slice(format!("Content-Length: {}\r\n", req_body.len()).as_bytes());
    }
    req.extend_from_slice(b"\r\n");
    req.extend_from_slice(&req_body);
    // Response body with a needle.
    let len = g.size(20, 400);
    let mut body = g.filler(len);
    let nl = g.size(4, 10);
    let needle = g.needle(nl);
    let at = g.size(0, len - nl);
    body[at..at + nl].copy_from_slice(&needle);
    let mut chunks = Vec::new();
    for _ in 0..g.size(1, 4) {
        chunks.push(g.size(1, 120));
    }
    let (wire_body, headers) = encode(variant, &body, &chunks);
    let mut resp =
        format!("HTTP/1.1 200 OK\r\nServer: dt\r\nContent-Type: text/html\r\n{headers}\r\n")
            .into_bytes();
    resp.extend_from_slice(&wire_body);
    // The conversation: request in one segment, response in one to three.
    let (ci, si) = (40_000u32, 80_000u32);
    f.handshake(ci, si);
    let (c0, s0) = (ci + 1, si + 1);
    f.tcp(true, c0, s0, PSH | ACK, &[], &req);
    let c1 = c0 + req.len() as u32;
    let parts = g.size(1, 3);
    let mut cuts: Vec<usize> = (1..parts).map(|_| g.size(1, resp.len() - 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut sv = s0;
    let mut prev = 0;
    for end in cuts.into_iter().chain(std::iter::once(resp.len())) {
        f.tcp(false, sv, c1, PSH | ACK, &[], &resp[prev..end]);
        sv += (end - prev) as u32;
        prev = end;
    }
    f.tcp(true, c1, sv, ACK, &[], &[]);
    f.close(c1, sv);
    // The rule: the body condition and up to three others, in a random order. Request-only
    // and response-only buffers do not mix (Suricata refuses such rules) except in one
    // rule of ten, which checks that Osprey refuses it too; `file_data` is of both sides
    // and reads the request body in a rule with request buffers.
    let body_kw = g.pick(&["file_data", "http.response_body"]);
    let side = if body_kw == "file_data" && g.chance(0.4) {
        'S'
    } else {
        'C'
    };
    let mix = g.chance(0.1);
    let body_v = if side == 'S' && post {
        req_body.clone()
    } else {
        needle.clone()
    };
    let body_whole = side == 'S' && post;
    let mut conds = vec![cond(g, body_kw, &body_v, false, body_whole)];
    let host_v = format!("{}.test", String::from_utf8_lossy(&host)).into_bytes();
    let header_v = format!("X-Tag: {}", String::from_utf8_lossy(&tag)).into_bytes();
    // (keyword, value, lowercase only, the value is the whole buffer, side)
    let mut others: Vec<(&str, Vec<u8>, bool, bool, char)> = vec![
        ("http.uri", uri.clone().into_bytes(), false, true, 'S'),
        ("http.method", method.as_bytes().to_vec(), false, true, 'S'),
        ("http.host", host_v, true, true, 'S'),
        ("http.user_agent", ua.clone(), false, true, 'S'),
        ("http.header", header_v, false, false, 'B'),
        ("http.content_type", b"text/html".to_vec(), false, true, 'B'),
        ("http.stat_code", b"200".to_vec(), false, true, 'C'),
        ("http.server", b"dt".to_vec(), false, true, 'C'),
    ];
    if post {
        others.push(("http.request_body", req_body.clone(), false, true, 'S'));
    }
    others.retain(|o| mix || o.4 == 'B' || o.4 == side);
    for _ in 0..g.size(0, 3) {
        let k = g.size(0, others.len() - 1);
        let (kw, v, lower, whole, _) = others.swap_remove(k);
        conds.push(cond(g, kw, &v, lower, whole));
    }
    let spoiled = if intent == Intent::Hit {
        usize::MAX
    } else if g.chance(0.6) {
        0
    } else {
        g.size(0, conds.len() - 1)
    };
    let mut texts: Vec<String> = conds
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == spoiled {
                c.miss.clone()
            } else {
                c.hit.clone()
            }
        })
        .collect();
    for i in (1..texts.len()).rev() {
        let j = g.size(0, i);
        texts.swap(i, j);
    }
    if g.chance(0.3) {
        let k = g.size(0, texts.len() - 1);
        texts[k].push_str(" fast_pattern;");
    }
    s.opts = texts.join(" ");
    if variant == "gzip-bad" {
        let event = if intent == Intent::Hit {
            "gzip_decompression_failed"
        } else {
            "compression_bomb"
        };
        s.opts = format!("app-layer-event:http.{event};");
    }
    if side == 'C' {
        // A response-side rule: the header names the server as the source.
        s.header = Some(f.server_to_client_header());
    }
    s.payload = body;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    #[test]
    fn lzma_bodies_decode_back_cut_or_refused() {
        let body = b"hello lzma hello lzma hello lzma".to_vec();
        let (d, h) = encode("lzma", &body, &[]);
        assert!(h.contains("Content-Encoding: lzma"));
        let mut out = Vec::new();
        lzma_rs::lzma_decompress(&mut &d[..], &mut out).unwrap();
        assert_eq!(out, body);
        let (cut, _) = encode("lzma-cut", &body, &[]);
        assert!(cut.len() < d.len() && d.starts_with(&cut));
        let (xz, _) = encode("lzma-xz", &body, &[]);
        assert_eq!((xz[0], &xz[1..]), (0xfd, &d[1..]));
    }

    #[test]
    fn bodies_decode_back() {
        let body = b"hello hello hello world".to_vec();
        let (d, h) = encode("gzip", &body, &[]);
        assert!(h.contains("Content-Encoding: gzip"));
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&d[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, body);
        let (d, h) = encode("chunked", &body, &[5, 7]);
        assert!(h.contains("chunked"));
        assert_eq!(
            d,
            b"5\r\nhello\r\n7\r\n hello \r\nb\r\nhello world\r\n0\r\n\r\n".to_vec()
        );
        let (d, h) = encode("cut", &body, &[]);
        assert_eq!((d.len(), h.as_str()), (23, "Content-Length: 33\r\n"));
        // A broken gzip body does not decompress.
        let (d, h) = encode("gzip-bad", &body, &[]);
        assert!(h.contains("Content-Encoding: gzip"));
        assert!(flate2::read::GzDecoder::new(&d[..])
            .read_to_end(&mut Vec::new())
            .is_err());
    }
}

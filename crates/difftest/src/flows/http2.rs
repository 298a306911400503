//! HTTP/2 with prior knowledge (h2c) on TCP port 80: the client's preface and SETTINGS, a
//! GET as one HEADERS frame (HPACK literal fields without indexing and without Huffman
//! coding), the server's SETTINGS, HEADERS (`:status 200`) and the body in one to three
//! DATA frames (or one DATA frame longer than the default 16,384-byte maximum frame size),
//! the frames cut over one to three TCP segments each way. The rule is a
//! request-side condition (`http.uri`, `http.method`) or a response-side one
//! (`file_data`, `http.stat_code`), hitting or just missing.

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// HTTP/2 (h2c prior knowledge).
pub const HTTP2: Family = Family {
    name: "http2",
    keywords: &[
        "http.uri",
        "http.method",
        "file_data",
        "http.stat_code",
        "content",
    ],
    weight: 2,
    make: http2,
};

/// One frame: type, flags, stream, payload.
pub fn frame(ty: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let n = payload.len() as u32;
    let mut f = vec![(n >> 16) as u8, (n >> 8) as u8, n as u8, ty, flags];
    f.extend_from_slice(&stream.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// An HPACK header block of literal fields without indexing, new names, no Huffman
/// coding (names and values shorter than 127 bytes).
pub fn hpack(fields: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut b = Vec::new();
    for (n, v) in fields {
        b.push(0);
        b.push(n.len() as u8);
        b.extend_from_slice(n);
        b.push(v.len() as u8);
        b.extend_from_slice(v);
    }
    b
}

/// Cuts `data` into `parts` segments at random places.
fn cut(g: &mut Gen<'_>, data: &[u8], parts: usize) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = (1..parts).map(|_| g.size(1, data.len() - 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in cuts.into_iter().chain(std::iter::once(data.len())) {
        out.push(data[prev..c].to_vec());
        prev = c;
    }
    out
}

fn http2(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "uri",
        "method",
        "body",
        "body-split",
        "stat-code",
        "long-frame",
    ]);
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(variant, intent, v6, L4::Tcp, "http2");
    s.tweaks.dport = Some(80);
    let mut f = Flow::new(g.index, v6, 80);
    let pl = g.size(3, 8);
    let path = format!("/{}", String::from_utf8_lossy(&g.needle(pl)));
    let hn = g.needle(6);
    let host = format!("{}.test", String::from_utf8_lossy(&hn));
    // long-frame: one DATA frame longer than the default SETTINGS_MAX_FRAME_SIZE (16,384).
    let len = if variant == "long-frame" {
        g.size(16_385, 16_600)
    } else {
        g.size(10, 300)
    };
    let mut body = g.filler(len);
    let nl = g.size(4, 10);
    let needle = g.needle(nl);
    let at = g.size(0, len - nl);
    body[at..at + nl].copy_from_slice(&needle);
    // Client: preface, SETTINGS, HEADERS (END_STREAM | END_HEADERS).
    let mut c = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    c.extend(frame(4, 0, 0, &[]));
    let req = hpack(&[
        (b":method", b"GET"),
        (b":path", path.as_bytes()),
        (b":scheme", b"http"),
        (b":authority", host.as_bytes()),
    ]);
    c.extend(frame(1, 0x5, 1, &req));
    // Server: SETTINGS, SETTINGS ack, HEADERS, DATA frames (the last with END_STREAM).
    let mut sv = frame(4, 0, 0, &[]);
    sv.extend(frame(4, 1, 0, &[]));
    let resp = hpack(&[(b":status", b"200"), (b"content-type", b"text/html")]);
    sv.extend(frame(1, 0x4, 1, &resp));
    let n = g.size(2, 3).min(len);
    let pieces = if variant == "body-split" {
        cut(g, &body, n)
    } else {
        vec![body.clone()]
    };
    let last = pieces.len() - 1;
    for (i, p) in pieces.iter().enumerate() {
        sv.extend(frame(0, u8::from(i == last), 1, p));
    }
    let (ci, si) = (60_000u32, 90_000u32);
    f.handshake(ci, si);
    let (mut cs, mut ss) = (ci + 1, si + 1);
    let parts = g.size(1, 3);
    for p in cut(g, &c, parts) {
        f.tcp(true, cs, ss, PSH | ACK, &[], &p);
        cs += p.len() as u32;
    }
    let parts = g.size(1, 3);
    for p in cut(g, &sv, parts) {
        f.tcp(false, ss, cs, PSH | ACK, &[], &p);
        ss += p.len() as u32;
    }
    let ack = frame(4, 1, 0, &[]);
    f.tcp(true, cs, ss, PSH | ACK, &[], &ack);
    cs += ack.len() as u32;
    f.tcp(false, ss, cs, ACK, &[], &[]);
    f.close(cs, ss);
    let (kw, value, response): (&str, Vec<u8>, bool) = match variant {
        "uri" => ("http.uri", path.into_bytes(), false),
        "method" => ("http.method", b"GET".to_vec(), false),
        "stat-code" => ("http.stat_code", b"200".to_vec(), true),
        _ => ("file_data", needle, true),
    };
    let c = if hit { value } else { spoil(&value) };
    s.opts = format!("{kw}; content:\"{}\";", content_text(&c));
    if response {
        s.header = Some(f.server_to_client_header());
    }
    s.payload = body;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_literal_fields_are_laid_out() {
        assert_eq!(frame(4, 1, 0, &[]), vec![0, 0, 0, 4, 1, 0, 0, 0, 0]);
        let f = frame(0, 1, 1, b"abc");
        assert_eq!(&f[..9], &[0, 0, 3, 0, 1, 0, 0, 0, 1]);
        assert_eq!(
            hpack(&[(b":path", b"/a")]),
            vec![0, 5, b':', b'p', b'a', b't', b'h', 2, b'/', b'a']
        );
    }
}

//! Transforms, `bsize` and `urilen` on buffers the HTTP/1 and DNS flows carry: an HTTP
//! request whose User-Agent and Cookie mix case, runs of spaces and tabs and
//! percent-encodings (and its `200` answer), or a DNS query over UDP. The rule takes one
//! buffer (`http.uri`, `http.method`, `http.user_agent`, `http.host`, `http.cookie`,
//! `http.stat_code`, `dns.query`), zero to two transforms (`to_lowercase`,
//! `to_uppercase`, `strip_whitespace`, `compress_whitespace`, `dotprefix`, `url_decode`,
//! `xor`, `to_md5`, `to_sha1`, `to_sha256`) and a content (whole with
//! `startswith`/`endswith`, its start, its end or inside) or a `bsize`, or `urilen`
//! (every operator, `raw`/`norm`) on the URI; a miss spoils the content's last byte or
//! moves the size by one.

use md5::Digest as _;

use super::Flow;
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// Transforms, bsize and urilen on HTTP and DNS buffers.
pub const XFORM: Family = Family {
    name: "xform",
    keywords: &[
        "http.uri",
        "http.method",
        "http.user_agent",
        "http.host",
        "http.cookie",
        "http.stat_code",
        "dns.query",
        "urilen",
        "bsize",
        "to_lowercase",
        "to_uppercase",
        "strip_whitespace",
        "compress_whitespace",
        "dotprefix",
        "url_decode",
        "xor",
        "to_md5",
        "to_sha1",
        "to_sha256",
        "content",
        "startswith",
        "endswith",
        "nocase",
    ],
    weight: 5,
    make: xform,
};

/// A transform: its rule text and what it does to a buffer.
#[derive(Clone, Debug)]
pub(super) enum Xf {
    Lower,
    Upper,
    Strip,
    Compress,
    Dot,
    UrlDecode,
    Xor(Vec<u8>),
    Md5,
    Sha1,
    Sha256,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn hexval(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

impl Xf {
    pub(super) fn text(&self) -> String {
        match self {
            Xf::Lower => "to_lowercase;".into(),
            Xf::Upper => "to_uppercase;".into(),
            Xf::Strip => "strip_whitespace;".into(),
            Xf::Compress => "compress_whitespace;".into(),
            Xf::Dot => "dotprefix;".into(),
            Xf::UrlDecode => "url_decode;".into(),
            Xf::Xor(k) => {
                let hex: String = k.iter().map(|b| format!("{b:02x}")).collect();
                format!("xor:\"{hex}\";")
            }
            Xf::Md5 => "to_md5;".into(),
            Xf::Sha1 => "to_sha1;".into(),
            Xf::Sha256 => "to_sha256;".into(),
        }
    }

    /// The buffer after the transform, as Suricata's documentation describes it.
    pub(super) fn apply(&self, b: &[u8]) -> Vec<u8> {
        match self {
            Xf::Lower => b.to_ascii_lowercase(),
            Xf::Upper => b.to_ascii_uppercase(),
            Xf::Strip => b.iter().copied().filter(|&c| !is_ws(c)).collect(),
            Xf::Compress => {
                let mut o = Vec::new();
                for (i, &c) in b.iter().enumerate() {
                    if !is_ws(c) {
                        o.push(c);
                    } else if i == 0 || !is_ws(b[i - 1]) {
                        // A run's first byte stays (Suricata 7.0.10: a lone tab stays).
                        o.push(c);
                    }
                }
                o
            }
            Xf::Dot => [b".", b].concat(),
            Xf::UrlDecode => {
                let mut o = Vec::new();
                let mut i = 0;
                while i < b.len() {
                    let pair = b.get(i + 1..i + 3).and_then(|p| {
                        let (h, l) = (hexval(p[0])?, hexval(p[1])?);
                        Some(h << 4 | l)
                    });
                    match (b[i], pair) {
                        (b'%', Some(v)) => {
                            o.push(v);
                            i += 3;
                        }
                        (c, _) => {
                            o.push(if c == b'+' { b' ' } else { c });
                            i += 1;
                        }
                    }
                }
                o
            }
            Xf::Xor(k) => b
                .iter()
                .enumerate()
                .map(|(i, c)| c ^ k[i % k.len()])
                .collect(),
            Xf::Md5 => md5::Md5::digest(b).to_vec(),
            Xf::Sha1 => sha1::Sha1::digest(b).to_vec(),
            Xf::Sha256 => sha2::Sha256::digest(b).to_vec(),
        }
    }

    pub(super) fn is_hash(&self) -> bool {
        matches!(self, Xf::Md5 | Xf::Sha1 | Xf::Sha256)
    }
}

pub(super) fn pick_xf(g: &mut Gen<'_>, lower_only: bool) -> Xf {
    let k = g.size(0, 9);
    match k {
        0 => Xf::Lower,
        1 if !lower_only => Xf::Upper,
        2 => Xf::Strip,
        3 => Xf::Compress,
        4 => Xf::Dot,
        5 => Xf::UrlDecode,
        6 if !lower_only => {
            let n = g.size(1, 4);
            Xf::Xor((0..n).map(|_| g.num(1, 255) as u8).collect())
        }
        7 => Xf::Md5,
        8 => Xf::Sha1,
        9 => Xf::Sha256,
        _ => Xf::Lower,
    }
}

/// Mixed case, whitespace runs and percent-encodings around a needle.
pub(super) fn messy(g: &mut Gen<'_>, n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for i in 0..n {
        let k = g.size(2, 6);
        let mut w = g.needle(k);
        if g.chance(0.5) {
            w[0] = w[0].to_ascii_uppercase();
        }
        if g.chance(0.3) {
            let c = w[w.len() - 1];
            w.pop();
            w.extend_from_slice(format!("%{c:02X}").as_bytes());
        }
        if i > 0 {
            let sep: &[u8] = g.pick(&[&b" "[..], b"  ", b"\t", b" \t ", b"\t ", b"+"]);
            v.extend_from_slice(sep);
        }
        v.extend_from_slice(&w);
    }
    v
}

/// The HTTP flow: a GET with the given URI, host, User-Agent and Cookie, and a 200.
fn http_flow(g: &mut Gen<'_>, v6: bool, uri: &[u8], host: &[u8], ua: &[u8], ck: &[u8]) -> Flow {
    let mut f = Flow::new(g.index, v6, 80);
    let mut req = b"GET ".to_vec();
    for (a, b) in [
        (&b""[..], uri),
        (b" HTTP/1.1\r\nHost: ", host),
        (b"\r\nUser-Agent: ", ua),
        (b"\r\nCookie: ", ck),
    ] {
        req.extend_from_slice(a);
        req.extend_from_slice(b);
    }
    req.extend_from_slice(b"\r\nAccept: */*\r\n\r\n");
    let resp = b"HTTP/1.1 200 OK\r\nServer: dt\r\nContent-Length: 4\r\n\r\nabcd";
    let (ci, si) = (3000u32, 9000u32);
    f.handshake(ci, si);
    f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], &req);
    let c1 = ci + 1 + req.len() as u32;
    f.tcp(false, si + 1, c1, PSH | ACK, &[], resp);
    let s1 = si + 1 + resp.len() as u32;
    f.tcp(true, c1, s1, ACK, &[], &[]);
    f.close(c1, s1);
    f
}

fn xform(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let h = intent == Intent::Hit;
    let v6 = g.v6();
    let buf = g.pick(&[
        "http.uri",
        "http.method",
        "http.user_agent",
        "http.user_agent",
        "http.host",
        "http.cookie",
        "http.cookie",
        "http.stat_code",
        "dns.query",
        "dns.query",
    ]);
    let op = if buf == "http.uri" && g.chance(0.4) {
        "urilen"
    } else {
        g.pick(&["content", "content", "bsize"])
    };
    let mut s = base(&format!("{buf}/{op}"), intent, v6, L4::Tcp, "http");
    s.tweaks.dport = Some(80);
    // The buffer's value as the engine holds it, and the flow.
    let value: Vec<u8> = if buf == "dns.query" {
        s.l4 = L4::Udp;
        s.proto = g.pick(&["dns", "udp"]);
        s.tweaks.dport = Some(53);
        let mut labels = Vec::new();
        for _ in 0..g.size(1, 3) {
            let n = g.size(2, 10);
            let mut l = g.needle(n);
            if g.chance(0.3) {
                l[0] = l[0].to_ascii_uppercase();
            }
            labels.push(l);
        }
        let id = g.num(1, 0xfffe) as u16;
        let mut f = Flow::new(g.index, v6, 53);
        f.udp(true, &super::dns::message(id, &labels, 1, false));
        f.udp(false, &super::dns::message(id, &labels, 1, true));
        s.script = Some(f.frames);
        labels.join(&b"."[..])
    } else {
        let p = g.size(3, 8);
        let path = g.needle(p);
        let q = g.needle(4);
        let uri = format!(
            "/{}/{}.php?id={}",
            String::from_utf8_lossy(&path),
            String::from_utf8_lossy(&q),
            g.num(0, 99999)
        )
        .into_bytes();
        let host = [g.needle(6), b".test".to_vec()].concat();
        let n = g.size(2, 4);
        let ua = messy(g, n);
        let n = g.size(1, 3);
        let ck = [b"sid=".to_vec(), messy(g, n)].concat();
        let f = http_flow(g, v6, &uri, &host, &ua, &ck);
        s.script = Some(f.frames.clone());
        if buf == "http.stat_code" {
            s.header = Some(f.server_to_client_header());
        }
        match buf {
            "http.uri" => uri,
            "http.method" => b"GET".to_vec(),
            "http.user_agent" => ua,
            "http.host" => host,
            "http.cookie" => ck,
            _ => b"200".to_vec(),
        }
    };
    if op == "urilen" {
        let len = value.len() as i64;
        let d = i64::from(!h);
        let form = g.pick(&["", "", ",raw", ",norm"]);
        s.opts = match g.pick(&["eq", "lt", "gt", "range"]) {
            "eq" => format!("urilen:{}{form};", len + d),
            "lt" => format!("urilen:<{}{form};", len + 1 - d),
            "gt" => format!("urilen:>{}{form};", len - 1 + d),
            _ => format!("urilen:{}<>{}{form};", len - 1 + d, len + 1 + d),
        };
        s.payload = value;
        return s;
    }
    // Transforms: none, one or two (a digest only last); `http.host` contents must stay
    // lowercase, so it gets no case-raising transform.
    let lower_only = buf == "http.host";
    let mut xs: Vec<Xf> = Vec::new();
    for _ in 0..g.size(0, 2) {
        if xs.last().is_some_and(Xf::is_hash) {
            break;
        }
        xs.push(pick_xf(g, lower_only));
    }
    let mut out = value.clone();
    for x in &xs {
        out = x.apply(&out);
    }
    let chain: String = xs.iter().map(|x| format!("{} ", x.text())).collect();
    let hashed = xs.last().is_some_and(Xf::is_hash);
    let body = if op == "bsize" {
        let len = out.len() as i64;
        let d = i64::from(!h);
        match g.pick(&["eq", "lt", "gt", "range"]) {
            "eq" => format!("bsize:{};", len + d),
            "lt" => format!("bsize:<{};", len + 1 - d),
            "gt" => format!("bsize:>{};", len - 1 + d),
            _ => format!("bsize:{}<>{};", len - 1 + d, len + 1 + d),
        }
    } else {
        let n = out.len();
        let (piece, m) = match g.size(0, 3) {
            0 => (out.clone(), " startswith; endswith;"),
            1 => (out[..n.min(5)].to_vec(), " startswith;"),
            2 => (out[n.saturating_sub(4)..].to_vec(), " endswith;"),
            _ => {
                let a = g.size(0, n.saturating_sub(3));
                (out[a..(a + 3).min(n)].to_vec(), "")
            }
        };
        let piece = if h {
            piece
        } else {
            let mut p = piece;
            if let Some(l) = p.last_mut() {
                // A byte no buffer here holds (a digest's bytes may be anything: flip).
                *l = if hashed {
                    *l ^ 0x80
                } else {
                    b'Z' ^ (*l & 0x20)
                };
            }
            p
        };
        let nocase = !hashed && !lower_only && xs.is_empty() && g.chance(0.2);
        format!(
            "content:\"{}\";{}{m}",
            content_text(&piece),
            if nocase { " nocase;" } else { "" }
        )
    };
    s.opts = format!("{buf}; {chain}{body}");
    s.payload = value;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_as_documented() {
        let v = b"Ab  C%41d\t+e".to_vec();
        assert_eq!(Xf::Lower.apply(&v), b"ab  c%41d\t+e");
        assert_eq!(Xf::Strip.apply(&v), b"AbC%41d+e");
        assert_eq!(Xf::Compress.apply(&v), b"Ab C%41d\t+e");
        assert_eq!(Xf::UrlDecode.apply(&v), b"Ab  CAd\t e");
        assert_eq!(Xf::Dot.apply(b"x.test"), b".x.test");
        assert_eq!(Xf::Xor(vec![1, 2]).apply(b"\x01\x02\x03"), b"\x00\x00\x02");
        assert_eq!(Xf::Md5.apply(b"").len(), 16);
        assert_eq!(Xf::Sha256.apply(b"").len(), 32);
    }

    #[test]
    fn rules_parse_and_name_their_buffer() {
        let mut rng = gen::rng::Rng::new(3);
        let mut ok = 0;
        for index in 0..500 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = xform(&mut g);
            assert!(s.script.as_ref().is_some_and(|f| f.len() >= 2));
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert!(ok > 480, "{ok} of 500 parse");
    }
}

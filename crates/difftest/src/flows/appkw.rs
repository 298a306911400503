//! Application keywords no other family writes, one rule a case:
//!
//! - `uricontent` (the legacy request URI content) alone or after a content, with
//!   `nocase`, `offset`/`depth`, `distance`/`within` to a second one, negated,
//!   `fast_pattern`, `rawbytes`, over an HTTP/1 GET;
//! - `file.magic` on a downloaded file of a real type (what libmagic says of it: a word
//!   at its start, in another case with `nocase`, `startswith`, negated, with
//!   `fast_pattern`);
//! - `frame` with the frame types Suricata 7.0.10 knows for HTTP/1 (`http1.request`,
//!   `http1.response`), TLS (`tls.pdu`, `tls.hdr`, `tls.data`) and DNS over UDP
//!   (`dns.pdu`), in the long and short forms, a content of the frame's bytes after it,
//!   and the forms Suricata refuses (an unknown type, a type of another protocol);
//! - `tls_store` on the TLS family's rules, on a plain TCP rule and with a value;
//! - `absent` (with and without `or_else`, after a sticky buffer of each kind) and
//!   `ftp.command`: Suricata 8's keywords, which Suricata 7.0.10 does not know, so both
//!   engines must refuse the rule.

use super::session;
use super::Flow;
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};

/// Application keywords: uricontent, file.magic, frame, tls_store, absent, ftp.command.
pub const APPKW: Family = Family {
    name: "appkw",
    keywords: &[
        "uricontent",
        "file.magic",
        "frame",
        "tls_store",
        "absent",
        "ftp.command",
        "content",
        "nocase",
        "offset",
        "depth",
        "distance",
        "within",
        "fast_pattern",
        "startswith",
        "flow",
    ],
    weight: 2,
    make: appkw,
};

/// An HTTP/1 exchange: the request's URI and bytes, the response's bytes, the file's
/// magic word.
struct Http {
    uri: Vec<u8>,
    req: Vec<u8>,
    resp: Vec<u8>,
    word: &'static str,
}

/// A GET of a file of a real type, answered with its bytes.
fn http(g: &mut Gen<'_>) -> Http {
    let size = g.size(30, 1500);
    let (ext, data, word) = super::filekw::file_of(g, size);
    let nd = g.size(2, 6);
    let dir = String::from_utf8_lossy(&g.needle(nd)).into_owned();
    let nn = g.size(3, 8);
    let name = String::from_utf8_lossy(&g.needle(nn)).into_owned();
    let query = if g.chance(0.5) {
        let nq = g.size(2, 6);
        format!("?q={}", String::from_utf8_lossy(&g.needle(nq)))
    } else {
        String::new()
    };
    let uri = format!("/{dir}/{name}.{ext}{query}");
    let req = format!("GET {uri} HTTP/1.1\r\nHost: files.test\r\nUser-Agent: dt\r\n\r\n");
    let mut resp = format!(
        "HTTP/1.1 200 OK\r\nServer: dt\r\nContent-Length: {}\r\n\r\n",
        data.len()
    )
    .into_bytes();
    resp.extend_from_slice(&data);
    Http {
        uri: uri.into_bytes(),
        req: req.into_bytes(),
        resp,
        word,
    }
}

/// A piece of `v` of 3 to 6 bytes: (start, bytes).
fn piece(g: &mut Gen<'_>, v: &[u8]) -> (usize, Vec<u8>) {
    let l = g.size(3, 6).min(v.len());
    let at = g.size(0, v.len() - l);
    (at, v[at..at + l].to_vec())
}

/// `uricontent` options: (form, options as they hit, options as they miss).
fn uricontent(g: &mut Gen<'_>, uri: &[u8]) -> (&'static str, String, String) {
    let (at, p) = piece(g, uri);
    let t = |b: &[u8]| content_text(b);
    let sp = super::bufcond::spoil(&p);
    let form = g.pick(&[
        "plain", "nocase", "offset", "relative", "negated", "fast", "raw", "mixed",
    ]);
    let (h, m) = match form {
        "plain" => (
            format!("uricontent:\"{}\";", t(&p)),
            format!("uricontent:\"{}\";", t(&sp)),
        ),
        "nocase" => (
            format!("uricontent:\"{}\"; nocase;", t(&p.to_ascii_uppercase())),
            format!("uricontent:\"{}\"; nocase;", t(&sp.to_ascii_uppercase())),
        ),
        "offset" => {
            let l = p.len();
            (
                format!("uricontent:\"{}\"; offset:{at}; depth:{l};", t(&p)),
                format!("uricontent:\"{}\"; offset:{}; depth:{l};", t(&p), at + 1),
            )
        }
        "relative" => {
            let (a2, p2) = piece(g, uri);
            let d = a2 as i64 - (at + p.len()) as i64;
            let w = d + p2.len() as i64;
            if w > 0 {
                (
                    format!(
                        "uricontent:\"{}\"; uricontent:\"{}\"; distance:{d}; within:{w};",
                        t(&p),
                        t(&p2)
                    ),
                    format!(
                        "uricontent:\"{}\"; uricontent:\"{}\"; distance:{d}; within:{};",
                        t(&p),
                        t(&p2),
                        w - 1
                    ),
                )
            } else {
                (
                    format!(
                        "uricontent:\"{}\"; uricontent:\"{}\"; distance:{d};",
                        t(&p),
                        t(&p2)
                    ),
                    format!(
                        "uricontent:\"{}\"; uricontent:\"{}\"; distance:{};",
                        t(&p),
                        t(&p2),
                        d + 1
                    ),
                )
            }
        }
        "negated" => (
            format!("uricontent:\"{}\"; uricontent:!\"{}\";", t(&p), t(&sp)),
            format!("uricontent:\"{}\"; uricontent:!\"{}\";", t(&p), t(&p)),
        ),
        "fast" => (
            format!("uricontent:\"{}\"; fast_pattern;", t(&p)),
            format!("uricontent:\"{}\"; fast_pattern;", t(&sp)),
        ),
        "raw" => (
            format!("uricontent:\"{}\"; rawbytes;", t(&p)),
            format!("uricontent:\"{}\"; rawbytes;", t(&sp)),
        ),
        _ => (
            format!("content:\"GET\"; http_method; uricontent:\"{}\";", t(&p)),
            format!("content:\"GET\"; http_method; uricontent:\"{}\";", t(&sp)),
        ),
    };
    (form, h, m)
}

/// `file.magic` options: (form, as they hit, as they miss).
fn file_magic(g: &mut Gen<'_>, word: &str) -> (&'static str, String, String) {
    let w = word.as_bytes();
    let sw = super::bufcond::spoil(w);
    let t = |b: &[u8]| content_text(b);
    let form = g.pick(&["content", "nocase", "startswith", "negated", "fast"]);
    let (h, m) = match form {
        "content" => (
            format!("file.magic; content:\"{}\";", t(w)),
            format!("file.magic; content:\"{}\";", t(&sw)),
        ),
        "nocase" => (
            format!(
                "file.magic; content:\"{}\"; nocase;",
                t(&w.to_ascii_lowercase())
            ),
            format!(
                "file.magic; content:\"{}\"; nocase;",
                t(&sw.to_ascii_lowercase())
            ),
        ),
        "startswith" => (
            format!("file.magic; content:\"{}\"; startswith;", t(w)),
            format!("file.magic; content:\"{}\"; startswith;", t(&w[1..])),
        ),
        "negated" => (
            format!("file.magic; content:!\"{}\";", t(&sw)),
            format!("file.magic; content:!\"{}\";", t(w)),
        ),
        _ => (
            format!("file.magic; content:\"{}\"; fast_pattern;", t(w)),
            format!("file.magic; content:\"{}\"; fast_pattern;", t(&sw)),
        ),
    };
    (form, h, m)
}

/// A content condition on frame bytes `v`: a piece anywhere, the start with
/// `startswith`, or a piece at its offset with an exact depth.
fn frame_content(g: &mut Gen<'_>, v: &[u8], hit: bool) -> String {
    let (at, p) = piece(g, v);
    let c = |b: &[u8]| content_text(b);
    let p = if hit { p } else { super::bufcond::spoil(&p) };
    match g.size(0, 2) {
        0 => format!("content:\"{}\";", c(&p)),
        1 => {
            let s = &v[..p.len()];
            let s = if hit {
                s.to_vec()
            } else {
                super::bufcond::spoil(s)
            };
            format!("content:\"{}\"; startswith;", c(&s))
        }
        _ => format!("content:\"{}\"; offset:{at}; depth:{};", c(&p), p.len()),
    }
}

/// An HTTP/1 exchange over TCP port 80 on `f`.
fn http_flow(g: &mut Gen<'_>, f: &mut Flow, h: &Http) {
    session::tcp(g, f, &[(true, h.req.clone()), (false, h.resp.clone())]);
}

fn appkw(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let variant = g.pick(&[
        "uricontent",
        "uricontent",
        "file.magic",
        "file.magic",
        "frame-http",
        "frame-http",
        "frame-tls",
        "frame-dns",
        "frame-bad",
        "tls_store",
        "tls_store",
        "absent",
        "ftp.command",
    ]);
    match variant {
        "tls_store" => {
            let form = g.pick(&["tls", "tls", "tcp", "value"]);
            if form == "tcp" {
                // A plain TCP rule: the keyword makes it a TLS rule.
                let mut s = base("", intent, v6, L4::Tcp, "tcp");
                let n = g.size(4, 30);
                let nd = g.needle(5);
                s.payload = [g.filler(n), nd.clone()].concat();
                let c = if hit { nd } else { super::bufcond::spoil(&nd) };
                s.opts = format!("content:\"{}\"; tls_store;", content_text(&c));
                s.template = "tls_store-tcp".into();
                return s;
            }
            let mut s = (super::tls::TLS.make)(g);
            s.intent = intent;
            s.template = format!("tls_store-{form}-{}", s.template);
            let kw = if form == "value" {
                "tls_store:all;"
            } else {
                "tls_store;"
            };
            if g.chance(0.5) {
                s.opts = format!("{} {kw}", s.opts);
            } else {
                s.opts = format!("{kw} {}", s.opts);
            }
            s
        }
        "frame-tls" => {
            let mut s = (super::tls::TLS.make)(g);
            let record = s.payload.clone();
            s.intent = intent;
            let ty = g.pick(&["tls.pdu", "tls.hdr", "tls.data", "pdu", "hdr", "data"]);
            let bytes: &[u8] = match ty.trim_start_matches("tls.") {
                "pdu" => &record,
                "hdr" => &record[..5.min(record.len())],
                _ => &record[5.min(record.len())..],
            };
            let c = frame_content(g, bytes, hit);
            s.proto = "tls";
            // The client hello is the client's: the rule's header is turned back.
            s.header = None;
            s.opts = format!("frame:{ty}; {c}");
            s.template = format!("frame-tls-{ty}");
            s
        }
        "frame-dns" => {
            let nl = g.size(1, 3);
            let labels: Vec<Vec<u8>> = (0..nl)
                .map(|_| {
                    let n = g.size(2, 10);
                    g.needle(n)
                })
                .collect();
            let id = g.num(1, 65_000) as u16;
            let q = super::dns::message(id, &labels, 1, false);
            let a = super::dns::message(id, &labels, 1, true);
            let mut f = Flow::new(g.index, v6, 53);
            session::udp(&mut f, &[(true, q.clone()), (false, a.clone())]);
            let server = g.chance(0.3);
            let ty = g.pick(&["dns.pdu", "pdu"]);
            let c = frame_content(g, if server { &a } else { &q }, hit);
            let mut s = base(&format!("frame-dns-{ty}"), intent, v6, L4::Udp, "dns");
            s.tweaks.dport = Some(53);
            if server {
                s.header = Some(f.server_to_client_header());
            }
            s.opts = format!("frame:{ty}; {c}");
            s.payload = q;
            s.script = Some(f.frames);
            s
        }
        _ => {
            let h = http(g);
            let mut f = Flow::new(g.index, v6, 80);
            http_flow(g, &mut f, &h);
            let mut s = base(variant, intent, v6, L4::Tcp, "http");
            s.tweaks.dport = Some(80);
            s.payload = h.req.clone();
            let mut server = false;
            let (form, hit_o, miss_o) = match variant {
                "uricontent" => {
                    s.proto = g.pick(&["http", "tcp"]);
                    uricontent(g, &h.uri)
                }
                "file.magic" => {
                    server = true;
                    file_magic(g, h.word)
                }
                "frame-http" => {
                    server = g.chance(0.5);
                    let (ty, v) = if server {
                        (g.pick(&["http1.response", "response"]), &h.resp)
                    } else {
                        (g.pick(&["http1.request", "request"]), &h.req)
                    };
                    s.proto = if ty.contains('.') && g.chance(0.3) {
                        "tcp"
                    } else {
                        "http1"
                    };
                    let c = frame_content(g, v, true);
                    let m = frame_content(g, v, false);
                    (ty, format!("frame:{ty}; {c}"), format!("frame:{ty}; {m}"))
                }
                "frame-bad" => {
                    let o = g.pick(&[
                        "frame:http1.nosuch; content:\"GET\";",
                        "frame:tls.pdu; content:\"GET\";",
                        "frame:dns.pdu; content:\"GET\";",
                        "frame:nosuch.pdu; content:\"GET\";",
                        "frame:pdu; content:\"GET\";",
                        "frame:http1.request;",
                        "frame:http1.request; frame:http1.response; content:\"HTTP\";",
                    ]);
                    s.proto = g.pick(&["http1", "http", "tcp"]);
                    ("bad", o.to_string(), o.to_string())
                }
                "absent" => {
                    let b = g.pick(&[
                        "http.user_agent",
                        "http.cookie",
                        "http.uri",
                        "http.request_body",
                        "file.data",
                        "dns.query",
                        "tls.sni",
                    ]);
                    let a = g.pick(&["absent;", "absent:or_else;", "absent: or_else;"]);
                    let o = format!("{b}; {a}");
                    ("absent", o.clone(), o)
                }
                _ => {
                    let o = g.pick(&[
                        "ftp.command; content:\"GET\";",
                        "ftp.command; content:\"RETR\"; startswith;",
                        "ftp.command; bsize:3;",
                    ]);
                    s.proto = g.pick(&["ftp", "tcp", "http"]);
                    ("ftp", o.to_string(), o.to_string())
                }
            };
            if server {
                s.header = Some(f.server_to_client_header());
            }
            let flow = match (g.size(0, 2), server) {
                (0, _) => "",
                (_, true) => "flow:to_client; ",
                (_, false) => "flow:to_server; ",
            };
            s.opts = format!("{flow}{}", if hit { hit_o } else { miss_o });
            s.template = format!("{variant}-{form}");
            s.script = Some(f.frames);
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_written_and_most_rules_parse() {
        let (cases, ok) = super::super::sample_cases(500, appkw);
        let kinds: std::collections::BTreeSet<String> = cases
            .iter()
            .map(|c| {
                let t = &c.spec.template;
                t.split('-').next().unwrap_or("").to_string()
            })
            .collect();
        for k in [
            "uricontent",
            "file.magic",
            "frame",
            "tls_store",
            "absent",
            "ftp.command",
        ] {
            assert!(kinds.contains(k), "{k} never written: {kinds:?}");
        }
        // `absent`, `ftp.command` and the bad frames are refused by design.
        assert!(ok > 300, "only {ok} of 500 rules parse");
        for c in &cases {
            assert!(c.rule().contains(&format!("sid:{}", c.sid())));
        }
    }

    #[test]
    fn uricontent_offsets_point_at_the_piece() {
        let mut rng = gen::rng::Rng::new(5);
        let mut g = Gen {
            rng: &mut rng,
            index: 1,
        };
        for _ in 0..200 {
            let (form, h, _) = uricontent(&mut g, b"/abc/defgh.txt?q=xyz");
            if form == "offset" {
                let c = h.split('"').nth(1).unwrap();
                let o: usize = h
                    .split("offset:")
                    .nth(1)
                    .unwrap()
                    .split(';')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(&"/abc/defgh.txt?q=xyz"[o..o + c.len()], c);
            }
        }
    }
}

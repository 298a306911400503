//! From a rule to an attack: the HTTP transaction or TCP payload that makes the rule
//! match, built from its content, pcre and buffer options, or the reason it cannot be.

use crate::http::{self, Request, Response};
use crate::rng::Rng;
use crate::solve::{self, Item};
use rules::{
    Action, AppLayerProto, AppProto, BitsCmd, Buffer, LoadedRule, Match, Opt, Protocol,
    ThresholdType,
};
use std::collections::BTreeMap;

/// Which side's data makes the rule alert (the alert lands on the packet that
/// acknowledges that side's data, or on the data packet itself for packet rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Client to server.
    ToServer,
    /// Server to client.
    ToClient,
}

/// What an attack flow carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// An HTTP request and response.
    Http(Request, Response),
    /// Raw TCP bytes each way (each sent in one segment).
    Tcp {
        /// Client to server.
        client: Vec<u8>,
        /// Server to client.
        server: Vec<u8>,
    },
}

/// A rule turned into traffic.
#[derive(Clone, Debug)]
pub struct Attack {
    /// Rule's signature id.
    pub sid: u32,
    /// Rule's generator id.
    pub gid: u32,
    /// Side whose data triggers it.
    pub side: Side,
    /// Whether the rule source is the client (false: the server).
    pub src_is_client: bool,
    /// Whether the client address is from `$HOME_NET` (else external).
    pub client_home: bool,
    /// Whether the server address is from `$HOME_NET`.
    pub server_home: bool,
    /// Server port.
    pub server_port: u16,
    /// Allowed client ports (checked when choosing one).
    pub client_ports: rules::PortSet,
    /// Alerts on the data packet itself (`dsize`, `tcp-pkt`), not on the stream.
    pub packet_level: bool,
    /// A payload content anchored by `offset`, `depth` or `startswith`: like Suricata,
    /// the rule also matches the data packet itself (besides the stream later).
    pub anchored: bool,
    /// A threshold lets it alert once per flow here (`limit`, `both`): only the first
    /// of those alerts is raised.
    pub once: bool,
    /// Traffic.
    pub payload: Payload,
}

/// Client addresses: `$HOME_NET` (10.0.0.0/8) and external (198.18.0.0/15).
pub const CLIENT_PROBES: [std::net::Ipv4Addr; 2] = [
    std::net::Ipv4Addr::new(10, 0, 0, 1),
    std::net::Ipv4Addr::new(198, 18, 0, 1),
];
/// Server addresses: `$HOME_NET` (172.16.0.0/12) and external (100.64.0.0/10).
pub const SERVER_PROBES: [std::net::Ipv4Addr; 2] = [
    std::net::Ipv4Addr::new(172, 16, 0, 1),
    std::net::Ipv4Addr::new(100, 64, 0, 1),
];

impl Attack {
    /// Addresses of the kind the flow will have: (client, server).
    pub fn probe_addrs(&self) -> (std::net::IpAddr, std::net::IpAddr) {
        (
            CLIENT_PROBES[usize::from(!self.client_home)].into(),
            SERVER_PROBES[usize::from(!self.server_home)].into(),
        )
    }
}

const HEADER_BUFFERS: &[(Buffer, &str)] = &[
    (Buffer::HttpUserAgent, "User-Agent"),
    (Buffer::HttpHost, "Host"),
    (Buffer::HttpAccept, "Accept"),
    (Buffer::HttpAcceptEnc, "Accept-Encoding"),
    (Buffer::HttpAcceptLang, "Accept-Language"),
    (Buffer::HttpReferer, "Referer"),
    (Buffer::HttpContentType, "Content-Type"),
    (Buffer::HttpCookie, "Cookie"),
    (Buffer::HttpServer, "Server"),
    (Buffer::HttpLocation, "Location"),
];

fn is_request_buffer(b: Buffer) -> bool {
    matches!(
        b,
        Buffer::HttpUri
            | Buffer::HttpUriRaw
            | Buffer::HttpMethod
            | Buffer::HttpUserAgent
            | Buffer::HttpHost
            | Buffer::HttpAccept
            | Buffer::HttpAcceptEnc
            | Buffer::HttpAcceptLang
            | Buffer::HttpReferer
            | Buffer::HttpCookie
            | Buffer::HttpRequestBody
    )
}

fn is_response_buffer(b: Buffer) -> bool {
    matches!(
        b,
        Buffer::HttpStatCode
            | Buffer::HttpStatMsg
            | Buffer::HttpServer
            | Buffer::HttpLocation
            | Buffer::FileData
            | Buffer::HttpResponseBody
    )
}

fn lower(rng: &mut Rng) -> u8 {
    b"abcdefghijklmnopqrstuvwxyz"[rng.below(26) as usize]
}

fn digit(rng: &mut Rng) -> u8 {
    b'0' + rng.below(10) as u8
}

fn upper(rng: &mut Rng) -> u8 {
    b'A' + rng.below(26) as u8
}

/// Builds the attack for one rule; `Err` is the reason it cannot be synthesized.
pub fn synthesize(lr: &LoadedRule, rng: &mut Rng) -> Result<Attack, String> {
    let r = &lr.rule;
    if !r.enabled {
        return Err("disabled".into());
    }
    if r.action != Action::Alert {
        return Err(format!("action {}", r.action.as_str()));
    }
    let mut to_server = false;
    let mut to_client = false;
    let mut http_proto = false;
    let mut dsize = None;
    let mut once = false;
    let mut only_stream = false;
    for o in &r.options {
        match o {
            Opt::Flow(f) => {
                only_stream |= f.only_stream;
                if f.not_established || f.only_frag {
                    return Err("flow not_established/only_frag".into());
                }
                to_server |= f.to_server;
                to_client |= f.to_client;
            }
            Opt::Flowbits(fb) => match fb.cmd {
                BitsCmd::Set | BitsCmd::Unset | BitsCmd::Toggle | BitsCmd::IsNotSet => {}
                BitsCmd::IsSet => return Err("flowbits isset (needs an earlier rule)".into()),
                BitsCmd::NoAlert => return Err("flowbits noalert".into()),
            },
            Opt::Threshold(t) => match t.kind {
                Some(ThresholdType::Limit) => once = true,
                Some(ThresholdType::Both) if t.count <= 1 => once = true,
                Some(ThresholdType::Threshold) if t.count <= 1 => {}
                _ => return Err("threshold needs several events".into()),
            },
            Opt::AppLayerProtocol {
                negated: false,
                proto: AppLayerProto::Known(AppProto::Http | AppProto::Http1),
                ..
            } => http_proto = true,
            Opt::Dsize(c) => dsize = Some(*c),
            Opt::Tag(_) => {}
            Opt::NoAlert => return Err("noalert".into()),
            Opt::Keyword { name, .. } => return Err(format!("keyword {name}")),
            other => return Err(format!("option {}", opt_name(other))),
        }
    }
    match r.header.protocol {
        Protocol::Tcp | Protocol::TcpPkt => {}
        Protocol::App(AppProto::Http | AppProto::Http1) => http_proto = true,
        p => return Err(format!("protocol {}", p.name())),
    }
    if to_server && to_client {
        return Err("flow to_server and to_client".into());
    }
    let mut by_buffer: BTreeMap<usize, (Buffer, Vec<&Match>)> = BTreeMap::new();
    for bm in &r.buffers {
        if !bm.transforms.is_empty() {
            return Err(format!("transform on {}", bm.buffer.name()));
        }
        let idx = Buffer::ALL
            .iter()
            .position(|b| *b == bm.buffer)
            .unwrap_or(usize::MAX);
        by_buffer
            .entry(idx)
            .or_insert((bm.buffer, Vec::new()))
            .1
            .extend(bm.matches.iter());
    }
    let buffers: Vec<(Buffer, Vec<Match>)> = by_buffer
        .into_values()
        .map(|(b, ms)| (b, ms.into_iter().cloned().collect()))
        .collect();
    if buffers.is_empty() {
        return Err("no payload options".into());
    }
    let has_payload = buffers.iter().any(|(b, _)| *b == Buffer::Payload);
    let has_http = buffers.iter().any(|(b, _)| *b != Buffer::Payload);
    if has_payload && (has_http || http_proto) {
        return Err("payload content in an HTTP rule".into());
    }
    if dsize.is_some() && !has_payload {
        return Err("dsize without payload content".into());
    }
    let (side, payload) = if has_payload {
        let side = if to_client {
            Side::ToClient
        } else {
            Side::ToServer
        };
        let mut ms = buffers[0].1.clone();
        if let Some(c) = dsize {
            ms.push(Match::Bsize(c));
        }
        let items = solve::items(&ms, b"")?;
        let bytes = solve::build(&items, &[], rng, &lower)?;
        if bytes.is_empty() || bytes.len() > 1460 {
            return Err("payload length outside 1..1460".into());
        }
        let payload = match side {
            Side::ToServer => Payload::Tcp {
                client: bytes,
                server: Vec::new(),
            },
            Side::ToClient => Payload::Tcp {
                client: Vec::new(),
                server: bytes,
            },
        };
        (side, payload)
    } else {
        http_attack(&buffers, to_server, to_client, rng)?
    };
    let src_is_client = side == Side::ToServer;
    let (client_ports, server_ports) = if src_is_client {
        (&lr.src_ports, &lr.dst_ports)
    } else {
        (&lr.dst_ports, &lr.src_ports)
    };
    let server_port = [80u16, 8080, 443, 25, 21, 445]
        .into_iter()
        .chain(1..=65535)
        .find(|p| {
            server_ports.contains(*p) && (has_payload || *p == 80 || !server_ports.contains(80))
        })
        .ok_or("no server port")?;
    if !has_payload && server_port != 80 {
        return Err("HTTP rule that excludes port 80".into());
    }
    if !(49152..=65535).any(|p| client_ports.contains(p)) {
        return Err("client port outside 49152..65535".into());
    }
    let (src_set, dst_set) = (&lr.src_addrs, &lr.dst_addrs);
    let addr = |is_src: bool, home: bool| -> std::net::IpAddr {
        let client = is_src == src_is_client;
        let probes = if client { CLIENT_PROBES } else { SERVER_PROBES };
        probes[usize::from(!home)].into()
    };
    let combos = [(true, false), (false, true), (true, true), (false, false)];
    let (src_home, dst_home) = combos
        .into_iter()
        .find(|&(s, d)| src_set.contains(addr(true, s)) && dst_set.contains(addr(false, d)))
        .ok_or("addresses outside the generator's home and external networks")?;
    let packet_level = has_payload && (dsize.is_some() || r.header.protocol == Protocol::TcpPkt);
    let (client_home, server_home) = if src_is_client {
        (src_home, dst_home)
    } else {
        (dst_home, src_home)
    };
    Ok(Attack {
        sid: r.meta.sid,
        gid: r.meta.gid,
        side,
        src_is_client,
        client_home,
        server_home,
        server_port,
        client_ports: client_ports.clone(),
        packet_level,
        anchored: has_payload
            && !packet_level
            && !only_stream
            && buffers[0].1.iter().any(|m| {
                matches!(m, Match::Content(c) if c.offset.is_some() || c.depth.is_some() || c.startswith)
            }),
        once,
        payload,
    })
}

fn opt_name(o: &Opt) -> String {
    let s = format!("{o:?}");
    s.split(['(', ' ', '{'])
        .next()
        .unwrap_or("?")
        .to_ascii_lowercase()
}

fn is_uri_ok(u: &[u8]) -> bool {
    let w = |n: &[u8]| u.windows(n.len()).any(|x| x == n);
    u.first() == Some(&b'/')
        && u.iter()
            .all(|&b| (0x21..0x7f).contains(&b) && !b"%#\\".contains(&b))
        && !w(b"/./")
        && !w(b"/../")
        && !w(b"//")
        && !u.ends_with(b"/.")
        && !u.ends_with(b"/..")
}

fn http_attack(
    buffers: &[(Buffer, Vec<Match>)],
    to_server: bool,
    to_client: bool,
    rng: &mut Rng,
) -> Result<(Side, Payload), String> {
    let any_resp = buffers.iter().any(|(b, _)| is_response_buffer(*b));
    let any_req = buffers.iter().any(|(b, _)| is_request_buffer(*b));
    if any_resp && (any_req || to_server) || (any_req && to_client) {
        return Err("request and response buffers together".into());
    }
    let side = if any_resp || to_client {
        Side::ToClient
    } else {
        Side::ToServer
    };
    let mut req = default_request(rng);
    let mut resp = default_response(rng);
    let mut checks: Vec<(Buffer, Vec<Item>)> = Vec::new();
    let mut uri_set = false;
    for (b, ms) in buffers {
        let b = *b;
        let items = solve::items(ms, b" \r\n")?;
        match b {
            Buffer::HttpUri | Buffer::HttpUriRaw => {
                if uri_set {
                    return Err("http.uri and http.uri.raw together".into());
                }
                uri_set = true;
                let u = solve::build(&items, &[(0, b'/')], rng, &lower)?;
                if !is_uri_ok(&u) {
                    return Err("URI bytes the normalizer would change".into());
                }
                req.uri = u;
            }
            Buffer::HttpMethod => {
                let m = solve::build(&items, &[], rng, &upper)?;
                if m.is_empty() || !m.iter().all(u8::is_ascii_alphabetic) || m == b"CONNECT" {
                    return Err("method not a plain token".into());
                }
                req.method = m;
            }
            Buffer::HttpRequestBody => {
                req.body = solve::build(&items, &[], rng, &lower)?;
                if req.body.is_empty() {
                    return Err("empty request body".into());
                }
            }
            Buffer::FileData | Buffer::HttpResponseBody => {
                resp.body = solve::build(&items, &[], rng, &lower)?;
            }
            Buffer::HttpStatCode => {
                let s = solve::build(&items, &[], rng, &digit)?;
                let ok = s.len() == 3
                    && s.iter().all(u8::is_ascii_digit)
                    && (b'2'..=b'5').contains(&s[0])
                    && s != b"204"
                    && s != b"304";
                if !ok {
                    return Err("status code not a 2xx-5xx with a body".into());
                }
                resp.status = s;
            }
            Buffer::HttpStatMsg => {
                let s = solve::build(&items, &[], rng, &lower)?;
                if !http::value_ok(&s) {
                    return Err("status message not a plain value".into());
                }
                resp.reason = s;
            }
            Buffer::HttpHeader => {
                if items.iter().any(|i| {
                    matches!(i, Item::Content { relative: false, offset, depth, startswith, .. }
                        if *offset != 0 || depth.is_some() || *startswith)
                }) {
                    return Err("absolute position in http.header".into());
                }
                let h = solve::build(&items, &[], rng, &lower)?;
                let mut block = b"X-Gen: 1".to_vec();
                block.extend_from_slice(&h);
                let lines = http::parse_header_lines(&block)
                    .ok_or("http.header bytes do not form header lines")?;
                let target = if side == Side::ToServer {
                    &mut req.headers
                } else {
                    &mut resp.headers
                };
                for (n, _) in &lines {
                    let lname = n.to_ascii_lowercase();
                    if lname == b"content-length"
                        || lname == b"transfer-encoding"
                        || lname == b"content-encoding"
                    {
                        return Err("http.header sets the body framing".into());
                    }
                    if HEADER_BUFFERS.iter().any(|(hb, hn)| {
                        hn.as_bytes().eq_ignore_ascii_case(n)
                            && buffers.iter().any(|(x, _)| x == hb)
                    }) {
                        return Err("header constrained by http.header and its own buffer".into());
                    }
                    target.retain(|(m, _)| !m.eq_ignore_ascii_case(n));
                }
                target.extend(lines);
            }
            _ => {
                let Some((_, name)) = HEADER_BUFFERS.iter().find(|(hb, _)| *hb == b) else {
                    return Err(format!("buffer {}", b.name()));
                };
                let v = solve::build(&items, &[], rng, &lower)?;
                if !http::value_ok(&v) {
                    return Err(format!("{} value with CR/LF or edge whitespace", b.name()));
                }
                if b == Buffer::HttpHost && (v.iter().any(|c| c.is_ascii_uppercase() || *c == b':'))
                {
                    return Err("http.host with uppercase or port".into());
                }
                // The normalized host loses trailing dots: give it a last label.
                let v = if b == Buffer::HttpHost && v.ends_with(b".") {
                    [v.as_slice(), b"com"].concat()
                } else {
                    v
                };
                let target = if is_response_buffer(b)
                    || (b == Buffer::HttpContentType && side == Side::ToClient)
                {
                    &mut resp.headers
                } else {
                    &mut req.headers
                };
                target.retain(|(m, _)| !m.eq_ignore_ascii_case(name.as_bytes()));
                target.push((name.as_bytes().to_vec(), v));
            }
        }
        checks.push((b, items));
    }
    if !req.body.is_empty() && req.method == b"GET" {
        req.method = b"POST".to_vec();
    }
    if req.method == b"HEAD" && !resp.body.is_empty() {
        return Err("HEAD request with a response body".into());
    }
    for (b, items) in &checks {
        let buf = buffer_of(*b, side, &req, &resp).ok_or("buffer missing after assembly")?;
        if !solve::check(items, &buf) {
            return Err(format!("{} changed by assembly", b.name()));
        }
    }
    Ok((side, Payload::Http(req, resp)))
}

/// The bytes of an HTTP inspection buffer as the engine sees them.
pub fn buffer_of(b: Buffer, side: Side, req: &Request, resp: &Response) -> Option<Vec<u8>> {
    Some(match b {
        Buffer::HttpUri | Buffer::HttpUriRaw => req.uri.clone(),
        Buffer::HttpMethod => req.method.clone(),
        Buffer::HttpRequestBody => req.body.clone(),
        Buffer::FileData | Buffer::HttpResponseBody => resp.body.clone(),
        Buffer::HttpStatCode => resp.status.clone(),
        Buffer::HttpStatMsg => resp.reason.clone(),
        Buffer::HttpHeader => match side {
            Side::ToServer => req.header_buffer(),
            Side::ToClient => resp.header_buffer(),
        },
        _ => {
            let (_, name) = HEADER_BUFFERS.iter().find(|(hb, _)| *hb == b)?;
            let v = if is_response_buffer(b)
                || (b == Buffer::HttpContentType && side == Side::ToClient)
            {
                resp.header(name.as_bytes())
            } else {
                req.header(name.as_bytes())
            };
            v?.to_vec()
        }
    })
}

const USER_AGENTS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
];

const WORDS: &[&str] = &[
    "index", "news", "about", "products", "search", "images", "static", "blog", "article", "help",
    "docs", "shop",
];

/// A benign request (GET of a page on a `.example` host).
pub fn default_request(rng: &mut Rng) -> Request {
    let w = *rng.pick(WORDS);
    let uri = format!("/{}/{}{}.html", w, rng.pick(WORDS), rng.below(1000));
    let host = format!("www.{}{}.example", rng.pick(WORDS), rng.below(100));
    Request {
        method: b"GET".to_vec(),
        uri: uri.into_bytes(),
        headers: vec![
            (b"Host".to_vec(), host.into_bytes()),
            (
                b"User-Agent".to_vec(),
                rng.pick(USER_AGENTS).as_bytes().to_vec(),
            ),
            (
                b"Accept".to_vec(),
                b"text/html,application/xhtml+xml".to_vec(),
            ),
            (b"Accept-Language".to_vec(), b"en-US,en;q=0.5".to_vec()),
            (b"Connection".to_vec(), b"keep-alive".to_vec()),
        ],
        body: Vec::new(),
    }
}

/// A benign `200 OK` response with a short HTML body.
pub fn default_response(rng: &mut Rng) -> Response {
    Response {
        status: b"200".to_vec(),
        reason: b"OK".to_vec(),
        headers: vec![
            (b"Server".to_vec(), b"nginx".to_vec()),
            (
                b"Content-Type".to_vec(),
                b"text/html; charset=utf-8".to_vec(),
            ),
        ],
        body: crate::payload::text(rng, 64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(rule: &str) -> LoadedRule {
        let (set, diags) = rules::RuleSet::load_str(
            rule,
            None,
            &rules::Vars::suricata_default(),
            &Default::default(),
        );
        assert!(set.rules.len() == 1, "{diags:?}");
        set.rules[0].clone()
    }

    #[test]
    fn http_uri_and_user_agent() {
        let lr = load(
            "alert http $HOME_NET any -> $EXTERNAL_NET any (msg:\"x\"; flow:established,to_server; \
             http.method; content:\"POST\"; http.uri; content:\"/gate.php\"; startswith; \
             http.user_agent; content:\"EvilBot/\"; pcre:\"/^EvilBot\\/\\d\\.\\d$/\"; sid:1;)",
        );
        let a = synthesize(&lr, &mut Rng::new(1)).unwrap();
        let Payload::Http(req, _) = &a.payload else {
            panic!()
        };
        assert_eq!(req.method, b"POST");
        assert!(req.uri.starts_with(b"/gate.php"));
        assert_eq!(req.header(b"user-agent"), Some(&b"EvilBot/0.0"[..]));
        assert!(a.client_home && !a.server_home && a.src_is_client);
        assert_eq!(a.server_port, 80);
    }

    #[test]
    fn header_lines_from_http_header() {
        let lr = load(
            "alert http any any -> any any (msg:\"x\"; flow:to_server; http.header; \
             content:\"|0d 0a|X-Evil|3a 20|yes|0d 0a|\"; sid:2;)",
        );
        let a = synthesize(&lr, &mut Rng::new(1)).unwrap();
        let Payload::Http(req, _) = &a.payload else {
            panic!()
        };
        assert_eq!(req.header(b"x-evil"), Some(&b"yes"[..]));
    }

    #[test]
    fn tcp_payload_with_positions() {
        let lr = load(
            "alert tcp $EXTERNAL_NET any -> $HOME_NET 4444 (msg:\"x\"; flow:to_server; \
             content:\"|de ad|\"; depth:2; content:\"beef\"; distance:3; within:4; dsize:<20; sid:3;)",
        );
        let a = synthesize(&lr, &mut Rng::new(1)).unwrap();
        let Payload::Tcp { client, .. } = &a.payload else {
            panic!()
        };
        assert_eq!(&client[..2], b"\xde\xad");
        assert_eq!(&client[5..9], b"beef");
        assert_eq!(a.server_port, 4444);
        assert!(!a.client_home && a.server_home);
    }

    #[test]
    fn reasons_for_refusal() {
        let r = |s: &str| synthesize(&load(s), &mut Rng::new(1)).unwrap_err();
        assert!(r(
            "alert tcp any any -> any any (msg:\"x\"; flowbits:isset,a; content:\"a\"; sid:4;)"
        )
        .contains("isset"));
        assert!(r(
            "alert tcp any any -> any any (msg:\"x\"; content:\"a\"; byte_test:1,>,2,0; sid:5;)"
        )
        .contains("byte_test"));
        assert!(
            r("alert udp any any -> any any (msg:\"x\"; content:\"a\"; sid:6;)").contains("udp")
        );
    }
}

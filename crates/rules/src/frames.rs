//! Application-layer frames (Suricata 7's `frame` keyword): the frame types each
//! protocol's parser marks in its stream, and the reading of `frame:<proto>.<type>` /
//! `frame:<type>` against the rule's protocol, with the checks Suricata 7.0.10 makes
//! (measured by loading rules into it: unknown types, a protocol that differs from the
//! header's, the short form without an application protocol, a transport the frame
//! type is not registered for).

use crate::ast::{AppProto, Opt, Protocol};
use crate::buffers::Buffer;
use crate::diag::{Diagnostic, Reason};
use crate::keywords::Ctx;
use crate::parser::state::{State, Sticky};

/// One frame type: an index into [`FRAME_TYPES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FrameType(pub u8);

/// The transports a frame type is registered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameTransport {
    /// Stream protocols only.
    Tcp,
    /// Datagrams only.
    Udp,
    /// Both.
    Both,
}

/// The frame types of Suricata 7.0.10: protocol, type name, `proto.type`, transport.
/// `stream` (every TCP application protocol's whole stream) is not listed here: see
/// [`FrameType::stream`].
pub const FRAME_TYPES: &[(AppProto, &str, &str, FrameTransport)] = {
    use AppProto as P;
    use FrameTransport::{Both, Tcp, Udp};
    &[
        (P::Tls, "pdu", "tls.pdu", Tcp),
        (P::Tls, "hdr", "tls.hdr", Tcp),
        (P::Tls, "data", "tls.data", Tcp),
        (P::Tls, "alert", "tls.alert", Tcp),
        (P::Tls, "heartbeat", "tls.heartbeat", Tcp),
        (P::Dns, "pdu", "dns.pdu", Both),
        (P::Http1, "request", "http1.request", Tcp),
        (P::Http1, "response", "http1.response", Tcp),
        (P::Smb, "nbss.pdu", "smb.nbss.pdu", Tcp),
        (P::Smb, "nbss.hdr", "smb.nbss.hdr", Tcp),
        (P::Smb, "nbss.data", "smb.nbss.data", Tcp),
        (P::Smb, "smb1.pdu", "smb.smb1.pdu", Tcp),
        (P::Smb, "smb1.hdr", "smb.smb1.hdr", Tcp),
        (P::Smb, "smb1.data", "smb.smb1.data", Tcp),
        (P::Smb, "smb2.pdu", "smb.smb2.pdu", Tcp),
        (P::Smb, "smb2.hdr", "smb.smb2.hdr", Tcp),
        (P::Smb, "smb2.data", "smb.smb2.data", Tcp),
        (P::Smb, "smb3.pdu", "smb.smb3.pdu", Tcp),
        (P::Smb, "smb3.hdr", "smb.smb3.hdr", Tcp),
        (P::Smb, "smb3.data", "smb.smb3.data", Tcp),
        (P::Sip, "pdu", "sip.pdu", Udp),
        (P::Sip, "request.line", "sip.request.line", Udp),
        (P::Sip, "request.headers", "sip.request.headers", Udp),
        (P::Sip, "request.body", "sip.request.body", Udp),
        (P::Sip, "response.line", "sip.response.line", Udp),
        (P::Sip, "response.headers", "sip.response.headers", Udp),
        (P::Sip, "response.body", "sip.response.body", Udp),
        (P::Mqtt, "pdu", "mqtt.pdu", Tcp),
        (P::Mqtt, "header", "mqtt.header", Tcp),
        (P::Mqtt, "data", "mqtt.data", Tcp),
        (P::Nfs, "rpc.pdu", "nfs.rpc.pdu", Both),
        (P::Nfs, "rpc.hdr", "nfs.rpc.hdr", Both),
        (P::Nfs, "rpc.data", "nfs.rpc.data", Both),
        (P::Nfs, "rpc.creds", "nfs.rpc.creds", Both),
        (P::Nfs, "nfs.pdu", "nfs.nfs.pdu", Both),
        (P::Nfs, "nfs.status", "nfs.nfs.status", Both),
        (P::Rfb, "pdu", "rfb.pdu", Tcp),
        (P::Telnet, "pdu", "telnet.pdu", Tcp),
        (P::Telnet, "ctl", "telnet.ctl", Tcp),
        (P::Telnet, "data", "telnet.data", Tcp),
    ]
};

/// Protocols Suricata's stock configuration does not enable: a rule naming one is
/// refused ("disabled alproto"), frames included.
const DISABLED: &[AppProto] = &[
    AppProto::Modbus,
    AppProto::Dnp3,
    AppProto::Enip,
    AppProto::Pgsql,
];

/// Protocols Suricata 7.0.10 has no parser for: their names are not protocols to the
/// `frame` keyword.
const NO_PARSER: &[AppProto] = &[
    AppProto::Imap,
    AppProto::Pop3,
    AppProto::Cip,
    AppProto::Websocket,
    AppProto::Ldap,
    AppProto::Template,
    AppProto::Irc,
    AppProto::Jabber,
    AppProto::Msn,
    AppProto::Failed,
];

/// The first index after [`FRAME_TYPES`]: `stream` frames are `STREAM_BASE + proto`.
const STREAM_BASE: usize = 128;

/// Every application protocol, for the `stream` frames' names (in `AppProto` order).
const ALL_PROTOS: &[AppProto] = {
    use AppProto as P;
    &[
        P::Http,
        P::Http1,
        P::Http2,
        P::Ftp,
        P::FtpData,
        P::Smb,
        P::Dcerpc,
        P::Dns,
        P::Tls,
        P::Ssh,
        P::Smtp,
        P::Imap,
        P::Pop3,
        P::Modbus,
        P::Dnp3,
        P::Enip,
        P::Cip,
        P::Nfs,
        P::Ike,
        P::Krb5,
        P::Ntp,
        P::Dhcp,
        P::Snmp,
        P::Sip,
        P::Rfb,
        P::Mqtt,
        P::Rdp,
        P::Quic,
        P::BittorrentDht,
        P::Telnet,
        P::Tftp,
        P::Pgsql,
        P::Websocket,
        P::Ldap,
        P::Template,
        P::Irc,
        P::Jabber,
        P::Msn,
        P::Failed,
    ]
};

/// `<proto>.stream` names, as [`ALL_PROTOS`].
const STREAM_NAMES: &[&str] = &[
    "http.stream",
    "http1.stream",
    "http2.stream",
    "ftp.stream",
    "ftp-data.stream",
    "smb.stream",
    "dcerpc.stream",
    "dns.stream",
    "tls.stream",
    "ssh.stream",
    "smtp.stream",
    "imap.stream",
    "pop3.stream",
    "modbus.stream",
    "dnp3.stream",
    "enip.stream",
    "cip.stream",
    "nfs.stream",
    "ike.stream",
    "krb5.stream",
    "ntp.stream",
    "dhcp.stream",
    "snmp.stream",
    "sip.stream",
    "rfb.stream",
    "mqtt.stream",
    "rdp.stream",
    "quic.stream",
    "bittorrent-dht.stream",
    "telnet.stream",
    "tftp.stream",
    "pgsql.stream",
    "websocket.stream",
    "ldap.stream",
    "template.stream",
    "irc.stream",
    "jabber.stream",
    "msn.stream",
    "failed.stream",
];

impl FrameType {
    /// The `stream` frame of `proto` (the whole TCP stream of one direction).
    pub fn stream(proto: AppProto) -> FrameType {
        let i = ALL_PROTOS.iter().position(|p| *p == proto).unwrap_or(0);
        FrameType((STREAM_BASE + i) as u8)
    }

    /// The protocol the frame belongs to.
    pub fn proto(self) -> AppProto {
        match self.0 as usize {
            i if i >= STREAM_BASE => ALL_PROTOS[(i - STREAM_BASE).min(ALL_PROTOS.len() - 1)],
            i => FRAME_TYPES[i.min(FRAME_TYPES.len() - 1)].0,
        }
    }

    /// The type's name within its protocol (`pdu`, `nbss.hdr`, `stream` ...).
    pub fn type_name(self) -> &'static str {
        match self.0 as usize {
            i if i >= STREAM_BASE => "stream",
            i => FRAME_TYPES[i.min(FRAME_TYPES.len() - 1)].1,
        }
    }

    /// `proto.type`, as rules and `--engine-analysis` name it.
    pub fn name(self) -> &'static str {
        match self.0 as usize {
            i if i >= STREAM_BASE => STREAM_NAMES[(i - STREAM_BASE).min(STREAM_NAMES.len() - 1)],
            i => FRAME_TYPES[i.min(FRAME_TYPES.len() - 1)].2,
        }
    }

    /// Whether this is a `<proto>.stream` frame.
    pub fn is_stream(self) -> bool {
        self.0 as usize >= STREAM_BASE
    }

    /// The frame type `name` of `proto` (`pdu`, `smb2.hdr`, `stream`).
    pub fn lookup(proto: AppProto, name: &str) -> Option<FrameType> {
        if name == "stream" {
            return Some(FrameType::stream(proto));
        }
        FRAME_TYPES
            .iter()
            .position(|(p, n, _, _)| *p == proto && *n == name)
            .map(|i| FrameType(i as u8))
    }

    /// Whether the type is registered for the header's transport (`tcp`-like, `udp`,
    /// or any for `ip` and application-protocol headers).
    fn fits(self, header: Protocol) -> bool {
        let t = if self.is_stream() {
            FrameTransport::Tcp
        } else {
            FRAME_TYPES[self.0 as usize].3
        };
        match header {
            Protocol::Tcp | Protocol::TcpPkt | Protocol::TcpStream => t != FrameTransport::Udp,
            Protocol::Udp => t != FrameTransport::Tcp,
            _ => true,
        }
    }
}

/// The rule's application protocol as the `frame` keyword sees it: `http` rules are
/// HTTP/1 and HTTP/2, whose frames are HTTP/1's.
fn header_app(header: Option<Protocol>) -> Option<AppProto> {
    match header {
        Some(Protocol::App(a)) => Some(a),
        _ => None,
    }
}

/// A protocol name the `frame` keyword knows (the prefix of `proto.type`).
fn frame_proto(name: &str) -> Option<AppProto> {
    AppProto::parse(name).filter(|p| {
        // `ssl` and `ikev2` are header aliases, not protocol names.
        !NO_PARSER.contains(p) && p.name() == name
    })
}

/// Reads the value of `frame:` for a rule whose header protocol is `header`; the
/// message is Suricata's reason for refusing it.
pub fn parse(value: &str, header: Option<Protocol>) -> Result<FrameType, String> {
    let v = value.trim();
    if v.is_empty() || v.starts_with('"') {
        return Err(if v.starts_with('"') {
            "quotes on frame keyword that doesn't support them".into()
        } else {
            "invalid formatting or malformed option to frame keyword".into()
        });
    }
    let rule = header_app(header);
    let (proto, name) = match v
        .split_once('.')
        .and_then(|(p, n)| Some((frame_proto(p)?, n)))
    {
        Some((p, n)) => match rule {
            Some(r) if r != p && !(r == AppProto::Http && p == AppProto::Http1) => {
                return Err(format!(
                    "frame '{v}' protocol '{}' mismatch with rule protocol '{}'",
                    p.name(),
                    r.name()
                ))
            }
            _ => (p, n),
        },
        None => match rule {
            Some(r) if !NO_PARSER.contains(&r) => (r, v),
            _ => {
                return Err(format!(
                    "rule protocol unknown, can't use shorthand notation for frame '{v}'"
                ))
            }
        },
    };
    if DISABLED.contains(&proto) {
        return Err(format!(
            "disabled alproto {}, rule can never match",
            proto.name()
        ));
    }
    match FrameType::lookup(proto, name) {
        Some(t) if header.is_none_or(|h| t.fits(h)) => Ok(t),
        _ => Err(format!(
            "unknown frame '{name}' for protocol '{}'",
            proto.name()
        )),
    }
}

/// `frame:<proto>.<type>`: selects the frame's bytes as the sticky buffer.
pub(crate) fn keyword(st: &mut State, c: &Ctx<'_>) {
    let off = c.o.value_off;
    let Some(v) = c.o.value else {
        st.err(
            c.o.name_off,
            Reason::InvalidValue,
            c.kw,
            "invalid formatting or malformed option to frame keyword: 'frame'",
        );
        return;
    };
    let t = match parse(v, st.header) {
        Ok(t) => t,
        Err(m) => return st.err(off, Reason::InvalidValue, c.kw, m),
    };
    if st.sticky.as_ref().is_some_and(|s| s.block.is_none()) {
        return st.err(
            c.o.name_off,
            Reason::Semantic,
            c.kw,
            "previous sticky buffer has no matches",
        );
    }
    // A second instance of the same frame (Suricata warns and keeps both): its own
    // block, which the detection engine refuses as unsupported.
    let block = st
        .blocks
        .iter()
        .any(|b| b.buffer == Buffer::Frame(t) && !b.matches.is_empty())
        .then(|| {
            st.blocks.push(crate::ast::BufferMatches {
                buffer: Buffer::Frame(t),
                transforms: Vec::new(),
                matches: Vec::new(),
            });
            st.blocks.len() - 1
        });
    st.sticky = Some(Sticky {
        buffer: Buffer::Frame(t),
        transforms: Vec::new(),
        block,
    });
}

/// Checks once every option is read: a frame buffer with no match, frames mixed with
/// payload, app-layer buffers or `dsize` (each refused by Suricata 7.0.10).
pub(crate) fn finish(st: &mut State, end: usize) {
    let frame = |b: &Buffer| matches!(b, Buffer::Frame(_));
    let mut errs: Vec<String> = Vec::new();
    if let Some(s) = st
        .sticky
        .as_ref()
        .filter(|s| frame(&s.buffer) && s.block.is_none())
    {
        errs.push(format!(
            "setup buffer {} but didn't add matches to it",
            s.buffer.name()
        ));
    }
    let used = |b: &crate::ast::BufferMatches| !b.matches.is_empty();
    if st.blocks.iter().any(|b| frame(&b.buffer) && used(b)) {
        if st
            .blocks
            .iter()
            .any(|b| b.buffer == Buffer::Payload && used(b))
        {
            errs.push("can't mix pure content and frame inspection".into());
        } else if st.blocks.iter().any(|b| !frame(&b.buffer) && used(b)) {
            errs.push("can't mix app-layer buffer and frame inspection".into());
        } else if st.options.iter().any(|o| matches!(o, Opt::Dsize(_))) {
            errs.push(
                "signature combines packet specific matches (like dsize) with frame matching"
                    .into(),
            );
        }
    }
    for m in errs {
        st.diags
            .push((end, Diagnostic::error(Reason::Semantic, Some("frame"), m)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &str, h: &str) -> Result<&'static str, String> {
        parse(v, Protocol::parse(h)).map(FrameType::name)
    }

    #[test]
    fn names_round_trip() {
        for i in 0..FRAME_TYPES.len() {
            let t = FrameType(i as u8);
            assert_eq!(FrameType::lookup(t.proto(), t.type_name()), Some(t));
        }
        assert_eq!(ALL_PROTOS.len(), STREAM_NAMES.len());
        for (i, a) in ALL_PROTOS.iter().enumerate() {
            let t = FrameType::stream(*a);
            assert_eq!(t.proto(), *a);
            assert_eq!(t.name(), STREAM_NAMES[i]);
            assert_eq!(t.name(), format!("{}.stream", a.name()));
        }
    }

    /// Accepted and refused as Suricata 7.0.10 does (`suricata -T` on the same rules).
    #[test]
    fn as_suricata() {
        assert_eq!(p("tls.pdu", "tls"), Ok("tls.pdu"));
        assert_eq!(p("pdu", "tls"), Ok("tls.pdu"));
        assert_eq!(p(" tls.pdu ", "tcp"), Ok("tls.pdu"));
        assert_eq!(p("smb2.hdr", "smb"), Ok("smb.smb2.hdr"));
        assert_eq!(p("smb.nbss.pdu", "ip"), Ok("smb.nbss.pdu"));
        assert_eq!(p("http1.request", "http"), Ok("http1.request"));
        assert_eq!(p("request", "http1"), Ok("http1.request"));
        assert_eq!(p("dns.pdu", "udp"), Ok("dns.pdu"));
        assert_eq!(p("dns.pdu", "tcp"), Ok("dns.pdu"));
        assert_eq!(p("dns.stream", "ip"), Ok("dns.stream"));
        assert_eq!(p("snmp.stream", "tcp"), Ok("snmp.stream"));
        assert_eq!(p("sip.pdu", "udp"), Ok("sip.pdu"));
        let refused = [
            ("pdu", "tcp", "shorthand"),
            ("tcp.stream", "tcp", "shorthand"),
            ("ssl.pdu", "tcp", "shorthand"),
            ("failed.stream", "tcp", "shorthand"),
            ("request", "http", "unknown frame"),
            ("dns.stream", "udp", "unknown frame"),
            ("tls.pdu", "udp", "unknown frame"),
            ("sip.pdu", "tcp", "unknown frame"),
            ("tls.sslv2.hdr", "tls", "unknown frame"),
            ("TLS.PDU", "tls", "unknown frame"),
            ("tls.", "tls", "unknown frame"),
            (".pdu", "tls", "unknown frame"),
            ("dns.pdu", "tls", "mismatch"),
            ("modbus.stream", "tcp", "disabled"),
            ("\"tls.pdu\"", "tls", "quotes"),
            ("", "tls", "malformed"),
        ];
        for (v, h, why) in refused {
            let e = p(v, h).expect_err(v);
            assert!(e.contains(why), "{v} in {h}: {e}");
        }
    }
}

#[cfg(test)]
mod rule_tests {
    use crate::{parse_rule, Buffer};

    fn refused(body: &str) -> String {
        let r = parse_rule(&format!("alert tls any any -> any any ({body} sid:1;)"));
        let e = r.expect_err(body);
        e.iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    }

    #[test]
    fn frame_is_a_sticky_buffer() {
        let r = parse_rule(
            "alert tcp any any -> any any (frame:tls.pdu; content:\"|16|\"; startswith; \
             frame:tls.hdr; content:\"|03|\"; sid:1;)",
        )
        .unwrap();
        let names: Vec<&str> = r.buffers.iter().map(|b| b.buffer.name()).collect();
        assert_eq!(names, ["tls.pdu", "tls.hdr"]);
        assert!(matches!(r.buffers[0].buffer, Buffer::Frame(_)));
        // A second instance of one frame is a block of its own (Suricata warns).
        let r = parse_rule(
            "alert tls any any -> any any (frame:tls.pdu; content:\"a\"; \
             frame:tls.pdu; content:\"b\"; sid:1;)",
        )
        .unwrap();
        assert_eq!(r.buffers.len(), 2);
    }

    /// Refused as Suricata 7.0.10 refuses them.
    #[test]
    fn mixes_refused() {
        assert!(refused("frame:tls.pdu;").contains("didn't add matches"));
        assert!(refused("frame:tls.pdu; frame:tls.hdr; content:\"a\";").contains("no matches"));
        assert!(refused("content:\"a\"; frame:tls.pdu; content:\"a\";").contains("pure content"));
        assert!(
            refused("frame:tls.pdu; content:\"a\"; pkt_data; content:\"b\";")
                .contains("pure content")
        );
        assert!(
            refused("frame:tls.pdu; content:\"a\"; tls.sni; content:\"b\";")
                .contains("app-layer buffer")
        );
        assert!(refused("frame:tls.pdu; content:\"a\"; dsize:>2;").contains("dsize"));
        assert!(refused("frame:dns.pdu; content:\"a\";").contains("mismatch"));
    }
}

#[cfg(test)]
mod print_tests {
    use crate::parse_rule;

    #[test]
    fn printed_rules_parse_again() {
        for body in [
            "frame:tls.pdu; content:\"a\";",
            "frame:nbss.hdr; to_lowercase; content:\"a\";",
            "frame:tls.pdu; content:\"a\"; frame:tls.pdu; content:\"b\";",
        ] {
            let text = format!("alert tcp any any -> any any ({body} sid:1;)");
            let text = text.replace(
                "alert tcp",
                if body.contains("nbss") {
                    "alert smb"
                } else {
                    "alert tcp"
                },
            );
            let r = parse_rule(&text).unwrap();
            let again = parse_rule(&r.to_string()).unwrap_or_else(|d| panic!("{r}\n{d:?}"));
            assert_eq!(again, r, "{r}");
        }
    }
}

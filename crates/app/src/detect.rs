//! Application-protocol detection by content (and by port where Suricata probes by
//! port): HTTP from request methods or `HTTP/` on any port, HTTP/2 from the client
//! connection preface on any port, TLS from record headers on any port, DNS by a valid
//! header on port 53 (UDP, and TCP with its length prefix), SMB from an NBSS record
//! holding an SMB header and DCERPC from a PDU header on any port, SMTP from the
//! client's `EHLO`/`HELO`/`QUIT`.

use crate::dns::parser::probe_header;
use crate::Direction;

/// The application protocol of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AppProto {
    /// Not decided yet.
    #[default]
    Unknown,
    /// HTTP/1.x.
    Http,
    /// HTTP/2 (cleartext, prior knowledge).
    Http2,
    /// TLS (or SSL).
    Tls,
    /// DNS.
    Dns,
    /// SIP (over UDP).
    Sip,
    /// SMB (over TCP).
    Smb,
    /// DCERPC (connection-oriented, over TCP).
    Dcerpc,
    /// SMTP.
    Smtp,
    /// Detection ran and recognised nothing.
    Failed,
}

impl AppProto {
    /// Suricata's name for the protocol (`app_proto` in EVE).
    pub fn name(self) -> &'static str {
        match self {
            AppProto::Unknown => "unknown",
            AppProto::Http => "http",
            AppProto::Http2 => "http2",
            AppProto::Tls => "tls",
            AppProto::Dns => "dns",
            AppProto::Sip => "sip",
            AppProto::Smb => "smb",
            AppProto::Dcerpc => "dcerpc",
            AppProto::Smtp => "smtp",
            AppProto::Failed => "failed",
        }
    }

    /// Whether a rule for protocol `self` applies to a flow of protocol `flow`: the
    /// same protocol, or DCERPC carried in SMB (Suricata's `dcerpc` rules and keywords
    /// also inspect SMB flows).
    pub fn covers(self, flow: AppProto) -> bool {
        self == flow || (self == AppProto::Dcerpc && flow == AppProto::Smb)
    }
}

/// What one probe concluded from the bytes it saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The bytes start the given protocol.
    Match(AppProto),
    /// Too few bytes to tell yet.
    NeedMore,
    /// None of the known protocols.
    NoMatch,
}

/// Methods that start an HTTP request (libhtp's list), matched case-insensitively and
/// followed by a space or tab, as Suricata's HTTP patterns are.
pub(crate) const METHODS: &[&[u8]] = &[
    b"GET",
    b"POST",
    b"HEAD",
    b"PUT",
    b"DELETE",
    b"TRACE",
    b"OPTIONS",
    b"CONNECT",
    b"PATCH",
    b"PROPFIND",
    b"PROPPATCH",
    b"MKCOL",
    b"COPY",
    b"MOVE",
    b"LOCK",
    b"UNLOCK",
    b"CHECKOUT",
    b"UNCHECKOUT",
    b"CHECKIN",
    b"UPDATE",
    b"LABEL",
    b"REPORT",
    b"MKWORKSPACE",
    b"MKACTIVITY",
    b"MERGE",
    b"INVALID",
    b"VERSION-CONTROL",
    b"BASELINE-CONTROL",
];

/// Matches `pat` at the start of `data` case-insensitively: `Match` if all of it is
/// there, `NeedMore` if `data` is a strict prefix of it.
fn prefix(data: &[u8], pat: &[u8]) -> Probe {
    let n = data.len().min(pat.len());
    if !data[..n].eq_ignore_ascii_case(&pat[..n]) {
        Probe::NoMatch
    } else if n == pat.len() {
        Probe::Match(AppProto::Unknown)
    } else {
        Probe::NeedMore
    }
}

fn probe_http(dir: Direction, data: &[u8]) -> Probe {
    let mut need = false;
    match dir {
        Direction::ToServer => {
            for m in METHODS {
                match prefix(data, m) {
                    Probe::NoMatch => {}
                    Probe::NeedMore => need = true,
                    Probe::Match(_) => match data.get(m.len()) {
                        Some(b' ' | b'\t') => return Probe::Match(AppProto::Http),
                        Some(_) => {}
                        None => need = true,
                    },
                }
            }
        }
        Direction::ToClient => match prefix(data, b"HTTP/") {
            Probe::Match(_) => return Probe::Match(AppProto::Http),
            Probe::NeedMore => need = true,
            Probe::NoMatch => {}
        },
    }
    if need {
        Probe::NeedMore
    } else {
        Probe::NoMatch
    }
}

fn probe_tls(dir: Direction, data: &[u8]) -> Probe {
    // SSLv2 ClientHello: 2-byte length with the high bit set, type 1, version 3.x.
    if dir == Direction::ToServer && !data.is_empty() && data[0] & 0x80 != 0 {
        if data.len() < 5 {
            return Probe::NeedMore;
        }
        if data[2] == 1 && data[3] == 3 && data[4] <= 3 {
            return Probe::Match(AppProto::Tls);
        }
        return Probe::NoMatch;
    }
    let types: &[u8] = match dir {
        Direction::ToServer => &[0x16],
        Direction::ToClient => &[0x15, 0x16, 0x17],
    };
    match data {
        [] => Probe::NeedMore,
        [t, ..] if !types.contains(t) => Probe::NoMatch,
        [_] => Probe::NeedMore,
        [_, 3] => Probe::NeedMore,
        [_, 3, v, ..] if *v <= 4 => Probe::Match(AppProto::Tls),
        _ => Probe::NoMatch,
    }
}

/// Probes the first bytes of a TCP direction. `dns_port` says whether either port is 53.
pub fn probe_tcp(dir: Direction, data: &[u8], dns_port: bool) -> Probe {
    let mut need = false;
    let (smtp, h2) = match dir {
        Direction::ToServer => (crate::smtp::probe(data), crate::http2::probe(data)),
        Direction::ToClient => (Probe::NoMatch, Probe::NoMatch),
    };
    for p in [
        probe_http(dir, data),
        probe_tls(dir, data),
        h2,
        crate::framed::probe_smb(data),
        crate::framed::probe_dcerpc(dir, data),
        smtp,
    ] {
        match p {
            Probe::Match(a) => return Probe::Match(a),
            Probe::NeedMore => need = true,
            Probe::NoMatch => {}
        }
    }
    if dns_port {
        if data.len() < 2 + 12 {
            need = true;
        } else {
            let len = usize::from(u16::from_be_bytes([data[0], data[1]]));
            // A whole message must have a question that parses; a partial one is judged
            // by its header alone.
            let msg = &data[2..data.len().min(2 + len)];
            let complete = data.len() >= 2 + len;
            if len >= 12 && probe_header(msg, dir, complete) {
                return Probe::Match(AppProto::Dns);
            }
        }
    }
    if need {
        Probe::NeedMore
    } else {
        Probe::NoMatch
    }
}

/// Probes a UDP payload: DNS on port 53; SIP on ports 5060/5061 (`sip_port`, Suricata's
/// default detection ports), a request to the server or a response to the client.
pub fn probe_udp(dir: Direction, payload: &[u8], dns_port: bool, sip_port: bool) -> Probe {
    let sip = || match dir {
        Direction::ToServer => crate::sip::is_request(payload),
        Direction::ToClient => crate::sip::is_response(payload),
    };
    if dns_port && probe_header(payload, dir, true) {
        Probe::Match(AppProto::Dns)
    } else if sip_port && sip() {
        Probe::Match(AppProto::Sip)
    } else {
        Probe::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::*;

    #[test]
    fn http() {
        assert_eq!(
            probe_tcp(ToServer, b"GET / HTTP/1.1\r\n", false),
            Probe::Match(AppProto::Http)
        );
        assert_eq!(
            probe_tcp(ToServer, b"get\t/", false),
            Probe::Match(AppProto::Http)
        );
        assert_eq!(probe_tcp(ToServer, b"GE", false), Probe::NeedMore);
        assert_eq!(probe_tcp(ToServer, b"GET", false), Probe::NeedMore);
        assert_eq!(probe_tcp(ToServer, b"GETX /", false), Probe::NoMatch);
        assert_eq!(probe_tcp(ToServer, b"MAIL x", false), Probe::NoMatch);
        assert_eq!(
            probe_tcp(ToServer, b"EHLO x", false),
            Probe::Match(AppProto::Smtp)
        );
        assert_eq!(
            probe_tcp(ToClient, b"HTTP/1.1 200", false),
            Probe::Match(AppProto::Http)
        );
        assert_eq!(probe_tcp(ToClient, b"220 smtp", false), Probe::NoMatch);
    }

    #[test]
    fn http2_preface() {
        let p = crate::http2::frame::PREFACE;
        assert_eq!(probe_tcp(ToServer, p, false), Probe::Match(AppProto::Http2));
        assert_eq!(probe_tcp(ToServer, &p[..10], false), Probe::NeedMore);
        assert_eq!(
            probe_tcp(ToServer, b"PRI * HTTP/1.1", false),
            Probe::NoMatch
        );
        assert_eq!(probe_tcp(ToClient, p, false), Probe::NoMatch);
    }

    #[test]
    fn tls() {
        assert_eq!(
            probe_tcp(ToServer, &[0x16, 3, 1, 0, 5], false),
            Probe::Match(AppProto::Tls)
        );
        assert_eq!(probe_tcp(ToServer, &[0x16, 3], false), Probe::NeedMore);
        assert_eq!(probe_tcp(ToServer, &[0x17, 3, 3], false), Probe::NoMatch);
        assert_eq!(
            probe_tcp(ToClient, &[0x17, 3, 3], false),
            Probe::Match(AppProto::Tls)
        );
        assert_eq!(
            probe_tcp(ToServer, &[0x80, 0x2e, 1, 3, 1], false),
            Probe::Match(AppProto::Tls)
        );
    }

    #[test]
    fn dns() {
        let q = [
            0, 29, 0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, b'e', b'x', b'a', b'm', b'p', b'l',
            b'e', 3, b'c', b'o', b'm', 0, 0, 1, 0, 1,
        ];
        assert_eq!(probe_tcp(ToServer, &q, true), Probe::Match(AppProto::Dns));
        assert_eq!(probe_tcp(ToServer, &q, false), Probe::NoMatch);
        assert_eq!(
            probe_udp(ToServer, &q[2..], true, false),
            Probe::Match(AppProto::Dns)
        );
        assert_eq!(probe_udp(ToServer, &q[2..], false, false), Probe::NoMatch);
        assert_eq!(probe_udp(ToServer, b"garbage", true, true), Probe::NoMatch);
        let invite = b"INVITE sip:a@b SIP/2.0\r\nCSeq: 1 INVITE\r\n\r\n";
        assert_eq!(
            probe_udp(ToServer, invite, false, true),
            Probe::Match(AppProto::Sip)
        );
        assert_eq!(probe_udp(ToServer, invite, false, false), Probe::NoMatch);
        assert_eq!(probe_udp(ToClient, invite, false, true), Probe::NoMatch);
    }
}

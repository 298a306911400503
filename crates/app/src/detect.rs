//! Application-protocol detection by content (and by port where Suricata probes by
//! port): HTTP from request methods or `HTTP/` on any port, HTTP/2 from the client
//! connection preface on any port, TLS from record headers on any port, DNS by a valid
//! header on port 53 (UDP, and TCP with its length prefix), SMB from an NBSS record
//! holding an SMB header and DCERPC from a PDU header on any port, SMTP from the
//! client's `EHLO`/`HELO`/`QUIT`.

use crate::registry::{protocols, ProtocolDef};
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
    /// MQTT.
    Mqtt,
    /// NFS (over ONC RPC, TCP or UDP).
    Nfs,
    /// TFTP (UDP).
    Tftp,
    /// SSH.
    Ssh,
    /// Kerberos 5 (UDP or TCP).
    Krb5,
    /// SNMP (UDP).
    Snmp,
    /// DHCP (UDP).
    Dhcp,
    /// FTP (control channel).
    Ftp,
    /// An FTP data connection.
    FtpData,
    /// QUIC (UDP).
    Quic,
    /// IKE (UDP).
    Ike,
    /// Modbus/TCP.
    Modbus,
    /// EtherNet/IP (TCP or UDP).
    Enip,
    /// BitTorrent DHT (UDP).
    BittorrentDht,
    /// RFB (VNC).
    Rfb,
    /// RDP.
    Rdp,
    /// DNP3 (TCP).
    Dnp3,
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
            AppProto::Mqtt => "mqtt",
            AppProto::Nfs => "nfs",
            AppProto::Tftp => "tftp",
            AppProto::Ssh => "ssh",
            AppProto::Krb5 => "krb5",
            AppProto::Snmp => "snmp",
            AppProto::Dhcp => "dhcp",
            AppProto::Ftp => "ftp",
            AppProto::FtpData => "ftp-data",
            AppProto::Quic => "quic",
            AppProto::Ike => "ike",
            AppProto::Modbus => "modbus",
            AppProto::Enip => "enip",
            AppProto::BittorrentDht => "bittorrent-dht",
            AppProto::Rfb => "rfb",
            AppProto::Rdp => "rdp",
            AppProto::Dnp3 => "dnp3",
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

/// Probes the first bytes of a TCP direction. `dns_port` says whether either port is 53.
pub fn probe_tcp(dir: Direction, data: &[u8], dns_port: bool) -> Probe {
    probe_tcp_ports(dir, data, if dns_port { [53, 0] } else { [0, 0] }, 0)
}

/// Probes the first bytes of a TCP direction with every registered protocol that
/// probes TCP on one of `ports` (the flow's client and server ports), in registry
/// order: the first match wins; "need more" if any protocol still needs more bytes.
/// `on`: the opt-in protocols turned on (`Config::opt_in`).
pub(crate) fn probe_tcp_ports(dir: Direction, data: &[u8], ports: [u16; 2], on: u64) -> Probe {
    probe_with(ports, on, |d| d.probe_tcp.map(|p| p(dir, data)))
}

/// Probes a UDP payload: DNS on port 53; SIP on ports 5060/5061 (`sip_port`, Suricata's
/// default detection ports), a request to the server or a response to the client.
pub fn probe_udp(dir: Direction, payload: &[u8], dns_port: bool, sip_port: bool) -> Probe {
    let ports = [
        if dns_port { 53 } else { 0 },
        if sip_port { 5060 } else { 0 },
    ];
    probe_udp_ports(dir, payload, ports, 0)
}

/// Probes a UDP payload with every registered protocol that probes UDP on one of
/// `ports`, in registry order (`on` as for [`probe_tcp_ports`]).
pub(crate) fn probe_udp_ports(dir: Direction, payload: &[u8], ports: [u16; 2], on: u64) -> Probe {
    probe_with(ports, on, |d| d.probe_udp.map(|p| p(dir, payload)))
}

fn probe_with(
    ports: [u16; 2],
    on: u64,
    mut probe: impl FnMut(&ProtocolDef) -> Option<Probe>,
) -> Probe {
    let mut need = false;
    for (i, d) in protocols().iter().enumerate() {
        let off = crate::registry::opt_in(d.proto) && (i >= 64 || on & (1 << i) == 0);
        if off || !d.ports.is_empty() && !ports.iter().any(|p| d.ports.contains(p)) {
            continue;
        }
        match probe(d) {
            Some(Probe::Match(a)) => return Probe::Match(a),
            Some(Probe::NeedMore) => need = true,
            Some(Probe::NoMatch) | None => {}
        }
    }
    if need {
        Probe::NeedMore
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

//! The traffic generator beyond plain conversations: a [`Flow`] writes a case's packets
//! one by one (any TCP sequence, flags and options, UDP, IP fragments of any layout)
//! inside a chosen encapsulation ([`Encap`]: plain Ethernet, 802.1Q, QinQ, IP-in-IP, GRE,
//! Teredo). The families that use it:
//!
//! - [`frag`]: IPv4/IPv6 fragments in order, out of order, overlapping, tiny;
//! - [`tcpseg`]: TCP segmentation, overlaps, retransmissions, out-of-order segments,
//!   RST/FIN orders, midstream and one-sided flows, TCP Fast Open;
//! - [`encap`]: VLAN, QinQ and tunnels around a plain flow;
//! - [`dns`]: DNS over UDP and TCP, cut at any byte;
//! - [`http`]: HTTP/1 with bodies chunked, cut and compressed, and rules with sticky
//!   buffers in varied orders;
//! - [`http2`]: HTTP/2 with prior knowledge (h2c), HPACK literal fields, the body in
//!   one or more DATA frames;
//! - [`httpbuf`]: every HTTP/1 sticky buffer, its Snort-style modifier and pcre flag,
//!   with the payload keywords' edge values (offsets at 0, at the end and past it,
//!   `bsize`, `isdataat`, negative distances);
//! - [`tls`]: TLS 1.2 handshakes with a generated certificate chain: SNI, certificate
//!   buffers and dates, JA3/JA3S, random, version and state keywords;
//! - [`ssh`]: SSH identification lines and KEXINIT packets: protocol and software
//!   versions, hassh and hassh.server;
//! - [`csum`]: IPv4, TCP, UDP and ICMP checksums broken or correct on one packet;
//! - [`mqtt`]: MQTT 3.1.1 and 5 sessions (CONNECT/CONNACK, PUBLISH with its
//!   acknowledgements, SUBSCRIBE, UNSUBSCRIBE, PING, DISCONNECT): every MQTT keyword;
//! - [`dnsedge`]: DNS messages several to a TCP segment, split length prefixes, cut
//!   messages, pointer loops, every opcode;
//! - [`smb`]: SMB1 and SMB2 sessions (NTLMSSP, trees, files) and DCERPC over named
//!   pipes and over TCP;
//! - [`filekw`]: HTTP/1 downloads and uploads of real file types for every file
//!   keyword (hash lists written next to the rule file);
//! - [`dhcp`]: DHCP requests and replies with lease, renewal and rebinding times at
//!   their edges;
//! - [`snmp`]: SNMP v1, v2c and v3 requests, responses and traps (version, PDU type,
//!   community, USM user name);
//! - [`sip`]: SIP requests and responses over UDP (every `sip.*` buffer);
//! - [`rfb`]: RFB handshakes (security types and results, the desktop name);
//! - [`krb5`]: Kerberos 5 AS/TGS requests, replies and errors over UDP and TCP;
//! - [`ike`]: IKEv1 Main and Aggressive Mode and IKEv2 IKE_SA_INIT exchanges;
//! - [`xchain`]: chains of transforms (`pcrexform`, `header_lowercase`,
//!   `strip_pseudo_headers` with the others) on HTTP and DNS buffers;
//! - [`h2frame`]: HTTP/2 frames over h2c for the `http2.*` frame keywords (types, error
//!   codes, priority, window updates, HPACK size updates, every setting) and
//!   `http2.header_name`;
//! - [`dnp3`], [`modbus`], [`enip`]: the ICS protocols Suricata leaves off by default
//!   (turned on for both engines by `oracle::APP_LAYER_SETS`): DNP3 link frames with
//!   their CRCs, transport segments and application fragments; Modbus/TCP requests and
//!   responses; ENIP encapsulation over TCP and UDP with CIP requests;
//! - [`nfs`]: NFSv2/v3/v4 calls and replies over ONC RPC on TCP and UDP (`rpc` too);
//! - [`ftp`]: FTP control connections with PORT (bounces), PASV and EPSV, and the
//!   data connections of RETR and STOR;
//! - [`gtp`]: GTPv1-U/C and GTPv2-C datagrams, Snort's GTP keywords (refused);
//! - [`quic`]: Google QUIC Q043/Q046 client hellos (SNI, UAID, CYU);
//! - [`vars`]: `flowvar`/`pktvar` from pcre captures, `xbits` and `hostbits` across a
//!   flow's packets;
//! - [`appkw`]: `uricontent`, `file.magic`, `frame`, `tls_store`, and Suricata 8's
//!   `absent` and `ftp.command` (refused by both);
//! - [`events`]: decoder and stream anomalies (cut or inconsistent IPv4/IPv6/TCP/UDP/
//!   ICMP headers, IPv4 options, IPv6 extension headers, VLAN and GRE oddities, TCP
//!   handshake, window, overlap, RST and FIN anomalies) for `decode-event`,
//!   `engine-event` and `stream-event`.

use std::net::{IpAddr, Ipv4Addr};

use crate::case::Addrs;

pub mod appkw;
mod appval;
mod bufcond;
pub mod build;
pub mod csum;
pub mod dhcp;
pub mod dnp3;
pub mod dns;
pub mod dnsedge;
pub mod encap;
pub mod enip;
pub mod events;
pub mod filekw;
pub mod frag;
pub mod ftp;
pub mod gtp;
pub mod h2frame;
pub mod http;
pub mod http2;
pub mod httpbuf;
pub mod ike;
pub mod krb5;
pub mod modbus;
pub mod mqtt;
pub mod nfs;
pub mod quic;
pub mod rfb;
mod session;
pub mod sip;
pub mod smb;
pub mod snmp;
pub mod ssh;
pub mod tcpseg;
pub mod tls;
pub mod vars;
pub mod xchain;
pub mod xform;

use build::{ether, ethertype_of, Frag6, Seg};

/// The traffic families (drawn with the rule families of `crate::rulegen::FAMILIES`).
pub static FAMILIES: &[crate::rulegen::Family] = &[
    frag::FRAG,
    tcpseg::TCPSEG,
    encap::ENCAP,
    dns::DNS,
    http::HTTP,
    http2::HTTP2,
    httpbuf::HTTPBUF,
    tls::TLS,
    xform::XFORM,
    ssh::SSH,
    mqtt::MQTT,
    csum::CSUM,
    dnsedge::DNSEDGE,
    smb::SMB,
    filekw::FILEKW,
    dhcp::DHCP,
    snmp::SNMP,
    sip::SIP,
    rfb::RFB,
    krb5::KRB5,
    ike::IKE,
    xchain::XCHAIN,
    h2frame::H2FRAME,
    dnp3::DNP3,
    modbus::MODBUS,
    enip::ENIP,
    nfs::NFS,
    ftp::FTP,
    gtp::GTP,
    quic::QUIC,
    vars::VARS,
    appkw::APPKW,
    events::EVENTS,
];

/// Cases 0..`n` of a traffic family drawn from seed 3 (the families' unit tests), and
/// how many of their rules parse.
#[cfg(test)]
pub(crate) fn sample_cases(
    n: u32,
    family: fn(&mut crate::rulegen::Gen<'_>) -> crate::case::Spec,
) -> (Vec<crate::case::Case>, usize) {
    let mut rng = gen::rng::Rng::new(3);
    let cases: Vec<crate::case::Case> = (0..n)
        .map(|index| {
            let mut g = crate::rulegen::Gen {
                rng: &mut rng,
                index,
            };
            let spec = family(&mut g);
            crate::case::Case {
                index,
                addrs: Addrs::of(index, spec.v6),
                spec,
            }
        })
        .collect();
    let ok = cases
        .iter()
        .filter(|c| rules::parse_rule(&c.rule()).is_ok())
        .count();
    (cases, ok)
}

/// How a flow's IP packets travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encap {
    /// Plain Ethernet.
    Plain,
    /// One 802.1Q tag.
    Vlan(u16),
    /// Two tags: an outer one with TPID `.0` (0x88a8 or 0x8100), an inner 802.1Q one.
    QinQ(u16, u16, u16),
    /// Inside an outer IPv4 header (protocol 4 or 41).
    IpIp,
    /// Inside GRE (version 0, no options) over IPv4.
    Gre,
    /// Inside UDP port 3544 over IPv4 (Teredo; IPv6 inside only).
    Teredo,
}

/// The outer IPv4 addresses of case `index`'s tunnel (100.64/10, distinct per case).
pub fn outer_addrs(index: u32) -> (Ipv4Addr, Ipv4Addr) {
    let (hi, b, c) = ((index >> 16) as u8, (index >> 8) as u8, index as u8);
    (
        Ipv4Addr::new(100, 64 + hi, b, c),
        Ipv4Addr::new(100, 96 + hi, b, c),
    )
}

/// A flow being written: its endpoints and the frames so far.
#[derive(Clone, Debug)]
pub struct Flow {
    /// The client's address.
    pub client: IpAddr,
    /// The server's address.
    pub server: IpAddr,
    /// Client port.
    pub sport: u16,
    /// Server port.
    pub dport: u16,
    /// Encapsulation.
    pub encap: Encap,
    /// Tunnel endpoints (client side, server side).
    pub outer: (Ipv4Addr, Ipv4Addr),
    /// The frames written.
    pub frames: Vec<Vec<u8>>,
    ip_id: u16,
}

impl Flow {
    /// A flow of case `index` (its addresses, see [`Addrs::of`]) to server port `dport`.
    pub fn new(index: u32, v6: bool, dport: u16) -> Flow {
        let a = Addrs::of(index, v6);
        Flow {
            client: a.client,
            server: a.server,
            sport: a.sport,
            dport,
            encap: Encap::Plain,
            outer: outer_addrs(index),
            frames: Vec::new(),
            ip_id: 100,
        }
    }

    fn ends(&self, from_client: bool) -> (IpAddr, IpAddr) {
        if from_client {
            (self.client, self.server)
        } else {
            (self.server, self.client)
        }
    }

    fn ports(&self, from_client: bool) -> (u16, u16) {
        if from_client {
            (self.sport, self.dport)
        } else {
            (self.dport, self.sport)
        }
    }

    /// A rule header naming the server as the source (`server any -> client any`), for
    /// rules on what the server sends.
    pub fn server_to_client_header(&self) -> [String; 4] {
        [
            self.server.to_string(),
            "any".into(),
            self.client.to_string(),
            "any".into(),
        ]
    }

    /// The next IPv4 identification.
    pub fn next_id(&mut self) -> u16 {
        self.ip_id = self.ip_id.wrapping_add(1);
        self.ip_id
    }

    /// Wraps an IP packet (inner addresses) in the flow's encapsulation and appends it.
    pub fn push_ip(&mut self, from_client: bool, ip: Vec<u8>) {
        let et = ethertype_of(&ip);
        let (oc, os) = self.outer;
        let (osrc, odst) = if from_client { (oc, os) } else { (os, oc) };
        let id = self.next_id();
        let f = match self.encap {
            Encap::Plain => ether(et, &[], &ip),
            Encap::Vlan(v) => ether(et, &[(0x8100, v)], &ip),
            Encap::QinQ(tpid, a, b) => ether(et, &[(tpid, a), (0x8100, b)], &ip),
            Encap::IpIp => {
                let proto = if et == 0x86dd { 41 } else { 4 };
                ether(
                    0x0800,
                    &[],
                    &build::ipv4(osrc, odst, id, 0x4000, proto, &ip),
                )
            }
            Encap::Gre => {
                let mut g = vec![0, 0];
                g.extend_from_slice(&et.to_be_bytes());
                g.extend_from_slice(&ip);
                ether(0x0800, &[], &build::ipv4(osrc, odst, id, 0x4000, 47, &g))
            }
            Encap::Teredo => {
                let ports = if from_client {
                    (40_000, 3544)
                } else {
                    (3544, 40_000)
                };
                let u = build::udp(osrc.into(), odst.into(), ports, &ip);
                ether(0x0800, &[], &build::ipv4(osrc, odst, id, 0x4000, 17, &u))
            }
        };
        self.frames.push(f);
    }

    /// Appends a TCP segment (ports of the flow; `options` padded to four bytes).
    pub fn tcp(
        &mut self,
        from_client: bool,
        seq: u32,
        ack: u32,
        flags: u8,
        options: &[u8],
        payload: &[u8],
    ) {
        let (s, d) = self.ends(from_client);
        let seg = Seg {
            ports: self.ports(from_client),
            seq,
            ack,
            flags,
            options,
            payload,
        };
        let l4 = build::tcp(s, d, &seg);
        let id = self.next_id();
        self.push_ip(from_client, build::ip(s, d, id, 6, &l4));
    }

    /// Appends a UDP datagram.
    pub fn udp(&mut self, from_client: bool, payload: &[u8]) {
        let (s, d) = self.ends(from_client);
        let l4 = build::udp(s, d, self.ports(from_client), payload);
        let id = self.next_id();
        self.push_ip(from_client, build::ip(s, d, id, 17, &l4));
    }

    /// The transport bytes of a TCP segment or UDP datagram of the flow (to fragment).
    pub fn l4(&self, from_client: bool, udp: bool, seq: u32, ack: u32, payload: &[u8]) -> Vec<u8> {
        let (s, d) = self.ends(from_client);
        if udp {
            build::udp(s, d, self.ports(from_client), payload)
        } else {
            build::tcp(
                s,
                d,
                &Seg {
                    ports: self.ports(from_client),
                    seq,
                    ack,
                    flags: wire::tcp_flags::PSH | wire::tcp_flags::ACK,
                    options: &[],
                    payload,
                },
            )
        }
    }

    /// Appends one fragment of an IP datagram with identification `id` carrying `proto`:
    /// `data` at byte `offset` (a multiple of 8) of the fragmented part, `more` set
    /// unless it is the last.
    pub fn fragment(
        &mut self,
        from_client: bool,
        proto: u8,
        id: u16,
        offset: usize,
        more: bool,
        data: &[u8],
    ) {
        let (s, d) = self.ends(from_client);
        let ip = match (s, d) {
            (IpAddr::V4(s), IpAddr::V4(d)) => {
                let field = (offset / 8) as u16 | if more { 0x2000 } else { 0 };
                build::ipv4(s, d, id, field, proto, data)
            }
            (IpAddr::V6(s), IpAddr::V6(d)) => {
                let f = Frag6 {
                    offset: (offset / 8) as u16,
                    more,
                    id: u32::from(id) | 0x5000_0000,
                };
                build::ipv6(s, d, proto, Some(f), data)
            }
            _ => return,
        };
        self.push_ip(from_client, ip);
    }

    /// The three-way handshake with initial sequence numbers `ci` and `si`.
    pub fn handshake(&mut self, ci: u32, si: u32) {
        use wire::tcp_flags::{ACK, SYN};
        self.tcp(true, ci, 0, SYN, &[], &[]);
        self.tcp(false, si, ci + 1, SYN | ACK, &[], &[]);
        self.tcp(true, ci + 1, si + 1, ACK, &[], &[]);
    }

    /// The FIN exchange after the client sent up to `c` and the server up to `s` (next
    /// sequence numbers).
    pub fn close(&mut self, c: u32, s: u32) {
        use wire::tcp_flags::{ACK, FIN};
        self.tcp(true, c, s, FIN | ACK, &[], &[]);
        self.tcp(false, s, c + 1, FIN | ACK, &[], &[]);
        self.tcp(true, c + 1, s + 1, ACK, &[], &[]);
    }
}

/// A copy of `b` whose last byte is changed (to a byte the filler and needles never use),
/// for rules that just miss.
pub fn spoil(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    if let Some(l) = v.last_mut() {
        *l = if *l == b'Z' { b'Y' } else { b'Z' };
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_traffic_family_and_variant_decodes_and_its_rules_parse() {
        let names: Vec<String> = FAMILIES.iter().map(|f| f.name.to_string()).collect();
        let b = crate::batch::Batch::generate_among(9, 1500, &names);
        let mut templates = std::collections::BTreeSet::new();
        let mut dec = wire::Decoder::new(wire::DecoderConfig {
            verify_checksums: true,
            ..wire::DecoderConfig::default()
        });
        let mut out = wire::Decoded::new();
        let mut parsed = 0;
        for c in &b.cases {
            templates.insert(c.spec.template.split('/').next().unwrap().to_string());
            parsed += usize::from(rules::parse_rule(&c.rule()).is_ok());
            let frames = c.frames(0);
            assert!(!frames.is_empty(), "case {}: no frame", c.index);
            for (_, f) in frames {
                dec.decode(
                    wire::LinkType::ETHERNET,
                    &f,
                    wire::Timestamp(1),
                    f.len() as u32,
                    &mut out,
                );
                let bad =
                    wire::flags::INVALID | wire::flags::IP_CSUM_BAD | wire::flags::L4_CSUM_BAD;
                // The `csum` family breaks checksums and `events` headers on purpose
                // (their own tests check them).
                assert!(
                    c.spec.template.starts_with("csum/")
                        || c.spec.template.starts_with("events/")
                        || out.packets().iter().all(|p| !p.has(bad)),
                    "case {} ({}): a bad frame",
                    c.index,
                    c.spec.template
                );
            }
        }
        assert_eq!(templates.into_iter().collect::<Vec<_>>(), {
            let mut v = names.clone();
            v.sort();
            v
        });
        assert!(parsed > 1400, "only {parsed} of 1500 rules parse");
    }

    #[test]
    fn encapsulations_decode_to_the_inner_flow() {
        let mut dec = wire::Decoder::new(wire::DecoderConfig {
            verify_checksums: true,
            ..wire::DecoderConfig::default()
        });
        let mut out = wire::Decoded::new();
        for (v6, e) in [
            (false, Encap::Vlan(5)),
            (true, Encap::QinQ(0x88a8, 3, 4)),
            (true, Encap::IpIp),
            (false, Encap::Gre),
            (true, Encap::Teredo),
        ] {
            let mut f = Flow::new(3, v6, 80);
            f.encap = e;
            f.udp(true, b"hello");
            let fr = &f.frames[0];
            dec.decode(
                wire::LinkType::ETHERNET,
                fr,
                wire::Timestamp(1),
                fr.len() as u32,
                &mut out,
            );
            let last = out.packets().last().expect("a packet");
            assert_eq!(last.payload(fr), b"hello", "{e:?}");
            assert_eq!(last.src_ip(), Some(f.client), "{e:?}");
        }
    }
}

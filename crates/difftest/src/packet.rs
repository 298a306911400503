//! Frames of any shape the generated cases need: Ethernet over IPv4 (with options, the
//! flag bits and a chosen TTL, TOS and identification) or IPv6, carrying TCP (any flags,
//! window, sequence numbers), UDP or ICMP/ICMPv6, every checksum correct.

use std::net::IpAddr;
use wire::checksum;

/// The IP-layer fields a case may set on a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IpFields {
    /// Time to live (hop limit on IPv6).
    pub ttl: u8,
    /// Type of service (traffic class on IPv6).
    pub tos: u8,
    /// Identification (IPv4 only).
    pub id: u16,
    /// The three IPv4 flag bits (reserved, DF, MF) as the top bits of the 16-bit
    /// flags/fragment-offset field, with the offset (in 8-byte units) below.
    pub frag: u16,
    /// IPv4 options, already padded by [`pad_options`] (empty: none).
    pub options: Vec<u8>,
}

impl Default for IpFields {
    fn default() -> Self {
        IpFields {
            ttl: 64,
            tos: 0,
            id: 1,
            frag: 0x4000,
            options: Vec::new(),
        }
    }
}

/// Pads IPv4 options with end-of-list bytes to a multiple of four bytes.
pub fn pad_options(mut o: Vec<u8>) -> Vec<u8> {
    while !o.len().is_multiple_of(4) {
        o.push(0);
    }
    o
}

/// The transport layer of a packet.
#[derive(Clone, Debug)]
pub enum Transport<'a> {
    /// A TCP segment.
    Tcp {
        /// Source and destination ports.
        ports: (u16, u16),
        /// Sequence number.
        seq: u32,
        /// Acknowledgement number.
        ack: u32,
        /// Flag bits (the low eight: FIN ... CWR).
        flags: u8,
        /// Window.
        window: u16,
        /// Payload.
        payload: &'a [u8],
    },
    /// A UDP datagram.
    Udp {
        /// Source and destination ports.
        ports: (u16, u16),
        /// Payload.
        payload: &'a [u8],
    },
    /// An ICMP (IPv4) or ICMPv6 (IPv6) message: type, code, the four bytes after the
    /// checksum (identifier and sequence for echo), payload.
    Icmp {
        /// Type.
        ty: u8,
        /// Code.
        code: u8,
        /// Bytes 4..8 of the header.
        rest: [u8; 4],
        /// Payload.
        payload: &'a [u8],
    },
}

fn mac(last: u8) -> [u8; 6] {
    [0x02, 0x00, 0x00, 0x00, 0x00, last]
}

/// Encodes one Ethernet frame from `src` to `dst` (both of one family) into `out`.
pub fn frame(out: &mut Vec<u8>, src: IpAddr, dst: IpAddr, ip: &IpFields, t: &Transport<'_>) {
    out.clear();
    out.extend_from_slice(&mac(2));
    out.extend_from_slice(&mac(1));
    let v6 = src.is_ipv6();
    out.extend_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    let l4 = transport(src, dst, t);
    let proto = match t {
        Transport::Tcp { .. } => 6,
        Transport::Udp { .. } => 17,
        Transport::Icmp { .. } if v6 => 58,
        Transport::Icmp { .. } => 1,
    };
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let start = out.len();
            let hlen = 20 + ip.options.len();
            let total = (hlen + l4.len()) as u16;
            out.push(0x40 | (hlen / 4) as u8);
            out.push(ip.tos);
            out.extend_from_slice(&total.to_be_bytes());
            out.extend_from_slice(&ip.id.to_be_bytes());
            out.extend_from_slice(&ip.frag.to_be_bytes());
            out.extend_from_slice(&[ip.ttl, proto, 0, 0]);
            out.extend_from_slice(&s.octets());
            out.extend_from_slice(&d.octets());
            out.extend_from_slice(&ip.options);
            let sum = checksum::checksum(&out[start..start + hlen]);
            out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            let vtc = 0x6000_0000u32 | (u32::from(ip.tos) << 20);
            out.extend_from_slice(&vtc.to_be_bytes());
            out.extend_from_slice(&(l4.len() as u16).to_be_bytes());
            out.extend_from_slice(&[proto, ip.ttl]);
            out.extend_from_slice(&s.octets());
            out.extend_from_slice(&d.octets());
        }
        _ => panic!("source and destination of different families"),
    }
    out.extend_from_slice(&l4);
}

fn pseudo(src: IpAddr, dst: IpAddr, proto: u8, len: usize) -> u64 {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            checksum::pseudo_header_v4(&s.octets(), &d.octets(), proto, len as u32)
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            checksum::pseudo_header_v6(&s.octets(), &d.octets(), proto, len as u32)
        }
        _ => 0,
    }
}

fn transport(src: IpAddr, dst: IpAddr, t: &Transport<'_>) -> Vec<u8> {
    let mut b = Vec::with_capacity(64);
    match *t {
        Transport::Tcp {
            ports,
            seq,
            ack,
            flags,
            window,
            payload,
        } => {
            b.extend_from_slice(&ports.0.to_be_bytes());
            b.extend_from_slice(&ports.1.to_be_bytes());
            b.extend_from_slice(&seq.to_be_bytes());
            b.extend_from_slice(&ack.to_be_bytes());
            b.extend_from_slice(&[0x50, flags]);
            b.extend_from_slice(&window.to_be_bytes());
            b.extend_from_slice(&[0, 0, 0, 0]);
            b.extend_from_slice(payload);
            let sum = checksum::compute_with_pseudo(pseudo(src, dst, 6, b.len()), &b);
            b[16..18].copy_from_slice(&sum.to_be_bytes());
        }
        Transport::Udp { ports, payload } => {
            let len = (8 + payload.len()) as u16;
            b.extend_from_slice(&ports.0.to_be_bytes());
            b.extend_from_slice(&ports.1.to_be_bytes());
            b.extend_from_slice(&len.to_be_bytes());
            b.extend_from_slice(&[0, 0]);
            b.extend_from_slice(payload);
            let mut sum = checksum::compute_with_pseudo(pseudo(src, dst, 17, b.len()), &b);
            if sum == 0 {
                sum = 0xffff;
            }
            b[6..8].copy_from_slice(&sum.to_be_bytes());
        }
        Transport::Icmp {
            ty,
            code,
            rest,
            payload,
        } => {
            b.extend_from_slice(&[ty, code, 0, 0]);
            b.extend_from_slice(&rest);
            b.extend_from_slice(payload);
            let sum = if src.is_ipv6() {
                checksum::compute_with_pseudo(pseudo(src, dst, 58, b.len()), &b)
            } else {
                checksum::checksum(&b)
            };
            b[2..4].copy_from_slice(&sum.to_be_bytes());
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn ipv4_with_options_and_tcp_checksums_verify() {
        let mut f = Vec::new();
        let ip = IpFields {
            options: pad_options(vec![7, 7, 4, 0, 0, 0, 0]),
            ..IpFields::default()
        };
        let s = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let d = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        let t = Transport::Tcp {
            ports: (1, 2),
            seq: 5,
            ack: 0,
            flags: 2,
            window: 100,
            payload: b"ab",
        };
        frame(&mut f, s, d, &ip, &t);
        assert_eq!(f[14], 0x47);
        assert_eq!(checksum::checksum(&f[14..42]), 0);
        let seg = &f[42..];
        assert!(checksum::verify_with_pseudo(
            checksum::pseudo_header_v4(&[10, 0, 0, 1], &[10, 0, 0, 2], 6, seg.len() as u32),
            seg
        ));
    }

    #[test]
    fn icmpv6_checksum_verifies() {
        let mut f = Vec::new();
        let s = Ipv6Addr::new(0xfd00, 0, 0, 1, 0, 0, 0, 1);
        let d = Ipv6Addr::new(0xfd00, 0, 0, 1, 0, 0, 0, 2);
        let t = Transport::Icmp {
            ty: 128,
            code: 0,
            rest: [0, 1, 0, 2],
            payload: b"ping",
        };
        frame(&mut f, s.into(), d.into(), &IpFields::default(), &t);
        assert_eq!(&f[12..14], &[0x86, 0xdd]);
        let m = &f[54..];
        assert!(checksum::verify_with_pseudo(
            checksum::pseudo_header_v6(&s.octets(), &d.octets(), 58, m.len() as u32),
            m
        ));
    }
}

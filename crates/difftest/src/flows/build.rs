//! Raw packet bytes for the traffic families: TCP segments with options, UDP datagrams,
//! IPv4 headers with any flag/offset field, IPv6 headers with or without a fragment
//! header, and Ethernet frames with 802.1Q/802.1ad tags; every checksum correct for the
//! bytes given.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use wire::checksum;

/// One TCP segment's header fields.
#[derive(Clone, Copy, Debug)]
pub struct Seg<'a> {
    /// Source and destination ports.
    pub ports: (u16, u16),
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Flag bits (FIN ... CWR).
    pub flags: u8,
    /// TCP options, already a multiple of four bytes (see [`pad4`]).
    pub options: &'a [u8],
    /// Payload.
    pub payload: &'a [u8],
}

/// Pads with end-of-options bytes to a multiple of four.
pub fn pad4(mut o: Vec<u8>) -> Vec<u8> {
    while !o.len().is_multiple_of(4) {
        o.push(0);
    }
    o
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

/// A TCP segment (header, options, payload) with its checksum.
pub fn tcp(src: IpAddr, dst: IpAddr, s: &Seg<'_>) -> Vec<u8> {
    let hlen = 20 + s.options.len();
    let mut b = Vec::with_capacity(hlen + s.payload.len());
    b.extend_from_slice(&s.ports.0.to_be_bytes());
    b.extend_from_slice(&s.ports.1.to_be_bytes());
    b.extend_from_slice(&s.seq.to_be_bytes());
    b.extend_from_slice(&s.ack.to_be_bytes());
    b.extend_from_slice(&[((hlen / 4) as u8) << 4, s.flags]);
    b.extend_from_slice(&64240u16.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    b.extend_from_slice(s.options);
    b.extend_from_slice(s.payload);
    let sum = checksum::compute_with_pseudo(pseudo(src, dst, 6, b.len()), &b);
    b[16..18].copy_from_slice(&sum.to_be_bytes());
    b
}

/// A UDP datagram with its checksum.
pub fn udp(src: IpAddr, dst: IpAddr, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + payload.len());
    b.extend_from_slice(&ports.0.to_be_bytes());
    b.extend_from_slice(&ports.1.to_be_bytes());
    b.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(payload);
    let mut sum = checksum::compute_with_pseudo(pseudo(src, dst, 17, b.len()), &b);
    if sum == 0 {
        sum = 0xffff;
    }
    b[6..8].copy_from_slice(&sum.to_be_bytes());
    b
}

/// An IPv4 packet: `frag` is the 16-bit flags/offset field (DF 0x4000, MF 0x2000,
/// offset in 8-byte units below).
pub fn ipv4(src: Ipv4Addr, dst: Ipv4Addr, id: u16, frag: u16, proto: u8, body: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(20 + body.len());
    b.push(0x45);
    b.push(0);
    b.extend_from_slice(&((20 + body.len()) as u16).to_be_bytes());
    b.extend_from_slice(&id.to_be_bytes());
    b.extend_from_slice(&frag.to_be_bytes());
    b.extend_from_slice(&[64, proto, 0, 0]);
    b.extend_from_slice(&src.octets());
    b.extend_from_slice(&dst.octets());
    let sum = checksum::checksum(&b);
    b[10..12].copy_from_slice(&sum.to_be_bytes());
    b.extend_from_slice(body);
    b
}

/// An IPv6 fragment header's fields: offset in 8-byte units, more-fragments, identification.
#[derive(Clone, Copy, Debug)]
pub struct Frag6 {
    /// Offset in 8-byte units.
    pub offset: u16,
    /// More fragments follow.
    pub more: bool,
    /// Identification.
    pub id: u32,
}

/// An IPv6 packet carrying `proto`, behind a fragment header when `frag` is given.
pub fn ipv6(src: Ipv6Addr, dst: Ipv6Addr, proto: u8, frag: Option<Frag6>, body: &[u8]) -> Vec<u8> {
    let ext = if frag.is_some() { 8 } else { 0 };
    let mut b = Vec::with_capacity(40 + ext + body.len());
    b.extend_from_slice(&0x6000_0000u32.to_be_bytes());
    b.extend_from_slice(&((ext + body.len()) as u16).to_be_bytes());
    b.push(if frag.is_some() { 44 } else { proto });
    b.push(64);
    b.extend_from_slice(&src.octets());
    b.extend_from_slice(&dst.octets());
    if let Some(f) = frag {
        b.extend_from_slice(&[proto, 0]);
        b.extend_from_slice(&((f.offset << 3) | u16::from(f.more)).to_be_bytes());
        b.extend_from_slice(&f.id.to_be_bytes());
    }
    b.extend_from_slice(body);
    b
}

/// An IP packet of either family (no fragmentation), from `src` to `dst`.
pub fn ip(src: IpAddr, dst: IpAddr, id: u16, proto: u8, body: &[u8]) -> Vec<u8> {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => ipv4(s, d, id, 0x4000, proto, body),
        (IpAddr::V6(s), IpAddr::V6(d)) => ipv6(s, d, proto, None, body),
        _ => panic!("source and destination of different families"),
    }
}

/// An Ethernet frame: `tags` are (TPID, VLAN id) pairs, outermost first, before the
/// payload's EtherType.
pub fn ether(ethertype: u16, tags: &[(u16, u16)], body: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(14 + 4 * tags.len() + body.len());
    b.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1]);
    for &(tpid, vid) in tags {
        b.extend_from_slice(&tpid.to_be_bytes());
        b.extend_from_slice(&(vid & 0x0fff).to_be_bytes());
    }
    b.extend_from_slice(&ethertype.to_be_bytes());
    b.extend_from_slice(body);
    b
}

/// The EtherType of an IP packet's bytes (by its version nibble).
pub fn ethertype_of(ip: &[u8]) -> u16 {
    if ip.first().is_some_and(|v| v >> 4 == 6) {
        0x86dd
    } else {
        0x0800
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_verify_and_fragment_headers_are_laid_out() {
        let s = Ipv6Addr::new(0xfd00, 0, 0, 1, 0, 0, 0, 1);
        let d = Ipv6Addr::new(0xfd00, 0, 0, 1, 0, 0, 0, 2);
        let seg = Seg {
            ports: (1, 2),
            seq: 7,
            ack: 0,
            flags: 2,
            options: &pad4(vec![34, 2]),
            payload: b"tfo",
        };
        let t = tcp(s.into(), d.into(), &seg);
        assert_eq!(t[12] >> 4, 6);
        assert!(checksum::verify_with_pseudo(
            checksum::pseudo_header_v6(&s.octets(), &d.octets(), 6, t.len() as u32),
            &t
        ));
        let f = Frag6 {
            offset: 3,
            more: true,
            id: 9,
        };
        let p = ipv6(s, d, 17, Some(f), &[0; 8]);
        assert_eq!((p[6], p[40]), (44, 17));
        assert_eq!(u16::from_be_bytes([p[42], p[43]]), 3 << 3 | 1);
        let v4 = ipv4(
            [10, 0, 0, 1].into(),
            [10, 0, 0, 2].into(),
            5,
            0x2001,
            17,
            b"x",
        );
        assert_eq!(checksum::checksum(&v4[..20]), 0);
        let e = ether(0x0800, &[(0x88a8, 5), (0x8100, 7)], &v4);
        assert_eq!(&e[12..14], &[0x88, 0xa8]);
        assert_eq!(&e[20..22], &[0x08, 0x00]);
        assert_eq!(ethertype_of(&p), 0x86dd);
    }
}

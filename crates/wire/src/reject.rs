//! Building the frames that answer a rejected packet, as an inline IPS sends them for a
//! `reject` rule: a TCP reset for TCP, an ICMP (ICMPv6) destination unreachable,
//! administratively prohibited, for anything else.
//!
//! The answer reuses the rejected frame's Ethernet header (VLAN tags included) so it can
//! be sent straight out of an interface: towards the packet's source the MAC addresses
//! are swapped, towards its destination they are kept. Only Ethernet frames whose packet
//! was not found inside a tunnel are answered.

use crate::checksum::{checksum, compute_with_pseudo, pseudo_header_v4, pseudo_header_v6};
use crate::{LinkType, Packet, Tunnel};

/// Which end of the rejected packet the answer goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectTo {
    /// The packet's sender (`reject`, `rejectsrc`): the answer comes from the
    /// destination's address and goes back out of the interface the packet came in on.
    Source,
    /// The packet's destination (`rejectdst`): the answer comes from the source's
    /// address and goes on in the packet's direction.
    Destination,
}

/// ICMPv4 destination unreachable, code 10 (host administratively prohibited).
const ICMP4_UNREACH: (u8, u8) = (3, 10);
/// ICMPv6 destination unreachable, code 1 (administratively prohibited).
const ICMP6_UNREACH: (u8, u8) = (1, 1);
/// Hop limit of the answers.
const TTL: u8 = 64;
/// Bytes of the rejected IPv6 packet quoted in an ICMPv6 error: the answer stays
/// within the IPv6 minimum MTU (1280 - 40 - 8).
const ICMP6_QUOTE_MAX: usize = 1232;
/// Bytes of the rejected transport header quoted after the IPv4 header (RFC 792).
const ICMP4_QUOTE_L4: usize = 8;

const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_RST: u8 = 0x04;
const TCP_ACK: u8 = 0x10;

/// Writes into `out` (cleared first) the frame that rejects `p`, which was decoded from
/// `frame`, towards `to`. Returns false, leaving `out` empty, when there is nothing to
/// send: not Ethernet, tunnelled, no IP header, a TCP reset (never answered), an ICMP
/// error (never answered with one), or offsets outside `frame`.
pub fn build_reject(frame: &[u8], p: &Packet, to: RejectTo, out: &mut Vec<u8>) -> bool {
    out.clear();
    let l3 = p.l3_off as usize;
    if p.link_type != LinkType::ETHERNET
        || p.tunnel != Tunnel::None
        || !(14..=frame.len()).contains(&l3)
        || !matches!(p.ip_version, 4 | 6)
    {
        return false;
    }
    let tcp = p.proto == 6 && p.l4_off != 0;
    if tcp && p.tcp_flags & TCP_RST != 0 {
        return false;
    }
    if !tcp && is_icmp_error(p) {
        return false;
    }
    out.extend_from_slice(&frame[..l3]);
    if to == RejectTo::Source {
        for i in 0..6 {
            out.swap(i, i + 6);
        }
    }
    let (src, dst) = match to {
        RejectTo::Source => (p.dst, p.src),
        RejectTo::Destination => (p.src, p.dst),
    };
    let ok = if tcp {
        let seg = tcp_reset(p, to);
        ip_packet(out, p.ip_version, &src, &dst, 6, &seg);
        true
    } else {
        icmp_unreachable(out, frame, p, &src, &dst)
    };
    if !ok {
        out.clear();
    }
    ok
}

fn is_icmp_error(p: &Packet) -> bool {
    match (p.ip_version, p.proto) {
        (4, 1) => matches!(p.icmp_type, 3 | 4 | 5 | 11 | 12),
        (6, 58) => p.icmp_type < 128,
        _ => false,
    }
}

/// The 20-byte TCP header of the reset (checksum still zero).
fn tcp_reset(p: &Packet, to: RejectTo) -> [u8; 20] {
    // Sequence space the rejected segment takes: its payload, SYN and FIN.
    let len = p
        .payload_len
        .wrapping_add(u32::from(p.tcp_flags & TCP_SYN != 0))
        .wrapping_add(u32::from(p.tcp_flags & TCP_FIN != 0));
    let (sport, dport, seq, ack) = match to {
        // The sender accepts a reset whose sequence number is the one it acknowledged.
        RejectTo::Source => {
            let seq = if p.tcp_flags & TCP_ACK != 0 { p.ack } else { 0 };
            (p.dport, p.sport, seq, p.seq.wrapping_add(len))
        }
        // The rejected segment never reaches the destination: its sequence number is
        // the one the destination expects next.
        RejectTo::Destination => (p.sport, p.dport, p.seq, p.ack),
    };
    let mut h = [0u8; 20];
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    h[12] = 5 << 4;
    h[13] = TCP_RST | TCP_ACK;
    h
}

/// ICMP(v6) destination unreachable quoting the start of the rejected packet.
fn icmp_unreachable(
    out: &mut Vec<u8>,
    frame: &[u8],
    p: &Packet,
    src: &[u8; 16],
    dst: &[u8; 16],
) -> bool {
    let l3 = p.l3_off as usize;
    let end = if p.ip_version == 4 {
        let l4 = p.l4_off as usize;
        let ihl = frame.get(l3).map_or(20, |b| usize::from(b & 0x0f) * 4);
        let start = if l4 > l3 { l4 } else { l3 + ihl };
        start + ICMP4_QUOTE_L4
    } else {
        l3 + ICMP6_QUOTE_MAX
    };
    let quote = &frame[l3..end.min(frame.len())];
    if quote.is_empty() {
        return false;
    }
    let (proto, (ty, code)) = if p.ip_version == 4 {
        (1, ICMP4_UNREACH)
    } else {
        (58, ICMP6_UNREACH)
    };
    let mut msg = Vec::with_capacity(8 + quote.len());
    msg.extend_from_slice(&[ty, code, 0, 0, 0, 0, 0, 0]);
    msg.extend_from_slice(quote);
    ip_packet(out, p.ip_version, src, dst, proto, &msg);
    true
}

/// Appends an IP header (no options or extension headers) and `l4`, whose checksum
/// (zero in `l4`) is filled in: TCP, UDP and ICMPv6 over the pseudo-header, ICMP
/// without.
fn ip_packet(out: &mut Vec<u8>, version: u8, src: &[u8; 16], dst: &[u8; 16], proto: u8, l4: &[u8]) {
    let len = l4.len() as u32;
    let (pseudo, csum_at) = match proto {
        6 => (true, 16),
        17 => (true, 6),
        _ => (version == 6, 2),
    };
    if version == 4 {
        let total = (20 + l4.len()) as u16;
        let mut h = [0u8; 20];
        h[0] = 0x45;
        h[2..4].copy_from_slice(&total.to_be_bytes());
        h[6] = 0x40; // don't fragment
        h[8] = TTL;
        h[9] = proto;
        h[12..16].copy_from_slice(&src[..4]);
        h[16..20].copy_from_slice(&dst[..4]);
        let c = checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        out.extend_from_slice(&h);
    } else {
        let mut h = [0u8; 40];
        h[0] = 0x60;
        h[4..6].copy_from_slice(&(l4.len() as u16).to_be_bytes());
        h[6] = proto;
        h[7] = TTL;
        h[8..24].copy_from_slice(src);
        h[24..40].copy_from_slice(dst);
        out.extend_from_slice(&h);
    }
    let l4_start = out.len();
    out.extend_from_slice(l4);
    let c = if !pseudo {
        checksum(l4)
    } else if version == 4 {
        let (s, d) = (
            [src[0], src[1], src[2], src[3]],
            [dst[0], dst[1], dst[2], dst[3]],
        );
        compute_with_pseudo(pseudo_header_v4(&s, &d, proto, len), l4)
    } else {
        compute_with_pseudo(pseudo_header_v6(src, dst, proto, len), l4)
    };
    if let Some(field) = out.get_mut(l4_start + csum_at..l4_start + csum_at + 2) {
        field.copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checksum::verify_with_pseudo;
    use crate::{Decoded, Decoder, DecoderConfig, Timestamp};

    const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 0xa];
    const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 0xb];

    fn eth(vlan: Option<u16>, ethertype: u16) -> Vec<u8> {
        let mut f = Vec::new();
        f.extend_from_slice(&MAC_B);
        f.extend_from_slice(&MAC_A);
        if let Some(id) = vlan {
            f.extend_from_slice(&[0x81, 0x00]);
            f.extend_from_slice(&id.to_be_bytes());
        }
        f.extend_from_slice(&ethertype.to_be_bytes());
        f
    }

    /// A TCP segment from 10.0.0.1:40000 to 10.0.0.2:80 (or the IPv6 equivalents).
    fn tcp_frame(
        v6: bool,
        vlan: Option<u16>,
        flags: u8,
        seq: u32,
        ack: u32,
        data: &[u8],
    ) -> Vec<u8> {
        let mut seg = vec![0u8; 20];
        seg[0..2].copy_from_slice(&40000u16.to_be_bytes());
        seg[2..4].copy_from_slice(&80u16.to_be_bytes());
        seg[4..8].copy_from_slice(&seq.to_be_bytes());
        seg[8..12].copy_from_slice(&ack.to_be_bytes());
        seg[12] = 5 << 4;
        seg[13] = flags;
        seg[14..16].copy_from_slice(&1024u16.to_be_bytes());
        seg.extend_from_slice(data);
        let mut f = eth(vlan, if v6 { 0x86dd } else { 0x0800 });
        let (src, dst) = addrs(v6);
        ip_packet(&mut f, if v6 { 6 } else { 4 }, &src, &dst, 6, &seg);
        f
    }

    fn udp_frame(v6: bool, data: &[u8]) -> Vec<u8> {
        let mut seg = vec![0u8; 8];
        seg[0..2].copy_from_slice(&5353u16.to_be_bytes());
        seg[2..4].copy_from_slice(&53u16.to_be_bytes());
        seg[4..6].copy_from_slice(&((8 + data.len()) as u16).to_be_bytes());
        seg.extend_from_slice(data);
        let mut f = eth(None, if v6 { 0x86dd } else { 0x0800 });
        let (src, dst) = addrs(v6);
        ip_packet(&mut f, if v6 { 6 } else { 4 }, &src, &dst, 17, &seg);
        f
    }

    fn addrs(v6: bool) -> ([u8; 16], [u8; 16]) {
        let mut src = [0u8; 16];
        let mut dst = [0u8; 16];
        if v6 {
            src[0] = 0xfd;
            src[15] = 1;
            dst[0] = 0xfd;
            dst[15] = 2;
        } else {
            src[..4].copy_from_slice(&[10, 0, 0, 1]);
            dst[..4].copy_from_slice(&[10, 0, 0, 2]);
        }
        (src, dst)
    }

    fn decode(frame: &[u8]) -> Packet {
        let mut dec = Decoder::new(DecoderConfig {
            verify_checksums: true,
            ..DecoderConfig::default()
        });
        let mut out = Decoded::new();
        dec.decode(
            LinkType::ETHERNET,
            frame,
            Timestamp(0),
            frame.len() as u32,
            &mut out,
        );
        *out.outer()
    }

    fn checksums_ok(p: &Packet) -> bool {
        p.has(crate::flags::L4_CSUM_OK)
            && !p.has(crate::flags::L4_CSUM_BAD)
            && !p.has(crate::flags::IP_CSUM_BAD)
    }

    #[test]
    fn tcp_reset_to_the_source_answers_the_segment() {
        for v6 in [false, true] {
            for vlan in [None, Some(7)] {
                let f = tcp_frame(v6, vlan, TCP_ACK | 0x08, 1000, 5000, b"EVIL");
                let p = decode(&f);
                let mut out = Vec::new();
                assert!(build_reject(&f, &p, RejectTo::Source, &mut out));
                assert_eq!(&out[0..6], &MAC_A);
                assert_eq!(&out[6..12], &MAC_B);
                let r = decode(&out);
                assert_eq!(r.ip_version, p.ip_version);
                assert_eq!(r.vlan[0], vlan.unwrap_or(0));
                assert_eq!((r.src, r.dst), (p.dst, p.src));
                assert_eq!((r.sport, r.dport), (80, 40000));
                assert_eq!(r.tcp_flags, TCP_RST | TCP_ACK);
                assert_eq!((r.seq, r.ack), (5000, 1004));
                assert!(checksums_ok(&r), "v6={v6} {r:?}");
            }
        }
    }

    #[test]
    fn tcp_reset_to_the_destination_keeps_the_direction() {
        let f = tcp_frame(false, None, TCP_ACK, 1000, 5000, b"xyz");
        let p = decode(&f);
        let mut out = Vec::new();
        assert!(build_reject(&f, &p, RejectTo::Destination, &mut out));
        assert_eq!(&out[..12], &f[..12]);
        let r = decode(&out);
        assert_eq!((r.src, r.dst, r.sport, r.dport), (p.src, p.dst, 40000, 80));
        assert_eq!((r.seq, r.ack), (1000, 5000));
        assert!(checksums_ok(&r));
    }

    #[test]
    fn syn_without_ack_gets_sequence_zero() {
        let f = tcp_frame(false, None, TCP_SYN, 77, 0, b"");
        let p = decode(&f);
        let mut out = Vec::new();
        assert!(build_reject(&f, &p, RejectTo::Source, &mut out));
        let r = decode(&out);
        assert_eq!((r.seq, r.ack), (0, 78));
    }

    #[test]
    fn resets_are_never_answered() {
        let f = tcp_frame(false, None, TCP_RST, 1, 0, b"");
        let p = decode(&f);
        let mut out = vec![1];
        assert!(!build_reject(&f, &p, RejectTo::Source, &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn udp_gets_an_unreachable_quoting_the_datagram() {
        for v6 in [false, true] {
            let f = udp_frame(v6, &[0x55; 40]);
            let p = decode(&f);
            assert!(checksums_ok(&p));
            let mut out = Vec::new();
            assert!(build_reject(&f, &p, RejectTo::Source, &mut out));
            let r = decode(&out);
            assert_eq!((r.src, r.dst), (p.dst, p.src));
            let l4 = r.l4_off as usize;
            let quote = &out[l4 + 8..];
            let l3 = p.l3_off as usize;
            if v6 {
                assert_eq!((r.proto, r.icmp_type, r.icmp_code), (58, 1, 1));
                assert_eq!(quote, &f[l3..]);
                let (s, d) = (r.src, r.dst);
                let pseudo = pseudo_header_v6(&s, &d, 58, (out.len() - l4) as u32);
                assert!(verify_with_pseudo(pseudo, &out[l4..]));
            } else {
                assert_eq!((r.proto, r.icmp_type, r.icmp_code), (1, 3, 10));
                assert_eq!(quote, &f[l3..l3 + 28]);
                assert_eq!(checksum(&out[l4..]), 0);
                assert!(!r.has(crate::flags::IP_CSUM_BAD));
            }
            // The answer is itself an ICMP error: it is never answered.
            let mut again = Vec::new();
            assert!(!build_reject(&out, &r, RejectTo::Source, &mut again));
        }
    }

    #[test]
    fn hostile_offsets_and_links_give_nothing() {
        let f = tcp_frame(false, None, TCP_ACK, 1, 1, b"a");
        let p = decode(&f);
        let mut out = Vec::new();
        for bad in [
            Packet { l3_off: 4000, ..p },
            Packet { l3_off: 3, ..p },
            Packet {
                link_type: LinkType::RAW,
                ..p
            },
            Packet { ip_version: 0, ..p },
            Packet {
                tunnel: Tunnel::Gre,
                ..p
            },
        ] {
            assert!(!build_reject(&f, &bad, RejectTo::Source, &mut out));
        }
        // Truncated frame: still bounded.
        let short = &f[..20];
        let q = Packet {
            proto: 17,
            l4_off: 0,
            ..p
        };
        assert!(build_reject(short, &q, RejectTo::Source, &mut out));
        assert!(out.len() <= 14 + 20 + 8 + 6);
    }
}

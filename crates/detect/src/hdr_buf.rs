//! Packet header buffers: the sticky buffers over a packet's own headers (`ipv4.hdr`,
//! `ipv6.hdr`, `tcp.hdr`, `udp.hdr`, `icmpv4.hdr`, `icmpv6.hdr`) and over its addresses
//! (`ip.src`, `ip.dst`, the address in binary form, 4 or 16 bytes, as Suricata 7
//! inspects them, e.g. with a dataset of type `ipv4` or `ip`).
//!
//! They are packet options ([`PktOpt::HdrBuf`](crate::sig::PktOpt)): a rule with one
//! is never IP-only and is checked on every packet it could match, of the innermost
//! layer (a tunnelled packet's own headers). A packet without the header (`tcp.hdr` on
//! UDP, `ipv4.hdr` on IPv6, `tcp.hdr` on a later fragment) has no buffer: no match.

use crate::program::{ProgVars, Program};
use crate::transform::{self, Xform};
use rules::Buffer;

/// Which header bytes a buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HdrBuf {
    /// The IPv4 header, options included (IHL × 4 bytes).
    Ipv4,
    /// The IPv6 header and its extension headers (up to the L4 header).
    Ipv6,
    /// The TCP header, options included (data offset × 4 bytes).
    Tcp,
    /// The UDP header (8 bytes).
    Udp,
    /// The ICMPv4 header (up to the ICMP payload).
    Icmpv4,
    /// The ICMPv6 header (up to the ICMPv6 payload).
    Icmpv6,
    /// The source address (4 bytes for IPv4, 16 for IPv6).
    Src,
    /// The destination address.
    Dst,
}

impl HdrBuf {
    /// The header buffer `b` names, if it is one.
    pub(crate) fn of(b: Buffer) -> Option<HdrBuf> {
        Some(match b {
            Buffer::Ipv4Hdr => HdrBuf::Ipv4,
            Buffer::Ipv6Hdr => HdrBuf::Ipv6,
            Buffer::TcpHdr => HdrBuf::Tcp,
            Buffer::UdpHdr => HdrBuf::Udp,
            Buffer::Icmpv4Hdr => HdrBuf::Icmpv4,
            Buffer::Icmpv6Hdr => HdrBuf::Icmpv6,
            Buffer::IpSrc => HdrBuf::Src,
            Buffer::IpDst => HdrBuf::Dst,
            _ => return None,
        })
    }

    /// The buffer's bytes in `frame` for packet `p`, if `p` has that header.
    pub(crate) fn bytes<'a>(self, p: &'a wire::Packet, frame: &'a [u8]) -> Option<&'a [u8]> {
        let (l3, l4, pay) = (p.l3_off as usize, p.l4_off as usize, p.payload_off as usize);
        let range = |start: usize, len: usize| frame.get(start..start.checked_add(len)?);
        let l4_ok = l4 != 0 && l4 >= l3;
        match self {
            HdrBuf::Src | HdrBuf::Dst if p.ip_version == 0 => None,
            HdrBuf::Src | HdrBuf::Dst => {
                let a = if self == HdrBuf::Src { &p.src } else { &p.dst };
                Some(&a[..if p.ip_version == 4 { 4 } else { 16 }])
            }
            HdrBuf::Ipv4 if p.ip_version == 4 => {
                let ihl = usize::from(*frame.get(l3)? & 0x0f) * 4;
                range(l3, ihl)
            }
            HdrBuf::Ipv6 if p.ip_version == 6 => range(l3, ipv6_len(frame.get(l3..)?)),
            HdrBuf::Tcp if p.is_tcp() && l4_ok => {
                let off = usize::from(*frame.get(l4 + 12)? >> 4) * 4;
                range(l4, off)
            }
            HdrBuf::Udp if p.proto == wire::ip_proto::UDP && l4_ok => range(l4, 8),
            HdrBuf::Icmpv4 if p.proto == 1 && p.ip_version == 4 && l4_ok => {
                // The message ends with the IP payload (link padding left out).
                let end = (pay + p.payload_len as usize).clamp(l4, frame.len());
                range(l4, icmpv4_len(frame.get(l4..end)?))
            }
            HdrBuf::Icmpv6 if p.proto == 58 && p.ip_version == 6 && l4_ok => {
                range(l4, pay.saturating_sub(l4).max(8))
            }
            _ => None,
        }
    }
}

/// The length of the IPv6 header at the start of `ip` with its extension headers
/// (hop-by-hop, routing, destination options, AH, mobility, HIP, shim6, and the fragment
/// header of an atomic fragment), as far as they lie within `ip`: as Suricata counts
/// them, up to the fragment header of a real fragment.
fn ipv6_len(ip: &[u8]) -> usize {
    let mut nh = ip.get(6).copied().unwrap_or(0);
    let mut off = 40;
    // A bounded walk: a chain longer than this is malformed anyway.
    for _ in 0..16 {
        let len = match nh {
            // A fragment's header and what follows it are the fragment's data (counted
            // only in an atomic fragment: offset 0, no more fragments).
            44 => match ip.get(off + 2..off + 4) {
                Some(&[hi, lo]) if u16::from_be_bytes([hi, lo]) & 0xfff9 == 0 => 8,
                _ => break,
            },
            51 => ip.get(off + 1).map_or(0, |&l| (usize::from(l) + 2) * 4),
            0 | 43 | 60 | 135 | 139 | 140 => {
                ip.get(off + 1).map_or(0, |&l| (usize::from(l) + 1) * 8)
            }
            _ => break,
        };
        if len == 0 || off + len > ip.len() {
            break;
        }
        nh = ip[off];
        off += len;
    }
    off
}

/// The length of the ICMPv4 header at the start of `icmp` (the ICMP message up to its
/// end): 8 bytes, 20 for a timestamp request or reply, and a router advertisement's
/// address entries with them (as Suricata's decoder counts them).
fn icmpv4_len(icmp: &[u8]) -> usize {
    let want = match icmp.first() {
        Some(13 | 14) => 20,
        Some(9) => match (icmp.get(4), icmp.get(5)) {
            (Some(&n), Some(&size)) => 8 + usize::from(n) * usize::from(size) * 4,
            _ => 8,
        },
        _ => 8,
    };
    if want <= icmp.len() {
        want
    } else {
        8
    }
}

/// An IPv4 packet whose options broke its decoding has no header left for Suricata to
/// inspect (it clears it). An option of a length it cannot have within the header
/// (`opt_invalid_len` too, a timestamp of 3 bytes) leaves the header decoded.
fn header_cleared(p: &wire::Packet) -> bool {
    p.has(wire::flags::IP_HDR_BROKEN)
}

/// A program over one header buffer, with its transforms.
#[derive(Debug, Clone)]
pub(crate) struct HdrProg {
    buf: HdrBuf,
    transforms: Vec<Xform>,
    prog: Program,
}

impl HdrProg {
    /// The program `prog` over `buf` after `transforms`.
    pub(crate) fn new(buf: HdrBuf, transforms: Vec<Xform>, prog: Program) -> HdrProg {
        HdrProg {
            buf,
            transforms,
            prog,
        }
    }

    /// Whether the program matches packet `p`'s header buffer (false without one).
    pub(crate) fn matches(&self, p: &wire::Packet, frame: &[u8]) -> bool {
        if header_cleared(p) {
            return false;
        }
        let Some(b) = self.buf.bytes(p, frame) else {
            return false;
        };
        let mut vars = ProgVars::default();
        if self.transforms.is_empty() {
            self.prog.matches(b, &mut vars)
        } else {
            let (mut out, mut tmp) = (Vec::new(), Vec::new());
            transform::apply(&self.transforms, b, &mut out, &mut tmp);
            self.prog.matches(&out, &mut vars)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `frame` (Ethernet) and returns the packet.
    fn decode(frame: &[u8]) -> wire::Packet {
        let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
        let mut out = wire::Decoded::default();
        let len = frame.len() as u32;
        decoder.decode(
            wire::LinkType::ETHERNET,
            frame,
            wire::Timestamp(0),
            len,
            &mut out,
        );
        *out.packets().last().expect("one packet")
    }

    fn eth(ethertype: u16, l3: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&ethertype.to_be_bytes());
        f.extend_from_slice(l3);
        f
    }

    fn ipv4(proto: u8, opts: &[u8], l4: &[u8]) -> Vec<u8> {
        let hl = 20 + opts.len();
        let total = (hl + l4.len()) as u16;
        let mut h = vec![0x40 | (hl / 4) as u8, 0];
        h.extend_from_slice(&total.to_be_bytes());
        h.extend_from_slice(&[0, 1, 0, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        h.extend_from_slice(opts);
        h.extend_from_slice(l4);
        h
    }

    #[test]
    fn tcp_header_with_options_and_ipv4_header_with_options() {
        // TCP: data offset 6 (one 4-byte MSS option), then "hi".
        let mut tcp = vec![0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0x18];
        tcp.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0, 2, 4, 5, 0xb4]);
        tcp.extend_from_slice(b"hi");
        let f = eth(0x0800, &ipv4(6, &[1, 1, 1, 0], &tcp));
        let p = decode(&f);
        let t = HdrBuf::Tcp.bytes(&p, &f).unwrap();
        assert_eq!(t.len(), 24);
        assert_eq!(&t[20..], &[2, 4, 5, 0xb4]);
        assert_eq!(HdrBuf::Ipv4.bytes(&p, &f).unwrap().len(), 24);
        assert_eq!(HdrBuf::Src.bytes(&p, &f).unwrap(), &[10, 0, 0, 1]);
        assert_eq!(HdrBuf::Dst.bytes(&p, &f).unwrap(), &[10, 0, 0, 2]);
        assert!(HdrBuf::Udp.bytes(&p, &f).is_none());
        assert!(HdrBuf::Ipv6.bytes(&p, &f).is_none());
        assert!(HdrBuf::Icmpv4.bytes(&p, &f).is_none());
    }

    #[test]
    fn udp_and_icmp_headers() {
        let udp = [0, 53, 0x30, 0x39, 0, 10, 0, 0, b'a', b'b'];
        let f = eth(0x0800, &ipv4(17, &[], &udp));
        let p = decode(&f);
        assert_eq!(HdrBuf::Udp.bytes(&p, &f).unwrap(), &udp[..8]);
        let echo = [8, 0, 0, 0, 0, 1, 0, 2, b'x', b'y', b'z'];
        let f = eth(0x0800, &ipv4(1, &[], &echo));
        let p = decode(&f);
        assert_eq!(HdrBuf::Icmpv4.bytes(&p, &f).unwrap(), &echo[..8]);
    }

    #[test]
    fn only_options_that_break_the_header_clear_it() {
        // Suricata 7.0.10 (hand-made packets): `ipv4.hdr` still matches with a 3-byte
        // timestamp option (`opt_invalid_len`), not with an option running past the
        // header (`opt_invalid_len`, decoding stops).
        let udp = [0, 53, 0x30, 0x39, 0, 8, 0, 0];
        for (opts, cleared) in [(&[68u8, 3, 5, 0][..], false), (&[7, 40, 4, 0], true)] {
            let f = eth(0x0800, &ipv4(17, opts, &udp));
            let p = decode(&f);
            assert!(p.has_event(wire::Event::Ipv4OptInvalidLen), "{opts:?}");
            assert_eq!(header_cleared(&p), cleared, "{opts:?}");
        }
    }

    #[test]
    fn truncated_headers_have_no_buffer() {
        let tcp = [
            0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0xf0, 0x18, 0, 0, 0, 0, 0, 0,
        ];
        let f = eth(0x0800, &ipv4(6, &[], &tcp));
        let mut p = decode(&f);
        // A data offset of 15 words reaches past the frame: no buffer, no panic.
        p.l4_off = 34;
        assert!(HdrBuf::Tcp.bytes(&p, &f).is_none());
        p.l3_off = 10_000;
        assert!(HdrBuf::Ipv4.bytes(&p, &f).is_none());
    }
}

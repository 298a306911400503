//! The thin layer between the decoder's [`wire::Packet`] and the tracker's inputs, and a
//! driver that runs one decoded frame through defragmentation and flow tracking.

use wire::{flags as pf, ip_proto, Decoded, Decoder, Packet};

use crate::defrag::{DefragResult, FragKey, Fragment};
use crate::key::{Family, FlowKey};
use crate::tcp::TcpHeader;
use crate::tracker::{FlowTracker, PacketInfo, Update};

/// IP protocols Suricata keeps flows for.
pub(crate) fn wants_flow(proto: u8) -> bool {
    matches!(
        proto,
        ip_proto::TCP
            | ip_proto::UDP
            | ip_proto::ICMP
            | ip_proto::ICMPV6
            | ip_proto::SCTP
            | ip_proto::ESP
    )
}

fn family(p: &Packet) -> Option<Family> {
    match p.ip_version {
        4 => Some(Family::V4),
        6 => Some(Family::V6),
        _ => None,
    }
}

fn ts_us(p: &Packet) -> u64 {
    p.ts.0 / 1000
}

/// The flow key of a decoded packet (`None` without IP, for fragments, or for
/// protocols that get no flow).
pub fn flow_key(p: &Packet, buf: &[u8]) -> Option<FlowKey> {
    let fam = family(p)?;
    if p.has(pf::FRAGMENT) || !wants_flow(p.proto) || (p.l4_off == 0 && p.proto != ip_proto::ESP) {
        return None;
    }
    // An ICMPv4 destination-unreachable is keyed by the packet it quotes (Suricata
    // hashes it by the quoted tuple): one flow per quoted connection. Other ICMP
    // messages are keyed by their type (see [`icmp_ports`]).
    let (sport, dport) = match p.proto {
        1 if p.icmp_type == 3 => quoted_ports(p, buf).unwrap_or((0, 0)),
        ip_proto::ICMP => icmp_ports(p.icmp_type, ICMP4_PAIRS),
        ip_proto::ICMPV6 => icmp_ports(p.icmp_type, ICMP6_PAIRS),
        ip_proto::ESP => esp_ports(p, buf),
        _ => (p.sport, p.dport),
    };
    Some(FlowKey {
        src: p.src,
        dst: p.dst,
        sport,
        dport,
        vlan: p.vlan,
        proto: p.proto,
        family: fam,
        depth: p.depth,
    })
}

/// The key "ports" of an ESP packet: its SPI's two halves. Suricata 7.0.10 keeps one
/// flow per security association (SPI) between two hosts: sv-ether's frames 22191 and
/// 22193, `190.0.0.1 → 190.0.0.2` with SPIs 0x7b and 0x141, are two flows (an IP-only
/// rule alerts on both).
fn esp_ports(p: &Packet, buf: &[u8]) -> (u16, u16) {
    let at = p.l4_off as usize;
    match buf.get(at..at + 4) {
        Some(s) => (
            u16::from_be_bytes([s[0], s[1]]),
            u16::from_be_bytes([s[2], s[3]]),
        ),
        None => (0, 0),
    }
}

/// ICMPv4 request and reply types that share a flow (echo, timestamp, information,
/// address mask, router solicitation and advertisement), as Suricata 7 pairs them.
const ICMP4_PAIRS: &[(u8, u8)] = &[(8, 0), (13, 14), (15, 16), (17, 18), (10, 9)];

/// ICMPv6 request and reply types that share a flow (echo, MLD query and report,
/// router, neighbour, home-agent address discovery, mobile prefix, node information,
/// multicast router solicitation and advertisement).
const ICMP6_PAIRS: &[(u8, u8)] = &[
    (128, 129),
    (130, 131),
    (133, 134),
    (135, 136),
    (144, 145),
    (146, 147),
    (139, 140),
    (151, 152),
];

/// A value no ICMP type takes: the "counterpart" of a type that has none.
const NO_COUNTERPART: u16 = 0x100;

/// The key "ports" of an ICMP message of type `t`: the type and its counterpart. As in
/// Suricata 7 (checked by running it), an ICMP flow is one type between two hosts in
/// one direction, whatever the code, and a reply joins the flow of its request (in the
/// other direction, either one first): the request `A → B` keys `(t, r)` and the reply
/// `B → A` keys `(r, t)`, the same flow once the key is made symmetric. A type
/// without a counterpart keys `(t, NO_COUNTERPART)`, so the same type sent back is
/// another flow.
fn icmp_ports(t: u8, pairs: &[(u8, u8)]) -> (u16, u16) {
    let other = pairs.iter().find_map(|&(q, r)| {
        if q == t {
            Some(r)
        } else if r == t {
            Some(q)
        } else {
            None
        }
    });
    (u16::from(t), other.map_or(NO_COUNTERPART, u16::from))
}

/// The connection a packet quoted by an ICMPv4 error belongs to, from the error's
/// payload `q` (the quoted IPv4 packet): its source and destination addresses,
/// protocol (TCP or UDP only) and ports; `None` for anything else or a short quote.
pub fn icmp4_quoted(q: &[u8]) -> Option<Quoted> {
    let ihl = (*q.first()? as usize & 0x0f) * 4;
    if q[0] >> 4 != 4 || ihl < 20 {
        return None;
    }
    let proto = *q.get(9)?;
    if !matches!(proto, ip_proto::TCP | ip_proto::UDP) {
        return None;
    }
    let ports = q.get(ihl..ihl + 4)?;
    let a = |i: usize| [q[i], q[i + 1], q[i + 2], q[i + 3]];
    Some(Quoted {
        src: a(12),
        dst: a(16),
        proto,
        sport: u16::from_be_bytes([ports[0], ports[1]]),
        dport: u16::from_be_bytes([ports[2], ports[3]]),
    })
}

/// A packet quoted by an ICMPv4 error ([`icmp4_quoted`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quoted {
    /// Source address of the quoted packet.
    pub src: [u8; 4],
    /// Destination address of the quoted packet.
    pub dst: [u8; 4],
    /// 6 (TCP) or 17 (UDP).
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

/// Ports of the TCP/UDP header quoted by an ICMPv4 error (after the quoted IPv4 header).
fn quoted_ports(p: &Packet, buf: &[u8]) -> Option<(u16, u16)> {
    icmp4_quoted(p.payload(buf)).map(|q| (q.sport, q.dport))
}

/// For an ICMPv4 destination-unreachable quoting a TCP or UDP packet of this host pair:
/// the key of the quoted connection, seen from the ICMP sender (its source is the
/// quoted packet's destination). Suricata puts such an error in the quoted
/// connection's flow when that flow exists.
pub fn quoted_flow_key(p: &Packet, buf: &[u8]) -> Option<FlowKey> {
    if p.proto != ip_proto::ICMP || p.icmp_type != 3 || p.ip_version != 4 || p.has(pf::FRAGMENT) {
        return None;
    }
    let q = icmp4_quoted(p.payload(buf))?;
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src[..4].copy_from_slice(&q.dst);
    dst[..4].copy_from_slice(&q.src);
    Some(FlowKey {
        src,
        dst,
        sport: q.dport,
        dport: q.sport,
        vlan: p.vlan,
        proto: q.proto,
        family: Family::V4,
        depth: p.depth,
    })
}

/// The tracker input of a decoded packet; `buf` is the buffer it was decoded from.
pub fn packet_info<'a>(p: &Packet, buf: &'a [u8]) -> Option<PacketInfo<'a>> {
    let key = flow_key(p, buf)?;
    let tcp = (p.proto == ip_proto::TCP).then_some(TcpHeader {
        seq: p.seq,
        ack: p.ack,
        flags: p.tcp_flags,
        window: p.window,
        tfo: crate::tfo::syn_has_tfo(p, buf),
        wscale: p.has(pf::TCP_WSCALE).then_some(p.tcp_wscale),
        ts: crate::tcp_paws::timestamps(p, buf),
    });
    Some(PacketInfo {
        key,
        ts_us: ts_us(p),
        // As Suricata counts a flow's bytes: the captured frame, link header included;
        // for a decapsulated packet, the tunnelled bytes from its first layer on.
        len: p.caplen.saturating_sub(p.link_off),
        tcp,
        payload: p.payload(buf),
    })
}

/// [`packet_info`] for `tracker`: an ICMP error quoting a connection it tracks joins
/// that connection's flow, as in Suricata.
pub fn tracked_packet_info<'a>(
    tracker: &FlowTracker,
    p: &Packet,
    buf: &'a [u8],
) -> Option<PacketInfo<'a>> {
    let mut info = packet_info(p, buf)?;
    if let Some(q) = quoted_flow_key(p, buf) {
        if tracker.has_flow(&q) {
            info.key = q;
        }
    }
    Some(info)
}

/// The defragmentation input of a decoded IP fragment (`None` for anything else).
pub fn fragment<'a>(p: &Packet, buf: &'a [u8]) -> Option<Fragment<'a>> {
    if !p.has(pf::FRAGMENT) {
        return None;
    }
    let fam = family(p)?;
    let l3 = p.l3_off as usize;
    let data = p.payload(buf);
    let (hdr_end, v6_next) = match fam {
        Family::V4 => (p.payload_off as usize, None),
        Family::V6 => {
            let fh = (p.payload_off as usize).checked_sub(8)?;
            // Find the next-header byte that names the fragment header: the fixed
            // header's, or that of the last extension header before it.
            let mut nh_pos = 6usize;
            let mut pos = 40usize;
            while l3 + pos < fh {
                nh_pos = pos;
                pos += (*buf.get(l3 + pos + 1)? as usize + 1) * 8;
            }
            // The fragment header's own next header (the packet's protocol is
            // IPv6-Frag, 44, as in Suricata).
            (fh, Some((nh_pos, *buf.get(fh)?)))
        }
    };
    let header = buf.get(l3..hdr_end)?;
    let mut src = p.src;
    let mut dst = p.dst;
    if fam == Family::V4 {
        src[4..].fill(0);
        dst[4..].fill(0);
    }
    Some(Fragment {
        key: FragKey {
            src,
            dst,
            id: p.ip_id,
            proto: if fam == Family::V4 { p.proto } else { 0 },
            family: fam,
            vlan: p.vlan[0],
        },
        offset: p.frag_off as u32 * 8,
        more: p.has(pf::IP_MF),
        data,
        header,
        v6_next,
        ts_us: ts_us(p),
    })
}

/// Runs the packets of one decoded frame through defragmentation and the tracker,
/// calling `f` with each packet that has a flow and its [`Update`]. Reassembled
/// datagrams are decoded again with `decoder.decode_ip` (into `scratch`) and tracked
/// like captured packets. `buf` is the frame.
pub fn track_frame(
    tracker: &mut FlowTracker,
    decoder: &mut Decoder,
    decoded: &Decoded,
    buf: &[u8],
    scratch: &mut FrameScratch,
    mut f: impl FnMut(&Packet, &[u8], &Update<'_>),
) {
    for p in decoded.packets() {
        if let Some(frag) = fragment(p, buf) {
            if let DefragResult::Reassembled(dg) = tracker.defrag().insert(&frag) {
                scratch.datagram.clear();
                scratch.datagram.extend_from_slice(dg);
                decoder.decode_ip(&scratch.datagram, p, &mut scratch.decoded);
                for q in scratch.decoded.packets() {
                    if let Some(info) = tracked_packet_info(tracker, q, &scratch.datagram) {
                        if let Some(u) = tracker.packet(&info) {
                            f(q, &scratch.datagram, &u);
                        }
                    }
                }
            }
            continue;
        }
        if let Some(info) = tracked_packet_info(tracker, p, buf) {
            if let Some(u) = tracker.packet(&info) {
                f(p, buf, &u);
            }
        }
    }
}

/// Reusable buffers of [`track_frame`].
#[derive(Default)]
pub struct FrameScratch {
    datagram: Vec<u8>,
    decoded: Decoded,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flow of an ICMP message `a → b` of type `t`, as the table matches it.
    fn icmp_flow(a: u8, b: u8, t: u8, v6: bool) -> FlowKey {
        let (sport, dport) = if v6 {
            icmp_ports(t, ICMP6_PAIRS)
        } else {
            icmp_ports(t, ICMP4_PAIRS)
        };
        FlowKey::v4([10, 0, 0, a], sport, [10, 0, 0, b], dport, 1)
            .canonical()
            .0
    }

    #[test]
    fn icmp_flows_follow_suricatas_types_and_counterparts() {
        // Echo request and reply, either first, are one flow; so are the other pairs.
        assert_eq!(icmp_flow(1, 2, 8, false), icmp_flow(2, 1, 0, false));
        assert_eq!(icmp_flow(1, 2, 13, false), icmp_flow(2, 1, 14, false));
        assert_eq!(icmp_flow(1, 2, 10, false), icmp_flow(2, 1, 9, false));
        assert_eq!(icmp_flow(1, 2, 128, true), icmp_flow(2, 1, 129, true));
        assert_eq!(icmp_flow(1, 2, 135, true), icmp_flow(2, 1, 136, true));
        // Two requests in opposite directions, or a reply sent the request's way, are
        // not.
        assert_ne!(icmp_flow(1, 2, 8, false), icmp_flow(2, 1, 8, false));
        assert_ne!(icmp_flow(1, 2, 8, false), icmp_flow(1, 2, 0, false));
        // A type without a counterpart: one flow per direction, one per type.
        assert_eq!(icmp_flow(1, 2, 74, false), icmp_flow(1, 2, 74, false));
        assert_ne!(icmp_flow(1, 2, 74, false), icmp_flow(2, 1, 74, false));
        assert_ne!(icmp_flow(1, 2, 74, false), icmp_flow(1, 2, 174, false));
        assert_ne!(icmp_flow(1, 2, 141, true), icmp_flow(2, 1, 142, true));
    }

    /// sv-ether's frames 31335 and 31337: the echo request `1.1.1.1 → 2.2.2.2` inside
    /// an IPv6 tunnel, then the same bytes outside it. Suricata 7.0.10 keeps two flows
    /// (its recursion level is in the flow key): an IP-only rule alerts on both.
    #[test]
    fn a_tunnelled_packet_and_the_same_packet_outside_are_two_flows() {
        let icmp = [8u8, 0, 0x0a, 0x3b, 0, 0, 0, 1];
        let mut v4 = vec![
            0x45, 0, 0, 28, 0, 1, 0, 0, 64, 1, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
        ];
        v4.extend_from_slice(&icmp);
        let mut v6 = vec![0x60, 0, 0, 0, 0, 28, 4, 64];
        v6.extend_from_slice(&[0xfd, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
        v6.extend_from_slice(&[0xfd, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2]);
        v6.extend_from_slice(&v4);
        let mut dec = Decoder::new(wire::DecoderConfig::default());
        let key = |dec: &mut Decoder, frame: &[u8]| {
            let mut out = Decoded::new();
            dec.decode(wire::LinkType::RAW, frame, wire::Timestamp(0), 0, &mut out);
            let p = out.packets().last().copied().unwrap();
            (p.depth, flow_key(&p, frame).unwrap())
        };
        let (d_in, inner) = key(&mut dec, &v6);
        let (d_out, outer) = key(&mut dec, &v4);
        assert_eq!((d_in, d_out), (1, 0));
        assert_eq!(
            (inner.src, inner.dst, inner.proto),
            (outer.src, outer.dst, outer.proto)
        );
        assert_ne!(inner.canonical().0, outer.canonical().0);
        assert_ne!(inner.hash(), outer.hash());
    }

    /// sv-ether's frames 22200 and 22201: tags `[1, 10]` and `[1, 10, 100]` are two
    /// flows in Suricata 7.0.10 (it keys flows on three VLAN ids).
    #[test]
    fn a_third_vlan_tag_is_in_the_flow_key() {
        let ip = [
            0x45u8, 0, 0, 28, 0, 1, 0, 0, 64, 1, 0, 0, 192, 168, 0, 1, 255, 255, 255, 255, 8, 0,
            0xf7, 0xff, 0, 0, 0, 0,
        ];
        let frame = |tags: &[u16]| {
            let mut f = vec![0xffu8; 6];
            f.extend_from_slice(&[0, 1, 2, 3, 4, 5]);
            for t in tags {
                f.extend_from_slice(&[0x81, 0x00]);
                f.extend_from_slice(&t.to_be_bytes());
            }
            f.extend_from_slice(&[0x08, 0x00]);
            f.extend_from_slice(&ip);
            f
        };
        let mut dec = Decoder::new(wire::DecoderConfig::default());
        let mut key = |f: Vec<u8>| {
            let mut out = Decoded::new();
            dec.decode(
                wire::LinkType::ETHERNET,
                &f,
                wire::Timestamp(0),
                0,
                &mut out,
            );
            flow_key(&out.packets()[0], &f).unwrap()
        };
        let (two, three) = (key(frame(&[1, 10])), key(frame(&[1, 10, 100])));
        assert_eq!(three.vlan, [1, 10, 100]);
        assert_ne!(two, three);
        assert_eq!(two, key(frame(&[1, 10])));
    }

    /// sv-ether's frames 22191-22194: ESP between the same hosts with SPIs 0x7b and
    /// 0x141 are two flows, each SPI's packets one.
    #[test]
    fn esp_flows_are_one_per_spi() {
        let esp = |spi: u32, seq: u32| {
            let mut b = vec![
                0x45, 0, 0, 28, 0, 1, 0, 0, 64, 50, 0, 0, 190, 0, 0, 1, 190, 0, 0, 2,
            ];
            b.extend_from_slice(&spi.to_be_bytes());
            b.extend_from_slice(&seq.to_be_bytes());
            b
        };
        let mut dec = Decoder::new(wire::DecoderConfig::default());
        let mut key = |frame: Vec<u8>| {
            let mut out = Decoded::new();
            dec.decode(wire::LinkType::RAW, &frame, wire::Timestamp(0), 0, &mut out);
            flow_key(&out.packets()[0], &frame).unwrap()
        };
        let (a1, a2, b1) = (key(esp(0x7b, 1)), key(esp(0x7b, 2)), key(esp(0x141, 1)));
        assert_eq!(a1, a2);
        assert_ne!(a1, b1);
        assert_eq!((a1.sport, a1.dport), (0, 0x7b));
    }
}

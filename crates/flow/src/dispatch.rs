//! The dispatch key of a raw frame: which worker's flows a frame belongs to, read from
//! its bytes before (or instead of) a full decode.
//!
//! The key is the symmetric address pair of the packet that gets a flow (ports,
//! protocol and VLAN ids left out), so both directions of a conversation, the fragments
//! of a datagram, the datagram rebuilt from them and ICMP errors quoting a connection
//! all reach the worker that holds that connection's flow.

use crate::FlowKey;
use wire::{ip_proto, Decoded, Decoder, LinkType};

/// The symmetric dispatch hash of a frame: both directions of a conversation (and all
/// fragments of a datagram) give the same value. Frames without an IP header hash to 0.
/// `decoder` and `decoded` are reused scratch space.
///
/// The address pair hashed is that of the outermost packet that gets a flow (TCP, UDP,
/// ICMP, SCTP, ESP) or is a fragment: for an IP-in-IP or GRE tunnel, which gets no flow
/// of its own, the tunnelled packet's, so that its flow meets the same flow seen outside
/// the tunnel; for a UDP tunnel (VXLAN, Teredo, ...), the outer flow's. An ICMPv4
/// destination-unreachable hashes the pair it quotes (see [`icmp4_quoted_pair`]).
///
/// The reader shares the cores with the workers, so the common case is read directly:
/// an Ethernet frame (VLAN tags skipped) carrying IPv4 or IPv6 that is not a tunnel
/// hashes the header's addresses without a full decode; any other frame is decoded,
/// giving the same value for the same addresses.
pub fn dispatch_hash(
    decoder: &mut Decoder,
    decoded: &mut Decoded,
    link: LinkType,
    data: &[u8],
) -> u64 {
    match ethernet_ip_pair(link, data) {
        Some(key) => key.hash(),
        None => decoded_dispatch_key(decoder, decoded, link, data).map_or(0, |k| k.hash()),
    }
}

/// The dispatch key of [`dispatch_hash`] from a full decode (`None` without IP).
fn decoded_dispatch_key(
    decoder: &mut Decoder,
    decoded: &mut Decoded,
    link: LinkType,
    data: &[u8],
) -> Option<FlowKey> {
    decoder.decode(link, data, wire::Timestamp(0), data.len() as u32, decoded);
    let pkts = decoded.packets();
    let flowing =
        |p: &&wire::Packet| p.has(wire::flags::FRAGMENT) || crate::adapter::wants_flow(p.proto);
    let p = pkts
        .iter()
        .filter(|p| p.ip_version != 0)
        .find(flowing)
        .or_else(|| pkts.iter().find(|p| p.ip_version != 0))?;
    let quoted = (p.ip_version == 4)
        .then(|| data.get(p.l3_off as usize..).and_then(icmp4_quoted_pair))
        .flatten();
    let key = if let Some((a, b)) = quoted {
        FlowKey::v4(a, 0, b, 0, 0)
    } else if p.ip_version == 4 {
        FlowKey::v4(
            [p.src[0], p.src[1], p.src[2], p.src[3]],
            0,
            [p.dst[0], p.dst[1], p.dst[2], p.dst[3]],
            0,
            0,
        )
    } else {
        FlowKey::v6(p.src, 0, p.dst, 0, 0)
    };
    // VLAN ids stay out of the dispatch hash: with `vlan.use-for-tracking: false` the
    // two directions of a flow may carry different tags and must meet in one worker.
    Some(key)
}

/// IP-in-IP (IPv4 or IPv6 inside) and GRE: tunnels that get no flow of their own.
fn is_tunnel(proto: u8) -> bool {
    matches!(proto, ip_proto::IPIP | ip_proto::IPV6 | ip_proto::GRE)
}

/// The address pair quoted by an unfragmented ICMPv4 destination-unreachable that
/// quotes a TCP or UDP packet, given the IPv4 packet: the pipeline puts such an error in
/// the quoted connection's flow ([`crate::adapter::quoted_flow_key`]), which lives with
/// that pair, not with the error's sender (often a router).
fn icmp4_quoted_pair(ip: &[u8]) -> Option<([u8; 4], [u8; 4])> {
    let ihl = (*ip.first()? as usize & 0x0f) * 4;
    let fragment = u16::from_be_bytes([*ip.get(6)?, *ip.get(7)?]) & 0x3fff != 0;
    if ihl < 20 || *ip.get(9)? != 1 || fragment {
        return None;
    }
    let icmp = ip.get(ihl..)?;
    if *icmp.first()? != 3 {
        return None;
    }
    let q = crate::adapter::icmp4_quoted(icmp.get(8..)?)?;
    Some((q.src, q.dst))
}

/// The outer address pair of an Ethernet frame carrying a well-formed IPv4 or IPv6
/// header, after up to two VLAN tags, as the dispatch key (ports, protocol and VLAN ids
/// left out as in [`dispatch_hash`]); `None` for anything else.
fn ethernet_ip_pair(link: LinkType, data: &[u8]) -> Option<FlowKey> {
    if link != LinkType::ETHERNET {
        return None;
    }
    let mut off = 12;
    let mut ethertype = u16::from_be_bytes([*data.get(off)?, *data.get(off + 1)?]);
    for _ in 0..2 {
        if !matches!(ethertype, 0x8100 | 0x88a8 | 0x9100) {
            break;
        }
        off += 4;
        ethertype = u16::from_be_bytes([*data.get(off)?, *data.get(off + 1)?]);
    }
    let ip = data.get(off + 2..)?;
    match ethertype {
        0x0800 => {
            let h = ip.get(..20)?;
            if h[0] >> 4 != 4 || h[0] & 0x0f < 5 {
                return None;
            }
            let fragment = u16::from_be_bytes([h[6], h[7]]) & 0x3fff != 0;
            if !fragment && is_tunnel(h[9]) {
                return None;
            }
            if let Some((a, b)) = icmp4_quoted_pair(ip) {
                return Some(FlowKey::v4(a, 0, b, 0, 0));
            }
            let a = |i: usize| [h[i], h[i + 1], h[i + 2], h[i + 3]];
            Some(FlowKey::v4(a(12), 0, a(16), 0, 0))
        }
        0x86dd => {
            let h = ip.get(..40)?;
            if h[0] >> 4 != 6 {
                return None;
            }
            // Past hop-by-hop, routing and destination options headers (MLD messages
            // carry one): a tunnel takes the full decode.
            let (mut next, mut off) = (h[6], 40);
            for _ in 0..4 {
                if !matches!(next, 0 | 43 | 60) {
                    break;
                }
                let ext = ip.get(off..off + 2)?;
                next = ext[0];
                off += (ext[1] as usize + 1) * 8;
            }
            if is_tunnel(next) || matches!(next, 0 | 43 | 60) {
                return None;
            }
            let a = |i: usize| {
                let mut b = [0u8; 16];
                b.copy_from_slice(&h[i..i + 16]);
                b
            };
            Some(FlowKey::v6(a(8), 0, a(24), 0, 0))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capture::{Batch, Source};
    use wire::DecoderConfig;

    /// An ICMPv4 port-unreachable from a router (192.0.2.1) about a UDP packet from
    /// 10.0.0.1 to 10.0.0.2 goes with the pair it quotes, read directly or decoded.
    #[test]
    fn icmp_errors_go_with_the_connection_they_quote() {
        let ipv4 = |proto: u8, src: [u8; 4], dst: [u8; 4], payload: &[u8]| {
            let mut h = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, proto, 0, 0];
            h.extend_from_slice(&src);
            h.extend_from_slice(&dst);
            let len = (h.len() + payload.len()) as u16;
            h[2..4].copy_from_slice(&len.to_be_bytes());
            h.extend_from_slice(payload);
            h
        };
        let udp = [0x30, 0x39, 0, 53, 0, 8, 0, 0];
        let quoted = ipv4(17, [10, 0, 0, 1], [10, 0, 0, 2], &udp);
        let mut icmp = vec![3, 3, 0, 0, 0, 0, 0, 0];
        icmp.extend_from_slice(&quoted);
        let mut frame = vec![0u8; 12];
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&ipv4(1, [192, 0, 2, 1], [10, 0, 0, 1], &icmp));
        let want = FlowKey::v4([10, 0, 0, 1], 0, [10, 0, 0, 2], 0, 0).hash();
        let key = ethernet_ip_pair(LinkType::ETHERNET, &frame).expect("read directly");
        assert_eq!(key.hash(), want);
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let key = decoded_dispatch_key(&mut decoder, &mut decoded, LinkType::ETHERNET, &frame);
        assert_eq!(key.map(|k| k.hash()), Some(want));
        // An echo request from the router stays with the router's pair.
        let mut echo = frame.clone();
        echo[14 + 20] = 8;
        let key = ethernet_ip_pair(LinkType::ETHERNET, &echo).expect("read directly");
        assert_eq!(
            key.hash(),
            FlowKey::v4([192, 0, 2, 1], 0, [10, 0, 0, 1], 0, 0).hash()
        );
    }

    /// The frames of sv-ether.pcap, or `None` (skipped) without the shared data.
    fn sv_ether() -> Option<Box<dyn Source>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/pcaps/sv-ether.pcap");
        if !path.exists() {
            if std::env::var_os("OSPREY_REQUIRE_DATA").is_some_and(|v| v == "1") {
                panic!("OSPREY_REQUIRE_DATA=1 but {} is missing", path.display());
            }
            eprintln!("skipped: {} not found", path.display());
            return None;
        }
        Some(capture::open(&path).expect("pcap opens"))
    }

    /// The direct read of Ethernet/IP frames gives the full decode's key on every frame
    /// of sv-ether.pcap it reads (VLAN, IPv4, IPv6, fragments, ICMP errors, broken
    /// headers), and reads nine frames in ten.
    #[test]
    fn direct_dispatch_hash_equals_the_decoded_one() {
        let Some(mut src) = sv_ether() else {
            return;
        };
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let mut batch = Batch::new();
        let (mut direct, mut frames) = (0, 0);
        while src.next_batch(&mut batch, 128).expect("reads") > 0 {
            for f in batch.iter() {
                frames += 1;
                let Some(fast) = ethernet_ip_pair(f.link, f.data) else {
                    continue;
                };
                direct += 1;
                match decoded_dispatch_key(&mut decoder, &mut decoded, f.link, f.data) {
                    Some(key) => assert_eq!(fast.hash(), key.hash(), "frame {}", f.index),
                    None => continue, // broken IP header: any worker will do
                }
            }
        }
        assert!(
            direct * 10 > frames * 9,
            "{direct} of {frames} frames read directly"
        );
    }

    /// Frames that the pipeline puts in one flow go to one worker though their outer
    /// addresses differ: sv-ether.pcap's TCP 10.1.0.1:80 -> 10.1.0.2:80 carried bare
    /// (frame 2132) and inside IPv6 (4in6, frame 2133).
    #[test]
    fn tunnelled_packets_go_with_their_flow() {
        let Some(mut src) = sv_ether() else {
            return;
        };
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let mut batch = Batch::new();
        let mut hashes = std::collections::HashMap::new();
        while src.next_batch(&mut batch, 128).expect("reads") > 0 {
            for f in batch.iter() {
                if matches!(f.index, 2132 | 2133) {
                    let h = dispatch_hash(&mut decoder, &mut decoded, f.link, f.data);
                    hashes.insert(f.index, h);
                }
            }
        }
        assert_eq!(hashes.len(), 2);
        assert_eq!(hashes[&2132], hashes[&2133]);
        let pair = |a: [u8; 4], b: [u8; 4]| FlowKey::v4(a, 0, b, 0, 0).hash();
        assert_eq!(hashes[&2132], pair([10, 1, 0, 1], [10, 1, 0, 2]));
    }
}

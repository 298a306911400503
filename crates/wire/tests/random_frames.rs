//! Property tests: the decoder never panics and every range it reports lies inside the
//! frame, for random bytes under every link type, and for random bytes behind valid
//! headers (so the deep decoders are reached too).

use proptest::prelude::*;
use wire::{Decoded, Decoder, DecoderConfig, LinkType, Timestamp, MAX_PACKETS};

const LINK_TYPES: &[LinkType] = &[
    LinkType::NULL,
    LinkType::ETHERNET,
    LinkType::PPP,
    LinkType::RAW_OLD,
    LinkType::RAW_OPENBSD,
    LinkType::PPP_HDLC,
    LinkType::PPP_ETHER,
    LinkType::RAW,
    LinkType::C_HDLC,
    LinkType::LOOP,
    LinkType::LINUX_SLL,
    LinkType::IPV4,
    LinkType::IPV6,
    LinkType::LINUX_SLL2,
    LinkType(9999),
];

/// Header prefixes that steer random tails into specific decoders.
fn prefixes() -> Vec<(LinkType, Vec<u8>)> {
    let eth = |ty: u16| {
        let mut v = vec![0u8; 12];
        v.extend_from_slice(&ty.to_be_bytes());
        v
    };
    let ip4 = |proto: u8| {
        vec![
            0x45, 0, 0x05, 0xdc, 0, 0, 0, 0, 64, proto, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
        ]
    };
    let ip6 = |nh: u8| {
        let mut v = vec![0x60, 0, 0, 0, 0x05, 0xdc, nh, 64];
        v.extend_from_slice(&[0u8; 32]);
        v
    };
    let mut out = Vec::new();
    for ty in [
        0x0800u16, 0x86dd, 0x8100, 0x88a8, 0x8847, 0x8864, 0x8863, 0x8926, 0x88e7, 0x894f, 0x8903,
    ] {
        out.push((LinkType::ETHERNET, eth(ty)));
    }
    for proto in [1u8, 4, 6, 17, 41, 47, 50, 58, 132] {
        out.push((LinkType::RAW, ip4(proto)));
    }
    for nh in [0u8, 4, 6, 17, 41, 43, 44, 47, 50, 51, 58, 59, 60, 135] {
        out.push((LinkType::RAW, ip6(nh)));
    }
    // UDP towards the tunnel ports.
    for port in [4789u16, 6081, 3544] {
        let mut v = ip4(17);
        v.extend_from_slice(&[0x12, 0x34]);
        v.extend_from_slice(&port.to_be_bytes());
        v.extend_from_slice(&[0x05, 0xc8, 0, 0]);
        out.push((LinkType::RAW, v));
    }
    // GRE with each payload protocol.
    for proto in [0x0800u16, 0x86dd, 0x880b, 0x6558, 0x88be, 0x22eb, 0x8100] {
        let mut v = ip4(47);
        v.extend_from_slice(&[0x10, 0x00]);
        v.extend_from_slice(&proto.to_be_bytes());
        v.extend_from_slice(&[0, 0, 0, 1]);
        out.push((LinkType::RAW, v));
    }
    out
}

/// Checks that everything the decoder reports points inside `frame`.
fn check(frame: &[u8], out: &Decoded) {
    assert!(!out.is_empty() && out.len() <= MAX_PACKETS);
    let len = frame.len() as u64;
    for (i, p) in out.packets().iter().enumerate() {
        assert!(u64::from(p.link_off) <= len);
        assert!(u64::from(p.l3_off) <= len);
        assert!(u64::from(p.l4_off) <= len);
        assert!(u64::from(p.payload_off) + u64::from(p.payload_len) <= len);
        assert_eq!(p.payload(frame).len(), p.payload_len as usize);
        assert!(usize::from(p.parent) <= i);
        assert!(p.events().count() <= wire::MAX_EVENTS);
        // Accessors re-create views without panicking.
        let _ = (p.ipv4(frame), p.ipv6(frame), p.tcp(frame), p.udp(frame));
        let _ = (p.src_ip(), p.dst_ip());
    }
}

fn decode_all(link: LinkType, frame: &[u8], verify: bool) {
    let mut dec = Decoder::new(DecoderConfig {
        verify_checksums: verify,
        ipv4_in_ipv4: true,
        ..DecoderConfig::default()
    });
    let mut out = Decoded::new();
    dec.decode(link, frame, Timestamp(1), frame.len() as u32, &mut out);
    check(frame, &out);
    let outer = *out.outer();
    dec.decode_ip(frame, &outer, &mut out);
    check(frame, &out);
    let pkts = dec.stats().counters().find(|(n, _)| *n == "decoder.pkts");
    assert_eq!(pkts, Some(("decoder.pkts", 1)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_every_link_type(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        verify in any::<bool>(),
    ) {
        for &lt in LINK_TYPES {
            decode_all(lt, &bytes, verify);
        }
    }

    #[test]
    fn random_tails_behind_valid_headers(
        which in any::<prop::sample::Index>(),
        tail in proptest::collection::vec(any::<u8>(), 0..200),
        verify in any::<bool>(),
    ) {
        let all = prefixes();
        let (lt, prefix) = &all[which.index(all.len())];
        let mut frame = prefix.clone();
        frame.extend_from_slice(&tail);
        // Also every truncation of it.
        for cut in [frame.len(), frame.len() / 2, prefix.len(), prefix.len().saturating_sub(1)] {
            decode_all(*lt, &frame[..cut], verify);
        }
    }
}

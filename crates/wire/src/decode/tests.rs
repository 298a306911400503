//! Decoder tests on handcrafted frames, malformed ones included.

use super::*;
use crate::checksum;
use crate::packet::flags as f;

// ---- frame builders -------------------------------------------------------------

fn eth(ty: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    v.extend_from_slice(&ty.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

const SRC4: [u8; 4] = [10, 0, 0, 1];
const DST4: [u8; 4] = [10, 0, 0, 2];

fn ipv4_opts(proto: u8, opts: &[u8], frag: u16, payload: &[u8]) -> Vec<u8> {
    assert!(opts.len().is_multiple_of(4));
    let hl = 20 + opts.len();
    let tl = (hl + payload.len()) as u16;
    let mut v = vec![0x40 | (hl / 4) as u8, 0x10];
    v.extend_from_slice(&tl.to_be_bytes());
    v.extend_from_slice(&[0x12, 0x34]);
    v.extend_from_slice(&frag.to_be_bytes());
    v.extend_from_slice(&[64, proto, 0, 0]);
    v.extend_from_slice(&SRC4);
    v.extend_from_slice(&DST4);
    v.extend_from_slice(opts);
    let c = checksum::checksum(&v);
    v[10..12].copy_from_slice(&c.to_be_bytes());
    v.extend_from_slice(payload);
    fix_l4(&mut v, 4, hl, proto);
    v
}

fn ipv4(proto: u8, payload: &[u8]) -> Vec<u8> {
    ipv4_opts(proto, &[], 0, payload)
}

fn src6() -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[15] = 1;
    a
}

fn dst6() -> [u8; 16] {
    let mut a = src6();
    a[15] = 2;
    a
}

/// IPv6 with `exts` (already-encoded extension headers whose chain ends in `l4`).
fn ipv6_ext(nh: u8, exts: &[u8], l4: u8, payload: &[u8]) -> Vec<u8> {
    let plen = (exts.len() + payload.len()) as u16;
    let mut v = vec![0x60, 0, 0, 0];
    v.extend_from_slice(&plen.to_be_bytes());
    v.extend_from_slice(&[nh, 64]);
    v.extend_from_slice(&src6());
    v.extend_from_slice(&dst6());
    v.extend_from_slice(exts);
    v.extend_from_slice(payload);
    fix_l4(&mut v, 6, 40 + exts.len(), l4);
    v
}

fn ipv6(nh: u8, payload: &[u8]) -> Vec<u8> {
    ipv6_ext(nh, &[], nh, payload)
}

/// Fills in the L4 checksum of TCP/UDP/ICMP/ICMPv6 at `l4` in an IP packet.
fn fix_l4(v: &mut [u8], version: u8, l4: usize, proto: u8) {
    let at = match proto {
        6 => 16,
        17 => 6,
        1 | 58 => 2,
        _ => return,
    };
    if v.len() < l4 + at + 2 {
        return;
    }
    let seg_len = (v.len() - l4) as u32;
    let pseudo = match (version, proto) {
        (_, 1) => 0,
        (4, _) => checksum::pseudo_header_v4(&SRC4, &DST4, proto, seg_len),
        _ => checksum::pseudo_header_v6(&src6(), &dst6(), proto, seg_len),
    };
    v[l4 + at] = 0;
    v[l4 + at + 1] = 0;
    let c = checksum::compute_with_pseudo(pseudo, &v[l4..]);
    v[l4 + at..l4 + at + 2].copy_from_slice(&c.to_be_bytes());
}

fn tcp(sport: u16, dport: u16, flags: u8, opts: &[u8], payload: &[u8]) -> Vec<u8> {
    assert!(opts.len().is_multiple_of(4));
    let mut v = Vec::new();
    v.extend_from_slice(&sport.to_be_bytes());
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&1000u32.to_be_bytes());
    v.extend_from_slice(&2000u32.to_be_bytes());
    v.push((((20 + opts.len()) / 4) as u8) << 4);
    v.push(flags);
    v.extend_from_slice(&[0x20, 0x00, 0, 0, 0, 0]);
    v.extend_from_slice(opts);
    v.extend_from_slice(payload);
    v
}

fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&sport.to_be_bytes());
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(payload);
    v
}

fn icmp(ty: u8, code: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![ty, code, 0, 0, 0, 1, 0, 1];
    v.extend_from_slice(payload);
    v
}

fn run_cfg(cfg: DecoderConfig, link: LinkType, frame: &[u8]) -> (Decoder, Decoded) {
    let mut d = Decoder::new(cfg);
    let mut out = Decoded::new();
    d.decode(link, frame, Timestamp(7), frame.len() as u32, &mut out);
    (d, out)
}

fn run(link: LinkType, frame: &[u8]) -> (Decoder, Decoded) {
    run_cfg(
        DecoderConfig {
            verify_checksums: true,
            ..DecoderConfig::default()
        },
        link,
        frame,
    )
}

fn count(d: &Decoder, c: Counter) -> u64 {
    d.stats().get(c)
}

fn ev(d: &Decoder, e: Event) -> u64 {
    d.stats().event_count(e)
}

// ---- Ethernet / IPv4 / TCP ------------------------------------------------------

#[test]
fn ethernet_ipv4_tcp_with_options() {
    let opts = [
        2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
    ];
    let seg = tcp(1234, 80, 0x02, &opts, b"GET /");
    let frame = eth(0x0800, &ipv4(6, &seg));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(out.len(), 1);
    let p = out.outer();
    assert_eq!(p.ip_version, 4);
    assert_eq!(p.src_ip(), Some("10.0.0.1".parse().unwrap()));
    assert_eq!(p.dst_ip(), Some("10.0.0.2".parse().unwrap()));
    assert_eq!((p.sport, p.dport, p.proto), (1234, 80, 6));
    assert_eq!(
        (p.seq, p.ack, p.tcp_flags, p.window),
        (1000, 2000, 0x02, 0x2000)
    );
    assert_eq!((p.ttl, p.tos, p.ip_id), (64, 0x10, 0x1234));
    assert_eq!(p.l3_off, 14);
    assert_eq!(p.l4_off, 34);
    assert_eq!(p.payload(&frame), b"GET /");
    assert!(p.is_tcp());
    for fl in [f::TCP_MSS, f::TCP_SACK_PERM, f::TCP_TS, f::TCP_WSCALE] {
        assert!(p.has(fl), "flag {fl:#x}");
    }
    assert_eq!(p.tcp_wscale, 7);
    assert!(p.has(f::IP_CSUM_OK) && p.has(f::L4_CSUM_OK));
    assert_eq!(p.ts, Timestamp(7));
    let t = p.tcp(&frame).unwrap();
    assert_eq!(t.header_len(), 40);
    assert_eq!(p.ipv4(&frame).unwrap().ttl(), 64);
    for c in [
        Counter::Pkts,
        Counter::Ethernet,
        Counter::Ipv4,
        Counter::Tcp,
    ] {
        assert_eq!(count(&d, c), 1, "{}", c.name());
    }
    assert_eq!(count(&d, Counter::Bytes), frame.len() as u64);
    assert_eq!(count(&d, Counter::Invalid), 0);
}

#[test]
fn ethernet_padding_is_not_payload() {
    let mut frame = eth(0x0800, &ipv4(6, &tcp(1, 2, 0x10, &[], b"x")));
    frame.extend_from_slice(&[0; 6]);
    let (_, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(out.outer().payload(&frame), b"x");
    assert!(out.outer().has(f::L4_CSUM_OK));
}

#[test]
fn accepts_what_an_ids_must_see() {
    // SYN+FIN, zero ports, bad checksums: decoded, flagged, not rejected.
    let mut frame = eth(0x0800, &ipv4(6, &tcp(0, 0, 0x03, &[], b"")));
    frame[14 + 10] ^= 0xff; // IPv4 header checksum
    frame[14 + 20 + 16] ^= 0xff; // TCP checksum
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(p.is_tcp());
    assert_eq!((p.sport, p.dport, p.tcp_flags), (0, 0, 0x03));
    assert!(p.has(f::IP_CSUM_BAD) && p.has(f::L4_CSUM_BAD));
    assert!(!p.has(f::INVALID));
    assert_eq!(count(&d, Counter::Ipv4ChecksumBad), 1);
    assert_eq!(count(&d, Counter::TcpChecksumBad), 1);
    // Without verification (-k none) nothing is computed.
    let (_, out) = run_cfg(DecoderConfig::default(), LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(!p.has(f::IP_CSUM_BAD | f::IP_CSUM_OK | f::L4_CSUM_BAD | f::L4_CSUM_OK));
}

#[test]
fn ipv4_malformed() {
    let good = ipv4(6, &tcp(1, 2, 0x10, &[], b"abc"));
    // Truncated: total length larger than what was captured.
    let frame = eth(0x0800, &good[..good.len() - 1]);
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(ev(&d, Event::Ipv4TruncPkt), 1);
    assert!(out.outer().has(f::INVALID));
    assert!(out.outer().has_event(Event::Ipv4TruncPkt));
    assert_eq!(count(&d, Counter::Invalid), 1);
    assert_eq!(count(&d, Counter::Tcp), 0);
    // Too small, wrong version, bad IHL, total length below IHL.
    let cases: [(Vec<u8>, Event); 4] = [
        (good[..19].to_vec(), Event::Ipv4PktTooSmall),
        (
            [&[0x65u8][..], &good[1..]].concat(),
            Event::Ipv4WrongIpVersion,
        ),
        (
            [&[0x44u8][..], &good[1..]].concat(),
            Event::Ipv4HlenTooSmall,
        ),
        (
            [&good[..2], &[0, 10][..], &good[4..]].concat(),
            Event::Ipv4IplenSmallerThanHlen,
        ),
    ];
    for (ip, e) in cases {
        let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
        assert_eq!(ev(&d, e), 1, "{}", e.name());
        assert_eq!(count(&d, Counter::Ipv4), 1);
        assert_eq!(count(&d, Counter::Invalid), 1);
        assert_eq!(out.outer().ip_version, 0);
    }
}

#[test]
fn ipv4_options() {
    // Router alert + NOP padding: fine.
    let ip = ipv4_opts(17, &[148, 4, 0, 0, 1, 1, 1, 0], 0, &udp(5, 6, b"zz"));
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert!(out.outer().has(f::IPV4_OPTS));
    assert!(out.outer().is_udp());
    assert_eq!(out.outer().events().count(), 0);
    assert_eq!(count(&d, Counter::Udp), 1);
    // Option length running past the header: decoding stops.
    let ip = ipv4_opts(17, &[148, 9, 0, 0], 0, &udp(5, 6, b"zz"));
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert_eq!(ev(&d, Event::Ipv4OptInvalidLen), 1);
    assert!(out.outer().has(f::INVALID));
    assert!(out.outer().has(f::IP_HDR_BROKEN));
    assert_eq!(count(&d, Counter::Udp), 0);
    // Lengths an option cannot have and bad pointers, as Suricata 7.0.10 names them
    // (difftest `events/ipv4opt`); the datagram still decodes.
    for (opts, event) in [
        (&[68u8, 3, 5, 0][..], Event::Ipv4OptInvalidLen),
        (
            &[68, 12, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Event::Ipv4OptMalformed,
        ),
        (&[136, 3, 0, 1], Event::Ipv4OptInvalidLen),
        (&[25, 6, 0, 0, 0, 0, 0, 0], Event::Ipv4OptInvalidLen),
        (&[134, 8, 0, 0, 0, 0, 0, 0], Event::Ipv4OptInvalidLen),
        (&[7, 7, 2, 0, 0, 0, 0, 0], Event::Ipv4OptMalformed),
    ] {
        let ip = ipv4_opts(17, opts, 0, &udp(5, 6, b""));
        let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
        assert_eq!(ev(&d, event), 1, "{opts:?}");
        assert!(out.outer().is_udp(), "{opts:?}");
        assert!(!out.outer().has(f::IP_HDR_BROKEN), "{opts:?}");
    }
    // Valid: a timestamp pointer at a later entry, any flag; a source route whose data
    // is not whole addresses.
    for opts in [
        &[68u8, 12, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0][..],
        &[131, 6, 4, 0, 0, 0, 0, 0],
        &[137, 3, 4, 0],
    ] {
        let ip = ipv4_opts(17, opts, 0, &udp(5, 6, b""));
        let (_, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
        let pad = usize::from(opts.len() % 8 != 0);
        assert_eq!(out.outer().events().count(), pad, "{opts:?}");
    }
    // Duplicate and unknown options are events only.
    let ip = ipv4_opts(
        17,
        &[148, 4, 0, 0, 148, 4, 0, 0, 99, 2, 1, 0],
        0,
        &udp(5, 6, b""),
    );
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert_eq!(ev(&d, Event::Ipv4OptDuplicate), 1);
    assert_eq!(ev(&d, Event::Ipv4OptInvalid), 1);
    assert!(out.outer().is_udp()); // A last type byte with no room for its length: an event, the UDP decodes (as in
                                   // Suricata 7.0.10, see tests/parity/cases/ipopts-names).
    let ip = ipv4_opts(17, &[1, 1, 1, 7], 0, &udp(5, 6, b"zz"));
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert_eq!(ev(&d, Event::Ipv4OptEolRequired), 1);
    assert!(out.outer().is_udp());
    assert!(!out.outer().has(f::INVALID));
}

#[test]
fn ipv4_option_area_not_padded_to_eight_bytes() {
    // Suricata 7.0.10 raises `opt_pad_required` on every option area of 4, 12, 20 ...
    // bytes, whatever it holds (NOPs, an EOL first, a broken option), never on 8, 16 ...
    for n in (4..=40).step_by(4) {
        for fill in [1u8, 0] {
            let ip = ipv4_opts(17, &vec![fill; n], 0, &udp(5, 6, b""));
            let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
            assert_eq!(
                ev(&d, Event::Ipv4OptPadRequired),
                (n % 8 / 4) as u64,
                "{n} x {fill}"
            );
            assert!(out.outer().is_udp());
        }
    }
    // A length past the area still stops decoding, the padding event raised first.
    let ip = ipv4_opts(17, &[7, 40, 4, 0], 0, &udp(5, 6, b""));
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert_eq!(ev(&d, Event::Ipv4OptPadRequired), 1);
    assert_eq!(ev(&d, Event::Ipv4OptInvalidLen), 1);
    assert!(out.outer().has(f::IP_HDR_BROKEN));
}

#[test]
fn ipv4_option_lengths_pointers_and_duplicates() {
    // Hand-made options through Suricata 7.0.10, 8-byte areas (no padding event).
    let (il, mf, dup) = (
        Event::Ipv4OptInvalidLen,
        Event::Ipv4OptMalformed,
        Event::Ipv4OptDuplicate,
    );
    for (opts, want) in [
        (&[130u8, 2, 0, 0, 0, 0, 0, 0][..], Some(il)),
        (&[130, 3, 0, 0, 0, 0, 0, 0], None),
        (&[133, 2, 0, 0, 0, 0, 0, 0], Some(il)),
        (&[7, 2, 0, 0, 0, 0, 0, 0], Some(il)),
        (&[137, 2, 0, 0, 0, 0, 0, 0], Some(il)),
        (&[148, 5, 0, 0, 0, 0, 0, 0], Some(il)),
        (&[148, 4, 0xff, 0xff, 0, 0, 0, 0], None),
        (&[7, 7, 8, 0, 0, 0, 0, 0], None),
        (&[7, 7, 5, 0, 0, 0, 0, 0], Some(mf)),
        (&[7, 7, 9, 0, 0, 0, 0, 0], Some(mf)),
        (&[7, 3, 3, 0, 0, 0, 0, 0], Some(mf)),
        (&[7, 6, 8, 0, 0, 0, 0, 0], Some(mf)),
        (&[68, 4, 5, 0, 0, 0, 0, 0], Some(il)),
        (&[68, 5, 5, 0, 0, 0, 0, 0], None),
        (&[68, 12, 13, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], None),
        (
            &[68, 12, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Some(mf),
        ),
        (
            &[68, 11, 13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Some(mf),
        ),
        // A duplicate is not checked; a bad first option is not held.
        (
            &[148, 4, 0, 0, 148, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Some(dup),
        ),
        (&[7, 7, 2, 0, 0, 0, 0, 7, 7, 4, 0, 0, 0, 0, 0, 0], Some(mf)),
        (&[130, 2, 0, 0, 130, 3, 0, 0], Some(il)),
    ] {
        let ip = ipv4_opts(17, opts, 0, &udp(5, 6, b""));
        let (_, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
        let got: Vec<Event> = out.outer().events().collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "{opts:?}");
        assert!(out.outer().is_udp(), "{opts:?}");
    }
}

#[test]
fn ipv4_cipso_tags() {
    // Hand-made CIPSO options through Suricata 7.0.10 (type 134, DOI 1, then tags).
    let doi = [134u8, 0, 0, 0, 0, 1];
    for (tags, malformed) in [
        (&[1u8, 4, 0, 0][..], false),
        (&[2, 4, 0, 0], false),
        (&[5, 4, 0, 1], false),
        (&[7, 4, 1, 0], false),
        (&[1, 4, 0, 0, 2, 4, 0, 0], false),
        (&[1, 34, 0, 0], true), // past the option
        (&[3, 4, 0, 0], true),  // unknown tag type
        (&[0, 4, 0, 0], true),
        (&[1, 3, 0, 0], true), // tag under 4 bytes
        (&[1, 4, 1, 0], true), // alignment byte set
        (&[6, 4, 1, 0], true),
        (&[1, 4, 0, 0, 1], true), // a tag type without its length
        (&[1, 4, 0, 0, 1, 2], true),
    ] {
        let mut o = doi.to_vec();
        o.extend_from_slice(tags);
        o[1] = o.len() as u8;
        while !o.len().is_multiple_of(4) {
            o.push(0);
        }
        let ip = ipv4_opts(17, &o, 0, &udp(5, 6, b""));
        let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
        let want = u64::from(malformed);
        assert_eq!(ev(&d, Event::Ipv4OptMalformed), want, "{tags:?}");
        assert_eq!(ev(&d, Event::Ipv4OptInvalidLen), 0, "{tags:?}");
        assert!(out.outer().is_udp());
    }
}

#[test]
fn ipv4_fragments_and_reassembled_datagram() {
    let seg = tcp(1, 2, 0x18, &[], b"hello");
    // First fragment (MF set): not decoded past IP.
    let frame = eth(0x0800, &ipv4_opts(6, &[], 0x2000, &seg[..16]));
    let (mut d, mut out) = run(LinkType::ETHERNET, &frame);
    let p = *out.outer();
    assert!(p.has(f::FRAGMENT) && p.has(f::IP_MF));
    assert!(!p.is_tcp());
    assert_eq!(p.payload_len, 16);
    assert_eq!(count(&d, Counter::Tcp), 0);
    // Later fragment.
    let frame2 = eth(0x0800, &ipv4_opts(6, &[], 2, &seg[16..]));
    d.decode(
        LinkType::ETHERNET,
        &frame2,
        Timestamp(8),
        frame2.len() as u32,
        &mut out,
    );
    assert_eq!(out.outer().frag_off, 2);
    // Defrag feeds the whole datagram back.
    let whole = ipv4(6, &seg);
    d.decode_ip(&whole, &p, &mut out);
    let r = out.outer();
    assert_eq!(r.tunnel, Tunnel::Reassembled);
    assert!(r.is_tcp());
    assert_eq!(r.payload(&whole), b"hello");
    assert_eq!(r.ts, Timestamp(7));
    assert_eq!(count(&d, Counter::Pkts), 2);
    assert_eq!(count(&d, Counter::Ipv4), 3);
    assert_eq!(count(&d, Counter::Tcp), 1);
}

// ---- L2 -------------------------------------------------------------------------

#[test]
fn stacked_vlans_counted_like_suricata() {
    let ip = ipv4(17, &udp(53, 53, b"q"));
    let mut inner = Vec::new();
    inner.extend_from_slice(&[0x00, 0x0a, 0x81, 0x00]); // id 10 -> 802.1Q
    inner.extend_from_slice(&[0x00, 0x14, 0x81, 0x00]); // id 20 -> 802.1Q
    inner.extend_from_slice(&[0x00, 0x1e, 0x08, 0x00]); // id 30 -> IPv4
    inner.extend_from_slice(&ip);
    let frame = eth(0x88a8, &inner);
    let (d, out) = run(LinkType::ETHERNET, &frame);
    // The third tag is kept too: Suricata 7.0.10 keys flows and logs on three.
    assert_eq!(out.outer().vlan, [10, 20, 30]);
    assert!(out.outer().is_udp());
    assert_eq!(count(&d, Counter::Vlan), 1);
    assert_eq!(count(&d, Counter::VlanQinq), 1);
    assert_eq!(count(&d, Counter::VlanQinqinq), 1);
    // A fourth tag is too many.
    let mut four = vec![0x00, 0x01, 0x81, 0x00];
    four.extend_from_slice(&inner);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8100, &four));
    assert_eq!(ev(&d, Event::VlanTooManyLayers), 1);
    // Not an invalid packet in Suricata 7.0.10 (`decoder.invalid` stays 0).
    assert_eq!(count(&d, Counter::Invalid), 0);
    // Truncated tag.
    let (d, out) = run(LinkType::ETHERNET, &eth(0x8100, &[0, 1]));
    assert_eq!(ev(&d, Event::VlanHeaderTooSmall), 1);
    assert!(out.outer().has(f::INVALID));
}

#[test]
fn unknown_ethertype_arp_and_short_frame() {
    let (d, _) = run(LinkType::ETHERNET, &eth(0x1234, &[0; 30]));
    assert_eq!(count(&d, Counter::UnknownEthertype), 1);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0806, &[0; 28]));
    assert_eq!(count(&d, Counter::Arp), 1);
    assert!(out.outer().has(f::ARP));
    let (d, out) = run(LinkType::ETHERNET, &[0; 13]);
    assert_eq!(ev(&d, Event::EthernetPktTooSmall), 1);
    assert!(out.outer().has(f::INVALID));
}

#[test]
fn other_link_types() {
    let ip4 = ipv4(17, &udp(1, 2, b"a"));
    let ip6 = ipv6(17, &udp(1, 2, b"a"));
    let mut sll = vec![0, 0, 0, 1, 0, 6, 0, 1, 2, 3, 4, 5, 0, 0, 0x08, 0x00];
    sll.extend_from_slice(&ip4);
    let mut sll2 = vec![
        0x86, 0xdd, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0, 1, 2, 3, 4, 5, 0, 0,
    ];
    sll2.extend_from_slice(&ip6);
    let null_le = [&[2u8, 0, 0, 0][..], &ip4].concat();
    let null_be = [&[0u8, 0, 0, 30][..], &ip6].concat();
    let lo = [&[0u8, 0, 0, 24][..], &ip6].concat();
    let ppp = [&[0xffu8, 0x03, 0x00, 0x21][..], &ip4].concat();
    let ppp_comp = [&[0x57u8][..], &ip6].concat();
    let chdlc = [&[0x0fu8, 0x00, 0x86, 0xdd][..], &ip6].concat();
    let mut pppoe = vec![0x11, 0x00, 0x00, 0x01];
    pppoe.extend_from_slice(&((ip4.len() + 2) as u16).to_be_bytes());
    pppoe.extend_from_slice(&[0x00, 0x21]);
    pppoe.extend_from_slice(&ip4);
    let cases: Vec<(LinkType, Vec<u8>, Counter, u8)> = vec![
        (LinkType::LINUX_SLL, sll, Counter::Sll, 4),
        (LinkType::LINUX_SLL2, sll2, Counter::Sll, 6),
        (LinkType::RAW, ip4.clone(), Counter::Raw, 4),
        (LinkType::RAW, ip6.clone(), Counter::Raw, 6),
        (LinkType::IPV4, ip4.clone(), Counter::Raw, 4),
        (LinkType::IPV6, ip6.clone(), Counter::Raw, 6),
        (LinkType::NULL, null_le, Counter::Null, 4),
        (LinkType::NULL, null_be, Counter::Null, 6),
        (LinkType::LOOP, lo, Counter::Null, 6),
        (LinkType::PPP, ppp, Counter::Ppp, 4),
        (LinkType::PPP_HDLC, ppp_comp, Counter::Ppp, 6),
        (LinkType::C_HDLC, chdlc, Counter::Chdlc, 6),
        (LinkType::ETHERNET, eth(0x8864, &pppoe), Counter::Pppoe, 4),
        (LinkType::PPP_ETHER, pppoe.clone(), Counter::Pppoe, 4),
    ];
    for (lt, frame, counter, v) in cases {
        let (d, out) = run(lt, &frame);
        let p = out.outer();
        assert_eq!(count(&d, counter), 1, "{lt:?} {}", counter.name());
        assert_eq!(p.ip_version, v, "{lt:?}");
        assert!(p.is_udp(), "{lt:?}");
        assert_eq!(p.payload(&frame), b"a", "{lt:?}");
        assert_eq!(p.link_type, lt);
        assert!(p.has(f::L4_CSUM_OK), "{lt:?}");
    }
    let (d, _) = run(LinkType::RAW, &[0x50, 0, 0]);
    assert_eq!(ev(&d, Event::IprawInvalidIpVersion), 1);
    let (d, _) = run(LinkType(4242), &ip4);
    assert_eq!(count(&d, Counter::UnknownLinkType), 1);
    let (d, _) = run(LinkType::NULL, &[2, 0]);
    assert_eq!(ev(&d, Event::LtnullPktTooSmall), 1);
    let (d, _) = run(LinkType::PPP, &[0xff, 0x03, 0xc0, 0x21, 1]);
    assert_eq!(ev(&d, Event::PppUnsupProto), 1);
    assert_eq!(count(&d, Counter::Invalid), 0);
    // A protocol Suricata 7.0.10 does not know makes the packet invalid (raw PPP, and
    // CCP in a PPPoE session: sv-ether's 6 such frames are in `decoder.invalid`).
    let (d, _) = run(LinkType::PPP, &[0xff, 0x03, 0x12, 0x34, 1]);
    assert_eq!(ev(&d, Event::PppWrongType), 1);
    assert_eq!(count(&d, Counter::Invalid), 1);
}

#[test]
fn ipv6_nothing_after_an_extension_header() {
    // Suricata 7.0.10: under two bytes after an extension header is
    // `ipv6.trunc_exthdr`, whatever the next header (but 59); right after the IPv6
    // header it is the next layer's own event.
    let atomic = |nh: u8| vec![nh, 0, 0, 0, 0xfa, 0xce, 0xf0, 0xe1];
    for (nh, tail, trunc) in [
        (6u8, 0usize, 1u64),
        (6, 1, 1),
        (6, 2, 0),
        (17, 0, 1),
        (58, 0, 1),
        (132, 0, 1),
        (99, 0, 1),
        (59, 0, 0),
    ] {
        let mut body = atomic(nh);
        body.resize(8 + tail, 0);
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x86dd, &ipv6_ext(44, &body, 44, b"")),
        );
        assert_eq!(ev(&d, Event::Ipv6TruncExthdr), trunc, "{nh} + {tail}");
        assert_eq!(
            ev(&d, Event::TcpPktTooSmall),
            u64::from(nh == 6 && tail > 0 && trunc == 0),
            "{nh}"
        );
    }
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(6, b"")));
    assert_eq!(ev(&d, Event::Ipv6TruncExthdr), 0);
    assert_eq!(ev(&d, Event::TcpPktTooSmall), 1);
}

#[test]
fn ipv6_protocol_after_extension_headers() {
    // The protocol Suricata 7.0.10 names in its alerts (hand-made packets): the last
    // header entered; "no next header" and ICMPv4 keep the one before (0 right after
    // the IPv6 header); nothing after a header keeps that header's.
    let atomic = |nh: u8, tail: usize| {
        let mut b = vec![nh, 0, 0, 0, 0, 0, 0, 7];
        b.resize(8 + tail, 0);
        b
    };
    let dstopts = |nh: u8, tail: usize| {
        let mut b = vec![nh, 0, 1, 4, 0, 0, 0, 0];
        b.resize(8 + tail, 0);
        b
    };
    for (first, body, want) in [
        (44u8, atomic(99, 2), 99u8),
        (44, atomic(59, 2), 44),
        (44, atomic(17, 2), 17),
        (44, atomic(6, 4), 6),
        (44, atomic(58, 3), 58),
        (44, atomic(6, 0), 44),
        (60, dstopts(59, 2), 60),
        (60, dstopts(1, 8), 60),
        (59, vec![0; 4], 0),
        (1, vec![8, 0, 0, 0, 0, 0, 0, 0], 0),
    ] {
        let (_, out) = run(
            LinkType::ETHERNET,
            &eth(0x86dd, &ipv6_ext(first, &body, 0, b"")),
        );
        let p = out.outer();
        assert_eq!(p.record_proto(), want, "{first} {body:?}");
    }
}

#[test]
fn ppp_protocols_as_suricata() {
    // Every protocol value through Suricata 7.0.10 on raw PPP and in a PPPoE session
    // (bench/RESULTS.md, difftest `events`): unsup_proto (true) or wrong_type (false).
    for (proto, raw, pppoe) in [
        (&[0xc0u8, 0x21][..], true, true),
        (&[0x00, 0x25], true, true),
        (&[0x02, 0x83], true, true),
        (&[0x80, 0xfd], true, false),
        (&[0x00, 0xfd], true, false),
        (&[0xc0, 0x29], true, false),
        (&[0x80, 0x31], false, false),
        (&[0xc2, 0x27], false, false),
        (&[0x00, 0xfb], false, false),
        (&[0x00, 0x01], false, false),
        (&[0x12, 0x34], false, false),
        // One-byte (compressed) protocol fields.
        (&[0x23], true, true),
        (&[0x01], true, false),
        (&[0xfd], true, false),
    ] {
        let mut frame = vec![0xff, 0x03];
        frame.extend_from_slice(proto);
        frame.extend_from_slice(&[0; 40]);
        let (d, _) = run(LinkType::PPP, &frame);
        assert_eq!(
            ev(&d, Event::PppUnsupProto),
            u64::from(raw),
            "raw {proto:x?}"
        );
        assert_eq!(
            ev(&d, Event::PppWrongType),
            u64::from(!raw),
            "raw {proto:x?}"
        );
        let mut ppp = proto.to_vec();
        ppp.extend_from_slice(&[0; 40]);
        let mut sess = vec![0x11, 0, 0, 1];
        sess.extend_from_slice(&(ppp.len() as u16).to_be_bytes());
        sess.extend_from_slice(&ppp);
        let (d, _) = run(LinkType::ETHERNET, &eth(0x8864, &sess));
        assert_eq!(
            ev(&d, Event::PppUnsupProto),
            u64::from(pppoe),
            "pppoe {proto:x?}"
        );
        assert_eq!(
            ev(&d, Event::PppWrongType),
            u64::from(!pppoe),
            "pppoe {proto:x?}"
        );
    }
}

#[test]
fn pppoe_discovery_and_malformed_tags() {
    let padi = [0x11, 0x09, 0, 0, 0, 4, 0x01, 0x01, 0, 0];
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8863, &padi));
    assert_eq!(count(&d, Counter::Pppoe), 1);
    assert_eq!(
        d.stats()
            .counters()
            .filter(|(n, v)| n.contains("pppoe.") && *v > 0)
            .count(),
        0
    );
    let bad = [0x11, 0x09, 0, 0, 0, 4, 0x01, 0x01, 0, 9];
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8863, &bad));
    assert_eq!(ev(&d, Event::PppoeMalformedTags), 1);
    let code = [0x11, 0x42, 0, 0, 0, 0];
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8863, &code));
    assert_eq!(ev(&d, Event::PppoeWrongCode), 1);
}

#[test]
fn mpls_and_vntag() {
    let ip = ipv4(6, &tcp(1, 2, 0x10, &[], b""));
    // Two labels (16, then 17 with bottom of stack) then IPv4 by nibble.
    let mut m = vec![0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x11, 0x40];
    m.extend_from_slice(&ip);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x8847, &m));
    assert_eq!(count(&d, Counter::Mpls), 1);
    assert!(out.outer().is_tcp());
    // Explicit-null IPv6 label is 2; reserved label 5 raises an event.
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8847, &[0, 0, 0x51, 0x40, 0x45]));
    assert_eq!(ev(&d, Event::MplsBadLabelReserved), 1);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x8847, &[0, 0]));
    assert_eq!(ev(&d, Event::MplsHeaderTooSmall), 1);
    let mut vn = vec![0, 0, 0, 0, 0x08, 0x00];
    vn.extend_from_slice(&ip);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x8926, &vn));
    assert_eq!(count(&d, Counter::Vntag), 1);
    assert!(out.outer().is_tcp());
}

#[test]
fn layer_bomb_is_bounded() {
    // Ethernet pseudowire inside MPLS inside Ethernet ... 40 times.
    let mut frame = eth(0x0800, &ipv4(17, &udp(1, 2, b"")));
    for _ in 0..40 {
        let mut m = vec![0x00, 0x01, 0x01, 0x40, 0, 0, 0, 0];
        m.extend_from_slice(&frame);
        frame = eth(0x8847, &m);
    }
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(count(&d, Counter::TooManyLayers), 1);
    assert!(out.outer().has(f::TOO_MANY_LAYERS));
    assert_eq!(count(&d, Counter::Udp), 0);
    // As Suricata 7.0.10: the frame is invalid, and the layer past the limit (the
    // 17th: Ethernet after 8 Ethernet/MPLS pairs) is not counted.
    assert!(out.outer().has(f::INVALID));
    assert_eq!(count(&d, Counter::Invalid), 1);
    assert_eq!(count(&d, Counter::Ethernet), 8);
    assert_eq!(count(&d, Counter::Mpls), 8);
}

/// The layer past the limit is not counted whatever it is: IPv4, IPv6 or a VLAN tag
/// after 8 Ethernet/MPLS pairs (Suricata 7.0.10 on such frames: `decoder.ipv4`,
/// `ipv6`, `vlan_qinq` 0, `invalid` 1).
#[test]
fn layer_past_the_limit_is_not_counted() {
    let wrap = |inner: Vec<u8>| -> Vec<u8> {
        let mut frame = inner;
        for i in 0..8 {
            let mut m = vec![0x00, 0x01, 0x01, 0x40];
            // An Ethernet pseudowire control word before each inner Ethernet header.
            if i > 0 {
                m.extend_from_slice(&[0, 0, 0, 0]);
            }
            m.extend_from_slice(&frame);
            frame = eth(0x8847, &m);
        }
        frame
    };
    let v4 = ipv4(17, &udp(1, 2, b""));
    let (d, out) = run(LinkType::ETHERNET, &wrap(v4));
    assert_eq!(count(&d, Counter::Mpls), 8);
    assert_eq!(count(&d, Counter::Ipv4), 0);
    assert_eq!(count(&d, Counter::Invalid), 1);
    assert!(out.outer().has(f::TOO_MANY_LAYERS));
    let v6 = ipv6(17, &udp(1, 2, b""));
    let (d, _) = run(LinkType::ETHERNET, &wrap(v6));
    assert_eq!(count(&d, Counter::Ipv6), 0);
    assert_eq!(count(&d, Counter::Invalid), 1);
    let mut tag = vec![0, 1, 0x81, 0x00, 0, 2, 0x08, 0x00];
    tag.extend_from_slice(&ipv4(17, &udp(1, 2, b"")));
    // Seven pairs, then Ethernet with two tags: the second tag is the 17th layer.
    let mut frame = eth(0x8100, &tag);
    for _ in 0..7 {
        let mut m = vec![0x00, 0x01, 0x01, 0x40, 0, 0, 0, 0];
        m.extend_from_slice(&frame);
        frame = eth(0x8847, &m);
    }
    let (d, _) = run(LinkType::ETHERNET, &frame);
    assert_eq!(count(&d, Counter::Vlan), 1);
    assert_eq!(count(&d, Counter::VlanQinq), 0);
    assert_eq!(count(&d, Counter::Invalid), 1);
}

// ---- IPv6 -----------------------------------------------------------------------

#[test]
fn ipv6_extension_headers() {
    // Hop-by-hop (PadN only) -> routing type 0 -> atomic fragment -> dest opts -> UDP.
    let hop = [43u8, 0, 1, 4, 0, 0, 0, 0];
    let rh = [44u8, 0, 0, 0, 0, 0, 0, 0];
    let fh = [60u8, 0, 0, 0, 0, 0, 0, 9];
    let dst = [17u8, 0, 0x1e, 4, 0, 0, 0, 0];
    let exts = [&hop[..], &rh, &fh, &dst].concat();
    let frame = eth(0x86dd, &ipv6_ext(0, &exts, 17, &udp(7, 8, b"v6")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(p.is_udp(), "{:?}", p.events().collect::<Vec<_>>());
    assert_eq!(p.payload(&frame), b"v6");
    assert!(p.has(f::IPV6_EXTHDRS));
    assert!(p.has(f::L4_CSUM_OK));
    assert_eq!(p.ip_id, 9);
    for e in [
        Event::Ipv6HopoptsOnlyPadding,
        Event::Ipv6RhType0,
        Event::Ipv6ExthdrUselessFh,
        Event::Ipv6DstoptsUnknownOpt,
    ] {
        assert_eq!(ev(&d, e), 1, "{}", e.name());
    }
    assert_eq!(count(&d, Counter::Ipv6), 1);
    assert_eq!(count(&d, Counter::Udp), 1);
    assert!(p.ipv6(&frame).is_some());
}

#[test]
fn ipv6_duplicate_fragment_headers() {
    // Twenty atomic fragment headers before UDP: the first is useless, the others
    // duplicates; the counters count the packet's first 15 events, as Suricata 7.0.10
    // (1 + 14 there on this packet).
    let atomic = [44u8, 0, 0, 0, 0, 0, 0, 3];
    let mut exts = atomic.repeat(20);
    exts[19 * 8] = 17;
    let frame = eth(0x86dd, &ipv6_ext(44, &exts, 17, &udp(7, 8, b"dup")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(p.is_udp(), "{:?}", p.events().collect::<Vec<_>>());
    assert_eq!(p.payload(&frame), b"dup");
    assert_eq!(ev(&d, Event::Ipv6ExthdrUselessFh), 1);
    assert_eq!(ev(&d, Event::Ipv6ExthdrDuplFh), 14);
    assert_eq!(usize::from(p.n_events), 20);
    assert!(p.has(f::EVENTS_OVERFLOW));
    assert!(p.has_event(Event::Ipv6ExthdrUselessFh));
    // Three headers: one useless, two duplicates.
    let mut exts = atomic.repeat(3);
    exts[16] = 17;
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x86dd, &ipv6_ext(44, &exts, 17, &udp(7, 8, b"x"))),
    );
    assert_eq!(ev(&d, Event::Ipv6ExthdrUselessFh), 1);
    assert_eq!(ev(&d, Event::Ipv6ExthdrDuplFh), 2);
    // A duplicate saying more fragments follow, reserved bits set, is passed over: no
    // fragment, the UDP datagram after it decoded.
    let dup = [17u8, 1, 0, 1, 0, 0, 0, 7];
    let exts = [&atomic[..], &dup].concat();
    let frame = eth(0x86dd, &ipv6_ext(44, &exts, 17, &udp(7, 8, b"after")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(!p.has(f::FRAGMENT) && !p.has(f::IP_MF));
    assert!(p.is_udp());
    assert_eq!(p.payload(&frame), b"after");
    assert_eq!(ev(&d, Event::Ipv6ExthdrDuplFh), 1);
    assert_eq!(ev(&d, Event::Ipv6ExthdrUselessFh), 1);
    assert_eq!(ev(&d, Event::Ipv6FhNonZeroReservedField), 1);
}

#[test]
fn ipv6_fragment_and_malformed() {
    let fh = [17u8, 0, 0, 1, 0, 0, 0, 5]; // offset 0, M=1
    let frame = eth(0x86dd, &ipv6_ext(44, &fh, 17, &udp(1, 2, b"abc")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert!(p.has(f::FRAGMENT) && p.has(f::IP_MF));
    assert!(!p.is_udp());
    assert_eq!(p.ip_id, 5);
    assert_eq!(count(&d, Counter::Udp), 0);
    assert_eq!(ev(&d, Event::Ipv6FragInvalidLength), 1); // 11 bytes, not a multiple of 8
                                                         // Truncated extension header.
    let frame = eth(0x86dd, &ipv6_ext(0, &[17, 4, 0, 0, 0, 0, 0, 0], 17, &[]));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(ev(&d, Event::Ipv6TruncExthdr), 1);
    assert!(out.outer().has(f::INVALID));
    // Payload length beyond the capture.
    let mut ip = ipv6(17, &udp(1, 2, b""));
    ip[5] = 200;
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ip));
    assert_eq!(ev(&d, Event::Ipv6TruncPkt), 1);
    // Shorter than its header: counted as IPv6, no event and not invalid (Suricata).
    let (d, out) = run(LinkType::ETHERNET, &eth(0x86dd, &ip[..39]));
    assert_eq!(ev(&d, Event::Ipv6PktTooSmall), 0);
    assert_eq!(count(&d, Counter::Ipv6), 1);
    assert!(!out.outer().has(f::INVALID));
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(99, b"")));
    assert_eq!(ev(&d, Event::Ipv6UnknownNextHeader), 1);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(59, b"junk")));
    assert_eq!(ev(&d, Event::Ipv6DataAfterNoneHeader), 1);
    // No next header and ICMPv4 inside IPv6 leave the protocol at 0, as Suricata.
    let (_, out) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(59, b"junk")));
    assert_eq!(out.outer().proto, 0);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(1, &[8, 0, 0, 0])));
    assert_eq!(ev(&d, Event::Ipv6Icmpv4), 1);
    assert_eq!(out.outer().proto, 0);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(50, &[0; 12])));
    assert_eq!(count(&d, Counter::Esp), 1);
}

// ---- L4 -------------------------------------------------------------------------

#[test]
fn tcp_malformed() {
    let mut seg = tcp(1, 2, 0x10, &[], b"");
    seg[12] = 0x40; // data offset 16 bytes: a negative options length
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(6, &seg)));
    assert_eq!(ev(&d, Event::TcpInvalidOptlen), 1);
    assert_eq!(ev(&d, Event::TcpHlenTooSmall), 0);
    assert!(!out.outer().is_tcp());
    assert_eq!(count(&d, Counter::Tcp), 1);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(6, &seg[..10])));
    assert_eq!(ev(&d, Event::TcpPktTooSmall), 1);
    // A data offset of 60 bytes on a 20-byte segment: the segment is too small for its
    // header (Suricata's `tcp.hlen_too_small`).
    let mut seg = tcp(1, 2, 0x10, &[], b"");
    seg[12] = 0xf0;
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(6, &seg)));
    assert_eq!(ev(&d, Event::TcpHlenTooSmall), 1);
    assert_eq!(ev(&d, Event::TcpInvalidOptlen), 0);
    // Bad option lengths and duplicates are events, the segment still decodes.
    let seg = tcp(1, 2, 0x02, &[2, 3, 0, 1, 2, 4, 5, 0xb4, 2, 4, 5, 0xb4], b"");
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(6, &seg)));
    assert_eq!(ev(&d, Event::TcpOptInvalidLen), 1);
    assert!(out.outer().is_tcp());
    let seg = tcp(1, 2, 0x02, &[2, 4, 5, 0xb4, 2, 4, 5, 0xb4], b"");
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(6, &seg)));
    assert_eq!(ev(&d, Event::TcpOptDuplicate), 1);
}

#[test]
fn udp_malformed() {
    let mut dg = udp(1, 2, b"abcd");
    dg[5] = 40; // claims more than present
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(17, &dg)));
    assert_eq!(ev(&d, Event::UdpPktTooSmall), 1);
    dg[5] = 4;
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(17, &dg)));
    assert_eq!(ev(&d, Event::UdpLenInvalid), 1);
    // Shorter than the IP payload: the datagram is its length, no event (Suricata).
    dg[5] = 9;
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(17, &dg)));
    assert_eq!(ev(&d, Event::UdpHlenInvalid), 0);
    assert!(out.outer().is_udp());
    assert_eq!(out.outer().payload_len, 1);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(17, &dg[..5])));
    assert_eq!(ev(&d, Event::UdpHlenTooSmall), 1);
    assert!(out.outer().has(f::INVALID));
    assert_eq!(count(&d, Counter::Udp), 1);
    // IPv4 UDP without checksum is fine.
    let mut ip = ipv4(17, &udp(1, 2, b"x"));
    ip[26] = 0;
    ip[27] = 0;
    let (_, out) = run(LinkType::ETHERNET, &eth(0x0800, &ip));
    assert!(out.outer().has(f::L4_CSUM_OK));
}

#[test]
fn icmp_v4_and_v6() {
    let frame = eth(0x0800, &ipv4(1, &icmp(8, 0, b"ping")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert_eq!((p.icmp_type, p.icmp_code, p.proto), (8, 0, 1));
    assert!(p.has(f::L4_CSUM_OK));
    assert_eq!(p.payload(&frame), b"ping");
    assert_eq!(count(&d, Counter::Icmpv4), 1);
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(1, &icmp(99, 0, b""))),
    );
    assert_eq!(ev(&d, Event::Icmpv4UnknownType), 1);
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(1, &icmp(3, 99, b""))),
    );
    assert_eq!(ev(&d, Event::Icmpv4UnknownCode), 1);
    assert_eq!(ev(&d, Event::Icmpv4Ipv4TruncPkt), 0);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(1, &[8, 0, 0])));
    assert_eq!(ev(&d, Event::Icmpv4PktTooSmall), 1);

    let frame = eth(0x86dd, &ipv6(58, &icmp(128, 0, b"v6ping")));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    let p = out.outer();
    assert_eq!((p.icmp_type, p.proto, p.ip_version), (128, 58, 6));
    assert!(p.has(f::L4_CSUM_OK));
    assert_eq!(count(&d, Counter::Icmpv6), 1);
    let mut bad = frame.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let (d, out) = run(LinkType::ETHERNET, &bad);
    assert!(out.outer().has(f::L4_CSUM_BAD));
    assert_eq!(count(&d, Counter::Icmpv6ChecksumBad), 1);
    // MLD with a hop limit other than 1.
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x86dd, &ipv6(58, &icmp(130, 0, b""))),
    );
    assert_eq!(ev(&d, Event::Icmpv6MldMessageWithInvalidHl), 1);
}

#[test]
fn icmp_quoted_header_only_under_a_known_code() {
    // Suricata 7.0.10 (hand-made messages, difftest `events/icmpv4` and `icmpv6`): the
    // quoted header of an error message is decoded only when the code is known; an
    // ICMPv4 message with nothing after its header quotes nothing.
    let v0 = [0u8; 20];
    for (ty, code, quote, trunc, ver) in [
        (3u8, 1u8, &v0[..], 0, 1),
        (3, 16, &v0[..], 0, 0),
        (11, 2, &v0[..], 0, 0),
        (12, 1, &v0[..], 0, 0),
        (4, 0, &v0[..], 0, 1),
        (3, 1, &[][..], 0, 0),
        (3, 1, &[0x45, 0, 0, 40][..], 1, 0),
        (5, 4, &[0x45][..], 0, 0),
    ] {
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x0800, &ipv4(1, &icmp(ty, code, quote))),
        );
        let at = format!("{ty}/{code}/{}", quote.len());
        assert_eq!(ev(&d, Event::Icmpv4Ipv4TruncPkt), trunc, "{at}");
        assert_eq!(ev(&d, Event::Icmpv4Ipv4UnknownVer), ver, "{at}");
    }
    // Codes and types as Suricata takes them.
    for (ty, code, unknown_code, unknown_type) in [
        (9u8, 77u8, 0, 0),
        (13, 5, 1, 0),
        (14, 0, 0, 0),
        (10, 0, 0, 1),
        (12, 1, 1, 0),
    ] {
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x0800, &ipv4(1, &icmp(ty, code, &[0; 12]))),
        );
        assert_eq!(
            ev(&d, Event::Icmpv4UnknownCode),
            unknown_code,
            "{ty}/{code}"
        );
        assert_eq!(ev(&d, Event::Icmpv4Ipv4TruncPkt), 0, "{ty}/{code}");
        assert_eq!(
            ev(&d, Event::Icmpv4UnknownType),
            unknown_type,
            "{ty}/{code}"
        );
    }
    // Timestamp messages shorter than their three timestamps.
    for (n, trunc) in [(0usize, 1u64), (11, 1), (12, 0)] {
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x0800, &ipv4(1, &icmp(13, 1, &vec![0; n]))),
        );
        assert_eq!(ev(&d, Event::Icmpv4Ipv4TruncPkt), trunc, "{n}");
        assert_eq!(ev(&d, Event::Icmpv4UnknownCode), 1, "{n}");
    }
    // Router advertisements shorter than their addresses (count, entry size in words).
    for (count, size, n, trunc) in [
        (1u8, 2u8, 8usize, 0u64),
        (1, 2, 4, 1),
        (2, 2, 12, 1),
        (1, 0, 0, 0),
        (0x12, 0x34, 20, 1),
    ] {
        let mut m = vec![9, 0, 0, 0, count, size, 0, 1];
        m.resize(8 + n, 0);
        let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(1, &m)));
        assert_eq!(
            ev(&d, Event::Icmpv4Ipv4TruncPkt),
            trunc,
            "{count} x {size}, {n}"
        );
    }
    let v6_40 = [0u8; 40];
    for (ty, code, quote, trunc, ver, unknown_code) in [
        (1u8, 0u8, &[0u8; 8][..], 1, 0, 0),
        (1, 8, &[0u8; 8][..], 0, 0, 1),
        (1, 6, &v6_40[..], 0, 1, 0),
        (1, 7, &v6_40[..], 0, 0, 1),
        (4, 3, &v6_40[..], 0, 0, 1),
        (2, 0, &[][..], 1, 0, 0),
    ] {
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x86dd, &ipv6(58, &icmp(ty, code, quote))),
        );
        let at = format!("{ty}/{code}/{}", quote.len());
        assert_eq!(ev(&d, Event::Icmpv6Ipv6TruncPkt), trunc, "{at}");
        assert_eq!(ev(&d, Event::Icmpv6Ipv6UnknownVersion), ver, "{at}");
        assert_eq!(ev(&d, Event::Icmpv6UnknownCode), unknown_code, "{at}");
    }
    // MLDv2 reports (143) are not checked for their hop limit; router renumbering's
    // sequence number reset (code 255) is a known code; 150-153 take any code.
    for (ty, code) in [(143u8, 0u8), (138, 255), (151, 9)] {
        let (d, _) = run(
            LinkType::ETHERNET,
            &eth(0x86dd, &ipv6(58, &icmp(ty, code, b""))),
        );
        assert_eq!(ev(&d, Event::Icmpv6MldMessageWithInvalidHl), 0, "{ty}");
        assert_eq!(ev(&d, Event::Icmpv6UnknownCode), 0, "{ty}");
    }
}

#[test]
fn sctp_counted() {
    let mut s = vec![0x0b, 0xb8, 0x0b, 0xb9, 0, 0, 0, 1, 0, 0, 0, 0];
    s.extend_from_slice(b"chunk");
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(132, &s)));
    assert_eq!(count(&d, Counter::Sctp), 1);
    assert_eq!((out.outer().sport, out.outer().dport), (3000, 3001));
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(132, &s[..6])));
    assert_eq!(ev(&d, Event::SctpPktTooSmall), 1);
}

// ---- tunnels --------------------------------------------------------------------

#[test]
fn gre_ipv4_inner_packet() {
    let inner = ipv4(6, &tcp(11, 22, 0x18, &[], b"in"));
    let gre = [&[0x00u8, 0x00, 0x08, 0x00][..], &inner].concat();
    let frame = eth(0x0800, &ipv4(47, &gre));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!(out.len(), 2);
    let (o, i) = (out.outer(), &out.inner()[0]);
    assert_eq!(o.proto, 47);
    assert!(o.has(f::HAS_INNER));
    // The GRE packet has no payload of its own (Suricata: no content/dsize match on it).
    assert_eq!(o.payload(&frame), b"");
    assert_eq!(i.tunnel, Tunnel::Gre);
    assert_eq!(i.parent, 0);
    assert_eq!(i.link_off, 38);
    assert_eq!(i.l3_off, 38);
    assert!(i.is_tcp());
    assert_eq!(i.payload(&frame), b"in");
    assert_eq!(count(&d, Counter::Gre), 1);
    assert_eq!(count(&d, Counter::Ipv4), 2);
    assert_eq!(count(&d, Counter::Tcp), 1);
    assert_eq!(count(&d, Counter::Pkts), 1);
    // Key + sequence present.
    let gre = [
        &[0x30u8, 0x00, 0x86, 0xdd, 0, 0, 0, 1, 0, 0, 0, 2][..],
        &ipv6(17, &udp(1, 2, b"")),
    ]
    .concat();
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &gre)));
    assert_eq!(out.inner()[0].ip_version, 6);
    assert_eq!(count(&d, Counter::Ipv6), 1);
    // Malformed GRE.
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &[0, 0])));
    assert_eq!(ev(&d, Event::GrePktTooSmall), 1);
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(47, &[0x30, 0, 8, 0, 0])),
    );
    assert_eq!(ev(&d, Event::GreVersion0HdrTooBig), 1);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &[0, 3, 8, 0])));
    assert_eq!(ev(&d, Event::GreWrongVersion), 1);
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(47, &[0x20, 1, 8, 0, 0, 0, 0, 0])),
    );
    assert_eq!(ev(&d, Event::GreVersion1WrongProtocol), 1);
}

#[test]
fn gre_pptp_ppp_and_invalid_inner_dropped() {
    let inner = ipv4(17, &udp(1, 2, b"p"));
    let gre = [
        &[
            0x30u8, 0x01, 0x88, 0x0b, 0, 4, 0, 1, 0, 0, 0, 1, 0xff, 0x03, 0x00, 0x21,
        ][..],
        &inner,
    ]
    .concat();
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &gre)));
    assert_eq!(count(&d, Counter::Ppp), 1);
    assert!(out.inner()[0].is_udp());
    // Inner IPv4 truncated: the inner packet is discarded, its events counted.
    let gre = [&[0u8, 0, 0x08, 0x00][..], &inner[..inner.len() - 2]].concat();
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &gre)));
    assert_eq!(out.len(), 1);
    assert!(!out.outer().has(f::HAS_INNER));
    assert_eq!(ev(&d, Event::Ipv4TruncPkt), 1);
    assert_eq!(count(&d, Counter::Invalid), 0);
}

#[test]
fn erspan_types() {
    let mirrored = eth(0x0800, &ipv4(17, &udp(1, 2, b"m")));
    // Type II: GRE with sequence number, 8-byte ERSPAN header (version 1, VLAN 5).
    let mut g = vec![
        0x10, 0x00, 0x88, 0xbe, 0, 0, 0, 1, 0x10, 0x05, 0, 1, 0, 0, 0, 0,
    ];
    g.extend_from_slice(&mirrored);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &g)));
    assert_eq!(count(&d, Counter::Erspan), 1);
    assert_eq!(count(&d, Counter::Ethernet), 2);
    let i = &out.inner()[0];
    assert_eq!(i.tunnel, Tunnel::Erspan);
    assert_eq!(i.vlan[0], 5);
    assert!(i.is_udp());
    // Type I: no sequence number, no ERSPAN header.
    let g1 = [&[0u8, 0, 0x88, 0xbe][..], &mirrored].concat();
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &g1)));
    assert_eq!(count(&d, Counter::Erspan), 1);
    assert!(out.inner()[0].is_udp());
    // Type III with platform sub-header.
    let mut g3 = vec![
        0x00, 0x00, 0x22, 0xeb, 0x20, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
    ];
    g3.extend_from_slice(&[0; 8]);
    g3.extend_from_slice(&mirrored);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &g3)));
    assert_eq!(count(&d, Counter::Erspan), 1);
    assert!(out.inner()[0].is_udp());
    // Unsupported version.
    let mut bad = g.clone();
    bad[8] = 0x70;
    let (d, _) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(47, &bad)));
    assert_eq!(ev(&d, Event::ErspanUnsupportedVersion), 1);
}

#[test]
fn vxlan_geneve_teredo() {
    let inner_eth = eth(0x0800, &ipv4(6, &tcp(5, 6, 0x02, &[], b"")));
    let vx = [&[0x08u8, 0, 0, 0, 0, 0, 0x2a, 0][..], &inner_eth].concat();
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(999, 4789, &vx))),
    );
    assert_eq!(count(&d, Counter::Vxlan), 1);
    assert_eq!(out.inner()[0].tunnel, Tunnel::Vxlan);
    assert!(out.inner()[0].is_tcp());
    assert_eq!(count(&d, Counter::Udp), 1);
    assert_eq!(count(&d, Counter::Tcp), 1);
    // The inner Ethernet header is not a decoded layer (Suricata 7.0.10 counts one
    // Ethernet header per VXLAN frame: sv-ether), the inner packet starts at its IP.
    assert_eq!(count(&d, Counter::Ethernet), 1);
    assert_eq!(out.inner()[0].link_off as usize, 14 + 20 + 8 + 8 + 14);
    // ARP inside: neither counted nor decoded; a VLAN tag inside is.
    let arp = [
        &[0x08u8, 0, 0, 0, 0, 0, 0x2a, 0][..],
        &eth(0x0806, &[0; 28]),
    ]
    .concat();
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(999, 4789, &arp))),
    );
    assert_eq!(count(&d, Counter::Vxlan), 1);
    assert_eq!(count(&d, Counter::Arp), 0);
    assert_eq!(out.len(), 1);
    let mut tagged = vec![0u8, 7, 0x08, 0x00];
    tagged.extend_from_slice(&ipv4(6, &tcp(5, 6, 0x02, &[], b"")));
    let vl = [&[0x08u8, 0, 0, 0, 0, 0, 0x2a, 0][..], &eth(0x8100, &tagged)].concat();
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(999, 4789, &vl))),
    );
    assert_eq!(count(&d, Counter::Vlan), 1);
    assert_eq!(count(&d, Counter::Ethernet), 1);
    assert_eq!(out.inner()[0].vlan[0], 7);
    assert!(out.inner()[0].is_tcp());
    // Same bytes on another port: plain UDP.
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(999, 4790, &vx))),
    );
    assert_eq!(count(&d, Counter::Vxlan), 0);
    assert_eq!(out.len(), 1);

    let gv = [
        &[0x01u8, 0, 0x65, 0x58, 0, 0, 1, 0, 0, 1, 2, 3][..],
        &inner_eth,
    ]
    .concat();
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(1, 6081, &gv))),
    );
    assert_eq!(count(&d, Counter::Geneve), 1);
    assert!(out.inner()[0].is_tcp());

    let v6 = ipv6(17, &udp(1, 2, b"t"));
    let (d, out) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(3544, 1000, &v6))),
    );
    assert_eq!(count(&d, Counter::Teredo), 1);
    assert_eq!(out.inner()[0].tunnel, Tunnel::Teredo);
    assert!(out.inner()[0].is_udp());
    // A bubble is not a tunnel.
    let bubble = ipv6(59, b"");
    let (d, _) = run(
        LinkType::ETHERNET,
        &eth(0x0800, &ipv4(17, &udp(3544, 1000, &bubble))),
    );
    assert_eq!(count(&d, Counter::Teredo), 0);
}

#[test]
fn ip_in_ip_tunnels() {
    let v4 = ipv4(17, &udp(1, 2, b"x"));
    let v6 = ipv6(17, &udp(1, 2, b"x"));
    let (d, out) = run(LinkType::ETHERNET, &eth(0x0800, &ipv4(41, &v6)));
    assert_eq!(out.inner()[0].tunnel, Tunnel::Ipv6InIpv4);
    assert_eq!(count(&d, Counter::Ipv6), 1);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(4, &v4)));
    assert_eq!(out.inner()[0].tunnel, Tunnel::Ipv4InIpv6);
    assert_eq!(count(&d, Counter::Ipv4InIpv6), 1);
    let (d, out) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(41, &v6)));
    assert_eq!(out.inner()[0].tunnel, Tunnel::Ipv6InIpv6);
    assert_eq!(count(&d, Counter::Ipv6InIpv6), 1);
    let big_v4 = ipv4(17, &udp(1, 2, &[0; 20]));
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(41, &big_v4)));
    assert_eq!(ev(&d, Event::Ipv6Ipv6InIpv6WrongVersion), 1);
    let (d, _) = run(LinkType::ETHERNET, &eth(0x86dd, &ipv6(41, &v4)));
    assert_eq!(ev(&d, Event::Ipv6Ipv6InIpv6TooSmall), 1);
    // IPv4-in-IPv4: off by default (Suricata 7), on when configured.
    let frame = eth(0x0800, &ipv4(4, &v4));
    let (d, out) = run(LinkType::ETHERNET, &frame);
    assert_eq!((out.len(), count(&d, Counter::Ipv4)), (1, 1));
    let cfg = DecoderConfig {
        ipv4_in_ipv4: true,
        ..DecoderConfig::default()
    };
    let (d, out) = run_cfg(cfg, LinkType::ETHERNET, &frame);
    assert_eq!(out.inner()[0].tunnel, Tunnel::Ipv4InIpv4);
    assert_eq!(count(&d, Counter::Ipv4), 2);
}

#[test]
fn nested_tunnels_are_capped() {
    // IPv6-in-IPv6 nested deeper than MAX_PACKETS.
    let mut p = ipv6(17, &udp(1, 2, b""));
    for _ in 0..MAX_PACKETS + 2 {
        p = ipv6(41, &p);
    }
    let (d, out) = run(LinkType::RAW, &p);
    assert_eq!(out.len(), MAX_PACKETS);
    assert_eq!(count(&d, Counter::TooManyLayers), 1);
    for (i, pk) in out.packets().iter().enumerate().skip(1) {
        assert_eq!(usize::from(pk.parent), i - 1);
    }
}

#[test]
fn decoded_is_reused_without_stale_state() {
    let mut d = Decoder::default();
    let mut out = Decoded::new();
    assert!(out.is_empty());
    let gre = [&[0u8, 0, 0x08, 0x00][..], &ipv4(17, &udp(1, 2, b""))].concat();
    let f1 = eth(0x0800, &ipv4(47, &gre));
    d.decode(
        LinkType::ETHERNET,
        &f1,
        Timestamp(1),
        f1.len() as u32,
        &mut out,
    );
    assert_eq!(out.len(), 2);
    let f2 = eth(0x0806, &[0; 28]);
    d.decode(LinkType::ETHERNET, &f2, Timestamp(2), 100, &mut out);
    assert_eq!(out.len(), 1);
    let p = out.outer();
    assert_eq!(
        (p.ip_version, p.proto, p.l4_off, p.ts),
        (0, 0, 0, Timestamp(2))
    );
    assert!(p.has(f::SNAPPED));
    assert_eq!(p.wire_len, 100);
}

//! Property tests (the fuzz targets of the issue, run under proptest): random segment
//! and fragment orders, overlaps and garbage never panic, reassemble what a receiver
//! would, and stay within the memory caps.

use flow::defrag::{Defrag, DefragConfig, DefragResult, FragKey, Fragment};
use flow::reasm::{Chunk, Consumer, ReasmLimits, Reassembly};
use flow::tcp::flags::*;
use flow::{Config, FlowKey, FlowTracker, PacketInfo, Piece, TcpHeader};
use proptest::prelude::*;

fn stream_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Segments cut from one stream, shuffled and duplicated, come out as the stream.
    #[test]
    fn reassembly_of_shuffled_consistent_segments(
        isn in any::<u32>(),
        cuts in prop::collection::vec((0usize..3000, 1usize..400), 1..60),
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..60),
    ) {
        let data = stream_bytes(3400);
        let mut segs: Vec<(usize, usize)> = cuts.iter().map(|&(s, l)| (s, (s + l).min(data.len()))).collect();
        for ix in &order {
            let i = ix.index(segs.len());
            segs.swap(0, i);
        }
        let mut r = Reassembly::new(isn.wrapping_add(1));
        let lim = ReasmLimits::default();
        let mut mem = 0;
        for &(s, e) in &segs {
            r.insert(isn.wrapping_add(1).wrapping_add(s as u32), &data[s..e], &lim, &mut mem, usize::MAX);
        }
        let mut ch = Vec::new();
        r.take(Consumer::App, 0, true, &mut ch);
        let mut covered = vec![false; data.len()];
        for &(s, e) in &segs {
            covered[s..e].iter_mut().for_each(|c| *c = true);
        }
        for c in &ch {
            match *c {
                Chunk::Data { offset, .. } => {
                    let b = r.chunk_bytes(c);
                    let o = offset as usize;
                    prop_assert_eq!(b, &data[o..o + b.len()]);
                    prop_assert!(covered[o..o + b.len()].iter().all(|&x| x));
                }
                Chunk::Gap { offset, len } => {
                    let o = offset as usize;
                    prop_assert!(covered[o..o + len as usize].iter().all(|&x| !x));
                }
            }
        }
        ch.clear();
        r.take(Consumer::Raw, 0, true, &mut ch);
        prop_assert!(!r.has_pending());
    }

    /// Arbitrary segments (any seq, any bytes, overlaps with different data) under
    /// every policy: no panic, memory within the cap.
    #[test]
    fn reassembly_hostile_segments_stay_bounded(
        isn in any::<u32>(),
        segs in prop::collection::vec((any::<u32>(), prop::collection::vec(any::<u8>(), 0..300), any::<bool>()), 1..80),
        policy in 0usize..6,
    ) {
        let policies = [flow::OverlapPolicy::First, flow::OverlapPolicy::Last, flow::OverlapPolicy::Bsd,
            flow::OverlapPolicy::Linux, flow::OverlapPolicy::Windows, flow::OverlapPolicy::Solaris];
        let lim = ReasmLimits { depth: 1 << 16, max_ahead: 1 << 16, policy: policies[policy], ..Default::default() };
        let memcap = 100_000;
        let mut mem = 0;
        let mut r = Reassembly::new(isn);
        let mut ch = Vec::new();
        for (i, (off, bytes, take)) in segs.iter().enumerate() {
            // Mostly near the stream, sometimes anywhere in sequence space.
            let seq = if i % 4 == 0 { *off } else { isn.wrapping_add(off % 70_000) };
            r.insert(seq, bytes, &lim, &mut mem, memcap);
            prop_assert!(mem <= memcap);
            if *take {
                ch.clear();
                r.take(Consumer::Raw, (off % 70_000) as u64, false, &mut ch);
                for c in &ch { let _ = r.chunk_bytes(c); }
            }
        }
        ch.clear();
        r.take(Consumer::App, 0, true, &mut ch);
    }

    /// Fragments of one datagram in any order, with duplicates, rebuild it.
    #[test]
    fn defrag_any_order(
        payload_len in 1usize..3000,
        frag_units in 1usize..40,
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
        dup in any::<bool>(),
    ) {
        let payload = stream_bytes(payload_len);
        let step = frag_units * 8;
        let mut frags: Vec<(usize, usize)> = (0..payload_len).step_by(step).map(|s| (s, (s + step).min(payload_len))).collect();
        if dup { frags.push(frags[0]); }
        for ix in &order {
            let i = ix.index(frags.len());
            frags.swap(0, i);
        }
        let mut hdr = vec![0x45u8, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0];
        hdr.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut src = [0; 16];
        src[..4].copy_from_slice(&[1, 2, 3, 4]);
        let key = FragKey { src, dst: [0; 16], id: 1, proto: 17, family: flow::Family::V4, vlan: 0 };
        let mut d = Defrag::new(DefragConfig::default());
        let mut out = None;
        for &(s, e) in &frags {
            let f = Fragment { key, offset: s as u32, more: e != payload_len, data: &payload[s..e], header: &hdr, v6_next: None, ts_us: 0 };
            if let DefragResult::Reassembled(b) = d.insert(&f) {
                prop_assert!(out.is_none() || dup, "completed twice");
                if out.is_none() { out = Some(b.to_vec()); }
            }
        }
        let out = out.expect("complete");
        prop_assert_eq!(&out[20..], &payload[..]);
    }

    /// Garbage fragments: no panic, memory within the cap.
    #[test]
    fn defrag_hostile_bounded(
        frags in prop::collection::vec((0u32..4, 0u32..70_000, any::<bool>(), prop::collection::vec(any::<u8>(), 0..600), 0u64..200), 1..100),
    ) {
        let cfg = DefragConfig { memcap: 50_000, max_trackers: 3, max_frags: 20, ..Default::default() };
        let mut d = Defrag::new(cfg);
        let hdr = [0x45u8; 20];
        for (id, off, more, data, t) in &frags {
            let key = FragKey { src: [0; 16], dst: [0; 16], id: *id, proto: 6, family: if id % 2 == 0 { flow::Family::V4 } else { flow::Family::V6 }, vlan: 0 };
            let mut h6 = [0u8; 40];
            h6[0] = 0x60;
            let header: &[u8] = if id % 2 == 0 { &hdr } else { &h6 };
            let f = Fragment { key, offset: off & !7, more: *more, data, header, v6_next: Some((6, 17)), ts_us: t * 1_000_000 };
            let _ = d.insert(&f);
            prop_assert!(d.memuse() <= 50_000);
            prop_assert!(d.pending() <= 3);
        }
    }

    /// Random TCP packets over a few flows through the whole tracker.
    #[test]
    fn tracker_random_packets(
        pkts in prop::collection::vec((0u8..4, any::<bool>(), any::<u32>(), any::<u32>(), any::<u8>(), prop::collection::vec(any::<u8>(), 0..200)), 1..200),
    ) {
        let cfg = Config { max_flows: 3, hash_size: 2, reassembly_memcap: 20_000, ..Default::default() };
        let mut t = FlowTracker::new(cfg);
        for (i, (flow, dir, seq, ack, fl, payload)) in pkts.iter().enumerate() {
            let k = FlowKey::v4([10, 0, 0, *flow], 1000 + *flow as u16, [10, 0, 1, 1], 80, 6);
            let key = if *dir { k } else { k.reversed() };
            // Keep sequence numbers near each other so streams really build up.
            let p = PacketInfo { key, ts_us: i as u64 * 1000, len: 40, tcp: Some(TcpHeader { seq: seq % 5000, ack: ack % 5000, flags: fl & (SYN | ACK | FIN | RST | PSH), window: 1000, tfo: false, wscale: None, ts: None }), payload };
            if let Some(u) = t.packet(&p) {
                for s in [u.app, u.raw] {
                    for piece in s.pieces() {
                        if let Piece::Data { bytes, .. } = piece { let _ = bytes.len(); }
                    }
                }
            }
            prop_assert!(t.reassembly_memuse() <= 20_000);
            t.drain_ended(|_| {});
        }
        t.shutdown();
        t.drain_ended(|_| {});
        prop_assert_eq!(t.active_flows(), 0);
        prop_assert_eq!(t.reassembly_memuse(), 0);
    }
}

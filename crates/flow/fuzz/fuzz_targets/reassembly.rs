//! Arbitrary TCP segments (sequence number, length and bytes taken from the input) under
//! an overlap policy chosen by the first byte: no panic, memory within the cap, and what
//! comes out lies inside the segments that went in.
#![no_main]

use flow::reasm::{Chunk, Consumer, ReasmLimits, Reassembly};
use flow::OverlapPolicy;
use libfuzzer_sys::fuzz_target;

const POLICIES: [OverlapPolicy; 6] = [
    OverlapPolicy::First,
    OverlapPolicy::Last,
    OverlapPolicy::Bsd,
    OverlapPolicy::Linux,
    OverlapPolicy::Windows,
    OverlapPolicy::Solaris,
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let policy = POLICIES[data[0] as usize % POLICIES.len()];
    let isn = u32::from_le_bytes([data[1], data[2], data[3], data[4]]);
    let lim = ReasmLimits {
        depth: 1 << 16,
        max_ahead: 1 << 16,
        policy,
        ..Default::default()
    };
    let memcap = 64 * 1024;
    let mut mem = 0;
    let mut r = Reassembly::new(isn);
    let mut chunks = Vec::new();
    // Records: 2-byte relative sequence, 1-byte length, 1 flag byte, then the bytes.
    let mut rest = &data[5..];
    while rest.len() >= 4 {
        let rel = u16::from_le_bytes([rest[0], rest[1]]) as u32;
        let len = (rest[2] as usize).min(rest.len() - 4);
        let flag = rest[3];
        let bytes = &rest[4..4 + len];
        rest = &rest[4 + len..];
        let seq = if flag & 0x80 != 0 {
            rel.wrapping_mul(65_537)
        } else {
            isn.wrapping_add(rel)
        };
        r.insert(seq, bytes, &lim, &mut mem, memcap);
        assert!(mem <= memcap, "memory {mem} over the cap {memcap}");
        if flag & 1 != 0 {
            chunks.clear();
            r.take(Consumer::Raw, rel as u64, flag & 2 != 0, &mut chunks);
            for c in &chunks {
                if let Chunk::Data { .. } = c {
                    let _ = r.chunk_bytes(c);
                }
            }
        }
    }
    chunks.clear();
    r.take(Consumer::App, 0, true, &mut chunks);
    for c in &chunks {
        let _ = r.chunk_bytes(c);
    }
});

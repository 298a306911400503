//! Arbitrary IPv4/IPv6 fragments (id, offset, more-fragments flag, time and bytes taken
//! from the input) into a small defragmenter: no panic, and a rebuilt datagram never
//! exceeds the largest IP datagram.
#![no_main]

use flow::defrag::{Defrag, DefragConfig, DefragResult, FragKey, Fragment};
use flow::Family;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cfg = DefragConfig {
        memcap: 64 * 1024,
        max_trackers: 4,
        max_frags: 32,
        ..Default::default()
    };
    let mut d = Defrag::new(cfg);
    let h4 = [
        0x45u8, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
    ];
    let mut h6 = [0u8; 40];
    h6[0] = 0x60;
    // Records: id byte, 2-byte offset (8-byte units), flags byte, length byte, bytes.
    let mut rest = data;
    while rest.len() >= 5 {
        let id = rest[0] as u32 % 6;
        let off = u16::from_le_bytes([rest[1], rest[2]]) as u32 % 8192 * 8;
        let flags = rest[3];
        let len = (rest[4] as usize).min(rest.len() - 5);
        let bytes = &rest[5..5 + len];
        rest = &rest[5 + len..];
        let v6 = id % 2 == 1;
        let key = FragKey {
            src: [0; 16],
            dst: [0; 16],
            id,
            proto: 17,
            family: if v6 { Family::V6 } else { Family::V4 },
            vlan: 0,
        };
        let f = Fragment {
            key,
            offset: off,
            more: flags & 1 != 0,
            data: bytes,
            header: if v6 { &h6 } else { &h4 },
            v6_next: v6.then_some((6, 17)),
            ts_us: (flags >> 1) as u64 * 1_000_000,
        };
        if let DefragResult::Reassembled(b) = d.insert(&f) {
            assert!(b.len() <= 40 + 65_535 + 8, "datagram of {} bytes", b.len());
        }
    }
});

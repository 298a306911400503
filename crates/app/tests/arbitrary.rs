//! Arbitrary bytes through every registered parser (the same driver as the cargo-fuzz
//! target `fuzz/fuzz_targets/app_flow.rs`): nothing panics or hangs.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_through_any_parser(data in proptest::collection::vec(any::<u8>(), 0..2048)) {
        app::fuzzing::drive(&data);
    }
}

/// Each protocol at least once over each transport, with bytes that look like a start.
#[test]
fn every_protocol_over_both_transports() {
    let n = app::registry::protocols().len() as u8;
    for p in 0..n {
        for t in 0..2u8 {
            let mut data = vec![p, t];
            for (i, chunk) in [
                &b"\x00\x00\x00\x10\xffSMB"[..],
                b"USER x\r\n",
                b"\x05\x00\x0b\x03",
            ]
            .iter()
            .enumerate()
            {
                data.extend_from_slice(&[i as u8, chunk.len() as u8]);
                data.extend_from_slice(chunk);
            }
            data.extend_from_slice(&[2, 4]);
            app::fuzzing::drive(&data);
        }
    }
}

/// The checked-in corpus (`fuzz/corpus/app_flow`, real flows of the integration tests'
/// captures, built by `fuzz/seeds.py`), each seed as is and under a bounded number of
/// deterministic mutations (12 per seed: bytes flipped, cut short, a chunk repeated): the campaign
/// CI runs on every change, in a few seconds.
#[test]
fn the_corpus_and_its_mutations() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/app_flow");
    let mut seeds: Vec<_> = std::fs::read_dir(dir)
        .expect("fuzz/corpus/app_flow")
        .map(|e| e.unwrap().path())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 30, "{} seeds", seeds.len());
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in &seeds {
        let seed = std::fs::read(path).unwrap();
        app::fuzzing::drive(&seed);
        for round in 0..12 {
            let mut m = seed.clone();
            match round % 3 {
                0 => {
                    for _ in 0..1 + next() % 8 {
                        let i = 2 + (next() as usize) % (m.len().max(3) - 2);
                        if let Some(b) = m.get_mut(i) {
                            *b ^= 1 << (next() % 8);
                        }
                    }
                }
                1 => m.truncate(2 + (next() as usize) % m.len().max(3)),
                _ => {
                    let at = 2 + (next() as usize) % (m.len().max(3) - 2);
                    let len = ((next() as usize) % 512).min(m.len().saturating_sub(at));
                    let chunk = m[at..at + len].to_vec();
                    m.splice(at..at, chunk);
                }
            }
            app::fuzzing::drive(&m);
        }
    }
}

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

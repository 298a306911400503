//! Arbitrary bytes into the frame reader, the HPACK decoder and the Huffman decoder:
//! nothing may panic, loop or keep more than the limits allow.

use proptest::prelude::*;

use super::frame::{frame, FrameType, FLAG_END_HEADERS, PREFACE};
use super::hpack::Decoder;
use super::{huffman, Http2State};
use crate::{AppCtx, Direction};

/// A frame with an arbitrary type, flags, stream and payload.
fn any_frame() -> impl Strategy<Value = Vec<u8>> {
    (
        0u8..12,
        any::<u8>(),
        0u32..8,
        prop::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(t, fl, s, p)| frame(FrameType(t), fl, s, &p))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn state_survives_arbitrary_bytes(
        a in prop::collection::vec(any::<u8>(), 0..512),
        b in prop::collection::vec(any::<u8>(), 0..512),
        split in 1usize..40,
    ) {
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        let mut c = PREFACE.to_vec();
        c.extend_from_slice(&a);
        for ch in c.chunks(split) {
            st.parse(&mut ctx, Direction::ToServer, ch);
        }
        for ch in b.chunks(split) {
            st.parse(&mut ctx, Direction::ToClient, ch);
        }
        st.close(&mut ctx);
        prop_assert!(st.txs().count() <= ctx.config.max_tx);
    }

    #[test]
    fn state_survives_arbitrary_frames(
        frames in prop::collection::vec(any_frame(), 0..24),
        split in 1usize..40,
    ) {
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        let mut c = PREFACE.to_vec();
        let mut s = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            if i % 2 == 0 { c.extend_from_slice(f) } else { s.extend_from_slice(f) }
        }
        for ch in c.chunks(split) {
            st.parse(&mut ctx, Direction::ToServer, ch);
        }
        for ch in s.chunks(split) {
            st.parse(&mut ctx, Direction::ToClient, ch);
        }
        for tx in st.txs() {
            prop_assert!(tx.request().headers().len() <= ctx.config.max_headers);
        }
    }

    #[test]
    fn hpack_survives_arbitrary_blocks(
        blocks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..128), 1..8),
    ) {
        let mut d = Decoder::new();
        for b in &blocks {
            let out = d.decode(b, 16, 4096);
            prop_assert!(out.fields.len() <= 16);
            prop_assert!(out.fields.iter().map(|f| f.name.len() + f.value.len()).sum::<usize>() <= 4096);
            prop_assert!(d.table_size() <= super::hpack::TABLE_LIMIT);
        }
        // A header block wrapped in frames too.
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        let mut c = PREFACE.to_vec();
        for (i, b) in blocks.iter().enumerate() {
            c.extend(frame(FrameType::HEADERS, FLAG_END_HEADERS, 2 * i as u32 + 1, b));
        }
        st.parse(&mut ctx, Direction::ToServer, &c);
    }

    #[test]
    fn huffman_round_trips_and_survives(s in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut out = Vec::new();
        huffman::decode(&huffman::encode(&s), &mut out, 1000).unwrap();
        prop_assert_eq!(&out, &s);
        let _ = huffman::decode(&s, &mut Vec::new(), 1000);
    }
}

#[test]
fn hpack_bomb_is_capped() {
    // One large entry in the table, then a block that repeats it thousands of times.
    let mut d = Decoder::new();
    let mut b = vec![0x40, 0x01, b'x', 0x7f, 0xa1, 0x1e];
    b.extend(std::iter::repeat_n(b'v', 4000));
    let out = d.decode(&b, 100, 1 << 20);
    assert_eq!(out.error, None);
    let bomb = vec![0xbe; 16_000];
    let out = d.decode(&bomb, 100, 1 << 20);
    assert_eq!(out.fields.len(), 100);
    assert!(out.truncated);
}

//! DATA frames longer than SETTINGS_MAX_FRAME_SIZE, as Suricata 7.0.10 takes them
//! (tests/parity/cases/http2-long-frame): whole when shorter than 64 KiB, in part
//! from 64 KiB on.

use super::frame::{frame, FrameType, FLAG_END_HEADERS, FLAG_END_STREAM, PREFACE};
use super::hpack::tests::literal_block;
use super::state::{Http2State, LONG_FRAME};
use crate::http::Progress;
use crate::{AppCtx, Direction};

fn client_post() -> Vec<u8> {
    let mut v = PREFACE.to_vec();
    v.extend(frame(FrameType::SETTINGS, 0, 0, &[]));
    let fields = [
        (":method", "POST"),
        (":authority", "h"),
        (":scheme", "http"),
        (":path", "/p"),
    ];
    v.extend(frame(
        FrameType::HEADERS,
        FLAG_END_HEADERS,
        1,
        &literal_block(&fields),
    ));
    v
}

fn body(n: usize) -> Vec<u8> {
    let mut b = vec![b'a'; n];
    b[n - 4..].copy_from_slice(b"TAIL");
    b
}

/// The request body of stream 1 and whether its side is complete.
fn request_body(st: &Http2State) -> (Vec<u8>, bool) {
    let tx = st
        .txs()
        .find(|t| t.h2().map(|h| h.stream_id) == Some(1))
        .unwrap();
    (
        tx.request.body().to_vec(),
        tx.request.progress() == Progress::Complete,
    )
}

#[test]
fn a_frame_shorter_than_64k_is_delivered_whole_when_complete() {
    let mut ctx = AppCtx::default();
    let mut st = Http2State::new();
    st.parse(&mut ctx, Direction::ToServer, &client_post());
    let data = frame(FrameType::DATA, FLAG_END_STREAM, 1, &body(20_000));
    st.parse(&mut ctx, Direction::ToServer, &data[..10_000]);
    assert_eq!(request_body(&st), (vec![], false));
    st.parse(&mut ctx, Direction::ToServer, &data[10_000..]);
    assert_eq!(request_body(&st), (body(20_000), true));
}

#[test]
fn a_64k_frame_is_taken_in_part_and_the_rest_skipped() {
    for first in [300, 1400, 40_000] {
        let mut ctx = AppCtx::default();
        let mut st = Http2State::new();
        st.parse(&mut ctx, Direction::ToServer, &client_post());
        let mut data = frame(FrameType::DATA, FLAG_END_STREAM, 1, &body(LONG_FRAME));
        // A frame after it is read as usual.
        data.extend(frame(FrameType::SETTINGS, 0, 0, &[]));
        let cut = 9 + first;
        st.parse(&mut ctx, Direction::ToServer, &data[..cut]);
        assert_eq!(
            request_body(&st),
            (body(LONG_FRAME)[..first].to_vec(), true)
        );
        for c in data[cut..].chunks(1000) {
            st.parse(&mut ctx, Direction::ToServer, c);
        }
        assert_eq!(request_body(&st).0.len(), first, "{first}");
        assert_eq!(st.tx_count(), 3, "the SETTINGS after it: {first}");
    }
}

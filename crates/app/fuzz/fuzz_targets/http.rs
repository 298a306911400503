//! HTTP state machine: the first byte picks a split size; the rest is alternately fed
//! to server and client in pieces, then the flow closes.
#![no_main]
use app::http::HttpState;
use app::{AppCtx, Direction};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let mut ctx = AppCtx::default();
    let mut s = HttpState::new();
    let split = usize::from(k % 64) + 1;
    for (i, piece) in rest.chunks(split).enumerate() {
        let dir = if (i / 4) % 2 == 0 { Direction::ToServer } else { Direction::ToClient };
        s.parse(&mut ctx, dir, piece);
    }
    s.close(&mut ctx);
    for tx in s.txs() {
        for b in app::http::ALL_BUFFERS {
            let _ = tx.buffer(b, Direction::ToServer);
            let _ = tx.buffer(b, Direction::ToClient);
        }
    }
});

//! Protocol detection plus whichever parser it picks, on TCP port 53 (all probes on).
#![no_main]
use app::{AppCtx, AppFlow, Direction, Transport};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut ctx = AppCtx::default();
    let mut f = AppFlow::new(Transport::Tcp, 40000, 53);
    for (i, piece) in data.chunks(16).enumerate() {
        let dir = if i % 3 == 2 { Direction::ToClient } else { Direction::ToServer };
        f.parse(&mut ctx, dir, piece);
    }
    f.close(&mut ctx);
    let mut u = AppFlow::new(Transport::Udp, 40000, 53);
    u.datagram(&mut ctx, Direction::ToServer, data);
});

//! DNS message parser and DNS-over-TCP framing.
#![no_main]
use app::dns::DnsState;
use app::{AppCtx, Direction, Transport};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = app::dns::parser::parse_message(data);
    let mut ctx = AppCtx::default();
    let mut s = DnsState::new(Transport::Tcp);
    for piece in data.chunks(7) {
        s.parse(&mut ctx, Direction::ToClient, piece);
    }
});

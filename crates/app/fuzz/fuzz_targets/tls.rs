//! TLS record and handshake parsing, both directions.
#![no_main]
use app::tls::TlsState;
use app::{AppCtx, Direction};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut ctx = AppCtx::default();
    let mut s = TlsState::new();
    let half = data.len() / 2;
    for piece in data[..half].chunks(5) {
        s.parse(&mut ctx, Direction::ToServer, piece);
    }
    s.parse(&mut ctx, Direction::ToClient, &data[half..]);
    let _ = app::tls::parser::client_hello(data);
    let _ = app::tls::parser::certificates(data);
});

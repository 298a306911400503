//! Hostile frames through the packet decoder (see `wire::fuzzing::decode_frame` for the
//! input layout): `cargo +nightly fuzz run frame`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| wire::fuzzing::decode_frame(data));

//! Hostile rule text through parsing, the detector's build and inspection (see
//! `detect::fuzzing` for the input layout): `cargo +nightly fuzz run rules`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| detect::fuzzing::drive(data));

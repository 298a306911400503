//! Every application-layer parser under libFuzzer (see `app::fuzzing` for the input
//! layout): `cargo +nightly fuzz run app_flow`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| app::fuzzing::drive(data));

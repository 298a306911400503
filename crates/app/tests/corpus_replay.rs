//! Replays the checked-in fuzz corpus `fuzz/corpus/app_flow` (seeds cut from the test
//! captures by `fuzz/seeds.py`) and deterministic mutations of every seed through
//! [`app::fuzzing::drive`], the cargo-fuzz target's driver: nothing panics, and nothing
//! hangs — a watchdog names the input still running after the budget. (It found a
//! Kerberos-over-TCP record of length zero that looped for ever.)

use std::time::Duration;

#[test]
fn the_fuzz_corpus_and_its_mutations_replay_in_bounded_time() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/app_flow");
    let seeds = wire::fuzzing::corpus(dir.as_ref()).expect("the corpus is checked in");
    assert!(seeds.len() >= 50, "only {} seeds", seeds.len());
    wire::fuzzing::replay(seeds, 2, 512, Duration::from_secs(240), app::fuzzing::drive);
}

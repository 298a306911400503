//! Replays the checked-in fuzz corpus `fuzz/corpus/rules` (the rules of the test
//! sources with payloads, collected by `fuzz/seeds.py`) and deterministic mutations of
//! every seed through [`detect::fuzzing::drive`] — parsing, the detector's build,
//! inspection — as the cargo-fuzz target `rules` does: nothing panics or hangs.

use std::time::Duration;

#[test]
fn the_rules_corpus_and_its_mutations_replay_in_bounded_time() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/rules");
    let seeds = wire::fuzzing::corpus(dir.as_ref()).expect("the corpus is checked in");
    assert!(seeds.len() >= 50, "only {} seeds", seeds.len());
    wire::fuzzing::replay(
        seeds,
        0,
        256,
        Duration::from_secs(240),
        detect::fuzzing::drive,
    );
}

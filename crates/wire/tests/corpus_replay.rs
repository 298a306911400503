//! Replays the checked-in fuzz corpus `fuzz/corpus/frame` (distinct frames of the test
//! captures, cut by `fuzz/seeds.py`) and deterministic mutations of every seed through
//! the decoder, as the cargo-fuzz target `frame` does: nothing panics or hangs.

use std::time::Duration;

#[test]
fn the_frame_corpus_and_its_mutations_decode_in_bounded_time() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/frame");
    let seeds = wire::fuzzing::corpus(dir.as_ref()).expect("the corpus is checked in");
    assert!(seeds.len() >= 20, "only {} seeds", seeds.len());
    wire::fuzzing::replay(
        seeds,
        2,
        8192,
        Duration::from_secs(120),
        wire::fuzzing::decode_frame,
    );
}

//! Replays the checked-in fuzz corpus (`fuzz/corpus/app_flow`, seeds cut from the test
//! captures by `fuzz/seeds.py`) and deterministic mutations of every seed through
//! [`app::fuzzing::drive`], the cargo-fuzz target's driver: nothing panics, and nothing
//! hangs — a watchdog names the input still running after the budget.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Mutations per seed: a few bytes flipped each time (xorshift, fixed seed).
const MUTATIONS: usize = 512;

/// Wall-clock budget for the whole replay (debug build, shared CI cores): the corpus
/// takes a few seconds; a parser that loops never finishes.
const BUDGET: Duration = Duration::from_secs(240);

fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/app_flow");
    let mut seeds: Vec<_> = std::fs::read_dir(dir)
        .expect("fuzz/corpus/app_flow is checked in")
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    seeds.sort();
    seeds
}

/// `n` mutations of `data`: bytes after the two selector bytes xored with random values.
fn mutations(data: &[u8], n: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n).map(move |_| {
        let mut m = data.to_vec();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if m.len() > 2 {
                let i = 2 + (x as usize) % (m.len() - 2);
                m[i] ^= (x >> 32) as u8 | 1;
            }
        }
        m
    })
}

#[test]
fn the_fuzz_corpus_and_its_mutations_replay_in_bounded_time() {
    let seeds = seeds();
    assert!(seeds.len() >= 50, "only {} seeds", seeds.len());
    let current = Arc::new(Mutex::new(String::new()));
    let (done, finished) = mpsc::channel();
    let now = Arc::clone(&current);
    let worker = std::thread::spawn(move || {
        for (name, data) in &seeds {
            *now.lock().unwrap() = name.clone();
            app::fuzzing::drive(data);
            for (i, m) in mutations(data, MUTATIONS).enumerate() {
                *now.lock().unwrap() = format!("{name} mutation {i}");
                app::fuzzing::drive(&m);
            }
        }
        done.send(()).unwrap();
    });
    match finished.recv_timeout(BUDGET) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The worker panicked: join to report its panic.
            worker.join().unwrap();
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!(
            "replay still running after {BUDGET:?}, on {}",
            current.lock().unwrap()
        ),
    }
}

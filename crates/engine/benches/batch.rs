//! Batched function calls (Kargus §4.3): the whole engine on one worker with batches of
//! 1 frame (the per-packet path: one source read, one decode, one flow lookup, ... per
//! frame) against batches of 128 (every stage over the batch, flow lookups ahead), on
//! synthetic traffic of 64-byte and 1514-byte frames (`osprey gen`'s generator: HTTP
//! conversations, 4,096 open at once).
//!
//! `cargo bench -p engine --bench batch` — group `batch/<rules>/<size>B`, one line per
//! batch size, in packets per second. `<rules>` is `none` (no detection: decode, flows,
//! reassembly, application layer) and, when `../shared/rules/et-open` exists, `et-open`
//! (ET Open loaded as `osprey -S` would). `OSPREY_BENCH_PACKETS` sets the packets per
//! capture (default 100,000).
//!
//! The time measured is the CPU time of the thread running the engine (Linux
//! `/proc/thread-self/schedstat`; wall-clock time where that is unreadable): on a
//! machine shared with other work it is far steadier than wall-clock time, and with one
//! worker the whole engine runs on the calling thread.

use capture::SharedBytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use engine::{ChecksumMode, EngineConfig, RunOptions, SetupArgs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn packets() -> u64 {
    std::env::var("OSPREY_BENCH_PACKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// A capture of `size`-byte data frames, in memory.
fn capture(size: u16) -> SharedBytes {
    let cfg = gen::Config {
        flows: 4096,
        packets: packets(),
        size: gen::SizeDist::Fixed(size),
        ..gen::Config::default()
    };
    let mut out = Vec::new();
    gen::generate(&cfg, &[], &mut out).expect("generate to memory");
    Arc::new(out)
}

/// ET Open concatenated into one rule file (as `-S`), if the rules are there.
fn et_open_rules() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/rules/et-open");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        all.extend(std::fs::read(f).ok()?);
        all.push(b'\n');
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-et-open.rules");
    std::fs::write(&path, all).ok()?;
    Some(path)
}

fn config(rules: Option<&Path>) -> EngineConfig {
    let args = SetupArgs {
        exclusive_rules: rules.map(Path::to_path_buf),
        checksum: ChecksumMode::None,
        ..SetupArgs::default()
    };
    let mut config = engine::setup(&args).expect("engine setup").engine;
    if rules.is_none() {
        config.detector = None;
    }
    config
}

/// CPU time of the calling thread so far, if the kernel tells it.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Runs `f` `iters` times; the calling thread's CPU time (or wall time).
fn timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let (cpu0, wall0) = (thread_cpu(), Instant::now());
    for _ in 0..iters {
        f();
    }
    match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => wall0.elapsed(),
    }
}

fn run(bytes: &SharedBytes, config: &EngineConfig) -> u64 {
    let mut source =
        capture::open_shared(Path::new("bench.pcap"), bytes.clone()).expect("capture opens");
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let report = engine::run(source.as_mut(), config, &opts, |_| {}).expect("run");
    report.stats.get("decoder.pkts").unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let mut rule_sets: Vec<(&str, Option<PathBuf>)> = vec![("none", None)];
    if let Some(p) = et_open_rules() {
        rule_sets.push(("et-open", Some(p)));
    }
    for (name, rules) in &rule_sets {
        let base = config(rules.as_deref());
        for size in [64u16, 1514] {
            let bytes = capture(size);
            let mut g = c.benchmark_group(format!("batch/{name}/{size}B"));
            g.sample_size(10)
                .warm_up_time(Duration::from_secs(1))
                .measurement_time(Duration::from_secs(8));
            let n = run(&bytes, &base);
            g.throughput(Throughput::Elements(n));
            for batch_size in [1usize, 128] {
                let cfg = EngineConfig {
                    batch_size,
                    ..base.clone()
                };
                g.bench_function(format!("batch{batch_size}"), |b| {
                    b.iter_custom(|iters| timed(iters, || assert_eq!(run(&bytes, &cfg), n)))
                });
            }
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Decode + flow tracking + defragmentation + TCP reassembly over sv-ether.pcap on one
//! core. Frames are read into memory first so that capture I/O is not measured.
//!
//! cargo bench -p flow --bench flow

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use flow::adapter::{track_frame, FrameScratch};
use flow::{Config, FlowTracker, Piece};

struct Frame {
    link: wire::LinkType,
    ts: wire::Timestamp,
    wire_len: u32,
    data: Vec<u8>,
}

fn load(path: &Path) -> Vec<Frame> {
    let mut src = capture::open(path).expect("open");
    let mut batch = capture::Batch::new();
    let mut out = Vec::new();
    while src.next_batch(&mut batch, 128).expect("read") > 0 {
        for f in batch.iter() {
            out.push(Frame {
                link: f.link,
                ts: wire::Timestamp(f.ts.as_nanos().max(0) as u64),
                wire_len: f.wire_len,
                data: f.data.to_vec(),
            });
        }
    }
    out
}

/// One pass: returns the stream bytes handed to consumers (so nothing is optimized out).
fn run(frames: &[Frame], mut tracker: FlowTracker) -> u64 {
    let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
    let mut decoded = wire::Decoded::new();
    let mut scratch = FrameScratch::default();
    let mut bytes = 0u64;
    let mut last_sweep = 0;
    let mut sweeps = 0;
    for f in frames {
        decoder.decode(f.link, &f.data, f.ts, f.wire_len, &mut decoded);
        track_frame(
            &mut tracker,
            &mut decoder,
            &decoded,
            &f.data,
            &mut scratch,
            |_, _, u| {
                for s in [&u.app, &u.raw] {
                    for p in s.pieces() {
                        if let Piece::Data { bytes: b, .. } = p {
                            bytes += b.len() as u64;
                        }
                    }
                }
            },
        );
        let now = f.ts.0 / 1000;
        if now > last_sweep + 1_000_000 {
            tracker.sweep(now, sweeps);
            sweeps += 1;
            last_sweep = now;
        }
        if tracker.has_ended() {
            tracker.drain_ended(|_| {});
        }
    }
    tracker.shutdown();
    tracker.drain_ended(|_| {});
    bytes
}

/// Baseline: decode only.
fn decode_only(frames: &[Frame]) -> u64 {
    let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
    let mut decoded = wire::Decoded::new();
    let mut n = 0u64;
    for f in frames {
        decoder.decode(f.link, &f.data, f.ts, f.wire_len, &mut decoded);
        n += decoded.len() as u64;
    }
    n
}

fn bench(c: &mut Criterion) {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/pcaps/sv-ether.pcap"
    ));
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return;
    }
    let frames = load(path);
    let total: u64 = frames.iter().map(|f| f.data.len() as u64).sum();
    let mut g = c.benchmark_group("sv-ether");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(total));
    // The tracker's preallocation (262,144 flow entries) is set-up, not measured.
    g.bench_function("decode+flow+reassembly", |b| {
        b.iter_batched(
            || FlowTracker::new(Config::default()),
            |t| run(&frames, t),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("decode only (baseline)", |b| {
        b.iter(|| decode_only(&frames))
    });
    g.bench_function("tracker setup (Config::default)", |b| {
        b.iter(|| FlowTracker::new(Config::default()).active_flows())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

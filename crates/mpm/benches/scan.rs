//! Scan throughput of every available backend on a synthetic IDS-like set: 2,000 patterns of
//! 2..20 bytes (a quarter nocase) plus `|00|` runs, over 256 KiB of random bytes and over
//! a packet-like haystack (text, then a zero-filled tail).
//!
//! `mpm-parallel`: one 16 MiB random buffer scanned by [`mpm::parallel::scan_parallel`]
//! with 1 and 2 threads (the 1 -> 2 thread speedup of chunked scanning).
//!
//! `cargo bench -p mpm --bench scan` (`-- mpm-parallel` for the scaling group only)

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mpm::testutil::pseudo_random;
use mpm::{Kind, Matcher, Pattern};
use std::hint::black_box;

fn patterns() -> Vec<Pattern> {
    let pool = pseudo_random(42, 64 * 1024);
    let text = b"GET /index.html HTTP/1.1 User-Agent: Mozilla Host: example.com Content-Length cmd.exe /bin/sh";
    let mut out = Vec::new();
    for i in 0..2000usize {
        let len = 2 + i % 19;
        let bytes = if i % 3 == 0 {
            let at = (i * 7) % (text.len() - len);
            text[at..at + len].to_vec()
        } else {
            pool[i * 29..i * 29 + len].to_vec()
        };
        out.push(Pattern {
            bytes,
            id: i as u32,
            nocase: i % 4 == 0,
        });
    }
    for n in 1..=8 {
        out.push(Pattern::new(vec![0u8; n], 10_000 + n as u32));
    }
    out
}

fn haystacks() -> Vec<(&'static str, Vec<u8>)> {
    let random = pseudo_random(7, 256 * 1024);
    let mut packet = Vec::new();
    while packet.len() < 256 * 1024 {
        packet.extend_from_slice(
            b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: Mozilla/5.0\r\n\r\n",
        );
        packet.extend_from_slice(&pseudo_random(packet.len() as u64, 900));
        packet.extend_from_slice(&[0u8; 400]);
    }
    vec![("random", random), ("packets", packet)]
}

fn scan(c: &mut Criterion) {
    let pats = patterns();
    let mut group = c.benchmark_group("mpm-scan");
    for (name, hay) in haystacks() {
        group.throughput(Throughput::Bytes(hay.len() as u64));
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            group.bench_with_input(BenchmarkId::new(kind.name(), name), &hay, |b, hay| {
                b.iter(|| black_box(m.count(black_box(hay))))
            });
        }
    }
    group.finish();
}

fn parallel(c: &mut Criterion) {
    let pats = patterns();
    // Random bytes: few matches, so the scan and not the collection of matches is timed.
    let hay = pseudo_random(9, 16 << 20);
    let mut group = c.benchmark_group("mpm-parallel");
    group.throughput(Throughput::Bytes(hay.len() as u64));
    group.sample_size(10);
    for kind in [Kind::Spatch, Kind::Vpatch] {
        let m = Matcher::new(kind, &pats).unwrap();
        for threads in [1usize, 2] {
            group.bench_with_input(
                BenchmarkId::new(kind.name(), format!("{threads}-threads")),
                &hay,
                |b, hay| {
                    b.iter(|| {
                        black_box(mpm::parallel::scan_parallel(&m, black_box(hay), threads).len())
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, scan, parallel);
criterion_main!(benches);

//! The CPU executor (the kernels' semantics on the CPU) against `mpm`'s AC-Full matcher on
//! the same payloads: what the batch layout, 16-byte vector reads and report rows cost on
//! the CPU. A batch of 1,024 packets of 64..1,500 bytes (HTTP-like text, random bytes, zero
//! runs), 2,000 patterns as in `mpm`'s scan bench, one signature group.
//!
//! `cargo bench -p gpu --bench executor`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpu::cpu::{self, AcLayout};
use gpu::{merge_ac, AcTables, Batch, ReportBuffer};
use mpm::testutil::pseudo_random;
use mpm::{DfaTables, Kind, Limits, Matcher, Pattern};
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
        out.push(if i % 4 == 0 {
            Pattern::nocase(bytes, i as u32)
        } else {
            Pattern::new(bytes, i as u32)
        });
    }
    out
}

fn batch() -> Batch {
    let mut b = Batch::new(1024, 1 << 22);
    for i in 0..1024u64 {
        let len = 64 + (i as usize * 977) % 1437;
        let mut p = b"GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n".to_vec();
        p.extend_from_slice(&pseudo_random(i + 1, len));
        p.truncate(len);
        if i % 5 == 0 {
            p.iter_mut().skip(len / 2).for_each(|x| *x = 0);
        }
        b.push(0, &p).unwrap();
    }
    b
}

fn executor(c: &mut Criterion) {
    let pats = patterns();
    let tables = AcTables::new(&[DfaTables::build(&pats, &Limits::default()).unwrap()]).unwrap();
    let m = Matcher::new(Kind::AcFull, &pats).unwrap();
    let b = batch();
    let bytes: u64 = b.lens().iter().map(|&l| l as u64).sum();
    let mut g = c.benchmark_group("gpu-cpu-executor");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function(BenchmarkId::new("mpm-ac-full", "batch"), |bench| {
        bench.iter(|| {
            let mut n = 0usize;
            for p in 0..b.len() {
                m.scan(black_box(b.payload(p)), &mut |_| n += 1);
            }
            black_box(n)
        })
    });
    let mut rows = ReportBuffer::new(64);
    let mut out = Vec::new();
    for layout in [AcLayout::PacketPerThread, AcLayout::BLOCK_WARP] {
        let name = match layout {
            AcLayout::PacketPerThread => "thread",
            _ => "block32",
        };
        g.bench_function(
            BenchmarkId::new(format!("executor-{name}+merge"), "batch"),
            |bench| {
                bench.iter(|| {
                    cpu::run_ac(&tables, black_box(&b), layout, &mut rows);
                    out.clear();
                    merge_ac(&tables, &b, &rows, &mut out);
                    black_box(out.len())
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, executor);
criterion_main!(benches);

//! The dispatcher's host work per device batch, before and after the workers wrote their
//! payloads straight into staged buffers (issue 27 point 2):
//!
//! - `before` (the dispatcher as it was up to commit d4282b6d, its steps reproduced here):
//!   gather every worker's payload bytes and entries into the device batch's staging
//!   buffer; after the kernel, copy the counters out, build the dense used slots, and
//!   split them into a new `ReportBuffer` per worker (allocated, sized, filled).
//! - `after` (the code): the 12-byte entries ([`gpu::feeder::write_entries`]) and the
//!   counters handed to each worker's own rows ([`gpu::feeder::hand_out_counts`]); the
//!   payload bytes and the report slots move by DMA (on a GPU) between the workers' staged
//!   buffers and the device, not through the dispatcher.
//!
//! W workers x P payloads of 1,514 bytes (the traffic: ~37 payloads per worker
//! batch on the H100 run; 128, a full RX batch), one signature group, report rows of 64
//! slots filled by the CPU executor (the rows a device returns). Throughput is payload
//! bytes through one dispatcher core.
//!
//! `cargo bench -p gpu --bench feeder`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpu::cpu::{self, AcLayout};
use gpu::feeder::{hand_out_counts, write_entries};
use gpu::{AcTables, Batch, RawReport, ReportBuffer};
use mpm::testutil::pseudo_random;
use mpm::{DfaTables, Limits, Pattern};
use std::hint::black_box;

const CAP: u32 = 64;
const SIZE: usize = 1514;

/// Patterns that match a few times per payload (the H100 run: 4.8 per real payload).
fn tables() -> AcTables {
    let words: [&[u8]; 6] = [
        b"GET /",
        b"Host: ",
        b"User-Agent",
        b"cmd.exe",
        b"/bin/sh",
        b"\r\n\r\n",
    ];
    let pats: Vec<Pattern> = words
        .iter()
        .enumerate()
        .map(|(i, w)| Pattern::new(w.to_vec(), i as u32))
        .collect();
    AcTables::new(&[DfaTables::build(&pats, &Limits::default()).unwrap()]).unwrap()
}

/// One worker's batch of `p` payloads of [`SIZE`] bytes.
fn worker_batch(p: usize, seed: u64) -> Batch {
    let noise = pseudo_random(seed, p * SIZE);
    let mut b = Batch::new(p, p * (SIZE + 16));
    for i in 0..p {
        let mut pl =
            b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: x\r\n\r\n".to_vec();
        pl.extend_from_slice(&noise[i * SIZE..i * SIZE + SIZE - pl.len()]);
        b.push(0, &pl).unwrap();
    }
    b
}

/// The old dispatcher's host work for one device batch of `parts`, given the device's
/// results `dev` (counters and full rows, as the device wrote them).
fn before(parts: &[Batch], dev: &ReportBuffer, staging: &mut [u8], meta: &mut [u32]) -> usize {
    // Gather: bytes and entries into the device batch's staging buffer.
    let n: usize = parts.iter().map(Batch::len).sum();
    let mut base = 0usize;
    let mut first = 0usize;
    for b in parts {
        let k = b.len();
        staging[base..base + b.bytes().len()].copy_from_slice(b.bytes());
        for (o, &off) in meta[first..first + k].iter_mut().zip(b.offsets()) {
            *o = off + base as u32;
        }
        meta[n + first..n + first + k].copy_from_slice(b.lens());
        meta[2 * n + first..2 * n + first + k].copy_from_slice(b.groups());
        base += b.bytes().len();
        first += k;
    }
    // Results: the counters copied out, the used slots as dense rows, split per worker.
    let counts = dev.raw().0[..n].to_vec();
    let used = counts.iter().copied().max().unwrap_or(0).min(CAP) as usize;
    let mut dense = Vec::with_capacity(n * used);
    for p in 0..n {
        let row = &dev.raw().1[p * CAP as usize..p * CAP as usize + used];
        dense.extend_from_slice(row);
    }
    let dense: Vec<RawReport> = dense;
    let mut out = 0usize;
    let mut first = 0usize;
    for b in parts {
        let k = b.len();
        let mut buf = ReportBuffer::new(CAP);
        buf.reset(k);
        let (c, r) = buf.raw_mut();
        c.copy_from_slice(&counts[first..first + k]);
        for p in 0..k {
            let m = (counts[first + p] as usize).min(used);
            let row = &dense[(first + p) * used..(first + p) * used + m];
            r[p * CAP as usize..p * CAP as usize + m].copy_from_slice(row);
        }
        out += black_box(buf).packets();
        first += k;
    }
    out
}

/// The dispatcher's host work now: the entries, and the counters into each worker's rows
/// (which travel with its batch and are reused).
fn after(
    parts: &[Batch],
    dev: &ReportBuffer,
    rows: &mut [ReportBuffer],
    meta: &mut [u32],
    used: &mut Vec<usize>,
) -> usize {
    let n: usize = parts.iter().map(Batch::len).sum();
    write_entries(parts, &mut meta[..3 * n]);
    for (r, b) in rows.iter_mut().zip(parts) {
        r.size_for(b.len());
    }
    hand_out_counts(&dev.raw().0[..n], rows.iter_mut(), used);
    used.len()
}

fn bench(c: &mut Criterion) {
    let tables = tables();
    let mut g = c.benchmark_group("dispatcher_host_per_device_batch");
    for (workers, per) in [(1usize, 37usize), (16, 37), (16, 128)] {
        let parts: Vec<Batch> = (0..workers)
            .map(|w| worker_batch(per, 7 + w as u64))
            .collect();
        let n = workers * per;
        // The device's rows: the executor over the merged batch.
        let mut merged = Batch::new(n, n * (SIZE + 16));
        for b in &parts {
            for p in 0..b.len() {
                merged.push(0, b.payload(p)).unwrap();
            }
        }
        let mut dev = ReportBuffer::new(CAP);
        cpu::run_ac(&tables, &merged, AcLayout::PacketPerThread, &mut dev);
        let payload: u64 = parts.iter().flat_map(|b| b.lens()).map(|&l| l as u64).sum();
        g.throughput(Throughput::Bytes(payload));
        let id = format!("{workers}x{per}");
        let mut staging = vec![0u8; merged.bytes().len()];
        let mut meta = vec![0u32; 3 * n];
        g.bench_with_input(
            BenchmarkId::new("before-gather-split", &id),
            &(),
            |bch, _| bch.iter(|| before(&parts, &dev, &mut staging, &mut meta)),
        );
        let mut rows: Vec<ReportBuffer> = (0..workers).map(|_| ReportBuffer::new(CAP)).collect();
        let mut used = Vec::new();
        g.bench_with_input(BenchmarkId::new("after-staged", &id), &(), |bch, _| {
            bch.iter(|| after(&parts, &dev, &mut rows, &mut meta, &mut used))
        });
        // Both hand each worker the same counters and rows.
        let mut want = Vec::new();
        let mut first = 0;
        for b in &parts {
            let mut r = ReportBuffer::new(CAP);
            r.reset(b.len());
            let (cnt, slots) = r.raw_mut();
            cnt.copy_from_slice(&dev.raw().0[first..first + b.len()]);
            for p in 0..b.len() {
                let row = dev.row(first + p);
                slots[p * CAP as usize..p * CAP as usize + row.len()].copy_from_slice(row);
            }
            want.push(r);
            first += b.len();
        }
        for (r, w) in rows.iter().zip(&want) {
            assert_eq!(r.raw().0, w.raw().0);
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);

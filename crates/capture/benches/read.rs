//! Read throughput of the file sources on `shared/pcaps/sv-ether.pcap` (183,315 frames,
//! 52 MB): from memory (as the mapped path), from the mapped file, and streamed through
//! the reused buffer (the stdin / pipe path). Each iteration reads every frame and touches
//! its first byte.
//!
//! `cargo bench -p capture --bench read`

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use capture::{Batch, Source, BATCH_SIZE};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const PCAP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/pcaps/sv-ether.pcap"
);

/// A reader over shared bytes, so the stream benchmark copies nothing up front.
struct SharedReader(Arc<Vec<u8>>, usize);

impl Read for SharedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.0[self.1..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.1 += n;
        Ok(n)
    }
}

fn drain(mut src: Box<dyn Source>, batch: &mut Batch) -> u64 {
    let mut sum = 0u64;
    while src.next_batch(batch, BATCH_SIZE).unwrap() > 0 {
        for f in batch.iter() {
            sum += u64::from(f.data.first().copied().unwrap_or(0)) + f.index;
        }
    }
    sum
}

fn bench(c: &mut Criterion) {
    let path = Path::new(PCAP);
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("skipped: {PCAP} not found");
        return;
    };
    let frames = {
        let mut b = Batch::new();
        let mut src = capture::open(path).unwrap();
        let mut n = 0;
        while src.next_batch(&mut b, BATCH_SIZE).unwrap() > 0 {
            n += b.len() as u64;
        }
        n
    };
    let mut g = c.benchmark_group("read/sv-ether");
    g.throughput(Throughput::Elements(frames));
    g.sample_size(20);
    let mut batch = Batch::new();
    let shared: Arc<Vec<u8>> = Arc::new(bytes);
    g.bench_function("memory", |b| {
        b.iter(|| {
            drain(
                capture::open_shared(path, shared.clone()).unwrap(),
                &mut batch,
            )
        })
    });
    g.bench_function("mmap", |b| {
        b.iter(|| drain(capture::open(path).unwrap(), &mut batch))
    });
    g.bench_function("stream", |b| {
        b.iter(|| {
            let r = Box::new(SharedReader(shared.clone(), 0));
            drain(capture::open_reader(path, r).unwrap(), &mut batch)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

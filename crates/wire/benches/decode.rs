//! Decode throughput on sv-ether.pcap held in memory.
//!
//! `cargo bench -p wire --bench decode` — reports packets/s (group `decode_pkts`) and
//! bytes/s (group `decode_bytes`, Criterion prints GiB/s; ×8.59 for Gbit/s), with checksum
//! verification off (`-k none`, the default) and on (`-k all`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use wire::{Decoded, Decoder, DecoderConfig, LinkType, Timestamp};

const PCAP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/pcaps/sv-ether.pcap"
);

/// All frames of a capture, copied once into one flat buffer.
struct Frames {
    bytes: Vec<u8>,
    index: Vec<(usize, usize, LinkType, u32, Timestamp)>,
}

fn load(path: &Path) -> Option<Frames> {
    let mut src = capture::open(path).ok()?;
    let mut batch = capture::Batch::new();
    let mut f = Frames {
        bytes: Vec::new(),
        index: Vec::new(),
    };
    while src.next_batch(&mut batch, capture::BATCH_SIZE).ok()? > 0 {
        for fr in batch.iter() {
            let ts = Timestamp::from_secs_nanos(fr.ts.secs.max(0) as u64, fr.ts.nanos);
            f.index
                .push((f.bytes.len(), fr.data.len(), fr.link, fr.wire_len, ts));
            f.bytes.extend_from_slice(fr.data);
        }
    }
    Some(f)
}

fn decode_all(dec: &mut Decoder, out: &mut Decoded, f: &Frames) -> u64 {
    let mut tcp = 0u64;
    for &(off, len, link, wire_len, ts) in &f.index {
        dec.decode(link, &f.bytes[off..off + len], ts, wire_len, out);
        tcp += u64::from(out.outer().is_tcp());
    }
    tcp
}

fn bench(c: &mut Criterion) {
    let Some(frames) = load(Path::new(PCAP)) else {
        eprintln!("skipping decode bench: {PCAP} not readable");
        return;
    };
    let n = frames.index.len() as u64;
    let bytes = frames.bytes.len() as u64;
    for (group, tp) in [
        ("decode_pkts", Throughput::Elements(n)),
        ("decode_bytes", Throughput::Bytes(bytes)),
    ] {
        let mut g = c.benchmark_group(group);
        g.throughput(tp);
        g.sample_size(20);
        for (name, verify) in [("sv-ether/k-none", false), ("sv-ether/k-all", true)] {
            let mut dec = Decoder::new(DecoderConfig {
                verify_checksums: verify,
                ..DecoderConfig::default()
            });
            let mut out = Decoded::new();
            g.bench_function(name, |b| {
                b.iter(|| black_box(decode_all(&mut dec, &mut out, black_box(&frames))))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

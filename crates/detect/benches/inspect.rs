//! Detection throughput: all ET Open rules over synthetic TCP payloads (packet rules) and
//! the rule-set build time. Run: `cargo bench -p detect --bench inspect`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;

fn et_rules() -> Option<Vec<rules::LoadedRule>> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/rules/et-open"
    ));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("emerging-") && n.ends_with(".rules"))
        })
        .collect();
    files.sort();
    let (set, _) = rules::RuleSet::load(
        &files,
        &rules::Vars::suricata_default(),
        &Default::default(),
    );
    Some(set.rules)
}

/// Deterministic pseudo-random printable payload (xorshift).
fn payload(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b" etaoinshrdluGET/HTTP1.0\r\n"[(x % 26) as usize]
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let Some(rules) = et_rules() else {
        eprintln!("ET Open rules not found: skipping");
        return;
    };
    let vars = rules::Vars::suricata_default();
    let opts = detect::DetectOptions::default();
    let mut g = c.benchmark_group("detect");
    g.sample_size(10);
    g.bench_function("build_et_open", |b| {
        b.iter(|| detect::Detector::build(&rules, &opts, &vars))
    });
    let (det, _) = detect::Detector::build(&rules, &opts, &vars);
    let pkts: Vec<(wire::Packet, Vec<u8>)> = (0..64)
        .map(|i| {
            let body = payload(1400, i + 1);
            let mut meta = wire::Packet {
                ip_version: 4,
                proto: 6,
                sport: 40000,
                dport: 80,
                ttl: 64,
                tcp_flags: 0x18,
                ..Default::default()
            };
            meta.src[..4].copy_from_slice(&[192, 168, 1, 2]);
            meta.dst[..4].copy_from_slice(&[93, 184, 216, 34]);
            meta.l4_off = 20;
            meta.payload_off = 40;
            meta.payload_len = body.len() as u32;
            let mut frame = vec![0u8; 40];
            frame.extend_from_slice(&body);
            (meta, frame)
        })
        .collect();
    let fi = detect::FlowInfo {
        to_server: true,
        established: true,
        payload_in_stream: false,
        app_proto: app::AppProto::Unknown,
        counts: Default::default(),
    };
    g.throughput(Throughput::Bytes(
        pkts.iter().map(|p| p.0.payload_len as u64).sum(),
    ));
    g.sample_size(20);
    g.bench_function("inspect_et_open_64x1400B_to_server", |b| {
        let mut s = det.scratch();
        let mut out = Vec::new();
        b.iter(|| {
            for (m, f) in &pkts {
                out.clear();
                det.inspect(
                    &mut s,
                    None,
                    &detect::Input::packet(m, f, Some(fi)),
                    &mut out,
                );
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

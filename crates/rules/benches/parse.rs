//! Parse and validate every ET Open rule (emerging-*.rules), one core.
//!
//! `cargo bench -p rules --bench parse`

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rules::{LoadOptions, RuleSet, Vars};

fn et_open(c: &mut Criterion) {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/rules/et-open"
    ));
    let Ok(rd) = std::fs::read_dir(dir) else {
        eprintln!("skip: {} not found", dir.display());
        return;
    };
    let mut texts: Vec<String> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("emerging-"))
        })
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    texts.sort();
    let vars = Vars::suricata_default();
    let opts = LoadOptions::default();
    let load = || {
        let mut set = RuleSet::default();
        let mut diags = Vec::new();
        for t in &texts {
            set.add_source(t, None, &vars, &opts, &mut diags);
        }
        set
    };
    let n = load().stats.loaded;
    let mut g = c.benchmark_group("et_open");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("parse_validate_all", |b| b.iter(|| load().stats.loaded));
    g.finish();
}

criterion_group!(benches, et_open);
criterion_main!(benches);

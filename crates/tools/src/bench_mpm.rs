//! `osprey bench mpm`: every multi-pattern matcher on two pattern sets from rules (one fast
//! pattern per rule; every content) over two haystacks (each TCP/UDP payload of a capture,
//! scanned separately as an IDS does; 1 MB of random bytes), single core, median of several
//! runs in the same process.

use crate::engines::Spec;
use crate::patterns::pattern_sets;
use crate::payloads::{pcap_payloads, random_bytes};
use rules::{LoadOptions, RuleSet, Vars};
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchMpmOptions {
    /// Rule files.
    pub rules: Vec<PathBuf>,
    /// Capture whose TCP/UDP payloads are the haystacks.
    pub pcap: PathBuf,
    /// Timed runs per engine and haystack (the median is reported); at least 1.
    pub runs: usize,
    /// Length of the random haystack.
    pub random_len: usize,
    /// Engines to run by name (`ac-full`, `aho-corasick`, ...); empty runs all.
    pub engines: Vec<String>,
    /// Only contents of this buffer (e.g. `http.uri`); `None` takes every buffer.
    pub buffer: Option<String>,
}

impl Default for BenchMpmOptions {
    fn default() -> Self {
        BenchMpmOptions {
            rules: Vec::new(),
            pcap: PathBuf::new(),
            runs: 5,
            random_len: 1 << 20,
            engines: Vec::new(),
            buffer: None,
        }
    }
}

/// One engine on one pattern set and one haystack.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineResult {
    /// Engine name (`ac-full`, `ac-full-32`, `ac-compact`, `aho-corasick`, `hyperscan`, ...).
    pub name: String,
    /// Pattern set: `fast` or `all`.
    pub patterns: &'static str,
    /// Haystack: `pcap` or `random`.
    pub haystack: &'static str,
    /// Median throughput, 10^6 bytes per second of wall time.
    pub mb_per_s: f64,
    /// Median throughput per second of the scanning thread's CPU time (Linux; equal to
    /// `mb_per_s` elsewhere): steadier than wall time on a shared machine.
    pub cpu_mb_per_s: f64,
    /// This engine's speed over `ac-full`'s on the same set and haystack, from the medians
    /// of the CPU times of runs interleaved with it (`None` without an `ac-full` row).
    pub vs_ac_full: Option<f64>,
    /// The same against `hyperscan`.
    pub vs_hyperscan: Option<f64>,
    /// The same in 10^9 bits per second.
    pub gbit_per_s: f64,
    /// Matches found (same in every run).
    pub matches: u64,
    /// Build time in milliseconds.
    pub build_ms: f64,
    /// Heap bytes of the engine's tables.
    pub memory_bytes: u64,
}

/// An engine that could not be built for a set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skipped {
    /// Engine name.
    pub name: String,
    /// Pattern set.
    pub patterns: &'static str,
    /// Why.
    pub reason: String,
}

/// Everything measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    /// Rules loaded.
    pub rules: usize,
    /// Distinct patterns in the fast set.
    pub fast_patterns: usize,
    /// Distinct patterns in the all-contents set.
    pub all_patterns: usize,
    /// TCP/UDP payloads with data.
    pub payloads: usize,
    /// Their total bytes.
    pub payload_bytes: usize,
    /// Random haystack bytes.
    pub random_bytes: usize,
    /// Timed runs per measurement.
    pub runs: usize,
    /// Results, by set, then engine, then haystack.
    pub engines: Vec<EngineResult>,
    /// Engines that failed to build.
    pub skipped: Vec<Skipped>,
}

impl BenchReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} rules; fast set {} patterns, all set {} patterns; {} payloads ({} bytes), random {} bytes; median of {} runs",
            self.rules, self.fast_patterns, self.all_patterns, self.payloads, self.payload_bytes, self.random_bytes, self.runs
        )?;
        writeln!(
            f,
            "{:<5} {:<7} {:<14} {:>9} {:>9} {:>7} {:>7} {:>12} {:>10} {:>14}",
            "set",
            "input",
            "engine",
            "MB/s",
            "cpu MB/s",
            "x acf",
            "x hs",
            "matches",
            "build ms",
            "memory bytes"
        )?;
        let ratio = |r: Option<f64>| r.map_or("-".to_string(), |x| format!("{x:.2}"));
        for r in &self.engines {
            writeln!(
                f,
                "{:<5} {:<7} {:<14} {:>9.1} {:>9.1} {:>7} {:>7} {:>12} {:>10.1} {:>14}",
                r.patterns,
                r.haystack,
                r.name,
                r.mb_per_s,
                r.cpu_mb_per_s,
                ratio(r.vs_ac_full),
                ratio(r.vs_hyperscan),
                r.matches,
                r.build_ms,
                r.memory_bytes
            )?;
        }
        for s in &self.skipped {
            writeln!(
                f,
                "{:<5} {:<7} {:<14} skipped: {}",
                s.patterns, "-", s.name, s.reason
            )?;
        }
        Ok(())
    }
}

/// Run the benchmark. Errors: rules that load nothing, an unreadable capture, an unknown
/// engine name, or engines disagreeing on a match count.
pub fn bench_mpm(opts: &BenchMpmOptions) -> Result<BenchReport, String> {
    let specs: Vec<Spec> = if opts.engines.is_empty() {
        Spec::all()
    } else {
        opts.engines
            .iter()
            .map(|n| {
                Spec::all()
                    .into_iter()
                    .find(|s| s.name() == n)
                    .ok_or_else(|| format!("unknown engine {n:?}"))
            })
            .collect::<Result<_, _>>()?
    };
    let (set, _diagnostics) = RuleSet::load(
        &opts.rules,
        &Vars::suricata_default(),
        &LoadOptions::default(),
    );
    if set.rules.is_empty() {
        return Err("no rule loaded".into());
    }
    let (fast, all) = pattern_sets(&set, opts.buffer.as_deref());
    let payloads = pcap_payloads(&opts.pcap)?;
    let random = random_bytes(0x05_9e_e7, opts.random_len);
    let pcap_hays: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let random_hays: Vec<&[u8]> = vec![&random];
    let runs = opts.runs.max(1);
    let mut report = BenchReport {
        rules: set.rules.len(),
        fast_patterns: fast.len(),
        all_patterns: all.len(),
        payloads: payloads.len(),
        payload_bytes: pcap_hays.iter().map(|h| h.len()).sum(),
        random_bytes: random.len(),
        runs,
        engines: Vec::new(),
        skipped: Vec::new(),
    };
    for (set_name, patterns) in [("fast", &fast), ("all", &all)] {
        // Build every engine of the set, then interleave their runs so that a change of
        // load on a shared machine hits all of them alike.
        let mut built = Vec::new();
        for &spec in &specs {
            let started = Instant::now();
            match spec.build(patterns) {
                Ok(e) => built.push((spec, e, started.elapsed().as_secs_f64() * 1e3)),
                Err(reason) => report.skipped.push(Skipped {
                    name: spec.name().into(),
                    patterns: set_name,
                    reason,
                }),
            }
        }
        for (hay_name, hays) in [("pcap", &pcap_hays), ("random", &random_hays)] {
            let bytes: usize = hays.iter().map(|h| h.len()).sum();
            // wall[k][run], cpu[k][run], matches[k]
            let mut wall = vec![Vec::with_capacity(runs); built.len()];
            let mut cpu = vec![Vec::with_capacity(runs); built.len()];
            let mut matches: Vec<Option<u64>> = vec![None; built.len()];
            // A short haystack is scanned several times per run, so a run lasts long
            // enough for the CPU clock's resolution.
            let reps = (32usize << 20).div_ceil(bytes.max(1));
            for _ in 0..runs {
                for (k, (spec, engine, _)) in built.iter().enumerate() {
                    let c0 = thread_cpu_ns();
                    let t = Instant::now();
                    let n = engine.count(hays);
                    for _ in 1..reps {
                        std::hint::black_box(engine.count(std::hint::black_box(hays)));
                    }
                    let w = t.elapsed().as_secs_f64() / reps as f64;
                    let c = match (c0, thread_cpu_ns()) {
                        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9 / reps as f64,
                        _ => w,
                    };
                    wall[k].push(w);
                    cpu[k].push(c);
                    if *matches[k].get_or_insert(n) != n {
                        return Err(format!("{}: match count changed between runs", spec.name()));
                    }
                }
            }
            let cpu_median: Vec<f64> = cpu.iter_mut().map(|v| median(v)).collect();
            let find = |name: &str| built.iter().position(|(s, _, _)| s.name() == name);
            let (acf, hs) = (find("ac-full"), find("hyperscan"));
            for (k, (spec, engine, build_ms)) in built.iter().enumerate() {
                let wall_median = median(&mut wall[k]);
                report.engines.push(EngineResult {
                    name: spec.name().into(),
                    patterns: set_name,
                    haystack: hay_name,
                    mb_per_s: bytes as f64 / wall_median / 1e6,
                    cpu_mb_per_s: bytes as f64 / cpu_median[k] / 1e6,
                    vs_ac_full: acf.map(|a| cpu_median[a] / cpu_median[k]),
                    vs_hyperscan: hs.map(|h| cpu_median[h] / cpu_median[k]),
                    gbit_per_s: bytes as f64 * 8.0 / wall_median / 1e9,
                    matches: matches[k].unwrap_or(0),
                    build_ms: *build_ms,
                    memory_bytes: engine.memory_bytes() as u64,
                });
            }
        }
    }
    check_agreement(&report)?;
    Ok(report)
}

/// What `osprey bench mpm --model` measures: the S-PATCH / V-PATCH performance model
/// (V-PATCH paper §5) on random patterns over random bytes.
#[derive(Clone, Debug)]
pub struct ModelOptions {
    /// Pattern counts to predict and measure.
    pub counts: Vec<usize>,
    /// The two counts the constants are fitted from.
    pub fit: (usize, usize),
    /// Timed runs per count (median).
    pub runs: usize,
    /// Length of the random haystack.
    pub random_len: usize,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            counts: vec![1_000, 2_000, 5_000, 10_000, 20_000],
            fit: (2_000, 10_000),
            runs: 5,
            random_len: 1 << 20,
        }
    }
}

/// One engine at one pattern count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRow {
    /// `spatch` or `vpatch`.
    pub engine: String,
    /// Random patterns.
    pub patterns: usize,
    /// Hit rates from the filters' occupancy: filter 1, filter 2, filters 2+3, and
    /// filter 2 per vector step.
    pub h1: f64,
    /// See `h1`.
    pub h2: f64,
    /// See `h1`.
    pub h3: f64,
    /// See `h1`.
    pub h2_vec: f64,
    /// Hit rates of equations 1-2 from the pattern counts alone (filters 1, 2).
    pub h1_eq: f64,
    /// See `h1_eq`.
    pub h2_eq: f64,
    /// Measured filter-1 and filter-3 pass rates per position.
    pub h1_measured: f64,
    /// See `h1_measured`.
    pub h3_measured: f64,
    /// Measured cost, nanoseconds of CPU time per byte: filtering, verification, total.
    pub filter_ns: f64,
    /// See `filter_ns`.
    pub verify_ns: f64,
    /// See `filter_ns`.
    pub total_ns: f64,
    /// The model's total (equations 8-9).
    pub predicted_ns: f64,
    /// `predicted / measured - 1`.
    pub error: f64,
}

/// The model's constants and rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelReport {
    /// Haystack bytes.
    pub random_bytes: usize,
    /// Runs per measurement.
    pub runs: usize,
    /// Counts the constants were fitted from.
    pub fit: (usize, usize),
    /// Per engine: `(name, c12, c3, v_small, v_large)` in ns per byte.
    pub constants: Vec<(String, f64, f64, f64, f64)>,
    /// Rows, by engine then count.
    pub rows: Vec<ModelRow>,
}

impl ModelReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }

    /// Largest `|error|` over the rows not used for fitting.
    pub fn worst_error(&self) -> f64 {
        self.rows
            .iter()
            .filter(|r| r.patterns != self.fit.0 && r.patterns != self.fit.1)
            .map(|r| r.error.abs())
            .fold(0.0, f64::max)
    }
}

impl fmt::Display for ModelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "performance model (V-PATCH paper §5): random patterns of 1-50 bytes over {} random bytes; CPU ns per byte, median of {} runs; constants fitted at {} and {} patterns",
            self.random_bytes, self.runs, self.fit.0, self.fit.1
        )?;
        for (name, c12, c3, vs, vl) in &self.constants {
            writeln!(
                f,
                "{name:<7} c12 {c12:.3}  c3 {c3:.3}  V_small {vs:.3}  V_large {vl:.3}"
            )?;
        }
        writeln!(
            f,
            "{:<7} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7} {:>9} {:>7}",
            "engine",
            "pats",
            "h1",
            "h2",
            "h3",
            "h2'",
            "h1 eq",
            "h1 obs",
            "h3 obs",
            "filter",
            "verify",
            "total",
            "predicted",
            "error"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<7} {:>6} {:>6.3} {:>6.3} {:>7.4} {:>6.3} {:>6.3} {:>6.3} {:>6.4} {:>7.3} {:>7.3} {:>7.3} {:>9.3} {:>6.1}%",
                r.engine, r.patterns, r.h1, r.h2, r.h3, r.h2_vec, r.h1_eq, r.h1_measured, r.h3_measured,
                r.filter_ns, r.verify_ns, r.total_ns, r.predicted_ns, r.error * 100.0
            )?;
        }
        writeln!(
            f,
            "worst error outside the fitted counts: {:.1}%",
            self.worst_error() * 100.0
        )
    }
}

/// `count` random case-sensitive patterns, lengths uniform in 1..=50, random bytes (the
/// paper's §5 setting).
fn random_patterns(seed: u64, count: usize) -> Vec<mpm::Pattern> {
    let pool = random_bytes(seed, count * 51 + 8);
    let lens = random_bytes(seed ^ 0x1e_4c7, count);
    let mut at = 0;
    (0..count)
        .map(|i| {
            let len = 1 + lens[i] as usize % 50;
            let p = mpm::Pattern::new(pool[at..at + len].to_vec(), i as u32);
            at += len;
            p
        })
        .collect()
}

/// Median CPU (or wall) seconds of one call of `f`, over `runs` runs of 16 calls each (a
/// run lasts long enough for the CPU clock's resolution).
fn time_median(runs: usize, mut f: impl FnMut()) -> f64 {
    const REPS: usize = 16;
    let mut v: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let c0 = thread_cpu_ns();
            let t = Instant::now();
            for _ in 0..REPS {
                f();
            }
            let w = t.elapsed().as_secs_f64();
            match (c0, thread_cpu_ns()) {
                (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9 / REPS as f64,
                _ => w / REPS as f64,
            }
        })
        .collect();
    median(&mut v)
}

/// Measure S-PATCH and V-PATCH (the path this CPU picks) at each count, fit the model's
/// constants from the two `fit` counts and predict every count.
pub fn bench_model(opts: &ModelOptions) -> Result<ModelReport, String> {
    use mpm::model::{expected_hit_rate, CostModel, Sample, F12_BITS};
    use mpm::{Kind, Matcher};
    let hay = random_bytes(0x05_9e_e7, opts.random_len);
    let bytes = hay.len() as f64;
    let mut counts = opts.counts.clone();
    for c in [opts.fit.0, opts.fit.1] {
        if !counts.contains(&c) {
            counts.push(c);
        }
    }
    counts.sort_unstable();
    let mut report = ModelReport {
        random_bytes: hay.len(),
        runs: opts.runs.max(1),
        fit: opts.fit,
        constants: Vec::new(),
        rows: Vec::new(),
    };
    for kind in [Kind::Spatch, Kind::Vpatch] {
        let mut samples = Vec::new();
        for &count in &counts {
            let pats = random_patterns(count as u64 + 1, count);
            let m = Matcher::new(kind, &pats).map_err(|e| e.to_string())?;
            let occ = m.filter_occupancy().ok_or("no filter occupancy")?;
            let (short, long) = m.filter_candidates(&hay).ok_or("no filter")?;
            let total = time_median(opts.runs, || {
                std::hint::black_box(m.count(std::hint::black_box(&hay)));
            }) * 1e9
                / bytes;
            let filter = time_median(opts.runs, || {
                std::hint::black_box(m.filter_candidates(std::hint::black_box(&hay)));
            }) * 1e9
                / bytes;
            let rates = occ.hit_rates();
            let x1: f64 = pats
                .iter()
                .filter(|p| p.bytes.len() < 4)
                .map(|p| if p.bytes.len() == 1 { 256.0 } else { 1.0 })
                .sum();
            let x2 = pats.iter().filter(|p| p.bytes.len() >= 4).count() as f64;
            samples.push((
                count,
                Sample {
                    rates,
                    filter,
                    verify: (total - filter).max(0.0),
                },
                ModelRow {
                    engine: kind.name().into(),
                    patterns: count,
                    h1: rates.h1,
                    h2: rates.h2,
                    h3: rates.h3,
                    h2_vec: rates.h2_vec,
                    h1_eq: expected_hit_rate(F12_BITS, x1),
                    h2_eq: expected_hit_rate(F12_BITS, x2),
                    h1_measured: short as f64 / bytes,
                    h3_measured: long as f64 / bytes,
                    filter_ns: filter,
                    verify_ns: (total - filter).max(0.0),
                    total_ns: total,
                    predicted_ns: 0.0,
                    error: 0.0,
                },
            ));
        }
        let pick = |c: usize| samples.iter().find(|s| s.0 == c).map(|s| s.1);
        let (a, b) = (pick(opts.fit.0), pick(opts.fit.1));
        let model = a
            .zip(b)
            .and_then(|(a, b)| CostModel::fit(&a, &b))
            .ok_or("the fit counts do not determine the constants")?;
        report.constants.push((
            kind.name().into(),
            model.c12,
            model.c3,
            model.v_small,
            model.v_large,
        ));
        for (_, sample, mut row) in samples {
            row.predicted_ns = model.cost(&sample.rates);
            row.error = row.predicted_ns / row.total_ns - 1.0;
            report.rows.push(row);
        }
    }
    Ok(report)
}

/// The median of `v` (sorted in place), at least 1 ns.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0).max(1e-9)
}

/// CPU time of the calling thread in nanoseconds (`/proc/thread-self/schedstat`, Linux);
/// `None` where it cannot be read.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Every engine must find the same number of matches on the same set and haystack.
fn check_agreement(report: &BenchReport) -> Result<(), String> {
    for r in &report.engines {
        let first = report
            .engines
            .iter()
            .find(|x| x.patterns == r.patterns && x.haystack == r.haystack)
            .unwrap();
        if first.matches != r.matches {
            return Err(format!(
                "{} found {} matches and {} found {} ({} patterns, {} haystack)",
                first.name, first.matches, r.name, r.matches, r.patterns, r.haystack
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

    fn shared(rel: &str) -> Option<PathBuf> {
        let p = Path::new(SHARED).join(rel);
        if p.exists() {
            return Some(p);
        }
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "{} missing",
            p.display()
        );
        eprintln!("skipping: {} not found", p.display());
        None
    }

    #[test]
    fn small_run_reports_every_engine_with_equal_counts() {
        let Some(pcap) = shared("pcaps/sv-ether.pcap") else {
            return;
        };
        let Some(rules) = shared("rules/et-open/emerging-user_agents.rules") else {
            return;
        };
        let opts = BenchMpmOptions {
            rules: vec![rules],
            pcap,
            runs: 1,
            random_len: 4096,
            ..Default::default()
        };
        let report = bench_mpm(&opts).unwrap();
        assert!(report.rules > 10 && report.payloads > 1000);
        assert_eq!(report.engines.len(), Spec::all().len() * 4, "{report}");
        assert!(report.skipped.is_empty());
        assert!(report.engines.iter().any(|r| r.matches > 0));
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let e = &json["engines"][0];
        for key in [
            "name",
            "patterns",
            "haystack",
            "mb_per_s",
            "matches",
            "build_ms",
            "memory_bytes",
        ] {
            assert!(!e[key].is_null(), "{key} missing");
        }
        assert!(report.to_string().contains("ac-compact"));
    }

    #[test]
    fn unknown_engine_and_missing_rules_are_errors() {
        let opts = BenchMpmOptions {
            engines: vec!["nope".into()],
            ..Default::default()
        };
        assert!(bench_mpm(&opts).unwrap_err().contains("unknown engine"));
        let opts = BenchMpmOptions {
            rules: vec!["/nonexistent.rules".into()],
            ..Default::default()
        };
        assert!(bench_mpm(&opts).is_err());
    }

    #[test]
    fn model_fits_and_predicts() {
        let opts = ModelOptions {
            counts: vec![200, 1_000, 3_000],
            fit: (200, 3_000),
            runs: 1,
            random_len: 1 << 16,
        };
        let r = bench_model(&opts).unwrap();
        assert_eq!(r.rows.len(), 6);
        assert_eq!(r.constants.len(), 2);
        // Filter occupancy grows with the pattern count, and so does the hit rate seen.
        let rows: Vec<_> = r.rows.iter().filter(|x| x.engine == "spatch").collect();
        assert!(rows[0].h1 < rows[2].h1 && rows[0].h2 < rows[2].h2);
        assert!(rows[0].h1_measured < rows[2].h1_measured);
        // The model passes through the fitted counts' filtering and verification costs.
        for row in r.rows.iter().filter(|x| x.patterns != 1_000) {
            let measured = row.filter_ns + row.verify_ns;
            assert!(
                (row.predicted_ns - measured).abs() <= 1e-6 * measured.max(1.0),
                "{row:?}"
            );
        }
        assert!(r.to_string().contains("predicted"));
        assert!(r.to_json().contains("v_small") || r.to_json().contains("constants"));
    }

    #[test]
    fn disagreement_is_an_error() {
        let r = |name: &str, matches| EngineResult {
            name: name.into(),
            patterns: "fast",
            haystack: "pcap",
            mb_per_s: 1.0,
            cpu_mb_per_s: 1.0,
            vs_ac_full: None,
            vs_hyperscan: None,
            gbit_per_s: 0.008,
            matches,
            build_ms: 0.0,
            memory_bytes: 0,
        };
        let mut report = BenchReport {
            rules: 1,
            fast_patterns: 1,
            all_patterns: 1,
            payloads: 1,
            payload_bytes: 1,
            random_bytes: 0,
            runs: 1,
            engines: vec![r("a", 3), r("b", 3)],
            skipped: Vec::new(),
        };
        assert!(check_agreement(&report).is_ok());
        report.engines.push(r("c", 4));
        assert!(check_agreement(&report).is_err());
    }
}

//! `osprey bench mpm`: every multi-pattern matcher on two pattern sets from rules (one fast
//! pattern per rule; every content) over two haystacks (each TCP/UDP payload of a capture,
//! scanned separately as an IDS does; 1 MB of random bytes), single core, median of several
//! runs in the same process. Also here: [`bench_model`] (`--model`, the V-PATCH paper's §5
//! performance model) and [`bench_parallel`] (`--parallel`, one large buffer scanned in
//! chunks by 1 and 2 threads).

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
    /// Pattern sets to run (`fast`, `all`); empty runs both.
    pub sets: Vec<String>,
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
            sets: Vec::new(),
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
        if !opts.sets.is_empty() && !opts.sets.iter().any(|s| s == set_name) {
            continue;
        }
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
    /// CPU seconds one timed run lasts at least (calls are repeated to fill it), so the
    /// clock's resolution (a scheduler tick on some kernels) stays small beside it.
    pub min_run_secs: f64,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            counts: vec![1_000, 2_000, 5_000, 10_000, 20_000],
            fit: (2_000, 10_000),
            runs: 5,
            random_len: 1 << 20,
            min_run_secs: 0.2,
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
    /// Expected filter-1 entries per position (`x1 / m`).
    pub e1: f64,
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
    /// Verification per byte measured on a matcher of the short patterns alone, and one of
    /// the long patterns alone (total minus filtering of each).
    pub verify_short_ns: f64,
    /// See `verify_short_ns`.
    pub verify_long_ns: f64,
    /// The model's filtering cost (equations 5-6).
    pub predicted_filter_ns: f64,
    /// The model's verification cost (equation 7).
    pub predicted_verify_ns: f64,
    /// The model's total (equations 8-9).
    pub predicted_ns: f64,
    /// `predicted / measured - 1`.
    pub error: f64,
}

/// The fitted constants of one engine, in ns (per byte for `c12`, `c3`; per filter-1
/// entry and per filter-3 hit for `v_small`, `v_large`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelConstants {
    /// `spatch` or `vpatch`.
    pub engine: String,
    /// See [`mpm::model::CostModel`].
    pub c12: f64,
    /// See [`mpm::model::CostModel`].
    pub c3: f64,
    /// See [`mpm::model::CostModel`].
    pub v_small: f64,
    /// See [`mpm::model::CostModel`].
    pub v_large: f64,
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
    /// Per engine.
    pub constants: Vec<ModelConstants>,
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
        for c in &self.constants {
            writeln!(
                f,
                "{:<7} c12 {:.3}  c3 {:.3}  V_small {:.2}  V_large {:.1}",
                c.engine, c.c12, c.c3, c.v_small, c.v_large
            )?;
        }
        writeln!(
            f,
            "{:<7} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6} {:>6} {:>6} | {:>7} {:>7} {:>7} {:>7} | {:>7} {:>7} {:>7} {:>7}",
            "engine",
            "pats",
            "h1",
            "h2",
            "h3",
            "h2'",
            "e1",
            "h1 obs",
            "h3 obs",
            "filter",
            "v.short",
            "v.long",
            "total",
            "p.filt",
            "p.verif",
            "p.total",
            "error"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<7} {:>6} {:>6.3} {:>6.3} {:>7.4} {:>6.3} {:>6.3} {:>6.3} {:>6.4} | {:>7.3} {:>7.3} {:>7.3} {:>7.3} | {:>7.3} {:>7.3} {:>7.3} {:>6.1}%",
                r.engine, r.patterns, r.h1, r.h2, r.h3, r.h2_vec, r.e1, r.h1_measured,
                r.h3_measured, r.filter_ns, r.verify_short_ns, r.verify_long_ns, r.total_ns,
                r.predicted_filter_ns, r.predicted_verify_ns, r.predicted_ns, r.error * 100.0
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
/// paper's §5 setting). The second byte is redrawn where it would equal the first once
/// case-folded: such patterns take S-PATCH's run path (`mpm` crate docs), which scans every
/// byte for pairs and is outside the filters §5 models.
fn random_patterns(seed: u64, count: usize) -> Vec<mpm::Pattern> {
    let pool = random_bytes(seed, count * 51 + 8);
    let lens = random_bytes(seed ^ 0x1e_4c7, count);
    let mut at = 0;
    (0..count)
        .map(|i| {
            let len = 1 + lens[i] as usize % 50;
            let mut bytes = pool[at..at + len].to_vec();
            at += len;
            if len >= 2 {
                while bytes[1].eq_ignore_ascii_case(&bytes[0]) {
                    bytes[1] = bytes[1].wrapping_add(1);
                }
            }
            mpm::Pattern::new(bytes, i as u32)
        })
        .collect()
}

/// How many calls of `f` fill `min_secs` (at least 2).
fn calibrate(min_secs: f64, f: &mut impl FnMut()) -> usize {
    let t = Instant::now();
    f();
    let one = t.elapsed().as_secs_f64().max(1e-7);
    ((min_secs / one).ceil() as usize).max(2)
}

/// CPU (or, where it cannot be read, wall) seconds of one call of `f`, over `reps` calls.
fn time_run(reps: usize, f: &mut impl FnMut()) -> f64 {
    let c0 = thread_cpu_ns();
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    let wall = t.elapsed().as_secs_f64();
    match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9 / reps as f64,
        _ => wall / reps as f64,
    }
}

/// A matcher under measurement: its filtering round and its whole scan, timed in
/// interleaved runs.
struct Timed {
    m: mpm::Matcher,
    reps: (usize, usize),
    filter: Vec<f64>,
    total: Vec<f64>,
}

impl Timed {
    fn new(m: mpm::Matcher, hay: &[u8], min_secs: f64) -> Timed {
        let reps = (
            calibrate(min_secs, &mut || {
                std::hint::black_box(m.filter_candidates(hay));
            }),
            calibrate(min_secs, &mut || {
                std::hint::black_box(m.count(hay));
            }),
        );
        Timed {
            m,
            reps,
            filter: Vec::new(),
            total: Vec::new(),
        }
    }

    fn run(&mut self, hay: &[u8]) {
        let m = &self.m;
        self.filter.push(time_run(self.reps.0, &mut || {
            std::hint::black_box(m.filter_candidates(std::hint::black_box(hay)));
        }));
        self.total.push(time_run(self.reps.1, &mut || {
            std::hint::black_box(m.count(std::hint::black_box(hay)));
        }));
    }

    /// Median filtering and total cost, ns per byte of `hay_len`.
    fn costs(&mut self, hay_len: usize) -> (f64, f64) {
        let k = 1e9 / hay_len.max(1) as f64;
        (median(&mut self.filter) * k, median(&mut self.total) * k)
    }
}

/// Measure S-PATCH and V-PATCH (the path this CPU picks) at each count, fit the model's
/// constants from the two `fit` counts and predict every count. The verification costs of
/// the short and the long patterns are measured apart, each on a matcher built from those
/// patterns alone, so each constant is fitted from the cost it stands for. The runs of all
/// matchers are interleaved, so a change of the machine's load spreads over all counts.
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
    // Per kind and count: the row so far and the full, short-only and long-only matchers.
    let mut cells = Vec::new();
    for kind in [Kind::Spatch, Kind::Vpatch] {
        for &count in &counts {
            let pats = random_patterns(count as u64 + 1, count);
            let build = |p: &[mpm::Pattern]| {
                Matcher::new(kind, p)
                    .map(|m| Timed::new(m, &hay, opts.min_run_secs))
                    .map_err(|e| e.to_string())
            };
            let full = build(&pats)?;
            let occ = full.m.filter_occupancy().ok_or("no filter occupancy")?;
            let (short, long) = full.m.filter_candidates(&hay).ok_or("no filter")?;
            let (short_pats, long_pats): (Vec<_>, Vec<_>) =
                pats.iter().cloned().partition(|p| p.bytes.len() < 4);
            let x1: f64 = short_pats
                .iter()
                .map(|p| if p.bytes.len() == 1 { 256.0 } else { 1.0 })
                .sum();
            let rates = occ.hit_rates();
            let row = ModelRow {
                engine: kind.name().into(),
                patterns: count,
                h1: rates.h1,
                h2: rates.h2,
                h3: rates.h3,
                h2_vec: rates.h2_vec,
                e1: rates.e1,
                h1_eq: expected_hit_rate(F12_BITS, x1),
                h2_eq: expected_hit_rate(F12_BITS, long_pats.len() as f64),
                h1_measured: short as f64 / bytes,
                h3_measured: long as f64 / bytes,
                filter_ns: 0.0,
                verify_ns: 0.0,
                total_ns: 0.0,
                verify_short_ns: 0.0,
                verify_long_ns: 0.0,
                predicted_filter_ns: 0.0,
                predicted_verify_ns: 0.0,
                predicted_ns: 0.0,
                error: 0.0,
            };
            let timed = [full, build(&short_pats)?, build(&long_pats)?];
            cells.push((kind, count, rates, row, timed));
        }
    }
    for _ in 0..report.runs {
        for cell in &mut cells {
            for t in &mut cell.4 {
                t.run(&hay);
            }
        }
    }
    for kind in [Kind::Spatch, Kind::Vpatch] {
        let mut samples = Vec::new();
        for (_, count, rates, mut row, mut timed) in
            cells.extract_if(.., |c| c.0 == kind).collect::<Vec<_>>()
        {
            let [(filter, total), (f_s, t_s), (f_l, t_l)] =
                timed.each_mut().map(|t| t.costs(hay.len()));
            row.filter_ns = filter;
            row.total_ns = total;
            row.verify_ns = (total - filter).max(0.0);
            row.verify_short_ns = (t_s - f_s).max(0.0);
            row.verify_long_ns = (t_l - f_l).max(0.0);
            let sample = Sample {
                rates,
                filter,
                verify_short: row.verify_short_ns,
                verify_long: row.verify_long_ns,
            };
            samples.push((count, sample, row));
        }
        let pick = |c: usize| samples.iter().find(|s| s.0 == c).map(|s| s.1);
        let (a, b) = (pick(opts.fit.0), pick(opts.fit.1));
        let model = a
            .zip(b)
            .and_then(|(a, b)| CostModel::fit(&a, &b))
            .ok_or("the fit counts do not determine the constants")?;
        report.constants.push(ModelConstants {
            engine: kind.name().into(),
            c12: model.c12,
            c3: model.c3,
            v_small: model.v_small,
            v_large: model.v_large,
        });
        for (_, sample, mut row) in samples {
            row.predicted_filter_ns = model.filter_cost(&sample.rates);
            row.predicted_verify_ns = model.verify_cost(&sample.rates);
            row.predicted_ns = model.cost(&sample.rates);
            row.error = row.predicted_ns / row.total_ns - 1.0;
            report.rows.push(row);
        }
    }
    Ok(report)
}

/// What `osprey bench mpm --parallel` measures: one large buffer scanned by
/// [`mpm::parallel::count_parallel`] with 1, 2, ... threads (V-PATCH paper §4.2, §6.7).
#[derive(Clone, Debug)]
pub struct ParallelOptions {
    /// Rule files: their fast patterns are the patterns.
    pub rules: Vec<PathBuf>,
    /// Capture whose TCP/UDP payloads, concatenated (and repeated up to `len`), are one
    /// haystack; the other is `len` random bytes.
    pub pcap: PathBuf,
    /// Haystack length.
    pub len: usize,
    /// Thread counts; the first is the baseline of the speedups.
    pub threads: Vec<usize>,
    /// Timed runs per engine, haystack and thread count (median of wall-clock time).
    pub runs: usize,
    /// Matcher kinds.
    pub kinds: Vec<mpm::Kind>,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        ParallelOptions {
            rules: Vec::new(),
            pcap: PathBuf::new(),
            len: 64 << 20,
            threads: vec![1, 2],
            runs: 5,
            kinds: vec![mpm::Kind::Dfc, mpm::Kind::Spatch, mpm::Kind::Vpatch],
        }
    }
}

/// One engine, haystack and thread count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParallelRow {
    /// Matcher name.
    pub engine: String,
    /// `pcap` (payloads concatenated) or `random`.
    pub haystack: &'static str,
    /// Threads.
    pub threads: usize,
    /// Wall-clock throughput, MB/s (median run).
    pub mb_per_s: f64,
    /// Throughput over the first thread count's.
    pub speedup: f64,
    /// Matches found (the same for every thread count).
    pub matches: u64,
}

/// The scaling measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParallelReport {
    /// Fast patterns.
    pub patterns: usize,
    /// Bytes per haystack.
    pub bytes: usize,
    /// Runs per row.
    pub runs: usize,
    /// CPUs this process may run on.
    pub cpus: usize,
    /// 1-minute load average before and after (`/proc/loadavg`), where readable.
    pub load_before: Option<f64>,
    /// See `load_before`.
    pub load_after: Option<f64>,
    /// Rows, by haystack, engine, thread count.
    pub rows: Vec<ParallelRow>,
}

impl ParallelReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}

impl fmt::Display for ParallelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let load = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.2}"));
        writeln!(
            f,
            "chunked multi-thread scan of one {}-byte buffer, {} fast patterns, wall-clock median of {} runs; {} CPUs, load {} -> {}",
            self.bytes,
            self.patterns,
            self.runs,
            self.cpus,
            load(self.load_before),
            load(self.load_after)
        )?;
        writeln!(
            f,
            "{:<14} {:<8} {:>7} {:>10} {:>8} {:>12}",
            "engine", "haystack", "threads", "MB/s", "speedup", "matches"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<14} {:<8} {:>7} {:>10.1} {:>7.2}x {:>12}",
                r.engine, r.haystack, r.threads, r.mb_per_s, r.speedup, r.matches
            )?;
        }
        Ok(())
    }
}

/// The 1-minute load average.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `parts` concatenated and repeated until `len` bytes (empty if `parts` holds no byte).
fn concat_to(parts: &[Vec<u8>], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    if parts.iter().all(Vec::is_empty) {
        return out;
    }
    'fill: loop {
        for p in parts {
            let take = p.len().min(len - out.len());
            out.extend_from_slice(&p[..take]);
            if out.len() == len {
                break 'fill;
            }
        }
    }
    out
}

/// Scan one large buffer with each thread count and report throughput and speedup. Errors:
/// rules that load nothing, an unreadable capture, or a thread count that changes the
/// number of matches.
pub fn bench_parallel(opts: &ParallelOptions) -> Result<ParallelReport, String> {
    let (set, _diagnostics) = RuleSet::load(
        &opts.rules,
        &Vars::suricata_default(),
        &LoadOptions::default(),
    );
    if set.rules.is_empty() {
        return Err("no rule loaded".into());
    }
    let (fast, _all) = pattern_sets(&set, None);
    let payloads = pcap_payloads(&opts.pcap)?;
    let hays = [
        ("pcap", concat_to(&payloads, opts.len)),
        ("random", random_bytes(0x05_9e_e7, opts.len)),
    ];
    drop(payloads);
    let threads: Vec<usize> = if opts.threads.is_empty() {
        vec![1]
    } else {
        opts.threads.iter().map(|&t| t.max(1)).collect()
    };
    let runs = opts.runs.max(1);
    let mut report = ParallelReport {
        patterns: fast.len(),
        bytes: opts.len,
        runs,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_before: load_average(),
        load_after: None,
        rows: Vec::new(),
    };
    let matchers = opts
        .kinds
        .iter()
        .map(|&k| mpm::Matcher::new(k, &fast).map_err(|e| format!("{k}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    for (hay_name, hay) in &hays {
        if hay.is_empty() {
            continue;
        }
        // secs[matcher][thread count][run]; thread counts interleaved within each run.
        let mut secs = vec![vec![Vec::with_capacity(runs); threads.len()]; matchers.len()];
        let mut matches = vec![None; matchers.len()];
        for _ in 0..runs {
            for (k, m) in matchers.iter().enumerate() {
                for (j, &t) in threads.iter().enumerate() {
                    let started = Instant::now();
                    let n = mpm::parallel::count_parallel(m, hay, t) as u64;
                    secs[k][j].push(started.elapsed().as_secs_f64());
                    if *matches[k].get_or_insert(n) != n {
                        return Err(format!(
                            "{}: {t} threads found {n} matches, not {}",
                            m.kind(),
                            matches[k].unwrap_or(0)
                        ));
                    }
                }
            }
        }
        for (k, m) in matchers.iter().enumerate() {
            let base = median(&mut secs[k][0]);
            for (j, &t) in threads.iter().enumerate() {
                let s = median(&mut secs[k][j]);
                report.rows.push(ParallelRow {
                    engine: m.kind().name().into(),
                    haystack: hay_name,
                    threads: t,
                    mb_per_s: hay.len() as f64 / s / 1e6,
                    speedup: base / s,
                    matches: matches[k].unwrap_or(0),
                });
            }
        }
    }
    report.load_after = load_average();
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
            min_run_secs: 0.01,
        };
        let r = bench_model(&opts).unwrap();
        assert_eq!(r.rows.len(), 6);
        assert_eq!(r.constants.len(), 2);
        // Filter occupancy grows with the pattern count, and so does the hit rate seen.
        let rows: Vec<_> = r.rows.iter().filter(|x| x.engine == "spatch").collect();
        assert!(rows[0].h1 < rows[2].h1 && rows[0].h2 < rows[2].h2);
        assert!(rows[0].h1_measured < rows[2].h1_measured);
        // The model passes through the fitted counts' filtering costs; verifying a
        // filter-1 entry costs something.
        for row in r.rows.iter().filter(|x| x.patterns != 1_000) {
            let tol = 1e-6 * row.total_ns.max(1.0);
            assert!(
                (row.predicted_filter_ns - row.filter_ns).abs() <= tol,
                "{row:?}"
            );
        }
        // Every row's verification is predicted per filter-1 entry and filter-3 hit.
        for row in &r.rows {
            let c = r.constants.iter().find(|c| c.engine == row.engine).unwrap();
            assert!(c.v_small >= 0.0 && c.v_large >= 0.0, "{c:?}");
            let want = row.e1 * c.v_small + row.h3 * c.v_large;
            assert!((row.predicted_verify_ns - want).abs() <= 1e-9 * want.max(1.0));
        }
        // Entries per position: at least the set-bit rate, growing with the count.
        assert!(rows.iter().all(|x| x.e1 >= x.h1 - 1e-12));
        assert!(rows[2].e1 > rows[0].e1);
        assert!(r.to_string().contains("p.total"));
        assert!(r.to_json().contains("v_small") || r.to_json().contains("constants"));
    }

    #[test]
    fn parallel_scan_scales_and_agrees() {
        let (Some(rules), Some(pcap)) = (
            shared("rules/et-open/emerging-user_agents.rules"),
            shared("pcaps/sv-ether.pcap"),
        ) else {
            return;
        };
        let opts = ParallelOptions {
            rules: vec![rules],
            pcap,
            len: 1 << 18,
            threads: vec![1, 2, 3],
            runs: 1,
            kinds: vec![mpm::Kind::Spatch, mpm::Kind::AcFull],
        };
        let r = bench_parallel(&opts).unwrap();
        assert_eq!(r.rows.len(), 2 * 2 * 3);
        for pair in r.rows.chunks(3) {
            assert_eq!(pair[0].speedup, 1.0);
            assert!(pair.iter().all(|x| x.matches == pair[0].matches));
        }
        // The same matches as one scan of the whole buffer by another kind.
        let ac = r
            .rows
            .iter()
            .find(|x| x.engine == "ac-full" && x.haystack == "pcap");
        let sp = r
            .rows
            .iter()
            .find(|x| x.engine == "spatch" && x.haystack == "pcap");
        assert_eq!(ac.unwrap().matches, sp.unwrap().matches);
        assert!(r.to_string().contains("speedup") && r.to_json().contains("mb_per_s"));
    }

    #[test]
    fn concat_repeats_to_length() {
        assert_eq!(concat_to(&[b"ab".to_vec(), b"c".to_vec()], 7), b"abcabca");
        assert!(concat_to(&[Vec::new()], 5).is_empty());
        assert!(concat_to(&[], 5).is_empty());
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

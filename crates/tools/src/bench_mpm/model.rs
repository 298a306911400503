//! `osprey bench mpm --model`: the S-PATCH / V-PATCH performance model (V-PATCH paper
//! §5) fitted on random patterns over random bytes, its predictions against measured
//! times.

use super::{median, thread_cpu_ns};
use crate::payloads::random_bytes;
use serde::Serialize;
use std::fmt;
use std::time::Instant;

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

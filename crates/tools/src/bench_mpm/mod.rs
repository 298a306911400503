//! `osprey bench mpm`: every multi-pattern matcher on two pattern sets from rules (one fast
//! pattern per rule; every content) over two haystacks (each TCP/UDP payload of a capture,
//! scanned separately as an IDS does; 1 MB of random bytes), single core, median of several
//! runs in the same process. Also here: [`bench_model`] (`--model`, the V-PATCH paper's §5
//! performance model) and [`bench_parallel`] (`--parallel`, one large buffer scanned in
//! chunks by 1 and 2 threads).

mod model;
mod parallel;

pub use model::{bench_model, ModelConstants, ModelOptions, ModelReport, ModelRow};
pub use parallel::{bench_parallel, ParallelOptions, ParallelReport, ParallelRow};

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

/// The median of `v` (sorted in place), at least 1 ns.
pub(crate) fn median(v: &mut [f64]) -> f64 {
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

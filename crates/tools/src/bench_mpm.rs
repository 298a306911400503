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
    /// Median throughput, 10^6 bytes per second.
    pub mb_per_s: f64,
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
            "{:<5} {:<7} {:<14} {:>9} {:>7} {:>12} {:>10} {:>14}",
            "set", "input", "engine", "MB/s", "Gbit/s", "matches", "build ms", "memory bytes"
        )?;
        for r in &self.engines {
            writeln!(
                f,
                "{:<5} {:<7} {:<14} {:>9.1} {:>7.3} {:>12} {:>10.1} {:>14}",
                r.patterns,
                r.haystack,
                r.name,
                r.mb_per_s,
                r.gbit_per_s,
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
        for &spec in &specs {
            let started = Instant::now();
            let engine = match spec.build(patterns) {
                Ok(e) => e,
                Err(reason) => {
                    report.skipped.push(Skipped {
                        name: spec.name().into(),
                        patterns: set_name,
                        reason,
                    });
                    continue;
                }
            };
            let build_ms = started.elapsed().as_secs_f64() * 1e3;
            for (hay_name, hays) in [("pcap", &pcap_hays), ("random", &random_hays)] {
                let bytes: usize = hays.iter().map(|h| h.len()).sum();
                let mut secs = Vec::with_capacity(runs);
                let mut matches = None;
                for _ in 0..runs {
                    let t = Instant::now();
                    let n = engine.count(hays);
                    secs.push(t.elapsed().as_secs_f64());
                    if *matches.get_or_insert(n) != n {
                        return Err(format!("{}: match count changed between runs", spec.name()));
                    }
                }
                secs.sort_by(f64::total_cmp);
                let median = secs[secs.len() / 2].max(1e-9);
                report.engines.push(EngineResult {
                    name: spec.name().into(),
                    patterns: set_name,
                    haystack: hay_name,
                    mb_per_s: bytes as f64 / median / 1e6,
                    gbit_per_s: bytes as f64 * 8.0 / median / 1e9,
                    matches: matches.unwrap_or(0),
                    build_ms,
                    memory_bytes: engine.memory_bytes() as u64,
                });
            }
        }
    }
    check_agreement(&report)?;
    Ok(report)
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
    fn disagreement_is_an_error() {
        let r = |name: &str, matches| EngineResult {
            name: name.into(),
            patterns: "fast",
            haystack: "pcap",
            mb_per_s: 1.0,
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

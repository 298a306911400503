//! `osprey bench mpm --parallel`: one large buffer scanned in chunks by 1, 2, ...
//! threads (V-PATCH paper §4.2, §6.7).

use super::median;
use crate::patterns::pattern_sets;
use crate::payloads::{pcap_payloads, random_bytes};
use rules::{LoadOptions, RuleSet, Vars};
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concat_repeats_to_length() {
        assert_eq!(concat_to(&[b"ab".to_vec(), b"c".to_vec()], 7), b"abcabca");
        assert!(concat_to(&[Vec::new()], 5).is_empty());
        assert!(concat_to(&[], 5).is_empty());
    }
}

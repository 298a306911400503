//! `osprey bench engine`: the whole engine (decode, flow, reassembly, app layer,
//! detection, alert output) over a capture held in memory, so no disk read is timed.
//!
//! Throughput is reported two ways, as the papers count it: captured frame bytes
//! (`gbit_per_s`), and on the wire (`wire_gbit_per_s`), where every frame also costs
//! its 4-byte FCS (absent from pcap files), 8-byte preamble and 12-byte inter-frame gap:
//! 24 bytes per packet, so 64-byte frames fill 10 Gbit/s at 14.88 Mpps (Kargus §6,
//! RFC 2544). Stage times come from one extra run with per-stage clocks on (the clocks
//! cost time, so that run is not a throughput run). Latency is from the moment a batch
//! is read to the moment its packets' verdicts are in, per packet, measured with one
//! worker (with several, batches are handed between threads and the reader cannot see
//! the verdict).

use capture::{Batch, CaptureError, CaptureStats, SharedBytes, Source};
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Bytes a frame costs on the wire beyond its captured bytes: FCS (4), preamble and
/// start delimiter (8), inter-frame gap (12).
pub const WIRE_OVERHEAD: u64 = 24;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchEngineOptions {
    /// Capture (read once into memory).
    pub pcap: PathBuf,
    /// Rule files.
    pub rules: Vec<PathBuf>,
    /// Worker threads (1 runs on the calling thread).
    pub threads: usize,
    /// Multi-pattern matcher (`--mpm`); `None` takes the default.
    pub mpm: Option<String>,
    /// Timed runs (the median is reported); at least 1.
    pub runs: usize,
    /// Validate checksums (`-k all`), as the default run does.
    pub checksums: bool,
}

impl Default for BenchEngineOptions {
    fn default() -> Self {
        BenchEngineOptions {
            pcap: PathBuf::new(),
            rules: Vec::new(),
            threads: 1,
            mpm: None,
            runs: 3,
            checksums: true,
        }
    }
}

/// Time per stage, summed over the workers, in milliseconds and as a share.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageTime {
    /// Stage name (`decode`, `flow`, `app`, `detect`, `output`).
    pub stage: &'static str,
    /// Milliseconds.
    pub ms: f64,
    /// Share of the summed stage time.
    pub share: f64,
    /// Nanoseconds per packet.
    pub ns_per_packet: f64,
}

/// Per-packet latency percentiles, microseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Largest.
    pub max_us: f64,
}

/// The outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchEngineReport {
    /// Capture file.
    pub pcap: String,
    /// Frames in it.
    pub packets: u64,
    /// Captured frame bytes.
    pub bytes: u64,
    /// Mean captured frame length.
    pub avg_frame: f64,
    /// Rules loaded into the detector.
    pub rules_loaded: usize,
    /// Rules that failed or are unsupported.
    pub rules_skipped: usize,
    /// Rule loading and compilation, seconds.
    pub load_s: f64,
    /// Matcher asked for (`default` when none).
    pub mpm: String,
    /// Worker threads.
    pub threads: usize,
    /// Timed runs.
    pub runs: usize,
    /// Seconds of each run.
    pub run_s: Vec<f64>,
    /// Median run, seconds.
    pub median_s: f64,
    /// Median CPU time of a run (all threads, user + system), seconds: on a shared
    /// machine `wire_gbit_per_cpu_s` compares engines better than wall-clock figures.
    pub cpu_s: f64,
    /// Wire Gbit/s per CPU second.
    pub wire_gbit_per_cpu_s: f64,
    /// Captured bits per second, 10^9.
    pub gbit_per_s: f64,
    /// With 24 bytes of Ethernet framing per frame, 10^9 bits per second.
    pub wire_gbit_per_s: f64,
    /// Million packets per second.
    pub mpps: f64,
    /// Alerts raised per run.
    pub alerts: u64,
    /// Time per stage (one extra run with stage clocks on).
    pub stages: Vec<StageTime>,
    /// Read-to-verdict latency per packet (one extra one-worker run).
    pub latency: Option<Latency>,
    /// Peak resident memory of the process, KiB (`VmHWM`).
    pub peak_rss_kib: Option<u64>,
}

impl BenchEngineReport {
    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}

impl fmt::Display for BenchEngineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} packets, {} bytes (mean frame {:.0} B); {} rules ({} skipped, loaded in {:.2} s); mpm {}, {} thread(s)",
            self.pcap,
            self.packets,
            self.bytes,
            self.avg_frame,
            self.rules_loaded,
            self.rules_skipped,
            self.load_s,
            self.mpm,
            self.threads
        )?;
        writeln!(
            f,
            "throughput (median of {} runs, {:.3} s): {:.3} Gbit/s captured, {:.3} Gbit/s on the wire (+{} B/frame), {:.3} Mpps; {} alerts",
            self.runs, self.median_s, self.gbit_per_s, self.wire_gbit_per_s, WIRE_OVERHEAD, self.mpps, self.alerts
        )?;
        writeln!(
            f,
            "CPU time per run {:.2} s: {:.3} wire Gbit/s per CPU second",
            self.cpu_s, self.wire_gbit_per_cpu_s
        )?;
        if !self.stages.is_empty() {
            writeln!(
                f,
                "{:<8} {:>10} {:>7} {:>10}",
                "stage", "ms", "share", "ns/pkt"
            )?;
            for s in &self.stages {
                writeln!(
                    f,
                    "{:<8} {:>10.1} {:>6.1}% {:>10.1}",
                    s.stage,
                    s.ms,
                    s.share * 100.0,
                    s.ns_per_packet
                )?;
            }
        }
        if let Some(l) = &self.latency {
            writeln!(
                f,
                "latency read→verdict (µs): p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  max {:.1}",
                l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us
            )?;
        }
        if let Some(kib) = self.peak_rss_kib {
            writeln!(f, "peak RSS: {:.1} MiB", kib as f64 / 1024.0)?;
        }
        Ok(())
    }
}

/// CPU time of this process so far (all threads, user + system), from
/// `/proc/self/stat` (clock ticks of 10 ms).
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[(u64, u64)], total: u64, q: f64) -> f64 {
    let want = ((total as f64) * q).ceil().max(1.0) as u64;
    let mut seen = 0;
    for &(ns, n) in sorted {
        seen += n;
        if seen >= want {
            return ns as f64 / 1000.0;
        }
    }
    sorted.last().map_or(0.0, |x| x.0 as f64 / 1000.0)
}

/// Runs the benchmark on `opts.pcap`.
pub fn bench_engine(opts: &BenchEngineOptions) -> Result<BenchEngineReport, String> {
    let mut v = bench_engine_many(opts, std::slice::from_ref(&opts.pcap))?;
    v.pop().ok_or_else(|| "no capture".to_string())
}

/// Runs the benchmark on each capture in turn, loading the rules once.
pub fn bench_engine_many(
    opts: &BenchEngineOptions,
    pcaps: &[PathBuf],
) -> Result<Vec<BenchEngineReport>, String> {
    let setup = engine::setup(&engine::SetupArgs {
        extra_rules: opts.rules.clone(),
        mpm: opts.mpm.clone(),
        checksum: if opts.checksums {
            engine::ChecksumMode::All
        } else {
            engine::ChecksumMode::None
        },
        ..Default::default()
    })?;
    pcaps.iter().map(|p| bench_one(opts, p, &setup)).collect()
}

fn bench_one(
    opts: &BenchEngineOptions,
    pcap: &std::path::Path,
    setup: &engine::Setup,
) -> Result<BenchEngineReport, String> {
    let data = std::fs::read(pcap).map_err(|e| format!("{}: {e}", pcap.display()))?;
    let shared: SharedBytes = Arc::new(data);
    let open = || capture::open_shared(pcap, shared.clone()).map_err(|e| e.to_string());

    // Count frames and bytes (and touch every page of the copy).
    let (mut packets, mut bytes) = (0u64, 0u64);
    let mut src = open()?;
    let mut batch = Batch::new();
    while src
        .next_batch(&mut batch, capture::BATCH_SIZE)
        .map_err(|e| e.to_string())?
        > 0
    {
        packets += batch.len() as u64;
        bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
    }
    if packets == 0 {
        return Err(format!("{}: no packets", pcap.display()));
    }
    let config = &setup.engine;
    // Workers pinned one per core, as `osprey -r` runs them.
    let run_opts = engine::RunOptions {
        threads: opts.threads.max(1),
        pin_cores: true,
        ..engine::RunOptions::default()
    };
    let alerts_of = |r: &engine::RunReport| r.stats.get("detect.alert").unwrap_or(0);

    let mut times = Vec::new();
    let mut cpu = Vec::new();
    let mut alerts = 0;
    for _ in 0..opts.runs.max(1) {
        let mut src = open()?;
        let c0 = cpu_seconds();
        let r = engine::run(src.as_mut(), config, &run_opts, |_| {}).map_err(|e| e.to_string())?;
        if let (Some(a), Some(b)) = (c0, cpu_seconds()) {
            cpu.push(b - a);
        }
        alerts = alerts_of(&r);
        times.push(r.elapsed.as_secs_f64());
    }
    cpu.sort_by(f64::total_cmp);
    let cpu_s = cpu.get(cpu.len() / 2).copied().unwrap_or(0.0).max(0.01);
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2].max(1e-9);

    // Stage breakdown.
    let timed_cfg = engine::EngineConfig {
        stage_timing: true,
        ..config.clone()
    };
    let mut src = open()?;
    let r = engine::run(src.as_mut(), &timed_cfg, &run_opts, |_| {}).map_err(|e| e.to_string())?;
    let stages = r
        .stage_times
        .map(|st| {
            let total = st.total().as_secs_f64().max(1e-12);
            st.named()
                .iter()
                .map(|(name, d)| StageTime {
                    stage: name,
                    ms: d.as_secs_f64() * 1e3,
                    share: d.as_secs_f64() / total,
                    ns_per_packet: d.as_nanos() as f64 / packets as f64,
                })
                .collect()
        })
        .unwrap_or_default();

    // Latency, one worker on this thread: a batch's verdicts are in when the progress
    // callback runs after it.
    let latency = {
        let reads = Arc::new(Mutex::new(None));
        let mut timed = TimedSource {
            inner: open()?,
            last: reads.clone(),
        };
        let one = engine::RunOptions {
            threads: 1,
            ..engine::RunOptions::default()
        };
        let mut samples: Vec<(u64, u64)> = Vec::new();
        engine::run(&mut timed, config, &one, |_| {
            let now = Instant::now();
            if let Some((t, n)) = reads.lock().ok().and_then(|mut g| g.take()) {
                samples.push((now.duration_since(t).as_nanos() as u64, n as u64));
            }
        })
        .map_err(|e| e.to_string())?;
        samples.sort_unstable();
        let total: u64 = samples.iter().map(|s| s.1).sum();
        (total > 0).then(|| Latency {
            p50_us: percentile(&samples, total, 0.50),
            p90_us: percentile(&samples, total, 0.90),
            p99_us: percentile(&samples, total, 0.99),
            p999_us: percentile(&samples, total, 0.999),
            max_us: samples.last().map_or(0.0, |x| x.0 as f64 / 1000.0),
        })
    };

    Ok(BenchEngineReport {
        pcap: pcap.display().to_string(),
        packets,
        bytes,
        avg_frame: bytes as f64 / packets as f64,
        rules_loaded: setup.rules_loaded,
        rules_skipped: setup.rules_failed + setup.rules_unsupported,
        load_s: setup.load_time.as_secs_f64(),
        mpm: opts.mpm.clone().unwrap_or_else(|| "default".into()),
        threads: opts.threads.max(1),
        runs: times.len(),
        run_s: times,
        median_s: median,
        gbit_per_s: bytes as f64 * 8.0 / median / 1e9,
        wire_gbit_per_s: (bytes + WIRE_OVERHEAD * packets) as f64 * 8.0 / median / 1e9,
        cpu_s,
        wire_gbit_per_cpu_s: (bytes + WIRE_OVERHEAD * packets) as f64 * 8.0 / cpu_s / 1e9,
        mpps: packets as f64 / median / 1e6,
        alerts,
        stages,
        latency,
        peak_rss_kib: peak_rss_kib(),
    })
}

/// A source that records when the last batch was read, for the progress callback
/// (run after the batch's verdicts) to measure read-to-verdict time.
struct TimedSource {
    inner: Box<dyn Source>,
    last: Arc<Mutex<Option<(Instant, usize)>>>,
}

impl Source for TimedSource {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        let t = Instant::now();
        let n = self.inner.next_batch(batch, max)?;
        if n > 0 {
            if let Ok(mut g) = self.last.lock() {
                *g = Some((t, n));
            }
        }
        Ok(n)
    }

    fn stats(&self) -> CaptureStats {
        self.inner.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances() {
        let a = cpu_seconds().unwrap();
        let mut x = 0u64;
        for i in 0..30_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1);
        assert!(cpu_seconds().unwrap() >= a);
    }

    #[test]
    fn percentiles_weigh_by_packets() {
        let s = [(1000, 90), (5000, 9), (9000, 1)];
        assert_eq!(percentile(&s, 100, 0.5), 1.0);
        assert_eq!(percentile(&s, 100, 0.95), 5.0);
        assert_eq!(percentile(&s, 100, 0.999), 9.0);
    }
}

//! The parallel runtime: shared-nothing workers, each running a whole [`Pipeline`] on
//! its own flows (Kargus, MIDeA, Haetae).
//!
//! Offline (`-r`, [`offline`]): the calling thread reads batches, hashes each frame's
//! address pair ([`flow::dispatch::dispatch_hash`]), and hands frames to workers in
//! batches of up to 128 over lock-free single-producer single-consumer rings. Frames of
//! a flow keep their order. Hashing the address pair (not the 5-tuple) keeps the
//! fragments of a datagram, the datagram rebuilt from them and the flow it belongs to
//! on one worker. Each batch carries the capture's clock, so a worker that sees few
//! packets still times its flows out as a single pipeline would.
//!
//! Live (`-i`, [`live`]): every worker opens its own AF_PACKET ring in one
//! `PACKET_FANOUT` hash group, so the kernel does the dispatch and each worker reads
//! (blocking) whole flows. The inline bridge (`crate::inline`) runs its workers the
//! same way.
//!
//! [`worker`] holds what every worker shares: its control-block polling, its result,
//! the per-worker share of the table caps, and the read-process loop of a worker that
//! reads its own source.
//!
//! [`Pipeline`]: crate::pipeline::Pipeline

#[cfg(target_os = "linux")]
pub(crate) mod live;
pub(crate) mod offline;
pub(crate) mod readers;
pub(crate) mod worker;

use crate::alerts::Outputs;
use crate::control::Control;
use crate::merge::merge_into;
use crate::run::{add_capture_stats, RunError, RunReport};
use crate::timing::StageTimes;
use crate::Progress;
use capture::CaptureStats;
use output::stats::StatsTree;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use worker::WorkerResult;

#[cfg(target_os = "linux")]
pub use live::run_live;
pub use offline::run;

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Worker threads; 0 means one per available core.
    pub threads: usize,
    /// Pin worker `k` to core `k` (when there are at least as many cores as workers);
    /// failure to pin is ignored.
    pub pin_cores: bool,
    /// Stop, reload and statistics requests from other threads (signals, the unix
    /// socket).
    pub control: Control,
    /// Rewrite this `stats.json` every interval while running.
    pub periodic_stats: Option<(Duration, PathBuf)>,
    /// Offline readers (`--readers`): 1, the reader thread hashes every frame and hands
    /// it to its worker itself; N ≥ 2, the reader only walks the capture's records and
    /// N dispatcher threads hash and hand out its chunks in turn (a mapped capture
    /// only: other input keeps one reader). 0 means [`auto_readers`]. Alerts, EVE
    /// records and counters do not depend on it.
    pub readers: usize,
}

/// The default reader count for `workers` workers: one reader up to
/// [`WORKERS_PER_READER`] workers, then one dispatcher per that many workers.
pub fn auto_readers(workers: usize) -> usize {
    if workers <= WORKERS_PER_READER {
        1
    } else {
        workers.div_ceil(WORKERS_PER_READER)
    }
}

/// Workers one dispatcher keeps busy: hashing a frame's addresses costs a fraction of
/// what inspecting it does (see bench/RESULTS.md, "Offline readers").
pub const WORKERS_PER_READER: usize = 4;

impl RunOptions {
    /// The number of workers these options ask for.
    pub fn worker_count(&self) -> usize {
        match self.threads {
            0 => thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// The readers these options ask for with `workers` workers (at most one per
    /// worker).
    pub fn reader_count(&self, workers: usize) -> usize {
        match self.readers {
            0 => auto_readers(workers),
            n => n.min(workers.max(1)),
        }
    }
}

/// Every interval while the run lasts: rewrites `opts.periodic_stats`' file
/// (`--stats-interval`) and writes the statistics outputs (`stats.log`, EVE `stats`
/// records) at the configuration's `stats: interval`, each from the workers' latest
/// counters. `None` when neither is asked for.
pub(crate) fn spawn_periodic_stats<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    opts: &'env RunOptions,
    done: &'env AtomicBool,
    outputs: &'env Arc<Outputs>,
) -> Option<thread::ScopedJoinHandle<'scope, ()>> {
    let json = opts
        .periodic_stats
        .clone()
        .map(|(i, p)| (i.max(Duration::from_millis(10)), p));
    let logs = outputs.stats_interval();
    if json.is_none() && logs.is_none() {
        return None;
    }
    thread::Builder::new()
        .name("osprey-stats".into())
        .spawn_scoped(s, move || {
            let started = Instant::now();
            let mut next_json = json.as_ref().map(|(i, _)| started + *i);
            let mut next_logs = logs.map(|i| started + i);
            while !done.load(Ordering::SeqCst) {
                let now = Instant::now();
                let next = next_json.into_iter().chain(next_logs).min();
                match next {
                    Some(n) if now < n => {
                        thread::park_timeout(n - now);
                        continue;
                    }
                    None => break,
                    Some(_) => {}
                }
                opts.control.request_stats();
                // Workers answer at their next batch (or poll timeout).
                thread::park_timeout(
                    Duration::from_millis(200).min(
                        json.as_ref()
                            .map(|(i, _)| *i)
                            .into_iter()
                            .chain(logs)
                            .min()
                            .unwrap_or_default(),
                    ),
                );
                if done.load(Ordering::SeqCst) {
                    break;
                }
                let mut stats = opts.control.merged_snapshot();
                let uptime = started.elapsed().as_secs();
                stats.set("uptime", uptime.into());
                let now = Instant::now();
                if let (Some(n), Some((interval, path))) = (next_json, json.as_ref()) {
                    if now >= n {
                        next_json = Some(now + *interval);
                        let tmp = path.with_extension("json.tmp");
                        if stats.write_file(&tmp).is_ok() {
                            let _ = std::fs::rename(&tmp, path);
                        }
                    }
                }
                if let (Some(n), Some(interval)) = (next_logs, logs) {
                    if now >= n {
                        next_logs = Some(now + interval);
                        let workers = opts.control.worker_snapshots();
                        outputs.write_stats(&stats, &workers, uptime);
                    }
                }
            }
        })
        .ok()
}

pub(crate) fn finish_report(
    results: Vec<WorkerResult>,
    read: Progress,
    outputs: Option<Outputs>,
    workers: usize,
    start: Instant,
) -> Result<RunReport, RunError> {
    let mut stats = StatsTree::new();
    let mut capture = CaptureStats::default();
    let mut times: Option<StageTimes> = None;
    let mut error = None;
    let mut workers_stats = Vec::with_capacity(results.len());
    for r in results {
        merge_into(&mut stats, &r.stats);
        capture.merge(&r.capture);
        if let Some(t) = r.times {
            times.get_or_insert_with(StageTimes::default).add(&t);
        }
        error = error.or(r.error);
        workers_stats.push(r.stats);
    }
    add_capture_stats(&mut stats, &capture);
    if let Some(t) = &times {
        crate::timing::add_stage_counters(&mut stats, t);
    }
    stats.add("osprey.threads", workers as u64);
    // Suricata's `uptime`: whole seconds since the engine started.
    let uptime = start.elapsed().as_secs();
    stats.set("uptime", uptime.into());
    // Frames read from the source; offline every one of them reaches a worker (the
    // reader waits rather than drop), live ones are lost only in the kernel ring
    // (`capture.kernel_drops`), never between capture and worker.
    let frames = if read.packets > 0 {
        read.packets
    } else {
        capture.packets
    };
    stats.add("osprey.capture.packets", frames);
    stats.add("osprey.dispatch.drops", 0);
    if let Some(o) = outputs {
        // The statistics outputs' last record: the run's final counters.
        o.write_stats(&stats, &workers_stats, uptime);
        match o.finish() {
            // What could not be written is counted (stats.json has the final numbers);
            // it never stops the run.
            Ok(losses) => losses.set_counters(&mut stats),
            Err(e) => error = error.or(Some(e)),
        }
    }
    if let Some(e) = error {
        return Err(RunError::Output(e));
    }
    Ok(RunReport {
        stats,
        capture,
        elapsed: start.elapsed(),
        stage_times: times,
    })
}

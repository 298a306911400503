//! Live runs (`-i`): one worker per AF_PACKET socket of one fanout group, each reading
//! its own ring; [`run_per_source`] also runs the inline bridge's workers.

use super::worker::{pin, serve, worker_config, WorkerResult};
use super::{finish_report, spawn_periodic_stats, RunOptions};
use crate::alerts::Outputs;
use crate::config::EngineConfig;
use crate::run::{RunError, RunReport};
use crate::Progress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

/// Runs live capture on `iface` with one AF_PACKET socket per worker in one
/// `PACKET_FANOUT` hash group, until `opts.control` is stopped.
pub fn run_live(
    iface: &str,
    live: &capture::LiveOptions,
    config: &EngineConfig,
    opts: &RunOptions,
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    let (workers, mut live) = live_setup(live, opts, 0xffff);
    // An idle worker still answers statistics requests (each sensor's counters stay
    // current while its share of the link is quiet).
    live.wake = Some(opts.control.stats_requests());
    let mut sources = Vec::with_capacity(workers);
    for _ in 0..workers {
        sources.push(capture::open_live(iface, live.clone())?);
    }
    // Said once every socket has joined the group: from here on, the traffic of the
    // link is shared with the group's other sockets (of this process or others).
    tracing::info!(
        "{iface}: {workers} capture socket(s) bound in fanout group {} ({})",
        live.fanout_group.unwrap_or_default(),
        live.fanout
    );
    run_per_source(
        sources,
        "osprey-w",
        config,
        opts,
        start,
        |k, mut src, c, out| {
            serve(k, src.as_mut(), c, out, &opts.control, |p, batch, _| {
                p.process_batch(batch)
            })
        },
    )
}

/// The number of workers `opts` asks for, and `live` stopped by `opts.control`, in a
/// fanout group derived from the pid (masked by `group_mask`) when it names none.
pub(crate) fn live_setup(
    live: &capture::LiveOptions,
    opts: &RunOptions,
    group_mask: u32,
) -> (usize, capture::LiveOptions) {
    let workers = opts.worker_count().max(1);
    let mut live = live.clone();
    live.stop = opts.control.stop_flag();
    if live.fanout_group.is_none() {
        // Group ids are per network namespace and interface; derive one from the pid.
        live.fanout_group = Some((std::process::id() & group_mask) as u16);
    }
    (workers, live)
}

/// Runs one worker thread per source (named `{name}{k}`, pinned as `opts` says), each
/// running `work` with its index, its source, the per-worker configuration and the
/// shared outputs, and the periodic statistics beside them; then merges their reports.
/// Started at `start`.
pub(crate) fn run_per_source<S: Send>(
    sources: Vec<S>,
    name: &str,
    config: &EngineConfig,
    opts: &RunOptions,
    start: Instant,
    work: impl Fn(usize, S, &EngineConfig, Arc<Outputs>) -> Result<WorkerResult, RunError> + Sync,
) -> Result<RunReport, RunError> {
    let workers = sources.len();
    let outputs = Arc::new(Outputs::for_run(config, &opts.control).map_err(RunError::Output)?);
    opts.control.set_workers(workers);
    opts.control.started().map_err(RunError::Output)?;
    let wconfig = worker_config(config, workers);
    let done = AtomicBool::new(false);
    let results = thread::scope(|s| {
        let stats_thread = spawn_periodic_stats(s, opts, &done, &outputs);
        let handles: Vec<_> = sources
            .into_iter()
            .enumerate()
            .map(|(k, src)| {
                let outputs = outputs.clone();
                let (wconfig, work) = (&wconfig, &work);
                thread::Builder::new()
                    .name(format!("{name}{k}"))
                    .spawn_scoped(s, move || {
                        pin(k, workers, opts.pin_cores);
                        work(k, src, wconfig, outputs)
                    })
            })
            .collect();
        join_workers(handles, &done, stats_thread)
    })?;
    let outputs = Arc::try_unwrap(outputs).ok();
    finish_report(results, Progress::default(), outputs, workers, start)
}

/// Joins live workers (spawned or not) and collects their reports; then stops the
/// periodic stats thread. The last error wins; a panicked worker is an error.
fn join_workers<R>(
    handles: Vec<std::io::Result<thread::ScopedJoinHandle<'_, Result<R, RunError>>>>,
    done: &AtomicBool,
    stats_thread: Option<thread::ScopedJoinHandle<'_, ()>>,
) -> Result<Vec<R>, RunError> {
    let mut results = Vec::new();
    let mut err = None;
    for h in handles {
        match h {
            Ok(h) => match h.join() {
                Ok(Ok(r)) => results.push(r),
                Ok(Err(e)) => err = Some(e),
                Err(_) => err = Some(RunError::Output(std::io::Error::other("worker panicked"))),
            },
            Err(e) => err = Some(RunError::Output(e)),
        }
    }
    done.store(true, Ordering::SeqCst);
    if let Some(t) = stats_thread {
        t.thread().unpark();
    }
    match err {
        Some(e) => Err(e),
        None => Ok(results),
    }
}

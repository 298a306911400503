//! Offline runs (`-r`): one pipeline on the calling thread, or a reader thread that
//! dispatches frames by [`dispatch_hash`] to worker threads over lock-free rings (or,
//! with several readers, hands chunks of the capture to dispatcher threads that do:
//! [`super::readers`]).

use super::worker::{pin, worker_config, WorkerControl, WorkerResult};
use super::{finish_report, spawn_periodic_stats, RunOptions};
use crate::alerts::{Outputs, SharedAlerts};
use crate::config::EngineConfig;
use crate::control::Control;
use crate::pipeline::Pipeline;
use crate::run::{RunError, RunReport};
use crate::timing::ReaderTimer;
use crate::Progress;
use capture::{Batch, CaptureStats, Source, Timestamp};
use flow::dispatch::dispatch_hash;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};
use wire::{Decoded, Decoder, DecoderConfig};

/// Batches queued for all workers together before the reader waits (each of up to 128
/// frames). The frames of a mapped capture that are queued stay resident, and a
/// worker's batch holds only its share of the frames read, so the span of the capture
/// held grows with each worker's queue times the number of workers: the queues share
/// this many (8,192 frames), which smooth out the workers' pace well enough.
pub(super) const RING_BATCHES: usize = 64;

/// The least batches one worker's queue holds, however many workers share
/// [`RING_BATCHES`].
const MIN_RING_BATCHES: usize = 8;

/// Batches queued per worker when `workers` share [`RING_BATCHES`].
fn ring_batches(workers: usize) -> usize {
    (RING_BATCHES / workers.max(1)).max(MIN_RING_BATCHES)
}

/// Every this many frames read, every worker is told the time and sweeps idle flows,
/// as one pipeline does after as many frames of its own.
pub(super) const TICK_FRAMES: u64 = crate::pipeline::SWEEP_EVERY;

/// How long an idle worker sleeps before looking at its ring and the control block again.
pub(super) const IDLE_PARK: Duration = Duration::from_millis(2);

/// Frames of capture batches for one worker, with the capture's clock. Frames of a
/// mapped file are not copied: the batch shares the mapping.
#[derive(Default)]
pub(super) struct WorkBatch {
    pub(super) frames: Batch,
    /// The capture's clock when the batch was sent: the time of the latest frame read.
    now: Timestamp,
    /// Index of the latest frame read when the batch was sent: the worker has every
    /// frame up to it that is its own once it has this batch.
    upto: u64,
    /// Look for idle flows after this batch.
    sweep: bool,
    /// The source's position ([`Source::position`]) before its first frame was read:
    /// the mapped capture's pages from there on stay while the batch is queued.
    from: u64,
    /// The last batch of a chunk of the capture for this worker (several dispatchers,
    /// [`super::readers`]): the worker's next batch comes from the next dispatcher.
    ends_chunk: bool,
}

/// Reads `source` to its end (or until stopped) through `opts.threads` workers; alerts
/// go to `config.log_dir`. With one worker the pipeline runs on the calling thread.
pub fn run(
    source: &mut dyn Source,
    config: &EngineConfig,
    opts: &RunOptions,
    progress: impl FnMut(Progress) + Send,
) -> Result<RunReport, RunError> {
    let workers = opts.worker_count().max(1);
    let start = Instant::now();
    let outputs = Arc::new(Outputs::for_run(config, &opts.control).map_err(RunError::Output)?);
    opts.control.set_workers(workers);
    opts.control.started().map_err(RunError::Output)?;
    let wconfig = worker_config(config, workers);
    let done = AtomicBool::new(false);
    let input_done = AtomicBool::new(false);
    let (results, read) = thread::scope(|s| {
        let stats_thread = spawn_periodic_stats(s, opts, &done, &outputs);
        let out = if workers == 1 {
            let r = run_inline(source, &wconfig, outputs.clone(), opts, progress);
            r.map(|(res, read)| (vec![res], read))
        } else {
            let input = Input {
                config: &wconfig,
                opts,
                done: &input_done,
            };
            // The reader gets a thread of its own: it moves between cores (see
            // `follow_lightest`), and the calling thread's affinity stays as it was.
            let outputs = &outputs;
            let readers = opts.reader_count(workers);
            let spread = readers > 1 && source.shares_frames();
            thread::Builder::new()
                .name("osprey-reader".into())
                .spawn_scoped(s, move || {
                    if spread {
                        super::readers::run(s, source, input, outputs, workers, readers, progress)
                    } else {
                        run_dispatch(s, source, input, outputs, workers, progress)
                    }
                })
                .map_err(RunError::Output)
                .and_then(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(RunError::Output(std::io::Error::other(
                            "reader thread panicked",
                        )))
                    })
                })
        };
        done.store(true, Ordering::SeqCst);
        if let Some(t) = stats_thread {
            t.thread().unpark();
        }
        out
    })?;
    let outputs = Arc::try_unwrap(outputs).ok();
    finish_report(results, read, outputs, workers, start)
}

/// One pipeline on the calling thread.
fn run_inline(
    source: &mut dyn Source,
    config: &EngineConfig,
    outputs: Arc<Outputs>,
    opts: &RunOptions,
    mut progress: impl FnMut(Progress),
) -> Result<(WorkerResult, Progress), RunError> {
    let mut pipeline = Pipeline::with_outputs(config, outputs);
    let mut ctl = WorkerControl::new(0, &opts.control);
    let mut batch = Batch::new();
    let mut seen = Progress::default();
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    while !opts.control.is_stopped() && source.next_batch(&mut batch, batch_size)? > 0 {
        ctl.poll(&mut pipeline);
        pipeline.process_batch(&batch);
        seen.packets += batch.len() as u64;
        seen.bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
        progress(seen);
    }
    let error = pipeline.finish().err();
    Ok((
        WorkerResult {
            stats: pipeline.stats(),
            times: pipeline.stage_times(),
            capture: source.stats(),
            error,
        },
        seen,
    ))
}

/// The two ends of one worker's queues, as the reader holds them.
pub(super) struct Lane {
    /// Times the reader found this worker's ring full and waited.
    pub(super) waits: u64,
    /// Nanoseconds spent waiting so (measured only with stage timing).
    pub(super) parked_ns: u64,
    /// Measure [`Lane::parked_ns`].
    pub(super) timed: bool,
    to_worker: rtrb::Producer<Box<WorkBatch>>,
    recycled: rtrb::Consumer<Box<WorkBatch>>,
    pub(super) pending: Box<WorkBatch>,
    thread: Thread,
    /// Batches the worker gave back, for reuse (boxed: they travel the rings boxed).
    #[allow(clippy::vec_box)]
    spare: Vec<Box<WorkBatch>>,
    /// The [`WorkBatch::from`] of each batch sent and not given back yet, oldest first
    /// (a worker gives its batches back in order).
    queued: std::collections::VecDeque<u64>,
}

/// What the dispatching reader shares with its workers.
#[derive(Clone, Copy)]
pub(super) struct Input<'env> {
    pub(super) config: &'env EngineConfig,
    pub(super) opts: &'env RunOptions,
    /// Raised when the reader sent its last batch.
    pub(super) done: &'env AtomicBool,
}

/// The reader, on the thread calling this, and `workers` worker threads behind rings.
fn run_dispatch<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    source: &mut dyn Source,
    input: Input<'env>,
    outputs: &Arc<Outputs>,
    workers: usize,
    mut progress: impl FnMut(Progress) + Send,
) -> Result<(Vec<WorkerResult>, Progress), RunError> {
    let Input { config, opts, done } = input;
    let reader = thread::current();
    let mut lanes = Vec::with_capacity(workers);
    let mut handles = Vec::with_capacity(workers);
    // Threshold checks that several workers' matches share are made in capture order
    // (IPS verdicts cannot wait for them: there each worker keeps its own).
    let shared = (!config.ips).then(|| Arc::new(SharedAlerts::new(workers, outputs.clone())));
    let feeder = Arc::new(OnceLock::from(reader));
    let batches = ring_batches(workers);
    for k in 0..workers {
        let (feed, ends) = ring(feeder.clone(), batches);
        let h = spawn_worker(s, k, vec![feed], input, outputs, shared.clone(), None)?;
        lanes.push(ends.lane(h.thread().clone()));
        handles.push(h);
    }

    let mut timer = ReaderTimer::new(config.stage_timing);
    for lane in &mut lanes {
        lane.timed = config.stage_timing;
    }
    let read = read_and_dispatch(
        source,
        config,
        &mut lanes,
        &opts.control,
        opts.pin_cores,
        &mut progress,
        &mut timer,
    );
    // Whatever happened, let the workers drain and end.
    done.store(true, Ordering::SeqCst);
    for lane in &lanes {
        lane.thread.unpark();
    }
    let mut results = Vec::with_capacity(workers);
    for h in handles {
        match h.join() {
            Ok(r) => results.push(r),
            Err(_) => {
                return Err(RunError::Output(std::io::Error::other(
                    "worker thread panicked",
                )))
            }
        }
    }
    let read = read?;
    if let (Some(r), Some(shared)) = (results.first_mut(), &shared) {
        shared.add_counters(&mut r.stats);
    }
    if let Some(r) = results.first_mut() {
        r.capture = source.stats();
        let waits: u64 = lanes.iter().map(|l| l.waits).sum();
        r.stats.add("osprey.dispatch.queue_full_waits", waits);
        timer.add_to(&mut r.stats);
    }
    Ok((results, read))
}

fn read_and_dispatch(
    source: &mut dyn Source,
    config: &EngineConfig,
    lanes: &mut [Lane],
    control: &Control,
    pin_cores: bool,
    progress: &mut impl FnMut(Progress),
    timer: &mut ReaderTimer,
) -> Result<Progress, RunError> {
    let n = lanes.len() as u64;
    let mut decoder = Decoder::new(DecoderConfig {
        verify_checksums: false,
        ..config.decoder.clone()
    });
    let mut decoded = Decoded::new();
    let mut batch = Batch::new();
    let mut seen = Progress::default();
    let mut now = Timestamp::default();
    let mut read = 0u64;
    let mut upto = 0u64;
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    // The cores the workers are pinned to (see `pin`), read before the reader pins
    // itself: its own affinity is one core afterwards.
    let cores = core_affinity::get_core_ids()
        .filter(|c| pin_cores && lanes.len() <= c.len())
        .unwrap_or_default();
    let mut on_core = usize::MAX;
    // Frames of a mapped capture wait in the workers' queues: its pages are released
    // once every worker is past them, not at a fixed distance behind this reader.
    source.release_by_caller();
    let mut at = source.position();
    while !control.is_stopped() {
        let t = timer.start();
        if source.next_batch(&mut batch, batch_size)? == 0 {
            break;
        }
        timer.read(t);
        let t = timer.start();
        let parked = t.map_or(0, |_| lanes.iter().map(|l| l.parked_ns).sum::<u64>());
        for (i, frame) in batch.iter().enumerate() {
            let h = dispatch_hash(&mut decoder, &mut decoded, frame.link, frame.data);
            let lane = &mut lanes[(h % n) as usize];
            if lane.pending.frames.is_empty() {
                lane.pending.from = at;
            }
            lane.pending.frames.push_from(&batch, i);
            now = frame.ts;
            if lane.pending.frames.len() >= batch_size {
                send(lane, now, frame.index, false);
            }
            read += 1;
            upto = frame.index;
            if read.is_multiple_of(TICK_FRAMES) {
                // Every worker sweeps after this very frame, whatever its share.
                for lane in lanes.iter_mut() {
                    send(lane, now, upto, true);
                }
                follow_lightest(lanes, &cores, &mut on_core);
            }
        }
        if t.is_some() {
            let now_parked = lanes.iter().map(|l| l.parked_ns).sum::<u64>();
            timer.dispatch(t, now_parked - parked);
        }
        seen.packets += batch.len() as u64;
        seen.bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
        progress(seen);
        at = source.position();
        source.release_before(
            lanes
                .iter_mut()
                .map(|l| l.held_from(at))
                .min()
                .unwrap_or(at),
        );
        if batch.len() < batch_size && source.may_wait() {
            // The source may now wait for new input (a watched directory): the frames
            // held here must not wait with it, nor the alerts held for capture order.
            for lane in lanes.iter_mut() {
                send(lane, now, upto, false);
            }
        }
    }
    for lane in lanes.iter_mut() {
        send(lane, now, upto, false);
    }
    Ok(seen)
}

/// Moves the reader to the core of the worker with the fewest batches queued, when
/// workers are pinned one per core (`cores`, empty otherwise): the reader takes its CPU
/// time from the worker that has time to spare rather than from the one that holds
/// everyone up.
fn follow_lightest(lanes: &[Lane], cores: &[core_affinity::CoreId], on_core: &mut usize) {
    if cores.len() < lanes.len() {
        return;
    }
    let Some((k, _)) = lanes
        .iter()
        .enumerate()
        .max_by_key(|(k, l)| (l.to_worker.slots(), usize::MAX - k))
    else {
        return;
    };
    if k != *on_core && core_affinity::set_for_current(cores[k]) {
        *on_core = k;
    }
}

impl Lane {
    /// Takes back the batches the worker is done with.
    fn reclaim(&mut self) {
        while let Ok(b) = self.recycled.pop() {
            self.queued.pop_front();
            self.spare.push(b);
        }
    }

    /// The earliest source position whose frames this lane still holds (queued for
    /// its worker or pending here); `at` (the reader's position) when none.
    fn held_from(&mut self, at: u64) -> u64 {
        self.reclaim();
        let pending = if self.pending.frames.is_empty() {
            at
        } else {
            self.pending.from
        };
        self.queued.iter().copied().fold(pending, u64::min)
    }
}

/// Hands `lane`'s pending frames (possibly none: a clock tick) to its worker, waiting
/// while its ring is full (offline input is never dropped).
fn send(lane: &mut Lane, now: Timestamp, upto: u64, sweep: bool) {
    send_marked(lane, now, upto, sweep, false);
}

/// [`send`], marking the batch as the last of its chunk for this worker when `ends`.
pub(super) fn send_marked(lane: &mut Lane, now: Timestamp, upto: u64, sweep: bool, ends: bool) {
    lane.reclaim();
    let fresh = lane.spare.pop().unwrap_or_default();
    let mut b = std::mem::replace(&mut lane.pending, fresh);
    b.now = now;
    b.upto = upto;
    b.sweep = sweep;
    b.ends_chunk = ends;
    // A batch without frames holds no pages.
    let from = if b.frames.is_empty() {
        u64::MAX
    } else {
        b.from
    };
    loop {
        match lane.to_worker.push(b) {
            Ok(()) => {
                lane.queued.push_back(from);
                break;
            }
            Err(rtrb::PushError::Full(back)) => {
                b = back;
                lane.waits += 1;
                lane.thread.unpark();
                let t = lane.timed.then(Instant::now);
                thread::park_timeout(Duration::from_micros(200));
                if let Some(t) = t {
                    lane.parked_ns += t.elapsed().as_nanos() as u64;
                }
            }
        }
    }
    lane.thread.unpark();
}

/// A worker's end of one feeder's ring (the reader's, or one dispatcher's).
pub(super) struct Feed {
    from: rtrb::Consumer<Box<WorkBatch>>,
    recycle: rtrb::Producer<Box<WorkBatch>>,
    /// The feeding thread, woken when a batch is given back (set once it runs).
    feeder: Arc<OnceLock<Thread>>,
}

/// The feeder's ends of a ring before the worker's thread is known.
pub(super) struct LaneEnds {
    to_worker: rtrb::Producer<Box<WorkBatch>>,
    recycled: rtrb::Consumer<Box<WorkBatch>>,
}

impl LaneEnds {
    /// The feeder's lane to the worker running on `thread`.
    pub(super) fn lane(self, thread: Thread) -> Lane {
        let queued = self.to_worker.buffer().capacity() + 1;
        Lane {
            waits: 0,
            parked_ns: 0,
            timed: false,
            to_worker: self.to_worker,
            recycled: self.recycled,
            pending: Box::default(),
            thread,
            spare: Vec::new(),
            queued: std::collections::VecDeque::with_capacity(queued),
        }
    }
}

/// A ring of `batches` batches from `feeder` to a worker, and the ring of batches given
/// back.
pub(super) fn ring(feeder: Arc<OnceLock<Thread>>, batches: usize) -> (Feed, LaneEnds) {
    let (to_worker, from) = rtrb::RingBuffer::<Box<WorkBatch>>::new(batches);
    let (recycle, recycled) = rtrb::RingBuffer::<Box<WorkBatch>>::new(batches + 2);
    (
        Feed {
            from,
            recycle,
            feeder,
        },
        LaneEnds {
            to_worker,
            recycled,
        },
    )
}

/// Starts worker `k` on its feeds (taken in turn, one chunk from each: see
/// [`ring_worker`]); `chunks` counts the chunks it finished, when several dispatchers
/// feed it.
pub(super) fn spawn_worker<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    k: usize,
    feeds: Vec<Feed>,
    input: Input<'env>,
    outputs: &Arc<Outputs>,
    shared: Option<Arc<SharedAlerts>>,
    chunks: Option<Arc<[AtomicU64]>>,
) -> Result<thread::ScopedJoinHandle<'scope, WorkerResult>, RunError> {
    let Input { config, opts, done } = input;
    let workers = opts.worker_count().max(1);
    let outputs = outputs.clone();
    let control = &opts.control;
    thread::Builder::new()
        .name(format!("osprey-w{k}"))
        .spawn_scoped(s, move || {
            pin(k, workers, opts.pin_cores);
            let ends = WorkerEnds {
                done,
                chunks: chunks.as_deref().and_then(|c| c.get(k)),
            };
            ring_worker(k, feeds, ends, config, outputs, control, shared)
        })
        .map_err(RunError::Output)
}

/// When a ring worker stops, and where it says how far it got.
struct WorkerEnds<'a> {
    /// Raised once every batch was sent: the worker ends when its rings are empty.
    done: &'a AtomicBool,
    /// The number of chunks this worker finished (several dispatchers).
    chunks: Option<&'a AtomicU64>,
}

/// A worker fed by rings: with one feed, batch after batch; with several (one per
/// dispatcher), the batches of one chunk from one feed, up to the batch that ends the
/// chunk, then the next feed's: chunk `s` comes from feed `s % feeds`, so the worker
/// sees its frames in capture order.
fn ring_worker(
    k: usize,
    mut feeds: Vec<Feed>,
    ends: WorkerEnds<'_>,
    config: &EngineConfig,
    outputs: Arc<Outputs>,
    control: &Control,
    shared: Option<Arc<SharedAlerts>>,
) -> WorkerResult {
    let mut pipeline = Pipeline::with_outputs(config, outputs);
    pipeline.sweep_when_told();
    if shared.is_some() {
        pipeline.share_thresholds();
    }
    let mut ctl = WorkerControl::new(k, control);
    // When this worker first saw the stop, and frames it then left uninspected.
    let mut stopped_at: Option<std::time::Instant> = None;
    let mut shutdown_dropped = 0u64;
    let mut cur = 0;
    let mut chunks = 0u64;
    loop {
        ctl.poll(&mut pipeline);
        if stopped_at.is_none() && control.is_stopped() {
            stopped_at = Some(std::time::Instant::now());
        }
        let past_grace = stopped_at.is_some_and(|t| t.elapsed() >= config.shutdown_grace);
        let n = feeds.len();
        let feed = &mut feeds[cur];
        match feed.from.pop() {
            Ok(mut b) => {
                if past_grace {
                    shutdown_dropped += b.frames.len() as u64;
                } else {
                    pipeline.process_batch(&b.frames);
                    pipeline.advance_time(b.now, b.sweep.then_some(b.upto));
                    if let Some(shared) = &shared {
                        // Nothing this worker raises from now on comes before the sweep
                        // after frame `upto` (or, after one, before the next frame).
                        let mark =
                            (b.upto.saturating_mul(2) + 1).saturating_add(u64::from(b.sweep));
                        shared.submit(k, pipeline.held_alerts(), mark);
                    }
                }
                let ended_chunk = b.ends_chunk;
                b.frames.clear();
                let _ = feed.recycle.push(b);
                if let Some(t) = feed.feeder.get() {
                    t.unpark();
                }
                if ended_chunk {
                    cur = (cur + 1) % n;
                    chunks += 1;
                    if let Some(c) = ends.chunks {
                        c.store(chunks, Ordering::Release);
                    }
                }
            }
            Err(_) => {
                if ends.done.load(Ordering::SeqCst) && feed.from.is_empty() {
                    break;
                }
                thread::park_timeout(IDLE_PARK);
            }
        }
    }
    let error = pipeline.finish().err();
    if let Some(shared) = &shared {
        shared.submit(k, pipeline.held_alerts(), u64::MAX);
    }
    let mut stats = pipeline.stats();
    if shutdown_dropped > 0 {
        tracing::warn!(
            "worker {k}: {shutdown_dropped} queued packets left uninspected at shutdown (shutdown-grace)"
        );
        stats.add("osprey.shutdown.dropped", shutdown_dropped);
    }
    WorkerResult {
        stats,
        times: pipeline.stage_times(),
        capture: CaptureStats::default(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_share_the_queued_batches() {
        assert_eq!(ring_batches(1), RING_BATCHES);
        for w in [2, 4, 8] {
            assert_eq!(ring_batches(w) * w, RING_BATCHES, "{w} workers");
        }
        assert_eq!(ring_batches(64), MIN_RING_BATCHES);
        assert_eq!(ring_batches(0), RING_BATCHES);
    }
}

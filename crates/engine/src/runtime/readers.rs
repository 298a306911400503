//! Several offline readers: the reader thread only walks the records of a mapped
//! capture (no copy: a batch holds offsets into the mapping) and cuts them into chunks
//! that end where the single reader ticks the workers' clocks (every
//! [`TICK_FRAMES`] frames) or flushes (the end of input, a source that may wait);
//! chunk `s` goes to dispatcher `s % N`, which hashes each frame's dispatch key
//! ([`dispatch_hash`], the costly part of reading) and hands the frames to the workers
//! exactly as the single reader would: the same batches, clocks and sweeps. Each worker
//! has one ring per dispatcher and takes chunk after chunk from them in turn, so it sees
//! its frames in capture order and alerts, EVE records and counters do not depend on
//! the number of readers.
//!
//! The mapped capture's pages are released behind the oldest chunk some worker has not
//! finished (each worker publishes how many chunks it finished).

use super::offline::{ring, send_marked, spawn_worker, Input, Lane, IDLE_PARK, TICK_FRAMES};
use super::worker::WorkerResult;
use crate::alerts::{Outputs, SharedAlerts};
use crate::run::RunError;
use crate::timing::ReaderTimer;
use crate::Progress;
use capture::{Batch, Source, Timestamp};
use flow::dispatch::dispatch_hash;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{self, Thread};
use std::time::Duration;
use wire::{Decoded, Decoder, DecoderConfig};

/// Chunks queued per dispatcher before the reader waits.
const CHUNKS_QUEUED: usize = 4;

/// A run of consecutive capture batches for one dispatcher.
#[derive(Default)]
struct Chunk {
    /// Batches read (the first `filled` are this chunk's; the rest are kept for reuse).
    batches: Vec<Batch>,
    filled: usize,
    /// Frames read before this chunk.
    first: u64,
    /// The capture's clock and latest frame index before this chunk.
    now: Timestamp,
    upto: u64,
    /// Every worker is sent what it has (without a sweep) after the last frame: the
    /// input ended, or the source may now wait for more.
    flush: bool,
}

/// The reader's end of one dispatcher's queue of chunks.
struct ToDispatcher {
    chunks: rtrb::Producer<Box<Chunk>>,
    back: rtrb::Consumer<Box<Chunk>>,
    thread: Thread,
}

/// Reads `source` and spreads it over `readers` dispatchers feeding `workers` workers.
pub(super) fn run<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    source: &mut dyn Source,
    input: Input<'env>,
    outputs: &Arc<Outputs>,
    workers: usize,
    readers: usize,
    mut progress: impl FnMut(Progress) + Send,
) -> Result<(Vec<WorkerResult>, Progress), RunError> {
    let Input { config, opts, done } = input;
    let reader = thread::current();
    let shared = (!config.ips).then(|| Arc::new(SharedAlerts::new(workers, outputs.clone())));
    let finished: Arc<[AtomicU64]> = (0..workers).map(|_| AtomicU64::new(0)).collect();
    let feeders: Vec<Arc<OnceLock<Thread>>> =
        (0..readers).map(|_| Arc::new(OnceLock::new())).collect();
    // ends[d][k]: dispatcher d's end of its ring to worker k.
    let mut ends: Vec<Vec<_>> = (0..readers).map(|_| Vec::with_capacity(workers)).collect();
    let mut handles = Vec::with_capacity(workers);
    for k in 0..workers {
        let mut feeds = Vec::with_capacity(readers);
        for (d, feeder) in feeders.iter().enumerate() {
            // Each ring keeps the full queue: a worker takes the dispatchers' chunks in
            // turn, so a shorter ring could hold up the dispatcher it is waiting for.
            let (feed, end) = ring(feeder.clone(), super::offline::RING_BATCHES);
            feeds.push(feed);
            ends[d].push(end);
        }
        let h = spawn_worker(
            s,
            k,
            feeds,
            input,
            outputs,
            shared.clone(),
            Some(finished.clone()),
        )?;
        handles.push(h);
    }
    let threads: Vec<Thread> = handles.iter().map(|h| h.thread().clone()).collect();
    let reader_done = Arc::new(AtomicBool::new(false));
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    let mut queues = Vec::with_capacity(readers);
    let mut dispatchers = Vec::with_capacity(readers);
    for (d, lane_ends) in ends.into_iter().enumerate() {
        let lanes: Vec<Lane> = lane_ends
            .into_iter()
            .zip(&threads)
            .map(|(e, t)| {
                let mut lane = e.lane(t.clone());
                lane.timed = config.stage_timing;
                lane
            })
            .collect();
        let (to, from_reader) = rtrb::RingBuffer::<Box<Chunk>>::new(CHUNKS_QUEUED);
        let (give_back, back) = rtrb::RingBuffer::<Box<Chunk>>::new(CHUNKS_QUEUED + 1);
        let reader = reader.clone();
        let reader_done = reader_done.clone();
        let h = thread::Builder::new()
            .name(format!("osprey-d{d}"))
            .spawn_scoped(s, move || {
                dispatcher(
                    from_reader,
                    give_back,
                    reader,
                    &reader_done,
                    lanes,
                    batch_size,
                    ReaderTimer::new(config.stage_timing),
                )
            })
            .map_err(RunError::Output)?;
        let _ = feeders[d].set(h.thread().clone());
        queues.push(ToDispatcher {
            chunks: to,
            back,
            thread: h.thread().clone(),
        });
        dispatchers.push(h);
    }

    let mut timer = ReaderTimer::new(config.stage_timing);
    let read = read_chunks(
        source,
        batch_size,
        &mut queues,
        &finished,
        &opts.control,
        &mut progress,
        &mut timer,
    );
    reader_done.store(true, Ordering::SeqCst);
    for q in &queues {
        q.thread.unpark();
    }
    let mut waits = 0;
    let mut panicked = false;
    for h in dispatchers {
        match h.join() {
            Ok((w, t)) => {
                waits += w;
                timer.merge(&t);
            }
            Err(_) => panicked = true,
        }
    }
    // Every batch is in the workers' rings: let them drain and end.
    done.store(true, Ordering::SeqCst);
    for t in &threads {
        t.unpark();
    }
    let mut results = Vec::with_capacity(workers);
    for h in handles {
        match h.join() {
            Ok(r) => results.push(r),
            Err(_) => panicked = true,
        }
    }
    if panicked {
        return Err(RunError::Output(std::io::Error::other(
            "dispatcher or worker thread panicked",
        )));
    }
    let read = read?;
    if let (Some(r), Some(shared)) = (results.first_mut(), &shared) {
        shared.add_counters(&mut r.stats);
    }
    if let Some(r) = results.first_mut() {
        r.capture = source.stats();
        r.stats.add("osprey.dispatch.queue_full_waits", waits);
        timer.add_to(&mut r.stats);
    }
    Ok((results, read))
}

/// The reader: walks the capture into chunks and hands them to the dispatchers in
/// turn; releases the mapped capture's pages behind the workers.
fn read_chunks(
    source: &mut dyn Source,
    batch_size: usize,
    queues: &mut [ToDispatcher],
    finished: &[AtomicU64],
    control: &crate::control::Control,
    progress: &mut impl FnMut(Progress),
    timer: &mut ReaderTimer,
) -> Result<Progress, RunError> {
    let mut seen = Progress::default();
    let mut spare: Vec<Box<Chunk>> = Vec::new();
    // Source positions of the chunks sent and not finished by every worker, in order
    // (the first is chunk number `released`).
    let mut held: VecDeque<u64> = VecDeque::new();
    let mut released = 0u64;
    let mut seq = 0u64;
    let mut read = 0u64;
    source.release_by_caller();
    let mut at = source.position();
    let mut chunk: Box<Chunk> = Box::default();
    // The clock after the latest frame read.
    let (mut now, mut upto) = (Timestamp::default(), 0u64);
    let mut from = at;
    let result = loop {
        if control.is_stopped() {
            break Ok(());
        }
        // A chunk ends where the single reader would tick the workers' clocks.
        let room = TICK_FRAMES - read % TICK_FRAMES;
        let ask = batch_size.min(room as usize);
        if chunk.filled == chunk.batches.len() {
            chunk.batches.push(Batch::with_capacity(batch_size));
        }
        let batch = &mut chunk.batches[chunk.filled];
        let t = timer.start();
        let n = match source.next_batch(batch, ask) {
            Ok(0) => break Ok(()),
            Ok(n) => n,
            Err(e) => break Err(e),
        };
        timer.read(t);
        if let Some(last) = batch.get(n - 1) {
            (now, upto) = (last.ts, last.index);
        }
        seen.packets += n as u64;
        seen.bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
        chunk.filled += 1;
        read += n as u64;
        progress(seen);
        at = source.position();
        let flush = n < ask && source.may_wait();
        if read.is_multiple_of(TICK_FRAMES) || flush {
            chunk.flush = flush;
            let next = take(&mut spare, queues, read, now, upto);
            let full = std::mem::replace(&mut chunk, next);
            hand_out(queues, &mut spare, seq, full);
            held.push_back(from);
            seq += 1;
            from = at;
        }
        // Pages before the oldest chunk a worker still needs may go.
        let done_by_all = finished
            .iter()
            .map(|c| c.load(Ordering::Acquire))
            .min()
            .unwrap_or(seq);
        while released < done_by_all && !held.is_empty() {
            held.pop_front();
            released += 1;
        }
        source.release_before(held.front().copied().unwrap_or(from).min(at));
    };
    if let Err(e) = result {
        return Err(RunError::from(e));
    }
    chunk.flush = true;
    hand_out(queues, &mut spare, seq, chunk);
    Ok(seen)
}

/// An empty chunk starting after `read` frames at clock (`now`, `upto`).
#[allow(clippy::vec_box)] // spare chunks travel the rings boxed
fn take(
    spare: &mut Vec<Box<Chunk>>,
    queues: &mut [ToDispatcher],
    read: u64,
    now: Timestamp,
    upto: u64,
) -> Box<Chunk> {
    for q in queues.iter_mut() {
        while let Ok(c) = q.back.pop() {
            spare.push(c);
        }
    }
    let mut c = spare.pop().unwrap_or_default();
    c.filled = 0;
    c.first = read;
    c.now = now;
    c.upto = upto;
    c.flush = false;
    c
}

/// Sends chunk number `seq` to its dispatcher, waiting while its queue is full.
#[allow(clippy::vec_box)] // spare chunks travel the rings boxed
fn hand_out(queues: &mut [ToDispatcher], spare: &mut Vec<Box<Chunk>>, seq: u64, c: Box<Chunk>) {
    let n = queues.len() as u64;
    let q = &mut queues[(seq % n) as usize];
    let mut c = c;
    loop {
        match q.chunks.push(c) {
            Ok(()) => break,
            Err(rtrb::PushError::Full(back)) => {
                c = back;
                while let Ok(b) = q.back.pop() {
                    spare.push(b);
                }
                q.thread.unpark();
                thread::park_timeout(Duration::from_micros(200));
            }
        }
    }
    q.thread.unpark();
}

/// A dispatcher: hashes each frame of its chunks and hands the frames to the workers
/// as the single reader does. Returns the times it found a worker's ring full, and its
/// time dispatching (with stage timing).
fn dispatcher(
    mut chunks: rtrb::Consumer<Box<Chunk>>,
    mut give_back: rtrb::Producer<Box<Chunk>>,
    reader: Thread,
    reader_done: &AtomicBool,
    mut lanes: Vec<Lane>,
    batch_size: usize,
    mut timer: ReaderTimer,
) -> (u64, ReaderTimer) {
    let mut decoder = Decoder::new(DecoderConfig {
        verify_checksums: false,
        ..DecoderConfig::default()
    });
    let mut decoded = Decoded::new();
    loop {
        match chunks.pop() {
            Ok(c) => {
                let t = timer.start();
                let parked = t.map_or(0, |_| lanes.iter().map(|l| l.parked_ns).sum::<u64>());
                split(&c, &mut lanes, &mut decoder, &mut decoded, batch_size);
                if t.is_some() {
                    let now_parked = lanes.iter().map(|l| l.parked_ns).sum::<u64>();
                    timer.dispatch(t, now_parked - parked);
                }
                let _ = give_back.push(c);
                reader.unpark();
            }
            Err(_) => {
                if reader_done.load(Ordering::SeqCst) && chunks.is_empty() {
                    break;
                }
                thread::park_timeout(IDLE_PARK);
            }
        }
    }
    (lanes.iter().map(|l| l.waits).sum(), timer)
}

/// Hands the frames of `chunk` to the workers' lanes: a frame to the worker its
/// dispatch key hashes to, a worker's frames in batches of `batch_size`, every worker
/// told the time and to sweep every [`TICK_FRAMES`] frames; every worker's last batch
/// of the chunk is marked as such.
fn split(
    chunk: &Chunk,
    lanes: &mut [Lane],
    decoder: &mut Decoder,
    decoded: &mut Decoded,
    batch_size: usize,
) {
    let n = lanes.len() as u64;
    let total: usize = chunk.batches[..chunk.filled].iter().map(Batch::len).sum();
    let (mut now, mut upto) = (chunk.now, chunk.upto);
    let mut read = chunk.first;
    let mut seen = 0usize;
    let mut ended = false;
    for batch in &chunk.batches[..chunk.filled] {
        for (i, frame) in batch.iter().enumerate() {
            let h = dispatch_hash(decoder, decoded, frame.link, frame.data);
            let lane = &mut lanes[(h % n) as usize];
            lane.pending.frames.push_from(batch, i);
            now = frame.ts;
            if lane.pending.frames.len() >= batch_size {
                send_marked(lane, now, frame.index, false, false);
            }
            read += 1;
            seen += 1;
            upto = frame.index;
            if read.is_multiple_of(TICK_FRAMES) {
                let last = seen == total && !chunk.flush;
                for lane in lanes.iter_mut() {
                    send_marked(lane, now, upto, true, last);
                }
                ended = last;
            }
        }
    }
    if !ended {
        for lane in lanes.iter_mut() {
            send_marked(lane, now, upto, false, true);
        }
    }
}

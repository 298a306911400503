//! The parallel runtime: shared-nothing workers, each running a whole [`Pipeline`] on
//! its own flows (Kargus, MIDeA, Haetae).
//!
//! Offline (`-r`): the calling thread reads batches, decodes each frame's outer headers
//! just enough for a symmetric hash of its IP address pair ([`dispatch_hash`]), and
//! hands frames to workers in batches of up to 128 over lock-free single-producer
//! single-consumer rings. Frames of a flow keep their order. Hashing the address pair
//! (not the 5-tuple) keeps the fragments of a datagram, the datagram rebuilt from them
//! and the flow it belongs to on one worker. Each batch carries the capture's clock, so
//! a worker that sees few packets still times its flows out as a single pipeline would.
//!
//! Live (`-i`): every worker opens its own AF_PACKET ring in one `PACKET_FANOUT` hash
//! group, so the kernel does the dispatch and each worker reads (blocking) whole flows.

use crate::alerts::{Outputs, SharedAlerts};
use crate::config::EngineConfig;
use crate::control::Control;
use crate::merge::merge_into;
use crate::pipeline::Pipeline;
use crate::run::{add_capture_stats, RunError, RunReport};
use crate::timing::StageTimes;
use crate::Progress;
use capture::{Batch, CaptureStats, LinkType, Source, Timestamp};
use output::stats::StatsTree;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, Thread};
use std::time::{Duration, Instant};
use wire::{Decoded, Decoder, DecoderConfig};

/// Batches queued per worker before the reader waits (each of up to 128 frames).
const RING_BATCHES: usize = 256;
/// Every this many frames read, every worker is told the time and sweeps idle flows,
/// as one pipeline does after as many frames of its own.
const TICK_FRAMES: u64 = crate::pipeline::SWEEP_EVERY;
/// How long an idle worker sleeps before looking at its ring and the control block again.
const IDLE_PARK: Duration = Duration::from_millis(2);

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
}

impl RunOptions {
    /// The number of workers these options ask for.
    pub fn worker_count(&self) -> usize {
        match self.threads {
            0 => thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

/// The symmetric dispatch hash of a frame: both directions of a conversation (and all
/// fragments of a datagram) give the same value. Frames without an IP header hash to 0.
/// `decoder` and `decoded` are reused scratch space.
///
/// The address pair hashed is that of the outermost packet that gets a flow (TCP, UDP,
/// ICMP, SCTP, ESP) or is a fragment: for an IP-in-IP or GRE tunnel, which gets no flow
/// of its own, the tunnelled packet's, so that its flow meets the same flow seen outside
/// the tunnel; for a UDP tunnel (VXLAN, Teredo, ...), the outer flow's. An ICMPv4
/// destination-unreachable hashes the pair it quotes (see [`icmp4_quoted_pair`]).
///
/// The reader shares the cores with the workers, so the common case is read directly:
/// an Ethernet frame (VLAN tags skipped) carrying IPv4 or IPv6 that is not a tunnel
/// hashes the header's addresses without a full decode; any other frame is decoded,
/// giving the same value for the same addresses.
pub fn dispatch_hash(
    decoder: &mut Decoder,
    decoded: &mut Decoded,
    link: LinkType,
    data: &[u8],
) -> u64 {
    match ethernet_ip_pair(link, data) {
        Some(key) => key.hash(),
        None => decoded_dispatch_key(decoder, decoded, link, data).map_or(0, |k| k.hash()),
    }
}

/// The dispatch key of [`dispatch_hash`] from a full decode (`None` without IP).
fn decoded_dispatch_key(
    decoder: &mut Decoder,
    decoded: &mut Decoded,
    link: LinkType,
    data: &[u8],
) -> Option<flow::FlowKey> {
    decoder.decode(link, data, wire::Timestamp(0), data.len() as u32, decoded);
    let pkts = decoded.packets();
    let flowing = |p: &&wire::Packet| {
        p.has(wire::flags::FRAGMENT) || matches!(p.proto, 6 | 17 | 1 | 58 | 132 | 50)
    };
    let p = pkts
        .iter()
        .filter(|p| p.ip_version != 0)
        .find(flowing)
        .or_else(|| pkts.iter().find(|p| p.ip_version != 0))?;
    let quoted = (p.ip_version == 4)
        .then(|| data.get(p.l3_off as usize..).and_then(icmp4_quoted_pair))
        .flatten();
    let key = if let Some((a, b)) = quoted {
        flow::FlowKey::v4(a, 0, b, 0, 0)
    } else if p.ip_version == 4 {
        flow::FlowKey::v4(
            [p.src[0], p.src[1], p.src[2], p.src[3]],
            0,
            [p.dst[0], p.dst[1], p.dst[2], p.dst[3]],
            0,
            0,
        )
    } else {
        flow::FlowKey::v6(p.src, 0, p.dst, 0, 0)
    };
    // VLAN ids stay out of the dispatch hash: with `vlan.use-for-tracking: false` the
    // two directions of a flow may carry different tags and must meet in one worker.
    Some(key)
}

/// IP-in-IP (IPv4 or IPv6 inside) and GRE: tunnels that get no flow of their own.
fn is_tunnel(proto: u8) -> bool {
    matches!(proto, 4 | 41 | 47)
}

/// The address pair quoted by an unfragmented ICMPv4 destination-unreachable that
/// quotes a TCP or UDP packet, given the IPv4 packet: the pipeline puts such an error in
/// the quoted connection's flow (`flow::adapter::quoted_flow_key`), which lives with
/// that pair, not with the error's sender (often a router).
fn icmp4_quoted_pair(ip: &[u8]) -> Option<([u8; 4], [u8; 4])> {
    let ihl = (*ip.first()? as usize & 0x0f) * 4;
    let fragment = u16::from_be_bytes([*ip.get(6)?, *ip.get(7)?]) & 0x3fff != 0;
    if ihl < 20 || *ip.get(9)? != 1 || fragment {
        return None;
    }
    let icmp = ip.get(ihl..)?;
    if *icmp.first()? != 3 {
        return None;
    }
    let q = flow::adapter::icmp4_quoted(icmp.get(8..)?)?;
    Some((q.src, q.dst))
}

/// The outer address pair of an Ethernet frame carrying a well-formed IPv4 or IPv6
/// header, after up to two VLAN tags, as the dispatch key (ports, protocol and VLAN ids
/// left out as in [`dispatch_hash`]); `None` for anything else.
fn ethernet_ip_pair(link: LinkType, data: &[u8]) -> Option<flow::FlowKey> {
    if link != LinkType::ETHERNET {
        return None;
    }
    let mut off = 12;
    let mut ethertype = u16::from_be_bytes([*data.get(off)?, *data.get(off + 1)?]);
    for _ in 0..2 {
        if !matches!(ethertype, 0x8100 | 0x88a8 | 0x9100) {
            break;
        }
        off += 4;
        ethertype = u16::from_be_bytes([*data.get(off)?, *data.get(off + 1)?]);
    }
    let ip = data.get(off + 2..)?;
    match ethertype {
        0x0800 => {
            let h = ip.get(..20)?;
            if h[0] >> 4 != 4 || h[0] & 0x0f < 5 {
                return None;
            }
            let fragment = u16::from_be_bytes([h[6], h[7]]) & 0x3fff != 0;
            if !fragment && is_tunnel(h[9]) {
                return None;
            }
            if let Some((a, b)) = icmp4_quoted_pair(ip) {
                return Some(flow::FlowKey::v4(a, 0, b, 0, 0));
            }
            let a = |i: usize| [h[i], h[i + 1], h[i + 2], h[i + 3]];
            Some(flow::FlowKey::v4(a(12), 0, a(16), 0, 0))
        }
        0x86dd => {
            let h = ip.get(..40)?;
            if h[0] >> 4 != 6 {
                return None;
            }
            // Past hop-by-hop, routing and destination options headers (MLD messages
            // carry one): a tunnel takes the full decode.
            let (mut next, mut off) = (h[6], 40);
            for _ in 0..4 {
                if !matches!(next, 0 | 43 | 60) {
                    break;
                }
                let ext = ip.get(off..off + 2)?;
                next = ext[0];
                off += (ext[1] as usize + 1) * 8;
            }
            if is_tunnel(next) || matches!(next, 0 | 43 | 60) {
                return None;
            }
            let a = |i: usize| {
                let mut b = [0u8; 16];
                b.copy_from_slice(&h[i..i + 16]);
                b
            };
            Some(flow::FlowKey::v6(a(8), 0, a(24), 0, 0))
        }
        _ => None,
    }
}

/// Frames of capture batches for one worker, with the capture's clock. Frames of a
/// mapped file are not copied: the batch shares the mapping.
#[derive(Default)]
struct WorkBatch {
    frames: Batch,
    /// The capture's clock when the batch was sent: the time of the latest frame read.
    now: Timestamp,
    /// Index of the latest frame read when the batch was sent: the worker has every
    /// frame up to it that is its own once it has this batch.
    upto: u64,
    /// Look for idle flows after this batch.
    sweep: bool,
}

/// What a worker hands back when it ends.
pub(crate) struct WorkerResult {
    pub(crate) stats: StatsTree,
    pub(crate) times: Option<StageTimes>,
    pub(crate) capture: CaptureStats,
    pub(crate) error: Option<std::io::Error>,
}

/// A worker's per-batch look at the control block.
pub(crate) struct WorkerControl<'a> {
    k: usize,
    control: &'a Control,
    rules_generation: u64,
    stats_epoch: u64,
}

impl WorkerControl<'_> {
    pub(crate) fn new(k: usize, control: &Control) -> WorkerControl<'_> {
        WorkerControl {
            k,
            control,
            rules_generation: control.rules_generation(),
            stats_epoch: control.stats_epoch(),
        }
    }

    /// Picks up swapped rules and answers statistics requests.
    pub(crate) fn poll(&mut self, pipeline: &mut Pipeline) {
        let gen = self.control.rules_generation();
        if gen != self.rules_generation {
            self.rules_generation = gen;
            pipeline.set_detector(self.control.detector());
        }
        let epoch = self.control.stats_epoch();
        if epoch != self.stats_epoch {
            self.stats_epoch = epoch;
            self.control.publish(self.k, pipeline.stats());
        }
    }
}

/// Per-worker configuration: the table caps of `config` are for the whole engine and
/// are shared out between `workers` (at least one flow's worth each).
pub(crate) fn worker_config(config: &EngineConfig, workers: usize) -> EngineConfig {
    let mut c = config.clone();
    if workers > 1 {
        let n = workers;
        c.flow.max_flows = (c.flow.max_flows / n).max(1024);
        c.flow.hash_size = (c.flow.hash_size / n).max(1024);
        c.flow.reassembly_memcap = (c.flow.reassembly_memcap / n).max(1 << 20);
        c.flow.ssn_memcap = (c.flow.ssn_memcap / n).max(1 << 20);
    }
    c
}

pub(crate) fn pin(k: usize, workers: usize, enabled: bool) {
    if !enabled {
        return;
    }
    if let Some(cores) = core_affinity::get_core_ids() {
        if workers <= cores.len() {
            let _ = core_affinity::set_for_current(cores[k]);
        }
    }
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
    let outputs = Arc::new(Outputs::create(config.log_dir.as_deref()).map_err(RunError::Output)?);
    opts.control.set_workers(workers);
    let wconfig = worker_config(config, workers);
    let done = AtomicBool::new(false);
    let input_done = AtomicBool::new(false);
    let (results, read) = thread::scope(|s| {
        let stats_thread = spawn_periodic_stats(s, opts, &done);
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
            thread::Builder::new()
                .name("osprey-reader".into())
                .spawn_scoped(s, move || {
                    run_dispatch(s, source, input, outputs, workers, progress)
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

/// Runs live capture on `iface` with one AF_PACKET socket per worker in one
/// `PACKET_FANOUT` hash group, until `opts.control` is stopped.
#[cfg(target_os = "linux")]
pub fn run_live(
    iface: &str,
    live: &capture::LiveOptions,
    config: &EngineConfig,
    opts: &RunOptions,
) -> Result<RunReport, RunError> {
    let workers = opts.worker_count().max(1);
    let start = Instant::now();
    let mut live = live.clone();
    live.stop = opts.control.stop_flag();
    if live.fanout_group.is_none() {
        // Group ids are per network namespace and interface; derive one from the pid.
        live.fanout_group = Some((std::process::id() & 0xffff) as u16);
    }
    let mut sources = Vec::with_capacity(workers);
    for _ in 0..workers {
        sources.push(capture::open_live(iface, live.clone())?);
    }
    let outputs = Arc::new(Outputs::create(config.log_dir.as_deref()).map_err(RunError::Output)?);
    opts.control.set_workers(workers);
    let wconfig = worker_config(config, workers);
    let done = AtomicBool::new(false);
    let results = thread::scope(|s| {
        let stats_thread = spawn_periodic_stats(s, opts, &done);
        let handles: Vec<_> = sources
            .into_iter()
            .enumerate()
            .map(|(k, mut src)| {
                let outputs = outputs.clone();
                let wconfig = &wconfig;
                thread::Builder::new()
                    .name(format!("osprey-w{k}"))
                    .spawn_scoped(s, move || {
                        pin(k, workers, opts.pin_cores);
                        live_worker(k, src.as_mut(), wconfig, outputs, &opts.control)
                    })
            })
            .collect();
        join_workers(handles, &done, stats_thread)
    })?;
    let outputs = Arc::try_unwrap(outputs).ok();
    finish_report(results, Progress::default(), outputs, workers, start)
}

#[cfg(target_os = "linux")]
fn live_worker(
    k: usize,
    source: &mut dyn Source,
    config: &EngineConfig,
    outputs: Arc<Outputs>,
    control: &Control,
) -> Result<WorkerResult, RunError> {
    let mut pipeline = Pipeline::with_outputs(config, outputs);
    let mut ctl = WorkerControl::new(k, control);
    let mut batch = Batch::new();
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    loop {
        ctl.poll(&mut pipeline);
        match source.next_batch(&mut batch, batch_size) {
            Ok(0) => break,
            Ok(_) => pipeline.process_batch(&batch),
            Err(e) => {
                let _ = pipeline.finish();
                return Err(e.into());
            }
        }
    }
    let error = pipeline.finish().err();
    Ok(WorkerResult {
        stats: pipeline.stats(),
        times: pipeline.stage_times(),
        capture: source.stats(),
        error,
    })
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
struct Lane {
    /// Times the reader found this worker's ring full and waited.
    waits: u64,
    to_worker: rtrb::Producer<Box<WorkBatch>>,
    recycled: rtrb::Consumer<Box<WorkBatch>>,
    pending: Box<WorkBatch>,
    thread: Thread,
}

/// What the dispatching reader shares with its workers.
#[derive(Clone, Copy)]
struct Input<'env> {
    config: &'env EngineConfig,
    opts: &'env RunOptions,
    /// Raised when the reader sent its last batch.
    done: &'env AtomicBool,
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
    for k in 0..workers {
        let shared = shared.clone();
        let (to_worker, from_reader) = rtrb::RingBuffer::<Box<WorkBatch>>::new(RING_BATCHES);
        let (recycle, recycled) = rtrb::RingBuffer::<Box<WorkBatch>>::new(RING_BATCHES + 2);
        let outputs = outputs.clone();
        let reader = reader.clone();
        let control = &opts.control;
        let h = thread::Builder::new()
            .name(format!("osprey-w{k}"))
            .spawn_scoped(s, move || {
                pin(k, workers, opts.pin_cores);
                ring_worker(
                    k,
                    from_reader,
                    recycle,
                    reader,
                    done,
                    config,
                    outputs,
                    control,
                    shared,
                )
            })
            .map_err(RunError::Output)?;
        lanes.push(Lane {
            waits: 0,
            to_worker,
            recycled,
            pending: Box::default(),
            thread: h.thread().clone(),
        });
        handles.push(h);
    }

    let read = read_and_dispatch(
        source,
        config,
        &mut lanes,
        &opts.control,
        opts.pin_cores,
        &mut progress,
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
) -> Result<Progress, RunError> {
    let n = lanes.len() as u64;
    let mut decoder = Decoder::new(DecoderConfig {
        verify_checksums: false,
        ..DecoderConfig::default()
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
    while !control.is_stopped() && source.next_batch(&mut batch, batch_size)? > 0 {
        for (i, frame) in batch.iter().enumerate() {
            let h = dispatch_hash(&mut decoder, &mut decoded, frame.link, frame.data);
            let lane = &mut lanes[(h % n) as usize];
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
        seen.packets += batch.len() as u64;
        seen.bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
        progress(seen);
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

/// Hands `lane`'s pending frames (possibly none: a clock tick) to its worker, waiting
/// while its ring is full (offline input is never dropped).
fn send(lane: &mut Lane, now: Timestamp, upto: u64, sweep: bool) {
    let fresh = lane.recycled.pop().unwrap_or_default();
    let mut b = std::mem::replace(&mut lane.pending, fresh);
    b.now = now;
    b.upto = upto;
    b.sweep = sweep;
    loop {
        match lane.to_worker.push(b) {
            Ok(()) => break,
            Err(rtrb::PushError::Full(back)) => {
                b = back;
                lane.waits += 1;
                lane.thread.unpark();
                thread::park_timeout(Duration::from_micros(200));
            }
        }
    }
    lane.thread.unpark();
}

#[allow(clippy::too_many_arguments)]
fn ring_worker(
    k: usize,
    mut from_reader: rtrb::Consumer<Box<WorkBatch>>,
    mut recycle: rtrb::Producer<Box<WorkBatch>>,
    reader: Thread,
    done: &AtomicBool,
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
    loop {
        ctl.poll(&mut pipeline);
        match from_reader.pop() {
            Ok(mut b) => {
                pipeline.process_batch(&b.frames);
                pipeline.advance_time(b.now, b.sweep.then_some(b.upto));
                if let Some(shared) = &shared {
                    // Nothing this worker raises from now on comes before the sweep
                    // after frame `upto` (or, after one, before the next frame).
                    let mark = (b.upto.saturating_mul(2) + 1).saturating_add(u64::from(b.sweep));
                    shared.submit(k, pipeline.held_alerts(), mark);
                }
                b.frames.clear();
                let _ = recycle.push(b);
                reader.unpark();
            }
            Err(_) => {
                if done.load(Ordering::SeqCst) && from_reader.is_empty() {
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
    WorkerResult {
        stats: pipeline.stats(),
        times: pipeline.stage_times(),
        capture: CaptureStats::default(),
        error,
    }
}

/// Joins live workers (spawned or not) and collects their reports; then stops the
/// periodic stats thread. The last error wins; a panicked worker is an error.
pub(crate) fn join_workers<R>(
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

/// Writes the merged worker counters to a file every interval.
pub(crate) fn spawn_periodic_stats<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    opts: &'env RunOptions,
    done: &'env AtomicBool,
) -> Option<thread::ScopedJoinHandle<'scope, ()>> {
    let (interval, path) = opts.periodic_stats.clone()?;
    let interval = interval.max(Duration::from_millis(10));
    thread::Builder::new()
        .name("osprey-stats".into())
        .spawn_scoped(s, move || {
            let mut next = Instant::now() + interval;
            while !done.load(Ordering::SeqCst) {
                let now = Instant::now();
                if now < next {
                    thread::park_timeout(next - now);
                    continue;
                }
                next = now + interval;
                opts.control.request_stats();
                // Workers answer at their next batch (or poll timeout).
                thread::park_timeout(Duration::from_millis(200).min(interval));
                let stats = opts.control.merged_snapshot();
                let tmp = path.with_extension("json.tmp");
                if stats.write_file(&tmp).is_ok() {
                    let _ = std::fs::rename(&tmp, &path);
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
    for r in results {
        merge_into(&mut stats, &r.stats);
        capture.merge(&r.capture);
        if let Some(t) = r.times {
            times.get_or_insert_with(StageTimes::default).add(&t);
        }
        error = error.or(r.error);
    }
    if let Some(o) = outputs {
        if let Err(e) = o.finish() {
            error = error.or(Some(e));
        }
    }
    if let Some(e) = error {
        return Err(RunError::Output(e));
    }
    add_capture_stats(&mut stats, &capture);
    stats.add("osprey.threads", workers as u64);
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
    Ok(RunReport {
        stats,
        capture,
        elapsed: start.elapsed(),
        stage_times: times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ICMPv4 port-unreachable from a router (192.0.2.1) about a UDP packet from
    /// 10.0.0.1 to 10.0.0.2 goes with the pair it quotes, read directly or decoded.
    #[test]
    fn icmp_errors_go_with_the_connection_they_quote() {
        let ipv4 = |proto: u8, src: [u8; 4], dst: [u8; 4], payload: &[u8]| {
            let mut h = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, proto, 0, 0];
            h.extend_from_slice(&src);
            h.extend_from_slice(&dst);
            let len = (h.len() + payload.len()) as u16;
            h[2..4].copy_from_slice(&len.to_be_bytes());
            h.extend_from_slice(payload);
            h
        };
        let udp = [0x30, 0x39, 0, 53, 0, 8, 0, 0];
        let quoted = ipv4(17, [10, 0, 0, 1], [10, 0, 0, 2], &udp);
        let mut icmp = vec![3, 3, 0, 0, 0, 0, 0, 0];
        icmp.extend_from_slice(&quoted);
        let mut frame = vec![0u8; 12];
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&ipv4(1, [192, 0, 2, 1], [10, 0, 0, 1], &icmp));
        let want = flow::FlowKey::v4([10, 0, 0, 1], 0, [10, 0, 0, 2], 0, 0).hash();
        let key = ethernet_ip_pair(LinkType::ETHERNET, &frame).expect("read directly");
        assert_eq!(key.hash(), want);
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let key = decoded_dispatch_key(&mut decoder, &mut decoded, LinkType::ETHERNET, &frame);
        assert_eq!(key.map(|k| k.hash()), Some(want));
        // An echo request from the router stays with the router's pair.
        let mut echo = frame.clone();
        echo[14 + 20] = 8;
        let key = ethernet_ip_pair(LinkType::ETHERNET, &echo).expect("read directly");
        assert_eq!(
            key.hash(),
            flow::FlowKey::v4([192, 0, 2, 1], 0, [10, 0, 0, 1], 0, 0).hash()
        );
    }

    /// The frames of sv-ether.pcap, or `None` (skipped) without the shared data.
    fn sv_ether() -> Option<Box<dyn Source>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/pcaps/sv-ether.pcap");
        if !path.exists() {
            if std::env::var_os("OSPREY_REQUIRE_DATA").is_some_and(|v| v == "1") {
                panic!("OSPREY_REQUIRE_DATA=1 but {} is missing", path.display());
            }
            eprintln!("skipped: {} not found", path.display());
            return None;
        }
        Some(capture::open(&path).expect("pcap opens"))
    }

    /// The direct read of Ethernet/IP frames gives the full decode's key on every frame
    /// of sv-ether.pcap it reads (VLAN, IPv4, IPv6, fragments, ICMP errors, broken
    /// headers), and reads nine frames in ten.
    #[test]
    fn direct_dispatch_hash_equals_the_decoded_one() {
        let Some(mut src) = sv_ether() else {
            return;
        };
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let mut batch = Batch::new();
        let (mut direct, mut frames) = (0, 0);
        while src.next_batch(&mut batch, 128).expect("reads") > 0 {
            for f in batch.iter() {
                frames += 1;
                let Some(fast) = ethernet_ip_pair(f.link, f.data) else {
                    continue;
                };
                direct += 1;
                match decoded_dispatch_key(&mut decoder, &mut decoded, f.link, f.data) {
                    Some(key) => assert_eq!(fast.hash(), key.hash(), "frame {}", f.index),
                    None => continue, // broken IP header: any worker will do
                }
            }
        }
        assert!(
            direct * 10 > frames * 9,
            "{direct} of {frames} frames read directly"
        );
    }

    /// Frames that the pipeline puts in one flow go to one worker though their outer
    /// addresses differ: sv-ether.pcap's TCP 10.1.0.1:80 -> 10.1.0.2:80 carried bare
    /// (frame 2132) and inside IPv6 (4in6, frame 2133).
    #[test]
    fn tunnelled_packets_go_with_their_flow() {
        let Some(mut src) = sv_ether() else {
            return;
        };
        let mut decoder = Decoder::new(DecoderConfig::default());
        let mut decoded = Decoded::new();
        let mut batch = Batch::new();
        let mut hashes = std::collections::HashMap::new();
        while src.next_batch(&mut batch, 128).expect("reads") > 0 {
            for f in batch.iter() {
                if matches!(f.index, 2132 | 2133) {
                    let h = dispatch_hash(&mut decoder, &mut decoded, f.link, f.data);
                    hashes.insert(f.index, h);
                }
            }
        }
        assert_eq!(hashes.len(), 2);
        assert_eq!(hashes[&2132], hashes[&2133]);
        let pair = |a: [u8; 4], b: [u8; 4]| flow::FlowKey::v4(a, 0, b, 0, 0).hash();
        assert_eq!(hashes[&2132], pair([10, 1, 0, 1], [10, 1, 0, 2]));
    }
}

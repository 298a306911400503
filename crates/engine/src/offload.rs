//! GPU offload of the packet-payload prefilter (Kargus §4.5 and §5, MIDeA §3.2.1).
//!
//! Per worker and per RX batch (one cycle): the [`Balancer`] decides from the workload
//! queue whether this cycle's multi-pattern matching runs on the CPU or the GPU. On a GPU
//! cycle the pipeline's decode stage decodes the whole batch first ([`begin_cycle`]); the
//! worker takes the payloads of those decoded packets (no decode of its own) and pushes
//! every one of at least the size threshold, with its offload group id, into the GPU's
//! [`BatchPrefilter`] ([`GpuPrefilter`]: one batch buffer, handed to the dispatcher thread
//! when full or at the end of the batch). Then the frames go through the later stages as
//! usual; where detection meets a payload that was matched on the GPU (the very same bytes
//! of the same frame) it takes the GPU's pattern ids instead of scanning
//! ([`detect::OffloadPlan::inspect`]), and finishes option evaluation on the CPU. Payloads
//! below the threshold, reassembled datagrams, stream chunks and app-layer buffers are
//! matched on the CPU.
//!
//! **The workload queue.** The pipeline runs each batch to completion, so the queue of
//! Kargus §5.2 is kept as a count: each cycle the RX batch is enqueued, the balancer picks
//! the mode from the length, and the mode's dequeue size (X on the CPU, Y on the GPU) is
//! taken off. The queue therefore grows exactly when RX batches average more than the CPU's
//! X packets per cycle — Kargus's signal that the CPU alone cannot keep up — and drains
//! on the GPU. [`GpuPolicy::Always`] offloads every cycle (testing, measurements).
//!
//! **Regex DFAs (Kargus §4.5).** In the same flush, once the buffer's matches are back, the
//! worker sends the same buffer again with one regex-DFA job per (payload, DFA) that the
//! patterns found in the payload call for ([`detect::OffloadPlan::pattern_dfas`]): the
//! `pcre` options of the candidate signatures whose regex has a DFA. Detection takes each
//! job's outcome for that payload ([`detect::OffloadPlan::inspect_with_pcre`]): a DFA miss
//! decides the `pcre` without running PCRE2.
//!
//! **The worker does not wait for its batch while it has other packets.** The batch is
//! handed to the dispatcher thread ([`gpu::AcOffload::submit`]), which merges it with the
//! other workers' batches into one device batch; the worker goes on with the frames of its
//! RX batch and takes the results only when it reaches the first packet whose payload is
//! in the batch ([`OffloadStage::enter`]): the packets before it (handshakes, acks,
//! payloads below the size threshold) are processed while the batch is away, and every
//! packet is still inspected in capture order, so each flow's results complete in order.
//! `osprey.gpu.overlap_packets` counts the packets processed while a batch was away,
//! `osprey.gpu.result_waits`/`result_wait_us` the times the worker had to wait and how
//! long, `osprey.gpu.results_ready` the batches already back when needed.
//!
//! `--gpu cpu-sim` runs all of this with the `gpu` crate's CPU executor behind the
//! dispatcher thread instead of a device.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use crate::detection::DetectStage;
use capture::Frame;
use detect::{
    Alert, BatchMatches, BatchPrefilter, Detector, FlowDetect, Input, OffloadPlan, Scratch,
};
use gpu::balance::{BalanceConfig, Balancer};
use gpu::cost::{CostConfig, CostModel};
use gpu::{AcMatch, AcOffload, DfaJob, GpuConfig, PendingScan, PushError, NO_MATCH};

pub use crate::offload_setup::GpuOffload;
use crate::offload_setup::Ready;
use wire::Decoded;

/// How each cycle's CPU-or-GPU choice is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuPolicy {
    /// Kargus §5.2: the α/β/γ workload-queue thresholds.
    Kargus,
    /// Every cycle on the GPU (payloads below the size threshold still stay on the CPU).
    Always,
    /// Kargus §5: the queue thresholds, and of the cycles they give to the GPU only those
    /// where the worker's measured cost per packet says the GPU pays
    /// ([`gpu::cost::CostModel`]; "CPU only" when it does not).
    #[default]
    Measured,
}

/// Settings of GPU offload.
#[derive(Clone, Copy, Debug)]
pub struct GpuSettings {
    /// Size threshold, queue thresholds and dequeue sizes.
    pub balance: BalanceConfig,
    /// How cycles are assigned.
    pub policy: GpuPolicy,
    /// Kernel layout, report slots, staging sizes.
    pub device: GpuConfig,
    /// Memory cap for the AC-Full tables of the offload groups (bytes; 0: `mpm`'s default).
    pub table_memory: usize,
    /// What a worker does at a packet whose batch is not back yet.
    pub late: LateResults,
}

/// What a worker does when it reaches a packet whose payload is in a batch the
/// dispatcher has not answered yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LateResults {
    /// Wait for the batch (the packets before it went on meanwhile).
    #[default]
    Wait,
    /// Never wait: match that payload on the CPU (the same matches) and use the batch's
    /// results from the first packet reached after they are back. A batch whose cycle
    /// ends before it is back is collected later, its results unused. The worker never
    /// stalls on the device; how much the device took off the CPU is measured, and the
    /// cost model keeps the CPU only when that does not pay.
    Cpu,
}

impl Default for GpuSettings {
    /// The device's kernel is the packet-per-block one (a warp per payload): a cycle hands
    /// the GPU at most one RX batch of payloads (tens of packets, the H100 run's GPU
    /// cycles averaged 37), too few threads to hide memory latency, so the kernel's time
    /// is the longest chain of dependent table lookups one thread walks. One thread per
    /// packet walks the whole payload (1,514 lookups, each a DRAM miss of ~0.6 us on an
    /// H100: ~1 ms a batch); a warp per packet walks a 32nd of it plus the longest
    /// pattern's overlap.
    fn default() -> GpuSettings {
        GpuSettings {
            balance: BalanceConfig::default(),
            policy: GpuPolicy::default(),
            device: GpuConfig {
                layout: gpu::cpu::AcLayout::BLOCK_WARP,
                ..GpuConfig::default()
            },
            table_memory: 0,
            late: LateResults::default(),
        }
    }
}

/// The GPU's [`BatchPrefilter`]: payloads go into the worker's batch buffer with their
/// offload group ids; [`GpuPrefilter::submit`] hands the buffer to the dispatcher thread
/// without waiting, [`GpuPrefilter::complete`] takes the matches, then sends the same
/// buffer again with the regex-DFA jobs the patterns found call for (a flush is both).
pub(crate) struct GpuPrefilter {
    // `worker` (a sender to the dispatcher thread) is dropped before `shared`: dropping the
    // last `Ready` joins that thread, which ends once every sender is gone.
    worker: AcOffload,
    shared: Arc<Ready>,
    batch: Option<gpu::Batch>,
    /// The caller's item numbers of the payloads in `batch`.
    pending: Vec<u32>,
    /// Batches with the dispatcher, oldest first, with their items.
    inflight: VecDeque<(PendingScan, Vec<u32>)>,
    /// Batches back from the dispatcher, emptied, for the next submissions.
    spare: Vec<gpu::Batch>,
    /// Batches of ended cycles still with the dispatcher: their buffers are taken back
    /// once answered, their results unused.
    abandoned: Vec<PendingScan>,
    matches: Vec<AcMatch>,
    jobs: Vec<DfaJob>,
    ends: Vec<u32>,
    counters: GpuCounters,
}

#[derive(Default)]
struct GpuCounters {
    packets: u64,
    bytes: u64,
    batches: u64,
    matches: u64,
    overflowed: u64,
    errors: u64,
    dfa_jobs: u64,
    dfa_matches: u64,
    abandoned: u64,
}

impl GpuPrefilter {
    fn new(shared: Arc<Ready>) -> GpuPrefilter {
        let worker = shared.offload.worker();
        GpuPrefilter {
            // A staged buffer of the dispatcher's pool: payloads are written straight into
            // the memory the device copies from.
            batch: Some(worker.new_batch()),
            worker,
            pending: Vec::new(),
            inflight: VecDeque::new(),
            spare: Vec::new(),
            abandoned: Vec::new(),
            matches: Vec::new(),
            jobs: Vec::new(),
            ends: Vec::new(),
            counters: GpuCounters::default(),
            shared,
        }
    }

    /// The regex-DFA jobs the patterns found call for, per packet and sorted by DFA
    /// (matches come sorted by packet index).
    fn dfa_jobs(&mut self, batch: &gpu::Batch) {
        self.jobs.clear();
        if !self.shared.offload.has_dfas() {
            return;
        }
        let plan = &self.shared.plan;
        let mut m = 0;
        while m < self.matches.len() {
            let packet = self.matches[m].packet;
            let from = self.jobs.len();
            while m < self.matches.len() && self.matches[m].packet == packet {
                let called =
                    plan.pattern_dfas(batch.group(packet as usize), self.matches[m].pattern);
                self.jobs
                    .extend(called.iter().map(|&dfa| DfaJob { packet, dfa }));
                m += 1;
            }
            self.jobs[from..].sort_unstable_by_key(|j| j.dfa);
            dedup_tail(&mut self.jobs, from);
        }
    }

    /// Hands the results of the pending items to `out` (DFA outcomes when `dfas`).
    fn record(&mut self, out: &mut BatchMatches, dfas: bool) {
        let (mut m, mut j) = (0, 0);
        for (i, &item) in self.pending.iter().enumerate() {
            out.begin(item);
            while m < self.matches.len() && self.matches[m].packet as usize == i {
                out.push_pattern(self.matches[m].pattern);
                m += 1;
            }
            while dfas && j < self.jobs.len() && self.jobs[j].packet as usize == i {
                let hit = self.ends[j] != NO_MATCH;
                self.counters.dfa_matches += u64::from(hit);
                out.push_dfa(self.jobs[j].dfa, hit);
                j += 1;
            }
        }
        self.pending.clear();
    }
}

impl BatchPrefilter for GpuPrefilter {
    fn push(&mut self, item: u32, group: u32, payload: &[u8], _out: &mut BatchMatches) -> bool {
        let batch = self.batch.as_mut().expect("batch is home between scans");
        match batch.push(group, payload) {
            Ok(_) => {}
            Err(PushError::TooLarge) => return false,
            Err(PushError::Full) => {
                // The full buffer goes to the dispatcher; its results are taken with the
                // others' at the next flush or completion, in order.
                self.submit();
                let batch = self.batch.as_mut().expect("batch is home");
                if batch.push(group, payload).is_err() {
                    return false;
                }
            }
        }
        self.pending.push(item);
        true
    }

    fn flush(&mut self, out: &mut BatchMatches) {
        self.submit();
        self.complete(out);
    }
}

impl GpuPrefilter {
    /// Hands the batch filled so far to the dispatcher thread and returns at once.
    fn submit(&mut self) {
        self.reap();
        let Some(batch) = self.batch.take() else {
            return;
        };
        if batch.is_empty() {
            self.batch = Some(batch);
            return;
        }
        self.counters.batches += 1;
        self.counters.packets += batch.len() as u64;
        self.counters.bytes += batch.bytes().len() as u64;
        let scan = self.worker.submit(batch);
        self.inflight
            .push_back((scan, std::mem::take(&mut self.pending)));
        self.batch = Some(self.spare.pop().unwrap_or_else(|| self.worker.new_batch()));
    }

    /// Leaves the submitted batches to the dispatcher without waiting: their results are
    /// not wanted any more (the cycle ended); their buffers come back through
    /// [`GpuPrefilter::reap`].
    fn abandon(&mut self) {
        self.counters.abandoned += self.inflight.len() as u64;
        self.abandoned
            .extend(self.inflight.drain(..).map(|(scan, _)| scan));
        self.pending.clear();
    }

    /// Takes back the buffers of abandoned batches that are answered (never waits).
    fn reap(&mut self) {
        let mut i = 0;
        while i < self.abandoned.len() {
            if self.abandoned[i].is_done() {
                let scan = self.abandoned.swap_remove(i);
                let mut scratch = Vec::new();
                if let Ok((mut b, _)) = self.worker.complete(scan, &mut scratch) {
                    b.clear();
                    self.spare.push(b);
                }
            } else {
                i += 1;
            }
        }
    }

    /// True when every submitted batch is back (never waits).
    fn is_done(&mut self) -> bool {
        self.inflight.iter_mut().all(|(scan, _)| scan.is_done())
    }

    /// True while a submitted batch has not been completed.
    fn in_flight(&self) -> bool {
        !self.inflight.is_empty()
    }

    /// Takes the results of every submitted batch (waiting for those not back yet) and
    /// hands them to `out`.
    fn complete(&mut self, out: &mut BatchMatches) {
        while let Some((scan, items)) = self.inflight.pop_front() {
            self.pending = items;
            self.complete_one(scan, out);
        }
    }

    fn complete_one(&mut self, scan: PendingScan, out: &mut BatchMatches) {
        self.matches.clear();
        let (batch, stats) = match self.worker.complete(scan, &mut self.matches) {
            Ok(r) => r,
            Err(_) => {
                // The dispatcher is gone (device error): these payloads are matched on
                // the CPU; later cycles try again with a fresh buffer.
                self.counters.errors += 1;
                self.pending.clear();
                return;
            }
        };
        self.counters.overflowed += stats.overflowed;
        self.counters.matches += self.matches.len() as u64;
        self.dfa_jobs(&batch);
        let mut home = Some(batch);
        let mut dfas = false;
        if !self.jobs.is_empty() {
            let jobs = std::mem::take(&mut self.jobs);
            let batch = home.take().expect("batch is here");
            match self.worker.run_dfa(batch, jobs, &mut self.ends) {
                Ok((b, jobs)) => {
                    home = Some(b);
                    self.jobs = jobs;
                    self.counters.dfa_jobs += self.jobs.len() as u64;
                    dfas = true;
                }
                // The regexes of these payloads run on the CPU (PCRE2); the pattern
                // matches stand.
                Err(_) => self.counters.errors += 1,
            }
        }
        self.record(out, dfas);
        if let Some(mut b) = home {
            b.clear();
            self.spare.push(b);
        }
    }
}

/// Where one offloaded payload lies: frame and packet of the batch, and the address and
/// length of the payload slice in the frame (identity check).
#[derive(Clone, Copy)]
struct Location {
    frame: u32,
    packet: u32,
    addr: usize,
    len: usize,
}

/// The GPU's answer for the payload being inspected, handed to the detection stage.
pub(crate) struct PreMatched<'a> {
    pub(crate) plan: PlanView<'a>,
    pub(crate) patterns: &'a [u32],
}

/// The offload plan with the regex-DFA outcomes of the payload being inspected.
pub(crate) struct PlanView<'a> {
    plan: &'a OffloadPlan,
    dfas: &'a [(u32, bool)],
    skipped: &'a Cell<u64>,
}

impl PlanView<'_> {
    /// [`OffloadPlan::inspect_with_pcre`] with this payload's outcomes.
    pub(crate) fn inspect(
        &self,
        scratch: &mut Scratch,
        flow: Option<&mut FlowDetect>,
        input: &Input<'_>,
        patterns: &[u32],
        alerts: &mut Vec<Alert>,
    ) {
        let n = self
            .plan
            .inspect_with_pcre(scratch, flow, input, patterns, self.dfas, alerts);
        self.skipped.set(self.skipped.get() + n);
    }
}

/// Per-worker offload state.
pub(crate) struct OffloadStage {
    handle: Arc<GpuOffload>,
    cost: CostModel,
    /// The running cycle, when the cost model chose its mode: its start, whether on the
    /// GPU, its packets.
    last: Option<(Instant, bool, usize)>,
    /// The cost model chose the running cycle's mode.
    consulted: bool,
    /// Set once the background set-up is ready.
    prefilter: Option<GpuPrefilter>,
    balancer: Balancer,
    queue: usize,
    /// Where each payload pushed this cycle lies (index: its item number).
    located: Vec<Location>,
    /// What the prefilter found, per item.
    results: BatchMatches,
    cursor: usize,
    /// Index in `results.items()` of the packet being processed now.
    current: Option<usize>,
    /// This cycle's batch is with the dispatcher: its results are taken at the first
    /// packet that needs them.
    awaiting: bool,
    counters: Counters,
}

#[derive(Default)]
struct Counters {
    cycles_cpu: u64,
    cycles_gpu: u64,
    small: u64,
    used: u64,
    stale: u64,
    setup_pending: u64,
    pcre_skipped: Cell<u64>,
    /// Packets processed while this worker's batch was with the dispatcher.
    overlap_packets: u64,
    /// Times the worker reached a packet whose results were not back, and waited.
    result_waits: u64,
    /// Microseconds spent in those waits.
    result_wait_us: u64,
    /// Batches whose results were back when the first packet needed them.
    results_ready: u64,
    /// Offloaded payloads matched on the CPU because their batch was not back
    /// ([`LateResults::Cpu`]).
    late_on_cpu: u64,
    /// Cycles kept on the CPU because [`MAX_ABANDONED`] batches were still unanswered.
    backlog: u64,
}

/// Unanswered batches of ended cycles a worker leaves with the dispatcher at most
/// ([`LateResults::Cpu`]); beyond, its cycles stay on the CPU until they come back.
const MAX_ABANDONED: usize = 4;

impl OffloadStage {
    pub(crate) fn new(shared: Arc<GpuOffload>) -> OffloadStage {
        OffloadStage {
            balancer: Balancer::new(shared.settings().balance),
            prefilter: None,
            cost: CostModel::new(CostConfig::default()),
            last: None,
            consulted: false,
            handle: shared,
            queue: 0,
            located: Vec::new(),
            results: BatchMatches::default(),
            cursor: 0,
            current: None,
            awaiting: false,
            counters: Counters::default(),
        }
    }

    /// Starts a cycle of `count` frames (one RX batch): decides CPU or GPU. True for a
    /// GPU cycle: [`OffloadStage::match_batch`] is to be given the decoded batch.
    /// `detector` is the pipeline's current detector: after a rule reload the offload
    /// (built for the old rules) is not used.
    pub(crate) fn begin(&mut self, count: usize, detector: Option<&Arc<Detector>>) -> bool {
        // The cycle that ends here: its wall time per packet, for the cost model. Only
        // the cycles the model chose for count: they are the ones the queue gave to the
        // GPU (long queues, full batches), so the two modes' figures compare like with
        // like; a short cycle the queue kept on the CPU costs more per packet and would
        // make the GPU look cheaper than it is.
        let now = Instant::now();
        if let Some((start, gpu, n)) = self.last.take() {
            let nanos = now.duration_since(start).as_nanos().min(u64::MAX as u128) as u64;
            self.cost.record(gpu, nanos, n);
        }
        self.consulted = false;
        let gpu = self.decide(count, detector);
        if self.consulted {
            self.last = Some((now, gpu, count));
        }
        gpu
    }

    fn decide(&mut self, count: usize, detector: Option<&Arc<Detector>>) -> bool {
        // A batch of the last cycle no packet took the results of: waited for, or left
        // to the dispatcher when late results go to the CPU.
        if self.awaiting && self.handle.settings().late == LateResults::Cpu {
            self.awaiting = false;
            if let Some(p) = self.prefilter.as_mut() {
                p.abandon();
            }
        }
        self.settle();
        self.located.clear();
        self.results.clear();
        self.cursor = 0;
        self.current = None;
        let cfg = *self.balancer.config();
        self.queue = (self.queue + count).min(cfg.capacity);
        let d = self.balancer.decide(self.queue, true);
        self.queue -= d.take;
        let policy = self.handle.settings().policy;
        let gpu = match policy {
            GpuPolicy::Kargus | GpuPolicy::Measured => d.mode.is_gpu(),
            GpuPolicy::Always => true,
        };
        if !gpu {
            self.counters.cycles_cpu += 1;
            return false;
        }
        if self.prefilter.is_none() {
            match self.handle.ready() {
                Some(r) => self.prefilter = Some(GpuPrefilter::new(r.clone())),
                None => {
                    // Still setting up (or failed): this cycle runs on the CPU.
                    self.counters.setup_pending += 1;
                    self.counters.cycles_cpu += 1;
                    return false;
                }
            }
        }
        if !detector.is_some_and(|d| Arc::ptr_eq(d, self.handle.detector())) {
            self.counters.stale += 1;
            return false;
        }
        if let Some(p) = self.prefilter.as_mut() {
            // A device slower than the worker leaves batches unanswered: past a few, the
            // worker stays on the CPU until they are back (memory stays bounded).
            p.reap();
            if p.abandoned.len() >= MAX_ABANDONED {
                self.counters.backlog += 1;
                self.counters.cycles_cpu += 1;
                return false;
            }
        }
        if policy == GpuPolicy::Measured {
            self.consulted = true;
        }
        if policy == GpuPolicy::Measured && !self.cost.choose().is_gpu() {
            self.counters.cycles_cpu += 1;
            return false;
        }
        self.counters.cycles_gpu += 1;
        true
    }

    /// On a GPU cycle: matches the payloads of `frames`, decoded by the decode stage into
    /// `decoded` (one [`Decoded`] per frame, in order).
    pub(crate) fn match_batch<'f>(
        &mut self,
        frames: impl Iterator<Item = Frame<'f>>,
        decoded: &[Decoded],
    ) {
        let Some(prefilter) = self.prefilter.as_mut() else {
            return;
        };
        let shared = prefilter.shared.clone();
        let plan = &shared.plan;
        for (fi, (frame, d)) in frames.zip(decoded).enumerate() {
            for (pi, p) in d.packets().iter().enumerate() {
                if p.ip_version == 0 {
                    continue;
                }
                let payload = p.payload(frame.data);
                if payload.is_empty() {
                    continue;
                }
                if !self.balancer.offloadable(payload.len()) {
                    self.counters.small += 1;
                    continue;
                }
                let Some(group) = plan.group_of(p.proto) else {
                    continue;
                };
                let item = self.located.len() as u32;
                if prefilter.push(item, group, payload, &mut self.results) {
                    self.located.push(Location {
                        frame: fi as u32,
                        packet: pi as u32,
                        addr: payload.as_ptr() as usize,
                        len: payload.len(),
                    });
                }
            }
        }
        // Hand the batch over and go on: the results are taken at the first packet
        // that needs them (`enter`).
        prefilter.submit();
        self.awaiting = prefilter.in_flight();
    }

    /// Takes the results of this cycle's batch, waiting when they are not back.
    fn settle(&mut self) {
        if !std::mem::take(&mut self.awaiting) {
            return;
        }
        let Some(prefilter) = self.prefilter.as_mut() else {
            return;
        };
        if prefilter.is_done() {
            self.counters.results_ready += 1;
            prefilter.complete(&mut self.results);
        } else {
            let t = Instant::now();
            prefilter.complete(&mut self.results);
            self.counters.result_waits += 1;
            self.counters.result_wait_us += t.elapsed().as_micros().min(u64::MAX as u128) as u64;
        }
    }

    /// The pipeline is about to process packet `packet` of frame `frame` of the batch.
    pub(crate) fn enter(&mut self, frame: usize, packet: usize) {
        self.current = None;
        if self.awaiting {
            // The payloads were pushed in capture order: the first is where results are
            // first needed.
            let first = self
                .located
                .first()
                .map(|l| (l.frame as usize, l.packet as usize));
            if first.is_some_and(|at| at <= (frame, packet)) {
                let late = self.handle.settings().late == LateResults::Cpu
                    && !self.prefilter.as_mut().is_some_and(|p| p.is_done());
                if late {
                    // Not back: this packet is matched on the CPU if its payload is in
                    // the batch.
                    if self.located_at(frame, packet) {
                        self.counters.late_on_cpu += 1;
                    }
                    self.counters.overlap_packets += 1;
                    return;
                }
                self.settle();
            } else {
                self.counters.overlap_packets += 1;
                return;
            }
        }
        while let Some(it) = self.results.items().get(self.cursor) {
            let loc = &self.located[it.item as usize];
            let at = (loc.frame as usize, loc.packet as usize);
            if at < (frame, packet) {
                self.cursor += 1;
                continue;
            }
            if at == (frame, packet) {
                self.current = Some(self.cursor);
            }
            break;
        }
    }

    /// True when a payload of packet `packet` of frame `frame` was offloaded this cycle.
    fn located_at(&self, frame: usize, packet: usize) -> bool {
        self.located
            .binary_search_by(|l| (l.frame as usize, l.packet as usize).cmp(&(frame, packet)))
            .is_ok()
    }

    /// The packet is done.
    pub(crate) fn leave(&mut self) {
        self.current = None;
    }

    /// The GPU's matches for `payload`, when it is the payload offloaded for the packet
    /// being processed (a datagram reassembled from it, say, is not).
    pub(crate) fn pre_matched(&mut self, payload: &[u8]) -> Option<PreMatched<'_>> {
        let it = self.results.items()[self.current?];
        let loc = &self.located[it.item as usize];
        if loc.addr != payload.as_ptr() as usize || loc.len != payload.len() {
            return None;
        }
        self.counters.used += 1;
        Some(PreMatched {
            plan: PlanView {
                plan: &self.prefilter.as_ref()?.shared.plan,
                dfas: self.results.dfas(&it),
                skipped: &self.counters.pcre_skipped,
            },
            patterns: self.results.patterns(&it),
        })
    }

    /// Counters, under `osprey.gpu.`.
    pub(crate) fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let c = &self.counters;
        let none = GpuCounters::default();
        let g = self.prefilter.as_ref().map_or(&none, |p| &p.counters);
        [
            ("osprey.gpu.cycles_cpu", c.cycles_cpu),
            ("osprey.gpu.cycles_gpu", c.cycles_gpu),
            ("osprey.gpu.mode_switches", self.balancer.switches()),
            ("osprey.gpu.batches", g.batches),
            ("osprey.gpu.packets", g.packets),
            ("osprey.gpu.bytes", g.bytes),
            ("osprey.gpu.below_threshold", c.small),
            ("osprey.gpu.matches", g.matches),
            ("osprey.gpu.overflowed", g.overflowed),
            ("osprey.gpu.inspected", c.used),
            ("osprey.gpu.stale_rules", c.stale),
            ("osprey.gpu.errors", g.errors),
            ("osprey.gpu.pcre_dfa_jobs", g.dfa_jobs),
            ("osprey.gpu.pcre_dfa_matches", g.dfa_matches),
            ("osprey.gpu.pcre_skipped", c.pcre_skipped.get()),
            ("osprey.gpu.setup_pending", c.setup_pending),
            ("osprey.gpu.overlap_packets", c.overlap_packets),
            ("osprey.gpu.result_waits", c.result_waits),
            ("osprey.gpu.result_wait_us", c.result_wait_us),
            ("osprey.gpu.results_ready", c.results_ready),
            ("osprey.gpu.late_on_cpu", c.late_on_cpu),
            ("osprey.gpu.late_backlog_cycles", c.backlog),
            ("osprey.gpu.abandoned", g.abandoned),
        ]
        .into_iter()
        .chain(self.cost.counters())
    }
}

/// The offload stage of `detect`, when it has one, starts a cycle of `count()` frames:
/// `Some(count)` when the cycle runs on the GPU (the decode stage then decodes the whole
/// batch before [`match_batch`] and the later stages).
pub(crate) fn begin_cycle(
    detect: Option<&mut DetectStage>,
    count: impl FnOnce() -> usize,
) -> Option<usize> {
    let det = detect?;
    let offload = det.offload.as_mut()?;
    let n = count();
    offload.begin(n, Some(&det.detector)).then_some(n)
}

/// [`OffloadStage::match_batch`] for the offload stage of `detect`.
pub(crate) fn match_batch<'f>(
    detect: Option<&mut DetectStage>,
    frames: impl Iterator<Item = Frame<'f>>,
    decoded: &[Decoded],
) {
    if let Some(o) = detect.and_then(|d| d.offload.as_mut()) {
        o.match_batch(frames, decoded);
    }
}

/// Drop repeated jobs (sorted by DFA id) from `jobs[from..]`.
fn dedup_tail(jobs: &mut Vec<DfaJob>, from: usize) {
    let mut w = from;
    for r in from..jobs.len() {
        if w == from || jobs[w - 1].dfa != jobs[r].dfa {
            jobs[w] = jobs[r];
            w += 1;
        }
    }
    jobs.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    fn detector(text: &str) -> Arc<Detector> {
        let (set, _) = rules::RuleSet::load_str(
            text,
            None,
            &rules::Vars::suricata_default(),
            &Default::default(),
        );
        let (d, diags) = Detector::build(
            &set.rules,
            &detect::DetectOptions::default(),
            &rules::Vars::default(),
        );
        assert!(diags.is_empty(), "{diags:?}");
        Arc::new(d)
    }

    /// An Ethernet/IPv4/TCP frame carrying `payload`.
    fn tcp_frame(payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        let total = (20 + 20 + payload.len()) as u16;
        f.extend_from_slice(&[
            0x45,
            0,
            (total >> 8) as u8,
            total as u8,
            0,
            1,
            0,
            0,
            64,
            6,
            0,
            0,
        ]);
        f.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        f.extend_from_slice(&[0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18]);
        f.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0]);
        f.extend_from_slice(payload);
        f
    }

    /// One cycle as the pipeline runs it: the offload stage decides, and on a GPU cycle
    /// matches the payloads of the frames the decode stage decoded.
    fn prepare<'f>(
        stage: &mut OffloadStage,
        frames: impl Iterator<Item = Frame<'f>> + Clone,
        count: usize,
        detector: Option<&Arc<Detector>>,
    ) {
        if !stage.begin(count, detector) {
            return;
        }
        let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
        let decoded: Vec<Decoded> = frames
            .clone()
            .map(|f| {
                let mut d = Decoded::new();
                let ts = wire::Timestamp::from_secs_nanos(f.ts.secs as u64, f.ts.nanos);
                decoder.decode(f.link, f.data, ts, f.wire_len, &mut d);
                d
            })
            .collect();
        stage.match_batch(frames, &decoded);
    }

    fn frame(data: &[u8], index: u64) -> Frame<'_> {
        Frame {
            data,
            ts: capture::Timestamp { secs: 1, nanos: 0 },
            wire_len: data.len() as u32,
            link: wire::LinkType::ETHERNET,
            interface: 0,
            index,
        }
    }

    #[test]
    fn a_gpu_cycle_hands_each_payload_its_matches_and_nothing_else() {
        let det = detector(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n",
            "alert udp any any -> any any (msg:\"b\"; content:\"other\"; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"attack\"; pcre:\"/at+ack h/\"; sid:3;)\n",
            "alert tcp any any -> any any (msg:\"d\"; content:\"attack\"; pcre:\"/nope/\"; sid:4;)\n",
        ));
        let settings = GpuSettings {
            policy: GpuPolicy::Always,
            balance: BalanceConfig {
                size_threshold: 8,
                ..BalanceConfig::default()
            },
            ..GpuSettings::default()
        };
        let shared = GpuOffload::new(&det, &Backend::CpuSim, settings)
            .unwrap()
            .unwrap();
        assert!(GpuOffload::new(&det, &Backend::Cpu, settings)
            .unwrap()
            .is_none());
        let mut stage = OffloadStage::new(shared.clone());
        let frames = [
            tcp_frame(b"an attack here"),
            tcp_frame(b"short"),
            tcp_frame(b"nothing to see"),
        ];
        let list = || {
            frames
                .iter()
                .enumerate()
                .map(|(i, f)| frame(f, i as u64 + 1))
        };
        prepare(&mut stage, list(), 3, Some(&det));
        let payload = |i: usize| &frames[i][54..];
        stage.enter(0, 0);
        let pm = stage.pre_matched(payload(0)).expect("offloaded");
        assert_eq!(pm.patterns.len(), 1);
        // "attack" calls for both regex DFAs: the first matched, the second did not.
        let mut dfas = pm.plan.dfas.to_vec();
        dfas.sort();
        assert_eq!(dfas, vec![(0, true), (1, false)]);
        // Another slice with the same bytes (a copy) is not the offloaded payload.
        let copy = payload(0).to_vec();
        assert!(stage.pre_matched(&copy).is_none());
        stage.enter(1, 0);
        assert!(
            stage.pre_matched(payload(1)).is_none(),
            "below the threshold"
        );
        stage.enter(2, 0);
        assert_eq!(
            stage.pre_matched(payload(2)).unwrap().patterns,
            &[] as &[u32]
        );
        stage.leave();
        assert!(stage.pre_matched(payload(2)).is_none());
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.packets"], 2);
        assert_eq!(c["osprey.gpu.below_threshold"], 1);
        assert_eq!(c["osprey.gpu.cycles_gpu"], 1);
        assert_eq!(c["osprey.gpu.pcre_dfa_jobs"], 2);
        assert_eq!(c["osprey.gpu.pcre_dfa_matches"], 1);
        // Rules swapped: the offload is not used.
        let other = detector("alert tcp any any -> any any (msg:\"c\"; content:\"x\"; sid:3;)\n");
        prepare(&mut stage, list(), 3, Some(&other));
        stage.enter(0, 0);
        assert!(stage.pre_matched(payload(0)).is_none());
        assert_eq!(
            stage
                .counters()
                .find(|c| c.0 == "osprey.gpu.stale_rules")
                .unwrap()
                .1,
            1
        );
        // The last owner going away ends the dispatcher thread (no hang).
        drop(shared);
        drop(stage);
    }

    /// A detector with one content rule and a cpu-sim offload whose every device batch is
    /// away for `latency` (payloads of 8 bytes and more offloaded), with a worker's stage.
    fn slow_sim(
        late: LateResults,
        latency: std::time::Duration,
    ) -> (Arc<Detector>, Arc<GpuOffload>, OffloadStage) {
        let det =
            detector("alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n");
        let mut settings = GpuSettings {
            policy: GpuPolicy::Always,
            balance: BalanceConfig {
                size_threshold: 8,
                ..BalanceConfig::default()
            },
            late,
            ..GpuSettings::default()
        };
        settings.device.sim_latency = latency;
        let shared = GpuOffload::new(&det, &Backend::CpuSim, settings)
            .unwrap()
            .unwrap();
        let stage = OffloadStage::new(shared.clone());
        (det, shared, stage)
    }

    #[test]
    fn a_worker_goes_on_with_its_packets_while_its_batch_is_away() {
        // A slow simulated device: each device batch is away for 300 ms.
        let latency = std::time::Duration::from_millis(300);
        let (det, shared, mut stage) = slow_sim(LateResults::Wait, latency);
        // Two packets below the size threshold come first, then an offloaded payload.
        let frames = [
            tcp_frame(b"hi"),
            tcp_frame(b"ack"),
            tcp_frame(b"an attack here"),
            tcp_frame(b"nothing to see"),
        ];
        let list = || {
            frames
                .iter()
                .enumerate()
                .map(|(i, f)| frame(f, i as u64 + 1))
        };
        let t = Instant::now();
        prepare(&mut stage, list(), 4, Some(&det));
        // The packets before the first offloaded payload go on at once.
        stage.enter(0, 0);
        stage.leave();
        stage.enter(1, 0);
        stage.leave();
        assert!(t.elapsed() < latency / 2, "{:?}", t.elapsed());
        // The first packet that needs the results waits for them.
        stage.enter(2, 0);
        assert!(t.elapsed() >= latency / 2, "{:?}", t.elapsed());
        let pm = stage.pre_matched(&frames[2][54..]).expect("offloaded");
        assert_eq!(pm.patterns.len(), 1);
        stage.enter(3, 0);
        assert_eq!(
            stage.pre_matched(&frames[3][54..]).unwrap().patterns,
            &[] as &[u32]
        );
        stage.leave();
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.overlap_packets"], 2);
        assert_eq!(c["osprey.gpu.result_waits"], 1);
        assert!(c["osprey.gpu.result_wait_us"] > 0);
        assert_eq!(c["osprey.gpu.results_ready"], 0);
        // A cycle whose results are back before they are needed does not wait: the same
        // frames, the packets before the payload taking longer than the device.
        prepare(&mut stage, list(), 4, Some(&det));
        stage.enter(0, 0);
        std::thread::sleep(latency + latency / 2);
        stage.enter(2, 0);
        assert!(stage.pre_matched(&frames[2][54..]).is_some());
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.result_waits"], 1);
        assert_eq!(c["osprey.gpu.results_ready"], 1);
        let merged: std::collections::HashMap<_, _> = shared.counters().into_iter().collect();
        assert_eq!(merged["osprey.gpu.dispatch_requests"], 2);
    }

    #[test]
    fn with_late_results_on_the_cpu_a_worker_never_waits_for_its_batch() {
        let latency = std::time::Duration::from_millis(300);
        let (det, _shared, mut stage) = slow_sim(LateResults::Cpu, latency);
        let frames = [
            tcp_frame(b"hi"),
            tcp_frame(b"an attack here"),
            tcp_frame(b"nothing to see"),
        ];
        let list = || {
            frames
                .iter()
                .enumerate()
                .map(|(i, f)| frame(f, i as u64 + 1))
        };
        let t = Instant::now();
        prepare(&mut stage, list(), 3, Some(&det));
        // Nothing is back: every packet goes on, the offloaded payloads to the CPU.
        for (f, data) in frames.iter().enumerate() {
            stage.enter(f, 0);
            assert!(stage.pre_matched(&data[54..]).is_none());
            stage.leave();
        }
        assert!(t.elapsed() < latency / 2, "{:?}", t.elapsed());
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.late_on_cpu"], 2);
        assert_eq!(c["osprey.gpu.overlap_packets"], 3);
        assert_eq!(c["osprey.gpu.result_waits"], 0);
        // The next cycle leaves the unanswered batch to the dispatcher (no wait) ...
        let t = Instant::now();
        prepare(&mut stage, list(), 3, Some(&det));
        assert!(t.elapsed() < latency / 2, "{:?}", t.elapsed());
        // ... and once its own batch is back, its packets take the results.
        std::thread::sleep(3 * latency);
        stage.enter(1, 0);
        assert_eq!(
            stage.pre_matched(&frames[1][54..]).unwrap().patterns.len(),
            1
        );
        stage.enter(2, 0);
        assert!(stage.pre_matched(&frames[2][54..]).is_some());
        stage.leave();
        // A third cycle takes the abandoned batch's buffer back (answered by now).
        prepare(&mut stage, list(), 3, Some(&det));
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.abandoned"], 1);
        assert_eq!(c["osprey.gpu.results_ready"], 1);
        assert_eq!(c["osprey.gpu.result_waits"], 0);
        let p = stage.prefilter.as_ref().unwrap();
        assert!(p.abandoned.is_empty(), "the answered batch was reaped");
        // A device that never keeps up: at most MAX_ABANDONED batches are left with it,
        // then the cycles stay on the CPU.
        for _ in 0..10 {
            prepare(&mut stage, list(), 3, Some(&det));
        }
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert!(c["osprey.gpu.late_backlog_cycles"] >= 5, "{c:?}");
        assert!(stage.prefilter.as_ref().unwrap().abandoned.len() <= MAX_ABANDONED);
    }

    /// An item's number, its distinct pattern ids and its DFA outcomes, sorted.
    type Found = (u32, Vec<u32>, Vec<(u32, bool)>);

    /// What `m` holds, per item.
    fn found(m: &BatchMatches) -> Vec<Found> {
        m.items()
            .iter()
            .map(|it| {
                let mut p = m.patterns(it).to_vec();
                p.sort_unstable();
                p.dedup();
                let mut d = m.dfas(it).to_vec();
                d.sort_unstable();
                (it.item, p, d)
            })
            .collect()
    }

    #[test]
    fn the_gpu_and_the_cpu_batch_prefilters_find_the_same() {
        let det = detector(concat!(
            "alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n",
            "alert udp any any -> any any (msg:\"b\"; content:\"other\"; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"c\"; content:\"attack\"; pcre:\"/at+ack h/\"; sid:3;)\n",
            "alert tcp any any -> any any (msg:\"d\"; content:\"here\"; pcre:\"/nope/\"; sid:4;)\n",
        ));
        let mut settings = GpuSettings {
            policy: GpuPolicy::Always,
            ..GpuSettings::default()
        };
        // Two payloads a buffer: pushes flush the full buffer on the way.
        settings.device.max_packets = 2;
        let shared = GpuOffload::new(&det, &Backend::CpuSim, settings)
            .unwrap()
            .unwrap();
        let ready = shared.ready().expect("set up").clone();
        let plan = &ready.plan;
        let mut gpu = GpuPrefilter::new(ready.clone());
        let mut cpu = detect::CpuBatchPrefilter::new(plan, mpm::Kind::fastest());
        let payloads: [(u8, &[u8]); 6] = [
            (6, b"an attack here, attack"),
            (17, b"some other thing"),
            (6, b"nothing to see"),
            (6, b"here attttack here"),
            (17, b"attack"),
            (6, b"attack h"),
        ];
        let (mut a, mut b) = (BatchMatches::default(), BatchMatches::default());
        for (i, (proto, payload)) in payloads.into_iter().enumerate() {
            let group = plan.group_of(proto).unwrap();
            assert!(gpu.push(i as u32 * 2, group, payload, &mut a));
            assert!(cpu.push(i as u32 * 2, group, payload, &mut b));
        }
        gpu.flush(&mut a);
        cpu.flush(&mut b);
        assert_eq!(found(&a), found(&b));
        assert_eq!(found(&a).len(), 6);
        assert_eq!(found(&a)[0].1.len(), 2, "attack and here, once each");
        assert!(found(&a)[5].2.iter().any(|d| d.1), "/at+ack h/ matched");
        assert_eq!(gpu.counters.batches, 3);
        assert_eq!(gpu.counters.packets, 6);
        assert!(gpu.counters.dfa_jobs > 0);
    }

    #[test]
    fn kargus_policy_keeps_short_bursts_on_the_cpu() {
        let det =
            detector("alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n");
        let settings = GpuSettings {
            policy: GpuPolicy::Kargus,
            ..GpuSettings::default()
        };
        let shared = GpuOffload::new(&det, &Backend::CpuSim, settings)
            .unwrap()
            .unwrap();
        let mut stage = OffloadStage::new(shared);
        let f = tcp_frame(&[b'a'; 200]);
        let one = || std::iter::once(frame(&f, 1));
        // 64 packets a cycle is what the CPU drains (X): never the GPU.
        for _ in 0..1000 {
            prepare(&mut stage, one(), 64, Some(&det));
        }
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(
            (c["osprey.gpu.cycles_gpu"], c["osprey.gpu.cycles_cpu"]),
            (0, 1000)
        );
        // Full RX batches: after the enqueue the queue holds 128 + 64 (k - 1) in cycle k and
        // reaches beta (1984) in cycle 30: the last 11 of 40 cycles go to the GPU.
        for _ in 0..40 {
            prepare(&mut stage, one(), 128, Some(&det));
        }
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.cycles_gpu"], 11);
        assert_eq!(c["osprey.gpu.mode_switches"], 1);
    }
}

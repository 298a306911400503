//! GPU offload of the packet-payload prefilter (Kargus §4.5 and §5, MIDeA §3.2.1).
//!
//! Per worker and per RX batch (one cycle): the [`Balancer`] decides from the workload
//! queue whether this cycle's multi-pattern matching runs on the CPU or the GPU. On a GPU
//! cycle the worker decodes the batch's frames once more (a second decoder: the pipeline's
//! own decode stays untouched), puts every packet payload of at least the size threshold
//! into its one batch buffer with the payload's offload group id, hands the buffer to the
//! dispatcher thread and waits for the matches. Then the frames go through the pipeline as
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
//! **Regex DFAs (Kargus §4.5).** In the same cycle, once the batch's matches are back, the
//! worker sends the same batch again with one regex-DFA job per (payload, DFA) that the
//! patterns found in the payload call for ([`detect::OffloadPlan::pattern_dfas`]): the
//! `pcre` options of the candidate signatures whose regex has a DFA. Detection takes each
//! job's outcome for that payload ([`detect::OffloadPlan::inspect_with_pcre`]): a DFA miss
//! decides the `pcre` without running PCRE2.
//!
//! `--gpu cpu-sim` runs all of this with the `gpu` crate's CPU executor behind the
//! dispatcher thread instead of a device.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use capture::Frame;
use detect::{Alert, Detector, FlowDetect, Input, OffloadPlan, Scratch};
use gpu::balance::{BalanceConfig, Balancer};
use gpu::{
    AcMatch, AcOffload, AcTables, Backend, DfaJob, DfaSet, GpuConfig, Offload, PushError, NO_MATCH,
};
use wire::{Decoded, Decoder, DecoderConfig, Timestamp};

/// How each cycle's CPU-or-GPU choice is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuPolicy {
    /// Kargus §5.2: the α/β/γ workload-queue thresholds.
    #[default]
    Kargus,
    /// Every cycle on the GPU (payloads below the size threshold still stay on the CPU).
    Always,
}

/// Settings of GPU offload.
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuSettings {
    /// Size threshold, queue thresholds and dequeue sizes.
    pub balance: BalanceConfig,
    /// How cycles are assigned.
    pub policy: GpuPolicy,
    /// Kernel layout, report slots, staging sizes.
    pub device: GpuConfig,
    /// Memory cap for the AC-Full tables of the offload groups (bytes; 0: `mpm`'s default).
    pub table_memory: usize,
}

/// Offload shared by the workers: the detector's offload plan, the matcher tables and the
/// dispatcher thread.
pub struct GpuOffload {
    plan: OffloadPlan,
    offload: Offload,
    settings: GpuSettings,
}

impl fmt::Debug for GpuOffload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuOffload")
            .field("groups", &self.plan.groups().len())
            .field("offload", &self.offload)
            .field("settings", &self.settings)
            .finish()
    }
}

impl GpuOffload {
    /// Set up offload of `detector`'s payload prefilter on `backend`; `None` for
    /// [`Backend::Cpu`]. Fails when the tables cannot be built or the device not set up.
    pub fn new(
        detector: &Arc<Detector>,
        backend: &Backend,
        settings: GpuSettings,
    ) -> Result<Option<Arc<GpuOffload>>, String> {
        if matches!(backend, Backend::Cpu) {
            return Ok(None);
        }
        settings.balance.validate().map_err(|e| e.to_string())?;
        let plan = OffloadPlan::build(detector);
        let mut limits = mpm::Limits::default();
        if settings.table_memory > 0 {
            limits.memory = settings.table_memory;
        }
        let groups = plan
            .groups()
            .iter()
            .map(|g| mpm::DfaTables::build(g, &limits))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("GPU tables: {e}"))?;
        let tables = AcTables::new(&groups).map_err(|e| format!("GPU tables: {e}"))?;
        let dfas = if plan.pcre_dfas().is_empty() {
            None
        } else {
            let set = DfaSet::new(plan.pcre_dfas(), detect::PCRE_DFA_MAX_STATES)
                .map_err(|e| format!("GPU regex DFAs: {e}"))?;
            Some(Arc::new(set))
        };
        let offload = Offload::new(backend, Arc::new(tables), dfas, settings.device)
            .map_err(|e| e.to_string())?
            .ok_or("no offload backend")?;
        Ok(Some(Arc::new(GpuOffload {
            plan,
            offload,
            settings,
        })))
    }

    /// The detector this offload was built for.
    pub fn detector(&self) -> &Arc<Detector> {
        self.plan.detector()
    }

    /// The settings.
    pub fn settings(&self) -> &GpuSettings {
        &self.settings
    }

    /// Bytes of matcher tables on the device.
    pub fn device_bytes(&self) -> usize {
        self.offload.tables().device_bytes()
    }
}

/// Where one offloaded payload lies and which patterns were found in it.
#[derive(Clone, Copy)]
struct Entry {
    frame: u32,
    packet: u32,
    /// Address and length of the payload slice in the frame (identity check).
    addr: usize,
    len: usize,
    /// Range of its pattern ids in `OffloadStage::patterns`.
    from: u32,
    to: u32,
    /// Range of its regex-DFA outcomes in `OffloadStage::dfa_out`.
    dfa_from: u32,
    dfa_to: u32,
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
    // `worker` (a sender to the dispatcher thread) is dropped before `shared`: dropping the
    // last `GpuOffload` joins that thread, which ends once every sender is gone.
    worker: AcOffload,
    shared: Arc<GpuOffload>,
    balancer: Balancer,
    queue: usize,
    decoder: Decoder,
    decoded: Decoded,
    batch: Option<gpu::Batch>,
    pending: Vec<Entry>,
    entries: Vec<Entry>,
    matches: Vec<AcMatch>,
    patterns: Vec<u32>,
    jobs: Vec<DfaJob>,
    ends: Vec<u32>,
    dfa_out: Vec<(u32, bool)>,
    cursor: usize,
    /// Entry of the packet being processed now.
    current: Option<Entry>,
    counters: Counters,
}

#[derive(Default)]
struct Counters {
    cycles_cpu: u64,
    cycles_gpu: u64,
    packets: u64,
    bytes: u64,
    small: u64,
    batches: u64,
    matches: u64,
    overflowed: u64,
    used: u64,
    stale: u64,
    errors: u64,
    dfa_jobs: u64,
    dfa_matches: u64,
    pcre_skipped: Cell<u64>,
}

impl OffloadStage {
    pub(crate) fn new(shared: Arc<GpuOffload>, decoder: DecoderConfig) -> OffloadStage {
        let s = shared.settings;
        OffloadStage {
            worker: shared.offload.worker(),
            balancer: Balancer::new(s.balance),
            queue: 0,
            decoder: Decoder::new(decoder),
            decoded: Decoded::new(),
            batch: Some(gpu::Batch::new(s.device.max_packets, s.device.max_bytes)),
            pending: Vec::new(),
            entries: Vec::new(),
            matches: Vec::new(),
            patterns: Vec::new(),
            jobs: Vec::new(),
            ends: Vec::new(),
            dfa_out: Vec::new(),
            cursor: 0,
            current: None,
            counters: Counters::default(),
            shared,
        }
    }

    /// One cycle: decide CPU or GPU for `frames` (one RX batch) and, on the GPU, match
    /// their payloads. `detector` is the pipeline's current detector: after a rule reload
    /// the offload (built for the old rules) is not used.
    pub(crate) fn prepare<'f>(
        &mut self,
        frames: impl Iterator<Item = Frame<'f>>,
        count: usize,
        detector: Option<&Arc<Detector>>,
    ) {
        self.entries.clear();
        self.patterns.clear();
        self.dfa_out.clear();
        self.cursor = 0;
        self.current = None;
        let cfg = *self.balancer.config();
        self.queue = (self.queue + count).min(cfg.capacity);
        let d = self.balancer.decide(self.queue, true);
        self.queue -= d.take;
        let gpu = match self.shared.settings.policy {
            GpuPolicy::Kargus => d.mode.is_gpu(),
            GpuPolicy::Always => true,
        };
        if !gpu {
            self.counters.cycles_cpu += 1;
            return;
        }
        if !detector.is_some_and(|d| Arc::ptr_eq(d, self.shared.detector())) {
            self.counters.stale += 1;
            return;
        }
        self.counters.cycles_gpu += 1;
        let shared = self.shared.clone();
        let plan = &shared.plan;
        for (fi, frame) in frames.enumerate() {
            let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
            self.decoder.decode(
                frame.link,
                frame.data,
                ts,
                frame.wire_len,
                &mut self.decoded,
            );
            for pi in 0..self.decoded.len() {
                let p = self.decoded.packets()[pi];
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
                let entry = Entry {
                    frame: fi as u32,
                    packet: pi as u32,
                    addr: payload.as_ptr() as usize,
                    len: payload.len(),
                    from: 0,
                    to: 0,
                    dfa_from: 0,
                    dfa_to: 0,
                };
                let batch = self.batch.as_mut().expect("batch is home between scans");
                match batch.push(group, payload) {
                    Ok(_) => self.pending.push(entry),
                    Err(PushError::TooLarge) => {}
                    Err(PushError::Full) => {
                        self.flush();
                        let batch = self.batch.as_mut().expect("batch is home");
                        if batch.push(group, payload).is_ok() {
                            self.pending.push(entry);
                        }
                    }
                }
            }
        }
        self.flush();
    }

    /// Send the batch buffer to the dispatcher and record its matches per payload.
    fn flush(&mut self) {
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
        self.matches.clear();
        let (mut batch, stats) = match self.worker.scan(batch, &mut self.matches) {
            Ok(r) => r,
            Err(_) => {
                // The dispatcher is gone (device error): these payloads are matched on
                // the CPU; later cycles try again with a fresh buffer.
                self.counters.errors += 1;
                self.pending.clear();
                let s = self.shared.settings.device;
                self.batch = Some(gpu::Batch::new(s.max_packets, s.max_bytes));
                return;
            }
        };
        self.counters.overflowed += stats.overflowed;
        self.counters.matches += self.matches.len() as u64;
        // Matches come sorted by packet index.
        let first = self.entries.len();
        let plan = &self.shared.plan;
        let dfas = self.shared.offload.has_dfas();
        let mut m = 0;
        self.jobs.clear();
        for (i, mut e) in self.pending.drain(..).enumerate() {
            e.from = self.patterns.len() as u32;
            let jobs_from = self.jobs.len();
            while m < self.matches.len() && self.matches[m].packet as usize == i {
                let pat = self.matches[m].pattern;
                self.patterns.push(pat);
                let called = if dfas {
                    plan.pattern_dfas(batch.group(i), pat)
                } else {
                    &[]
                };
                for &dfa in called {
                    self.jobs.push(DfaJob {
                        packet: i as u32,
                        dfa,
                    });
                }
                m += 1;
            }
            self.jobs[jobs_from..].sort_unstable_by_key(|j| j.dfa);
            dedup_tail(&mut self.jobs, jobs_from);
            e.to = self.patterns.len() as u32;
            self.entries.push(e);
        }
        if !self.jobs.is_empty() {
            let jobs = std::mem::take(&mut self.jobs);
            match self.worker.run_dfa(batch, jobs, &mut self.ends) {
                Ok((b, jobs)) => {
                    batch = b;
                    self.jobs = jobs;
                    self.record_dfa_outcomes(first);
                }
                Err(_) => {
                    // The regexes of these payloads run on the CPU (PCRE2); the pattern
                    // matches above stand.
                    self.counters.errors += 1;
                    let s = self.shared.settings.device;
                    self.batch = Some(gpu::Batch::new(s.max_packets, s.max_bytes));
                    return;
                }
            }
        }
        batch.clear();
        self.batch = Some(batch);
    }

    /// Give the entries from `first` on (one per batch packet) their DFA outcomes.
    fn record_dfa_outcomes(&mut self, first: usize) {
        self.counters.dfa_jobs += self.jobs.len() as u64;
        let mut j = 0;
        for (i, e) in self.entries[first..].iter_mut().enumerate() {
            e.dfa_from = self.dfa_out.len() as u32;
            while j < self.jobs.len() && self.jobs[j].packet as usize == i {
                let hit = self.ends[j] != NO_MATCH;
                self.counters.dfa_matches += u64::from(hit);
                self.dfa_out.push((self.jobs[j].dfa, hit));
                j += 1;
            }
            e.dfa_to = self.dfa_out.len() as u32;
        }
    }

    /// The pipeline is about to process packet `packet` of frame `frame` of the batch.
    pub(crate) fn enter(&mut self, frame: usize, packet: usize) {
        self.current = None;
        while let Some(e) = self.entries.get(self.cursor) {
            let at = (e.frame as usize, e.packet as usize);
            if at < (frame, packet) {
                self.cursor += 1;
                continue;
            }
            if at == (frame, packet) {
                self.current = Some(*e);
            }
            break;
        }
    }

    /// The packet is done.
    pub(crate) fn leave(&mut self) {
        self.current = None;
    }

    /// The GPU's matches for `payload`, when it is the payload offloaded for the packet
    /// being processed (a datagram reassembled from it, say, is not).
    pub(crate) fn pre_matched(&mut self, payload: &[u8]) -> Option<PreMatched<'_>> {
        let e = self.current?;
        if e.addr != payload.as_ptr() as usize || e.len != payload.len() {
            return None;
        }
        self.counters.used += 1;
        Some(PreMatched {
            plan: PlanView {
                plan: &self.shared.plan,
                dfas: &self.dfa_out[e.dfa_from as usize..e.dfa_to as usize],
                skipped: &self.counters.pcre_skipped,
            },
            patterns: &self.patterns[e.from as usize..e.to as usize],
        })
    }

    /// Counters, under `osprey.gpu.`.
    pub(crate) fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let c = &self.counters;
        [
            ("osprey.gpu.cycles_cpu", c.cycles_cpu),
            ("osprey.gpu.cycles_gpu", c.cycles_gpu),
            ("osprey.gpu.mode_switches", self.balancer.switches()),
            ("osprey.gpu.batches", c.batches),
            ("osprey.gpu.packets", c.packets),
            ("osprey.gpu.bytes", c.bytes),
            ("osprey.gpu.below_threshold", c.small),
            ("osprey.gpu.matches", c.matches),
            ("osprey.gpu.overflowed", c.overflowed),
            ("osprey.gpu.inspected", c.used),
            ("osprey.gpu.stale_rules", c.stale),
            ("osprey.gpu.errors", c.errors),
            ("osprey.gpu.pcre_dfa_jobs", c.dfa_jobs),
            ("osprey.gpu.pcre_dfa_matches", c.dfa_matches),
            ("osprey.gpu.pcre_skipped", c.pcre_skipped.get()),
        ]
        .into_iter()
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
        let mut stage = OffloadStage::new(shared.clone(), DecoderConfig::default());
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
        stage.prepare(list(), 3, Some(&det));
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
        stage.prepare(list(), 3, Some(&other));
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

    #[test]
    fn kargus_policy_keeps_short_bursts_on_the_cpu() {
        let det =
            detector("alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n");
        let shared = GpuOffload::new(&det, &Backend::CpuSim, GpuSettings::default())
            .unwrap()
            .unwrap();
        let mut stage = OffloadStage::new(shared, DecoderConfig::default());
        let f = tcp_frame(&[b'a'; 200]);
        let one = || std::iter::once(frame(&f, 1));
        // 64 packets a cycle is what the CPU drains (X): never the GPU.
        for _ in 0..1000 {
            stage.prepare(one(), 64, Some(&det));
        }
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(
            (c["osprey.gpu.cycles_gpu"], c["osprey.gpu.cycles_cpu"]),
            (0, 1000)
        );
        // Full RX batches: after the enqueue the queue holds 128 + 64 (k - 1) in cycle k and
        // reaches beta (1984) in cycle 30: the last 11 of 40 cycles go to the GPU.
        for _ in 0..40 {
            stage.prepare(one(), 128, Some(&det));
        }
        let c: std::collections::HashMap<_, _> = stage.counters().collect();
        assert_eq!(c["osprey.gpu.cycles_gpu"], 11);
        assert_eq!(c["osprey.gpu.mode_switches"], 1);
    }
}

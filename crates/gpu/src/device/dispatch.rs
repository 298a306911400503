//! The dispatcher thread of one GPU: the channel workers submit batches through, and the
//! loop that merges them into device batches and runs them on [`GpuMatcher`] (or on the
//! CPU executor for `--gpu cpu-sim`).

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use super::{DeviceInfo, GpuConfig, GpuDfaMatcher, GpuMatcher};
use crate::batch::{Batch, ALIGN};
use crate::cpu::DfaJob;
use crate::feeder::{AcReply, DispatchStats, Group, Queue, Request};
use crate::reports::ReportBuffer;
use crate::staging::StagingPool;
use crate::tables::{AcTables, DfaSet};

/// What the dispatcher sends back for regex-DFA jobs: the batch and jobs, per job its
/// earliest match end or [`crate::cpu::NO_MATCH`], and the kernel's time in nanoseconds
/// when the executor timed it.
pub type DfaReply = Result<(Batch, Vec<DfaJob>, Vec<u32>, Option<u64>), String>;

/// The dispatcher thread of one GPU (Kargus §4.5: one per device): workers send batches
/// through [`DispatchHandle::submit`] and go on with their packets; the thread merges the
/// requests waiting into one device batch ([`crate::feeder`]) and keeps up to two in
/// flight (one per stream), sleeping while it waits for the device.
/// [`Dispatcher::spawn_cpu`] starts the same thread with the CPU executor in place of the
/// device (`--gpu cpu-sim`), so the host path is exercised without a GPU.
pub struct Dispatcher {
    tx: Option<Sender<Request>>,
    thread: Option<JoinHandle<()>>,
    info: Option<DeviceInfo>,
    stats: Arc<DispatchStats>,
    pool: Arc<StagingPool>,
}

/// Handle a worker keeps to submit batches.
#[derive(Clone)]
pub struct DispatchHandle {
    tx: Sender<Request>,
    pool: Arc<StagingPool>,
}

impl DispatchHandle {
    /// An empty staged batch from the dispatcher's pool ([`StagingPool::take`]): the
    /// worker writes its payloads into the memory the device copies from, and the results
    /// come back into the batch's own rows.
    pub fn new_batch(&self) -> Batch {
        self.pool.take()
    }

    /// Send `batch` to the GPU; the receiver yields the batch back with its report rows.
    pub fn submit(&self, batch: Batch) -> Receiver<AcReply> {
        let (tx, rx) = mpsc::channel();
        if let Err(mpsc::SendError(Request::Ac(_, tx))) = self.tx.send(Request::Ac(batch, tx)) {
            let _ = tx.send(Err("GPU dispatcher stopped".into()));
        }
        rx
    }

    /// Send `jobs` (regex DFAs over packets of `batch`) to the GPU; the receiver yields the
    /// batch and jobs back with each job's earliest match end ([`crate::cpu::run_dfa`]).
    pub fn submit_dfa(&self, batch: Batch, jobs: Vec<DfaJob>) -> Receiver<DfaReply> {
        let (tx, rx) = mpsc::channel();
        if let Err(mpsc::SendError(Request::Dfa(_, _, tx))) =
            self.tx.send(Request::Dfa(batch, jobs, tx))
        {
            let _ = tx.send(Err("GPU dispatcher stopped".into()));
        }
        rx
    }
}

/// An executor of regex-DFA jobs (the GPU's or the CPU's): the kernel's time, when timed.
type DfaRun<'a> =
    &'a mut dyn FnMut(&Batch, &[DfaJob], &mut Vec<u32>) -> Result<Option<u64>, String>;

/// Run regex-DFA jobs with `run` (or refuse them when there is no DFA set).
fn dfa_reply(run: Option<DfaRun<'_>>, batch: Batch, jobs: Vec<DfaJob>) -> DfaReply {
    let Some(run) = run else {
        return Err("no regex DFAs on this dispatcher".into());
    };
    let mut out = Vec::new();
    let ns = run(&batch, &jobs, &mut out)?;
    Ok((batch, jobs, out, ns))
}

impl Dispatcher {
    /// Start the dispatcher thread for `matcher`'s GPU (Aho-Corasick only).
    pub fn spawn(matcher: GpuMatcher) -> Result<Dispatcher, String> {
        Self::spawn_with_dfa(matcher, None)
    }

    /// Start the dispatcher thread for `matcher`'s GPU, with `dfa` (the same GPU) for
    /// regex-DFA jobs ([`DispatchHandle::submit_dfa`]).
    pub fn spawn_with_dfa(
        matcher: GpuMatcher,
        dfa: Option<GpuDfaMatcher>,
    ) -> Result<Dispatcher, String> {
        let info = matcher.info.clone();
        let stats = matcher.stats.clone();
        let pool = matcher.staging_pool();
        let (tx, rx) = mpsc::channel::<Request>();
        let thread = std::thread::Builder::new()
            .name(format!("gpu-dispatch-{}", info.ordinal))
            .spawn(move || Self::run(matcher, dfa, Queue::new(rx)))
            .map_err(|e| format!("dispatcher thread: {e}"))?;
        Ok(Dispatcher {
            tx: Some(tx),
            thread: Some(thread),
            info: Some(info),
            stats,
            pool,
        })
    }

    /// Start a dispatcher thread that runs every batch with the CPU executor
    /// ([`crate::cpu::run_ac`] with `cfg.layout` and `cfg.report_cap` slots per packet;
    /// regex-DFA jobs with [`crate::cpu::run_dfa`] over `dfas`): the same requests, merges
    /// (up to `cfg.max_packets` payloads and `cfg.max_bytes` bytes), replies and report
    /// rows as a GPU's, one device batch at a time, each held `cfg.sim_latency` before its
    /// replies go out (a simulated device round trip; requests arriving meanwhile are
    /// merged into the next).
    pub fn spawn_cpu(
        tables: Arc<AcTables>,
        dfas: Option<Arc<DfaSet>>,
        cfg: GpuConfig,
    ) -> Result<Dispatcher, String> {
        let (tx, rx) = mpsc::channel::<Request>();
        let stats = Arc::new(DispatchStats::default());
        let pool = StagingPool::new(
            cfg.staging_buffers,
            cfg.staging_packets(),
            cfg.staging_bytes(),
            cfg.report_cap,
            None,
            stats.clone(),
        );
        let st = stats.clone();
        let thread = std::thread::Builder::new()
            .name("gpu-dispatch-cpu-sim".into())
            .spawn(move || Self::run_cpu(&tables, dfas, cfg, Queue::new(rx), &st))
            .map_err(|e| format!("dispatcher thread: {e}"))?;
        Ok(Dispatcher {
            tx: Some(tx),
            thread: Some(thread),
            info: None,
            stats,
            pool,
        })
    }

    fn run_cpu(
        tables: &AcTables,
        dfas: Option<Arc<DfaSet>>,
        cfg: GpuConfig,
        mut queue: Queue,
        stats: &DispatchStats,
    ) {
        let cap = cfg.report_cap.max(1);
        let max_bytes = cfg.max_bytes.max(ALIGN).div_ceil(ALIGN) * ALIGN;
        let mut run = |b: &Batch, j: &[DfaJob], out: &mut Vec<u32>| {
            let t = Instant::now();
            if let Some(set) = &dfas {
                crate::cpu::run_dfa(set, b, j, out);
            }
            Ok(Some(t.elapsed().as_nanos().min(u64::MAX as u128) as u64))
        };
        let has_dfas = dfas.is_some();
        // The device's buffers, simulated: the merged batch and its rows.
        let mut rows = ReportBuffer::new(cap);
        let mut image = Batch::new(cfg.max_packets.max(1), max_bytes);
        let mut meta = Vec::new();
        while let Some(req) = queue.next() {
            match req {
                Request::Ac(batch, reply) => {
                    // Host work as on a GPU: the merge and the entries ...
                    let host = Instant::now();
                    let mut group = Group::of(batch, reply, cap);
                    queue.merge_waiting(&mut group, cfg.max_packets.max(1), max_bytes, cap);
                    stats.launched(&group);
                    let n = group.packets();
                    stats.host(host, 12 * n);
                    // ... the device copies in (the entries are written again here, into
                    // the simulated device buffer), the kernel ...
                    group.image(&mut image, &mut meta);
                    let t = Instant::now();
                    crate::cpu::run_ac(tables, &image, cfg.layout, &mut rows);
                    let ns = t.elapsed().as_nanos().min(u64::MAX as u128) as u64;
                    if !cfg.sim_latency.is_zero() {
                        let waited = Instant::now();
                        std::thread::sleep(cfg.sim_latency);
                        stats.waited(waited);
                    }
                    // ... the counters handed out on the host, the used slots copied
                    // into each worker's rows (the device's copies back), the replies.
                    let host = Instant::now();
                    let copied = group.set_counts(rows.raw().0);
                    let back = 4 * n + group.copy_rows_from(&rows);
                    stats.copied_back(back);
                    // Counted before the replies go: a worker reading the counters
                    // once its reply is in sees this batch's figures.
                    stats.host(host, copied);
                    group.deliver((Some(ns), rows.scan_order()));
                }
                Request::Dfa(batch, jobs, reply) => {
                    let r = if has_dfas {
                        dfa_reply(Some(&mut run), batch, jobs)
                    } else {
                        dfa_reply(None, batch, jobs)
                    };
                    let _ = reply.send(r);
                }
            }
        }
    }

    fn run(mut m: GpuMatcher, mut dfa: Option<GpuDfaMatcher>, mut queue: Queue) {
        loop {
            // With work in flight, take a new batch if one is waiting, else complete the
            // oldest (a blocking wait: requests arriving meanwhile are merged into the
            // next device batch); idle, block for the next batch.
            let in_flight = m.slots.iter().any(|s| s.pending.is_some());
            let req = if in_flight {
                match queue.try_next() {
                    Ok(r) => Some(r),
                    Err(mpsc::TryRecvError::Empty) => {
                        let oldest = m.next;
                        if m.slots[oldest].pending.is_some() {
                            m.finish(oldest);
                        } else {
                            m.finish_all();
                        }
                        continue;
                    }
                    Err(mpsc::TryRecvError::Disconnected) => None,
                }
            } else {
                queue.next()
            };
            match req {
                Some(Request::Ac(batch, reply)) => {
                    let host = Instant::now();
                    let cap = m.cfg.report_cap.max(1);
                    let mut group = Group::of(batch, reply, cap);
                    let max_bytes = m.staging_bytes();
                    queue.merge_waiting(&mut group, m.cfg.max_packets.max(1), max_bytes, cap);
                    m.stats.host(host, 0);
                    m.submit(group);
                }
                Some(Request::Dfa(batch, jobs, reply)) => {
                    // Synchronous on the DFA matcher's own stream; AC batches in flight
                    // complete first so replies keep their order per worker.
                    m.finish_all();
                    let r = match dfa.as_mut() {
                        Some(d) => {
                            let mut run = |b: &Batch, j: &[DfaJob], out: &mut Vec<u32>| {
                                d.run(b, j, out)?;
                                Ok(d.kernel_ns())
                            };
                            dfa_reply(Some(&mut run), batch, jobs)
                        }
                        None => dfa_reply(None, batch, jobs),
                    };
                    let _ = reply.send(r);
                }
                None => {
                    m.finish_all();
                    return;
                }
            }
        }
    }

    /// A handle for one worker.
    pub fn handle(&self) -> DispatchHandle {
        DispatchHandle {
            tx: self.tx.clone().expect("sender lives until drop"),
            pool: self.pool.clone(),
        }
    }

    /// The device (`None` for the CPU executor).
    pub fn info(&self) -> Option<&DeviceInfo> {
        self.info.as_ref()
    }

    /// The pool of staged buffers the workers fill ([`DispatchHandle::new_batch`]).
    pub fn staging(&self) -> &Arc<StagingPool> {
        &self.pool
    }

    /// What the dispatcher merged, moved and waited for.
    pub fn stats(&self) -> &Arc<DispatchStats> {
        &self.stats
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

//! Choosing the backend (`--gpu off|auto|on`, plus `cpu-sim`: the CPU executor behind the
//! dispatcher thread, for testing without a device) and running a batch on it, the same
//! way whichever it is.

use std::fmt;
use std::str::FromStr;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use crate::batch::Batch;
use crate::cache::DiskCache;
use crate::cpu::DfaJob;
use crate::device::{
    probe, AcReply, DeviceInfo, DispatchHandle, Dispatcher, GpuConfig, GpuDfaMatcher, GpuMatcher,
};
use crate::feeder::DispatchStats;
use crate::reports::{merge_ac, AcMatch, MergeStats};
use crate::tables::{AcTables, DfaSet};

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuMode {
    /// Never use a GPU.
    Off,
    /// Use a GPU when one works, else the CPU (one log line says which).
    #[default]
    Auto,
    /// Use a GPU; its absence is an error.
    On,
    /// Run the offload path with the CPU executor instead of a GPU (testing: the batches,
    /// kernels' semantics and merge are exercised without a device).
    CpuSim,
}

impl FromStr for GpuMode {
    type Err = OffloadError;
    fn from_str(s: &str) -> Result<GpuMode, OffloadError> {
        match s {
            "off" => Ok(GpuMode::Off),
            "auto" => Ok(GpuMode::Auto),
            "on" => Ok(GpuMode::On),
            "cpu-sim" => Ok(GpuMode::CpuSim),
            _ => Err(OffloadError(format!(
                "--gpu takes off, auto, on or cpu-sim, not {s:?}"
            ))),
        }
    }
}

/// An offload failure (no GPU with `--gpu on`, a device error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadError(pub String);

impl fmt::Display for OffloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OffloadError {}

/// The backend a mode resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU path only (no offload).
    Cpu,
    /// Offload batches to the CPU executor.
    CpuSim,
    /// Offload batches to this GPU.
    Gpu(DeviceInfo),
    /// A GPU may be there (its device nodes are): device `ordinal` is probed where the
    /// offload is set up — in the background thread, off the packets' critical path
    /// (CUDA's initialisation and context creation take a few hundred milliseconds) — and
    /// the CPU carries on alone when there is none.
    Probe(usize),
}

impl GpuMode {
    /// Resolve the mode on this machine: the backend and the one log line that says so.
    /// `On` without a usable GPU is an error.
    pub fn resolve(self, ordinal: usize) -> Result<(Backend, String), OffloadError> {
        match self {
            GpuMode::Off => Ok((Backend::Cpu, "GPU: off, running on the CPU".into())),
            GpuMode::CpuSim => Ok((
                Backend::CpuSim,
                "GPU: simulated by the CPU executor (testing)".into(),
            )),
            GpuMode::Auto | GpuMode::On => match probe(ordinal) {
                Ok(info) => {
                    let line = format!(
                        "GPU: {} (device {}, compute {}.{}, {} MiB)",
                        info.name,
                        info.ordinal,
                        info.compute_capability.0,
                        info.compute_capability.1,
                        info.total_mem >> 20
                    );
                    Ok((Backend::Gpu(info), line))
                }
                Err(e) if self == GpuMode::Auto => Ok((
                    Backend::Cpu,
                    format!("GPU: none ({}), running on the CPU", e.0),
                )),
                Err(e) => Err(OffloadError(format!("--gpu on: {e}"))),
            },
        }
    }

    /// [`GpuMode::resolve`] for a run, with nothing slow on the caller's thread: `Auto`
    /// only looks for the NVIDIA device nodes ([`device_nodes_present`], a `stat`) and
    /// resolves to [`Backend::Probe`], leaving the driver's initialisation and the device
    /// query to the set-up thread; without the nodes it is the CPU at once, with the
    /// reason. `On` probes here (its absence must stop the run before it starts), `Off`
    /// and `CpuSim` are as in `resolve`.
    pub fn resolve_deferred(self, ordinal: usize) -> Result<(Backend, String), OffloadError> {
        match self {
            GpuMode::Auto if device_nodes_present() => Ok((
                Backend::Probe(ordinal),
                format!("GPU: auto, device {ordinal} probed in the background"),
            )),
            GpuMode::Auto => Ok((
                Backend::Cpu,
                "GPU: none (no NVIDIA device node: /dev/nvidiactl), running on the CPU".into(),
            )),
            _ => self.resolve(ordinal),
        }
    }
}

/// True when the NVIDIA driver's device nodes are there (`/dev/nvidiactl`, or `/dev/dxg`
/// under WSL): without them no CUDA device can be opened, so `--gpu auto` needs to load
/// nothing to know there is no GPU.
pub fn device_nodes_present() -> bool {
    ["/dev/nvidiactl", "/dev/dxg"]
        .iter()
        .any(|p| std::path::Path::new(p).exists())
}

/// Aho-Corasick offload for one worker: a batch in, confirmed matches out, through the
/// dispatcher thread (a GPU, or the CPU executor with [`Backend::CpuSim`]).
pub struct AcOffload {
    tables: Arc<AcTables>,
    handle: DispatchHandle,
    report_cap: u32,
    dfa_kernel_ns: Option<u64>,
}

/// The shared part: tables and the dispatcher thread. Workers take an [`AcOffload`] each
/// from [`Offload::worker`].
pub struct Offload {
    tables: Arc<AcTables>,
    dispatcher: Dispatcher,
    report_cap: u32,
    has_dfas: bool,
}

impl Offload {
    /// Set up offload of `tables` (and the regex DFAs `dfas`, when given) on `backend`
    /// (`None` for [`Backend::Cpu`]: nothing to offload to): the GPU's dispatcher thread,
    /// or for [`Backend::CpuSim`] one that runs the CPU executor with `cfg.layout` and
    /// `cfg.report_cap`.
    pub fn new(
        backend: &Backend,
        tables: Arc<AcTables>,
        dfas: Option<Arc<DfaSet>>,
        cfg: GpuConfig,
    ) -> Result<Option<Offload>, OffloadError> {
        Self::with_cache(backend, tables, dfas, cfg, None)
    }

    /// [`Offload::new`] with the kernels' PTX taken from (or stored in) `cache`.
    pub fn with_cache(
        backend: &Backend,
        tables: Arc<AcTables>,
        dfas: Option<Arc<DfaSet>>,
        cfg: GpuConfig,
        cache: Option<&DiskCache>,
    ) -> Result<Option<Offload>, OffloadError> {
        let mut has_dfas = dfas.as_ref().is_some_and(|d| !d.is_empty());
        let probed;
        let backend = match backend {
            Backend::Probe(ordinal) => {
                probed = Backend::Gpu(probe(*ordinal).map_err(|e| OffloadError(e.to_string()))?);
                &probed
            }
            b => b,
        };
        let dispatcher = match backend {
            Backend::Cpu => return Ok(None),
            Backend::Probe(_) => unreachable!("probed above"),
            Backend::CpuSim => {
                Dispatcher::spawn_cpu(tables.clone(), dfas.filter(|d| !d.is_empty()), cfg)
                    .map_err(OffloadError)?
            }
            Backend::Gpu(info) => {
                let m = GpuMatcher::with_cache(
                    &tables,
                    GpuConfig {
                        ordinal: info.ordinal,
                        ..cfg
                    },
                    cache,
                )
                .map_err(OffloadError)?;
                // A DFA kernel that does not set up leaves the regexes to the CPU
                // (`has_dfas` false); the Aho-Corasick offload still runs.
                let d = dfas
                    .filter(|d| !d.is_empty())
                    .and_then(|set| GpuDfaMatcher::with_cache(&set, info.ordinal, cache).ok());
                has_dfas = d.is_some();
                Dispatcher::spawn_with_dfa(m, d).map_err(OffloadError)?
            }
        };
        Ok(Some(Offload {
            tables,
            dispatcher,
            report_cap: cfg.report_cap,
            has_dfas,
        }))
    }

    /// A per-worker handle.
    pub fn worker(&self) -> AcOffload {
        AcOffload {
            tables: self.tables.clone(),
            handle: self.dispatcher.handle(),
            report_cap: self.report_cap,
            dfa_kernel_ns: None,
        }
    }

    /// True when regex-DFA jobs can be submitted ([`AcOffload::run_dfa`]): a non-empty
    /// DFA set was given and (on a GPU) its kernel set up.
    pub fn has_dfas(&self) -> bool {
        self.has_dfas
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<AcTables> {
        &self.tables
    }

    /// The device (`None` for the CPU executor).
    pub fn device(&self) -> Option<&DeviceInfo> {
        self.dispatcher.info()
    }

    /// The dispatcher's counters (device batches, merged requests, bytes each way).
    pub fn dispatch_stats(&self) -> &Arc<DispatchStats> {
        self.dispatcher.stats()
    }
}

/// A batch handed to the dispatcher ([`AcOffload::submit`]): the worker goes on with
/// other work and takes the matches with [`AcOffload::complete`] when it needs them.
pub struct PendingScan {
    rx: Receiver<AcReply>,
    reply: Option<AcReply>,
}

impl PendingScan {
    /// True once the reply is back ([`AcOffload::complete`] will not wait). Never blocks.
    pub fn is_done(&mut self) -> bool {
        if self.reply.is_none() {
            match self.rx.try_recv() {
                Ok(r) => self.reply = Some(r),
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.reply = Some(Err("GPU dispatcher stopped".into()))
                }
            }
        }
        self.reply.is_some()
    }

    fn wait(self) -> AcReply {
        match self.reply {
            Some(r) => r,
            None => self
                .rx
                .recv()
                .unwrap_or_else(|_| Err("GPU dispatcher stopped".into())),
        }
    }
}

impl fmt::Debug for Offload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Offload")
            .field("groups", &self.tables.num_groups())
            .field("device", &self.device().map(|d| &d.name))
            .finish()
    }
}

impl AcOffload {
    /// Match `batch` and append its confirmed matches to `out` (sorted by packet, end,
    /// pattern id); the batch comes back for reuse (also after an error, when the
    /// dispatcher could return it).
    pub fn scan(
        &mut self,
        batch: Batch,
        out: &mut Vec<AcMatch>,
    ) -> Result<(Batch, MergeStats), OffloadError> {
        let pending = self.submit(batch);
        self.complete(pending, out)
    }

    /// An empty staged batch from the dispatcher's pool: the worker writes its payloads
    /// straight into the memory the device copies from (page-locked on a GPU), so the
    /// dispatcher copies no payload; its results come back into the batch's own rows.
    /// Dropped, it goes back to the pool's free list. Past the pool's bound an ordinary
    /// batch (`osprey.gpu.dispatch_staging_exhausted`).
    pub fn new_batch(&self) -> Batch {
        self.handle.new_batch()
    }

    /// Hand `batch` to the dispatcher and return at once: the dispatcher may merge it with
    /// other workers' batches into one device batch.
    pub fn submit(&mut self, batch: Batch) -> PendingScan {
        PendingScan {
            rx: self.handle.submit(batch),
            reply: None,
        }
    }

    /// The matches of a submitted batch ([`AcOffload::scan`]'s result), waiting for them
    /// when they are not back yet.
    pub fn complete(
        &mut self,
        pending: PendingScan,
        out: &mut Vec<AcMatch>,
    ) -> Result<(Batch, MergeStats), OffloadError> {
        let (mut batch, rows) = pending.wait().map_err(OffloadError)?;
        let t = std::time::Instant::now();
        // The worker's own rows: the split of a device batch's results is each worker
        // reading its part, here, not the dispatcher.
        let mut stats = merge_ac(&self.tables, &batch, &rows, out);
        stats.merge_ns = Some(t.elapsed().as_nanos().min(u64::MAX as u128) as u64);
        // The rows travel with the buffer to its next use.
        batch.set_rows(rows);
        Ok((batch, stats))
    }

    /// Run regex-DFA `jobs` over `batch` (the buffer just scanned, say) and write each
    /// job's earliest match end or [`crate::cpu::NO_MATCH`] to `out`; the batch and jobs
    /// come back for reuse.
    pub fn run_dfa(
        &mut self,
        batch: Batch,
        jobs: Vec<DfaJob>,
        out: &mut Vec<u32>,
    ) -> Result<(Batch, Vec<DfaJob>), OffloadError> {
        let (batch, jobs, ends, kernel_ns) = self
            .handle
            .submit_dfa(batch, jobs)
            .recv()
            .map_err(|_| OffloadError("GPU dispatcher stopped".into()))?
            .map_err(OffloadError)?;
        *out = ends;
        self.dfa_kernel_ns = kernel_ns;
        Ok((batch, jobs))
    }

    /// How long the kernel of the last [`AcOffload::run_dfa`] ran (nanoseconds), when its
    /// executor timed it (device time on a GPU, the executor's run on the CPU).
    pub fn dfa_kernel_ns(&self) -> Option<u64> {
        self.dfa_kernel_ns
    }

    /// Report slots per packet.
    pub fn report_cap(&self) -> u32 {
        self.report_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_sim_runs_batches_through_the_dispatcher_thread() {
        use mpm::{DfaTables, Limits, Pattern};
        let groups = [
            DfaTables::build(&[Pattern::new(&b"attack"[..], 7)], &Limits::default()).unwrap(),
            DfaTables::build(&[Pattern::nocase(&b"EVIL"[..], 9)], &Limits::default()).unwrap(),
        ];
        let tables = Arc::new(AcTables::new(&groups).unwrap());
        let cfg = GpuConfig {
            report_cap: 2,
            ..GpuConfig::default()
        };
        let off = Offload::new(&Backend::CpuSim, tables, None, cfg)
            .unwrap()
            .unwrap();
        assert!(off.device().is_none());
        assert!(!off.has_dfas());
        assert!(off
            .worker()
            .run_dfa(Batch::new(1, 16), vec![DfaJob::default()], &mut Vec::new())
            .is_err());
        assert!(Offload::new(&Backend::Cpu, off.tables().clone(), None, cfg)
            .unwrap()
            .is_none());
        // Two workers at once; one packet overflows its row (3 matches, 2 slots).
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let mut w = off.worker();
                std::thread::spawn(move || {
                    let mut b = Batch::new(8, 1024);
                    b.push(0, b"an attack").unwrap();
                    b.push(1, b"evil attack").unwrap();
                    b.push(1, b"eViL EVIL evil").unwrap();
                    b.push(5, b"attack, unknown group").unwrap();
                    let mut out = Vec::new();
                    let (b, stats) = w.scan(b, &mut out).unwrap();
                    assert_eq!(b.len(), 4, "the batch comes back");
                    assert_eq!(stats.overflowed, 1);
                    // The CPU executor times its kernel; the merge is timed too.
                    assert!(stats.kernel_ns.is_some() && stats.merge_ns.is_some());
                    let got: Vec<(u32, u32, u32)> =
                        out.iter().map(|m| (m.packet, m.pattern, m.end)).collect();
                    assert_eq!(
                        got,
                        vec![(0, 7, 9), (1, 9, 4), (2, 9, 4), (2, 9, 9), (2, 9, 14)]
                    );
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn the_dispatcher_merges_workers_batches_and_no_worker_waits_for_its_own() {
        use mpm::{DfaTables, Limits, Pattern};
        let group =
            DfaTables::build(&[Pattern::new(&b"attack"[..], 7)], &Limits::default()).unwrap();
        let tables = Arc::new(AcTables::new(&[group]).unwrap());
        let latency = std::time::Duration::from_millis(300);
        let cfg = GpuConfig {
            sim_latency: latency,
            ..GpuConfig::default()
        };
        let off = Offload::new(&Backend::CpuSim, tables, None, cfg)
            .unwrap()
            .unwrap();
        // Three workers, each with its own batch: the first device batch goes out alone,
        // the two submitted while it is "on the device" are merged into the next.
        let mut workers: Vec<AcOffload> = (0..3).map(|_| off.worker()).collect();
        let t = std::time::Instant::now();
        let mut pending: Vec<PendingScan> = workers
            .iter_mut()
            .enumerate()
            .map(|(k, w)| {
                // Written straight into a staged buffer of the dispatcher's pool.
                let mut b = w.new_batch();
                assert!(
                    b.is_staged() && !b.is_pinned(),
                    "ordinary memory in cpu-sim"
                );
                b.push(0, format!("worker {k}: an attack").as_bytes())
                    .unwrap();
                b.push(0, b"nothing").unwrap();
                w.submit(b)
            })
            .collect();
        // Submitting never waits for the executor, and the worker can ask without waiting.
        assert!(t.elapsed() < latency / 3, "{:?}", t.elapsed());
        assert!(!pending[2].is_done());
        assert!(t.elapsed() < latency / 3, "is_done does not block");
        for (k, (w, p)) in workers.iter_mut().zip(pending.drain(..)).enumerate() {
            let mut out = Vec::new();
            let (mut b, _) = w.complete(p, &mut out).unwrap();
            assert_eq!(b.len(), 2, "worker {k} gets its own batch back");
            assert!(b.is_staged());
            let rows = b.take_rows().expect("its rows travel with it");
            assert!(rows.packets() == 2 && rows.row(0).len() == 1);
            b.set_rows(rows);
            let got: Vec<_> = out.iter().map(|m| (m.packet, m.pattern, m.end)).collect();
            assert_eq!(got, vec![(0, 7, 19)], "worker {k}");
        }
        let c: std::collections::HashMap<_, _> =
            off.dispatch_stats().counters().into_iter().collect();
        assert_eq!(c["osprey.gpu.dispatch_requests"], 3);
        assert_eq!(c["osprey.gpu.dispatch_packets"], 6);
        assert!(c["osprey.gpu.dispatch_device_batches"] <= 2, "{c:?}");
        assert!(c["osprey.gpu.dispatch_merged_requests"] >= 2, "{c:?}");
        assert!(c["osprey.gpu.dispatch_max_merged"] >= 2, "{c:?}");
        assert!(c["osprey.gpu.dispatch_wait_ns"] >= latency.as_nanos() as u64);
        // Per request: payloads padded to 32 and 16 bytes, 12 bytes of entries each.
        assert_eq!(c["osprey.gpu.dispatch_bytes_h2d"], 3 * (32 + 16 + 2 * 12));
        // Counters back for every payload, and one slot per row (the fullest row's).
        assert_eq!(c["osprey.gpu.dispatch_bytes_d2h"], 6 * 4 + 6 * 8);
        // No payload copied on the host: 12 bytes of entries and 4 of counters each.
        assert_eq!(c["osprey.gpu.dispatch_host_copy_bytes"], 6 * 16);
        assert!(c["osprey.gpu.dispatch_host_ns"] > 0);
        assert_eq!(c["osprey.gpu.dispatch_unstaged_requests"], 0);
        assert_eq!(c["osprey.gpu.dispatch_staging_buffers"], 3);
        // The buffers went back to the pool's free list (dropped above) and are reused.
        let again = workers[0].new_batch();
        assert!(again.is_staged());
        assert_eq!(off.dispatcher.staging().free_buffers(), 2);
        drop(again);
        let c: std::collections::HashMap<_, _> =
            off.dispatch_stats().counters().into_iter().collect();
        assert_eq!(
            c["osprey.gpu.dispatch_staging_buffers"], 3,
            "no new allocation"
        );
    }

    #[test]
    fn cpu_sim_runs_dfa_jobs_on_the_batch_it_scanned() {
        use mpm::{DfaTables, Limits, Pattern, PlainDfa};
        let group = DfaTables::build(&[Pattern::new(&b"ab"[..], 1)], &Limits::default()).unwrap();
        let tables = Arc::new(AcTables::new(&[group]).unwrap());
        // "contains an a": state 1 matches.
        let mut trans = vec![0u32; 512];
        trans[b'a' as usize] = 1;
        trans[256..].fill(1);
        let dfa = PlainDfa::new(2, 0, trans, vec![0, PlainDfa::MATCH]).unwrap();
        let set = Arc::new(DfaSet::new(&[dfa], 5_000).unwrap());
        let off = Offload::new(
            &Backend::CpuSim,
            tables,
            Some(set.clone()),
            GpuConfig::default(),
        )
        .unwrap()
        .unwrap();
        assert!(off.has_dfas());
        let mut w = off.worker();
        let mut b = Batch::new(8, 1024);
        b.push(0, b"xxab").unwrap();
        b.push(0, b"zzzz").unwrap();
        let mut found = Vec::new();
        let (b, _) = w.scan(b, &mut found).unwrap();
        assert_eq!(found.len(), 1);
        let jobs = vec![
            DfaJob { packet: 0, dfa: 0 },
            DfaJob { packet: 1, dfa: 0 },
            DfaJob { packet: 9, dfa: 0 },
        ];
        let mut ends = Vec::new();
        assert_eq!(w.dfa_kernel_ns(), None);
        let (b, jobs) = w.run_dfa(b, jobs, &mut ends).unwrap();
        assert!(w.dfa_kernel_ns().is_some(), "the executor timed the kernel");
        let mut want = Vec::new();
        crate::cpu::run_dfa(&set, &b, &jobs, &mut want);
        assert_eq!(ends, want);
        assert_eq!(ends[1..], [crate::cpu::NO_MATCH, crate::cpu::NO_MATCH]);
        assert_ne!(ends[0], crate::cpu::NO_MATCH);
    }

    #[test]
    fn modes_parse_and_resolve() {
        assert_eq!("auto".parse::<GpuMode>(), Ok(GpuMode::Auto));
        assert_eq!("cpu-sim".parse::<GpuMode>(), Ok(GpuMode::CpuSim));
        assert!("yes".parse::<GpuMode>().is_err());
        assert_eq!(GpuMode::Off.resolve(0).unwrap().0, Backend::Cpu);
        // Auto never fails: either a GPU or the CPU with the reason in one line.
        let (b, line) = GpuMode::Auto.resolve(0).unwrap();
        match b {
            Backend::Cpu => {
                assert!(line.starts_with("GPU: none (") && line.ends_with("running on the CPU"));
                assert!(GpuMode::On.resolve(0).is_err());
            }
            Backend::Gpu(_) => assert!(GpuMode::On.resolve(0).is_ok()),
            Backend::CpuSim | Backend::Probe(_) => unreachable!(),
        }
        // Deferred: a stat, never the driver; `On` still probes at once.
        let (b, line) = GpuMode::Auto.resolve_deferred(0).unwrap();
        assert_eq!(device_nodes_present(), b == Backend::Probe(0), "{line}");
        if b == Backend::Cpu {
            assert!(line.starts_with("GPU: none (") && line.ends_with("running on the CPU"));
        }
        assert_eq!(
            GpuMode::CpuSim.resolve_deferred(0).unwrap().0,
            Backend::CpuSim
        );
        // An absent device is a reason, not a panic.
        assert!(GpuMode::On.resolve(4096).is_err());
    }
}

//! GPU set-up off the critical path (issue 27, point 1).
//!
//! [`GpuOffload::start`] returns at once; a background thread builds the offload plan
//! (signature groups, regex DFAs), the AC-Full tables of every group and the device side
//! (context, PTX, uploads, the dispatcher thread) while the workers run every cycle on
//! the CPU (`osprey.gpu.setup_pending` counts those cycles). The GPU joins when
//! [`GpuOffload::ready`] says so: each worker's offload stage takes its handle on its
//! next cycle.
//!
//! The AC tables and the kernels' PTX come from the [`DiskCache`] when it holds them
//! (keyed by the target — `compute_XY` or `cpu-sim` — and a hash of the groups' patterns
//! and table limits, or of the kernel source and NVRTC version), so a second run with the
//! same rules skips the builds. At the end of a run ([`GpuOffload::finish`]) the process
//! waits for an unfinished set-up only when that set-up is filling the cache (it missed):
//! that cost is paid once per rule set and target; with a warm cache a short capture is
//! never held up by the GPU's set-up.
//!
//! **Nothing slow on the packets' path.** With `--gpu auto` the caller resolves the mode
//! to [`Backend::Probe`] (a `stat` of the device nodes): CUDA's initialisation, the device
//! query and the context creation run first thing in the set-up thread, not before the
//! capture starts. A set-up still running at the end of a run that hit the cache (or has
//! not reached it) is abandoned, not joined: the process exits under it, and the cache
//! files it may be writing are written to a temporary name and renamed, so nothing is
//! torn. A finished offload is handed to the process's exit with
//! [`GpuOffload::keep_until_exit`] rather than freed piece by piece (device memory,
//! pinned buffers, the context).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use detect::{Detector, OffloadPlan};
use gpu::cache::{decode_dfas, decode_tables, encode_dfas, encode_tables, CacheKey, DiskCache};
use gpu::{AcTables, Backend, DeviceInfo, DfaSet, Offload};

use crate::offload::GpuSettings;

/// The built offload: plan, tables and dispatcher.
pub(crate) struct Ready {
    pub(crate) plan: OffloadPlan,
    pub(crate) offload: Offload,
}

/// Offload shared by the workers: the detector it was built for, and the offload once
/// the background set-up has built it.
pub struct GpuOffload {
    detector: Arc<Detector>,
    settings: GpuSettings,
    state: OnceLock<Result<Arc<Ready>, String>>,
    builder: Mutex<Option<JoinHandle<()>>>,
    cache: Option<DiskCache>,
    started: Instant,
    took: OnceLock<Duration>,
    /// The device the set-up found (a GPU backend, once probed).
    device: OnceLock<DeviceInfo>,
    /// Held by tests to stop the set-up just before the device side (where CUDA's context
    /// is created), after the cache lookups.
    gate: Option<Arc<Mutex<()>>>,
}

impl std::fmt::Debug for GpuOffload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuOffload")
            .field("ready", &self.ready().is_some())
            .field("settings", &self.settings)
            .finish()
    }
}

/// The cache target of `backend`.
fn target(backend: &Backend) -> String {
    match backend {
        Backend::Gpu(info) => format!(
            "compute_{}{}",
            info.compute_capability.0, info.compute_capability.1
        ),
        _ => "cpu-sim".into(),
    }
}

/// The cache key of the AC tables of `plan`'s groups under `limits`.
fn tables_key(plan: &OffloadPlan, limits: &mpm::Limits, target: &str) -> CacheKey {
    let mut words = Vec::new();
    words.extend_from_slice(&(limits.memory as u64).to_le_bytes());
    for g in plan.groups() {
        words.extend_from_slice(&(g.len() as u64).to_le_bytes());
        for p in g {
            words.extend_from_slice(&p.id.to_le_bytes());
            words.push(u8::from(p.nocase));
            words.extend_from_slice(&(p.bytes.len() as u32).to_le_bytes());
            words.extend_from_slice(&p.bytes);
        }
    }
    CacheKey::new("ac-tables", target, &[&words])
}

/// The cache key of the regex DFAs of `sources` (what [`OffloadPlan::pcre_sources`]
/// lists): the same for every target, the DFAs are the CPU's tables.
fn dfas_key(sources: &[(String, rules::PcreFlags)]) -> CacheKey {
    let mut words = Vec::new();
    words.extend_from_slice(&detect::PCRE_DFA_MAX_STATES.to_le_bytes());
    for (text, flags) in sources {
        words.extend_from_slice(&(text.len() as u64).to_le_bytes());
        words.extend_from_slice(text.as_bytes());
        words.extend_from_slice(format!("{flags:?}").as_bytes());
        words.push(0);
    }
    CacheKey::new("pcre-dfas", "any", &[&words])
}

/// The offload plan of `detector`, its regex DFAs taken from `cache` when it holds them
/// (they are most of the plan's build time: seconds for ET Open), else built and stored.
fn plan_with_cache(detector: &Arc<Detector>, cache: Option<&DiskCache>) -> OffloadPlan {
    let Some(cache) = cache else {
        return OffloadPlan::build(detector);
    };
    let sources = OffloadPlan::pcre_sources(detector);
    let build = || -> Result<Vec<Option<mpm::PlainDfa>>, ()> {
        Ok(sources
            .iter()
            .map(|s| detect::pcre_dfa(&s.0, s.1, detect::PCRE_DFA_MAX_STATES).ok())
            .collect())
    };
    let dfas = cache
        .get_or_build(
            &dfas_key(&sources),
            |b| decode_dfas(b).filter(|d| d.len() == sources.len()),
            |d| encode_dfas(d),
            build,
        )
        .unwrap_or_default();
    let mut next = 0;
    OffloadPlan::build_with(detector, &mut |src| {
        let i = next;
        next += 1;
        match (sources.get(i), dfas.get(i)) {
            (Some(s), Some(d)) if s == src => d.clone(),
            // Not the order the key was made from (cannot happen with the same detector):
            // build it.
            _ => detect::pcre_dfa(&src.0, src.1, detect::PCRE_DFA_MAX_STATES).ok(),
        }
    })
}

impl GpuOffload {
    /// Set up offload of `detector`'s payload prefilter on `backend` and wait for it; `None`
    /// for [`Backend::Cpu`]. Fails when the tables cannot be built or the device not set
    /// up. (A run uses [`GpuOffload::start`]: the same, in the background.)
    pub fn new(
        detector: &Arc<Detector>,
        backend: &Backend,
        settings: GpuSettings,
    ) -> Result<Option<Arc<GpuOffload>>, String> {
        let Some(off) = Self::start(detector, backend, settings, None) else {
            return Ok(None);
        };
        off.wait()?;
        Ok(Some(off))
    }

    /// Start setting up offload in a background thread (module docs), with `cache` for
    /// the tables and kernels; `None` for [`Backend::Cpu`].
    pub fn start(
        detector: &Arc<Detector>,
        backend: &Backend,
        settings: GpuSettings,
        cache: Option<DiskCache>,
    ) -> Option<Arc<GpuOffload>> {
        Self::start_gated(detector, backend, settings, cache, None)
    }

    fn start_gated(
        detector: &Arc<Detector>,
        backend: &Backend,
        settings: GpuSettings,
        cache: Option<DiskCache>,
        gate: Option<Arc<Mutex<()>>>,
    ) -> Option<Arc<GpuOffload>> {
        if matches!(backend, Backend::Cpu) {
            return None;
        }
        let off = Arc::new(GpuOffload {
            detector: detector.clone(),
            settings,
            state: OnceLock::new(),
            builder: Mutex::new(None),
            cache,
            started: Instant::now(),
            took: OnceLock::new(),
            device: OnceLock::new(),
            gate,
        });
        let (me, backend) = (off.clone(), backend.clone());
        let spawned = std::thread::Builder::new()
            .name("osprey-gpu-setup".into())
            .spawn(move || {
                let r = me.build(&backend).map(Arc::new);
                let _ = me.took.set(me.started.elapsed());
                let _ = me.state.set(r);
            });
        match spawned {
            Ok(h) => *off.builder.lock().unwrap_or_else(|e| e.into_inner()) = Some(h),
            Err(e) => {
                let _ = off.state.set(Err(format!("GPU set-up thread: {e}")));
            }
        }
        Some(off)
    }

    fn build(&self, backend: &Backend) -> Result<Ready, String> {
        let settings = self.settings;
        settings.balance.validate().map_err(|e| e.to_string())?;
        // `--gpu auto`: the driver is initialised and the device queried here, in the
        // background, not before the capture starts.
        let backend = &match backend {
            Backend::Probe(ordinal) => Backend::Gpu(gpu::probe(*ordinal).map_err(|e| e.0)?),
            b => b.clone(),
        };
        if let Backend::Gpu(info) = backend {
            let _ = self.device.set(info.clone());
        }
        let plan = plan_with_cache(&self.detector, self.cache.as_ref());
        let mut limits = mpm::Limits::default();
        if settings.table_memory > 0 {
            limits.memory = settings.table_memory;
        }
        let target = target(backend);
        let build = || {
            plan.groups()
                .iter()
                .map(|g| mpm::DfaTables::build(g, &limits))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("GPU tables: {e}"))
        };
        let groups = match &self.cache {
            Some(c) => c.get_or_build(
                &tables_key(&plan, &limits, &target),
                |b| decode_tables(b).filter(|g| g.len() == plan.groups().len()),
                |g| encode_tables(g),
                build,
            )?,
            None => build()?,
        };
        let tables = AcTables::new(&groups).map_err(|e| format!("GPU tables: {e}"))?;
        let dfas = if plan.pcre_dfas().is_empty() {
            None
        } else {
            let set = DfaSet::new(plan.pcre_dfas(), detect::PCRE_DFA_MAX_STATES)
                .map_err(|e| format!("GPU regex DFAs: {e}"))?;
            Some(Arc::new(set))
        };
        let _held = self
            .gate
            .as_ref()
            .map(|g| g.lock().unwrap_or_else(|e| e.into_inner()));
        let offload = Offload::with_cache(
            backend,
            Arc::new(tables),
            dfas,
            settings.device,
            self.cache.as_ref(),
        )
        .map_err(|e| e.to_string())?
        .ok_or("no offload backend")?;
        Ok(Ready { plan, offload })
    }

    /// The offload, once the set-up is done (and did not fail).
    pub(crate) fn ready(&self) -> Option<&Arc<Ready>> {
        self.state.get().and_then(|r| r.as_ref().ok())
    }

    /// Wait for the set-up; its error when it failed.
    pub fn wait(&self) -> Result<(), String> {
        let h = self
            .builder
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(h) = h {
            let _ = h.join();
        }
        match self.state.get() {
            Some(Ok(_)) => Ok(()),
            Some(Err(e)) => Err(e.clone()),
            None => Err("GPU set-up thread ended without a result".into()),
        }
    }

    /// At the end of a run: the set-up's outcome so far, after waiting for it only when it
    /// is filling the cache (module docs). `None`: still setting up (not waited for).
    pub fn finish(&self) -> Option<Result<(), String>> {
        let filling = self.cache.as_ref().is_some_and(|c| {
            let s = c.stats();
            s.misses.load(Ordering::Relaxed) + s.rejected.load(Ordering::Relaxed) > 0
        });
        if self.state.get().is_none() && !filling {
            return None;
        }
        Some(self.wait())
    }

    /// Hand the offload to the process's exit: its device memory, pinned buffers, CUDA
    /// context and dispatcher thread are released with the process instead of one by one
    /// (tens to hundreds of milliseconds with a GPU) when the run is over. For a program's
    /// last use only: nothing of it is freed before the process ends.
    pub fn keep_until_exit(this: Arc<GpuOffload>) {
        std::mem::forget(this);
    }

    /// The GPU the set-up found, once probed (`None` for the CPU executor).
    pub fn device(&self) -> Option<&DeviceInfo> {
        self.device.get()
    }

    /// The detector this offload was built for.
    pub fn detector(&self) -> &Arc<Detector> {
        &self.detector
    }

    /// The settings.
    pub fn settings(&self) -> &GpuSettings {
        &self.settings
    }

    /// Bytes of matcher tables on the device (0 until ready).
    pub fn device_bytes(&self) -> usize {
        self.ready()
            .map_or(0, |r| r.offload.tables().device_bytes())
    }

    /// How long the set-up took, once done.
    pub fn setup_time(&self) -> Option<Duration> {
        self.took.get().copied()
    }

    /// Engine-wide counters under `osprey.gpu.` (not per worker): the cache's, the
    /// set-up time in milliseconds and the dispatcher's (`dispatch_*`: device batches,
    /// requests merged, bytes each way, time waiting for the device).
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<_> = self
            .cache
            .iter()
            .flat_map(|c| c.stats().counters())
            .collect();
        if let Some(t) = self.setup_time() {
            v.push(("osprey.gpu.setup_ms", t.as_millis() as u64));
        }
        if let Some(r) = self.ready() {
            v.extend(r.offload.dispatch_stats().counters());
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn detector() -> Arc<Detector> {
        let (set, _) = rules::RuleSet::load_str(
            "alert tcp any any -> any any (msg:\"a\"; content:\"attack\"; sid:1;)\n\
             alert tcp any any -> any any (msg:\"b\"; content:\"evil\"; pcre:\"/evil[0-9]/\"; sid:2;)\n",
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

    fn cache_dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "osprey-offload-setup-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// Wait until `f` holds (the set-up thread reaching a point), at most 30 s.
    fn until(f: impl Fn() -> bool) {
        let t = Instant::now();
        while !f() {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "set-up never got there"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn a_warm_cache_set_up_still_running_at_the_end_is_abandoned_not_joined() {
        let det = detector();
        let dir = cache_dir("warm");
        // Fill the cache.
        let cold = GpuOffload::start(
            &det,
            &Backend::CpuSim,
            GpuSettings::default(),
            Some(DiskCache::new(&dir)),
        )
        .unwrap();
        cold.wait().unwrap();
        // Two entries: the regex DFAs and the AC tables.
        assert!(cold.counters().contains(&("osprey.gpu.cache_misses", 2)));
        let plain = OffloadPlan::build(&det);
        let cached = plan_with_cache(&det, Some(&DiskCache::new(&dir)));
        assert_eq!(plain.pcre_dfas(), cached.pcre_dfas());
        assert_eq!(cached.pcre_dfas().len(), 1);
        // Warm: the set-up is held just before the device side (where CUDA's context is
        // created), after its cache lookups hit.
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let cache = DiskCache::new(&dir);
        let stats = cache.stats().clone();
        let warm = GpuOffload::start_gated(
            &det,
            &Backend::CpuSim,
            GpuSettings::default(),
            Some(cache),
            Some(gate.clone()),
        )
        .unwrap();
        until(|| stats.hits.load(Ordering::Relaxed) == 2);
        let t = Instant::now();
        assert!(warm.finish().is_none(), "not ready, not waited for");
        assert!(t.elapsed() < Duration::from_millis(50), "{:?}", t.elapsed());
        assert!(
            warm.builder.lock().unwrap().is_some(),
            "the set-up thread was not joined"
        );
        assert_eq!(stats.misses.load(Ordering::Relaxed), 0);
        drop(held);
        warm.wait().unwrap();
        assert!(warm.ready().is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_set_up_filling_the_cache_is_waited_for_at_the_end() {
        let det = detector();
        let dir = cache_dir("cold");
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let cache = DiskCache::new(&dir);
        let stats = cache.stats().clone();
        let off = GpuOffload::start_gated(
            &det,
            &Backend::CpuSim,
            GpuSettings::default(),
            Some(cache),
            Some(gate.clone()),
        )
        .unwrap();
        until(|| stats.misses.load(Ordering::Relaxed) == 2);
        let t = Instant::now();
        let ending = off.clone();
        let end = std::thread::spawn(move || ending.finish());
        std::thread::sleep(Duration::from_millis(100));
        drop(held);
        // The cache is being filled: finish waited for it (paid once per rule set).
        assert_eq!(end.join().unwrap(), Some(Ok(())));
        assert!(t.elapsed() >= Duration::from_millis(90));
        assert!(off.builder.lock().unwrap().is_none(), "joined");
        assert!(off.device().is_none(), "the CPU executor has no device");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Controlling a running engine from other threads: stop (signals), swap the rules
//! (reload), ask for a statistics snapshot. Workers look at the control block once per
//! batch (relaxed atomic loads: shared reads, no shared writes on the packet path).

use arc_swap::ArcSwapOption;
use detect::Detector;
use output::stats::StatsTree;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A handle on a run; clones share the same run.
#[derive(Clone, Default)]
pub struct Control {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    stop: Arc<AtomicBool>,
    detector: ArcSwapOption<Detector>,
    /// Bumped on each rule swap; workers compare it with the one they run.
    rules_generation: AtomicU64,
    /// Bumped to ask the workers for a statistics snapshot.
    stats_epoch: AtomicU64,
    /// Bumped to ask every output to reopen its files (log rotation).
    reopen_generation: AtomicU64,
    snapshots: Mutex<Vec<Option<StatsTree>>>,
    /// Run once the capture is open and the outputs are created (see
    /// [`Control::on_started`]).
    on_started: Mutex<Option<StartHook>>,
}

/// What [`Control::on_started`] runs.
type StartHook = Box<dyn FnOnce() -> Result<(), String> + Send>;

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("stopped", &self.is_stopped())
            .field("rules_generation", &self.rules_generation())
            .finish()
    }
}

impl Control {
    /// A fresh handle (not stopped, no rules swapped in).
    pub fn new() -> Self {
        Control::default()
    }

    /// Asks the run to stop: sources stop reading, queued packets are still inspected,
    /// outputs and statistics are flushed. Safe to call from any thread.
    pub fn stop(&self) {
        self.inner.stop.store(true, Ordering::SeqCst);
    }

    /// Whether [`stop`](Self::stop) was called (or the flag raised).
    pub fn is_stopped(&self) -> bool {
        self.inner.stop.load(Ordering::Relaxed)
    }

    /// The stop flag itself, e.g. for `signal_hook::flag::register` or
    /// `capture::LiveOptions::stop`.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.inner.stop.clone()
    }

    /// Replaces the rules of the running workers: each picks `detector` up before its
    /// next batch. Per-flow detection state (flowbits, matched transactions) starts
    /// afresh with the new rules.
    pub fn swap_detector(&self, detector: Arc<Detector>) {
        self.inner.detector.store(Some(detector));
        self.inner.rules_generation.fetch_add(1, Ordering::Release);
    }

    /// Reloads the rules as `args` says (the configuration, variables and rule files are
    /// read again) and swaps them in; on any error the running rules stay. Meant to run
    /// on a background thread while the workers go on. Returns the number of rules
    /// loaded.
    pub fn reload_rules(&self, args: &crate::SetupArgs) -> Result<usize, String> {
        let setup = crate::setup(args)?;
        let detector = setup
            .engine
            .detector
            .ok_or_else(|| "no rules were compiled".to_string())?;
        self.swap_detector(detector);
        Ok(setup.rules_loaded)
    }

    /// How many times the rules were swapped.
    pub fn rules_generation(&self) -> u64 {
        self.inner.rules_generation.load(Ordering::Acquire)
    }

    /// Asks every output to close and reopen its files (SIGHUP, the socket's
    /// `reopen-log-files`: Suricata's log-rotation contract). Outputs compare
    /// [`reopen_generation`](Self::reopen_generation) with the one they opened at.
    pub fn request_reopen(&self) {
        self.inner.reopen_generation.fetch_add(1, Ordering::Release);
    }

    /// Runs `hook` once the run has opened its capture (files or sockets) and created its
    /// outputs, before the first packet is inspected: the moment to drop privileges
    /// (`--user`) and to tell a waiting parent that the daemon is up. An error ends the
    /// run with that error.
    pub fn on_started(&self, hook: impl FnOnce() -> Result<(), String> + Send + 'static) {
        *self
            .inner
            .on_started
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(Box::new(hook));
    }

    /// Runs the [`on_started`](Self::on_started) hook, if any (once).
    pub(crate) fn started(&self) -> std::io::Result<()> {
        let hook = self
            .inner
            .on_started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match hook {
            Some(h) => h().map_err(std::io::Error::other),
            None => Ok(()),
        }
    }

    /// How many times a reopen was asked for.
    pub fn reopen_generation(&self) -> u64 {
        self.inner.reopen_generation.load(Ordering::Acquire)
    }

    /// The rules swapped in last (`None` before any swap).
    pub(crate) fn detector(&self) -> Option<Arc<Detector>> {
        self.inner.detector.load_full()
    }

    pub(crate) fn stats_epoch(&self) -> u64 {
        self.inner.stats_epoch.load(Ordering::Relaxed)
    }

    pub(crate) fn request_stats(&self) {
        self.inner.stats_epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// Prepares `workers` snapshot slots.
    pub(crate) fn set_workers(&self, workers: usize) {
        let mut s = self
            .inner
            .snapshots
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        s.clear();
        s.resize(workers, None);
    }

    /// Worker `k` publishes its counters.
    pub(crate) fn publish(&self, k: usize, stats: StatsTree) {
        let mut s = self
            .inner
            .snapshots
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = s.get_mut(k) {
            *slot = Some(stats);
        }
    }

    /// The latest published counters of every worker, merged.
    pub(crate) fn merged_snapshot(&self) -> StatsTree {
        let s = self
            .inner
            .snapshots
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut out = StatsTree::new();
        for t in s.iter().flatten() {
            crate::merge::merge_into(&mut out, t);
        }
        out
    }
}

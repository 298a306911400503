//! Controlling a running engine from other threads: stop (signals), swap the rules
//! (reload), ask for a statistics snapshot. Workers look at the control block once per
//! batch (relaxed atomic loads: shared reads, no shared writes on the packet path).

use arc_swap::ArcSwapOption;
use detect::Detector;
use output::stats::StatsTree;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// What the rules loaded last amount to (Suricata's `ruleset-stats`,
/// `ruleset-reload-time`, `ruleset-failed-rules`).
#[derive(Clone, Debug)]
pub struct RulesetInfo {
    /// Rules loaded into the detector.
    pub loaded: usize,
    /// Rules that failed to parse, validate or compile.
    pub failed: usize,
    /// Rules skipped because detection does not support them yet.
    pub skipped: usize,
    /// The messages of the rules that failed (file:line: reason).
    pub failed_messages: Vec<String>,
    /// When they were loaded.
    pub loaded_at: SystemTime,
}

impl RulesetInfo {
    /// The summary of a [`Setup`](crate::Setup), loaded now.
    pub fn of(setup: &crate::Setup) -> Self {
        RulesetInfo {
            loaded: setup.rules_loaded,
            failed: setup.rules_failed,
            skipped: setup.rules_unsupported,
            failed_messages: setup
                .notices
                .iter()
                .filter(|n| n.contains(": error: ") || n.contains(" skipped: failed "))
                .cloned()
                .collect(),
            loaded_at: SystemTime::now(),
        }
    }
}

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
    /// Bumped to ask the workers for a statistics snapshot (shared with live sources,
    /// which wake their idle workers when it changes).
    stats_epoch: Arc<AtomicU64>,
    /// Bumped to ask every output to reopen its files (log rotation).
    reopen_generation: AtomicU64,
    /// Per worker: the statistics epoch it answered and its counters then.
    snapshots: Mutex<Vec<Option<(u64, StatsTree)>>>,
    ruleset: Mutex<Option<RulesetInfo>>,
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
        let info = RulesetInfo::of(&setup);
        let detector = setup
            .engine
            .detector
            .ok_or_else(|| "no rules were compiled".to_string())?;
        self.swap_detector(detector);
        self.set_ruleset(info);
        Ok(setup.rules_loaded)
    }

    /// Records what the running rules amount to (done by
    /// [`reload_rules`](Self::reload_rules); the first load is recorded by the caller).
    pub fn set_ruleset(&self, info: RulesetInfo) {
        *self.inner.ruleset.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
    }

    /// What the running rules amount to, when recorded.
    pub fn ruleset(&self) -> Option<RulesetInfo> {
        self.inner
            .ruleset
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Live counters: asks every worker for a fresh snapshot (each answers before its
    /// next batch, so the packet path only pays a relaxed load per batch) and returns
    /// them merged, the same tree as stats.json's `stats` object. Waits at most
    /// `timeout` for the answers; a worker that does not answer in time (idle, waiting
    /// for input) contributes its previous snapshot. `None` when no run has workers.
    pub fn counters(&self, timeout: Duration) -> Option<StatsTree> {
        let epoch = self.inner.stats_epoch.fetch_add(1, Ordering::Relaxed) + 1;
        let deadline = Instant::now() + timeout;
        loop {
            {
                let s = self.snapshots();
                if s.is_empty() {
                    return None;
                }
                let fresh = s.iter().all(|t| matches!(t, Some((e, _)) if *e >= epoch));
                if fresh || Instant::now() >= deadline {
                    let mut out = StatsTree::new();
                    for (_, t) in s.iter().flatten() {
                        crate::merge::merge_into(&mut out, t);
                    }
                    return Some(out);
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn snapshots(&self) -> std::sync::MutexGuard<'_, Vec<Option<(u64, StatsTree)>>> {
        self.inner
            .snapshots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
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
    pub fn detector(&self) -> Option<Arc<Detector>> {
        self.inner.detector.load_full()
    }

    pub(crate) fn stats_epoch(&self) -> u64 {
        self.inner.stats_epoch.load(Ordering::Relaxed)
    }

    /// The statistics request counter, for a live source to wake its worker when a
    /// request comes while no frames do (see `capture::LiveOptions::wake`).
    pub(crate) fn stats_requests(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.inner.stats_epoch)
    }

    pub(crate) fn request_stats(&self) {
        self.inner.stats_epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// Prepares `workers` snapshot slots.
    pub(crate) fn set_workers(&self, workers: usize) {
        let mut s = self.snapshots();
        s.clear();
        s.resize(workers, None);
    }

    /// Worker `k` publishes its counters, answering statistics request `epoch`.
    pub(crate) fn publish(&self, k: usize, epoch: u64, stats: StatsTree) {
        if let Some(slot) = self.snapshots().get_mut(k) {
            *slot = Some((epoch, stats));
        }
    }

    /// The latest published counters of each worker (workers that have not published
    /// yet are left out).
    pub(crate) fn worker_snapshots(&self) -> Vec<StatsTree> {
        self.snapshots()
            .iter()
            .flatten()
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// The latest published counters of every worker, merged.
    pub(crate) fn merged_snapshot(&self) -> StatsTree {
        let s = self.snapshots();
        let mut out = StatsTree::new();
        for (_, t) in s.iter().flatten() {
            crate::merge::merge_into(&mut out, t);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_wait_for_fresh_answers() {
        let c = Control::new();
        assert!(
            c.counters(Duration::from_millis(1)).is_none(),
            "no workers yet"
        );
        c.set_workers(2);
        let worker = {
            let c = c.clone();
            std::thread::spawn(move || {
                // Two workers answering the first request they see, as poll() does.
                let mut answered = 0;
                while answered < 2 {
                    let e = c.stats_epoch();
                    if e > 0 {
                        let mut t = StatsTree::new();
                        t.add("decoder.pkts", 5);
                        c.publish(answered, e, t);
                        answered += 1;
                    }
                    std::thread::yield_now();
                }
            })
        };
        let t = c.counters(Duration::from_secs(10)).unwrap();
        worker.join().unwrap();
        assert_eq!(t.get("decoder.pkts"), Some(10));
        // A worker that does not answer leaves its previous snapshot, after the timeout.
        let t = c.counters(Duration::from_millis(20)).unwrap();
        assert_eq!(t.get("decoder.pkts"), Some(10));
    }

    #[test]
    fn ruleset_recorded() {
        let c = Control::new();
        assert!(c.ruleset().is_none());
        c.set_ruleset(RulesetInfo {
            loaded: 3,
            failed: 1,
            skipped: 0,
            failed_messages: vec!["r:1:1: error: x".into()],
            loaded_at: SystemTime::now(),
        });
        assert_eq!(c.ruleset().unwrap().loaded, 3);
    }
}

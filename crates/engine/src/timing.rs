//! Optional time per pipeline stage (`EngineConfig::stage_timing`): two clock reads
//! around each stage call when on, one branch when off.

use output::stats::StatsTree;
use std::time::{Duration, Instant};

/// The stages that are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    Decode = 0,
    Flow = 1,
    App = 2,
    Detect = 3,
    Output = 4,
}

const STAGES: usize = 5;

/// Accumulated nanoseconds per stage.
#[derive(Clone, Debug, Default)]
pub(crate) struct StageTimer {
    on: bool,
    ns: [u64; STAGES],
}

impl StageTimer {
    pub(crate) fn new(on: bool) -> Self {
        StageTimer {
            on,
            ns: [0; STAGES],
        }
    }

    /// The start of a timed call (`None` when timing is off).
    #[inline]
    pub(crate) fn start(&self) -> Option<Instant> {
        self.on.then(Instant::now)
    }

    /// Adds the time since `t` to `stage`.
    #[inline]
    pub(crate) fn stop(&mut self, stage: Stage, t: Option<Instant>) {
        if let Some(t) = t {
            self.ns[stage as usize] += t.elapsed().as_nanos() as u64;
        }
    }

    /// Adds `other`'s times to these.
    pub(crate) fn merge(&mut self, other: &StageTimer) {
        for (a, b) in self.ns.iter_mut().zip(other.ns) {
            *a += b;
        }
    }

    /// The times, when timing is on.
    pub(crate) fn times(&self) -> Option<StageTimes> {
        let d = |s: Stage| Duration::from_nanos(self.ns[s as usize]);
        self.on.then(|| StageTimes {
            decode: d(Stage::Decode),
            flow: d(Stage::Flow),
            app: d(Stage::App),
            detect: d(Stage::Detect),
            output: d(Stage::Output),
        })
    }
}

/// CPU time spent in each pipeline stage, summed over the workers (so it can exceed
/// the run's wall-clock time). Measured only with `EngineConfig::stage_timing`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// Link to transport decoding (tunnels included).
    pub decode: Duration,
    /// Flow table, IP defragmentation, TCP tracking and reassembly, idle-flow sweeps.
    pub flow: Duration,
    /// Application-layer parsing (HTTP, DNS, TLS) of stream bytes and datagrams.
    pub app: Duration,
    /// Detection: prefilter (multi-pattern matching) and option evaluation.
    pub detect: Duration,
    /// Turning alerts into EVE/fast.log lines and queueing them for the writers.
    pub output: Duration,
}

impl StageTimes {
    /// The stages with their names (`decode`, `flow`, `app`, `detect`, `output`).
    pub fn named(&self) -> [(&'static str, Duration); STAGES] {
        [
            ("decode", self.decode),
            ("flow", self.flow),
            ("app", self.app),
            ("detect", self.detect),
            ("output", self.output),
        ]
    }

    /// The sum of all stages.
    pub fn total(&self) -> Duration {
        self.named().iter().map(|(_, d)| *d).sum()
    }

    /// Adds `other` to these times.
    pub fn add(&mut self, other: &StageTimes) {
        self.decode += other.decode;
        self.flow += other.flow;
        self.app += other.app;
        self.detect += other.detect;
        self.output += other.output;
    }
}

/// The offline reader's own time, with stage timing: walking the capture's records
/// into batches (`read`) and hashing each frame's dispatch key and queueing it for its
/// worker (`dispatch`), without the time spent waiting for a full ring. Added to the
/// run's counters as `osprey.stage.read_ns` and `osprey.stage.dispatch_ns` (summed over
/// the dispatchers when there are several).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReaderTimer {
    on: bool,
    read_ns: u64,
    dispatch_ns: u64,
}

impl ReaderTimer {
    pub(crate) fn new(on: bool) -> Self {
        ReaderTimer {
            on,
            ..ReaderTimer::default()
        }
    }

    /// The start of a timed step (`None` when timing is off).
    #[inline]
    pub(crate) fn start(&self) -> Option<Instant> {
        self.on.then(Instant::now)
    }

    /// Adds the time since `t` to reading.
    #[inline]
    pub(crate) fn read(&mut self, t: Option<Instant>) {
        if let Some(t) = t {
            self.read_ns += t.elapsed().as_nanos() as u64;
        }
    }

    /// Adds the time since `t`, less `waited_ns` spent waiting, to dispatching.
    #[inline]
    pub(crate) fn dispatch(&mut self, t: Option<Instant>, waited_ns: u64) {
        if let Some(t) = t {
            self.dispatch_ns += (t.elapsed().as_nanos() as u64).saturating_sub(waited_ns);
        }
    }

    /// Adds `other`'s times to these.
    pub(crate) fn merge(&mut self, other: &ReaderTimer) {
        self.on |= other.on;
        self.read_ns += other.read_ns;
        self.dispatch_ns += other.dispatch_ns;
    }

    /// The times as counters, when timing is on.
    pub(crate) fn add_to(&self, stats: &mut StatsTree) {
        if self.on {
            stats.add("osprey.stage.read_ns", self.read_ns);
            stats.add("osprey.stage.dispatch_ns", self.dispatch_ns);
        }
    }
}

/// The pipeline stages' times as counters (`osprey.stage.<stage>_ns`, CPU time summed
/// over the workers): what `--stage-timing` adds to stats.json.
pub(crate) fn add_stage_counters(stats: &mut StatsTree, times: &StageTimes) {
    for (name, d) in times.named() {
        stats.add(&format!("osprey.stage.{name}_ns"), d.as_nanos() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_measures_nothing() {
        let mut t = StageTimer::new(false);
        let s = t.start();
        assert!(s.is_none());
        t.stop(Stage::Decode, s);
        assert!(t.times().is_none());
    }

    #[test]
    fn on_accumulates_per_stage() {
        let mut t = StageTimer::new(true);
        let s = t.start();
        std::thread::sleep(Duration::from_millis(2));
        t.stop(Stage::App, s);
        let mut u = StageTimer::new(true);
        u.merge(&t);
        u.merge(&t);
        let times = u.times().unwrap();
        assert!(times.app >= Duration::from_millis(4));
        assert_eq!(times.decode, Duration::ZERO);
        assert_eq!(times.total(), times.app);
    }

    #[test]
    fn reader_times_become_counters_only_when_on() {
        let mut stats = StatsTree::new();
        ReaderTimer::new(false).add_to(&mut stats);
        assert_eq!(stats.get("osprey.stage.read_ns"), None);
        let mut r = ReaderTimer::new(true);
        let t = r.start();
        std::thread::sleep(Duration::from_millis(2));
        r.read(t);
        let t = r.start();
        std::thread::sleep(Duration::from_millis(3));
        // Waiting for a full ring is not dispatching.
        r.dispatch(t, 3_000_000_000);
        let mut sum = ReaderTimer::new(false);
        sum.merge(&r);
        sum.add_to(&mut stats);
        assert!(stats.get("osprey.stage.read_ns").unwrap() >= 2_000_000);
        assert_eq!(stats.get("osprey.stage.dispatch_ns"), Some(0));
    }

    #[test]
    fn stage_counters_name_every_stage() {
        let mut stats = StatsTree::new();
        let times = StageTimes {
            detect: Duration::from_micros(5),
            ..StageTimes::default()
        };
        add_stage_counters(&mut stats, &times);
        assert_eq!(stats.get("osprey.stage.detect_ns"), Some(5_000));
        assert_eq!(stats.get("osprey.stage.decode_ns"), Some(0));
        assert_eq!(stats.get("osprey.stage.output_ns"), Some(0));
    }
}

//! Optional time per pipeline stage (`EngineConfig::stage_timing`): two clock reads
//! around each stage call when on, one branch when off.

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
}

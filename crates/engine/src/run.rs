//! Running a whole offline capture through a pipeline.

use crate::config::EngineConfig;
use crate::runtime::{run, RunOptions};
use crate::timing::StageTimes;
use capture::{CaptureError, CaptureStats, Source};
use output::stats::StatsTree;
use std::fmt;
use std::time::Duration;

/// Where a run stands, given to the progress callback after each batch.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Frames read so far.
    pub packets: u64,
    /// Captured bytes read so far.
    pub bytes: u64,
}

/// The outcome of a run.
#[derive(Debug)]
pub struct RunReport {
    /// Every counter, nested as in Suricata's stats.json.
    pub stats: StatsTree,
    /// The capture source's own counters.
    pub capture: CaptureStats,
    /// Wall-clock time spent reading and processing packets.
    pub elapsed: Duration,
    /// Time per pipeline stage summed over the workers, when
    /// `EngineConfig::stage_timing` was on.
    pub stage_times: Option<StageTimes>,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunError {
    /// The capture could not be read.
    Capture(CaptureError),
    /// An output file could not be created or written.
    Output(std::io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Capture(e) => write!(f, "{e}"),
            RunError::Output(e) => write!(f, "output: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<CaptureError> for RunError {
    fn from(e: CaptureError) -> Self {
        RunError::Capture(e)
    }
}

/// Reads `source` to its end through one pipeline on the calling thread, calling
/// `progress` after each batch. [`run`](crate::run) does the same with several workers.
pub fn run_offline(
    source: &mut dyn Source,
    config: &EngineConfig,
    progress: impl FnMut(Progress) + Send,
) -> Result<RunReport, RunError> {
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    run(source, config, &opts, progress)
}

/// The capture source's counters, under Suricata's names where it has them.
pub(crate) fn add_capture_stats(stats: &mut StatsTree, capture: &CaptureStats) {
    stats.add("osprey.capture.truncated", capture.truncated);
    stats.add("osprey.capture.oversize", capture.oversize);
    stats.add("osprey.capture.bad_blocks", capture.bad_blocks);
    stats.add("osprey.capture.unknown_link", capture.unknown_link);
    if capture.kernel_packets > 0 || capture.kernel_drops > 0 {
        stats.add("osprey.capture.link_errors", capture.link_errors);
        stats.add("capture.kernel_packets", capture.kernel_packets);
        stats.add("capture.kernel_drops", capture.kernel_drops);
    }
}

//! Running a whole offline capture through a pipeline.

use crate::config::EngineConfig;
use crate::pipeline::Pipeline;
use capture::{Batch, CaptureError, CaptureStats, Source};
use output::stats::StatsTree;
use std::fmt;
use std::time::{Duration, Instant};

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

/// Reads `source` to its end through one pipeline, calling `progress` after each batch.
pub fn run_offline(
    source: &mut dyn Source,
    config: &EngineConfig,
    mut progress: impl FnMut(Progress),
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    let mut pipeline = Pipeline::new(config).map_err(RunError::Output)?;
    let mut batch = Batch::new();
    let mut seen = Progress::default();
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    while source.next_batch(&mut batch, batch_size)? > 0 {
        pipeline.process_batch(&batch);
        seen.packets += batch.len() as u64;
        seen.bytes += batch.iter().map(|f| f.data.len() as u64).sum::<u64>();
        progress(seen);
    }
    pipeline.finish().map_err(RunError::Output)?;
    let capture = source.stats();
    let mut stats = pipeline.stats();
    stats.add("osprey.capture.truncated", capture.truncated);
    stats.add("osprey.capture.oversize", capture.oversize);
    stats.add("osprey.capture.bad_blocks", capture.bad_blocks);
    stats.add("osprey.capture.unknown_link", capture.unknown_link);
    let elapsed = start.elapsed();
    Ok(RunReport {
        stats,
        capture,
        elapsed,
    })
}

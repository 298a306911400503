//! What every worker thread shares, offline, live or inline: its result, its look at
//! the control block, its share of the engine's table caps, its core, and the loop of a
//! worker that reads its own source (live capture, the inline bridge).

use crate::alerts::Outputs;
use crate::config::EngineConfig;
use crate::control::Control;
use crate::pipeline::Pipeline;
use crate::run::RunError;
use crate::timing::StageTimes;
use capture::{Batch, CaptureStats, Source};
use output::stats::StatsTree;
use std::sync::Arc;

/// What a worker hands back when it ends.
pub(crate) struct WorkerResult {
    pub(crate) stats: StatsTree,
    pub(crate) times: Option<StageTimes>,
    pub(crate) capture: CaptureStats,
    pub(crate) error: Option<std::io::Error>,
}

/// A worker's per-batch look at the control block.
pub(crate) struct WorkerControl<'a> {
    k: usize,
    control: &'a Control,
    rules_generation: u64,
    stats_epoch: u64,
}

impl WorkerControl<'_> {
    pub(crate) fn new(k: usize, control: &Control) -> WorkerControl<'_> {
        WorkerControl {
            k,
            control,
            rules_generation: control.rules_generation(),
            stats_epoch: control.stats_epoch(),
        }
    }

    /// Picks up swapped rules and answers statistics requests.
    pub(crate) fn poll(&mut self, pipeline: &mut Pipeline) {
        let gen = self.control.rules_generation();
        if gen != self.rules_generation {
            self.rules_generation = gen;
            pipeline.set_detector(self.control.detector());
        }
        let epoch = self.control.stats_epoch();
        if epoch != self.stats_epoch {
            self.stats_epoch = epoch;
            self.control.publish(self.k, epoch, pipeline.stats());
        }
    }
}

/// Per-worker configuration: the memory caps of `config` (`flow.memcap`,
/// `stream.memcap`, `stream.reassembly.memcap`) are for the whole engine, one budget
/// that every worker of this run draws from (fresh for the run); the hash table's
/// buckets are shared out between `workers`.
pub(crate) fn worker_config(config: &EngineConfig, workers: usize) -> EngineConfig {
    let mut c = config.clone();
    c.flow.shared = flow::SharedCaps::new();
    if workers > 1 {
        c.flow.hash_size = (c.flow.hash_size / workers).max(1024);
    }
    c
}

pub(crate) fn pin(k: usize, workers: usize, enabled: bool) {
    if !enabled {
        return;
    }
    if let Some(cores) = core_affinity::get_core_ids() {
        if workers <= cores.len() {
            let _ = core_affinity::set_for_current(cores[k]);
        }
    }
}

/// One worker that reads `source` itself (a live ring, an inline bridge) until it ends
/// (a live source: once stopped): picks up control requests before each batch, hands
/// each batch to `process` with the pipeline and the source (which may send frames on),
/// and at the end flushes the pipeline and reports. A read error ends the worker with
/// that error.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn serve<S: Source + ?Sized>(
    k: usize,
    source: &mut S,
    config: &EngineConfig,
    outputs: Arc<Outputs>,
    control: &Control,
    mut process: impl FnMut(&mut Pipeline, &Batch, &mut S),
) -> Result<WorkerResult, RunError> {
    let mut pipeline = Pipeline::with_outputs(config, outputs);
    let mut ctl = WorkerControl::new(k, control);
    let mut batch = Batch::new();
    let batch_size = config.batch_size.clamp(1, capture::BATCH_SIZE);
    loop {
        ctl.poll(&mut pipeline);
        match source.next_batch(&mut batch, batch_size) {
            // Woken while idle: answer the control block at the top of the loop.
            Ok(0) if !source.ended() => continue,
            Ok(0) => break,
            Ok(_) => process(&mut pipeline, &batch, source),
            Err(e) => {
                let _ = pipeline.finish();
                return Err(e.into());
            }
        }
    }
    let error = pipeline.finish().err();
    Ok(WorkerResult {
        stats: pipeline.stats(),
        times: pipeline.stage_times(),
        capture: source.stats(),
        error,
    })
}

//! Measured costs on top of the Kargus queue (§5: offload only what pays).
//!
//! The α/β/γ queue of [`crate::balance`] says when the CPU alone cannot keep up. Whether
//! the GPU then helps depends on what a cycle costs the worker in each mode: a GPU cycle
//! still decodes, tracks flows and evaluates options on the CPU, and adds the batch's copy
//! and the wait for its results; a CPU cycle runs the multi-pattern matcher itself. So
//! each worker measures the wall time per packet of its own cycles in either mode
//! (exponentially weighted, weight [`CostModel::WEIGHT`], so the figures follow the
//! traffic) and sends a cycle the queue gives to the GPU there only while the GPU's cost
//! is below the CPU's by the margin [`CostConfig::margin`]. Otherwise the cycle stays on
//! the CPU ("CPU only": the GPU does not pay).
//!
//! Costs change with the traffic, so the mode not in use is measured again: after
//! [`CostConfig::probe_every`] cycles of one mode, the next [`CostConfig::probe_len`]
//! cycles the queue gives to the GPU run in the other mode. Before both modes have a
//! figure, the missing one is measured first.

/// Settings of the cost model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostConfig {
    /// The GPU is used while its cost per packet is below `(1 - margin)` times the CPU's.
    pub margin: f64,
    /// Cycles in one mode between two measurements of the other.
    pub probe_every: u32,
    /// Cycles of a measurement.
    pub probe_len: u32,
}

impl Default for CostConfig {
    fn default() -> CostConfig {
        CostConfig {
            margin: 0.05,
            probe_every: 256,
            probe_len: 8,
        }
    }
}

/// Why a cycle the queue offered to the GPU went where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Measured: the GPU pays.
    Gpu,
    /// Measured: the GPU does not pay; CPU only.
    Cpu,
    /// Measuring the GPU (no figure yet, or re-measuring).
    ProbeGpu,
    /// Measuring the CPU (no figure yet, or re-measuring).
    ProbeCpu,
}

impl Choice {
    /// True when the cycle runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(self, Choice::Gpu | Choice::ProbeGpu)
    }
}

/// Per-worker costs of the two modes and the decisions made from them.
#[derive(Clone, Debug)]
pub struct CostModel {
    cfg: CostConfig,
    cpu: Option<f64>,
    gpu: Option<f64>,
    /// Cycles since the other mode was last measured.
    since_probe: u32,
    /// Cycles left of the running measurement.
    probing: u32,
    probe_gpu: bool,
    /// Decisions: [gpu, cpu, probe_gpu, probe_cpu].
    counts: [u64; 4],
}

impl CostModel {
    /// Weight of a new measurement in the running figure.
    pub const WEIGHT: f64 = 0.125;

    /// A model with no figures yet.
    pub fn new(cfg: CostConfig) -> CostModel {
        CostModel {
            cfg,
            cpu: None,
            gpu: None,
            since_probe: 0,
            probing: 0,
            probe_gpu: false,
            counts: [0; 4],
        }
    }

    /// Record a finished cycle: `gpu` for the mode it ran in, its wall time in nanoseconds
    /// and its packets. Cycles of no packets teach nothing.
    pub fn record(&mut self, gpu: bool, nanos: u64, packets: usize) {
        if packets == 0 {
            return;
        }
        let per = nanos as f64 / packets as f64;
        let slot = if gpu { &mut self.gpu } else { &mut self.cpu };
        *slot = Some(match *slot {
            Some(old) => old + Self::WEIGHT * (per - old),
            None => per,
        });
    }

    /// Where a cycle the queue gives to the GPU runs.
    pub fn choose(&mut self) -> Choice {
        let c = self.pick();
        self.counts[match c {
            Choice::Gpu => 0,
            Choice::Cpu => 1,
            Choice::ProbeGpu => 2,
            Choice::ProbeCpu => 3,
        }] += 1;
        c
    }

    fn pick(&mut self) -> Choice {
        if self.probing > 0 {
            self.probing -= 1;
            return if self.probe_gpu {
                Choice::ProbeGpu
            } else {
                Choice::ProbeCpu
            };
        }
        let (Some(cpu), Some(gpu)) = (self.cpu, self.gpu) else {
            // Measure the missing mode first.
            self.probe_gpu = self.gpu.is_none();
            self.probing = self.cfg.probe_len.saturating_sub(1);
            self.since_probe = 0;
            return if self.probe_gpu {
                Choice::ProbeGpu
            } else {
                Choice::ProbeCpu
            };
        };
        let pays = gpu < cpu * (1.0 - self.cfg.margin);
        self.since_probe += 1;
        if self.since_probe >= self.cfg.probe_every {
            self.since_probe = 0;
            self.probe_gpu = !pays;
            self.probing = self.cfg.probe_len.saturating_sub(1);
            return if pays {
                Choice::ProbeCpu
            } else {
                Choice::ProbeGpu
            };
        }
        if pays {
            Choice::Gpu
        } else {
            Choice::Cpu
        }
    }

    /// The running figures (ns per packet): CPU, GPU.
    pub fn costs(&self) -> (Option<f64>, Option<f64>) {
        (self.cpu, self.gpu)
    }

    /// Decisions made so far, under `osprey.gpu.`: measured GPU, measured CPU only, and
    /// the cycles that measured either mode.
    pub fn counters(&self) -> [(&'static str, u64); 4] {
        [
            ("osprey.gpu.cost_gpu", self.counts[0]),
            ("osprey.gpu.cost_cpu_only", self.counts[1]),
            ("osprey.gpu.cost_probe_gpu", self.counts[2]),
            ("osprey.gpu.cost_probe_cpu", self.counts[3]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run `cycles` cycles the queue gives to the GPU, costing `cpu` / `gpu` ns per packet
    /// (functions of the cycle number); the choices.
    fn drive(
        m: &mut CostModel,
        cycles: usize,
        cpu: impl Fn(usize) -> u64,
        gpu: impl Fn(usize) -> u64,
    ) -> Vec<Choice> {
        (0..cycles)
            .map(|i| {
                let c = m.choose();
                let cost = if c.is_gpu() { gpu(i) } else { cpu(i) };
                m.record(c.is_gpu(), cost * 100, 100);
                c
            })
            .collect()
    }

    #[test]
    fn a_gpu_that_does_not_pay_is_left_alone_but_measured_again() {
        let mut m = CostModel::new(CostConfig::default());
        // The CPU is measured, then the GPU: slower.
        m.record(false, 1_000, 10);
        let run = drive(&mut m, 2_000, |_| 100, |_| 300);
        assert!(run[..8].iter().all(|&c| c == Choice::ProbeGpu));
        let gpu = run.iter().filter(|c| c.is_gpu()).count();
        // Re-measured every 256 cycles for 8: about 3 % of the cycles.
        assert!((50..=80).contains(&gpu), "{gpu} GPU cycles");
        assert!(run[8..].iter().all(|&c| c != Choice::Gpu));
        assert_eq!(m.counters()[1].1 as usize + gpu, 2_000);
    }

    #[test]
    fn a_gpu_that_pays_is_used_and_the_switch_follows_the_traffic() {
        let mut m = CostModel::new(CostConfig::default());
        // No figures at all: the GPU is measured first, then the CPU (in a run the CPU's
        // figure comes from the cycles the queue kept on the CPU).
        let run = drive(
            &mut m,
            4_000,
            |_| 200,
            |i| if i < 2_000 { 100 } else { 400 },
        );
        let gpu_first = run[..2_000].iter().filter(|&&c| c == Choice::Gpu).count();
        assert!(gpu_first > 1_800, "{gpu_first}");
        // After the GPU got slower (cycle 2,000) the CPU takes over within a few cycles
        // (the weighted figure crosses the CPU's).
        let late = &run[2_100..];
        assert!(
            late.iter().all(|&c| c != Choice::Gpu),
            "GPU after it stopped paying"
        );
        assert!(late.contains(&Choice::Cpu));
        // And when the GPU gets faster again, a re-measurement finds it.
        let again = drive(&mut m, 1_000, |_| 200, |_| 50);
        assert!(again[300..].iter().filter(|&&c| c == Choice::Gpu).count() > 600);
    }

    #[test]
    fn within_the_margin_stays_on_the_cpu() {
        let mut m = CostModel::new(CostConfig::default());
        let run = drive(&mut m, 1_000, |_| 100, |_| 97);
        assert!(
            !run[20..].contains(&Choice::Gpu),
            "3 % is within the 5 % margin"
        );
        assert_eq!(m.costs(), (Some(100.0), Some(97.0)));
        // Empty cycles teach nothing.
        m.record(true, 1_000_000, 0);
        assert_eq!(m.costs().1, Some(97.0));
    }
}

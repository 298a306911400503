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
//! figure, the missing one is measured first, the CPU's before the GPU's.
//!
//! **Never much worse than the CPU alone.** Measuring the GPU costs what the GPU loses,
//! so that loss is bounded three ways: a GPU probe that loses by a wide margin
//! ([`CostConfig::wide`] times the CPU's cost) doubles the interval before the next one
//! (up to [`CostConfig::max_backoff`] times `probe_every`), and after
//! [`CostConfig::give_up_after`] such losses in a row the GPU is not measured again; and
//! every GPU cycle's excess over the CPU's figure is accounted: while the excess summed
//! over the run is above [`CostConfig::budget`] of the run's measured time, no cycle goes
//! to the GPU at all (probe or not). The excess and the give-up are counters.

/// Settings of the cost model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostConfig {
    /// The GPU is used while its cost per packet is below `(1 - margin)` times the CPU's.
    pub margin: f64,
    /// Cycles in one mode between two measurements of the other (the GPU's interval grows
    /// after each wide loss).
    pub probe_every: u32,
    /// Cycles of a measurement.
    pub probe_len: u32,
    /// A GPU measurement above `wide` times the CPU's cost is a wide loss.
    pub wide: f64,
    /// The GPU's probe interval doubles after each wide loss, up to this factor.
    pub max_backoff: u32,
    /// Wide losses in a row after which the GPU is not measured again.
    pub give_up_after: u32,
    /// Largest share of the measured time that GPU cycles may lose against the CPU's
    /// figure, summed over the run.
    pub budget: f64,
}

impl Default for CostConfig {
    fn default() -> CostConfig {
        CostConfig {
            margin: 0.05,
            probe_every: 256,
            probe_len: 4,
            wide: 1.5,
            max_backoff: 64,
            give_up_after: 3,
            budget: 0.01,
        }
    }
}

/// Why a cycle the queue offered to the GPU went where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Measured: the GPU pays.
    Gpu,
    /// Measured: the GPU does not pay (or lost its budget, or was given up); CPU only.
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
    /// A GPU measurement ended and is to be judged at the next choice.
    judge_gpu: bool,
    /// Cycles between two GPU measurements while the CPU is used.
    gpu_interval: u32,
    /// Wide losses of the GPU in a row.
    losses: u32,
    given_up: bool,
    /// Nanoseconds GPU cycles took above the CPU's figure for their packets.
    lost_ns: f64,
    /// Nanoseconds of every recorded cycle.
    total_ns: f64,
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
            judge_gpu: false,
            gpu_interval: cfg.probe_every.max(1),
            losses: 0,
            given_up: false,
            lost_ns: 0.0,
            total_ns: 0.0,
            counts: [0; 4],
        }
    }

    /// Record a finished cycle: `gpu` for the mode it ran in, its wall time in nanoseconds
    /// (the wait for the GPU's results included) and its packets. Cycles of no packets
    /// teach nothing.
    pub fn record(&mut self, gpu: bool, nanos: u64, packets: usize) {
        if packets == 0 {
            return;
        }
        self.total_ns += nanos as f64;
        if gpu {
            if let Some(cpu) = self.cpu {
                self.lost_ns += (nanos as f64 - cpu * packets as f64).max(0.0);
            }
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

    /// True while the GPU's accounted losses are within the budget.
    fn affordable(&self) -> bool {
        self.lost_ns <= self.cfg.budget * self.total_ns
    }

    /// Start a measurement of `gpu`'s mode; its first cycle's choice.
    fn start_probe(&mut self, gpu: bool) -> Choice {
        self.probe_gpu = gpu;
        self.probing = self.cfg.probe_len.saturating_sub(1);
        self.since_probe = 0;
        if gpu {
            self.judge_gpu = self.probing == 0;
            Choice::ProbeGpu
        } else {
            Choice::ProbeCpu
        }
    }

    /// Judge the GPU measurement that just ended: a wide loss backs the next one off.
    fn judge(&mut self) {
        self.judge_gpu = false;
        let (Some(cpu), Some(gpu)) = (self.cpu, self.gpu) else {
            return;
        };
        if gpu > cpu * self.cfg.wide {
            self.losses += 1;
            let most = self
                .cfg
                .probe_every
                .max(1)
                .saturating_mul(self.cfg.max_backoff.max(1));
            self.gpu_interval = self.gpu_interval.saturating_mul(2).min(most);
            if self.losses >= self.cfg.give_up_after.max(1) {
                self.given_up = true;
            }
        } else {
            self.losses = 0;
            self.gpu_interval = self.cfg.probe_every.max(1);
        }
    }

    fn pick(&mut self) -> Choice {
        if self.probing > 0 {
            self.probing -= 1;
            if !self.probe_gpu {
                return Choice::ProbeCpu;
            }
            if self.affordable() {
                self.judge_gpu = self.probing == 0;
                return Choice::ProbeGpu;
            }
            // Over budget: the measurement stops here.
            self.probing = 0;
            self.judge_gpu = true;
        }
        if self.judge_gpu {
            self.judge();
        }
        let gpu_allowed = !self.given_up && self.affordable();
        let Some(cpu) = self.cpu else {
            return self.start_probe(false);
        };
        let Some(gpu) = self.gpu else {
            return if gpu_allowed {
                self.start_probe(true)
            } else {
                Choice::Cpu
            };
        };
        let pays = gpu_allowed && gpu < cpu * (1.0 - self.cfg.margin);
        self.since_probe += 1;
        if pays {
            if self.since_probe >= self.cfg.probe_every.max(1) {
                return self.start_probe(false);
            }
            return Choice::Gpu;
        }
        if gpu_allowed && self.since_probe >= self.gpu_interval {
            return self.start_probe(true);
        }
        Choice::Cpu
    }

    /// The running figures (ns per packet): CPU, GPU.
    pub fn costs(&self) -> (Option<f64>, Option<f64>) {
        (self.cpu, self.gpu)
    }

    /// True once the GPU lost widely [`CostConfig::give_up_after`] times in a row: it is
    /// not measured again.
    pub fn given_up(&self) -> bool {
        self.given_up
    }

    /// Nanoseconds GPU cycles took above the CPU's figure, summed.
    pub fn lost_ns(&self) -> u64 {
        self.lost_ns as u64
    }

    /// Decisions made so far, under `osprey.gpu.`: measured GPU, measured CPU only, the
    /// cycles that measured either mode, what the GPU cycles lost against the CPU
    /// (microseconds) and whether the GPU was given up (1; summed over the workers, the
    /// workers that gave it up).
    pub fn counters(&self) -> [(&'static str, u64); 6] {
        [
            ("osprey.gpu.cost_gpu", self.counts[0]),
            ("osprey.gpu.cost_cpu_only", self.counts[1]),
            ("osprey.gpu.cost_probe_gpu", self.counts[2]),
            ("osprey.gpu.cost_probe_cpu", self.counts[3]),
            ("osprey.gpu.cost_lost_us", self.lost_ns() / 1000),
            ("osprey.gpu.cost_gave_up", u64::from(self.given_up)),
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

    /// The share of the time of `run` (costs per packet `cpu` and `gpu`, 100 packets a
    /// cycle) that its GPU cycles lost against the CPU.
    fn lost_share(run: &[Choice], cpu: u64, gpu: u64) -> f64 {
        let total: u64 = run.iter().map(|c| if c.is_gpu() { gpu } else { cpu }).sum();
        let lost = run.iter().filter(|c| c.is_gpu()).count() as u64 * gpu.saturating_sub(cpu);
        lost as f64 / total as f64
    }

    #[test]
    fn a_gpu_much_slower_than_the_cpu_is_given_up_after_a_few_probes() {
        // 1.7 ms GPU cycles against 0.2 ms on the CPU (the H100 run's 2-worker case).
        let mut m = CostModel::new(CostConfig::default());
        let run = drive(&mut m, 100_000, |_| 2_000, |_| 17_000);
        // The CPU is measured first, then the GPU.
        assert!(
            run[..4].iter().all(|&c| c == Choice::ProbeCpu),
            "{:?}",
            &run[..8]
        );
        assert_eq!(run[4], Choice::ProbeGpu);
        let gpu = run.iter().filter(|c| c.is_gpu()).count();
        let cfg = CostConfig::default();
        assert!(
            gpu <= (cfg.give_up_after * cfg.probe_len) as usize,
            "{gpu} GPU cycles"
        );
        assert!(m.given_up());
        assert!(
            !run[20_000..].iter().any(|c| c.is_gpu()),
            "probed after giving up"
        );
        // What the probes lost is within the budget (and one cycle).
        let share = lost_share(&run, 2_000, 17_000);
        assert!(share <= cfg.budget + 1e-4, "{share}");
        assert_eq!(m.counters()[5], ("osprey.gpu.cost_gave_up", 1));
        assert_eq!(
            m.counters()[4].1,
            gpu as u64 * 15_000 * 100 / 1000,
            "lost microseconds"
        );
    }

    #[test]
    fn a_gpu_slightly_slower_is_measured_again_within_the_budget() {
        let mut m = CostModel::new(CostConfig::default());
        let run = drive(&mut m, 50_000, |_| 100, |_| 130);
        let gpu = run.iter().filter(|c| c.is_gpu()).count();
        // Not a wide loss: measured again and again, never given up ...
        assert!(!m.given_up());
        assert!(gpu > 3 * CostConfig::default().probe_len as usize, "{gpu}");
        assert!(!run.contains(&Choice::Gpu), "the GPU never pays here");
        // ... and what that costs stays within the budget.
        let share = lost_share(&run, 100, 130);
        assert!(share <= CostConfig::default().budget + 1e-3, "{share}");
        assert!(share > 0.0);
    }

    #[test]
    fn the_budget_stops_even_a_gpu_that_looked_fast() {
        // The GPU measured fast, then every GPU cycle costs 3x the CPU's while the running
        // figure lags: the budget cuts it off whatever the figure says.
        let mut m = CostModel::new(CostConfig::default());
        let run = drive(&mut m, 300, |_| 100, |i| if i < 100 { 50 } else { 300 });
        let late: Vec<_> = run[100..].iter().filter(|c| c.is_gpu()).collect();
        assert!(
            late.len() < 40,
            "{} GPU cycles after it got slow",
            late.len()
        );
    }

    #[test]
    fn a_gpu_that_pays_is_used_and_the_switch_follows_the_traffic() {
        let mut m = CostModel::new(CostConfig::default());
        // No figures at all: the CPU is measured first, then the GPU.
        let run = drive(
            &mut m,
            4_000,
            |_| 200,
            |i| if i < 2_000 { 100 } else { 260 },
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

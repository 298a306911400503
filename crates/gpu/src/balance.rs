//! CPU/GPU load balancing (Kargus §5).
//!
//! **Small packets stay on the CPU (§5.1).** Offloading costs CPU cycles (metadata, the
//! copy into page-locked memory) and memory bandwidth that the other stages need, so a
//! packet shorter than [`BalanceConfig::size_threshold`] is never offloaded. Kargus measured
//! 82 bytes on its platform; ours is measured on the device (issue "GPU offload II") and
//! configurable; the default is Kargus's figure.
//!
//! **Dynamic offloading (§5.2).** Each worker owns a workload queue. In every cycle it reads
//! an RX batch (at most `rx_batch` packets, 128), enqueues it, and dequeues one unit for
//! pattern matching, on the CPU *or* the GPU, never both in one cycle. With `q` the queue
//! length after the enqueue:
//!
//! - CPU mode: dequeue at most `X = 64` packets (less than the largest RX batch: the CPU
//!   alone serves input rates up to 64 packets per cycle). When `q` reaches **β** the CPU
//!   cannot keep up: switch to the GPU with `Y = 96`.
//! - GPU mode, `Y = 96`: slightly less than the largest RX batch, so an input rate close to
//!   but under 128 does not drain the queue at once and flip back to the CPU. When `q`
//!   reaches **γ** the input has stayed high: `Y = rx_batch` (128). Back at **β**, `Y = 96`
//!   again. When `q` falls to **α**, the input has dropped: back to CPU mode.
//!
//! **α, β, γ.** The paper gives no values (its Figure 11 is not in the text); we derive them
//! from the queue capacity `C` and the RX batch size `R` ([`BalanceConfig::derive`]):
//!
//! - `α = R`: the queue holds at most one RX batch, which the CPU drains in two cycles
//!   (`X = R / 2`); below it offloading has nothing to gain.
//! - `γ = C - 2R`: two full RX batches of headroom, so the cycle that reaches `γ` and the
//!   next one cannot overflow the queue before `Y = R` drains it.
//! - `β = (α + γ) / 2`: halfway, so the CPU absorbs a burst of `(β - α) / (R - X)` full-rate
//!   cycles (29 with `C = 4096`, `R = 128`) before the GPU is used, and the hysteresis band
//!   `[α, β]` is wide: once on the GPU, the queue must drain by `β - α` packets to come back,
//!   which takes at least `(β - α) / Y` cycles — no oscillation between modes.
//!
//! An input rate between `X` and `Y_low` is more than the CPU and less than the GPU drains,
//! so the modes alternate, each holding for many cycles (the queue crosses the whole
//! `[α, β]` band each time: at least `(β - α) / (R - X)` cycles on the CPU and
//! `(β - α) / Y_high` on the GPU); rates from `Y_low` up stay on the GPU.
//!
//! Every value can be set by hand; [`BalanceConfig::validate`] checks
//! `X <= R`, `Y_low <= Y_high <= R`, `α < β < γ <= C - R`.

use std::collections::VecDeque;
use std::fmt;

/// Where a cycle's pattern matching runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// On the worker's core; dequeue `X`.
    Cpu,
    /// On the GPU; dequeue `Y` (low or high).
    Gpu {
        /// True once the queue reached γ (`Y = Y_high`), until it falls back to β.
        high: bool,
    },
}

impl Mode {
    /// True for either GPU mode.
    pub fn is_gpu(self) -> bool {
        matches!(self, Mode::Gpu { .. })
    }
}

/// Thresholds and dequeue sizes of the balancer (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceConfig {
    /// Payloads shorter than this (bytes) never go to the GPU.
    pub size_threshold: usize,
    /// Workload queue capacity (packets); what does not fit is dropped and counted.
    pub capacity: usize,
    /// Largest RX batch (packets).
    pub rx_batch: usize,
    /// X: packets dequeued per CPU cycle.
    pub cpu_dequeue: usize,
    /// Y below γ: packets dequeued per GPU cycle.
    pub gpu_dequeue_low: usize,
    /// Y from γ: packets dequeued per GPU cycle.
    pub gpu_dequeue_high: usize,
    /// α: back to the CPU at or below this queue length.
    pub alpha: usize,
    /// β: to the GPU at or above this queue length (and `Y_high` back to `Y_low`).
    pub beta: usize,
    /// γ: `Y_high` at or above this queue length.
    pub gamma: usize,
}

/// A configuration that breaks the balancer's invariants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadBalance(pub String);

impl fmt::Display for BadBalance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad load-balancing configuration: {}", self.0)
    }
}

impl std::error::Error for BadBalance {}

impl BalanceConfig {
    /// Kargus's size threshold (§5.1), bytes.
    pub const KARGUS_SIZE_THRESHOLD: usize = 82;
    /// Kargus's largest RX batch.
    pub const KARGUS_RX_BATCH: usize = 128;
    /// Default workload queue capacity: 32 RX batches.
    pub const DEFAULT_CAPACITY: usize = 32 * Self::KARGUS_RX_BATCH;

    /// Derive α, β, γ and the dequeue sizes from the queue capacity and the RX batch size
    /// (module docs): `X = R / 2`, `Y = 3R / 4` and `R`, `α = R`, `γ = C - 2R`,
    /// `β = (α + γ) / 2`. With `R = 128`: `X = 64`, `Y = 96 / 128` as in Kargus.
    pub fn derive(capacity: usize, rx_batch: usize) -> Result<BalanceConfig, BadBalance> {
        let r = rx_batch.max(1);
        let alpha = r;
        let gamma = capacity.saturating_sub(2 * r);
        let cfg = BalanceConfig {
            size_threshold: Self::KARGUS_SIZE_THRESHOLD,
            capacity,
            rx_batch: r,
            cpu_dequeue: (r / 2).max(1),
            gpu_dequeue_low: (r * 3 / 4).max(1),
            gpu_dequeue_high: r,
            alpha,
            beta: alpha + gamma.saturating_sub(alpha) / 2,
            gamma,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Check the invariants the balancer relies on.
    pub fn validate(&self) -> Result<(), BadBalance> {
        let bad = |m: String| Err(BadBalance(m));
        if self.cpu_dequeue == 0 || self.cpu_dequeue > self.rx_batch {
            return bad(format!(
                "X = {} must be in 1..=rx_batch ({})",
                self.cpu_dequeue, self.rx_batch
            ));
        }
        if self.gpu_dequeue_low == 0
            || self.gpu_dequeue_low > self.gpu_dequeue_high
            || self.gpu_dequeue_high > self.rx_batch
        {
            return bad(format!(
                "need 1 <= Y_low ({}) <= Y_high ({}) <= rx_batch ({})",
                self.gpu_dequeue_low, self.gpu_dequeue_high, self.rx_batch
            ));
        }
        if !(self.alpha < self.beta && self.beta < self.gamma) {
            return bad(format!(
                "need alpha ({}) < beta ({}) < gamma ({})",
                self.alpha, self.beta, self.gamma
            ));
        }
        if self.gamma + self.rx_batch > self.capacity {
            return bad(format!(
                "gamma ({}) + rx_batch ({}) exceeds the queue capacity ({})",
                self.gamma, self.rx_batch, self.capacity
            ));
        }
        Ok(())
    }
}

impl Default for BalanceConfig {
    fn default() -> BalanceConfig {
        BalanceConfig::derive(Self::DEFAULT_CAPACITY, Self::KARGUS_RX_BATCH)
            .expect("the default capacity is 32 RX batches")
    }
}

/// One cycle's decision: where to match and how many packets to dequeue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// CPU or GPU.
    pub mode: Mode,
    /// Packets to dequeue (at most the queue length).
    pub take: usize,
}

/// The per-worker mode state machine of §5.2.
#[derive(Clone, Debug)]
pub struct Balancer {
    cfg: BalanceConfig,
    mode: Mode,
    switches: u64,
}

impl Balancer {
    /// A balancer in CPU mode.
    pub fn new(cfg: BalanceConfig) -> Balancer {
        Balancer {
            cfg,
            mode: Mode::Cpu,
            switches: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &BalanceConfig {
        &self.cfg
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// CPU↔GPU switches so far.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// True when a payload of `len` bytes may go to the GPU at all (§5.1).
    pub fn offloadable(&self, len: usize) -> bool {
        len >= self.cfg.size_threshold
    }

    /// Decide this cycle from the queue length after the enqueue. `gpu_ready` false (no GPU,
    /// or the dispatcher is saturated) keeps the cycle on the CPU without changing the mode.
    pub fn decide(&mut self, queue_len: usize, gpu_ready: bool) -> Decision {
        let c = &self.cfg;
        let next = match self.mode {
            Mode::Cpu if queue_len >= c.beta => Mode::Gpu { high: false },
            Mode::Cpu => Mode::Cpu,
            Mode::Gpu { .. } if queue_len <= c.alpha => Mode::Cpu,
            Mode::Gpu { .. } if queue_len >= c.gamma => Mode::Gpu { high: true },
            Mode::Gpu { high: true } if queue_len <= c.beta => Mode::Gpu { high: false },
            m @ Mode::Gpu { .. } => m,
        };
        if next.is_gpu() != self.mode.is_gpu() {
            self.switches += 1;
        }
        self.mode = next;
        let (mode, want) = match next {
            Mode::Gpu { high } if gpu_ready => (
                next,
                if high {
                    c.gpu_dequeue_high
                } else {
                    c.gpu_dequeue_low
                },
            ),
            _ => (Mode::Cpu, c.cpu_dequeue),
        };
        Decision {
            mode,
            take: want.min(queue_len),
        }
    }
}

/// A bounded per-worker workload queue driven by a [`Balancer`].
#[derive(Debug)]
pub struct WorkQueue<T> {
    items: VecDeque<T>,
    balancer: Balancer,
    dropped: u64,
}

impl<T> WorkQueue<T> {
    /// An empty queue with `cfg.capacity` slots.
    pub fn new(cfg: BalanceConfig) -> WorkQueue<T> {
        WorkQueue {
            items: VecDeque::with_capacity(cfg.capacity),
            balancer: Balancer::new(cfg),
            dropped: 0,
        }
    }

    /// Enqueue an RX batch; what does not fit is dropped (returned count, also accumulated).
    pub fn enqueue(&mut self, batch: impl IntoIterator<Item = T>) -> usize {
        let cap = self.balancer.cfg.capacity;
        let mut dropped = 0;
        for item in batch {
            if self.items.len() < cap {
                self.items.push_back(item);
            } else {
                dropped += 1;
            }
        }
        self.dropped += dropped as u64;
        dropped
    }

    /// Run one cycle's decision and dequeue its unit into `out` (cleared first).
    pub fn dequeue(&mut self, gpu_ready: bool, out: &mut Vec<T>) -> Mode {
        let d = self.balancer.decide(self.items.len(), gpu_ready);
        out.clear();
        out.extend(self.items.drain(..d.take));
        d.mode
    }

    /// Queue length.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Packets dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The balancer.
    pub fn balancer(&self) -> &Balancer {
        &self.balancer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One simulated cycle: queue length after the enqueue, the mode, packets dequeued.
    #[derive(Debug, Clone, Copy)]
    struct Step {
        q: usize,
        mode: Mode,
        take: usize,
    }

    /// Drive a queue with `rates[i]` packets arriving in cycle `i` (each at most the RX
    /// batch); the GPU is always ready.
    fn simulate(cfg: BalanceConfig, rates: &[usize]) -> (Vec<Step>, u64) {
        let mut q = WorkQueue::new(cfg);
        let mut out = Vec::new();
        let mut trace = Vec::new();
        for &r in rates {
            q.enqueue(std::iter::repeat_n((), r.min(cfg.rx_batch)));
            let len = q.len();
            let mode = q.dequeue(true, &mut out);
            trace.push(Step {
                q: len,
                mode,
                take: out.len(),
            });
        }
        (trace, q.dropped())
    }

    fn switches(trace: &[Step]) -> Vec<usize> {
        trace
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0].mode.is_gpu() != w[1].mode.is_gpu())
            .map(|(i, _)| i + 1)
            .collect()
    }

    /// A tiny deterministic generator (xorshift) for noisy traces.
    fn noise(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn derived_values_match_kargus() {
        let c = BalanceConfig::default();
        assert_eq!(
            (c.cpu_dequeue, c.gpu_dequeue_low, c.gpu_dequeue_high),
            (64, 96, 128)
        );
        assert_eq!((c.alpha, c.beta, c.gamma), (128, 1984, 3840));
        assert_eq!(c.size_threshold, 82);
        assert!(BalanceConfig::derive(256, 128).is_err());
        let mut bad = c;
        bad.beta = bad.gamma;
        assert!(bad.validate().is_err());
    }

    #[test]
    fn low_rates_stay_on_the_cpu() {
        let cfg = BalanceConfig::default();
        let rates: Vec<usize> = (0..2000).map(|i| [0, 128, 40, 60, 64][i % 5]).collect();
        let (trace, dropped) = simulate(cfg, &rates);
        assert!(trace.iter().all(|s| s.mode == Mode::Cpu));
        assert!(
            trace.iter().all(|s| s.q <= 2 * cfg.rx_batch),
            "queue stays small"
        );
        assert_eq!(dropped, 0);
    }

    #[test]
    fn sustained_overload_moves_to_the_gpu_once_and_stays() {
        let cfg = BalanceConfig::default();
        // Rates at or above Y_low: the GPU alone keeps up, the CPU never comes back. (A rate
        // between X and Y_low alternates slowly: see the noisy-trace test.)
        for rate in [96, 100, 120, 128] {
            let (trace, dropped) = simulate(cfg, &vec![rate; 5000]);
            assert_eq!(dropped, 0, "rate {rate}");
            let sw = switches(&trace);
            assert_eq!(sw.len(), 1, "rate {rate}: one switch to the GPU, none back");
            let at = sw[0];
            assert!(trace[at].q >= cfg.beta && trace[at - 1].q < cfg.beta);
            // Before the switch the CPU dequeued X per cycle; after it, Y.
            assert!(trace[..at].iter().all(|s| s.take == cfg.cpu_dequeue));
            assert!(trace[at..]
                .iter()
                .all(|s| s.take == cfg.gpu_dequeue_low || s.take == cfg.gpu_dequeue_high));
            assert!(trace.iter().all(|s| s.q <= cfg.capacity));
        }
    }

    #[test]
    fn near_full_rate_uses_the_high_dequeue_between_gamma_and_beta() {
        let cfg = BalanceConfig::default();
        let (trace, _) = simulate(cfg, &vec![110; 20_000]);
        let highs: Vec<&Step> = trace
            .iter()
            .filter(|s| s.mode == Mode::Gpu { high: true })
            .collect();
        assert!(!highs.is_empty(), "the queue reaches gamma at 110 > Y_low");
        // Y_high only between beta and gamma(+ one batch), Y_low never above gamma.
        assert!(highs.iter().all(|s| s.q > cfg.beta && s.take == 128));
        assert!(trace
            .iter()
            .filter(|s| s.mode == Mode::Gpu { high: false })
            .all(|s| s.q < cfg.gamma && s.take == 96));
        // The Y toggles are slow: the queue travels gamma -> beta (18 per cycle) and back.
        let toggles = trace
            .windows(2)
            .filter(|w| w[0].mode.is_gpu() && w[0].mode != w[1].mode)
            .count();
        assert!(
            toggles <= 20_000 / ((cfg.gamma - cfg.beta) / 18),
            "{toggles}"
        );
    }

    #[test]
    fn burst_then_quiet_returns_to_the_cpu_without_oscillation() {
        let cfg = BalanceConfig::default();
        let mut rates = vec![30; 100];
        rates.extend(vec![128; 200]);
        rates.extend(vec![20; 400]);
        let (trace, dropped) = simulate(cfg, &rates);
        assert_eq!(dropped, 0);
        let sw = switches(&trace);
        assert_eq!(sw.len(), 2, "{sw:?}");
        assert!(trace[sw[0]].mode.is_gpu() && trace[sw[1]].mode == Mode::Cpu);
        assert!(trace[sw[1]].q <= cfg.alpha);
        // A short burst the queue absorbs stays on the CPU.
        let mut short = vec![30; 100];
        short.extend(vec![128; 20]);
        short.extend(vec![30; 100]);
        let (trace, _) = simulate(cfg, &short);
        assert!(trace.iter().all(|s| s.mode == Mode::Cpu));
    }

    #[test]
    fn noisy_rates_around_the_cpu_limit_switch_rarely() {
        let cfg = BalanceConfig::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        // Mean alternates between 56 and 76 every 500 cycles, +-40 noise per cycle.
        let rates: Vec<usize> = (0..20_000)
            .map(|i| {
                let mean = if (i / 500) % 2 == 0 { 56i64 } else { 76 };
                (mean + (noise(&mut seed) % 81) as i64 - 40).clamp(0, 128) as usize
            })
            .collect();
        let (trace, dropped) = simulate(cfg, &rates);
        assert_eq!(dropped, 0);
        let sw = switches(&trace);
        assert!(!sw.is_empty(), "a mean of 76 > X overloads the CPU");
        // Minimum dwell in each mode: the queue must travel between alpha and beta, at most
        // Y_high per cycle downwards (GPU) and R - X per cycle upwards (CPU).
        let min_gpu = (cfg.beta - cfg.alpha) / cfg.gpu_dequeue_high;
        let min_cpu = (cfg.beta - cfg.alpha) / (cfg.rx_batch - cfg.cpu_dequeue);
        for w in sw.windows(2) {
            let dwell = w[1] - w[0];
            if trace[w[0]].mode.is_gpu() {
                assert!(dwell >= min_gpu, "GPU dwell {dwell} < {min_gpu}");
            } else {
                assert!(dwell >= min_cpu, "CPU dwell {dwell} < {min_cpu}");
            }
        }
        assert!(sw.len() <= rates.len() / min_cpu, "{} switches", sw.len());
    }

    #[test]
    fn no_gpu_keeps_every_cycle_on_the_cpu() {
        let cfg = BalanceConfig::default();
        let mut q = WorkQueue::new(cfg);
        let mut out = Vec::new();
        for _ in 0..100 {
            q.enqueue(std::iter::repeat_n(0u8, 128));
            assert_eq!(q.dequeue(false, &mut out), Mode::Cpu);
            assert_eq!(out.len(), 64);
        }
        assert!(q.dropped() > 0, "a CPU-only worker at full rate drops");
        assert!(q.len() <= cfg.capacity);
    }

    #[test]
    fn small_packets_never_offload() {
        let b = Balancer::new(BalanceConfig::default());
        assert!(!b.offloadable(81));
        assert!(b.offloadable(82));
    }
}

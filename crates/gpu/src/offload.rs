//! Choosing the backend (`--gpu off|auto|on`, plus `cpu-sim`: the CPU executor behind the
//! dispatcher thread, for testing without a device) and running a batch on it, the same
//! way whichever it is.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::batch::Batch;
use crate::device::{probe, DeviceInfo, DispatchHandle, Dispatcher, GpuConfig, GpuMatcher};
use crate::reports::{merge_ac, AcMatch, MergeStats};
use crate::tables::AcTables;

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuMode {
    /// Never use a GPU.
    Off,
    /// Use a GPU when one works, else the CPU (one log line says which).
    #[default]
    Auto,
    /// Use a GPU; its absence is an error.
    On,
    /// Run the offload path with the CPU executor instead of a GPU (testing: the batches,
    /// kernels' semantics and merge are exercised without a device).
    CpuSim,
}

impl FromStr for GpuMode {
    type Err = OffloadError;
    fn from_str(s: &str) -> Result<GpuMode, OffloadError> {
        match s {
            "off" => Ok(GpuMode::Off),
            "auto" => Ok(GpuMode::Auto),
            "on" => Ok(GpuMode::On),
            "cpu-sim" => Ok(GpuMode::CpuSim),
            _ => Err(OffloadError(format!(
                "--gpu takes off, auto, on or cpu-sim, not {s:?}"
            ))),
        }
    }
}

/// An offload failure (no GPU with `--gpu on`, a device error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadError(pub String);

impl fmt::Display for OffloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OffloadError {}

/// The backend a mode resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU path only (no offload).
    Cpu,
    /// Offload batches to the CPU executor.
    CpuSim,
    /// Offload batches to this GPU.
    Gpu(DeviceInfo),
}

impl GpuMode {
    /// Resolve the mode on this machine: the backend and the one log line that says so.
    /// `On` without a usable GPU is an error.
    pub fn resolve(self, ordinal: usize) -> Result<(Backend, String), OffloadError> {
        match self {
            GpuMode::Off => Ok((Backend::Cpu, "GPU: off, running on the CPU".into())),
            GpuMode::CpuSim => Ok((
                Backend::CpuSim,
                "GPU: simulated by the CPU executor (testing)".into(),
            )),
            GpuMode::Auto | GpuMode::On => match probe(ordinal) {
                Ok(info) => {
                    let line = format!(
                        "GPU: {} (device {}, compute {}.{}, {} MiB)",
                        info.name,
                        info.ordinal,
                        info.compute_capability.0,
                        info.compute_capability.1,
                        info.total_mem >> 20
                    );
                    Ok((Backend::Gpu(info), line))
                }
                Err(e) if self == GpuMode::Auto => Ok((
                    Backend::Cpu,
                    format!("GPU: none ({}), running on the CPU", e.0),
                )),
                Err(e) => Err(OffloadError(format!("--gpu on: {e}"))),
            },
        }
    }
}

/// Aho-Corasick offload for one worker: a batch in, confirmed matches out, through the
/// dispatcher thread (a GPU, or the CPU executor with [`Backend::CpuSim`]).
pub struct AcOffload {
    tables: Arc<AcTables>,
    handle: DispatchHandle,
    report_cap: u32,
}

/// The shared part: tables and the dispatcher thread. Workers take an [`AcOffload`] each
/// from [`Offload::worker`].
pub struct Offload {
    tables: Arc<AcTables>,
    dispatcher: Dispatcher,
    report_cap: u32,
}

impl Offload {
    /// Set up offload of `tables` on `backend` (`None` for [`Backend::Cpu`]: nothing to
    /// offload to): the GPU's dispatcher thread, or for [`Backend::CpuSim`] one that runs
    /// the CPU executor with `cfg.layout` and `cfg.report_cap`.
    pub fn new(
        backend: &Backend,
        tables: Arc<AcTables>,
        cfg: GpuConfig,
    ) -> Result<Option<Offload>, OffloadError> {
        let dispatcher = match backend {
            Backend::Cpu => return Ok(None),
            Backend::CpuSim => Dispatcher::spawn_cpu(tables.clone(), cfg.layout, cfg.report_cap)
                .map_err(OffloadError)?,
            Backend::Gpu(info) => {
                let m = GpuMatcher::new(
                    &tables,
                    GpuConfig {
                        ordinal: info.ordinal,
                        ..cfg
                    },
                )
                .map_err(OffloadError)?;
                Dispatcher::spawn(m).map_err(OffloadError)?
            }
        };
        Ok(Some(Offload {
            tables,
            dispatcher,
            report_cap: cfg.report_cap,
        }))
    }

    /// A per-worker handle.
    pub fn worker(&self) -> AcOffload {
        AcOffload {
            tables: self.tables.clone(),
            handle: self.dispatcher.handle(),
            report_cap: self.report_cap,
        }
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<AcTables> {
        &self.tables
    }

    /// The device (`None` for the CPU executor).
    pub fn device(&self) -> Option<&DeviceInfo> {
        self.dispatcher.info()
    }
}

impl fmt::Debug for Offload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Offload")
            .field("groups", &self.tables.num_groups())
            .field("device", &self.device().map(|d| &d.name))
            .finish()
    }
}

impl AcOffload {
    /// Match `batch` and append its confirmed matches to `out` (sorted by packet, end,
    /// pattern id); the batch comes back for reuse (also after an error, when the
    /// dispatcher could return it).
    pub fn scan(
        &mut self,
        batch: Batch,
        out: &mut Vec<AcMatch>,
    ) -> Result<(Batch, MergeStats), OffloadError> {
        let (batch, rows) = self
            .handle
            .submit(batch)
            .recv()
            .map_err(|_| OffloadError("GPU dispatcher stopped".into()))?
            .map_err(OffloadError)?;
        let stats = merge_ac(&self.tables, &batch, &rows, out);
        Ok((batch, stats))
    }

    /// Report slots per packet.
    pub fn report_cap(&self) -> u32 {
        self.report_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_sim_runs_batches_through_the_dispatcher_thread() {
        use mpm::{DfaTables, Limits, Pattern};
        let groups = [
            DfaTables::build(&[Pattern::new(&b"attack"[..], 7)], &Limits::default()).unwrap(),
            DfaTables::build(&[Pattern::nocase(&b"EVIL"[..], 9)], &Limits::default()).unwrap(),
        ];
        let tables = Arc::new(AcTables::new(&groups).unwrap());
        let cfg = GpuConfig {
            report_cap: 2,
            ..GpuConfig::default()
        };
        let off = Offload::new(&Backend::CpuSim, tables, cfg)
            .unwrap()
            .unwrap();
        assert!(off.device().is_none());
        assert!(Offload::new(&Backend::Cpu, off.tables().clone(), cfg)
            .unwrap()
            .is_none());
        // Two workers at once; one packet overflows its row (3 matches, 2 slots).
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let mut w = off.worker();
                std::thread::spawn(move || {
                    let mut b = Batch::new(8, 1024);
                    b.push(0, b"an attack").unwrap();
                    b.push(1, b"evil attack").unwrap();
                    b.push(1, b"eViL EVIL evil").unwrap();
                    b.push(5, b"attack, unknown group").unwrap();
                    let mut out = Vec::new();
                    let (b, stats) = w.scan(b, &mut out).unwrap();
                    assert_eq!(b.len(), 4, "the batch comes back");
                    assert_eq!(stats.overflowed, 1);
                    let got: Vec<(u32, u32, u32)> =
                        out.iter().map(|m| (m.packet, m.pattern, m.end)).collect();
                    assert_eq!(
                        got,
                        vec![(0, 7, 9), (1, 9, 4), (2, 9, 4), (2, 9, 9), (2, 9, 14)]
                    );
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn modes_parse_and_resolve() {
        assert_eq!("auto".parse::<GpuMode>(), Ok(GpuMode::Auto));
        assert_eq!("cpu-sim".parse::<GpuMode>(), Ok(GpuMode::CpuSim));
        assert!("yes".parse::<GpuMode>().is_err());
        assert_eq!(GpuMode::Off.resolve(0).unwrap().0, Backend::Cpu);
        // Auto never fails: either a GPU or the CPU with the reason in one line.
        let (b, line) = GpuMode::Auto.resolve(0).unwrap();
        match b {
            Backend::Cpu => {
                assert!(line.starts_with("GPU: none (") && line.ends_with("running on the CPU"));
                assert!(GpuMode::On.resolve(0).is_err());
            }
            Backend::Gpu(_) => assert!(GpuMode::On.resolve(0).is_ok()),
            Backend::CpuSim => unreachable!(),
        }
        // An absent device is a reason, not a panic.
        assert!(GpuMode::On.resolve(4096).is_err());
    }
}

//! Choosing the backend (`--gpu off|auto|on`, plus the hidden `cpu-sim`) and running a
//! batch on it, the same way whichever it is.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::batch::Batch;
use crate::cpu::{self, AcLayout};
use crate::device::{probe, DeviceInfo, DispatchHandle, Dispatcher, GpuConfig, GpuMatcher};
use crate::reports::{merge_ac, AcMatch, MergeStats, ReportBuffer};
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
                "--gpu takes off, auto or on, not {s:?}"
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

enum Exec {
    Cpu(AcLayout),
    Gpu(DispatchHandle),
}

/// Aho-Corasick offload for one worker: a batch in, confirmed matches out, on the GPU
/// through the dispatcher or on the CPU executor.
pub struct AcOffload {
    tables: Arc<AcTables>,
    exec: Exec,
    report_cap: u32,
    rows: ReportBuffer,
}

/// The shared part: tables and, with a GPU, its dispatcher thread. Workers take an
/// [`AcOffload`] each from [`Offload::worker`].
pub struct Offload {
    tables: Arc<AcTables>,
    dispatcher: Option<Dispatcher>,
    layout: AcLayout,
    report_cap: u32,
}

impl Offload {
    /// Set up offload of `tables` on `backend` (`None` for [`Backend::Cpu`]: nothing to
    /// offload to).
    pub fn new(
        backend: &Backend,
        tables: Arc<AcTables>,
        cfg: GpuConfig,
    ) -> Result<Option<Offload>, OffloadError> {
        let dispatcher = match backend {
            Backend::Cpu => return Ok(None),
            Backend::CpuSim => None,
            Backend::Gpu(info) => {
                let m = GpuMatcher::new(
                    &tables,
                    GpuConfig {
                        ordinal: info.ordinal,
                        ..cfg
                    },
                )
                .map_err(OffloadError)?;
                Some(Dispatcher::spawn(m).map_err(OffloadError)?)
            }
        };
        Ok(Some(Offload {
            tables,
            dispatcher,
            layout: cfg.layout,
            report_cap: cfg.report_cap,
        }))
    }

    /// A per-worker handle.
    pub fn worker(&self) -> AcOffload {
        AcOffload {
            tables: self.tables.clone(),
            exec: match &self.dispatcher {
                Some(d) => Exec::Gpu(d.handle()),
                None => Exec::Cpu(self.layout),
            },
            report_cap: self.report_cap,
            rows: ReportBuffer::new(self.report_cap),
        }
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<AcTables> {
        &self.tables
    }
}

impl AcOffload {
    /// Match `batch` and append its confirmed matches to `out` (sorted by packet, end,
    /// pattern id); the batch comes back for reuse.
    pub fn scan(
        &mut self,
        batch: Batch,
        out: &mut Vec<AcMatch>,
    ) -> Result<(Batch, MergeStats), OffloadError> {
        match &self.exec {
            Exec::Cpu(layout) => {
                cpu::run_ac(&self.tables, &batch, *layout, &mut self.rows);
                let stats = merge_ac(&self.tables, &batch, &self.rows, out);
                Ok((batch, stats))
            }
            Exec::Gpu(h) => {
                let (batch, rows) = h
                    .submit(batch)
                    .recv()
                    .map_err(|_| OffloadError("GPU dispatcher stopped".into()))?
                    .map_err(OffloadError)?;
                let stats = merge_ac(&self.tables, &batch, &rows, out);
                Ok((batch, stats))
            }
        }
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

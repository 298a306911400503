//! Osprey's benchmark tools, run by `osprey bench ...`. [`bench_mpm`] measures every
//! multi-pattern matcher on rule contents over the TCP/UDP payloads of a capture.
#![deny(missing_docs)]

pub mod bench_mpm;
mod engines;
#[cfg(feature = "hyperscan")]
mod hyperscan;
mod patterns;
mod payloads;

pub use bench_mpm::{bench_mpm, BenchMpmOptions, BenchReport, EngineResult};

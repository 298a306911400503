//! Osprey's benchmark tools, run by `osprey bench ...`. [`bench_mpm`] measures every
//! multi-pattern matcher on rule contents over the TCP/UDP payloads of a capture;
//! [`bench_engine`] runs the whole engine over a capture held in memory.
#![deny(missing_docs)]

pub mod bench_engine;
pub mod bench_mpm;
mod engines;
#[cfg(feature = "hyperscan")]
mod hyperscan;
mod patterns;
mod payloads;

pub use bench_engine::{bench_engine, bench_engine_many, BenchEngineOptions, BenchEngineReport};
pub use bench_mpm::{bench_mpm, BenchMpmOptions, BenchReport, EngineResult};

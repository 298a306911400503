//! Osprey's benchmark tools, run by `osprey bench ...`. [`bench_mpm`] measures every
//! multi-pattern matcher on rule contents over the TCP/UDP payloads of a capture;
//! [`bench_engine`] runs the whole engine over a capture held in memory.
//!
//! Why a crate between `cli` and `engine` rather than modules of `cli`: the tools are
//! logic, not command-line handling (the binary only parses `osprey bench ...` and
//! prints the reports), and they use the engine and the matchers only through their
//! public interfaces, as any other client would. As a library they are tested on their
//! own (`cargo test -p tools`) without the binary, and what only they need stays out of
//! the binary's and the engine's dependencies: `aho-corasick` and `serde` derives for
//! the reports, and the optional Intel Hyperscan comparison (feature `hyperscan`, a C
//! library). Nothing but `cli` depends on `tools`.
#![deny(missing_docs)]

pub mod bench_engine;
pub mod bench_gpu;
pub mod bench_mpm;
mod engines;
pub mod gpu_profile;
#[cfg(feature = "hyperscan")]
mod hyperscan;
mod patterns;
mod payloads;

pub use bench_engine::{bench_engine, bench_engine_many, BenchEngineOptions, BenchEngineReport};
pub use bench_mpm::{bench_mpm, BenchMpmOptions, BenchReport, EngineResult};

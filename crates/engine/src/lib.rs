//! The Osprey runtime: drives packets from a capture source through the pipeline
//! stages, batch by batch, and gathers the statistics every stage keeps.
//!
//! Today the pipeline is single-threaded: read a batch → decode → (flow, app layer and
//! detection plug in here) → outputs. Every stage takes a whole batch (Kargus §4.3).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod alerts;
mod config;
mod detection;
mod flows;
mod pipeline;
mod run;
mod setup;

pub use config::{ChecksumMode, EngineConfig};
pub use pipeline::Pipeline;
pub use run::{run_offline, Progress, RunError, RunReport};
pub use setup::{setup, Setup, SetupArgs};

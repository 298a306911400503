//! The Osprey runtime: drives packets from a capture source through the pipeline
//! stages, batch by batch, and gathers the statistics every stage keeps.
//!
//! Each worker owns a whole [`Pipeline`] (decode → defragmentation → flow and TCP
//! reassembly → app layer → detection → alerts) for its share of the flows; compiled
//! rules are shared read-only. [`run`] reads a capture through `N` workers (a reader
//! thread dispatches by a symmetric hash over lock-free rings), [`run_live`] reads an
//! interface with one AF_PACKET fanout socket per worker, [`run_bridge`] runs inline
//! between two interfaces (IPS: only accepted frames are forwarded), [`Control`] stops
//! a run or swaps its rules. Every stage takes a whole batch (Kargus §4.3).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod alert_extras;
mod alert_tunnel;
mod alert_vars;
mod alerts;
mod anomaly;
mod applog;
pub mod bucket;
mod cluster;
mod config;
mod control;
mod decoder_settings;
mod defaults;
mod detection;
mod drop_log;
pub mod exception;
mod file_store;
mod flow_log;
mod flow_timeouts;
mod flows;
mod host_os;
#[cfg(target_os = "linux")]
mod inline;
pub mod lists;
mod memcaps;
mod merge;
mod offload;
mod offload_setup;
pub mod outputs;
pub mod panics;
mod pipeline;
mod run;
mod runtime;
mod setup;
mod tagged;
mod timing;
mod tls_store;
mod txfree;
mod verdict;

pub use ::config::logging::{FileOutput as LoggingFileOutput, LogLevel, LoggingSettings};
pub use config::{ChecksumMode, EngineConfig};
pub use control::{Control, RulesetInfo};
pub use defaults::default_config;
pub use flow::dispatch::dispatch_hash;
#[cfg(target_os = "linux")]
pub use inline::{af_packet_plan, run_bridge, AfPacketPlan, CopyMode, InlinePair};
pub use offload::{GpuOffload, GpuPolicy, GpuSettings, LateResults};
pub use outputs::Outputs;
pub use pipeline::Pipeline;
pub use run::{run_offline, Progress, RunError, RunReport};
#[cfg(target_os = "linux")]
pub use runtime::run_live;
pub use runtime::{auto_readers, run, RunOptions, WORKERS_PER_READER};
pub use setup::{analyze, load_config, logging_settings, setup, Setup, SetupArgs};
pub use timing::StageTimes;
pub use verdict::FrameVerdict;

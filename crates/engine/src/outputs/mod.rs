//! The `outputs:` section of suricata.yaml and the outputs it opens: any number of
//! `eve-log` outputs (each with its record types, options and destination), `fast`
//! (`fast.log`) and `stats` (`stats.log`), and the EVE `stats` records, timed by the
//! top-level `stats:` section. [`config`] reads the section, [`Outputs`] writes.

pub mod config;
pub mod file_store;
mod log_dir;
pub mod tls_store;
mod writers;

pub use config::{EveOutput, FileOutput, OutputsConfig, StatsLogOutput};
pub use file_store::FileStoreOutput;
pub use log_dir::log_dir;
pub use tls_store::TlsStoreOutput;
pub use writers::Outputs;

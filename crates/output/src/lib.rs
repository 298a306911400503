//! Output writers: `stats.json`, EVE JSON alert and application-layer (`http`, `dns`,
//! `tls`) records, and `fast.log`.
//!
//! Writers take plain data (dotted counter names, alert records) and never know how the
//! pipeline produced it. Files are written by a background thread ([`LineWriter`]) so a
//! slow sink never stalls detection.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod alert;
pub mod eve;
mod fast;
mod filestore;
pub mod sink;
pub mod stats;
pub mod stats_log;
mod time;
pub mod tls_store;
mod writer;

pub use alert::{ip_string, proto_name, AlertRecord};
pub use eve::{AppLogger, EveOptions, EveTypes, EventMeta, LogCursor};
pub use filestore::FileStore;
pub use sink::{SinkLimits, SinkOptions, SinkSpec};
pub use time::{eve_timestamp, fast_timestamp};
pub use tls_store::TlsStore;
pub use writer::{LineWriter, ReopenSource};

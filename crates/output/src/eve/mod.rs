//! EVE JSON application-layer records: which types are on, the common record header,
//! and when a transaction is logged. The protocol objects themselves come from each
//! protocol in `app` (its `log.rs`), through [`app::Transaction`].

mod alert_ctx;
mod alert_payload;
mod applog;
mod options;
mod records;
mod types;

pub use alert_ctx::{AlertFlow, AlertTarget, AlertTunnel};
pub use alert_payload::{printable, write_http_bodies, AlertPayload};
pub use applog::{alert_app_object, AppLogger, LogCursor};
pub use options::{AlertOptions, AnomalyOptions, EveOptions};
pub use records::{bytes_str, event_record, EventMeta};
pub use types::{EveTypes, ENGINE_TYPES};

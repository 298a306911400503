//! EVE JSON application-layer records (`http`, `dns`, `tls`): which types are on, how
//! each record is laid out, and when a transaction is logged.

mod applog;
mod records;
mod types;

pub use applog::{alert_app_object, AppLogger, LogCursor};
pub use records::{
    bytes_str, dns_alert_object, dns_answer_object, dns_query_objects, event_record, http_object,
    tls_object, EventMeta,
};
pub use types::EveTypes;

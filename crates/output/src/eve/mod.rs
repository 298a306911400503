//! EVE JSON application-layer records: which types are on, the common record header,
//! and when a transaction is logged. The protocol objects themselves come from each
//! protocol in `app` (its `log.rs`), through [`app::Transaction`].

mod alert_ctx;
mod alert_frame;
mod alert_payload;
mod anomaly;
mod applog;
pub mod community_id;
mod drop;
pub(crate) mod fileinfo;
mod flow;
pub(crate) mod json;
mod options;
mod records;
mod tagged;
mod types;

pub use alert_ctx::{AlertFlow, AlertTarget, AlertTunnel};
pub use alert_frame::{AlertFrame, DATAGRAM_FRAME_PAYLOAD_MAX, STREAM_FRAME_PAYLOAD_MAX};
pub use alert_payload::{printable, write_http_bodies, AlertPayload};
pub use anomaly::{app_anomaly, decode_anomaly, stream_anomaly};
pub use applog::{alert_app_object, AppLogger, LogCursor};
pub use drop::{DropIp, DropL4, DropRecord};
pub use flow::{FlowRecord, FlowTcp};
pub use options::{AlertOptions, AnomalyOptions, DropOptions, EveOptions, FileOptions};
pub(crate) use records::Header;
pub use records::{bytes_str, event_record, with_parent_id, EventMeta};
pub use tagged::TaggedPacket;
pub use types::{EveTypes, ENGINE_TYPES};

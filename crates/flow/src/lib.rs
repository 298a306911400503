//! Flows and streams: the symmetric flow key and hashes, the per-worker flow table,
//! IP defragmentation and TCP state tracking with per-direction reassembly.
//!
//! The entry point is [`FlowTracker`]: one per worker, fed every decoded packet with
//! [`FlowTracker::packet`], which returns an [`Update`] telling detection which stream
//! bytes became inspectable on this packet (app layer and raw stream, Suricata's IDS
//! timing); [`FlowTracker::drain_ended`] flushes flows that ended (timeouts, eviction,
//! end of capture) on pseudo-packets.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod adapter;
pub mod budget;
pub mod defrag;
pub mod dispatch;
pub mod host_policy;
pub mod key;
pub mod reasm;
mod stream_pool;
pub mod table;
pub mod tcp;
pub mod tcp_events;
pub mod tcp_paws;
pub mod tcp_window;
pub mod tfo;
pub mod tracker;

pub use budget::{Budget, SharedCaps};
pub use defrag::{Defrag, DefragConfig, DefragResult, FragKey, Fragment};
pub use host_policy::HostPolicy;
pub use key::{Family, FlowKey};
pub use reasm::OverlapPolicy;
pub use table::{FlowTable, FlowValue, Lookup, Slot};
pub use tcp::{Direction, TcpHeader, TcpState};
pub use tracker::{
    Config, EndReason, Ended, Events, Flow, FlowState, FlowTracker, PacketInfo, Piece, Simulated,
    StreamData, Timeouts, Update, SESSION_BYTES,
};

//! Flows and streams: the symmetric flow key and hashes, the per-worker flow table,
//! IP defragmentation and TCP state tracking with per-direction reassembly.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod defrag;
pub mod key;
pub mod reasm;
pub mod table;

pub use key::{Family, FlowKey};
pub use table::{FlowTable, FlowValue, Lookup, Slot};

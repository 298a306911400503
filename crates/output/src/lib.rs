//! Output writers: `stats.json` now; EVE JSON and `fast.log` arrive with detection.
//!
//! Writers take plain data (dotted counter names, records) and never know how the
//! pipeline produced it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod stats;

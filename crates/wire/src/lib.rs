//! Zero-copy, bounds-checked views over packet bytes.
//!
//! Every decoder in this crate takes `&[u8]` and never allocates; malformed input is
//! classified and counted, never a panic.

#![forbid(unsafe_code)]

mod link;

pub use link::LinkType;

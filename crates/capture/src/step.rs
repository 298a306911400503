//! The step protocol between the format parsers and the input drivers.
//!
//! A parser looks at a window of bytes that starts at the next record and says what to do
//! next. The same parser serves a mapped file (the window is the rest of the file) and a
//! stream (the window is what is buffered), so both behave identically.

use std::ops::Range;

use wire::LinkType;

use crate::Timestamp;

/// Largest captured length accepted for one frame (libpcap's `MAXIMUM_SNAPLEN`).
pub(crate) const MAX_CAPLEN: u32 = 262_144;

/// Largest block a parser asks to see whole (a packet block holds at most `MAX_CAPLEN`
/// bytes of packet plus options). Bounds the stream buffer.
pub(crate) const MAX_BLOCK: usize = 1 << 20;

/// A frame found by a parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// Bytes of the whole record, consumed once the frame is taken.
    pub(crate) len: usize,
    /// The frame bytes inside the window.
    pub(crate) data: Range<usize>,
    pub(crate) wire_len: u32,
    pub(crate) ts: Timestamp,
    pub(crate) link: LinkType,
    pub(crate) interface: u32,
}

/// What the driver does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A frame; consume `Found::len` bytes after taking it.
    Frame(Found),
    /// Consume this many bytes (possibly more than the window holds) without a frame.
    Skip(usize),
    /// The record needs this many bytes from the window start (at most `MAX_BLOCK`); at
    /// the end of the input a non-empty window is a truncated record.
    NeedMore(usize),
    /// The input cannot be read further (the reason was counted).
    Stop,
}

/// Reads a `u16` at `at` in the given byte order; the caller checked the bounds.
pub(crate) fn u16_at(b: &[u8], at: usize, big: bool) -> u16 {
    let v = [b[at], b[at + 1]];
    if big {
        u16::from_be_bytes(v)
    } else {
        u16::from_le_bytes(v)
    }
}

/// Reads a `u32` at `at` in the given byte order; the caller checked the bounds.
pub(crate) fn u32_at(b: &[u8], at: usize, big: bool) -> u32 {
    let v = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if big {
        u32::from_be_bytes(v)
    } else {
        u32::from_le_bytes(v)
    }
}

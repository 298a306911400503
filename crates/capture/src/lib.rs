//! Packet sources for Osprey: pcap and pcapng files (memory-mapped, or streamed from a
//! pipe) and live AF_PACKET capture (passive, or inline between two interfaces with
//! [`Bridge`]), all yielding reusable [`Batch`]es of frames.
//!
//! ```no_run
//! use capture::{Batch, BATCH_SIZE};
//! let mut source = capture::open(std::path::Path::new("in.pcap"))?;
//! let mut batch = Batch::new();
//! while source.next_batch(&mut batch, BATCH_SIZE)? > 0 {
//!     for frame in batch.iter() {
//!         let _ = (frame.index, frame.link, frame.data.len());
//!     }
//! }
//! println!("{:?}", source.stats());
//! # Ok::<(), capture::CaptureError>(())
//! ```
//!
//! Reading allocates nothing per packet. Malformed records are counted in
//! [`CaptureStats`]; only inputs that cannot be read at all give a [`CaptureError`].

#![deny(missing_docs)]

mod batch;
mod bpf;
#[cfg(target_os = "linux")]
mod bridge;
mod dir;
mod error;
#[cfg(target_os = "linux")]
mod fanout;
mod file;
mod filter;
#[cfg(target_os = "linux")]
mod live;
mod mapguard;
mod pcap;
mod pcapng;
mod stats;
mod step;
mod stream;
mod timestamp;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;

use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use batch::{Batch, Frame, SharedBytes, BATCH_SIZE};
pub use bpf::{parse_bpf_program, BpfInstruction, MAX_BPF_INSTRUCTIONS};
#[cfg(target_os = "linux")]
pub use bridge::{Bridge, BRIDGE_BLOCK_TIMEOUT_MS};
pub use dir::{DirEvent, DirOptions, DirSource, MAX_DEPTH};
pub use error::CaptureError;
#[cfg(target_os = "linux")]
pub use fanout::{Fanout, FanoutKind};
pub use file::{FileFormat, FileSource};
pub use filter::{compile_filter, CaptureFilter, FilteredSource};
#[cfg(target_os = "linux")]
pub use live::{interface_link, LiveOptions, LiveSource};
pub use stats::CaptureStats;
pub use timestamp::Timestamp;
pub use wire::LinkType;

/// Largest captured length of one frame (libpcap's limit, 256 KiB).
pub const MAX_CAPLEN: u32 = step::MAX_CAPLEN;

/// A producer of frame batches.
pub trait Source: Send {
    /// Clears `batch` and fills it with up to `max` frames (at least one is asked for
    /// even if `max` is 0). Returns the number of frames; 0 means the input is exhausted
    /// (a file at its end, a live source once its stop flag was raised and the ring
    /// drained). Live sources block (without spinning) until frames arrive.
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError>;

    /// Counters so far.
    fn stats(&self) -> CaptureStats;

    /// Gives the source the run's stop flag: a source that waits for more input (a
    /// directory watched for new files) stops waiting and ends when `flag` is raised.
    /// Sources that never wait ignore it (the caller checks the flag between batches).
    fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        let _ = flag;
    }

    /// After `next_batch` returned 0: whether the input is exhausted (always, except for
    /// a live source with a [`LiveOptions::wake`] counter, which returns 0 early while
    /// idle so that its caller can answer requests).
    fn ended(&self) -> bool {
        true
    }

    /// Whether `next_batch` may wait for input that is not there yet (a directory
    /// watched for new files) after handing out a short batch: the caller should then
    /// pass on the frames it holds before asking for more.
    fn may_wait(&self) -> bool {
        false
    }

    /// How far the input has been read, in bytes of a mapped capture (0 for sources
    /// without a mapping): the frames of later batches lie at or after it. A
    /// [`Source::release_before`] position.
    fn position(&self) -> u64 {
        0
    }

    /// Whether the batches share the source's bytes (a mapped capture or one held in
    /// memory) instead of copying every frame: the caller may then hand whole batches to
    /// other threads to be split up without copying them again.
    fn shares_frames(&self) -> bool {
        false
    }

    /// The caller says when frames are no longer read ([`Source::release_before`])
    /// instead of the source releasing a mapped capture's pages a fixed distance
    /// behind its read position: a reader whose workers hold batches longer than that.
    fn release_by_caller(&mut self) {}

    /// Every frame before `pos` (a [`Source::position`]) has been processed: the pages
    /// of a mapped capture before it may leave memory.
    fn release_before(&mut self, pos: u64) {
        let _ = pos;
    }
}

/// Opens a pcap or pcapng file, detected by its magic number. Regular files are mapped
/// into memory; pipes and `-` (standard input) are read through a reused buffer.
pub fn open(path: &Path) -> Result<Box<dyn Source>, CaptureError> {
    Ok(Box::new(FileSource::open(path)?))
}

/// Opens a capture held in memory (e.g. for benchmarks); `name` labels errors.
pub fn open_bytes(name: &Path, bytes: Vec<u8>) -> Result<Box<dyn Source>, CaptureError> {
    Ok(Box::new(FileSource::from_bytes(name, bytes)?))
}

/// Opens a capture held in shared memory without copying it (e.g. one capture read by
/// many benchmark iterations); `name` labels errors.
pub fn open_shared(name: &Path, bytes: SharedBytes) -> Result<Box<dyn Source>, CaptureError> {
    Ok(Box::new(FileSource::from_shared(name, bytes)?))
}

/// Opens a capture read from any stream; `name` labels errors.
pub fn open_reader(
    name: &Path,
    reader: Box<dyn Read + Send>,
) -> Result<Box<dyn Source>, CaptureError> {
    Ok(Box::new(FileSource::from_reader(name, reader)?))
}

/// Opens live capture on a network interface (Linux AF_PACKET, TPACKET_V3 ring). Needs
/// CAP_NET_RAW. Open it once per worker with the same `opts.fanout_group` to spread flows
/// over the workers.
#[cfg(target_os = "linux")]
pub fn open_live(iface: &str, opts: LiveOptions) -> Result<Box<dyn Source>, CaptureError> {
    Ok(Box::new(LiveSource::open(iface, &opts)?))
}

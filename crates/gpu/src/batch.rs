//! The batch buffer a worker fills and the GPU (or the CPU executor) scans: one buffer per
//! worker for every signature group, each packet tagged with its group id (MIDeA §3.2.1).
//!
//! Layout, exactly as it is copied to the device: `bytes` holds the payloads back to back,
//! each starting at a 16-byte boundary and zero-padded to one, so a kernel reads it with
//! 16-byte vector loads (`uint4`, MIDeA §4) and never reads past the buffer; `offsets`,
//! `lens` and `groups` hold one entry per packet (offset into `bytes`, payload length,
//! signature group).

use std::fmt;

use crate::reports::ReportBuffer;
use crate::staging::{Home, HostVec, StagedMem};

/// Bytes per vector load; every payload starts at a multiple of this.
pub const ALIGN: usize = 16;

/// A batch of payloads in device layout.
///
/// A batch made by [`Batch::new`] holds its bytes in ordinary, growable memory. A *staged*
/// batch ([`crate::AcOffload::new_batch`]) holds them in a fixed buffer of the
/// dispatcher's pool (page-locked on a GPU) and carries its own report rows: the worker
/// writes its payloads straight into the memory the device copies from, and the device's
/// results come back into the rows the worker reads. Dropped, a staged batch's memory goes
/// back to the pool's free list.
#[derive(Debug)]
pub struct Batch {
    bytes: HostVec<u8>,
    offsets: Vec<u32>,
    lens: Vec<u32>,
    groups: Vec<u32>,
    max_packets: usize,
    max_bytes: usize,
    /// The report rows that travel with this buffer (staged batches; the dispatcher
    /// writes the device's results into them).
    rows: Option<ReportBuffer>,
    /// The pool a staged batch's memory returns to.
    home: Option<Home>,
}

impl Clone for Batch {
    /// A copy in ordinary memory (not staged, without rows).
    fn clone(&self) -> Batch {
        Batch {
            bytes: self.bytes.clone(),
            offsets: self.offsets.clone(),
            lens: self.lens.clone(),
            groups: self.groups.clone(),
            max_packets: self.max_packets,
            max_bytes: self.max_bytes,
            rows: None,
            home: None,
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let Some(pool) = self.home.take().and_then(|h| h.upgrade()) else {
            return;
        };
        let bytes = std::mem::replace(&mut self.bytes, HostVec::Heap(Vec::new()));
        match (bytes, self.rows.take().and_then(ReportBuffer::into_fixed)) {
            (HostVec::Fixed(bytes, _), Some((counts, reports))) => pool.give_back(StagedMem {
                bytes,
                counts,
                reports,
            }),
            // Parted from its rows (or grown out of its block): the memory is freed and
            // the pool may allocate another in its place.
            _ => pool.lost(),
        }
    }
}

/// [`Batch::push`] refused a payload: the batch is full (send it, then push again) or the
/// payload alone is larger than a batch holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushError {
    /// No room left for this payload; an empty batch would take it.
    Full,
    /// The payload is larger than the batch's byte capacity.
    TooLarge,
}

impl fmt::Display for PushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PushError::Full => f.write_str("batch full"),
            PushError::TooLarge => f.write_str("payload larger than a batch"),
        }
    }
}

impl std::error::Error for PushError {}

/// Round `n` up to a multiple of [`ALIGN`].
pub(crate) fn padded(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

impl Batch {
    /// An empty batch for at most `max_packets` payloads and `max_bytes` bytes of padded
    /// payload (capped at `u32::MAX`, the device offsets being 32-bit).
    pub fn new(max_packets: usize, max_bytes: usize) -> Batch {
        let max_bytes = padded(max_bytes.min(u32::MAX as usize - ALIGN)).min(u32::MAX as usize);
        let max_packets = max_packets.min(u32::MAX as usize);
        Batch {
            bytes: HostVec::Heap(Vec::new()),
            offsets: Vec::new(),
            lens: Vec::new(),
            groups: Vec::new(),
            max_packets,
            max_bytes,
            rows: None,
            home: None,
        }
    }

    /// An empty staged batch over `mem` (from `home`'s pool): up to `max_packets`
    /// payloads, the block's bytes, rows of `cap` slots.
    pub(crate) fn staged(mem: StagedMem, max_packets: usize, cap: u32, home: Home) -> Batch {
        let max_bytes = mem.bytes.len() / ALIGN * ALIGN;
        let max_packets = max_packets
            .min(mem.counts.len())
            .min(mem.reports.len() / cap.max(1) as usize);
        Batch {
            bytes: HostVec::Fixed(mem.bytes, 0),
            offsets: Vec::with_capacity(max_packets),
            lens: Vec::with_capacity(max_packets),
            groups: Vec::with_capacity(max_packets),
            max_packets,
            max_bytes,
            rows: Some(ReportBuffer::fixed(cap, mem.counts, mem.reports)),
            home: Some(home),
        }
    }

    /// True when the batch's bytes lie in a staged buffer of the dispatcher's pool (the
    /// dispatcher copies them to the device with one DMA, no host copy; page-locked on a
    /// GPU: [`Batch::is_pinned`]).
    pub fn is_staged(&self) -> bool {
        self.bytes.is_fixed()
    }

    /// True when the batch's bytes lie in page-locked memory.
    pub fn is_pinned(&self) -> bool {
        self.bytes.is_pinned()
    }

    /// Take the report rows that travel with this buffer (the dispatcher fills them).
    pub fn take_rows(&mut self) -> Option<ReportBuffer> {
        self.rows.take()
    }

    /// Give the buffer its report rows (back from the dispatcher, for the next use).
    pub fn set_rows(&mut self, rows: ReportBuffer) {
        self.rows = Some(rows);
    }

    /// Append `payload` for signature group `group`; returns its packet index.
    pub fn push(&mut self, group: u32, payload: &[u8]) -> Result<u32, PushError> {
        let need = padded(payload.len());
        if need > self.max_bytes {
            return Err(PushError::TooLarge);
        }
        if self.lens.len() >= self.max_packets || self.bytes.len() + need > self.max_bytes {
            return Err(PushError::Full);
        }
        let index = self.lens.len() as u32;
        self.offsets.push(self.bytes.len() as u32);
        self.lens.push(payload.len() as u32);
        self.groups.push(group);
        self.bytes.extend_from_slice(payload);
        self.bytes
            .resize(self.bytes.len() + need - payload.len(), 0);
        Ok(index)
    }

    /// Make this batch the merged image of `runs` (payload bytes, each padded) with the
    /// device entries `meta` (three runs of offsets, lengths, groups): the CPU executor's
    /// stand-in for the device buffers a merged batch is copied into.
    pub(crate) fn set_image<'r>(&mut self, runs: impl IntoIterator<Item = &'r [u8]>, meta: &[u32]) {
        let n = meta.len() / 3;
        self.clear();
        for r in runs {
            self.bytes.extend_from_slice(r);
        }
        self.offsets.extend_from_slice(&meta[..n]);
        self.lens.extend_from_slice(&meta[n..2 * n]);
        self.groups.extend_from_slice(&meta[2 * n..3 * n]);
    }

    /// Forget every packet, keeping the allocations.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.clear();
        self.lens.clear();
        self.groups.clear();
    }

    /// Number of packets.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// True when no packet is in the batch.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// The payload of packet `index`.
    pub fn payload(&self, index: usize) -> &[u8] {
        let at = self.offsets[index] as usize;
        &self.bytes.as_slice()[at..at + self.lens[index] as usize]
    }

    /// The signature group of packet `index`.
    pub fn group(&self, index: usize) -> u32 {
        self.groups[index]
    }

    /// All payload bytes (a multiple of [`ALIGN`] long).
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// Offset of each payload in [`Batch::bytes`] (multiples of [`ALIGN`]).
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Length of each payload.
    pub fn lens(&self) -> &[u32] {
        &self.lens
    }

    /// Signature group of each payload.
    pub fn groups(&self) -> &[u32] {
        &self.groups
    }

    /// Packet capacity.
    pub fn max_packets(&self) -> usize {
        self.max_packets
    }

    /// Byte capacity (padded payloads).
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

/// The 16 bytes of vector `v` (`bytes[16 v .. 16 v + 16]`), read the way a `uint4` load
/// sees them: four little-endian 32-bit words, byte `k` in word `k / 4` at bit `8 (k % 4)`.
#[inline]
pub(crate) fn load16(bytes: &[u8], v: usize) -> [u32; 4] {
    let at = v * ALIGN;
    let w = |k: usize| {
        u32::from_le_bytes([
            bytes[at + 4 * k],
            bytes[at + 4 * k + 1],
            bytes[at + 4 * k + 2],
            bytes[at + 4 * k + 3],
        ])
    };
    [w(0), w(1), w(2), w(3)]
}

/// Byte `k` (0..16) of a vector loaded by [`load16`].
#[inline]
pub(crate) fn byte_of(v: &[u32; 4], k: usize) -> u8 {
    (v[k >> 2] >> (8 * (k & 3))) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_aligned_and_padded() {
        let mut b = Batch::new(4, 64);
        assert_eq!(b.push(7, b"hello"), Ok(0));
        assert_eq!(b.push(2, &[1u8; 16]), Ok(1));
        assert_eq!(b.push(3, b""), Ok(2));
        assert_eq!(b.offsets(), &[0, 16, 32]);
        assert_eq!(b.bytes().len(), 32);
        assert_eq!(b.payload(0), b"hello");
        assert_eq!(b.payload(2), b"");
        assert_eq!(b.group(1), 2);
        assert_eq!(&b.bytes()[5..16], &[0u8; 11]);
        let v = load16(b.bytes(), 0);
        let got: Vec<u8> = (0..5).map(|k| byte_of(&v, k)).collect();
        assert_eq!(got, b"hello");
    }

    #[test]
    fn full_and_too_large() {
        let mut b = Batch::new(2, 32);
        assert_eq!(b.push(0, &[0u8; 33]), Err(PushError::TooLarge));
        b.push(0, &[0u8; 17]).unwrap();
        assert_eq!(b.push(0, &[0u8; 1]), Err(PushError::Full));
        b.clear();
        b.push(0, b"a").unwrap();
        b.push(0, b"b").unwrap();
        assert_eq!(b.push(0, b"c"), Err(PushError::Full));
        assert_eq!(b.len(), 2);
    }
}

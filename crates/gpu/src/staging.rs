//! Staging memory the workers write into directly (issue 27 point 2): each worker's batch
//! buffer and its report rows are taken from the dispatcher's pool, page-locked on a GPU
//! (ordinary memory for `--gpu cpu-sim`), so the dispatcher copies no payload: a device
//! batch is one DMA per worker buffer into the device's payload buffer, with only the
//! 12-byte entries (offset, length, group) written on the host, and the device's counters
//! and report slots are copied straight into each worker's own rows.
//!
//! - [`HostMem`]: a fixed block of host memory, ordinary or page-locked (then owned by
//!   the allocation that keeps it alive).
//! - [`HostVec`]: a vector over either a growable `Vec` or a [`HostMem`] (fixed
//!   capacity); what [`crate::Batch`] and [`crate::ReportBuffer`] hold.
//! - [`StagingPool`]: the free list of staged buffers of one dispatcher, bounded; a staged
//!   batch that is dropped goes back to it (`osprey.gpu.dispatch_staging_*`).

use std::any::Any;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use crate::batch::{padded, Batch};
use crate::feeder::DispatchStats;
use crate::reports::{RawReport, ReportBuffer};

/// A fixed block of `len` elements of host memory: ordinary memory, or page-locked memory
/// the device can copy from and into without a staging copy of the driver's. The block
/// never moves while this value lives (its owner is kept alongside the pointer).
pub struct HostMem<T> {
    ptr: NonNull<T>,
    len: usize,
    pinned: bool,
    /// What keeps the memory alive: the `Vec` of ordinary memory, or the page-locked
    /// allocation (freed when dropped).
    _owner: Box<dyn Any + Send + Sync>,
}

// SAFETY: a `HostMem` owns its block exclusively (the owner is never read through another
// path), so moving it to another thread moves the only access; `&HostMem` gives only shared
// reads of `T`.
unsafe impl<T: Send> Send for HostMem<T> {}
// SAFETY: as above; shared references only read.
unsafe impl<T: Sync> Sync for HostMem<T> {}

impl<T: Copy + Default + Send + Sync + 'static> HostMem<T> {
    /// `len` elements of ordinary memory, set to the default value.
    pub fn heap(len: usize) -> HostMem<T> {
        let mut v = vec![T::default(); len];
        let ptr = NonNull::new(v.as_mut_ptr()).unwrap_or(NonNull::dangling());
        HostMem {
            ptr,
            len,
            pinned: false,
            _owner: Box::new(v),
        }
    }

    /// Memory at `ptr` of `len` elements, kept alive by `owner` (a page-locked
    /// allocation).
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` initialised, suitably aligned
    /// elements for as long as `owner` lives, and reachable through nothing else.
    pub(crate) unsafe fn pinned(
        ptr: NonNull<T>,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> HostMem<T> {
        HostMem {
            ptr,
            len,
            pinned: true,
            _owner: owner,
        }
    }
}

impl<T> HostMem<T> {
    /// Elements in the block.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty block.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when the block is page-locked (device copies need no staging).
    pub fn is_pinned(&self) -> bool {
        self.pinned
    }

    /// The whole block.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` is valid for `len` initialised elements while `self` lives
        // (constructors' contracts), and `&self` excludes writers.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The whole block, writable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as `as_slice`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> fmt::Debug for HostMem<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostMem")
            .field("len", &self.len)
            .field("pinned", &self.pinned)
            .finish()
    }
}

/// A vector whose elements lie in a growable `Vec` or in a fixed [`HostMem`] block (a
/// staged buffer: its capacity is the block's; growing past it moves the elements to a
/// `Vec`, which is correct but gives up the staging, and is not expected: buffers are
/// sized for the batch they hold).
pub enum HostVec<T> {
    /// Ordinary, growable.
    Heap(Vec<T>),
    /// A fixed block and the elements used.
    Fixed(HostMem<T>, usize),
}

impl<T: Copy + Default + Send + Sync + 'static> HostVec<T> {
    /// Elements.
    pub fn len(&self) -> usize {
        match self {
            HostVec::Heap(v) => v.len(),
            HostVec::Fixed(_, n) => *n,
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True for a fixed block (staged memory, page-locked or not).
    pub fn is_fixed(&self) -> bool {
        matches!(self, HostVec::Fixed(..))
    }

    /// True when the elements lie in page-locked memory.
    pub fn is_pinned(&self) -> bool {
        matches!(self, HostVec::Fixed(m, _) if m.is_pinned())
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        match self {
            HostVec::Heap(v) => v,
            HostVec::Fixed(m, n) => &m.as_slice()[..*n],
        }
    }

    /// The elements, writable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            HostVec::Heap(v) => v,
            HostVec::Fixed(m, n) => &mut m.as_mut_slice()[..*n],
        }
    }

    /// Forget the elements (the memory stays).
    pub fn clear(&mut self) {
        match self {
            HostVec::Heap(v) => v.clear(),
            HostVec::Fixed(_, n) => *n = 0,
        }
    }

    /// `Vec::resize`: shrink, or grow with copies of `value`.
    pub fn resize(&mut self, len: usize, value: T) {
        match self {
            HostVec::Heap(v) => v.resize(len, value),
            HostVec::Fixed(m, n) if len <= m.len() => {
                if len > *n {
                    m.as_mut_slice()[*n..len].fill(value);
                }
                *n = len;
            }
            HostVec::Fixed(..) => {
                self.move_to_heap();
                self.resize(len, value);
            }
        }
    }

    /// Set the length to `len`, as `Vec::resize` for a growable vector; a fixed block
    /// within its capacity keeps the values its elements hold (valid, possibly stale)
    /// instead of writing `value` over them: for buffers whose readers read only what was
    /// written since (report slots up to each row's counter).
    pub fn set_len_within(&mut self, len: usize, value: T) {
        match self {
            HostVec::Fixed(m, n) if len <= m.len() => *n = len,
            _ => self.resize(len, value),
        }
    }

    /// Append `items`.
    pub fn extend_from_slice(&mut self, items: &[T]) {
        match self {
            HostVec::Heap(v) => v.extend_from_slice(items),
            HostVec::Fixed(m, n) if *n + items.len() <= m.len() => {
                m.as_mut_slice()[*n..*n + items.len()].copy_from_slice(items);
                *n += items.len();
            }
            HostVec::Fixed(..) => {
                self.move_to_heap();
                self.extend_from_slice(items);
            }
        }
    }

    fn move_to_heap(&mut self) {
        let v = self.as_slice().to_vec();
        *self = HostVec::Heap(v);
    }
}

impl<T: Copy + Default + Send + Sync + 'static> Clone for HostVec<T> {
    /// A copy in ordinary memory.
    fn clone(&self) -> HostVec<T> {
        HostVec::Heap(self.as_slice().to_vec())
    }
}

impl<T> fmt::Debug for HostVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostVec::Heap(v) => write!(f, "HostVec::Heap(len {})", v.len()),
            HostVec::Fixed(m, n) => write!(f, "HostVec::Fixed(len {n} of {m:?})"),
        }
    }
}

/// The memory of one staged buffer: payload bytes, and the counters and report slots of
/// its rows.
pub(crate) struct StagedMem {
    pub(crate) bytes: HostMem<u8>,
    pub(crate) counts: HostMem<u32>,
    pub(crate) reports: HostMem<RawReport>,
}

/// Allocates the page-locked memory of one staged buffer: `(bytes, packets, report
/// slots)`.
pub(crate) type PinnedAlloc =
    dyn Fn(usize, usize, usize) -> Result<StagedMem, String> + Send + Sync;

/// The free list of one dispatcher's staged buffers: each holds up to `packets` payloads
/// and `bytes` padded bytes, with report rows of `cap` slots; at most `max` exist at once.
pub struct StagingPool {
    free: Mutex<Vec<StagedMem>>,
    live: Mutex<usize>,
    max: usize,
    packets: usize,
    bytes: usize,
    cap: u32,
    alloc: Option<Box<PinnedAlloc>>,
    /// The dispatcher's counters (`staging_buffers`, `staging_exhausted`).
    stats: Arc<DispatchStats>,
}

impl fmt::Debug for StagingPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StagingPool")
            .field("max", &self.max)
            .field("packets", &self.packets)
            .field("bytes", &self.bytes)
            .field("pinned", &self.alloc.is_some())
            .finish()
    }
}

impl StagingPool {
    /// A pool of at most `max` buffers of `packets` payloads and `bytes` bytes (rounded up
    /// to the alignment), rows of `cap` slots; `alloc` gives page-locked memory (a GPU),
    /// `None` ordinary memory (the CPU executor); counted in `stats`.
    pub(crate) fn new(
        max: usize,
        packets: usize,
        bytes: usize,
        cap: u32,
        alloc: Option<Box<PinnedAlloc>>,
        stats: Arc<DispatchStats>,
    ) -> Arc<StagingPool> {
        Arc::new(StagingPool {
            free: Mutex::new(Vec::new()),
            live: Mutex::new(0),
            max,
            packets: packets.max(1),
            bytes: padded(bytes.max(1)),
            cap: cap.max(1),
            alloc,
            stats,
        })
    }

    /// An empty staged batch: a free buffer, or a new one while fewer than the bound
    /// exist; past the bound (or when page-locked memory is refused) an ordinary batch of
    /// the same size, counted in [`DispatchStats::staging_exhausted`].
    pub fn take(self: &Arc<Self>) -> Batch {
        let free = self.free.lock().map(|mut f| f.pop()).unwrap_or(None);
        let mem = free.or_else(|| self.allocate());
        match mem {
            Some(mem) => Batch::staged(mem, self.packets, self.cap, Arc::downgrade(self)),
            None => {
                self.stats.staging_exhausted.fetch_add(1, Ordering::Relaxed);
                let mut b = Batch::new(self.packets, self.bytes);
                b.set_rows(ReportBuffer::new(self.cap));
                b
            }
        }
    }

    fn allocate(&self) -> Option<StagedMem> {
        let mut live = self.live.lock().ok()?;
        if *live >= self.max {
            return None;
        }
        let slots = self.packets * self.cap as usize;
        let mem = match &self.alloc {
            Some(a) => a(self.bytes, self.packets, slots).ok()?,
            None => StagedMem {
                bytes: HostMem::heap(self.bytes),
                counts: HostMem::heap(self.packets),
                reports: HostMem::heap(slots),
            },
        };
        *live += 1;
        self.stats.staging_buffers.fetch_add(1, Ordering::Relaxed);
        Some(mem)
    }

    /// A staged buffer's memory back on the free list (its batch was dropped).
    pub(crate) fn give_back(&self, mem: StagedMem) {
        if let Ok(mut f) = self.free.lock() {
            f.push(mem);
        }
    }

    /// A staged buffer's memory was freed instead of given back (its batch lost its rows
    /// or outgrew its block): one fewer exists.
    pub(crate) fn lost(&self) {
        if let Ok(mut live) = self.live.lock() {
            *live = live.saturating_sub(1);
        }
    }

    /// Buffers on the free list now.
    pub fn free_buffers(&self) -> usize {
        self.free.lock().map_or(0, |f| f.len())
    }

    /// Payloads a staged buffer holds.
    pub fn packets(&self) -> usize {
        self.packets
    }
}

/// Where a staged batch's memory goes when the batch is dropped.
pub(crate) type Home = Weak<StagingPool>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_vecs_grow_like_vecs_and_fixed_ones_keep_their_block() {
        let mut v: HostVec<u32> = HostVec::Fixed(HostMem::heap(4), 0);
        v.extend_from_slice(&[1, 2]);
        v.resize(4, 9);
        assert_eq!(v.as_slice(), &[1, 2, 9, 9]);
        assert!(v.is_fixed() && !v.is_pinned());
        v.clear();
        v.resize(2, 0);
        assert_eq!(v.as_slice(), &[0, 0]);
        // Within the block the old values stay.
        v.set_len_within(4, 0);
        assert_eq!(v.as_slice(), &[0, 0, 9, 9]);
        v.set_len_within(2, 0);
        // Past the block: moved to a Vec, nothing lost.
        v.extend_from_slice(&[5, 6, 7]);
        assert!(!v.is_fixed());
        assert_eq!(v.as_slice(), &[0, 0, 5, 6, 7]);
        assert_eq!(v.clone().as_slice(), v.as_slice());
        let empty: HostMem<u8> = HostMem::heap(0);
        assert!(empty.is_empty() && empty.as_slice().is_empty());
    }

    #[test]
    fn the_pool_is_bounded_and_dropped_batches_come_back() {
        let stats = Arc::new(DispatchStats::default());
        let pool = StagingPool::new(2, 8, 100, 4, None, stats.clone());
        let a = pool.take();
        let b = pool.take();
        assert!(a.is_staged() && b.is_staged());
        assert_eq!(a.max_packets(), 8);
        assert_eq!(a.max_bytes(), 112, "rounded up to the alignment");
        // At the bound: an ordinary batch, counted.
        let c = pool.take();
        assert!(!c.is_staged());
        assert_eq!(stats.staging_exhausted.load(Ordering::Relaxed), 1);
        assert_eq!(stats.staging_buffers.load(Ordering::Relaxed), 2);
        drop(a);
        drop(c);
        assert_eq!(pool.free_buffers(), 1, "the staged one is back");
        let d = pool.take();
        assert!(d.is_staged());
        assert_eq!(pool.free_buffers(), 0);
        assert_eq!(stats.staging_buffers.load(Ordering::Relaxed), 2, "reused");
        drop((b, d));
        assert_eq!(pool.free_buffers(), 2);
        // A batch parted from its rows frees its memory; the pool may make another.
        let mut f = pool.take();
        drop(f.take_rows());
        drop(f);
        assert_eq!(pool.free_buffers(), 1);
        let (g, h) = (pool.take(), pool.take());
        assert!(g.is_staged() && h.is_staged());
        assert_eq!(stats.staging_buffers.load(Ordering::Relaxed), 3);
        drop((g, h));
        // A batch outliving its pool frees its memory.
        let e = pool.take();
        drop(pool);
        drop(e);
    }
}

//! A per-thread pool of stream allocations.
//!
//! A stream ([`crate::reasm::Reassembly`]) frees its buffer whenever its consumers have
//! taken everything it held, so that an idle flow holds no memory; the next segment
//! then needs a new buffer and a new segment list, and the first few segments grow
//! them, and a buffer whose consumers caught up is shrunk again. Those allocations
//! have a few sizes (one to [`BUF_CLASSES`] regions of bytes, one to [`SEG_CLASSES`]
//! ranges), so they are kept here for the next stream (or the next shrink) instead of
//! going back to the allocator: every worker is one thread, so the pool is the
//! worker's own and needs no lock. It is bounded ([`MAX_KEPT`] per size up to
//! [`SMALL_CLASSES`] regions, [`MAX_KEPT_MID`] per size up to [`MID_CLASSES`],
//! [`MAX_KEPT_LARGE`] per larger size; segment lists up to [`MAX_KEPT`] per size up
//! to [`SMALL_SEG_CLASSES`] entries, [`MAX_KEPT_MID`] per larger size: about 1.5 MiB
//! per thread at most); what does not fit is freed as before.
//!
//! The sizes kept reach past the raw-inspection chunks: a stream that collects a chunk
//! grows through 4, 6 and 9 regions (or 5, 8 and 12) and is emptied once inspected, so
//! with buffers of up to 8 regions kept its last growth was a reallocation and its
//! buffer was freed, two allocations per chunk on sv-ether's busy flows.
//!
//! Capacities stay exactly what the stream asked for, so the memory accounting of the
//! streams (`stream.reassembly.memcap`) does not change.

use crate::reasm::REGION;
use std::cell::RefCell;
use std::ops::Range;

/// Byte buffers of 1..=this many regions (up to 12 KiB) are kept.
const BUF_CLASSES: usize = 24;
/// Byte buffers of 1..=this many regions are kept up to [`MAX_KEPT`] per size.
const SMALL_CLASSES: usize = 4;
/// Segment lists of capacity 1..=this are kept.
const SEG_CLASSES: usize = 32;
/// Segment lists of capacity 1..=this are kept up to [`MAX_KEPT`] per size; larger
/// ones (a list grows by half past four entries: 6, 9, 13, 19, 28) up to
/// [`MAX_KEPT_MID`] per size.
const SMALL_SEG_CLASSES: usize = 4;
/// Most allocations kept per size and thread (small sizes).
const MAX_KEPT: usize = 64;
/// Byte buffers over [`SMALL_CLASSES`] and up to this many regions are kept up to
/// [`MAX_KEPT_MID`] per size.
const MID_CLASSES: usize = 12;
/// Most byte buffers kept per size and thread over [`SMALL_CLASSES`] regions, up to
/// [`MID_CLASSES`].
const MAX_KEPT_MID: usize = 16;
/// Most byte buffers kept per size and thread over [`MID_CLASSES`] regions.
const MAX_KEPT_LARGE: usize = 4;

/// Most byte buffers of class `c` (`c + 1` regions) kept.
fn max_kept(c: usize) -> usize {
    if c < SMALL_CLASSES {
        MAX_KEPT
    } else if c < MID_CLASSES {
        MAX_KEPT_MID
    } else {
        MAX_KEPT_LARGE
    }
}

#[derive(Default)]
struct Pool {
    bufs: [Vec<Vec<u8>>; BUF_CLASSES],
    segs: [Vec<Vec<Range<u64>>>; SEG_CLASSES],
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

fn buf_class(cap: usize) -> Option<usize> {
    (cap.is_multiple_of(REGION) && (1..=BUF_CLASSES).contains(&(cap / REGION)))
        .then(|| cap / REGION - 1)
}

fn seg_class(cap: usize) -> Option<usize> {
    (1..=SEG_CLASSES).contains(&cap).then(|| cap - 1)
}

/// An empty byte buffer of capacity exactly `cap` (kept when there is one).
fn bytes(cap: usize) -> Vec<u8> {
    buf_class(cap)
        .and_then(|c| POOL.with(|p| p.borrow_mut().bufs[c].pop()))
        .unwrap_or_else(|| Vec::with_capacity(cap))
}

/// An empty segment list of capacity exactly `cap` (kept when there is one).
fn segs(cap: usize) -> Vec<Range<u64>> {
    seg_class(cap)
        .and_then(|c| POOL.with(|p| p.borrow_mut().segs[c].pop()))
        .unwrap_or_else(|| Vec::with_capacity(cap))
}

/// Gives `v` a capacity of exactly `cap` (at least its length), as
/// `reserve_exact(cap - len)` would, taking a kept buffer of that size when there is one
/// (the old one is kept in its place).
pub(crate) fn grow_bytes(v: &mut Vec<u8>, cap: usize) {
    if v.capacity() >= cap {
        return;
    }
    if buf_class(cap).is_none() {
        v.reserve_exact(cap - v.len());
        return;
    }
    let mut new = bytes(cap);
    new.extend_from_slice(v);
    give(std::mem::replace(v, new), Vec::new());
}

/// Gives `v` a capacity of exactly `cap` (at least its length, less than its
/// capacity), as `shrink_to(cap)` would, taking a kept buffer of that size when there
/// is one (the old one is then kept when it has a size the pool keeps, else freed).
pub(crate) fn shrink_bytes(v: &mut Vec<u8>, cap: usize) {
    let cap = cap.max(v.len());
    if v.capacity() <= cap {
        return;
    }
    let kept = buf_class(cap).and_then(|c| {
        POOL.try_with(|p| p.try_borrow_mut().ok()?.bufs[c].pop())
            .ok()
            .flatten()
    });
    match kept {
        Some(mut new) => {
            new.extend_from_slice(v);
            give(std::mem::replace(v, new), Vec::new());
        }
        None => v.shrink_to(cap),
    }
}

/// [`grow_bytes`] for a segment list.
pub(crate) fn grow_segs(v: &mut Vec<Range<u64>>, cap: usize) {
    if v.capacity() >= cap {
        return;
    }
    if seg_class(cap).is_none() {
        v.reserve_exact(cap - v.len());
        return;
    }
    let mut new = segs(cap);
    new.extend_from_slice(v);
    give(Vec::new(), std::mem::replace(v, new));
}

/// Takes back a stream's buffer and segment list (both emptied here): kept when they
/// have a size the pool keeps and there is room, else freed.
pub(crate) fn give(mut buf: Vec<u8>, mut seg: Vec<Range<u64>>) {
    if buf.capacity() == 0 && seg.capacity() == 0 {
        return;
    }
    // During thread teardown the pool may be gone: the memory is then simply freed.
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if let Some(c) = buf_class(buf.capacity()) {
            if p.bufs[c].len() < max_kept(c) {
                buf.clear();
                p.bufs[c].push(buf);
            }
        }
        if let Some(c) = seg_class(seg.capacity()) {
            let max = if c < SMALL_SEG_CLASSES {
                MAX_KEPT
            } else {
                MAX_KEPT_MID
            };
            if p.segs[c].len() < max {
                seg.clear();
                p.segs[c].push(seg);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_allocations_come_back_empty_with_the_size_asked() {
        let mut b = Vec::new();
        grow_bytes(&mut b, REGION);
        b.extend_from_slice(b"old bytes");
        let ptr = b.as_ptr();
        let mut s = Vec::new();
        grow_segs(&mut s, 1);
        s.push(0..9);
        give(b, s);
        let mut b = Vec::new();
        grow_bytes(&mut b, REGION);
        assert_eq!((b.len(), b.capacity(), b.as_ptr()), (0, REGION, ptr));
        let mut s = Vec::new();
        grow_segs(&mut s, 1);
        assert_eq!((s.len(), s.capacity()), (0, 1));
        // Growing keeps the contents and gives exactly the capacity asked.
        b.extend_from_slice(b"kept");
        grow_bytes(&mut b, 2 * REGION);
        assert_eq!((&b[..], b.capacity()), (&b"kept"[..], 2 * REGION));
        s.push(1..2);
        grow_segs(&mut s, 3);
        assert_eq!(
            (s.len(), s.first().cloned(), s.capacity()),
            (1, Some(1..2), 3)
        );
        // The old allocations went to the pool: asked again, they come back.
        let mut again = Vec::new();
        grow_bytes(&mut again, REGION);
        assert_eq!(again.as_ptr(), ptr);
        // Other sizes are neither kept nor handed out.
        let mut big = Vec::new();
        grow_bytes(&mut big, 5 * REGION + 1);
        assert_eq!(big.capacity(), 5 * REGION + 1);
        let mut huge = Vec::new();
        grow_bytes(&mut huge, (BUF_CLASSES + 1) * REGION);
        give(huge, Vec::new());
        POOL.with(|p| assert!(p.borrow().bufs.iter().all(|b| b.len() <= MAX_KEPT)));
        let mut many = Vec::new();
        grow_segs(&mut many, 7);
        assert_eq!(many.capacity(), 7);
        // Longer lists are kept too, fewer of each size; past the largest, none.
        for _ in 0..MAX_KEPT_MID + 4 {
            give(Vec::new(), Vec::with_capacity(9));
            give(Vec::new(), Vec::with_capacity(SEG_CLASSES + 1));
        }
        POOL.with(|p| assert_eq!(p.borrow().segs[8].len(), MAX_KEPT_MID));
        let mut nine = Vec::new();
        grow_segs(&mut nine, 9);
        assert_eq!((nine.len(), nine.capacity()), (0, 9));
        POOL.with(|p| assert_eq!(p.borrow().segs[8].len(), MAX_KEPT_MID - 1));
    }

    #[test]
    fn shrinking_takes_a_kept_buffer_and_keeps_the_old_one() {
        // Nothing kept yet: the buffer shrinks in place, to exactly the size asked.
        let mut b = Vec::new();
        grow_bytes(&mut b, 6 * REGION);
        b.extend_from_slice(b"held");
        shrink_bytes(&mut b, 2 * REGION);
        assert_eq!((&b[..], b.capacity()), (&b"held"[..], 2 * REGION));
        // A kept buffer of the size asked: taken, the old one kept in its place.
        let mut k = Vec::new();
        grow_bytes(&mut k, REGION);
        let ptr = k.as_ptr();
        give(k, Vec::new());
        shrink_bytes(&mut b, REGION);
        assert_eq!(
            (&b[..], b.capacity(), b.as_ptr()),
            (&b"held"[..], REGION, ptr)
        );
        POOL.with(|p| assert_eq!(p.borrow().bufs[1].len(), 1));
        // Never below the length, never a growth.
        shrink_bytes(&mut b, 0);
        assert_eq!((&b[..], b.capacity()), (&b"held"[..], 4));
        shrink_bytes(&mut b, REGION);
        assert_eq!(b.capacity(), 4);
        // Larger sizes are kept up to their own bounds.
        for _ in 0..MAX_KEPT_MID + 4 {
            give(Vec::with_capacity(7 * REGION), Vec::new());
            give(Vec::with_capacity(20 * REGION), Vec::new());
        }
        POOL.with(|p| assert_eq!(p.borrow().bufs[6].len(), MAX_KEPT_MID));
        POOL.with(|p| assert_eq!(p.borrow().bufs[19].len(), MAX_KEPT_LARGE));
        // A chunk's growth past 8 regions comes from the pool, and goes back to it.
        let mut b = Vec::new();
        grow_bytes(&mut b, 6 * REGION);
        b.extend_from_slice(b"chunk");
        let kept = POOL.with(|p| p.borrow().bufs[8].last().map(|v| v.as_ptr()));
        give(Vec::with_capacity(9 * REGION), Vec::new());
        let nine = POOL.with(|p| p.borrow().bufs[8].last().map(|v| v.as_ptr()));
        assert_ne!(kept, nine);
        grow_bytes(&mut b, 9 * REGION);
        assert_eq!((&b[..], b.capacity()), (&b"chunk"[..], 9 * REGION));
        assert_eq!(Some(b.as_ptr()), nine);
    }
}

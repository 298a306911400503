//! A per-thread pool of stream allocations.
//!
//! A stream ([`crate::reasm::Reassembly`]) frees its buffer whenever its consumers have
//! taken everything it held, so that an idle flow holds no memory; the next segment
//! then needs a new buffer and a new segment list, and the first few segments grow
//! them. Those allocations have a few sizes (one to [`BUF_CLASSES`] regions of
//! bytes, one to [`SEG_CLASSES`] ranges), so they are kept here for the next stream
//! instead of going back to the allocator: every worker is one thread, so the pool is
//! the worker's own and needs no lock. It is bounded ([`MAX_KEPT`] per size, under
//! 1.2 MiB per thread in all); what does not fit is freed as before.
//!
//! Capacities stay exactly what the stream asked for, so the memory accounting of the
//! streams (`stream.reassembly.memcap`) does not change.

use crate::reasm::REGION;
use std::cell::RefCell;
use std::ops::Range;

/// Byte buffers of 1..=this many regions (up to 4 KiB) are kept.
const BUF_CLASSES: usize = 8;
/// Segment lists of capacity 1..=this are kept.
const SEG_CLASSES: usize = 4;
/// Most allocations kept per size and thread.
const MAX_KEPT: usize = 64;

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
            if p.bufs[c].len() < MAX_KEPT {
                buf.clear();
                p.bufs[c].push(buf);
            }
        }
        if let Some(c) = seg_class(seg.capacity()) {
            if p.segs[c].len() < MAX_KEPT {
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
        let mut many = Vec::new();
        grow_segs(&mut many, 7);
        assert_eq!(many.capacity(), 7);
    }
}

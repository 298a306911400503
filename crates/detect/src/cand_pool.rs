//! A per-thread pool of the candidate lists a flow remembers per transaction
//! ([`crate::state::TxSeen`]: the rules that look at the packet or at a body and did not
//! match yet).
//!
//! Each inspected transaction keeps two such lists until it is inspected in its final
//! state; they used to be allocated for every transaction and freed with it. Here a
//! list is built in the worker's scratch space first and then copied into a kept list
//! whose capacity is the power of two at or above its length (at least
//! [`MIN_CAP`]), which is what a `Vec` grown by pushes would have held, so a flow holds
//! no more than before. An empty list holds no allocation. Every worker is one thread,
//! so the pool is the worker's own and needs no lock; it is bounded ([`MAX_KEPT`] lists
//! per size, sizes up to [`MAX_CAP`], about 130 KiB per thread at most).
//!
//! The flow's list of remembered transactions itself lives in a slab slot
//! ([`crate::seen_list`]).

use std::cell::RefCell;

/// The smallest capacity a non-empty list gets.
const MIN_CAP: usize = 4;
/// Lists up to this capacity are kept; longer ones are allocated exactly and freed.
const MAX_CAP: usize = 256;
/// Size classes: `MIN_CAP << c` for `c` in `0..CLASSES`.
const CLASSES: usize = (MAX_CAP / MIN_CAP).trailing_zeros() as usize + 1;
/// Most lists kept per size class and thread.
const MAX_KEPT: usize = 64;

thread_local! {
    static POOL: RefCell<[Vec<Vec<u32>>; CLASSES]> = RefCell::new(Default::default());
}

/// The class of a list of capacity `cap`, when lists of that capacity are kept.
fn class_of(cap: usize) -> Option<usize> {
    (cap.is_power_of_two() && (MIN_CAP..=MAX_CAP).contains(&cap))
        .then(|| (cap / MIN_CAP).trailing_zeros() as usize)
}

/// The capacity a list of `len` entries gets.
fn cap_for(len: usize) -> usize {
    len.next_power_of_two().max(MIN_CAP)
}

/// A list holding `src`: `old` emptied and refilled when its capacity is the one
/// `src.len()` gets, else a kept list of that capacity (`old` goes to the pool), else
/// a new one. An empty `src` gives an empty list without allocation.
#[inline]
pub(crate) fn refill(mut old: Vec<u32>, src: &[u32]) -> Vec<u32> {
    if src.is_empty() {
        // The common case (no candidate left): nothing to copy, nothing to free.
        if old.capacity() != 0 {
            give(std::mem::take(&mut old));
        }
        return old;
    }
    let cap = cap_for(src.len());
    if old.capacity() != cap {
        give(std::mem::take(&mut old));
        old = class_of(cap)
            .and_then(|c| {
                POOL.try_with(|p| p.try_borrow_mut().ok()?[c].pop())
                    .ok()
                    .flatten()
            })
            .unwrap_or_else(|| Vec::with_capacity(cap));
    }
    old.clear();
    old.extend_from_slice(src);
    old
}

/// Keeps `v` for a later list (emptied) when it has a kept size and there is room;
/// frees it otherwise.
#[inline]
pub(crate) fn give(mut v: Vec<u32>) {
    if v.capacity() == 0 {
        return;
    }
    let Some(c) = class_of(v.capacity()) else {
        return;
    };
    // During thread teardown the pool may be gone: the list is then simply freed.
    let _ = POOL.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p[c].len() < MAX_KEPT {
                v.clear();
                p[c].push(v);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(c: usize) -> usize {
        POOL.with(|p| p.borrow()[c].len())
    }

    #[test]
    fn lists_get_the_capacity_pushes_would_have_given_and_come_back() {
        assert_eq!(CLASSES, 7);
        let a = refill(Vec::new(), &[1, 2, 3]);
        assert_eq!((a.as_slice(), a.capacity()), (&[1, 2, 3][..], 4));
        let ptr = a.as_ptr();
        // Same class: the list itself is refilled.
        let a = refill(a, &[7]);
        assert_eq!((a.as_slice(), a.as_ptr()), (&[7][..], ptr));
        // Longer: a list of the next class, the old one kept.
        let before = kept(0);
        let b = refill(a, &[1, 2, 3, 4, 5]);
        assert_eq!((b.len(), b.capacity()), (5, 8));
        assert_eq!(kept(0), before + 1);
        // The kept one serves the next short list.
        let c = refill(Vec::new(), &[9, 9]);
        assert_eq!((c.as_ptr(), kept(0)), (ptr, before));
        // Empty: no allocation held, the old list kept.
        let d = refill(b, &[]);
        assert_eq!(d.capacity(), 0);
        assert_eq!(kept(1), 1);
        // Over the largest class: allocated, never kept.
        let big: Vec<u32> = (0..300).collect();
        let e = refill(Vec::new(), &big);
        assert_eq!((e.as_slice(), e.capacity()), (big.as_slice(), 512));
        give(e);
        give(c);
        assert_eq!(kept(0), before + 1);
    }

    #[test]
    fn the_pool_is_bounded() {
        for _ in 0..MAX_KEPT + 10 {
            give(Vec::with_capacity(16));
        }
        assert_eq!(kept(2), MAX_KEPT);
        // Capacities that are no class are freed.
        give(Vec::with_capacity(12));
        give(Vec::with_capacity(2));
        assert!((0..CLASSES).all(|c| kept(c) <= MAX_KEPT));
    }
}

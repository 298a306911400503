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
//! The flow's list of remembered transactions itself starts with room for two entries
//! (a transaction is remembered once per direction) and grows one entry at a time up
//! to [`SEEN_GROW_BY_ONE`] entries; each growth takes a kept list of the next length
//! (from an ended flow or a list that grew) and leaves the outgrown one for the next
//! flow ([`grow_seen`]), so flows starting as others end do not allocate these lists.

use std::cell::RefCell;

use crate::state::TxSeen;

/// The smallest capacity a non-empty list gets.
const MIN_CAP: usize = 4;
/// Lists up to this capacity are kept; longer ones are allocated exactly and freed.
const MAX_CAP: usize = 256;
/// Size classes: `MIN_CAP << c` for `c` in `0..CLASSES`.
const CLASSES: usize = (MAX_CAP / MIN_CAP).trailing_zeros() as usize + 1;
/// Most lists kept per size class and thread.
const MAX_KEPT: usize = 64;

/// Lists of remembered transactions grow one entry at a time up to this capacity
/// (`FlowDetect::remember_tx_at`: a flow usually has one or two transactions in
/// inspection); lists of 1 to this many entries are kept.
pub(crate) const SEEN_GROW_BY_ONE: usize = 4;
/// The capacity of a flow's list after its first push.
const SEEN_FIRST: usize = 2;
/// Most lists of remembered transactions kept per capacity and thread (a list holds
/// about 170 bytes per entry: at most about 110 KiB for the four capacities).
const MAX_SEEN_KEPT: usize = 64;

thread_local! {
    static POOL: RefCell<[Vec<Vec<u32>>; CLASSES]> = RefCell::new(Default::default());
    /// Emptied lists of remembered transactions of 1 to [`SEEN_GROW_BY_ONE`] entries,
    /// from ended flows and from lists that grew.
    static SEEN: RefCell<[Vec<Vec<TxSeen>>; SEEN_GROW_BY_ONE]> = RefCell::new(Default::default());
}

/// Makes room for one more entry in a flow's full list of remembered transactions
/// shorter than [`SEEN_GROW_BY_ONE`]: its entries move into a kept list of one more
/// entry (two for an empty list: a transaction is remembered once per direction, so a
/// flow's first one soon takes two) when there is one (the outgrown list is kept
/// instead), else the list grows to that. Longer lists grow as a `Vec` does.
pub(crate) fn grow_seen(list: &mut Vec<TxSeen>) {
    let len = list.len();
    if len != list.capacity() {
        return;
    }
    if len >= SEEN_GROW_BY_ONE {
        list.reserve(1);
        return;
    }
    let want = (len + 1).max(SEEN_FIRST);
    let kept = SEEN
        .try_with(|p| p.try_borrow_mut().ok()?[want - 1].pop())
        .ok()
        .flatten();
    match kept {
        Some(mut bigger) => {
            bigger.append(list);
            give_seen(std::mem::replace(list, bigger));
        }
        None => list.reserve_exact(want - len),
    }
}

/// Keeps a flow's list of remembered transactions (emptied: their candidate lists go
/// back to the pool) when it holds 1 to [`SEEN_GROW_BY_ONE`] entries and there is
/// room; frees it otherwise.
pub(crate) fn give_seen(mut v: Vec<TxSeen>) {
    v.clear();
    let cap = v.capacity();
    if !(1..=SEEN_GROW_BY_ONE).contains(&cap) {
        return;
    }
    let _ = SEEN.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            let kept = &mut p[cap - 1];
            if kept.len() < MAX_SEEN_KEPT {
                kept.push(v);
            }
        }
    });
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

    fn seen_kept() -> [usize; SEEN_GROW_BY_ONE] {
        SEEN.with(|p| std::array::from_fn(|i| p.borrow()[i].len()))
    }

    fn seen_entry(id: u64) -> TxSeen {
        let mut t = TxSeen::default();
        t.id = id;
        t
    }

    #[test]
    fn lists_of_remembered_transactions_grow_by_one_through_the_pool() {
        SEEN.with(|p| p.borrow_mut().iter_mut().for_each(Vec::clear));
        let mut v = Vec::new();
        for id in 0..SEEN_GROW_BY_ONE as u64 {
            grow_seen(&mut v);
            v.push(seen_entry(id));
            // Two entries at first, then one more at a time.
            assert_eq!(v.capacity(), v.len().max(SEEN_FIRST));
        }
        // An entry's candidate list goes back to its own pool.
        v[0].pkt_cands = refill(Vec::new(), &[1, 2]);
        let before = kept(0);
        let ptr = v.as_ptr();
        give_seen(v);
        assert_eq!(kept(0), before + 1);
        assert_eq!(seen_kept(), [0, 0, 0, 1]);
        // A list growing from three to four entries takes the kept one and keeps its
        // own.
        let mut w = Vec::with_capacity(3);
        for id in 0..3 {
            w.push(seen_entry(id));
        }
        grow_seen(&mut w);
        assert_eq!((w.as_ptr(), w.len(), w.capacity()), (ptr, 3, 4));
        assert_eq!(w.iter().map(|t| t.id).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(seen_kept(), [0, 0, 1, 0]);
        // Past the grow-by-one length a list grows as a `Vec` does, and is not kept.
        w.push(seen_entry(3));
        grow_seen(&mut w);
        assert!(w.capacity() > SEEN_GROW_BY_ONE);
        give_seen(w);
        assert_eq!(seen_kept(), [0, 0, 1, 0]);
        // A list with room does not move.
        let mut x = Vec::with_capacity(2);
        x.push(seen_entry(9));
        let p = x.as_ptr();
        grow_seen(&mut x);
        assert_eq!((x.as_ptr(), x.capacity()), (p, 2));
        // The kept lists are bounded.
        for _ in 0..MAX_SEEN_KEPT + 3 {
            give_seen(Vec::with_capacity(1));
        }
        assert_eq!(seen_kept()[0], MAX_SEEN_KEPT);
        SEEN.with(|p| p.borrow_mut().iter_mut().for_each(Vec::clear));
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

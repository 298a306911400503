//! A flow's list of remembered transactions ([`TxSeen`]), its first entries in a slot
//! of the worker's slab (`slabs`).
//!
//! Every flow with transactions remembers at least one, usually one per direction:
//! a list of its own was one allocation per new flow, the largest site left while the
//! open flows grow (pools of ended flows' lists cannot serve growth). Here the first
//! [`INLINE`] entries live in a slab slot taken on the first one (a chunk of slots is
//! one allocation for many flows, an ended flow's slot serves the next); a longer list
//! moves to the heap as a `Vec` grows. An empty list holds no slot: a flow without
//! transactions costs a pointer.

use std::ops::{Deref, DerefMut};

use smallvec::SmallVec;

use crate::state::TxSeen;

/// Entries held in the slot before the list moves to the heap: a transaction in both
/// directions.
pub(crate) const INLINE: usize = 2;

/// The slot's contents.
#[derive(Debug, Default)]
pub(crate) struct SeenSlots(SmallVec<[TxSeen; INLINE]>);

slabs::slabbed!(SeenSlots);

/// The list, sorted by the caller (see [`crate::state::FlowDetect`]).
#[derive(Debug, Default)]
pub(crate) struct SeenList(Option<slabs::SlabBox<SeenSlots>>);

impl SeenList {
    /// Room for entries without moving: 0 without a slot, [`INLINE`] in the slot,
    /// more on the heap.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.0.as_ref().map_or(0, |s| s.0.capacity())
    }

    /// Forgets every entry (the slot is kept).
    pub(crate) fn clear(&mut self) {
        if let Some(s) = &mut self.0 {
            s.0.clear();
        }
    }

    /// Keeps the entries `f` accepts, in order.
    pub(crate) fn retain(&mut self, mut f: impl FnMut(&TxSeen) -> bool) {
        if let Some(s) = &mut self.0 {
            s.0.retain(|t| f(t));
        }
    }

    /// Removes the entry at `i` (shifting the later ones).
    pub(crate) fn remove(&mut self, i: usize) -> TxSeen {
        match &mut self.0 {
            Some(s) => s.0.remove(i),
            None => panic!("removal index {i} in an empty list"),
        }
    }

    /// Inserts `seen` at `i`, taking a slot on the first entry.
    pub(crate) fn insert(&mut self, i: usize, seen: TxSeen) {
        self.0
            .get_or_insert_with(slabs::SlabBox::default)
            .0
            .insert(i, seen);
    }
}

impl Deref for SeenList {
    type Target = [TxSeen];

    fn deref(&self) -> &[TxSeen] {
        self.0.as_ref().map_or(&[], |s| &s.0[..])
    }
}

impl DerefMut for SeenList {
    fn deref_mut(&mut self) -> &mut [TxSeen] {
        match &mut self.0 {
            Some(s) => &mut s.0[..],
            None => &mut [],
        }
    }
}

impl Clone for SeenList {
    fn clone(&self) -> Self {
        let mut c = SeenList::default();
        for (i, t) in self.iter().enumerate() {
            c.insert(i, t.clone());
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(dir: u8, id: u64) -> TxSeen {
        let mut t = TxSeen::default();
        (t.dir, t.id) = (dir, id);
        t
    }

    fn keys(l: &SeenList) -> Vec<(u64, u8)> {
        l.iter().map(|t| (t.id, t.dir)).collect()
    }

    #[test]
    fn entries_live_in_a_slot_then_on_the_heap() {
        let mut l = SeenList::default();
        assert_eq!((l.len(), l.capacity()), (0, 0));
        assert!(l.is_empty());
        l.clear();
        l.retain(|_| true);
        l.insert(0, seen(0, 1));
        l.insert(1, seen(1, 1));
        assert_eq!(l.capacity(), INLINE, "both directions in the slot");
        l.insert(0, seen(1, 0));
        assert!(l.capacity() > INLINE);
        assert_eq!(keys(&l), [(0, 1), (1, 0), (1, 1)]);
        l[1].fp = 7;
        assert_eq!(l.remove(0).id, 0);
        assert_eq!(l[0].fp, 7);
        let c = l.clone();
        assert_eq!(keys(&c), keys(&l));
        l.retain(|t| t.dir == 1);
        assert_eq!(keys(&l), [(1, 1)]);
        l.clear();
        assert!(l.is_empty() && l.capacity() > 0, "the slot is kept");
        assert_eq!(keys(&c), [(1, 0), (1, 1)]);
    }

    #[test]
    fn a_dropped_list_gives_its_slot_to_the_next_flow() {
        let mut a = SeenList::default();
        a.insert(0, seen(0, 0));
        let at = a.as_ptr();
        drop(a);
        let mut b = SeenList::default();
        b.insert(0, seen(0, 5));
        assert_eq!(b.as_ptr(), at);
        assert_eq!(keys(&b), [(5, 0)]);
    }
}

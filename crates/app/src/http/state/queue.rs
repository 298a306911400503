//! The transaction queue of an HTTP/1 state, its first transaction held inline.
//!
//! A flow usually has one transaction live at a time. Held in the state itself, a new
//! flow's first transaction needs no allocation of its own (a heap queue of one slot
//! was one allocation per new HTTP flow: the largest single site left once states and
//! transactions were pooled, as the open flows grow). Only when two transactions are
//! live at once do they move to a heap queue, grown as [`super::mem::push_tx`] grows
//! it, which the state keeps from then on.
//!
//! The room the queue reports ([`TxQueue::capacity`]) is the heap queue's as it was
//! before the inline slot (one slot once a transaction was held), so the memory a state
//! is charged against `http.memcap` does not change.

use std::collections::VecDeque;

use crate::http::tx::HttpTx;

/// The live transactions of a flow, oldest first.
#[derive(Default)]
pub(crate) struct TxQueue {
    /// The only transaction, while the heap queue has no room.
    first: Option<HttpTx>,
    /// Every transaction once two were live at once (`first` is then `None`).
    heap: VecDeque<HttpTx>,
    /// The inline slot held a transaction (it counts as a queue of one slot).
    used: bool,
}

impl TxQueue {
    /// Live transactions.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.heap.len()
    }

    /// Slots, counted as the heap queue's alone would be: the inline slot is one once
    /// used.
    pub(crate) fn capacity(&self) -> usize {
        match self.heap.capacity() {
            0 => usize::from(self.used),
            n => n,
        }
    }

    /// The oldest transaction.
    pub(crate) fn front(&self) -> Option<&HttpTx> {
        self.first.as_ref().or_else(|| self.heap.front())
    }

    /// Takes the oldest transaction out.
    pub(crate) fn pop_front(&mut self) -> Option<HttpTx> {
        self.first.take().or_else(|| self.heap.pop_front())
    }

    /// The `i`-th transaction from the oldest.
    pub(crate) fn get(&self, i: usize) -> Option<&HttpTx> {
        match &self.first {
            Some(t) => (i == 0).then_some(t),
            None => self.heap.get(i),
        }
    }

    /// The same, mutable.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut HttpTx> {
        match &mut self.first {
            Some(t) => (i == 0).then_some(t),
            None => self.heap.get_mut(i),
        }
    }

    /// The transactions, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &HttpTx> {
        self.first.iter().chain(self.heap.iter())
    }

    /// Appends `tx`: into the inline slot while the heap queue has no room and no
    /// transaction is live; otherwise into the heap queue (the inline one moving there
    /// first), after `grow` made room for one more there when it is full.
    pub(crate) fn push_back(&mut self, tx: HttpTx, grow: impl Fn(&mut VecDeque<HttpTx>)) {
        if self.heap.capacity() == 0 && self.first.is_none() {
            self.first = Some(tx);
            self.used = true;
            return;
        }
        if let Some(first) = self.first.take() {
            // Room for both at once, as the heap queue had after its second push.
            grow(&mut self.heap);
            self.heap.push_back(first);
        }
        if self.heap.len() == self.heap.capacity() {
            grow(&mut self.heap);
        }
        self.heap.push_back(tx);
    }

    /// The heap queue (the caller takes the transactions out first: a state that ends
    /// gives its emptied queue back to the kept ones).
    pub(crate) fn take_heap(&mut self) -> VecDeque<HttpTx> {
        std::mem::take(&mut self.heap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(id: u64) -> HttpTx {
        HttpTx {
            id,
            ..HttpTx::default()
        }
    }

    fn ids(q: &TxQueue) -> Vec<u64> {
        q.iter().map(|t| t.id).collect()
    }

    /// Grows as a plain queue would, one slot (two for an empty one) at a time.
    fn grow(q: &mut VecDeque<HttpTx>) {
        q.reserve_exact(if q.capacity() == 0 { 2 } else { 1 });
    }

    #[test]
    fn one_transaction_stays_inline() {
        let mut q = TxQueue::default();
        assert_eq!((q.len(), q.capacity()), (0, 0));
        for id in 0..5 {
            q.push_back(tx(id), grow);
            assert_eq!(q.heap.capacity(), 0, "no heap queue for one at a time");
            assert_eq!((q.len(), q.capacity()), (1, 1));
            assert_eq!(q.front().map(|t| t.id), Some(id));
            assert_eq!(q.get(0).map(|t| t.id), Some(id));
            assert!(q.get(1).is_none());
            q.get_mut(0).unwrap().status = Some(200);
            assert_eq!(
                q.pop_front().map(|t| (t.id, t.status)),
                Some((id, Some(200)))
            );
            assert!(q.len() == 0 && q.pop_front().is_none());
            assert_eq!(q.capacity(), 1, "counted as a one-slot queue");
        }
    }

    #[test]
    fn two_live_transactions_move_to_the_heap_queue_in_order() {
        let mut q = TxQueue::default();
        q.push_back(tx(0), grow);
        q.push_back(tx(1), grow);
        assert!(q.first.is_none());
        assert_eq!(ids(&q), [0, 1]);
        assert_eq!(q.capacity(), 2);
        for id in 2..7 {
            q.push_back(tx(id), grow);
        }
        assert_eq!(ids(&q), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(q.iter().rev().map(|t| t.id).next(), Some(6));
        assert_eq!(q.get(3).map(|t| t.id), Some(3));
        assert_eq!(q.get_mut(6).map(|t| t.id), Some(6));
        assert!(q.get(7).is_none());
        while q.len() > 1 {
            q.pop_front();
        }
        assert_eq!(ids(&q), [6]);
        let cap = q.capacity();
        // The heap queue is kept: a later single transaction goes there too.
        q.pop_front();
        q.push_back(tx(7), grow);
        assert!(q.first.is_none());
        assert_eq!((ids(&q), q.capacity()), (vec![7], cap));
        q.pop_front();
        assert_eq!(q.take_heap().capacity(), cap);
        assert_eq!(q.capacity(), 1);
    }
}

//! What a file carries for the `file-store` output: its content kept in memory until
//! the output writes it out (or learns it is not wanted), the `file_id` the store gave
//! it, whether it was stored, and the rules that asked for it. The app layer does no
//! I/O: it only keeps the bytes, bounded by [`PENDING_MAX`]; the output drains them.
//!
//! Logging and detection read transactions through shared references, hence the
//! cells.

use core::cell::{Cell, RefCell};

/// Most bytes of one file kept while nothing drains them (storing is undecided, or
/// the output fell behind); past it the content is dropped and the file is
/// [`StoreState::lost`], never stored in part.
pub const PENDING_MAX: usize = 32 << 20;

/// The file store's view of one file.
#[derive(Clone, Debug, Default)]
pub struct StoreState {
    /// The file store is on and may want the file.
    enabled: bool,
    /// Whether the content is kept (the file store may want it).
    keeping: Cell<bool>,
    /// Content not yet handed to the store.
    pending: RefCell<Vec<u8>>,
    /// The content could not be kept whole (a hole, or [`PENDING_MAX`] reached).
    lost: Cell<bool>,
    /// The store's `file_id` once it started writing the file (0: not yet).
    id: Cell<u64>,
    /// The file was stored under its final name.
    stored: Cell<bool>,
    /// The sids of the rules that asked for it, in order, without repeats.
    sids: RefCell<Vec<u32>>,
}

impl StoreState {
    /// The state of a new file; `keeping`: its content is kept for the store.
    pub(crate) fn new(keeping: bool) -> Self {
        StoreState {
            enabled: keeping,
            keeping: Cell::new(keeping),
            ..StoreState::default()
        }
    }

    /// Keeps `data` (the file's next bytes) when the store may want them.
    /// Heap bytes of the content kept for the store.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pending.borrow().capacity()
    }

    pub(crate) fn keep(&self, data: &[u8]) {
        if !self.keeping.get() {
            return;
        }
        let mut p = self.pending.borrow_mut();
        if p.len() + data.len() > PENDING_MAX {
            drop(p);
            self.lose();
            return;
        }
        p.extend_from_slice(data);
    }

    /// The content can no longer be kept whole: what is kept is dropped.
    pub(crate) fn lose(&self) {
        if self.keeping.replace(false) {
            self.lost.set(true);
        }
        *self.pending.borrow_mut() = Vec::new();
    }

    /// Adds `sid` to the rules that asked for the file (only with the file store on:
    /// Suricata lists them only then).
    pub(crate) fn add_sid(&self, sid: u32) {
        if !self.enabled {
            return;
        }
        let mut s = self.sids.borrow_mut();
        if !s.contains(&sid) {
            s.push(sid);
        }
    }

    /// Takes the content kept since the last call (for the store to write).
    pub fn take_pending(&self) -> Vec<u8> {
        core::mem::take(&mut *self.pending.borrow_mut())
    }

    /// Stops keeping the content and drops what is kept (the file is not stored).
    pub fn release(&self) {
        self.keeping.set(false);
        *self.pending.borrow_mut() = Vec::new();
    }

    /// Whether the content is (still) kept for the store.
    pub fn keeping(&self) -> bool {
        self.keeping.get()
    }

    /// Whether the content could not be kept whole (a hole, or too much undrained).
    pub fn lost(&self) -> bool {
        self.lost.get()
    }

    /// [`StoreState::lost`], once: true the first time it is asked after the loss.
    pub fn take_lost(&self) -> bool {
        self.lost.replace(false)
    }

    /// The `file_id` the store gave the file, once it started writing it.
    pub fn id(&self) -> Option<u64> {
        Some(self.id.get()).filter(|&i| i != 0)
    }

    /// Records the `file_id` (non-zero) the store gave the file.
    pub fn set_id(&self, id: u64) {
        self.id.set(id);
    }

    /// Whether the file was stored under its final name.
    pub fn stored(&self) -> bool {
        self.stored.get()
    }

    /// Records that the file was stored: nothing more is kept.
    pub fn set_stored(&self) {
        self.stored.set(true);
        self.release();
    }

    /// The sids of the rules that asked for the file to be stored.
    pub fn sids(&self) -> Vec<u32> {
        self.sids.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_kept_drained_and_released() {
        let s = StoreState::new(true);
        s.keep(b"abc");
        s.keep(b"de");
        assert_eq!(s.take_pending(), b"abcde");
        assert!(s.take_pending().is_empty());
        s.keep(b"f");
        s.release();
        s.keep(b"g");
        assert!(s.take_pending().is_empty());
        assert!(!s.lost());
        // Not kept at all when the store cannot want it.
        let off = StoreState::new(false);
        off.keep(b"x");
        assert!(off.take_pending().is_empty() && !off.lost());
        off.add_sid(1);
        assert!(off.sids().is_empty());
    }

    #[test]
    fn too_much_undrained_content_is_lost_not_cut() {
        let s = StoreState::new(true);
        s.keep(&vec![0; PENDING_MAX - 1]);
        s.keep(b"xy");
        assert!(s.lost() && !s.keeping());
        assert!(s.take_pending().is_empty());
        s.keep(b"z");
        assert!(s.take_pending().is_empty());
    }

    #[test]
    fn ids_sids_and_stored() {
        let s = StoreState::new(true);
        assert_eq!(s.id(), None);
        s.set_id(3);
        assert_eq!(s.id(), Some(3));
        s.add_sid(5);
        s.add_sid(6);
        s.add_sid(5);
        assert_eq!(s.sids(), [5, 6]);
        s.keep(b"a");
        s.set_stored();
        assert!(s.stored() && !s.keeping());
        assert!(s.take_pending().is_empty());
    }
}

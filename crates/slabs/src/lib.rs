//! Per-thread slabs for the boxes of per-flow state (issue 29: no allocation per flow
//! on the hot path).
//!
//! A [`SlabBox<T>`] is a `Box<T>` whose memory is a slot of a chunk of [`CHUNK`]
//! slots: a thread that needs a slot and has no free one allocates a whole chunk, so a
//! worker whose open flows grow allocates once per [`CHUNK`] flows, not once per flow,
//! and a flow that ends gives its slot to the free list of the thread it ends on (every
//! worker is one thread: its own list, no lock). The free list is threaded through the
//! free slots themselves, so keeping a slot costs nothing beyond the slot.
//!
//! Chunks are never freed: the slots of a type are as many as the most that were live
//! at once (rounded up to chunks), as with Suricata's preallocated flow pool; they are
//! bounded by what bounds the flows (`flow.memcap`). A thread that ends hands its free
//! slots to the next thread that runs short ([`Slabbed::orphans`]), so threads that come
//! and go (a socket runmode's jobs) do not leak slots.
//!
//! The one place with `unsafe` for this: the crates that hold per-flow state forbid it.
#![deny(missing_docs)]

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Mutex;

/// Slots allocated at once when a thread has no free one.
pub const CHUNK: usize = 32;

/// A slot: a value while its [`SlabBox`] lives, else the link to the next free slot.
union Slot<T> {
    value: ManuallyDrop<T>,
    next: Option<NonNull<Slot<T>>>,
}

/// A chain of free slots handed from a thread that ended to the next that needs one.
pub struct Chain<T>(NonNull<Slot<T>>);

// SAFETY: a chain's slots are free memory of leaked chunks, owned by nobody else: the
// thread that takes the chain from the mutex is the only one that follows it.
unsafe impl<T> Send for Chain<T> {}

/// A type whose boxes come from per-thread slabs: where its free lists live. Implement
/// it with [`slabbed!`].
pub trait Slabbed: Sized + 'static {
    /// This thread's free slots of the type.
    fn free_list() -> &'static std::thread::LocalKey<FreeList<Self>>;
    /// The free slots of threads that ended.
    fn orphans() -> &'static Mutex<Vec<Chain<Self>>>;
}

/// Implements [`Slabbed`] for a type: `slabs::slabbed!(MyState);`.
#[macro_export]
macro_rules! slabbed {
    ($t:ty) => {
        impl $crate::Slabbed for $t {
            fn free_list() -> &'static ::std::thread::LocalKey<$crate::FreeList<Self>> {
                ::std::thread_local! {
                    static FREE: $crate::FreeList<$t> = $crate::FreeList::new();
                }
                &FREE
            }
            fn orphans() -> &'static ::std::sync::Mutex<::std::vec::Vec<$crate::Chain<Self>>> {
                static ORPHANS: ::std::sync::Mutex<::std::vec::Vec<$crate::Chain<$t>>> =
                    ::std::sync::Mutex::new(::std::vec::Vec::new());
                &ORPHANS
            }
        }
    };
}

/// One thread's free slots of a type (a list threaded through the slots).
pub struct FreeList<T: Slabbed> {
    head: Cell<Option<NonNull<Slot<T>>>>,
}

impl<T: Slabbed> FreeList<T> {
    /// An empty list.
    pub const fn new() -> Self {
        FreeList {
            head: Cell::new(None),
        }
    }

    fn pop(&self) -> Option<NonNull<Slot<T>>> {
        let slot = self.head.get()?;
        // SAFETY: a slot on the list is free: its `next` field is the one written.
        self.head.set(unsafe { (*slot.as_ptr()).next });
        Some(slot)
    }

    fn push(&self, slot: NonNull<Slot<T>>) {
        // SAFETY: the slot is free (its value was dropped or never written) and owned
        // by the caller; writing the link does not drop anything.
        unsafe {
            slot.as_ptr().write(Slot {
                next: self.head.get(),
            })
        };
        self.head.set(Some(slot));
    }

    /// A free slot: this thread's, else an ended thread's, else one of a new chunk.
    fn take(&self) -> NonNull<Slot<T>> {
        if let Some(slot) = self.pop() {
            return slot;
        }
        if let Some(chain) = lock(T::orphans()).pop() {
            self.head.set(Some(chain.0));
            if let Some(slot) = self.pop() {
                return slot;
            }
        }
        let first = new_chunk::<T>(CHUNK);
        for i in 1..CHUNK {
            // SAFETY: `i` is within the chunk of `CHUNK` slots that starts at `first`.
            self.push(unsafe { NonNull::new_unchecked(first.as_ptr().add(i)) });
        }
        first
    }
}

impl<T: Slabbed> Default for FreeList<T> {
    fn default() -> Self {
        FreeList::new()
    }
}

impl<T: Slabbed> Drop for FreeList<T> {
    /// The thread ends: its free slots go to the next thread that needs some.
    fn drop(&mut self) {
        if let Some(head) = self.head.take() {
            lock(T::orphans()).push(Chain(head));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `n` free slots in one allocation, leaked: they live as long as the process.
fn new_chunk<T: 'static>(n: usize) -> NonNull<Slot<T>> {
    let chunk: Box<[Slot<T>]> = (0..n).map(|_| Slot { next: None }).collect();
    let chunk: &'static mut [Slot<T>] = Box::leak(chunk);
    NonNull::new(chunk.as_mut_ptr()).expect("a leaked box is not null")
}

/// A box of `T` in a slot of the thread's slab (see the crate's documentation).
pub struct SlabBox<T: Slabbed> {
    slot: NonNull<Slot<T>>,
    _owns: PhantomData<T>,
}

// SAFETY: a `SlabBox` owns its value as a `Box` does (no other pointer to the slot is
// used while it lives), and the slot's memory is never freed, so the box and its
// value may move to another thread; dropping it there puts the slot on that thread's
// free list.
unsafe impl<T: Slabbed + Send> Send for SlabBox<T> {}
// SAFETY: shared access only hands out `&T`, as `&Box<T>` does.
unsafe impl<T: Slabbed + Sync> Sync for SlabBox<T> {}

impl<T: Slabbed> SlabBox<T> {
    /// `value` in a free slot of this thread's slab.
    pub fn new(value: T) -> Self {
        let slot = T::free_list()
            .try_with(FreeList::take)
            // While the thread's locals are torn down: a chunk of one slot.
            .unwrap_or_else(|_| new_chunk::<T>(1));
        // SAFETY: the slot is free and ours; writing it drops nothing.
        unsafe {
            slot.as_ptr().write(Slot {
                value: ManuallyDrop::new(value),
            })
        };
        SlabBox {
            slot,
            _owns: PhantomData,
        }
    }
}

impl<T: Slabbed> Drop for SlabBox<T> {
    fn drop(&mut self) {
        // SAFETY: the slot holds our value, written by `new` and dropped only here.
        unsafe { ManuallyDrop::drop(&mut (*self.slot.as_ptr()).value) };
        let slot = self.slot;
        if T::free_list().try_with(|f| f.push(slot)).is_err() {
            // This thread's list is gone (thread teardown): the next thread takes it.
            // SAFETY: the slot is free now; a chain of one slot ends with `None`.
            unsafe { slot.as_ptr().write(Slot { next: None }) };
            lock(T::orphans()).push(Chain(slot));
        }
    }
}

impl<T: Slabbed> Deref for SlabBox<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the slot holds our value while the box lives.
        unsafe { &(*self.slot.as_ptr()).value }
    }
}

impl<T: Slabbed> DerefMut for SlabBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { &mut (*self.slot.as_ptr()).value }
    }
}

impl<T: Slabbed + Default> Default for SlabBox<T> {
    fn default() -> Self {
        SlabBox::new(T::default())
    }
}

impl<T: Slabbed + fmt::Debug> fmt::Debug for SlabBox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[derive(Debug, Default)]
    struct State {
        id: u64,
        buf: Vec<u8>,
        drops: Option<Arc<AtomicUsize>>,
    }

    impl Drop for State {
        fn drop(&mut self) {
            if let Some(d) = &self.drops {
                d.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    slabbed!(State);

    /// Its own type per test: tests run on threads of their own but share orphans.
    #[derive(Debug, Default)]
    struct Other(u64);
    slabbed!(Other);

    #[test]
    fn freed_slots_serve_later_boxes_and_values_drop_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut a = SlabBox::new(State {
            id: 1,
            buf: b"abc".to_vec(),
            drops: Some(Arc::clone(&drops)),
        });
        a.id += 1;
        a.buf.push(b'd');
        assert_eq!((a.id, &a.buf[..]), (2, &b"abcd"[..]));
        let at: *const State = &*a;
        drop(a);
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        let b = SlabBox::<State>::default();
        assert_eq!(&*b as *const State, at, "the freed slot is taken first");
        assert_eq!((b.id, b.buf.len()), (0, 0));
        // Many live at once: distinct slots over several chunks, each value its own.
        let live: Vec<SlabBox<State>> = (0..3 * CHUNK as u64 + 5)
            .map(|id| {
                SlabBox::new(State {
                    id,
                    buf: Vec::new(),
                    drops: Some(Arc::clone(&drops)),
                })
            })
            .collect();
        let mut at: Vec<*const State> = live.iter().map(|b| &**b as *const State).collect();
        assert!(live.iter().enumerate().all(|(i, b)| b.id == i as u64));
        at.sort();
        at.dedup();
        assert_eq!(at.len(), live.len());
        drop(live);
        assert_eq!(drops.load(Ordering::Relaxed), 1 + 3 * CHUNK + 5);
        assert_eq!(format!("{b:?}"), format!("{:?}", State::default()));
    }

    #[test]
    fn boxes_move_between_threads_and_ended_threads_leave_their_slots() {
        let moved = SlabBox::new(Other(7));
        let got = std::thread::spawn(move || {
            assert_eq!(moved.0, 7);
            let at: *const Other = &*moved;
            drop(moved);
            // The slot is now this thread's: it serves this thread's next box.
            let again = SlabBox::new(Other(8));
            assert_eq!(&*again as *const Other as usize, at as usize);
            at as usize
        })
        .join()
        .unwrap();
        // That thread ended with free slots: they wait for the next thread short of one.
        assert!(!lock(Other::orphans()).is_empty());
        let fresh = std::thread::spawn(|| {
            let b = SlabBox::new(Other(9));
            (&*b as *const Other as usize, b.0)
        })
        .join()
        .unwrap();
        assert_eq!(fresh, (got, 9), "an ended thread's free slot is reused");
    }
}

//! Reading allocates nothing per packet: once a batch has been filled once, refilling it
//! from a mapped or streamed capture performs no heap allocation at all.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use capture::{Batch, BATCH_SIZE};

/// Counts allocations made while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: defers every operation to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A pcap of `n` frames of `len` bytes each.
fn capture(n: u32, len: usize) -> Vec<u8> {
    let mut f = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    for i in 0..n {
        for v in [i, 0, len as u32, len as u32] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        f.resize(f.len() + len, i as u8);
    }
    f
}

#[test]
fn steady_state_reading_does_not_allocate() {
    let bytes = capture(2000, 1500);
    let name = Path::new("gen.pcap");
    let sources = [
        capture::open_bytes(name, bytes.clone()).unwrap(),
        capture::open_reader(name, Box::new(std::io::Cursor::new(bytes))).unwrap(),
    ];
    for mut src in sources {
        let mut batch = Batch::new();
        // The first batch may size the reused buffers.
        assert_eq!(src.next_batch(&mut batch, BATCH_SIZE).unwrap(), BATCH_SIZE);
        let mut frames = batch.len();
        ALLOCS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        loop {
            let n = src.next_batch(&mut batch, BATCH_SIZE).unwrap();
            if n == 0 {
                break;
            }
            frames += n;
            for f in batch.iter() {
                std::hint::black_box(f.data);
            }
        }
        COUNTING.store(false, Ordering::Relaxed);
        assert_eq!(frames, 2000);
        assert_eq!(
            ALLOCS.load(Ordering::Relaxed),
            0,
            "allocations while reading"
        );
    }
}

//! Mapped capture files that shrink under the reader.
//!
//! Touching a page of a mapped file past its current end raises SIGBUS. Another process
//! truncating or rewriting a capture file while Osprey reads it must not kill the run:
//! the reader checks the file's size before each batch and stops at the new end (the
//! common case), and for bytes already handed to workers when the file shrank, a SIGBUS
//! handler maps a page of zeros over the faulting page of a registered mapping, so the
//! access completes (those frames read as zeros) and the source reports the file as
//! truncated. Faults outside registered mappings keep the default action.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

/// Mappings watched at once; further ones are read unguarded (as before).
const SLOTS: usize = 64;

static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static HIT: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
static INSTALL: Once = Once::new();

/// A mapped range watched by the handler while this lives.
#[derive(Debug)]
pub(crate) struct Guard {
    slot: Option<usize>,
}

impl Guard {
    /// Watches `[start, start + len)`.
    pub(crate) fn watch(start: usize, len: usize) -> Guard {
        INSTALL.call_once(install);
        for i in 0..SLOTS {
            if STARTS[i]
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                HIT[i].store(false, Ordering::Relaxed);
                ENDS[i].store(start + len, Ordering::Release);
                return Guard { slot: Some(i) };
            }
        }
        Guard { slot: None }
    }

    /// Whether a fault in the range was answered with zeros.
    pub(crate) fn faulted(&self) -> bool {
        self.slot.is_some_and(|i| HIT[i].load(Ordering::Acquire))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            ENDS[i].store(0, Ordering::Release);
            STARTS[i].store(0, Ordering::Release);
        }
    }
}

fn install() {
    // SAFETY: a zeroed sigaction is a valid value to fill in; the handler only uses
    // async-signal-safe operations (atomics, mmap, sigaction, sysconf).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
    }
}

extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers; `si_addr` is
    // the faulting address for SIGBUS.
    let addr = unsafe { (*info).si_addr() } as usize;
    for i in 0..SLOTS {
        let (s, e) = (
            STARTS[i].load(Ordering::Acquire),
            ENDS[i].load(Ordering::Acquire),
        );
        if s != 0 && addr >= s && addr < e {
            // SAFETY: sysconf is async-signal-safe.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
            let base = addr & !(page - 1);
            // SAFETY: the page lies inside a read-only private file mapping this
            // process made and still holds (the slot is cleared before it is unmapped);
            // replacing it with anonymous zeros changes no memory Rust code owns
            // mutably, and the faulting read then completes.
            let p = unsafe {
                libc::mmap(
                    base as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                HIT[i].store(true, Ordering::Release);
                return;
            }
        }
    }
    // Not ours: the default action (the faulting access raises SIGBUS again).
    // SAFETY: resetting a signal's disposition is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Batch, FileSource, Source};

    /// A file truncated while mapped: frames already in a batch read as zeros instead
    /// of killing the process, and the reader stops at the new end, counting it.
    #[test]
    fn a_capture_truncated_while_mapped_does_not_fault() {
        let page = 4096;
        let frame = vec![0xabu8; 1000];
        let recs: Vec<(u32, u32, &[u8], u32)> = (0..64).map(|i| (i, 0, &frame[..], 1000)).collect();
        let bytes = crate::testutil::pcap(false, false, 65535, 1, &recs);
        let dir = std::env::temp_dir().join(format!("osprey-mapguard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("shrinks.pcap");
        std::fs::write(&path, &bytes).unwrap();
        let mut src = FileSource::open(&path).unwrap();
        assert!(src.is_mapped());
        let mut batch = Batch::new();
        assert_eq!(src.next_batch(&mut batch, 32).unwrap(), 32);
        // Cut the file to a page and a half: the batch's later frames are past its end.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(page + page / 2).unwrap();
        let sums: Vec<u64> = batch
            .iter()
            .map(|fr| fr.data.iter().map(|&b| u64::from(b)).sum())
            .collect();
        assert_eq!(sums[0], 1000 * 0xab, "bytes before the cut are intact");
        assert_eq!(*sums.last().unwrap(), 0, "bytes past the cut read as zeros");
        // The reader stops at the new end and reports the file truncated.
        let mut total = 0;
        while let Ok(n) = src.next_batch(&mut batch, 32) {
            if n == 0 {
                break;
            }
            total += n;
        }
        assert!(total < 32, "{total}");
        assert!(src.stats().truncated >= 1);
        drop(batch);
        drop(src);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

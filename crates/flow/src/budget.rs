//! Memory budgets shared by every worker of a run: `stream.reassembly.memcap`,
//! `stream.memcap`, `flow.memcap` and `defrag.memcap` (with `defrag.trackers` and
//! `defrag.max-frags`, counts kept the same way) are caps for the whole engine, as in Suricata, not
//! per worker. Each budget is one atomic counter of bytes in use; a worker checks and
//! updates it only when its own memory changes (a stream buffer grows or shrinks, a
//! session or a flow entry comes or goes), never under a lock. The highest use seen is
//! kept for `memcap_pressure_max`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One memory budget: bytes in use now and the most ever in use.
#[derive(Debug, Default)]
pub struct Budget {
    used: AtomicUsize,
    peak: AtomicUsize,
}

impl Budget {
    /// Bytes in use now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes ever in use at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Takes `n` bytes if that keeps the use within `cap`; false (nothing taken)
    /// otherwise.
    pub fn try_take(&self, n: usize, cap: usize) -> bool {
        let mut cur = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = cur.checked_add(n).filter(|&v| v <= cap) else {
                return false;
            };
            match self
                .used
                .compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return true;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// Adds `delta` bytes (positive: taken without a check, as memory already allocated;
    /// negative: given back).
    pub fn adjust(&self, delta: isize) {
        if delta >= 0 {
            let now = self.used.fetch_add(delta as usize, Ordering::Relaxed) + delta as usize;
            self.peak.fetch_max(now, Ordering::Relaxed);
        } else {
            let d = delta.unsigned_abs();
            // Never below zero, even if an owner gives back more than it took.
            let _ = self
                .used
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                    Some(v.saturating_sub(d))
                });
        }
    }

    /// Gives back `n` bytes.
    pub fn give(&self, n: usize) {
        self.adjust(-(n.min(isize::MAX as usize) as isize));
    }
}

/// The budgets of one run, shared by its workers (clone the [`Arc`]).
#[derive(Debug, Default)]
pub struct SharedCaps {
    /// Stream reassembly memory (`stream.reassembly.memcap`).
    pub reassembly: Budget,
    /// TCP session memory (`stream.memcap`).
    pub sessions: Budget,
    /// Flow table memory (`flow.memcap`).
    pub flows: Budget,
    /// Memory of pending IP fragments and their trackers (`defrag.memcap`).
    pub defrag: Budget,
    /// Defragmentation trackers (datagrams in progress) at once (`defrag.trackers`).
    pub defrag_trackers: Budget,
    /// Fragments held at once (`defrag.max-frags`).
    pub defrag_frags: Budget,
}

impl SharedCaps {
    /// Fresh budgets, nothing in use.
    pub fn new() -> Arc<SharedCaps> {
        Arc::new(SharedCaps::default())
    }
}

/// Percentage of `cap` that `used` is (0 for no cap), as Suricata's `memcap_pressure`.
pub fn pressure(used: usize, cap: usize) -> u64 {
    if cap == 0 {
        return 0;
    }
    ((used as u128 * 100) / cap as u128).min(100) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_respects_the_cap_and_give_returns() {
        let b = Budget::default();
        assert!(b.try_take(60, 100));
        assert!(!b.try_take(41, 100));
        assert!(b.try_take(40, 100));
        assert_eq!(b.used(), 100);
        b.give(70);
        assert_eq!(b.used(), 30);
        assert_eq!(b.peak(), 100);
        b.give(1000);
        assert_eq!(b.used(), 0);
        b.adjust(5);
        assert_eq!(b.used(), 5);
    }

    #[test]
    fn shared_between_threads() {
        let caps = SharedCaps::new();
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let c = caps.clone();
                std::thread::spawn(move || {
                    let mut got = 0;
                    for _ in 0..1000 {
                        if c.reassembly.try_take(10, 20_000) {
                            got += 1;
                        }
                    }
                    got
                })
            })
            .collect();
        let total: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(total, 2000);
        assert_eq!(caps.reassembly.used(), 20_000);
    }

    #[test]
    fn pressure_is_a_percentage() {
        assert_eq!(pressure(50, 200), 25);
        assert_eq!(pressure(300, 200), 100);
        assert_eq!(pressure(1, 0), 0);
    }
}

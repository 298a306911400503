//! The bounded in-memory buffer between the producers of a socket sink and its delivery
//! thread: producers never wait on the sink; what does not fit is counted as dropped.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::SinkLimits;

/// What a socket destination did with its records, readable while it runs and after
/// its writer finished ([`LineWriter::counts`](crate::LineWriter::counts)). Once the
/// writer finished, `delivered + dropped` is every record it was given.
#[derive(Debug, Default)]
pub struct SinkCounts {
    pub(crate) delivered: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) reconnects: AtomicU64,
}

impl SinkCounts {
    pub(crate) fn add_dropped(&self, n: u64) {
        self.dropped.fetch_add(n, Ordering::Relaxed);
    }

    /// Records the destination took (for Redis: answered).
    pub fn delivered(&self) -> u64 {
        self.delivered.load(Ordering::Relaxed)
    }

    /// Records lost: the buffer was full, the destination refused them, or they were
    /// still buffered when the linger at shutdown ran out.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Connections made again after one was lost or could not be made.
    pub fn reconnects(&self) -> u64 {
        self.reconnects.load(Ordering::Relaxed)
    }
}

struct State {
    items: VecDeque<Vec<u8>>,
    /// Bytes of `items` and of the records out with the delivery thread.
    bytes: usize,
    /// Records out with the delivery thread (taken, not yet settled).
    out: usize,
    closing: bool,
    /// A drop was logged and the buffer has not emptied since (one warning per outage).
    warned: bool,
}

/// Records waiting for delivery, bounded by [`SinkLimits::buffer_records`] and
/// [`SinkLimits::buffer_bytes`] (records out with the delivery thread count too).
pub(crate) struct Queue {
    state: Mutex<State>,
    ready: Condvar,
    limits: SinkLimits,
    /// The sink's counts.
    pub counts: Arc<SinkCounts>,
    /// The destination, for messages.
    pub name: String,
}

impl Queue {
    pub(crate) fn new(limits: SinkLimits, name: String) -> Queue {
        Queue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                bytes: 0,
                out: 0,
                closing: false,
                warned: false,
            }),
            ready: Condvar::new(),
            limits,
            counts: Arc::default(),
            name,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Buffers one record, or counts it as dropped when the buffer is full. Never waits
    /// on the destination. `false` once the sink is closing.
    pub(crate) fn push(&self, line: Vec<u8>) -> bool {
        let mut s = self.lock();
        if s.closing {
            return false;
        }
        let full = s.items.len() + s.out >= self.limits.buffer_records
            || s.bytes + line.len() > self.limits.buffer_bytes;
        if full {
            self.counts.add_dropped(1);
            if !s.warned {
                s.warned = true;
                tracing::warn!(
                    "output {}: buffer full ({} records or {} bytes), dropping records until \
                     it drains",
                    self.name,
                    self.limits.buffer_records,
                    self.limits.buffer_bytes
                );
            }
            return true;
        }
        s.bytes += line.len();
        s.items.push_back(line);
        drop(s);
        self.ready.notify_one();
        true
    }

    /// Stops taking records and wakes the delivery thread.
    pub(crate) fn close(&self) {
        self.lock().closing = true;
        self.ready.notify_all();
    }

    /// Takes up to `n` records for delivery: waits until `n` are there, or until
    /// `idle` passed with some there (a part batch), or the sink closes; `None` when
    /// closing with nothing left, or when `until` passed first.
    pub(crate) fn take(&self, n: usize, idle: Duration, until: Option<Instant>) -> Option<Batch> {
        let mut s = self.lock();
        let mut first: Option<Instant> = None;
        loop {
            let have = s.items.len();
            if have >= n || (have > 0 && s.closing) {
                break;
            }
            if have == 0 && s.closing {
                return None;
            }
            let now = Instant::now();
            if have > 0 {
                let f = *first.get_or_insert(now);
                if now >= f + idle {
                    break;
                }
            }
            let mut wake = match first {
                Some(f) => f + idle,
                None => now + Duration::from_secs(3600),
            };
            if let Some(u) = until {
                if now >= u {
                    return None;
                }
                wake = wake.min(u);
            }
            s = self
                .ready
                .wait_timeout(s, wake.saturating_duration_since(now))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let k = n.min(s.items.len());
        let records: Vec<Vec<u8>> = s.items.drain(..k).collect();
        s.out += records.len();
        Some(Batch { records })
    }

    /// Waits until `until`, or until the sink starts closing during the wait.
    pub(crate) fn pause(&self, until: Instant) {
        let mut s = self.lock();
        let was = s.closing;
        while s.closing == was {
            let now = Instant::now();
            if now >= until {
                break;
            }
            s = self
                .ready
                .wait_timeout(s, until - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Settles the first `done` records of `batch` (delivered or dropped as the caller
    /// counted them) and puts the rest back at the front, in order.
    pub(crate) fn settle(&self, batch: Batch, done: usize) {
        let mut s = self.lock();
        let mut records = batch.records;
        s.out -= records.len();
        let settled: usize = records[..done].iter().map(Vec::len).sum();
        s.bytes -= settled;
        for r in records.drain(done..).rev() {
            s.items.push_front(r);
        }
        if s.items.is_empty() && s.out == 0 {
            s.warned = false;
        }
    }

    /// Empties the buffer, counting what it held (and `batch`) as dropped: the linger
    /// at shutdown ran out.
    pub(crate) fn abandon(&self, batch: Option<Batch>) -> u64 {
        let mut s = self.lock();
        let mut n = s.items.len() as u64;
        if let Some(b) = batch {
            s.out -= b.records.len();
            n += b.records.len() as u64;
        }
        s.items.clear();
        s.bytes = 0;
        self.counts.add_dropped(n);
        n
    }

    /// Whether the sink is closing.
    pub(crate) fn closing(&self) -> bool {
        self.lock().closing
    }
}

/// Records out with the delivery thread, oldest first.
pub(crate) struct Batch {
    /// The records.
    pub records: Vec<Vec<u8>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(records: usize, bytes: usize) -> SinkLimits {
        SinkLimits {
            buffer_records: records,
            buffer_bytes: bytes,
            ..SinkLimits::default()
        }
    }

    #[test]
    fn drops_past_the_record_bound_and_counts() {
        let q = Queue::new(limits(3, 1 << 20), "t".into());
        for i in 0..5u8 {
            assert!(q.push(vec![i]));
        }
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 2);
        let b = q.take(10, Duration::ZERO, None).unwrap();
        assert_eq!(b.records, vec![vec![0], vec![1], vec![2]]);
        // Out with the delivery thread: still counted against the bound.
        assert!(q.push(vec![9]));
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 3);
        // One delivered, two back at the front in order.
        q.settle(b, 1);
        assert!(q.push(vec![7]));
        let b = q.take(10, Duration::ZERO, None).unwrap();
        assert_eq!(b.records, vec![vec![1], vec![2], vec![7]]);
    }

    #[test]
    fn drops_past_the_byte_bound() {
        let q = Queue::new(limits(100, 10), "t".into());
        assert!(q.push(vec![0; 6]));
        assert!(q.push(vec![0; 6]));
        assert!(q.push(vec![0; 4]));
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn part_batch_after_idle_and_none_when_closed_and_empty() {
        let q = Queue::new(limits(100, 1 << 20), "t".into());
        q.push(b"a".to_vec());
        let t = Instant::now();
        let b = q.take(10, Duration::from_millis(30), None).unwrap();
        assert!(t.elapsed() >= Duration::from_millis(30));
        assert_eq!(b.records.len(), 1);
        q.settle(b, 1);
        let until = Instant::now() + Duration::from_millis(20);
        assert!(q.take(1, Duration::ZERO, Some(until)).is_none());
        q.close();
        assert!(!q.push(b"late".to_vec()));
        assert!(q.take(1, Duration::ZERO, None).is_none());
    }

    #[test]
    fn abandon_counts_what_was_left() {
        let q = Queue::new(limits(100, 1 << 20), "t".into());
        for _ in 0..4 {
            q.push(b"x".to_vec());
        }
        let b = q.take(1, Duration::ZERO, None).unwrap();
        assert_eq!(q.abandon(Some(b)), 4);
        assert_eq!(q.counts.dropped.load(Ordering::Relaxed), 4);
    }
}

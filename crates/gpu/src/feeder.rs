//! One feeder per GPU (Kargus §4.5's master thread): the Aho-Corasick requests that
//! several workers have queued are merged into one device batch, run by one launch, and
//! the report rows split back to each worker.
//!
//! A worker hands its batch over and goes on with its packets; the dispatcher takes the
//! first request waiting, then every further request already queued that still fits the
//! staging buffers (packets and padded bytes), and launches them together. The merge is a
//! gather: each worker's payload bytes keep their 16-byte alignment (every batch is a
//! multiple of [`ALIGN`] long), so only the offsets are shifted by the bytes before them.
//! The rows come back per packet, so a worker's rows are a contiguous run of the merged
//! ones. [`DispatchStats`] counts what was merged and moved.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};

use crate::batch::{Batch, ALIGN};
use crate::reports::{RawReport, ReportBuffer};

/// A finished batch: the batch itself (for reuse) and its report rows, or the error.
pub type AcReply = Result<(Batch, ReportBuffer), String>;

/// Dispatcher counters, shared by the dispatcher thread and whoever reports them (engine
/// wide, not per worker: `osprey.gpu.dispatch_*` in stats.json).
#[derive(Debug, Default)]
pub struct DispatchStats {
    /// Device batches launched (kernel launches of the Aho-Corasick kernel).
    pub device_batches: AtomicU64,
    /// Workers' Aho-Corasick requests served.
    pub requests: AtomicU64,
    /// Requests that shared their device batch with at least one other.
    pub merged_requests: AtomicU64,
    /// Most requests merged into one device batch.
    pub max_merged: AtomicU64,
    /// Payloads sent to the executor.
    pub packets: AtomicU64,
    /// Bytes copied to the device (payload bytes and the 12 bytes of offsets, lengths and
    /// groups per payload).
    pub bytes_h2d: AtomicU64,
    /// Bytes copied back (counters and the report slots copied).
    pub bytes_d2h: AtomicU64,
    /// Nanoseconds the dispatcher thread slept waiting for a device batch to complete
    /// (blocking synchronisation: the thread is parked, not spinning).
    pub wait_ns: AtomicU64,
}

impl DispatchStats {
    /// The counters as `(name, value)` under `osprey.gpu.`.
    pub fn counters(&self) -> [(&'static str, u64); 8] {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        [
            (
                "osprey.gpu.dispatch_device_batches",
                g(&self.device_batches),
            ),
            ("osprey.gpu.dispatch_requests", g(&self.requests)),
            (
                "osprey.gpu.dispatch_merged_requests",
                g(&self.merged_requests),
            ),
            ("osprey.gpu.dispatch_max_merged", g(&self.max_merged)),
            ("osprey.gpu.dispatch_packets", g(&self.packets)),
            ("osprey.gpu.dispatch_bytes_h2d", g(&self.bytes_h2d)),
            ("osprey.gpu.dispatch_bytes_d2h", g(&self.bytes_d2h)),
            ("osprey.gpu.dispatch_wait_ns", g(&self.wait_ns)),
        ]
    }

    /// Count one launched group.
    pub(crate) fn launched(&self, group: &Group) {
        let parts = group.len() as u64;
        self.device_batches.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(parts, Ordering::Relaxed);
        if parts > 1 {
            self.merged_requests.fetch_add(parts, Ordering::Relaxed);
        }
        self.max_merged.fetch_max(parts, Ordering::Relaxed);
        self.packets
            .fetch_add(group.packets as u64, Ordering::Relaxed);
        self.bytes_h2d
            .fetch_add((group.bytes + 12 * group.packets) as u64, Ordering::Relaxed);
    }

    /// Count bytes copied back.
    pub(crate) fn copied_back(&self, bytes: usize) {
        self.bytes_d2h.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Count a wait for the device.
    pub(crate) fn waited(&self, since: std::time::Instant) {
        let ns = since.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.wait_ns.fetch_add(ns, Ordering::Relaxed);
    }
}

/// The report slots to copy back for rows with `counts` of `cap` slots each: the fullest
/// row's used slots (at most `cap`), and the bytes that brings back, counters included.
pub(crate) fn used_slots(counts: &[u32], cap: u32) -> (usize, usize) {
    let used = counts.iter().copied().max().unwrap_or(0).min(cap.max(1)) as usize;
    let slot = std::mem::size_of::<RawReport>();
    (used, 4 * counts.len() + slot * used * counts.len())
}

/// One worker's request inside a merged device batch.
pub(crate) struct Part {
    batch: Batch,
    reply: Sender<AcReply>,
    /// Index of its first payload in the merged batch.
    first: usize,
}

/// Requests merged into one device batch.
#[derive(Default)]
pub(crate) struct Group {
    parts: Vec<Part>,
    packets: usize,
    bytes: usize,
}

impl Group {
    /// A group of one request.
    pub(crate) fn of(batch: Batch, reply: Sender<AcReply>) -> Group {
        let mut g = Group::default();
        g.push(batch, reply);
        g
    }

    /// True when `batch` can join within `max_packets` payloads and `max_bytes` bytes.
    pub(crate) fn fits(&self, batch: &Batch, max_packets: usize, max_bytes: usize) -> bool {
        self.packets + batch.len() <= max_packets && self.bytes + batch.bytes().len() <= max_bytes
    }

    /// Add a request.
    pub(crate) fn push(&mut self, batch: Batch, reply: Sender<AcReply>) {
        let first = self.packets;
        self.packets += batch.len();
        self.bytes += batch.bytes().len();
        self.parts.push(Part {
            batch,
            reply,
            first,
        });
    }

    /// Payloads in the group.
    pub(crate) fn packets(&self) -> usize {
        self.packets
    }

    /// Padded payload bytes in the group.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Requests in the group.
    pub(crate) fn len(&self) -> usize {
        self.parts.len()
    }

    /// Write the merged batch in device layout: the payload bytes into `bytes[..bytes()]`
    /// and offsets, lengths and groups into `meta[..3 * packets()]` (three runs of
    /// `packets()` entries), exactly what [`Group::merged`] holds.
    pub(crate) fn gather(&self, bytes: &mut [u8], meta: &mut [u32]) {
        let n = self.packets;
        let mut base = 0usize;
        for part in &self.parts {
            let b = &part.batch;
            let (first, k) = (part.first, b.len());
            bytes[base..base + b.bytes().len()].copy_from_slice(b.bytes());
            for (o, &off) in meta[first..first + k].iter_mut().zip(b.offsets()) {
                *o = off + base as u32;
            }
            meta[n + first..n + first + k].copy_from_slice(b.lens());
            meta[2 * n + first..2 * n + first + k].copy_from_slice(b.groups());
            base += b.bytes().len();
            debug_assert!(base.is_multiple_of(ALIGN));
        }
    }

    /// The merged batch as a [`Batch`] (the CPU executor runs it; a GPU gathers into its
    /// pinned staging instead).
    pub(crate) fn merged(&self) -> Batch {
        if let [one] = self.parts.as_slice() {
            return one.batch.clone();
        }
        let mut m = Batch::new(self.packets, self.bytes);
        for part in &self.parts {
            m.extend_from(&part.batch);
        }
        m
    }

    /// Hand each request its rows: `counts` (one per merged payload) and `slots(p)`, the
    /// filled report slots of merged payload `p` (at most `cap`), with the kernel's time
    /// and whether rows were filled in scan order ([`ReportBuffer::scan_order`]).
    pub(crate) fn split<'s>(
        self,
        cap: u32,
        (kernel_ns, scan_order): (Option<u64>, bool),
        counts: &[u32],
        slots: impl Fn(usize) -> &'s [RawReport],
    ) {
        for part in self.parts {
            let k = part.batch.len();
            let mut buf = ReportBuffer::new(cap);
            buf.reset(k);
            buf.set_kernel_ns(kernel_ns);
            buf.set_scan_order(scan_order);
            let (c, reports) = buf.raw_mut();
            c.copy_from_slice(&counts[part.first..part.first + k]);
            for p in 0..k {
                let row = slots(part.first + p);
                let at = p * cap as usize;
                reports[at..at + row.len()].copy_from_slice(row);
            }
            let _ = part.reply.send(Ok((part.batch, buf)));
        }
    }

    /// Hand every request the same error.
    pub(crate) fn fail(self, err: &str) {
        for part in self.parts {
            let _ = part.reply.send(Err(err.to_string()));
        }
    }
}

/// Requests a dispatcher thread serves.
pub(crate) enum Request {
    /// Aho-Corasick over a batch.
    Ac(Batch, Sender<AcReply>),
    /// Regex-DFA jobs over a batch.
    Dfa(
        Batch,
        Vec<crate::cpu::DfaJob>,
        Sender<crate::device::DfaReply>,
    ),
}

/// The queue of one dispatcher: the next request, and the merging of what is waiting.
pub(crate) struct Queue {
    rx: Receiver<Request>,
    /// A request taken off the channel that could not join the last group.
    held: Option<Request>,
}

impl Queue {
    /// The dispatcher's end of the channel.
    pub(crate) fn new(rx: Receiver<Request>) -> Queue {
        Queue { rx, held: None }
    }

    /// The next request, waiting for one (`None`: every sender is gone).
    pub(crate) fn next(&mut self) -> Option<Request> {
        self.held.take().or_else(|| self.rx.recv().ok())
    }

    /// The next request if one is there now.
    pub(crate) fn try_next(&mut self) -> Result<Request, TryRecvError> {
        match self.held.take() {
            Some(r) => Ok(r),
            None => self.rx.try_recv(),
        }
    }

    /// Add to `group` every Aho-Corasick request already queued that fits; the first one
    /// that does not (or a regex-DFA request, which keeps its place after the group) is
    /// held for the next call.
    pub(crate) fn merge_waiting(
        &mut self,
        group: &mut Group,
        max_packets: usize,
        max_bytes: usize,
    ) {
        loop {
            match self.try_next() {
                Ok(Request::Ac(batch, reply)) if group.fits(&batch, max_packets, max_bytes) => {
                    group.push(batch, reply)
                }
                Ok(other) => {
                    self.held = Some(other);
                    return;
                }
                Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn batch(payloads: &[(u32, &[u8])]) -> Batch {
        let mut b = Batch::new(64, 4096);
        for &(g, p) in payloads {
            b.push(g, p).unwrap();
        }
        b
    }

    #[test]
    fn a_group_gathers_and_splits_each_workers_rows() {
        let (tx1, rx1) = mpsc::channel();
        let (tx2, rx2) = mpsc::channel();
        let a = batch(&[(0, b"first"), (1, b"a payload longer than sixteen")]);
        let b = batch(&[(2, b"x")]);
        let mut g = Group::of(a.clone(), tx1);
        assert!(g.fits(&b, 3, 64));
        assert!(!g.fits(&b, 2, 64), "packets");
        assert!(!g.fits(&b, 3, 48 + 15), "bytes");
        g.push(b.clone(), tx2);
        assert_eq!((g.len(), g.packets(), g.bytes()), (2, 3, 64));
        // The gather is the merged batch's layout.
        let m = g.merged();
        let mut bytes = vec![0xAAu8; g.bytes()];
        let mut meta = vec![0u32; 3 * g.packets()];
        g.gather(&mut bytes, &mut meta);
        assert_eq!(bytes, m.bytes());
        assert_eq!(&meta[..3], m.offsets());
        assert_eq!(&meta[3..6], m.lens());
        assert_eq!(&meta[6..], m.groups());
        assert_eq!(m.payload(2), b"x");
        assert_eq!(m.offsets()[2], 48);
        // Rows: merged payload p has p + 1 reports; payload 1 overflowed (cap 2).
        let counts = [1u32, 3, 1];
        let slots: Vec<Vec<RawReport>> = (0..3)
            .map(|p| {
                (0..counts[p].min(2))
                    .map(|k| RawReport {
                        pattern: 10 * p as u32 + k,
                        end: k + 1,
                    })
                    .collect()
            })
            .collect();
        g.split(2, (Some(7), true), &counts, |p| &slots[p]);
        let (ba, ra) = rx1.recv().unwrap().unwrap();
        let (bb, rb) = rx2.recv().unwrap().unwrap();
        assert_eq!(
            (ba.len(), bb.len()),
            (2, 1),
            "each batch comes back to its worker"
        );
        assert_eq!(ra.packets(), 2);
        assert!(ra.overflowed(1) && !ra.overflowed(0));
        assert_eq!(ra.row(1), &slots[1][..]);
        assert_eq!(rb.row(0), &slots[2][..]);
        assert_eq!(rb.kernel_ns(), Some(7));
        assert!(rb.scan_order());
    }

    #[test]
    fn the_queue_merges_what_fits_and_holds_the_rest_in_order() {
        let (tx, rx) = mpsc::channel();
        let mut q = Queue::new(rx);
        let (rtx, _rrx) = mpsc::channel();
        let (dtx, _drx) = mpsc::channel();
        for _ in 0..3 {
            tx.send(Request::Ac(batch(&[(0, b"abc")]), rtx.clone()))
                .unwrap();
        }
        tx.send(Request::Dfa(batch(&[]), Vec::new(), dtx)).unwrap();
        tx.send(Request::Ac(batch(&[(0, b"abc")]), rtx.clone()))
            .unwrap();
        let Some(Request::Ac(b, r)) = q.next() else {
            panic!("an AC request first")
        };
        let mut g = Group::of(b, r);
        // Room for two payloads: the third request is held.
        q.merge_waiting(&mut g, 2, 1 << 20);
        assert_eq!(g.len(), 2);
        let Ok(Request::Ac(b, r)) = q.try_next() else {
            panic!("the held request")
        };
        let mut g = Group::of(b, r);
        // The DFA request stops the merge and keeps its place.
        q.merge_waiting(&mut g, 64, 1 << 20);
        assert_eq!(g.len(), 1);
        assert!(matches!(q.next(), Some(Request::Dfa(..))));
        assert!(matches!(q.try_next(), Ok(Request::Ac(..))));
        assert!(q.try_next().is_err());
        drop(tx);
        assert!(q.next().is_none());
    }
}

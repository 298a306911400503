//! One feeder per GPU (Kargus §4.5's master thread): the Aho-Corasick requests that
//! several workers have queued are merged into one device batch, run by one launch, and
//! each worker's results land in its own rows.
//!
//! A worker writes its payloads straight into a staged buffer of the dispatcher's pool
//! ([`crate::staging`]: page-locked on a GPU), hands it over and goes on with its packets;
//! the dispatcher takes the first request waiting, then every further request already
//! queued that still fits the device buffers (packets and padded bytes), and launches them
//! together. It copies no payload: each worker's bytes go by one DMA to their place in the
//! device buffer (every batch is a multiple of [`ALIGN`] long, so alignment holds), and
//! the host writes only the 12-byte entries ([`write_entries`]: offsets shifted by the
//! bytes before). The results come back per payload, so a worker's rows are a contiguous
//! run of the merged ones: the device's report slots are copied into each worker's own
//! rows (the batch's, staged too), the counters handed out ([`hand_out_counts`]), and the
//! worker reads and merges its own rows. [`DispatchStats`] counts what was merged, moved
//! and copied on the host, and the dispatcher's host time.

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
    /// Nanoseconds of the dispatcher's own host work for its device batches: merging the
    /// requests, the device entries, issuing the copies and the launch, the counters
    /// handed out, the replies (not the waits; with the CPU executor, not the executor nor
    /// its stand-ins for the device copies).
    pub host_ns: AtomicU64,
    /// Bytes the dispatcher wrote or copied in host memory for its device batches: the
    /// 12-byte entries and the 4-byte counters of each payload. Payload bytes and report
    /// slots move by DMA between the workers' staged buffers and the device.
    pub host_copy_bytes: AtomicU64,
    /// Requests whose batch was not in a staged buffer (the pool was at its bound): the
    /// driver stages those bytes itself.
    pub unstaged_requests: AtomicU64,
    /// Staged buffers allocated for the workers (page-locked on a GPU).
    pub staging_buffers: AtomicU64,
    /// Staged buffers asked for while the pool was at its bound (or page-locked memory
    /// was refused): the worker got an ordinary buffer.
    pub staging_exhausted: AtomicU64,
}

impl DispatchStats {
    /// The counters as `(name, value)` under `osprey.gpu.`.
    pub fn counters(&self) -> [(&'static str, u64); 13] {
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
            ("osprey.gpu.dispatch_host_ns", g(&self.host_ns)),
            (
                "osprey.gpu.dispatch_host_copy_bytes",
                g(&self.host_copy_bytes),
            ),
            (
                "osprey.gpu.dispatch_unstaged_requests",
                g(&self.unstaged_requests),
            ),
            (
                "osprey.gpu.dispatch_staging_buffers",
                g(&self.staging_buffers),
            ),
            (
                "osprey.gpu.dispatch_staging_exhausted",
                g(&self.staging_exhausted),
            ),
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
        self.unstaged_requests
            .fetch_add(group.unstaged() as u64, Ordering::Relaxed);
    }

    /// Count host work: `bytes` written or copied, over `since`'s time.
    pub(crate) fn host(&self, since: std::time::Instant, bytes: usize) {
        let ns = since.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.host_ns.fetch_add(ns, Ordering::Relaxed);
        self.host_copy_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
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

/// Write the 12-byte device entries of `batches` merged in order into `meta` (three runs
/// of `n` entries: offsets, lengths, groups; `n` the batches' payloads together): each
/// batch's offsets shifted by the padded bytes before it, its lengths and groups as they
/// are. The only per-payload host writes of a device batch: the payload bytes themselves
/// go by DMA from each worker's staged buffer to the offset the entries name. Returns the
/// bytes written.
pub fn write_entries<'b>(batches: impl IntoIterator<Item = &'b Batch>, meta: &mut [u32]) -> usize {
    let n = meta.len() / 3;
    let (offs, rest) = meta.split_at_mut(n);
    let (lens, groups) = rest.split_at_mut(n);
    let (mut first, mut base) = (0usize, 0u32);
    for b in batches {
        let k = b.len();
        for (o, &off) in offs[first..first + k].iter_mut().zip(b.offsets()) {
            *o = off + base;
        }
        lens[first..first + k].copy_from_slice(b.lens());
        groups[first..first + k].copy_from_slice(b.groups());
        first += k;
        base += b.bytes().len() as u32;
        debug_assert!((base as usize).is_multiple_of(ALIGN));
    }
    12 * first
}

/// Hand each worker's rows its counters: `counts` holds one per merged payload, in the
/// order of `rows` (each sized for its batch: [`ReportBuffer::size_for`]). Returns each
/// row set's report slots to copy back (its fullest row's, at most its `cap`), in order.
pub fn hand_out_counts<'r>(
    counts: &[u32],
    rows: impl IntoIterator<Item = &'r mut ReportBuffer>,
    used: &mut Vec<usize>,
) {
    used.clear();
    let mut first = 0;
    for r in rows {
        let k = r.packets();
        let cap = r.cap();
        let (c, _) = r.raw_mut();
        c.copy_from_slice(&counts[first..first + k]);
        used.push(c.iter().copied().max().unwrap_or(0).min(cap) as usize);
        first += k;
    }
}

/// One worker's request inside a merged device batch: its staged batch, the rows the
/// device's results go into (the batch's own; new ones for a batch without), where its
/// reply goes.
pub(crate) struct Part {
    pub(crate) batch: Batch,
    pub(crate) rows: ReportBuffer,
    reply: Sender<AcReply>,
    /// Index of its first payload in the merged batch.
    pub(crate) first: usize,
    /// Padded bytes before it in the device batch.
    pub(crate) base: usize,
}

/// Requests merged into one device batch.
#[derive(Default)]
pub(crate) struct Group {
    pub(crate) parts: Vec<Part>,
    packets: usize,
    bytes: usize,
    /// Per part, the report slots its fullest row used ([`Group::set_counts`]).
    pub(crate) used: Vec<usize>,
}

impl Group {
    /// A group of one request; rows of `cap` slots.
    pub(crate) fn of(batch: Batch, reply: Sender<AcReply>, cap: u32) -> Group {
        let mut g = Group::default();
        g.push(batch, reply, cap);
        g
    }

    /// True when `batch` can join within `max_packets` payloads and `max_bytes` bytes.
    pub(crate) fn fits(&self, batch: &Batch, max_packets: usize, max_bytes: usize) -> bool {
        self.packets + batch.len() <= max_packets && self.bytes + batch.bytes().len() <= max_bytes
    }

    /// Add a request; its rows (the batch's own when they have `cap` slots) are sized for
    /// its payloads.
    pub(crate) fn push(&mut self, mut batch: Batch, reply: Sender<AcReply>, cap: u32) {
        let mut rows = match batch.take_rows() {
            Some(r) if r.cap() == cap.max(1) => r,
            _ => ReportBuffer::new(cap),
        };
        // Every counter is written by the hand-out, every slot read by the copy back.
        rows.size_for(batch.len());
        let (first, base) = (self.packets, self.bytes);
        self.packets += batch.len();
        self.bytes += batch.bytes().len();
        self.parts.push(Part {
            batch,
            rows,
            reply,
            first,
            base,
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

    /// Requests whose bytes are not in a staged buffer (the driver stages them).
    pub(crate) fn unstaged(&self) -> usize {
        self.parts.iter().filter(|p| !p.batch.is_staged()).count()
    }

    /// Write the device entries into `meta[..3 * packets()]` ([`write_entries`]); the
    /// host bytes written.
    pub(crate) fn entries(&self, meta: &mut [u32]) -> usize {
        write_entries(
            self.parts.iter().map(|p| &p.batch),
            &mut meta[..3 * self.packets],
        )
    }

    /// Each part's counters from the device batch's (`counts`, one per merged payload),
    /// and the slots each part's rows used ([`Group::used`]); the host bytes copied.
    pub(crate) fn set_counts(&mut self, counts: &[u32]) -> usize {
        hand_out_counts(
            counts,
            self.parts.iter_mut().map(|p| &mut p.rows),
            &mut self.used,
        );
        4 * self.packets
    }

    /// The CPU executor's stand-in for the device copies: the merged batch as the device
    /// holds it (`img`: each part's bytes at its base, the entries in `meta`).
    pub(crate) fn image(&self, img: &mut Batch, meta: &mut Vec<u32>) {
        meta.resize(3 * self.packets, 0);
        self.entries(meta);
        img.set_image(self.parts.iter().map(|p| p.batch.bytes()), meta);
    }

    /// The CPU executor's stand-in for the copies back: each part's used slots (after
    /// [`Group::set_counts`]) from the device batch's rows `dev` into its own; the bytes
    /// that moves.
    pub(crate) fn copy_rows_from(&mut self, dev: &ReportBuffer) -> usize {
        let mut moved = 0;
        for (part, &used) in self.parts.iter_mut().zip(&self.used) {
            let cap = part.rows.cap() as usize;
            let k = part.rows.packets();
            let (_, dst) = part.rows.raw_mut();
            for p in 0..k {
                let row = dev.row(part.first + p);
                dst[p * cap..p * cap + row.len()].copy_from_slice(row);
            }
            moved += used * k * std::mem::size_of::<RawReport>();
        }
        moved
    }

    /// Send each request its batch and rows (filled), with the kernel's time and whether
    /// rows were filled in scan order ([`ReportBuffer::scan_order`]).
    pub(crate) fn deliver(self, (kernel_ns, scan_order): (Option<u64>, bool)) {
        for mut part in self.parts {
            part.rows.set_kernel_ns(kernel_ns);
            part.rows.set_scan_order(scan_order);
            let _ = part.reply.send(Ok((part.batch, part.rows)));
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

    /// Add to `group` (rows of `cap` slots) every Aho-Corasick request already queued that
    /// fits; the first one that does not (or a regex-DFA request, which keeps its place after the group) is
    /// held for the next call.
    pub(crate) fn merge_waiting(
        &mut self,
        group: &mut Group,
        max_packets: usize,
        max_bytes: usize,
        cap: u32,
    ) {
        loop {
            match self.try_next() {
                Ok(Request::Ac(batch, reply)) if group.fits(&batch, max_packets, max_bytes) => {
                    group.push(batch, reply, cap)
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
    fn a_group_is_staged_without_copies_and_each_worker_gets_its_own_rows() {
        let (tx1, rx1) = mpsc::channel();
        let (tx2, rx2) = mpsc::channel();
        let stats = std::sync::Arc::new(DispatchStats::default());
        let pool = crate::staging::StagingPool::new(4, 8, 4096, 2, None, stats);
        let mut a = pool.take();
        for (g, p) in [(0, &b"first"[..]), (1, b"a payload longer than sixteen")] {
            a.push(g, p).unwrap();
        }
        let b = batch(&[(2, b"x")]);
        let (a_bytes, b_bytes) = (a.bytes().as_ptr(), b.bytes().as_ptr());
        let mut g = Group::of(a, tx1, 2);
        assert!(g.fits(&b, 3, 64));
        assert!(!g.fits(&b, 2, 64), "packets");
        assert!(!g.fits(&b, 3, 48 + 15), "bytes");
        g.push(b, tx2, 2);
        assert_eq!((g.len(), g.packets(), g.bytes()), (2, 3, 64));
        assert_eq!(g.unstaged(), 1, "the second batch was not from the pool");
        assert_eq!((g.parts[0].base, g.parts[1].base), (0, 48));
        // The entries, and the image the device would hold.
        let mut meta = vec![0u32; 9];
        assert_eq!(g.entries(&mut meta), 36);
        assert_eq!(meta, [0, 16, 48, 5, 29, 1, 0, 1, 2]);
        let mut img = Batch::new(8, 1024);
        let mut m = Vec::new();
        g.image(&mut img, &mut m);
        assert_eq!(img.payload(2), b"x");
        assert_eq!(img.payload(1), b"a payload longer than sixteen");
        assert_eq!(img.offsets()[2], 48);
        // Rows of the device batch: merged payload p has p + 1 reports; payload 1
        // overflowed (cap 2).
        let mut dev = ReportBuffer::new(2);
        dev.reset(3);
        {
            let (c, r) = dev.raw_mut();
            c.copy_from_slice(&[1, 3, 1]);
            for p in 0..3 {
                for k in 0..c[p].min(2) {
                    r[p * 2 + k as usize] = RawReport {
                        pattern: 10 * p as u32 + k,
                        end: k + 1,
                    };
                }
            }
        }
        assert_eq!(g.set_counts(dev.raw().0), 12);
        assert_eq!(g.used, [2, 1], "each worker's fullest row, at most cap");
        assert_eq!(g.copy_rows_from(&dev), 2 * 2 * 8 + 8);
        g.deliver((Some(7), true));
        let (ba, ra) = rx1.recv().unwrap().unwrap();
        let (bb, rb) = rx2.recv().unwrap().unwrap();
        // Each worker gets its own buffer back (the same memory: nothing was copied).
        assert_eq!(
            (ba.bytes().as_ptr(), bb.bytes().as_ptr()),
            (a_bytes, b_bytes)
        );
        assert!(ba.is_staged() && !bb.is_staged());
        assert_eq!(ra.packets(), 2);
        assert!(ra.overflowed(1) && !ra.overflowed(0));
        assert_eq!(ra.row(1), dev.row(1));
        assert_eq!(ra.row(0), dev.row(0));
        assert_eq!(rb.row(0), dev.row(2));
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
        let mut g = Group::of(b, r, 4);
        // Room for two payloads: the third request is held.
        q.merge_waiting(&mut g, 2, 1 << 20, 4);
        assert_eq!(g.len(), 2);
        let Ok(Request::Ac(b, r)) = q.try_next() else {
            panic!("the held request")
        };
        let mut g = Group::of(b, r, 4);
        // The DFA request stops the merge and keeps its place.
        q.merge_waiting(&mut g, 64, 1 << 20, 4);
        assert_eq!(g.len(), 1);
        assert!(matches!(q.next(), Some(Request::Dfa(..))));
        assert!(matches!(q.try_next(), Ok(Request::Ac(..))));
        assert!(q.try_next().is_err());
        drop(tx);
        assert!(q.next().is_none());
    }
}

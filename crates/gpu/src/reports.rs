//! Match reports as the kernels write them, and their merge into the caller's matches.
//!
//! Each packet owns one row of `cap` report slots (Gnort §3.3: "the reports for each packet
//! will be written in a separate row"), and a counter. A kernel that finds more than `cap`
//! matches in a packet sets the counter above `cap` and stops scanning that packet; the
//! merge then rescans that packet on the CPU, so overflow costs time, never matches.
//! Rows written in scan order (the packet-per-thread kernel) are resumed instead of
//! rescanned: the slots hold every match that ends before the last slot's end, so the
//! CPU walks on from the longest pattern's length before that end and keeps only what
//! ends at or after it.

use crate::batch::Batch;
use crate::cpu;
use crate::staging::{HostMem, HostVec};
use crate::tables::AcTables;

/// One report slot: a group-local pattern index and the offset just past the match (a
/// `uint2` on the device).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawReport {
    /// Pattern index within the packet's signature group.
    pub pattern: u32,
    /// Offset one past the last byte of the match.
    pub end: u32,
}

/// The report rows of one batch: `counts[p]` and `reports[p * cap .. p * cap + min(counts[p], cap)]`.
///
/// The counters and slots lie in growable memory ([`ReportBuffer::new`]) or in a staged
/// buffer's fixed block (the rows of a batch from the dispatcher's pool, which the device
/// copies its results into).
#[derive(Clone, Debug)]
pub struct ReportBuffer {
    cap: u32,
    counts: HostVec<u32>,
    reports: HostVec<RawReport>,
    kernel_ns: Option<u64>,
    scan_order: bool,
}

impl ReportBuffer {
    /// Rows of `cap` slots (at least 1).
    pub fn new(cap: u32) -> ReportBuffer {
        ReportBuffer {
            cap: cap.max(1),
            counts: HostVec::Heap(Vec::new()),
            reports: HostVec::Heap(Vec::new()),
            kernel_ns: None,
            scan_order: false,
        }
    }

    /// Rows of `cap` slots over fixed blocks (a staged buffer's).
    pub(crate) fn fixed(
        cap: u32,
        counts: HostMem<u32>,
        reports: HostMem<RawReport>,
    ) -> ReportBuffer {
        ReportBuffer {
            cap: cap.max(1),
            counts: HostVec::Fixed(counts, 0),
            reports: HostVec::Fixed(reports, 0),
            kernel_ns: None,
            scan_order: false,
        }
    }

    /// The fixed blocks back (`None` when the rows are in growable memory).
    pub(crate) fn into_fixed(self) -> Option<(HostMem<u32>, HostMem<RawReport>)> {
        match (self.counts, self.reports) {
            (HostVec::Fixed(c, _), HostVec::Fixed(r, _)) => Some((c, r)),
            _ => None,
        }
    }

    /// True when the counters and slots lie in page-locked memory (the device copies
    /// into them directly).
    pub fn is_pinned(&self) -> bool {
        self.counts.is_pinned() && self.reports.is_pinned()
    }

    /// True when each row's slots were filled in scan order (one thread walked the
    /// payload from its start: the packet-per-thread kernel), so an overflowed row can be
    /// resumed after its last slot instead of rescanned.
    pub fn scan_order(&self) -> bool {
        self.scan_order
    }

    /// Record how the rows were filled ([`ReportBuffer::scan_order`]).
    pub fn set_scan_order(&mut self, in_order: bool) {
        self.scan_order = in_order;
    }

    /// How long the kernel that filled the rows ran, in nanoseconds, when its executor
    /// timed it: CUDA events around the launch on a GPU (device time, no transfer), the
    /// executor's own run on the CPU.
    pub fn kernel_ns(&self) -> Option<u64> {
        self.kernel_ns
    }

    /// Record the kernel's time ([`ReportBuffer::kernel_ns`]).
    pub fn set_kernel_ns(&mut self, ns: Option<u64>) {
        self.kernel_ns = ns;
    }

    /// Slots per packet.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// Size the buffer for `packets` rows and zero every counter.
    pub fn reset(&mut self, packets: usize) {
        self.kernel_ns = None;
        self.counts.clear();
        self.counts.resize(packets, 0);
        self.reports
            .resize(packets * self.cap as usize, RawReport::default());
    }

    /// Size the buffer for `packets` rows whose counters are all about to be written (the
    /// device's, handed out by the dispatcher): nothing is zeroed, and the slots of a
    /// fixed block keep their old values (only the slots up to each row's counter are
    /// read, and those are written by the copy back).
    pub fn size_for(&mut self, packets: usize) {
        self.kernel_ns = None;
        self.counts.set_len_within(packets, 0);
        self.reports
            .set_len_within(packets * self.cap as usize, RawReport::default());
    }

    /// Number of rows.
    pub fn packets(&self) -> usize {
        self.counts.len()
    }

    /// The raw counter of packet `p` (above `cap` means overflow).
    pub fn count(&self, p: usize) -> u32 {
        self.counts.as_slice()[p]
    }

    /// True when packet `p` had more matches than its row holds.
    pub fn overflowed(&self, p: usize) -> bool {
        self.counts.as_slice()[p] > self.cap
    }

    /// The filled slots of packet `p`, in the order the executor wrote them.
    pub fn row(&self, p: usize) -> &[RawReport] {
        let at = p * self.cap as usize;
        &self.reports.as_slice()[at..at + self.counts.as_slice()[p].min(self.cap) as usize]
    }

    /// Counters and slots for an executor to fill (after [`ReportBuffer::reset`]).
    pub fn raw_mut(&mut self) -> (&mut [u32], &mut [RawReport]) {
        (self.counts.as_mut_slice(), self.reports.as_mut_slice())
    }

    /// Counters and slots as the device copies them back.
    pub fn raw(&self) -> (&[u32], &[RawReport]) {
        (self.counts.as_slice(), self.reports.as_slice())
    }
}

/// A confirmed match in a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AcMatch {
    /// Packet index in the batch.
    pub packet: u32,
    /// Offset one past the match.
    pub end: u32,
    /// The caller's pattern id ([`mpm::PatternInfo::id`]).
    pub pattern: u32,
}

/// What a merge saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Raw reports read.
    pub reports: u64,
    /// Reports dropped by the case check.
    pub case_rejected: u64,
    /// Packets whose row overflowed and were rescanned on the CPU.
    pub overflowed: u64,
    /// Of those, the packets resumed after their row's last slot instead of rescanned
    /// from the start ([`ReportBuffer::scan_order`]).
    pub resumed: u64,
    /// The kernel's time in nanoseconds, when the executor timed it
    /// ([`ReportBuffer::kernel_ns`]).
    pub kernel_ns: Option<u64>,
    /// Nanoseconds the merge took (case checks, rescans of overflowed packets, sorting)
    /// when the caller timed it ([`crate::AcOffload::scan`] does).
    pub merge_ns: Option<u64>,
}

/// Turn the rows of `buf` (filled for `batch` against `tables`) into confirmed matches,
/// appended to `out` sorted by (packet, end, pattern id): case check per report (Gnort
/// §3.3), overflowed packets rescanned on the CPU.
pub fn merge_ac(
    tables: &AcTables,
    batch: &Batch,
    buf: &ReportBuffer,
    out: &mut Vec<AcMatch>,
) -> MergeStats {
    let mut stats = MergeStats {
        kernel_ns: buf.kernel_ns(),
        ..MergeStats::default()
    };
    let mut scratch = Vec::new();
    for p in 0..batch.len().min(buf.packets()) {
        let group = batch.group(p) as usize;
        if group >= tables.num_groups() {
            continue;
        }
        let store = tables.store(group);
        let payload = batch.payload(p);
        let first = out.len();
        let rows: &[RawReport] = if buf.overflowed(p) {
            stats.overflowed += 1;
            scratch.clear();
            match (buf.scan_order(), buf.row(p).last()) {
                (true, Some(last)) => {
                    // Every match ending before the last slot's end is in the row.
                    let resume = last.end;
                    scratch.extend(buf.row(p).iter().filter(|r| r.end < resume));
                    stats.resumed += 1;
                    cpu::scan_packet_from(tables, group, payload, resume, &mut |r| scratch.push(r));
                }
                _ => cpu::scan_packet(tables, group, payload, &mut |r| scratch.push(r)),
            }
            &scratch
        } else {
            buf.row(p)
        };
        for r in rows {
            stats.reports += 1;
            let (idx, end) = (r.pattern as usize, r.end as usize);
            if idx < store.infos.len() && end <= payload.len() && store.confirm(idx, payload, end) {
                out.push(AcMatch {
                    packet: p as u32,
                    end: r.end,
                    pattern: store.infos[idx].id,
                });
            } else {
                stats.case_rejected += 1;
            }
        }
        out[first..].sort_unstable();
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{run_ac, AcLayout};
    use mpm::{DfaTables, Limits, Pattern};

    #[test]
    fn overflowed_rows_in_scan_order_are_resumed_with_the_same_matches_as_a_rescan() {
        let patterns = [
            Pattern::new(&b"a"[..], 1),
            Pattern::new(&b"aa"[..], 2),
            Pattern::nocase(&b"ab"[..], 3),
            Pattern::new(&b"abcab"[..], 4),
            Pattern::new(&b"b"[..], 5),
        ];
        let group = DfaTables::build(&patterns, &Limits::default()).unwrap();
        let tables = AcTables::new(&[group]).unwrap();
        let mut batch = Batch::new(16, 1 << 12);
        for p in [
            &b"aaabcabAB xx aab abcabcab"[..],
            b"abcab",
            b"b",
            b"",
            b"zzzz aaaaaaaaaaaaaaaa",
        ] {
            batch.push(0, p).unwrap();
        }
        let mut want = Vec::new();
        let mut wide = ReportBuffer::new(256);
        run_ac(&tables, &batch, AcLayout::PacketPerThread, &mut wide);
        assert_eq!(merge_ac(&tables, &batch, &wide, &mut want).overflowed, 0);
        for cap in 1..8 {
            for layout in [AcLayout::PacketPerThread, AcLayout::BLOCK_WARP] {
                let mut rows = ReportBuffer::new(cap);
                run_ac(&tables, &batch, layout, &mut rows);
                let mut got = Vec::new();
                let s = merge_ac(&tables, &batch, &rows, &mut got);
                assert_eq!(got, want, "cap {cap}, {layout:?}");
                assert!(s.overflowed > 0, "cap {cap}");
                let resumed = layout == AcLayout::PacketPerThread;
                assert_eq!(s.resumed, if resumed { s.overflowed } else { 0 });
            }
        }
    }
}

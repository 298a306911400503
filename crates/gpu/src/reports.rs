//! Match reports as the kernels write them, and their merge into the caller's matches.
//!
//! Each packet owns one row of `cap` report slots (Gnort §3.3: "the reports for each packet
//! will be written in a separate row"), and a counter. A kernel that finds more than `cap`
//! matches in a packet sets the counter above `cap` and stops scanning that packet; the
//! merge then rescans that packet on the CPU, so overflow costs time, never matches.

use crate::batch::Batch;
use crate::cpu;
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
#[derive(Clone, Debug)]
pub struct ReportBuffer {
    cap: u32,
    counts: Vec<u32>,
    reports: Vec<RawReport>,
    kernel_ns: Option<u64>,
}

impl ReportBuffer {
    /// Rows of `cap` slots (at least 1).
    pub fn new(cap: u32) -> ReportBuffer {
        ReportBuffer {
            cap: cap.max(1),
            counts: Vec::new(),
            reports: Vec::new(),
            kernel_ns: None,
        }
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

    /// Number of rows.
    pub fn packets(&self) -> usize {
        self.counts.len()
    }

    /// The raw counter of packet `p` (above `cap` means overflow).
    pub fn count(&self, p: usize) -> u32 {
        self.counts[p]
    }

    /// True when packet `p` had more matches than its row holds.
    pub fn overflowed(&self, p: usize) -> bool {
        self.counts[p] > self.cap
    }

    /// The filled slots of packet `p`, in the order the executor wrote them.
    pub fn row(&self, p: usize) -> &[RawReport] {
        let at = p * self.cap as usize;
        &self.reports[at..at + self.counts[p].min(self.cap) as usize]
    }

    /// Counters and slots for an executor to fill (after [`ReportBuffer::reset`]).
    pub fn raw_mut(&mut self) -> (&mut [u32], &mut [RawReport]) {
        (&mut self.counts, &mut self.reports)
    }

    /// Counters and slots as the device copies them back.
    pub fn raw(&self) -> (&[u32], &[RawReport]) {
        (&self.counts, &self.reports)
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
            cpu::scan_packet(tables, group, payload, &mut |r| scratch.push(r));
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

//! The CPU executor: the kernels of `kernels/*.cu`, statement for statement, over the same
//! buffers ([`Batch`], [`AcTables`], [`DfaSet`]) and into the same report format, so the
//! host side (batching, merging, balancing) is tested without a GPU and the GPU's output
//! can be checked against it. Thread `t` of a kernel becomes iteration `t` of a loop;
//! 16-byte vector loads are done the way a `uint4` load sees the bytes.

use crate::batch::{byte_of, load16, Batch, ALIGN};
use crate::reports::{RawReport, ReportBuffer};
use crate::tables::{AcTables, DfaSet, GroupInfo};
use mpm::PlainDfa;

/// How an Aho-Corasick kernel spreads a batch over GPU threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcLayout {
    /// One thread scans one whole packet (Gnort §4.2, Kargus §4.5): no redundant work, but
    /// threads of a warp wait for the longest packet.
    PacketPerThread,
    /// One block of `threads` threads per packet (Gnort §4.1): the payload is cut into
    /// `threads` equal chunks; each thread starts `max_len - 1` bytes before its chunk (the
    /// overlap, so matches spanning chunk edges are found) and reports only matches that end
    /// inside its own chunk, so every match is reported exactly once.
    PacketPerBlock {
        /// Threads per block (1..=1024).
        threads: u32,
    },
}

impl AcLayout {
    /// The packet-per-block layout with one warp per packet, as Gnort.
    pub const BLOCK_WARP: AcLayout = AcLayout::PacketPerBlock { threads: 32 };
}

/// A match no walk found.
pub const NO_MATCH: u32 = u32::MAX;

/// One regex evaluation: scan packet `packet` with DFA `dfa`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DfaJob {
    /// Packet index in the batch.
    pub packet: u32,
    /// DFA index in the [`DfaSet`].
    pub dfa: u32,
}

/// Report slot writer of one packet row: the kernel's `emit`.
struct Row<'a> {
    counts: &'a mut [u32],
    reports: &'a mut [RawReport],
    cap: u32,
    p: usize,
}

impl Row<'_> {
    /// Claim a slot (the device does `atomicAdd(&counts[p], 1)`) and fill it when it is
    /// inside the row; false once the row has overflowed (the thread stops scanning).
    #[inline]
    fn emit(&mut self, pattern: u32, end: u32) -> bool {
        let slot = self.counts[self.p];
        self.counts[self.p] = slot + 1;
        if slot < self.cap {
            self.reports[self.p * self.cap as usize + slot as usize] = RawReport { pattern, end };
            true
        } else {
            false
        }
    }

    fn overflowed(&self) -> bool {
        self.counts[self.p] > self.cap
    }
}

/// Walk group `g` over `payload[from..to]` starting in state 0 at `from`, reporting the
/// matches that end after `report_from` (every output of every matching state); stops
/// when `emit` returns false. Reads the bytes by 16-byte vectors as the kernels do.
#[inline]
fn walk(
    tables: &AcTables,
    g: &GroupInfo,
    bytes: &[u8],
    base: usize,
    (from, to, report_from): (usize, usize, usize),
    emit: &mut dyn FnMut(u32, u32) -> bool,
) {
    let mut s = 0u32;
    let mut v = from / ALIGN * ALIGN;
    while v < to {
        let vec = load16(bytes, (base + v) / ALIGN);
        let lo = from.saturating_sub(v);
        let hi = (to - v).min(ALIGN);
        for k in lo..hi {
            s = tables.next(g, s, byte_of(&vec, k));
            let i = v + k;
            if s >= g.match_min && i >= report_from {
                for &o in tables.outputs_of(g, s) {
                    if !emit(o, i as u32 + 1) {
                        return;
                    }
                }
            }
        }
        v += ALIGN;
    }
}

/// Run the Aho-Corasick kernel of `layout` over `batch`; `out` is reset to the batch size.
/// A packet whose group id is out of range reports nothing.
pub fn run_ac(tables: &AcTables, batch: &Batch, layout: AcLayout, out: &mut ReportBuffer) {
    out.reset(batch.len());
    out.set_scan_order(layout == AcLayout::PacketPerThread);
    let cap = out.cap();
    let (counts, reports) = out.raw_mut();
    for p in 0..batch.len() {
        let group = batch.groups()[p] as usize;
        let Some(g) = tables.groups().get(group) else {
            continue;
        };
        let base = batch.offsets()[p] as usize;
        let len = batch.lens()[p] as usize;
        let mut row = Row {
            counts: &mut *counts,
            reports: &mut *reports,
            cap,
            p,
        };
        match layout {
            AcLayout::PacketPerThread => {
                walk(tables, g, batch.bytes(), base, (0, len, 0), &mut |o, e| {
                    row.emit(o, e)
                });
            }
            AcLayout::PacketPerBlock { threads } => {
                let threads = threads.clamp(1, 1024) as usize;
                let chunk = len.div_ceil(threads);
                let overlap = g.max_len as usize - 1;
                for t in 0..threads {
                    let start = t * chunk;
                    let end = (start + chunk).min(len);
                    if start >= end || row.overflowed() {
                        continue;
                    }
                    let from = start.saturating_sub(overlap);
                    walk(
                        tables,
                        g,
                        batch.bytes(),
                        base,
                        (from, end, start),
                        &mut |o, e| row.emit(o, e),
                    );
                }
            }
        }
    }
}

/// Scan one payload of group `group` completely (no row limit): the merge's fallback for
/// overflowed rows.
pub fn scan_packet(
    tables: &AcTables,
    group: usize,
    payload: &[u8],
    emit: &mut dyn FnMut(RawReport),
) {
    scan_packet_from(tables, group, payload, 0, emit);
}

/// The matches of group `group` in `payload` that end at or after `end_from` (every one
/// of them, no row limit): the walk starts the group's longest pattern length before
/// `end_from`, where any such match starts at the earliest. The merge's resume of an
/// overflowed row filled in scan order.
pub fn scan_packet_from(
    tables: &AcTables,
    group: usize,
    payload: &[u8],
    end_from: u32,
    emit: &mut dyn FnMut(RawReport),
) {
    let Some(g) = tables.groups().get(group) else {
        return;
    };
    let end_from = (end_from as usize).min(payload.len() + 1);
    let from = end_from.saturating_sub(g.max_len as usize);
    let mut s = 0u32;
    for (i, &b) in payload.iter().enumerate().skip(from) {
        s = tables.next(g, s, b);
        if s >= g.match_min && i + 1 >= end_from {
            for &o in tables.outputs_of(g, s) {
                emit(RawReport {
                    pattern: o,
                    end: i as u32 + 1,
                });
            }
        }
    }
}

/// Run the regex DFA kernel: for each job, the earliest match end of its DFA in its packet
/// ([`PlainDfa::find_end`] semantics), or [`NO_MATCH`]; jobs out of range give [`NO_MATCH`].
pub fn run_dfa(set: &DfaSet, batch: &Batch, jobs: &[DfaJob], out: &mut Vec<u32>) {
    out.clear();
    out.resize(jobs.len(), NO_MATCH);
    for (j, job) in jobs.iter().enumerate() {
        let (p, d) = (job.packet as usize, job.dfa as usize);
        if p >= batch.len() || d >= set.len() {
            continue;
        }
        let info = set.info()[d];
        let trans = &set.trans()[info.trans_base as usize..];
        let flags = &set.flags()[info.flags_base as usize..];
        let base = batch.offsets()[p] as usize;
        let len = batch.lens()[p] as usize;
        let mut s = info.start as usize;
        if flags[s] & PlainDfa::DEAD != 0 {
            continue;
        }
        let mut result = None;
        let mut v = 0;
        'scan: while v < len {
            let vec = load16(batch.bytes(), (base + v) / ALIGN);
            for k in 0..(len - v).min(ALIGN) {
                s = trans[(s << 8) + byte_of(&vec, k) as usize] as usize;
                let f = flags[s];
                if f & PlainDfa::MATCH != 0 {
                    result = Some((v + k) as u32);
                    break 'scan;
                }
                if f & PlainDfa::DEAD != 0 {
                    result = Some(NO_MATCH);
                    break 'scan;
                }
            }
            v += ALIGN;
        }
        out[j] = match result {
            Some(r) => r,
            None if flags[s] & PlainDfa::EOI_MATCH != 0 => len as u32,
            None => NO_MATCH,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpm::{DfaTables, Limits, Pattern};

    fn tables(groups: &[Vec<Pattern>]) -> AcTables {
        let t: Vec<DfaTables> = groups
            .iter()
            .map(|p| DfaTables::build(p, &Limits::default()).unwrap())
            .collect();
        AcTables::new(&t).unwrap()
    }

    #[test]
    fn both_layouts_find_matches_across_chunk_edges() {
        let t = tables(&[vec![
            Pattern::new(&b"abcdef"[..], 1),
            Pattern::new(&b"f"[..], 2),
        ]]);
        let mut b = Batch::new(8, 4096);
        let mut hay = vec![b'x'; 100];
        // Every position of the pattern relative to a 4-byte chunk edge.
        for at in [0usize, 1, 2, 3, 4, 5, 30, 94] {
            hay[at..at + 6].copy_from_slice(b"abcdef");
        }
        b.push(0, &hay).unwrap();
        let mut want = Vec::new();
        scan_packet(&t, 0, &hay, &mut |r| want.push(r));
        want.sort();
        for layout in [
            AcLayout::PacketPerThread,
            AcLayout::PacketPerBlock { threads: 1 },
            AcLayout::PacketPerBlock { threads: 25 },
            AcLayout::BLOCK_WARP,
            AcLayout::PacketPerBlock { threads: 1024 },
        ] {
            let mut out = ReportBuffer::new(64);
            run_ac(&t, &b, layout, &mut out);
            let mut got = out.row(0).to_vec();
            got.sort();
            assert_eq!(got, want, "{layout:?}");
        }
    }

    #[test]
    fn overflow_sets_the_counter_above_cap() {
        let t = tables(&[vec![Pattern::new(&b"a"[..], 1)]]);
        let mut b = Batch::new(8, 4096);
        b.push(0, &[b'a'; 10]).unwrap();
        b.push(0, &[b'a'; 3]).unwrap();
        for layout in [AcLayout::PacketPerThread, AcLayout::BLOCK_WARP] {
            let mut out = ReportBuffer::new(4);
            run_ac(&t, &b, layout, &mut out);
            assert!(out.overflowed(0));
            assert!(!out.overflowed(1));
            assert_eq!(out.row(0).len(), 4);
            assert_eq!(out.row(1).len(), 3);
        }
    }

    #[test]
    fn unknown_group_reports_nothing() {
        let t = tables(&[vec![Pattern::new(&b"a"[..], 1)]]);
        let mut b = Batch::new(8, 4096);
        b.push(5, b"aaa").unwrap();
        let mut out = ReportBuffer::new(4);
        run_ac(&t, &b, AcLayout::PacketPerThread, &mut out);
        assert_eq!(out.count(0), 0);
    }
}

//! The CPU executor: the kernels of `kernels/*.cu`, statement for statement, over the same
//! buffers ([`Batch`], [`AcTables`], [`DfaSet`]) and into the same report format, so the
//! host side (batching, merging, balancing) is tested without a GPU and the GPU's output
//! can be checked against it. Thread `t` of a kernel becomes iteration `t` of a loop;
//! 16-byte vector loads are done the way a `uint4` load sees the bytes.

use crate::batch::{byte_of, load16, Batch, ALIGN};
use crate::reports::{RawReport, ReportBuffer};
use crate::tables::{AcTables, DfaSet, GroupInfo, HotWindows, Width};
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
    /// One thread per packet, with the rows of the shallowest states of the largest
    /// group ([`AcTables::hot_windows`]) copied into each block's shared memory, `bytes`
    /// of it, entries of the table's width: a lookup from a hot state reads shared memory,
    /// the others the global table (issue 27 point 5).
    SharedHot {
        /// Shared memory per block (bytes; at most 227 KiB on an H100).
        bytes: u32,
    },
    /// As [`AcLayout::SharedHot`], but each shared entry is the 16-bit shared row of the
    /// next state, or `0xffff` when the next state is cold and its id is read from the
    /// global table: twice the rows of a 32-bit table in the same memory.
    SharedHot16 {
        /// Shared memory per block (bytes).
        bytes: u32,
    },
}

impl AcLayout {
    /// The packet-per-block layout with one warp per packet, as Gnort.
    pub const BLOCK_WARP: AcLayout = AcLayout::PacketPerBlock { threads: 32 };

    /// The largest shared memory a hot-row layout may ask for: an H100's opt-in limit
    /// per block (227 KiB).
    pub const MAX_SHARED: u32 = 227 * 1024;

    /// The layout's name (`osprey bench gpu --kernel`): `packet-per-thread`,
    /// `packet-per-block-N`, `hot-NK`, `hot16-NK` (N KiB of shared memory).
    pub fn name(&self) -> String {
        match *self {
            AcLayout::PacketPerThread => "packet-per-thread".into(),
            AcLayout::PacketPerBlock { threads } => format!("packet-per-block-{threads}"),
            AcLayout::SharedHot { bytes } => format!("hot-{}k", bytes / 1024),
            AcLayout::SharedHot16 { bytes } => format!("hot16-{}k", bytes / 1024),
        }
    }

    /// Parse a [`AcLayout::name`] (`thread` and `block-N` also); an error says what is
    /// accepted.
    pub fn parse(name: &str) -> Result<AcLayout, String> {
        let bad = || {
            format!(
                "unknown kernel {name:?}: packet-per-thread, packet-per-block-N (1..=1024), \
                 hot-NK or hot16-NK (N KiB of shared memory, 1..=227)"
            )
        };
        let kib = |v: &str| -> Result<u32, String> {
            let n: u32 = v
                .strip_suffix('k')
                .and_then(|n| n.parse().ok())
                .ok_or_else(bad)?;
            if (1..=Self::MAX_SHARED / 1024).contains(&n) {
                Ok(n * 1024)
            } else {
                Err(bad())
            }
        };
        if name == "packet-per-thread" || name == "thread" {
            return Ok(AcLayout::PacketPerThread);
        }
        if let Some(n) = name
            .strip_prefix("packet-per-block-")
            .or_else(|| name.strip_prefix("block-"))
        {
            return match n.parse() {
                Ok(threads @ 1..=1024) => Ok(AcLayout::PacketPerBlock { threads }),
                _ => Err(bad()),
            };
        }
        if let Some(n) = name.strip_prefix("hot16-") {
            return Ok(AcLayout::SharedHot16 { bytes: kib(n)? });
        }
        if let Some(n) = name.strip_prefix("hot-") {
            return Ok(AcLayout::SharedHot { bytes: kib(n)? });
        }
        Err(bad())
    }

    /// Whether the layout keeps hot rows in shared memory (its kernel takes the hot
    /// group and windows as three more arguments).
    pub fn is_hot(&self) -> bool {
        matches!(
            self,
            AcLayout::SharedHot { .. } | AcLayout::SharedHot16 { .. }
        )
    }

    /// Whether a packet's report row is filled in scan order (one thread walks it), so
    /// an overflowed row can be resumed after its last slot.
    pub fn scan_order(&self) -> bool {
        !matches!(self, AcLayout::PacketPerBlock { .. })
    }

    /// Bytes of one shared entry for a table of `width` (0: no shared rows).
    pub fn shared_entry_bytes(&self, width: Width) -> u32 {
        match (self, width) {
            (AcLayout::SharedHot { .. }, Width::U32) => 4,
            (AcLayout::SharedHot { .. }, Width::U16) | (AcLayout::SharedHot16 { .. }, _) => 2,
            _ => 0,
        }
    }

    /// Shared rows a table of `width` gets (before the group's size caps them): the
    /// shared memory over 256 entries; 16-bit row indices cap them at 65,535.
    pub fn hot_rows(&self, width: Width) -> u32 {
        match *self {
            AcLayout::SharedHot { bytes } | AcLayout::SharedHot16 { bytes } => {
                let rows = bytes.min(Self::MAX_SHARED) / (256 * self.shared_entry_bytes(width));
                match self {
                    AcLayout::SharedHot16 { .. } => rows.min(0xfffe),
                    _ => rows,
                }
            }
            _ => 0,
        }
    }
}

/// A narrow shared entry meaning "the next state is cold: read the global table".
pub const COLD16: u16 = 0xffff;

/// The rows a hot-row kernel's blocks copy into shared memory, as every block copies
/// them (the kernels' `load_hot`): entries of the table (`SharedHot`) or 16-bit shared
/// rows of the next states (`SharedHot16`).
struct HotRows {
    w: HotWindows,
    wide: Vec<u32>,
    narrow: Vec<u16>,
}

impl HotRows {
    fn load(tables: &AcTables, layout: AcLayout) -> HotRows {
        let mut w = tables.hot_windows(layout.hot_rows(tables.width()));
        let mut rows = HotRows {
            w,
            wide: Vec::new(),
            narrow: Vec::new(),
        };
        let Some(hg) = tables.groups().get(w.group as usize) else {
            w.lo = 0;
            w.hi = 0;
            rows.w = w;
            return rows;
        };
        for i in 0..(w.rows() << 8) {
            let s = HotWindows::state(w.lo, hg.match_min, i >> 8);
            let next = tables.next(hg, s, (i & 255) as u8);
            match layout {
                AcLayout::SharedHot16 { .. } => {
                    let r = HotWindows::row(w.lo, w.hi, hg.match_min, next);
                    rows.narrow.push(if r == HotWindows::NO_ROW {
                        COLD16
                    } else {
                        r as u16
                    });
                }
                _ => rows.wide.push(next),
            }
        }
        rows
    }
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

/// The hot-row kernels' walk of one whole packet (`ac_hot` and `ac_hot16`): as [`walk`]
/// from state 0 over `[0, len)`, each lookup from a state in the windows `(lo, hi)` read
/// from the shared rows (`ac_hot16`: the shared entry gives the next state's row, or
/// [`COLD16`] and the global table gives its id).
fn walk_hot(
    tables: &AcTables,
    g: &GroupInfo,
    hot: &HotRows,
    (lo, hi): (u32, u32),
    (bytes, base, len): (&[u8], usize, usize),
    emit: &mut dyn FnMut(u32, u32) -> bool,
) {
    let narrow = !hot.narrow.is_empty();
    let mut s = 0u32;
    let mut r = HotWindows::row(lo, hi, g.match_min, 0);
    let mut v = 0;
    while v < len {
        let vec = load16(bytes, (base + v) / ALIGN);
        for k in 0..(len - v).min(ALIGN) {
            let b = byte_of(&vec, k);
            if narrow {
                if r != HotWindows::NO_ROW {
                    let e = hot.narrow[((r as usize) << 8) + b as usize];
                    if e != COLD16 {
                        r = e as u32;
                        s = HotWindows::state(lo, g.match_min, r);
                    } else {
                        s = tables.next(g, s, b);
                        r = HotWindows::NO_ROW;
                    }
                } else {
                    s = tables.next(g, s, b);
                    r = HotWindows::row(lo, hi, g.match_min, s);
                }
            } else {
                let r = HotWindows::row(lo, hi, g.match_min, s);
                s = if r != HotWindows::NO_ROW {
                    hot.wide[((r as usize) << 8) + b as usize]
                } else {
                    tables.next(g, s, b)
                };
            }
            if s >= g.match_min {
                for &o in tables.outputs_of(g, s) {
                    if !emit(o, (v + k) as u32 + 1) {
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
    out.set_scan_order(layout.scan_order());
    let cap = out.cap();
    // Every block of a hot-row kernel copies the same rows: copied once here.
    let hot = layout.is_hot().then(|| HotRows::load(tables, layout));
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
            AcLayout::SharedHot { .. } | AcLayout::SharedHot16 { .. } => {
                let Some(hot) = hot.as_ref() else { continue };
                let windows = if group as u32 == hot.w.group {
                    (hot.w.lo, hot.w.hi)
                } else {
                    (0, 0)
                };
                walk_hot(
                    tables,
                    g,
                    hot,
                    windows,
                    (batch.bytes(), base, len),
                    &mut |o, e| row.emit(o, e),
                );
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
    fn layout_names_parse_back() {
        for l in [
            AcLayout::PacketPerThread,
            AcLayout::BLOCK_WARP,
            AcLayout::PacketPerBlock { threads: 7 },
            AcLayout::SharedHot { bytes: 48 * 1024 },
            AcLayout::SharedHot16 {
                bytes: AcLayout::MAX_SHARED,
            },
        ] {
            assert_eq!(AcLayout::parse(&l.name()), Ok(l));
        }
        assert_eq!(AcLayout::parse("thread"), Ok(AcLayout::PacketPerThread));
        assert_eq!(AcLayout::parse("block-32"), Ok(AcLayout::BLOCK_WARP));
        for bad in [
            "hot-0k",
            "hot-228k",
            "hot-48",
            "block-0",
            "block-1025",
            "warp",
        ] {
            assert!(AcLayout::parse(bad).is_err(), "{bad}");
        }
        // 48 KiB: 48 rows of 32-bit entries, 96 of 16-bit ones (or 16-bit shared rows).
        let hot = AcLayout::SharedHot { bytes: 48 * 1024 };
        assert_eq!(hot.hot_rows(Width::U32), 48);
        assert_eq!(hot.hot_rows(Width::U16), 96);
        let narrow = AcLayout::SharedHot16 { bytes: 48 * 1024 };
        assert_eq!(narrow.hot_rows(Width::U32), 96);
        assert!(narrow.scan_order() && hot.is_hot() && !AcLayout::BLOCK_WARP.scan_order());
        assert_eq!(AcLayout::PacketPerThread.hot_rows(Width::U32), 0);
    }

    #[test]
    fn hot_rows_give_the_thread_kernels_rows_and_other_groups_read_global() {
        // Group 1 is the largest: its rows are shared; group 0 reads global memory only.
        let t = tables(&[
            vec![Pattern::new(&b"zz"[..], 9)],
            vec![
                Pattern::new(&b"ab"[..], 1),
                Pattern::new(&b"b"[..], 2),
                Pattern::nocase(&b"abcab"[..], 3),
            ],
        ]);
        let mut b = Batch::new(8, 4096);
        b.push(1, b"xxabcabcABCABbzz").unwrap();
        b.push(0, b"azzzb").unwrap();
        b.push(1, b"").unwrap();
        let mut want = ReportBuffer::new(16);
        run_ac(&t, &b, AcLayout::PacketPerThread, &mut want);
        assert!(want.count(0) >= 5 && want.count(1) == 2);
        for bytes in [512, 1024, 2048, 8192, AcLayout::MAX_SHARED] {
            for layout in [
                AcLayout::SharedHot { bytes },
                AcLayout::SharedHot16 { bytes },
            ] {
                let mut got = ReportBuffer::new(16);
                run_ac(&t, &b, layout, &mut got);
                for p in 0..b.len() {
                    assert_eq!(got.row(p), want.row(p), "{layout:?} {p}");
                }
            }
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

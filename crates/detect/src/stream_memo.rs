//! Raw stream chunks prefiltered from the scans of the packets they were built from.
//!
//! In IDS mode a TCP packet's payload is scanned by its group's payload prefilter when
//! it arrives, and the same bytes come back later in a raw stream chunk of that
//! direction, where the same prefilter scanned them again (a quarter of the bytes the
//! matchers read on sv-ether). Here each flow direction remembers, for the packets
//! whose whole payload the stream stored as new bytes, where the payload lies in the
//! stream and which patterns its scan found. A chunk covered by such packets is then
//! prefiltered from those patterns plus a scan of what no single packet holds: the
//! bytes around each boundary between two packets (a pattern crossing it starts less
//! than the longest pattern before it) and the parts of packets the chunk cuts. The
//! patterns reported are exactly those the whole chunk's scan reports; only the
//! matcher counters (bytes, matches) differ.
//!
//! The memo is trusted only while the stream's rewrite count
//! ([`StreamLayout::rewrites`]) stays the same: an overlapping or retransmitted
//! segment may have replaced remembered bytes, so the memo starts over. Packets must
//! follow each other in the stream: a packet not recorded (not scanned, or not stored
//! whole) leaves a hole the next record does not continue, and chunks over it are
//! scanned whole.
//!
//! The memos live in a table of the worker ([`MemoTable`], in its scratch space), made
//! once with room for everything they may hold, so no packet allocates: a flow holds a
//! handle to an entry, and entries are handed out in turn, the oldest going to a new
//! flow (whose chunks are then scanned whole until its packets are recorded again).

use std::ops::Range;

/// Where the bytes of one detection call lie in their TCP stream. The engine hands it
/// to [`crate::Scratch::stream_layout`] before [`crate::Detector::inspect`]; it holds
/// for that one call.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StreamLayout {
    /// The packet's whole payload was stored in its direction's stream as new bytes
    /// from this offset (`flow::Update::payload_at`).
    pub payload_at: Option<u64>,
    /// The raw stream chunk ([`crate::Input::stream`]) is the stream of the packet's
    /// direction from this offset on, without gaps.
    pub stream_at: Option<u64>,
    /// The direction's stream rewrite count (`flow::StreamData::rewrites`).
    pub rewrites: u32,
}

/// Most packets remembered per direction (a chunk is usually two or three).
const MAX_RECS: usize = 16;
/// Most pattern ids remembered per direction.
const MAX_IDS: usize = 192;
/// Entries of a worker's table: flows whose packets are remembered at once (about
/// 1.1 MiB per worker, made on the first TCP packet with a payload).
const ENTRIES: usize = 512;

/// One packet's payload in the stream and where its patterns end in `ids`.
#[derive(Debug, Clone, Copy)]
struct Rec {
    off: u64,
    len: u32,
    ids_end: u32,
}

impl Rec {
    fn end(&self) -> u64 {
        self.off + u64::from(self.len)
    }
}

/// The packets of one direction, one after the other in the stream (never more than
/// the room made with [`DirMemo::with_room`], so it does not allocate).
#[derive(Debug, Default, Clone)]
pub(crate) struct DirMemo {
    recs: Vec<Rec>,
    ids: Vec<u32>,
    rewrites: u32,
}

/// What a chunk covered by remembered packets still needs.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Patterns of the packets the chunk holds whole.
    pub ids: Vec<u32>,
    /// Ranges of the chunk to scan, sorted, disjoint.
    pub wins: Vec<Range<usize>>,
}

impl DirMemo {
    /// An empty memo with room for [`MAX_RECS`] packets and [`MAX_IDS`] patterns.
    fn with_room() -> DirMemo {
        DirMemo {
            recs: Vec::with_capacity(MAX_RECS),
            ids: Vec::with_capacity(MAX_IDS),
            rewrites: 0,
        }
    }

    fn clear(&mut self) {
        self.recs.clear();
        self.ids.clear();
    }

    /// Forgets everything when the stream may have been rewritten since.
    fn sync(&mut self, rewrites: u32) {
        if self.rewrites != rewrites {
            self.clear();
            self.rewrites = rewrites;
        }
    }

    /// Remembers a packet whose `len` bytes were stored from stream offset `off` and
    /// whose scan found `ids`; one that does not follow the last starts a new run.
    pub(crate) fn record(&mut self, off: u64, len: usize, ids: &[u32], rewrites: u32) {
        self.sync(rewrites);
        let Ok(len) = u32::try_from(len) else {
            self.clear();
            return;
        };
        if self.recs.last().is_some_and(|r| r.end() != off)
            || self.recs.len() >= MAX_RECS
            || self.ids.len() + ids.len() > MAX_IDS
        {
            self.clear();
        }
        if ids.len() > MAX_IDS {
            return;
        }
        self.ids.extend_from_slice(ids);
        self.recs.push(Rec {
            off,
            len,
            ids_end: self.ids.len() as u32,
        });
    }

    /// A packet whose bytes are in the stream but were not recorded: what follows it
    /// cannot continue the run.
    pub(crate) fn forget(&mut self) {
        self.clear();
    }

    /// Fills `plan` for a chunk of `n` bytes from stream offset `a`, for a prefilter
    /// whose longest pattern is `overlap + 1` bytes. False (the chunk is to be scanned
    /// whole) when the remembered packets do not cover it or the parts to scan would
    /// not be fewer bytes than the chunk.
    pub(crate) fn plan(
        &mut self,
        a: u64,
        n: usize,
        overlap: usize,
        rewrites: u32,
        plan: &mut Plan,
    ) -> bool {
        plan.ids.clear();
        plan.wins.clear();
        self.sync(rewrites);
        let b = a + n as u64;
        let (Some(first), Some(last)) = (self.recs.first(), self.recs.last()) else {
            return false;
        };
        if n == 0 || first.off > a || last.end() < b {
            return false;
        }
        let start = self.recs.partition_point(|r| r.end() <= a);
        for i in start..self.recs.len() {
            let r = self.recs[i];
            if r.off >= b {
                break;
            }
            let (s, e) = (r.off.max(a), r.end().min(b));
            if r.off > a {
                // A pattern across the boundary at `x` lies within `overlap` bytes of it.
                let x = (r.off - a) as usize;
                plan.wins
                    .push(x.saturating_sub(overlap)..(x + overlap).min(n));
            }
            if s == r.off && e == r.end() {
                let from = if i == 0 { 0 } else { self.recs[i - 1].ids_end };
                plan.ids
                    .extend_from_slice(&self.ids[from as usize..r.ids_end as usize]);
            } else {
                plan.wins.push((s - a) as usize..(e - a) as usize);
            }
        }
        merge(&mut plan.wins);
        let bytes: usize = plan.wins.iter().map(|w| w.len()).sum();
        bytes < n
    }

    /// Drops the packets that end at or before stream offset `upto` (inspected).
    pub(crate) fn consumed(&mut self, upto: u64) {
        let k = self.recs.partition_point(|r| r.end() <= upto);
        if k == 0 {
            return;
        }
        let cut = self.recs[k - 1].ids_end;
        self.recs.drain(..k);
        self.ids.drain(..cut as usize);
        for r in &mut self.recs {
            r.ids_end -= cut;
        }
    }
}

/// Sorts ranges and joins those that overlap or touch.
fn merge(wins: &mut Vec<Range<usize>>) {
    wins.retain(|w| !w.is_empty());
    wins.sort_unstable_by_key(|w| w.start);
    let mut out = 0;
    for i in 0..wins.len() {
        if out > 0 && wins[i].start <= wins[out - 1].end {
            wins[out - 1].end = wins[out - 1].end.max(wins[i].end);
        } else {
            wins[out] = wins[i].clone();
            out += 1;
        }
    }
    wins.truncate(out);
}

/// The memos of a flow's two directions (to server, to client).
#[derive(Debug, Default, Clone)]
pub(crate) struct StreamMemo {
    pub(crate) dirs: [DirMemo; 2],
    /// The handle tag of the flow this entry serves (0: none).
    tag: u32,
}

/// A flow's handle to its entry of the worker's [`MemoTable`]; the default handle has
/// none. An entry handed to another flow since is not the flow's any more.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoHandle {
    slot: u32,
    tag: u32,
}

/// A worker's memo entries, handed out in turn.
#[derive(Debug, Default)]
pub(crate) struct MemoTable {
    entries: Vec<StreamMemo>,
    next: usize,
    tag: u32,
}

impl MemoTable {
    /// The entry of handle `h`, if it is still the flow's.
    pub(crate) fn get(&mut self, h: MemoHandle) -> Option<&mut StreamMemo> {
        self.entries
            .get_mut(h.slot as usize)
            .filter(|e| h.tag != 0 && e.tag == h.tag)
    }

    /// The entry of handle `h`, or the next one in turn, emptied, made the flow's.
    pub(crate) fn get_or_new(&mut self, h: &mut MemoHandle) -> &mut StreamMemo {
        if self.get(*h).is_none() {
            if self.entries.is_empty() {
                self.entries = (0..ENTRIES)
                    .map(|_| StreamMemo {
                        dirs: [DirMemo::with_room(), DirMemo::with_room()],
                        tag: 0,
                    })
                    .collect();
            }
            self.tag = self.tag.wrapping_add(1).max(1);
            let slot = self.next;
            self.next = (self.next + 1) % self.entries.len();
            let e = &mut self.entries[slot];
            e.dirs.iter_mut().for_each(DirMemo::clear);
            e.tag = self.tag;
            *h = MemoHandle {
                slot: slot as u32,
                tag: self.tag,
            };
        }
        &mut self.entries[h.slot as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefilter::{Prefilter, Seen};

    /// Every pattern the whole chunk's scan reports, sorted.
    fn whole(pf: &Prefilter, hay: &[u8]) -> Vec<u32> {
        let mut seen = Seen::default();
        let mut got = Vec::new();
        pf.scan(hay, &mut seen, |s| got.push(s));
        got.sort_unstable();
        got.dedup();
        got
    }

    /// Records `stream` cut into packets at `cuts` (each packet scanned alone, as the
    /// detector does on arrival), then prefilters the chunk `range` from the memo.
    fn from_memo(
        pf: &Prefilter,
        stream: &[u8],
        cuts: &[usize],
        range: Range<usize>,
    ) -> Option<Vec<u32>> {
        let mut memo = DirMemo::default();
        let mut seen = Seen::default();
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(stream.len());
        for w in bounds.windows(2) {
            let mut ids = Vec::new();
            pf.scan_recording(&stream[w[0]..w[1]], None, &mut seen, &mut ids, |_| {});
            memo.record(w[0] as u64, w[1] - w[0], &ids, 7);
        }
        let mut plan = Plan::default();
        let chunk = &stream[range.clone()];
        if !memo.plan(range.start as u64, chunk.len(), pf.overlap(), 7, &mut plan) {
            return None;
        }
        let mut got = Vec::new();
        pf.scan_parts(chunk, &plan, None, &mut seen, |s| got.push(s));
        got.sort_unstable();
        got.dedup();
        memo.consumed(range.end as u64);
        assert!(memo.recs.iter().all(|r| r.end() > range.end as u64));
        Some(got)
    }

    fn prefilter() -> Prefilter {
        let entries: Vec<(Vec<u8>, bool, u32)> = vec![
            (b"abc".to_vec(), false, 1),
            (b"bcdef".to_vec(), false, 2),
            (b"zz".to_vec(), true, 3),
            (b"0123456789".to_vec(), false, 4),
            (b"x".to_vec(), false, 5),
        ];
        Prefilter::build(mpm::Kind::Vpatch, &entries).unwrap()
    }

    #[test]
    fn the_memo_reports_what_the_whole_chunk_scan_reports() {
        let pf = prefilter();
        let mut stream = Vec::new();
        for i in 0..40u8 {
            stream.extend_from_slice(b"..abcdef..0123456789..ZZ..");
            stream.push(b'a' + i % 26);
        }
        stream.extend_from_slice(&[b'.'; 300]);
        let mut used = 0;
        // At most `MAX_RECS` packets, as a direction remembers.
        for (len, step) in [
            (105, 7),
            (200, 13),
            (400, 29),
            (1380, 97),
            (1380, 200),
            (1380, 350),
        ] {
            let stream = &stream[..len];
            let cuts: Vec<usize> = (1..len.div_ceil(step)).map(|k| k * step).collect();
            assert!(cuts.len() < MAX_RECS);
            for (a, b) in [
                (0, len),
                (5, 700),
                (step, 3 * step),
                (100, 101),
                (3, len - 2),
            ] {
                let b = b.min(len);
                if a >= b {
                    continue;
                }
                if let Some(got) = from_memo(&pf, stream, &cuts, a..b) {
                    assert_eq!(got, whole(&pf, &stream[a..b]), "step {step}, {a}..{b}");
                    used += 1;
                }
            }
        }
        // Long packets: the memo is used, and still exact.
        assert!(used >= 12, "{used}");
    }

    #[test]
    fn a_rewrite_or_a_hole_falls_back_to_the_whole_scan() {
        let pf = prefilter();
        let mut memo = DirMemo::default();
        let mut plan = Plan::default();
        memo.record(0, 100, &[0], 1);
        memo.record(100, 100, &[1], 1);
        assert!(memo.plan(0, 200, pf.overlap(), 1, &mut plan));
        assert_eq!(plan.ids, vec![0, 1]);
        assert_eq!(plan.wins, vec![91..109]);
        // The stream was rewritten since: nothing remembered holds.
        assert!(!memo.plan(0, 200, pf.overlap(), 2, &mut plan));
        assert!(memo.recs.is_empty());
        // A packet that does not follow the last starts over.
        memo.record(0, 100, &[0], 2);
        memo.record(150, 100, &[1], 2);
        assert!(!memo.plan(100, 100, pf.overlap(), 2, &mut plan));
        assert!(memo.plan(150, 100, pf.overlap(), 2, &mut plan));
        memo.forget();
        assert!(!memo.plan(150, 100, pf.overlap(), 2, &mut plan));
    }

    #[test]
    fn consumed_packets_go_and_cut_ones_stay() {
        let mut memo = DirMemo::default();
        memo.record(0, 10, &[1, 2], 0);
        memo.record(10, 10, &[3], 0);
        memo.record(20, 10, &[4, 5], 0);
        memo.consumed(15);
        assert_eq!(memo.recs.len(), 2);
        assert_eq!(memo.ids, vec![3, 4, 5]);
        let mut plan = Plan::default();
        // The chunk from 15 cuts the packet at 10..20: its part is scanned.
        assert!(memo.plan(15, 15, 3, 0, &mut plan));
        assert_eq!(plan.ids, vec![4, 5]);
        assert_eq!(plan.wins, vec![0..8]);
        memo.consumed(30);
        assert!(memo.recs.is_empty() && memo.ids.is_empty());
    }

    #[test]
    fn entries_go_round_and_a_flow_loses_only_its_own() {
        let mut t = MemoTable::default();
        let mut a = MemoHandle::default();
        assert!(t.get(a).is_none());
        t.get_or_new(&mut a).dirs[0].record(0, 10, &[1], 0);
        assert_eq!(t.get(a).unwrap().dirs[0].ids, vec![1]);
        // The same handle finds the same entry.
        let again = a;
        t.get_or_new(&mut a);
        assert_eq!(a, again);
        // Every other entry handed out: the next new flow takes `a`'s, emptied.
        for _ in 0..ENTRIES {
            let mut h = MemoHandle::default();
            t.get_or_new(&mut h);
        }
        assert!(t.get(a).is_none());
        let mut b = MemoHandle::default();
        let e = t.get_or_new(&mut b);
        assert!(e.dirs[0].recs.is_empty());
        // Nothing grows past the room made at first.
        for k in 0..100 {
            e.dirs[1].record(k * 10, 10, &[7; 9], 0);
        }
        assert!(e.dirs[1].recs.capacity() == MAX_RECS && e.dirs[1].ids.capacity() == MAX_IDS);
    }

    #[test]
    fn merge_joins_touching_ranges() {
        let mut w = vec![5..9, 0..3, 3..4, 8..12, 20..20, 15..16];
        merge(&mut w);
        assert_eq!(w, vec![0..4, 5..12, 15..16]);
    }
}

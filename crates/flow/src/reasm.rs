//! One direction of a TCP stream: segments placed by sequence number into a contiguous
//! buffer, overlaps resolved by a target-based policy, and two consumers (the app layer
//! and raw stream inspection) that each take the acknowledged bytes in order.
//!
//! Sequence numbers are turned into 64-bit *stream offsets* (offset 0 is the byte after
//! the ISN) by a signed 32-bit difference from a reference point, which makes wraparound
//! of the 32-bit sequence space invisible to everything else.

use smallvec::SmallVec;
use std::ops::Range;

/// Which end of the overlap wins when a new segment overlaps data already held.
/// Behaviour as documented for target-based reassembly (Novak & Sturges; Suricata's
/// `host-os-policy`): an older segment `o` and a new segment `n` that overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OverlapPolicy {
    /// The data received first always wins.
    First,
    /// The data received last always wins.
    Last,
    /// BSD (Suricata's default): the new data wins where it starts before the old segment.
    #[default]
    Bsd,
    /// Linux: the new data wins where it starts before the old segment, or starts at the
    /// same sequence number and ends after it.
    Linux,
    /// Windows (also Vista, 2003, macOS): the old data wins unless the new segment starts
    /// before it and ends after it (full cover).
    Windows,
    /// Solaris / HP-UX 11: the new data wins where it ends after (or at the same place as)
    /// the old segment.
    Solaris,
    /// The new data wins where it starts at or before the old segment (Suricata
    /// 7.0.10's defragmenter under `linux`/`old-linux`, its stream under `old-linux`).
    OldLinux,
    /// The new data wins where it starts at or after the old segment (Suricata's
    /// defragmenter under `bsd-right`).
    BsdRight,
    /// The new data wins where it starts before the old segment and ends at or after
    /// it (Suricata's defragmenter under `solaris`).
    SolarisFrag,
    /// The new data wins where it ends after the old segment, or at the same place
    /// while starting at or before it (Suricata's stream under `solaris`/`hpux11`).
    SolarisStream,
}

impl OverlapPolicy {
    /// Parse a Suricata `host-os-policy` name.
    pub fn from_name(name: &str) -> Option<OverlapPolicy> {
        Some(match name {
            "first" => OverlapPolicy::First,
            "last" => OverlapPolicy::Last,
            "bsd" | "hpux10" | "irix" => OverlapPolicy::Bsd,
            "linux" | "old-linux" => OverlapPolicy::Linux,
            "windows" | "windows2k3" | "vista" | "macos" => OverlapPolicy::Windows,
            "solaris" | "old-solaris" | "hpux11" => OverlapPolicy::Solaris,
            _ => return None,
        })
    }

    /// Does the new segment `n` win over the old `o` where they overlap?
    pub(crate) fn new_wins(self, n: &Range<u64>, o: &Range<u64>) -> bool {
        let starts_before = n.start < o.start;
        let ends_after = n.end > o.end;
        match self {
            OverlapPolicy::First => false,
            OverlapPolicy::Last => true,
            OverlapPolicy::Bsd => starts_before,
            OverlapPolicy::Linux => starts_before || (n.start == o.start && ends_after),
            OverlapPolicy::Windows => starts_before && ends_after,
            OverlapPolicy::Solaris => n.end >= o.end,
            OverlapPolicy::OldLinux => n.start <= o.start,
            OverlapPolicy::BsdRight => n.start >= o.start,
            OverlapPolicy::SolarisFrag => starts_before && n.end >= o.end,
            OverlapPolicy::SolarisStream => ends_after || (n.end == o.end && n.start <= o.start),
        }
    }
}

/// One piece handed to a consumer: bytes, or a hole the receiver acknowledged but the
/// capture never showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Stream bytes `[offset, offset + len)`, found at `buf_start` in the stream's buffer.
    Data {
        /// Stream offset of the first byte.
        offset: u64,
        /// Index of the first byte in [`Reassembly::buffer`].
        buf_start: u32,
        /// Number of bytes.
        len: u32,
    },
    /// A gap of `len` bytes at stream offset `offset`.
    Gap {
        /// Stream offset of the hole.
        offset: u64,
        /// Size of the hole.
        len: u64,
    },
}

/// What became of a segment handed to [`Reassembly::insert`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsertOutcome {
    /// New bytes stored.
    pub stored: u32,
    /// The segment overlapped data held (not yet consumed by both consumers).
    pub overlap: bool,
    /// The segment (or its start) repeats bytes both consumers already took.
    pub retransmit: bool,
    /// Overlapping bytes that differ from what was held.
    pub overlap_diff: bool,
    /// The segment crossed the reassembly depth (first time for this stream).
    pub depth_reached: bool,
    /// Bytes dropped because the reassembly memory cap was reached.
    pub memcap_dropped: bool,
    /// The segment lay too far ahead of what is held and was dropped.
    pub out_of_window: bool,
}

/// Limits shared by every stream of a worker.
#[derive(Clone, Copy, Debug)]
pub struct ReasmLimits {
    /// Stream bytes kept per direction (`stream.reassembly.depth`, 0 = unlimited).
    pub depth: u64,
    /// How far ahead of the oldest held byte a segment may start (window guard).
    pub max_ahead: u64,
    /// Overlap policy.
    pub policy: OverlapPolicy,
    /// IDS mode: acknowledged bytes that must wait before raw stream inspection runs
    /// without a trigger, per direction (to server, to client): Suricata's
    /// `stream.reassembly.toserver-chunk-size` / `toclient-chunk-size`.
    pub raw_chunk: [u64; 2],
}

impl Default for ReasmLimits {
    fn default() -> Self {
        ReasmLimits {
            depth: 1 << 20,
            max_ahead: 16 << 20,
            policy: OverlapPolicy::Bsd,
            raw_chunk: [2560, 2560],
        }
    }
}

/// Consumer of a stream's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consumer {
    /// The application-layer parsers.
    App = 0,
    /// Raw stream inspection.
    Raw = 1,
}

/// One direction's reassembly state.
#[derive(Debug, Default)]
pub struct Reassembly {
    /// Reference point: sequence number of stream offset `ref_off`.
    ref_seq: u32,
    ref_off: u64,
    /// Stream offset of `buf[0]`.
    base: u64,
    buf: Vec<u8>,
    /// Received segments as absolute stream-offset ranges, sorted, not overlapping.
    segs: Vec<Range<u64>>,
    /// Progress of each consumer (stream offset of the next byte it will get).
    progress: [u64; 2],
    depth_reached: bool,
    /// A segment was offered since the last reset.
    touched: bool,
    /// Raw inspection is due at the next chance whatever the amount of data (an
    /// app-layer message of this direction completed: Suricata's raw trigger).
    pub trigger_raw: bool,
    /// Inline mode: bytes kept behind the raw consumer's progress for the next
    /// packet's inspection window (see [`Reassembly::take_window`]); 0 in IDS mode.
    raw_window: u64,
    /// Inserts that overlapped held bytes or repeated consumed ones, and resets: what
    /// the stream holds at an offset may have changed since a count ([`Self::rewrites`]).
    rewrites: u32,
    /// The depth of this stream when its protocol sets its own (Suricata's
    /// `app-layer.protocols.<name>.stream-depth`, 0 = unlimited) instead of the
    /// worker's [`ReasmLimits::depth`].
    pub depth: Option<u64>,
    /// Inline mode: the stream offset the receiver acknowledged; held bytes from there
    /// on are kept whatever the consumers took, so a retransmission can be compared
    /// with them ([`Reassembly::normalize`]). `None` in IDS mode.
    unacked_from: Option<u64>,
    /// Inline mode: where the stream an alert logs starts ([`Reassembly::log_from`]),
    /// and where it will start after the direction's next packet.
    log_from: u64,
    next_log_from: u64,
}

/// Granule of a stream buffer's allocation: buffers grow and shrink by regions of this
/// size, so a stream holds about what inspection still needs. Half a KiB: a stream's
/// first full-size segment (1,460 bytes) takes 1,536 bytes instead of 2,048, which
/// under the reassembly memcap with 100,000 open conversations is about a quarter of
/// the memory most streams hold.
pub const REGION: usize = 512;

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// Bytes of one entry of a stream's segment list.
const SEG_BYTES: usize = std::mem::size_of::<Range<u64>>();

/// Capacity of a segment list of capacity `cap` that must hold `want` ranges: exact
/// while small, then growing by half (amortized inserts).
fn seg_capacity(cap: usize, want: usize) -> usize {
    if want <= cap {
        cap
    } else if want <= 4 {
        want
    } else {
        want.max(cap + cap / 2)
    }
}

/// Most segments one direction may hold (each keeps its own boundaries, which the
/// overlap policies need); beyond, new segments are dropped and counted as memcap drops.
pub const MAX_SEGMENTS: usize = 16384;

impl Reassembly {
    /// A stream whose first data byte has sequence number `first_seq` (ISN + 1).
    pub fn new(first_seq: u32) -> Reassembly {
        Reassembly {
            ref_seq: first_seq,
            ..Default::default()
        }
    }

    /// Restart the stream at `first_seq` keeping the buffer's allocation.
    pub fn reset(&mut self, first_seq: u32) {
        self.ref_seq = first_seq;
        self.ref_off = 0;
        self.base = 0;
        self.buf.clear();
        self.segs.clear();
        self.progress = [0; 2];
        self.depth_reached = false;
        self.touched = false;
        self.raw_window = 0;
        self.rewrites = self.rewrites.wrapping_add(1);
        self.unacked_from = None;
        self.log_from = 0;
        self.next_log_from = 0;
    }

    /// A count that changes whenever bytes the stream held (or handed out) may have been
    /// replaced: an insert that overlapped held data or repeated consumed bytes, or a
    /// reset. While it stays the same, the bytes a segment stored as new
    /// ([`InsertOutcome::stored`] equal to its length, without `overlap` or
    /// `retransmit`) are still the stream's bytes at that offset, so what was found in
    /// the segment holds for them (raw stream inspection reuses its packet's scan).
    pub fn rewrites(&self) -> u32 {
        self.rewrites
    }

    /// True once a segment was offered to this stream (since the last reset).
    pub fn touched(&self) -> bool {
        self.touched
    }

    /// Stream offset of sequence number `seq` (wraparound-safe within ±2 GiB of the
    /// last reference point). `None` for a sequence number before the stream start.
    pub fn offset_of(&self, seq: u32) -> Option<u64> {
        let d = seq.wrapping_sub(self.ref_seq) as i32 as i64;
        let off = self.ref_off as i64 + d;
        (off >= 0).then_some(off as u64)
    }

    /// The sequence number of the first byte that some consumer has not taken yet
    /// (Suricata's `base_seq`: what lies before it is gone; the stream's first
    /// sequence number before anything was taken).
    pub fn consumed_seq(&self) -> u32 {
        let mut off = self.progress[0].min(self.progress[1]);
        if let Some(a) = self.unacked_from {
            off = off.min(a.max(self.base));
        }
        self.ref_seq
            .wrapping_add(off.wrapping_sub(self.ref_off) as u32)
    }

    /// Move the reference point forward so that offsets far from the start still map.
    fn rebase(&mut self, seq: u32, off: u64) {
        self.ref_seq = seq;
        self.ref_off = off;
    }

    /// Progress of a consumer (stream offset).
    pub fn progress(&self, c: Consumer) -> u64 {
        self.progress[c as usize]
    }

    /// The stream's buffer: [`Chunk::Data`] index into it until the next mutation.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }

    /// Stream offset of the first byte in [`Reassembly::buffer`].
    pub fn buffer_offset(&self) -> u64 {
        self.base
    }

    /// Bytes of memory held (the buffer's and the segment list's allocations).
    pub fn memuse(&self) -> usize {
        self.buf.capacity() + self.segs.capacity() * SEG_BYTES
    }

    /// End of the held data (stream offset past the last received byte), or the oldest
    /// progress when nothing is held.
    pub fn held_end(&self) -> u64 {
        self.segs
            .last()
            .map_or(self.progress[0].min(self.progress[1]), |r| r.end)
    }

    /// End of the data held without a hole from consumer `c`'s progress on (the
    /// progress itself when the next byte is missing).
    pub fn contiguous_end(&self, c: Consumer) -> u64 {
        let mut p = self.progress[c as usize].max(self.base);
        let i = self.segs.partition_point(|r| r.end <= p);
        for r in &self.segs[i..] {
            if r.start > p {
                break;
            }
            p = p.max(r.end);
        }
        p
    }

    /// True when some consumer has not yet taken all held data.
    pub fn has_pending(&self) -> bool {
        let end = self.held_end();
        self.progress[0] < end || self.progress[1] < end
    }

    /// Free held bytes both consumers are done with: the buffer drops what lies before
    /// the slower consumer's progress, and its allocation follows what is left (freed
    /// whole when nothing is held, shrunk when mostly empty). Returns the bytes of
    /// memory released. Call it only when no [`Chunk`] handed out before is still read
    /// (their buffer indices change).
    pub fn trim(&mut self) -> usize {
        let before = self.memuse();
        let raw_low = self.progress[1].saturating_sub(self.raw_window);
        let low = self.progress[0]
            .min(raw_low)
            .min(self.unacked_from.unwrap_or(u64::MAX));
        if low > self.base {
            let n = ((low - self.base) as usize).min(self.buf.len());
            // Amortize: move memory only when it frees a region or half the buffer.
            if n == self.buf.len() || n >= REGION || n * 2 >= self.buf.len() {
                if n == self.buf.len() {
                    self.buf.clear();
                } else {
                    self.buf.drain(..n);
                }
                self.base += n as u64;
                let keep = self.segs.partition_point(|r| r.end <= self.base);
                self.segs.drain(..keep);
            }
        }
        if self.buf.is_empty() && self.segs.is_empty() {
            // Nothing held: keep no allocation at all (the worker's pool keeps it).
            crate::stream_pool::give(
                std::mem::take(&mut self.buf),
                std::mem::take(&mut self.segs),
            );
        } else if self.buf.capacity() > 2 * self.buf.len() + REGION {
            let cap = round_up(self.buf.len(), REGION);
            crate::stream_pool::shrink_bytes(&mut self.buf, cap);
        }
        if self.segs.capacity() > 4 * self.segs.len() + 8 {
            self.segs.shrink_to(self.segs.len() * 2);
        }
        before.saturating_sub(self.memuse())
    }

    /// Inline mode (Suricata's IPS stream engine): held bytes at and after stream
    /// offset `off` (the receiver's last acknowledgement) stay held until acknowledged,
    /// even once both consumers took them, and a segment over them is compared with
    /// them ([`Reassembly::normalize`]).
    pub fn keep_unacked(&mut self, off: u64) {
        self.unacked_from = Some(off);
    }

    /// Inline mode: a packet of this stream's direction was processed. Suricata frees
    /// the bytes of a stream after each of its packets, up to what both consumers took
    /// and the receiver acknowledged; the stream an alert logs starts there, so an
    /// alert on the direction's next packet logs from where the packet before left it.
    pub fn mark_logged_start(&mut self) {
        self.log_from = self.next_log_from;
        let done = self.progress[0].min(self.progress[1]);
        let edge = done.min(self.unacked_from.unwrap_or(done));
        self.next_log_from = self.next_log_from.max(edge);
    }

    /// Inline mode: the stream offset where the stream an alert on this direction's
    /// latest packet logs starts (see [`Reassembly::mark_logged_start`]); 0 in IDS mode.
    pub fn log_from(&self) -> u64 {
        self.log_from
    }

    /// Inline mode's normalization: where a segment at `seq` overlaps bytes already
    /// held, the first data wins on the wire too (Suricata rewrites such a packet to
    /// the data it accepted first). When some overlapping byte differs, `out` receives
    /// the segment with the held bytes in place of its own and `true` is returned;
    /// otherwise `out` is left alone.
    pub fn normalize(&self, seq: u32, data: &[u8], out: &mut Vec<u8>) -> bool {
        let Some(start) = self.offset_of(seq) else {
            return false;
        };
        let end = start + data.len() as u64;
        let first = start.max(self.base);
        let mut changed = false;
        let i = self.segs.partition_point(|r| r.end <= first);
        for o in self.segs[i..].iter().take_while(|o| o.start < end) {
            let (a, b) = (o.start.max(first), o.end.min(end));
            let held = &self.buf[(a - self.base) as usize..(b - self.base) as usize];
            let (da, db) = ((a - start) as usize, (b - start) as usize);
            if held != &data[da..db] {
                if !changed {
                    out.clear();
                    out.extend_from_slice(data);
                    changed = true;
                }
                out[da..db].copy_from_slice(held);
            }
        }
        changed
    }

    /// Insert a segment with sequence number `seq`. `memuse` is the running total of
    /// reassembly memory (this stream's included) and `memcap` its cap: the stream's
    /// buffer grows in small regions while the total stays within the cap, and
    /// `memuse` follows what the stream holds afterwards.
    pub fn insert(
        &mut self,
        seq: u32,
        data: &[u8],
        lim: &ReasmLimits,
        memuse: &mut usize,
        memcap: usize,
    ) -> InsertOutcome {
        let before = self.memuse();
        let others = memuse.saturating_sub(before);
        let out = self.place(seq, data, lim, others, memcap);
        *memuse = others + self.memuse();
        if out.overlap || out.retransmit || out.overlap_diff {
            self.rewrites = self.rewrites.wrapping_add(1);
        }
        out
    }

    /// [`Reassembly::insert`] with the memory of everything but this stream (`others`).
    fn place(
        &mut self,
        seq: u32,
        data: &[u8],
        lim: &ReasmLimits,
        others: usize,
        memcap: usize,
    ) -> InsertOutcome {
        let mut out = InsertOutcome::default();
        if data.is_empty() {
            return out;
        }
        let Some(start) = self.offset_of(seq) else {
            // Entirely or partly before the stream's first byte: keep what follows it.
            let skip = self.ref_seq.wrapping_sub(seq) as usize;
            if skip < data.len() && self.ref_off == 0 {
                let s = self.ref_seq;
                return self.place(s, &data[skip..], lim, others, memcap);
            }
            out.retransmit = true;
            return out;
        };
        self.touched = true;
        self.trim();
        let mut end = start + data.len() as u64;
        let consumed = self.progress[0].max(self.progress[1]);
        if start < self.base || start < consumed {
            out.retransmit = true;
        }
        let first = start.max(self.base);
        if first > self.base + lim.max_ahead {
            out.out_of_window = true;
            return out;
        }
        let depth = self.depth.unwrap_or(lim.depth);
        if depth > 0 && end > depth {
            if !self.depth_reached {
                self.depth_reached = true;
                out.depth_reached = true;
            }
            end = depth;
        }
        if first >= end {
            return out;
        }
        // Keep offsets mappable over long streams.
        if start > self.ref_off + (1 << 30) {
            self.rebase(seq, start);
        }
        let need = (end - self.base) as usize;
        if need > self.buf.len() {
            let cap = self.buf.capacity();
            if need > cap {
                // Grow by small regions (half the held size at most, for amortized
                // appends), never past the memory cap nor past what the depth allows.
                // Room for the segment list's growth is kept for the segment's range.
                let seg_room = if self.segs.len() == self.segs.capacity() {
                    (seg_capacity(self.segs.capacity(), self.segs.len() + 1) - self.segs.capacity())
                        * SEG_BYTES
                } else {
                    0
                };
                let allowed = memcap.saturating_sub(others + self.memuse() + seg_room);
                if need - cap > allowed {
                    out.memcap_dropped = true;
                    return out;
                }
                let mut want = round_up(need.max(cap + cap / 2), REGION);
                if depth > 0 {
                    want = want.min(need.max(depth.saturating_sub(self.base) as usize));
                }
                want = want.min(cap + allowed).max(need);
                crate::stream_pool::grow_bytes(&mut self.buf, want);
            }
            self.buf.resize(need, 0);
        }
        let new = start..start + data.len() as u64;
        let byte = |o: u64| data[(o - start) as usize];
        // Walk the held segments that overlap [first, end), filling the holes between them.
        let mut pos = first;
        let mut i = self.segs.partition_point(|r| r.end <= first);
        let mut inserts: SmallVec<[Range<u64>; 4]> = SmallVec::new();
        // A segment with the same start and length as one held is a duplicate whose
        // bytes Suricata 7.0.10 does not compare: no different-data overlap is reported
        // for it (difftest `events/stream`, tests/parity/difftest/fixed/dt-1-events-0).
        let seg_end = start + data.len() as u64;
        let duplicate = self
            .segs
            .get(i)
            .is_some_and(|o| o.start == start && o.end == seg_end);
        while pos < end {
            let next = self.segs.get(i).cloned();
            match next {
                Some(o) if o.start <= pos => {
                    // Overlap with held segment `o` over [pos, min(o.end, end)).
                    let ov_end = o.end.min(end);
                    out.overlap = true;
                    let wins = lim.policy.new_wins(&new, &o);
                    for off in pos..ov_end {
                        let bi = (off - self.base) as usize;
                        if self.buf[bi] != byte(off) {
                            out.overlap_diff |= !duplicate;
                            // Bytes a consumer has already taken are never changed.
                            if wins && off >= consumed {
                                self.buf[bi] = byte(off);
                            }
                        }
                    }
                    pos = ov_end;
                    i += 1;
                }
                _ => {
                    let hole_end = next.map_or(end, |o| o.start.min(end));
                    let (a, b) = ((pos - self.base) as usize, (hole_end - self.base) as usize);
                    self.buf[a..b].copy_from_slice(
                        &data[(pos - start) as usize..(hole_end - start) as usize],
                    );
                    out.stored += (hole_end - pos) as u32;
                    inserts.push(pos..hole_end);
                    pos = hole_end;
                }
            }
        }
        let want = self.segs.len() + inserts.len();
        let grow = seg_capacity(self.segs.capacity(), want) - self.segs.capacity();
        if want > MAX_SEGMENTS || grow * SEG_BYTES > memcap.saturating_sub(others + self.memuse()) {
            // Too many pieces in one stream (a hostile 1-byte-segment flood) or no
            // memory for their list: the bytes were written into holes nobody
            // references; drop the ranges.
            out.memcap_dropped = true;
            out.stored = 0;
        } else {
            // Exact while small, then by half (as `seg_capacity` charged above).
            let cap = seg_capacity(self.segs.capacity(), want);
            crate::stream_pool::grow_segs(&mut self.segs, cap);
            for r in inserts {
                let i = self.segs.partition_point(|s| s.start < r.start);
                self.segs.insert(i, r);
            }
        }
        out
    }

    /// Hand consumer `c` the bytes from its progress up to stream offset `upto`
    /// (exclusive), appending [`Chunk`]s to `out`. A hole is skipped as a gap only when
    /// data after it exists and `upto` reaches that data; otherwise the consumer waits.
    /// With `flush`, everything held is handed out regardless of `upto`.
    /// Returns the number of gaps emitted.
    pub fn take(&mut self, c: Consumer, upto: u64, flush: bool, out: &mut Vec<Chunk>) -> u32 {
        let limit = if flush {
            self.held_end()
        } else {
            upto.min(self.held_end())
        };
        let mut p = self.progress[c as usize].max(self.base);
        let mut gaps = 0;
        let mut i = self.segs.partition_point(|r| r.end <= p);
        while p < limit {
            let Some(s) = self.segs.get(i) else { break };
            if s.start > p {
                // A hole: skip it only when the limit reaches data after it.
                if s.start >= limit && !flush {
                    break;
                }
                out.push(Chunk::Gap {
                    offset: p,
                    len: s.start - p,
                });
                gaps += 1;
                p = s.start;
                continue;
            }
            let e = s.end.min(limit);
            out.push(Chunk::Data {
                offset: p,
                buf_start: (p - self.base) as u32,
                len: (e - p) as u32,
            });
            p = e;
            i += 1;
        }
        self.progress[c as usize] = self.progress[c as usize].max(p);
        gaps
    }

    /// Inline mode's raw inspection window (Suricata's inline raw reassembly): the
    /// stream up to `upto` (the packet's in-order bytes included), reaching back as far
    /// as `window` bytes before `upto` (the direction's chunk size) even over bytes
    /// inspected before, and always at least to the raw consumer's progress. Bytes
    /// within `window` of the progress are kept for the next packet's window.
    pub fn take_window(&mut self, upto: u64, window: u64, out: &mut Vec<Chunk>) -> u32 {
        self.raw_window = window;
        let raw = Consumer::Raw as usize;
        let old = self.progress[raw];
        let start = old.min(upto.saturating_sub(window)).max(self.base);
        self.progress[raw] = start;
        let gaps = self.take(Consumer::Raw, upto, false, out);
        self.progress[raw] = self.progress[raw].max(old);
        gaps
    }

    /// The bytes of a [`Chunk::Data`] handed out by the last [`Reassembly::take`].
    pub fn chunk_bytes(&self, chunk: &Chunk) -> &[u8] {
        match *chunk {
            Chunk::Data { buf_start, len, .. } => self
                .buf
                .get(buf_start as usize..buf_start as usize + len as usize)
                .unwrap_or(&[]),
            Chunk::Gap { .. } => &[],
        }
    }

    /// Release all memory (flow end), returning how many bytes were freed.
    pub fn free(&mut self) -> usize {
        let m = self.memuse();
        crate::stream_pool::give(
            std::mem::take(&mut self.buf),
            std::mem::take(&mut self.segs),
        );
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(r: &mut Reassembly, c: Consumer, upto: u64, flush: bool) -> (Vec<u8>, u32) {
        let mut ch = Vec::new();
        let gaps = r.take(c, upto, flush, &mut ch);
        let mut v = Vec::new();
        for x in &ch {
            match x {
                Chunk::Data { .. } => v.extend_from_slice(r.chunk_bytes(x)),
                Chunk::Gap { len, .. } => v.extend(std::iter::repeat_n(b'_', *len as usize)),
            }
        }
        (v, gaps)
    }

    fn ins(r: &mut Reassembly, seq: u32, d: &[u8], pol: OverlapPolicy) -> InsertOutcome {
        let lim = ReasmLimits {
            policy: pol,
            ..Default::default()
        };
        let mut m = 0;
        r.insert(seq, d, &lim, &mut m, usize::MAX)
    }

    #[test]
    fn rewrites_count_what_may_have_replaced_bytes() {
        let mut r = Reassembly::new(1000);
        let n0 = r.rewrites();
        // New bytes in order, then after a hole: nothing held changes.
        ins(&mut r, 1000, b"hello", OverlapPolicy::Bsd);
        ins(&mut r, 1010, b"world", OverlapPolicy::Bsd);
        assert_eq!(r.rewrites(), n0);
        // Filling the hole exactly changes nothing held either.
        ins(&mut r, 1005, b" big ", OverlapPolicy::Bsd);
        assert_eq!(r.rewrites(), n0);
        // An overlap (same bytes or not) may have replaced some.
        ins(&mut r, 1003, b"LO", OverlapPolicy::Last);
        assert_eq!(r.rewrites(), n0.wrapping_add(1));
        assert_eq!(
            collect(&mut r, Consumer::Raw, 15, false).0,
            b"helLO big world"
        );
        // A repeat of bytes both consumers took is counted too, and so is a reset.
        collect(&mut r, Consumer::App, 15, false);
        ins(&mut r, 1000, b"hel", OverlapPolicy::Bsd);
        assert_eq!(r.rewrites(), n0.wrapping_add(2));
        r.reset(5000);
        assert_eq!(r.rewrites(), n0.wrapping_add(3));
    }

    #[test]
    fn in_order_and_ack_limited() {
        let mut r = Reassembly::new(1001);
        ins(&mut r, 1001, b"hello ", OverlapPolicy::Bsd);
        ins(&mut r, 1007, b"world", OverlapPolicy::Bsd);
        assert_eq!(collect(&mut r, Consumer::App, 3, false).0, b"hel");
        assert_eq!(collect(&mut r, Consumer::App, 100, false).0, b"lo world");
        assert_eq!(collect(&mut r, Consumer::Raw, 11, false).0, b"hello world");
        assert!(!r.has_pending());
    }

    #[test]
    fn out_of_order_waits_for_the_hole() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 5, b"56789", OverlapPolicy::Bsd);
        // The ack does not reach past the hole's data: wait.
        assert_eq!(collect(&mut r, Consumer::App, 5, false).0, b"");
        ins(&mut r, 0, b"01234", OverlapPolicy::Bsd);
        assert_eq!(
            collect(&mut r, Consumer::App, 10, false),
            (b"0123456789".to_vec(), 0)
        );
    }

    #[test]
    fn acked_hole_is_a_gap() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 0, b"ab", OverlapPolicy::Bsd);
        ins(&mut r, 5, b"fg", OverlapPolicy::Bsd);
        assert_eq!(
            collect(&mut r, Consumer::App, 7, false),
            (b"ab___fg".to_vec(), 1)
        );
        // A late arrival of the hole's bytes changes nothing.
        ins(&mut r, 2, b"cde", OverlapPolicy::Bsd);
        assert_eq!(collect(&mut r, Consumer::App, 7, false).0, b"");
    }

    #[test]
    fn ack_of_unseen_data_with_nothing_after_waits() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 0, b"ab", OverlapPolicy::Bsd);
        assert_eq!(
            collect(&mut r, Consumer::App, 100, false),
            (b"ab".to_vec(), 0)
        );
        assert_eq!(
            collect(&mut r, Consumer::App, 200, false),
            (b"".to_vec(), 0)
        );
        ins(&mut r, 10, b"kl", OverlapPolicy::Bsd);
        assert_eq!(
            collect(&mut r, Consumer::App, 200, false),
            (b"________kl".to_vec(), 1)
        );
    }

    #[test]
    fn retransmission_is_an_overlap_without_difference() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 0, b"abcd", OverlapPolicy::Bsd);
        let o = ins(&mut r, 0, b"abcd", OverlapPolicy::Bsd);
        assert!(o.overlap && !o.overlap_diff && o.stored == 0);
        collect(&mut r, Consumer::App, 4, false);
        collect(&mut r, Consumer::Raw, 4, false);
        let o = ins(&mut r, 0, b"abcd", OverlapPolicy::Bsd);
        assert!(o.retransmit && !o.overlap && o.stored == 0);
    }

    #[test]
    fn an_exact_duplicate_is_not_compared_a_partial_overlap_is() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 0, b"abcdefgh", OverlapPolicy::Bsd);
        let o = ins(&mut r, 0, b"abXdefgh", OverlapPolicy::Bsd);
        assert!(o.overlap && !o.overlap_diff);
        for (at, data) in [(0, &b"abX"[..]), (2, b"XdefghYY"), (4, b"eXgh")] {
            let o = ins(&mut r, at, data, OverlapPolicy::Bsd);
            assert!(o.overlap && o.overlap_diff, "{at}");
        }
    }

    /// The classic overlap table: old segments "AAAA" at 2..6 and "BBBB" at 8..12,
    /// then a new segment of 'x' over 0..10 (starts before the first, ends inside
    /// the second) and one 'y' at 8..14 (same start as B, ends after it).
    fn overlap_case(pol: OverlapPolicy) -> Vec<u8> {
        let mut r = Reassembly::new(0);
        ins(&mut r, 2, b"AAAA", pol);
        ins(&mut r, 8, b"BBBB", pol);
        ins(&mut r, 0, b"xxxxxxxxxx", pol);
        ins(&mut r, 8, b"yyyyyy", pol);
        collect(&mut r, Consumer::App, 14, false).0
    }

    #[test]
    fn overlap_policies() {
        assert_eq!(overlap_case(OverlapPolicy::First), b"xxAAAAxxBBBByy");
        assert_eq!(overlap_case(OverlapPolicy::Last), b"xxxxxxxxyyyyyy");
        assert_eq!(overlap_case(OverlapPolicy::Bsd), b"xxxxxxxxxxBByy");
        assert_eq!(overlap_case(OverlapPolicy::Linux), b"xxxxxxxxyyyyyy");
        assert_eq!(overlap_case(OverlapPolicy::Windows), b"xxxxxxxxBBBByy");
        assert_eq!(overlap_case(OverlapPolicy::Solaris), b"xxxxxxxxyyyyyy");
    }

    #[test]
    fn sequence_wraparound() {
        let isn = u32::MAX - 3;
        let mut r = Reassembly::new(isn);
        ins(&mut r, isn.wrapping_add(6), b"ghij", OverlapPolicy::Bsd);
        ins(&mut r, isn, b"abcdef", OverlapPolicy::Bsd);
        assert_eq!(r.offset_of(2), Some(6));
        assert_eq!(collect(&mut r, Consumer::App, 10, false).0, b"abcdefghij");
    }

    #[test]
    fn a_stream_depth_of_its_own_replaces_the_workers() {
        let lim = ReasmLimits {
            depth: 8,
            ..Default::default()
        };
        let (mut m, mut r) = (0, Reassembly::new(0));
        r.depth = Some(0);
        let o = r.insert(0, &[1; 12], &lim, &mut m, usize::MAX);
        assert!(!o.depth_reached && o.stored == 12);
        r.depth = Some(14);
        let o = r.insert(12, &[2; 4], &lim, &mut m, usize::MAX);
        assert!(o.depth_reached && o.stored == 2);
    }

    #[test]
    fn depth_limits_what_is_kept() {
        let mut r = Reassembly::new(0);
        let lim = ReasmLimits {
            depth: 8,
            ..Default::default()
        };
        let mut m = 0;
        assert!(
            !r.insert(0, b"012345", &lim, &mut m, usize::MAX)
                .depth_reached
        );
        let o = r.insert(6, b"6789ab", &lim, &mut m, usize::MAX);
        assert!(o.depth_reached && o.stored == 2);
        assert!(!r.insert(12, b"zz", &lim, &mut m, usize::MAX).depth_reached);
        assert_eq!(collect(&mut r, Consumer::App, 100, false).0, b"01234567");
    }

    #[test]
    fn memcap_drops_and_counts() {
        let mut r = Reassembly::new(0);
        let lim = ReasmLimits::default();
        let mut m = 0;
        let o = r.insert(0, &[1u8; 100], &lim, &mut m, 50);
        assert!(o.memcap_dropped);
        assert_eq!(m, 0);
        assert!(!r.insert(0, &[1u8; 10], &lim, &mut m, 50).memcap_dropped);
        assert!(m > 0 && m <= 50);
    }

    #[test]
    fn data_before_stream_start_is_trimmed() {
        let mut r = Reassembly::new(100);
        ins(&mut r, 98, b"xxab", OverlapPolicy::Bsd);
        assert_eq!(collect(&mut r, Consumer::App, 10, false).0, b"ab");
    }

    #[test]
    fn flush_hands_out_everything_with_gaps() {
        let mut r = Reassembly::new(0);
        ins(&mut r, 0, b"ab", OverlapPolicy::Bsd);
        ins(&mut r, 4, b"ef", OverlapPolicy::Bsd);
        assert_eq!(
            collect(&mut r, Consumer::Raw, 0, true),
            (b"ab__ef".to_vec(), 1)
        );
        assert_eq!(collect(&mut r, Consumer::App, 1, false).0, b"a");
        assert_eq!(collect(&mut r, Consumer::App, 0, true).0, b"b__ef");
        assert!(!r.has_pending());
    }

    #[test]
    fn trim_releases_what_both_consumers_took() {
        let mut r = Reassembly::new(0);
        let lim = ReasmLimits::default();
        let mut m = 0;
        r.insert(0, &[7u8; 1500], &lim, &mut m, usize::MAX);
        // One small region, not a doubled buffer.
        assert!((1500..=1500 + REGION + 64).contains(&m), "{m}");
        assert_eq!(m, r.memuse());
        collect(&mut r, Consumer::App, 1500, false);
        assert_eq!(r.trim(), 0, "raw inspection still needs the bytes");
        collect(&mut r, Consumer::Raw, 1500, false);
        assert_eq!(r.trim(), m);
        assert_eq!(r.memuse(), 0);
        // The stream goes on from there.
        r.insert(1500, b"abc", &lim, &mut m, usize::MAX);
        assert_eq!(collect(&mut r, Consumer::App, 1503, false).0, b"abc");
        // Half consumed: the buffer shrinks to what is left.
        let mut r = Reassembly::new(0);
        for i in 0..40u32 {
            r.insert(i * 1000, &[1u8; 1000], &lim, &mut m, usize::MAX);
        }
        collect(&mut r, Consumer::App, 39_000, false);
        collect(&mut r, Consumer::Raw, 39_000, false);
        r.trim();
        assert!(r.memuse() <= 2 * REGION + 1000, "{}", r.memuse());
        assert_eq!(collect(&mut r, Consumer::App, 40_000, false).0, [1u8; 1000]);
    }

    #[test]
    fn inline_window_reaches_back_a_chunk_over_inspected_bytes() {
        let mut r = Reassembly::new(0);
        let lim = ReasmLimits::default();
        let mut m = 0;
        let mut out = Vec::new();
        let bytes = |r: &Reassembly, out: &[Chunk]| -> Vec<u8> {
            out.iter().flat_map(|c| r.chunk_bytes(c).to_vec()).collect()
        };
        r.insert(0, b"abcd", &lim, &mut m, usize::MAX);
        r.take_window(4, 6, &mut out);
        assert_eq!(bytes(&r, &out), b"abcd");
        collect(&mut r, Consumer::App, 4, false);
        r.trim();
        r.insert(4, b"efgh", &lim, &mut m, usize::MAX);
        out.clear();
        // Six bytes back from the end: two inspected before, the packet's four.
        r.take_window(8, 6, &mut out);
        assert_eq!(bytes(&r, &out), b"cdefgh");
        // A packet longer than the window is inspected whole.
        r.insert(8, b"ijklmnop", &lim, &mut m, usize::MAX);
        out.clear();
        r.take_window(16, 6, &mut out);
        assert_eq!(bytes(&r, &out), b"ijklmnop");
        // The window is kept through a trim even when the app layer took everything.
        collect(&mut r, Consumer::App, 16, false);
        r.trim();
        r.insert(16, b"q", &lim, &mut m, usize::MAX);
        out.clear();
        r.take_window(17, 6, &mut out);
        assert_eq!(bytes(&r, &out), b"lmnopq");
    }

    #[test]
    fn far_ahead_segment_is_refused() {
        let mut r = Reassembly::new(0);
        let lim = ReasmLimits {
            depth: 0,
            max_ahead: 1000,
            ..Default::default()
        };
        let mut m = 0;
        assert!(r.insert(5000, b"x", &lim, &mut m, usize::MAX).out_of_window);
        assert_eq!(m, 0);
    }

    #[test]
    fn inline_logged_start_follows_the_previous_packet() {
        let lim = ReasmLimits::default();
        let mut r = Reassembly::new(0);
        let mut m = 0;
        // Packet 1: 5 bytes, taken by both consumers, nothing acknowledged.
        r.insert(0, b"hello", &lim, &mut m, usize::MAX);
        collect(&mut r, Consumer::App, 5, false);
        collect(&mut r, Consumer::Raw, 5, false);
        r.keep_unacked(0);
        r.mark_logged_start();
        assert_eq!(r.log_from(), 0);
        // Packet 2, after the receiver acknowledged packet 1: still logged from 0;
        // the next packet logs from 5, what was freed after this one.
        r.insert(5, b"world", &lim, &mut m, usize::MAX);
        collect(&mut r, Consumer::App, 10, false);
        collect(&mut r, Consumer::Raw, 10, false);
        r.keep_unacked(5);
        r.mark_logged_start();
        assert_eq!(r.log_from(), 0);
        r.keep_unacked(10);
        r.mark_logged_start();
        assert_eq!(r.log_from(), 5);
        r.mark_logged_start();
        assert_eq!(r.log_from(), 10);
    }

    #[test]
    fn inline_normalization_keeps_the_first_data_until_acknowledged() {
        let lim = ReasmLimits::default();
        let mut r = Reassembly::new(0);
        let mut m = 0;
        r.keep_unacked(0);
        r.insert(0, b"abcdef", &lim, &mut m, usize::MAX);
        r.insert(6, b"ghij", &lim, &mut m, usize::MAX);
        // Both consumers took everything: still held, nothing acknowledged.
        collect(&mut r, Consumer::App, 10, false);
        collect(&mut r, Consumer::Raw, 10, false);
        r.trim();
        assert_eq!(r.consumed_seq(), 0);
        let mut out = Vec::new();
        // The same bytes again: nothing to rewrite.
        assert!(!r.normalize(0, b"abcdef", &mut out));
        // Other bytes over held data, running past it: the held ones replace them.
        assert!(r.normalize(6, b"XXYYZZ", &mut out));
        assert_eq!(out, b"ghijZZ");
        // Once acknowledged, the bytes go and nothing is compared any more.
        r.keep_unacked(10);
        r.trim();
        assert_eq!(r.consumed_seq(), 10);
        assert!(!r.normalize(0, b"XXXXXX", &mut out));
        // IDS mode (no floor) trims what both consumers took, as before.
        let mut r = Reassembly::new(0);
        r.insert(0, b"abcdef", &lim, &mut m, usize::MAX);
        collect(&mut r, Consumer::App, 6, false);
        collect(&mut r, Consumer::Raw, 6, false);
        r.trim();
        assert_eq!(r.consumed_seq(), 6);
        assert!(!r.normalize(0, b"XXXXXX", &mut out));
    }
}

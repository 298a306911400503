//! IPv4 and IPv6 defragmentation.
//!
//! Fragments are grouped by (family, source, destination, identification, protocol,
//! VLAN) into trackers. Each tracker keeps the fragments' byte ranges (not merged: the
//! overlap policy needs every fragment's own boundaries) in one buffer. When the last
//! fragment is in and the data is contiguous from offset 0, the datagram is rebuilt
//! from the first fragment's header and handed back so that it goes through decode
//! again. Trackers time out (Suricata's `defrag.timeout`, 60 s), their number
//! (`defrag.trackers`), the fragments held (`defrag.max-frags`) and the memory they hold
//! (`defrag.memcap`) are capped for the whole run, as in Suricata: every worker's
//! defragmenter takes from the same [`SharedCaps`] budgets. Every refusal is counted.

use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::Arc;

use crate::budget::SharedCaps;

/// A fast multiply-rotate hasher for tracker keys (not DoS-resistant on its own; the
/// tracker count is capped, so a flood of colliding keys costs bounded work).
#[derive(Default)]
struct FragHasher(u64);

impl Hasher for FragHasher {
    fn finish(&self) -> u64 {
        let k = self.0 ^ (self.0 >> 29);
        k.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (k >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// The trackers by datagram: a table of slot numbers into a slab of trackers. The
/// table's rehashes (a fragment flood grows it to tens of thousands of datagrams and
/// churns it: sv-ether's IPv6 flood) move small entries, not whole trackers, and the
/// slab's emptied slots serve the next datagrams (no allocation per datagram).
#[derive(Default)]
struct FragMap {
    index: HashMap<FragKey, u32, BuildHasherDefault<FragHasher>>,
    slab: Vec<Tracker>,
    /// Emptied slab slots (their trackers hold no heap memory).
    free: Vec<u32>,
}

impl FragMap {
    fn len(&self) -> usize {
        self.index.len()
    }

    /// Room for `n` trackers without growing.
    fn reserve(&mut self, n: usize) {
        self.index.reserve(n);
        self.slab.reserve(n);
    }

    /// Trackers the table holds without growing.
    fn capacity(&self) -> usize {
        self.index.capacity()
    }

    #[cfg(test)]
    fn get(&self, k: &FragKey) -> Option<&Tracker> {
        self.index.get(k).map(|&i| &self.slab[i as usize])
    }

    #[cfg(test)]
    fn get_mut(&mut self, k: &FragKey) -> Option<&mut Tracker> {
        self.index.get(k).map(|&i| &mut self.slab[i as usize])
    }

    #[cfg(test)]
    fn contains_key(&self, k: &FragKey) -> bool {
        self.index.contains_key(k)
    }

    /// The slab slot of `k`'s tracker, when the table holds one.
    fn slot(&self, k: &FragKey) -> Option<u32> {
        self.index.get(k).copied()
    }

    /// The tracker in slot `i` (from [`FragMap::slot`] or [`FragMap::insert`]).
    fn at_mut(&mut self, i: u32) -> &mut Tracker {
        &mut self.slab[i as usize]
    }

    /// Adds `t` for `k`, which the table does not hold; returns its slot.
    fn insert(&mut self, k: FragKey, t: Tracker) -> u32 {
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = t;
                i
            }
            None => {
                // At most `defrag.trackers` (65,535 by default) at once: fits a u32.
                let i = u32::try_from(self.slab.len()).expect("tracker count fits u32");
                self.slab.push(t);
                i
            }
        };
        debug_assert!(!self.index.contains_key(&k));
        self.index.insert(k, i);
        i
    }

    fn remove(&mut self, k: &FragKey) -> Option<Tracker> {
        let i = self.index.remove(k)?;
        self.free.push(i);
        Some(std::mem::take(&mut self.slab[i as usize]))
    }

    /// Keeps the trackers `keep` says yes to; the others' slots are freed (`keep` may
    /// take what they hold).
    fn retain(&mut self, mut keep: impl FnMut(&FragKey, &mut Tracker) -> bool) {
        let (slab, free) = (&mut self.slab, &mut self.free);
        self.index.retain(|k, &mut i| {
            let t = &mut slab[i as usize];
            let kept = keep(k, t);
            if !kept {
                *t = Tracker::default();
                free.push(i);
            }
            kept
        });
    }

    #[cfg(test)]
    fn values(&self) -> impl Iterator<Item = &Tracker> {
        self.index.values().map(|&i| &self.slab[i as usize])
    }
}

use crate::key::Family;
use crate::reasm::OverlapPolicy;

/// Largest IP datagram (IPv4 total length / IPv6 payload + header).
const MAX_DATAGRAM: usize = 65535 + 40;

/// Identifies the datagram a fragment belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragKey {
    /// Source address (IPv4 in the first 4 bytes).
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// Identification (16 bits for IPv4, 32 for IPv6).
    pub id: u32,
    /// IPv4 protocol (IPv6: 0, the protocol is only known from the first fragment).
    pub proto: u8,
    /// Address family.
    pub family: Family,
    /// Outer VLAN id, 0 when absent.
    pub vlan: u16,
}

/// One fragment as decoded.
#[derive(Clone, Copy, Debug)]
pub struct Fragment<'a> {
    /// Which datagram.
    pub key: FragKey,
    /// Offset of `data` in the datagram's payload, in bytes.
    pub offset: u32,
    /// More-fragments flag.
    pub more: bool,
    /// Fragment payload (after the IPv4 header / the IPv6 fragment header).
    pub data: &'a [u8],
    /// Header to rebuild the datagram with, used from the fragment at offset 0: the IPv4
    /// header (options included), or for IPv6 the fixed header plus the extension
    /// headers before the fragment header.
    pub header: &'a [u8],
    /// IPv6 only: index in `header` of the next-header byte that named the fragment
    /// header, and the fragment header's own next-header value.
    pub v6_next: Option<(usize, u8)>,
    /// Capture time, microseconds.
    pub ts_us: u64,
}

/// Outcome of [`Defrag::insert`].
#[derive(Debug, PartialEq, Eq)]
pub enum DefragResult<'a> {
    /// Fragment stored; the datagram is not complete yet.
    Pending,
    /// The datagram is complete: its bytes (IP header with fixed lengths, flags and
    /// checksum, then the payload).
    Reassembled(&'a [u8]),
    /// The fragment was refused (see the counters for why).
    Dropped,
    /// The fragment was refused for want of memory or trackers (`defrag.memcap`,
    /// `defrag.trackers`): the `defrag.memcap-policy` applies to its packet.
    Memcap,
}

/// Defragmentation limits (Suricata's `defrag.*`).
#[derive(Clone, Copy, Debug)]
pub struct DefragConfig {
    /// Tracker idle timeout in seconds (`defrag.timeout`).
    pub timeout_secs: u32,
    /// Most trackers at once, every worker together (`defrag.trackers`).
    pub max_trackers: usize,
    /// Most fragments per datagram (a datagram with more is given up:
    /// `defrag.max_frag_hits`); bounds the work one datagram's overlap checks cost.
    pub max_frags: usize,
    /// Most fragments held at once, every worker together (`defrag.max-frags`); one
    /// more is refused and counted in `defrag.max_frag_hits`.
    pub max_held: usize,
    /// Memory cap in bytes, every worker together (`defrag.memcap`).
    pub memcap: usize,
    /// Overlap policy (`defrag.default-policy`, BSD by default).
    pub policy: OverlapPolicy,
    /// Tracker hash buckets (`defrag.hash-size`): the table starts with room for this
    /// many trackers per worker when `prealloc` is set, and grows on demand otherwise.
    pub hash_size: usize,
    /// `defrag.prealloc`: reserve the tracker table up front.
    pub prealloc: bool,
}

impl Default for DefragConfig {
    fn default() -> Self {
        DefragConfig {
            timeout_secs: 60,
            max_trackers: 65535,
            max_frags: 1024,
            max_held: 65535,
            memcap: 32 << 20,
            policy: OverlapPolicy::Bsd,
            hash_size: 65536,
            prealloc: false,
        }
    }
}

/// Defragmentation counters, per family where Suricata has them.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefragStats {
    /// Fragments seen (`defrag.ipv4.fragments`, `defrag.ipv6.fragments`).
    pub fragments: [u64; 2],
    /// Datagrams rebuilt (`defrag.ipv4.reassembled`, `defrag.ipv6.reassembled`).
    pub reassembled: [u64; 2],
    /// Fragments that overlapped another (`decoder.event.ipv4.frag_overlap`, ...ipv6...).
    pub overlap: [u64; 2],
    /// Datagrams that would exceed 65535 bytes (`decoder.event.ipv4.frag_pkt_too_large`;
    /// IPv6's under `osprey.defrag.ipv6.too_large`: the decoder already raised and
    /// counted `decoder.event.ipv6.frag_pkt_too_large` on the fragment itself).
    pub too_large: [u64; 2],
    /// Fragments refused for the fragment limits: more than `max_frags` in one
    /// datagram, or `max_held` held by the run (`defrag.max_frag_hits`).
    pub max_frag_hits: u64,
    /// Fragments refused by the memory cap or tracker limit (`defrag.memcap`... ours).
    pub memcap_drops: u64,
    /// Trackers dropped by timeout before completion.
    pub timeouts: u64,
}

/// Reassembly bytes a tracker holds inline (no allocation): enough for the small
/// datagrams fragmentation floods and scans are made of.
const INLINE_BUF: usize = 32;

#[derive(Default)]
struct Tracker {
    /// The datagram's payload as far as fragments placed it (inline while small).
    buf: SmallVec<[u8; INLINE_BUF]>,
    /// The fragments' ranges (inline while few: most datagrams have two).
    frags: SmallVec<[Range<u32>; 4]>,
    /// The first fragment's header (inline when it is at most 64 bytes).
    header: SmallVec<[u8; 64]>,
    v6_next: Option<(usize, u8)>,
    have_first: bool,
    /// Payload length, known once the last fragment was seen.
    total: Option<u32>,
    last_us: u64,
    /// The fragment slots the memory accounting charges (the list's own capacity may
    /// be larger when the tracker is reused).
    frag_slots: usize,
}

/// Most bytes of buffers kept in emptied trackers for reuse (trackers of datagrams
/// that completed, were dropped or timed out), so that a steady stream of fragments
/// does not allocate: the trackers a sweep expires serve the datagrams that follow.
const SPARE_BYTES: usize = 1 << 20;
/// A reused tracker keeps its reassembly buffer only up to this size.
const SPARE_BUF: usize = 16 << 10;

/// Emptied trackers kept for reuse, their buffers' total capacity bounded.
#[derive(Default)]
struct Spare {
    list: Vec<Tracker>,
    bytes: usize,
}

impl Spare {
    fn room(t: &Tracker) -> usize {
        t.buf.capacity() + t.header.capacity() + t.frags.capacity() * 8
    }

    /// An empty tracker, reused when one is kept.
    fn take(&mut self) -> Tracker {
        match self.list.pop() {
            Some(t) => {
                self.bytes -= Self::room(&t);
                t
            }
            None => Tracker::default(),
        }
    }

    /// Keeps `t`'s buffers for a later datagram, emptied (while there is room).
    fn put(&mut self, mut t: Tracker) {
        t.buf.clear();
        if t.buf.capacity() > SPARE_BUF {
            // Not kept at that size: the next datagram starts inline.
            t.buf = SmallVec::new();
        }
        let room = Self::room(&t);
        if self.bytes + room > SPARE_BYTES {
            return;
        }
        t.frags.clear();
        t.header.clear();
        t.v6_next = None;
        t.have_first = false;
        t.total = None;
        t.last_us = 0;
        t.frag_slots = 0;
        self.bytes += room;
        self.list.push(t);
    }
}

/// The defragmenter of one worker.
pub struct Defrag {
    cfg: DefragConfig,
    trackers: FragMap,
    out: Vec<u8>,
    memuse: usize,
    /// Fragments this defragmenter holds (taken from `shared.defrag_frags`).
    held: usize,
    /// Bytes of the tracker table reserved up front (`defrag.prealloc`).
    table_mem: usize,
    stats: DefragStats,
    /// The next fragment is refused as if the memory cap were reached.
    simulate_memcap: bool,
    /// Emptied trackers for reuse.
    spare: Spare,
    /// Scratch list of byte ranges (holes and completeness checks).
    ranges: Vec<(u32, u32)>,
    /// The run's budgets: memory, trackers and fragments of every worker.
    shared: Arc<SharedCaps>,
    /// `host-os-policy`: the policy of each datagram's destination.
    host_policy: std::sync::Arc<crate::host_policy::HostPolicy>,
    /// No tracker held was last touched before this capture time (a lower bound;
    /// `u64::MAX` when none is held): [`Defrag::expire`] returns at once while nothing
    /// can have timed out, so the periodic sweep does not walk a table of tens of
    /// thousands of trackers (sv-ether's IPv6 fragment flood) every time it runs.
    oldest_us: u64,
}

fn fam(f: Family) -> usize {
    match f {
        Family::V4 => 0,
        Family::V6 => 1,
    }
}

impl Defrag {
    /// A defragmenter with these limits, alone in its budgets.
    pub fn new(cfg: DefragConfig) -> Defrag {
        Defrag::with_shared(cfg, SharedCaps::new())
    }

    /// A defragmenter with these limits taking from the run's `shared` budgets
    /// (`defrag.memcap`, `defrag.trackers`, `defrag.max-frags` are for every worker
    /// together).
    pub fn with_shared(cfg: DefragConfig, shared: Arc<SharedCaps>) -> Defrag {
        let mut trackers = FragMap::default();
        let mut table_mem = 0;
        if cfg.prealloc {
            // Room for a worker's share of the trackers up front (at most 4096: the
            // table still grows on demand), counted against `defrag.memcap` as
            // Suricata counts its preallocated trackers.
            trackers.reserve(cfg.hash_size.min(cfg.max_trackers).min(4096));
            table_mem = trackers.capacity() * (std::mem::size_of::<(FragKey, Tracker)>() + 1);
            shared.defrag.adjust(table_mem as isize);
        }
        Defrag {
            table_mem,
            cfg,
            trackers,
            out: Vec::new(),
            memuse: 0,
            held: 0,
            stats: DefragStats::default(),
            simulate_memcap: false,
            spare: Spare::default(),
            ranges: Vec::new(),
            shared,
            host_policy: Default::default(),
            oldest_us: u64::MAX,
        }
    }

    /// Adds `delta` bytes to this defragmenter's memory and the run's.
    fn mem_adjust(&mut self, delta: isize) {
        self.memuse = self.memuse.saturating_add_signed(delta);
        self.shared.defrag.adjust(delta);
    }

    /// Gives back what a removed tracker held: its memory, its fragments, itself.
    fn release(&mut self, t: &Tracker) {
        self.mem_adjust(-(Self::tracker_mem(t) as isize));
        self.held -= t.frags.len();
        self.shared.defrag_frags.give(t.frags.len());
        self.shared.defrag_trackers.give(1);
    }

    /// Reassembles each datagram by its destination's `host-os-policy` (hosts the
    /// table does not list keep the configured policy).
    pub fn with_host_policy(
        mut self,
        table: std::sync::Arc<crate::host_policy::HostPolicy>,
    ) -> Defrag {
        self.host_policy = table;
        self
    }

    /// Refuses the next fragment as if the memory cap were reached (fault injection,
    /// like Suricata's `--simulate-packet-defrag-memcap`).
    pub fn simulate_memcap(&mut self) {
        self.simulate_memcap = true;
    }

    /// Counters.
    pub fn stats(&self) -> DefragStats {
        self.stats
    }

    /// Bytes held by pending fragments.
    pub fn memuse(&self) -> usize {
        self.memuse
    }

    /// Pending datagrams.
    pub fn pending(&self) -> usize {
        self.trackers.len()
    }

    /// The memory a tracker is charged: what its buffers would hold if they had been
    /// allocated for this datagram alone (reused buffers may have more room).
    fn tracker_mem(t: &Tracker) -> usize {
        t.buf.len() + t.header.len() + t.frag_slots * 8 + 64
    }

    fn remove(&mut self, key: &FragKey) {
        if let Some(t) = self.trackers.remove(key) {
            self.release(&t);
            self.spare.put(t);
        }
    }

    /// Drop every tracker idle past the timeout at `now_us`.
    pub fn expire(&mut self, now_us: u64) {
        let to = self.cfg.timeout_secs as u64 * 1_000_000;
        // Every tracker was touched at or after `oldest_us`: none is idle past the
        // timeout yet (this also answers an empty table).
        if now_us <= self.oldest_us.saturating_add(to) {
            return;
        }
        let before = self.trackers.len();
        let (mut freed, mut frags) = (0, 0);
        let mut oldest = u64::MAX;
        let spare = &mut self.spare;
        self.trackers.retain(|_, t| {
            let keep = now_us <= t.last_us.saturating_add(to);
            if keep {
                oldest = oldest.min(t.last_us);
            } else {
                freed += Self::tracker_mem(t);
                frags += t.frags.len();
                spare.put(std::mem::take(t));
            }
            keep
        });
        self.oldest_us = oldest;
        let gone = before - self.trackers.len();
        self.mem_adjust(-(freed as isize));
        self.held -= frags;
        self.shared.defrag_frags.give(frags);
        self.shared.defrag_trackers.give(gone);
        self.stats.timeouts += gone as u64;
    }

    /// A tracker for the datagram of `f`, which has none: its slot, or `None` when the
    /// tracker or memory budget refuses it (counted in `memcap_drops`).
    fn new_tracker(&mut self, f: &Fragment<'_>) -> Option<u32> {
        let caps = self.shared.clone();
        if caps.defrag_trackers.used() >= self.cfg.max_trackers {
            self.expire(f.ts_us);
        }
        if !caps.defrag_trackers.try_take(1, self.cfg.max_trackers) {
            self.stats.memcap_drops += 1;
            return None;
        }
        if !caps.defrag.try_take(64, self.cfg.memcap) {
            caps.defrag_trackers.give(1);
            self.stats.memcap_drops += 1;
            return None;
        }
        let fresh = self.spare.take();
        let i = self.trackers.insert(f.key, fresh);
        self.memuse += 64;
        Some(i)
    }

    /// Add a fragment; returns the rebuilt datagram when this fragment completes it.
    pub fn insert(&mut self, f: &Fragment<'_>) -> DefragResult<'_> {
        let fi = fam(f.key.family);
        self.stats.fragments[fi] += 1;
        if std::mem::take(&mut self.simulate_memcap) {
            self.stats.memcap_drops += 1;
            return DefragResult::Memcap;
        }
        let start = f.offset;
        let end = f.offset as u64 + f.data.len() as u64;
        // IPv4: total length (header of at least 20 bytes included) fits 16 bits; IPv6:
        // the payload after the fixed header does.
        let limit = match f.key.family {
            Family::V4 => 65535 - 20,
            Family::V6 => 65535,
        };
        if end > limit {
            self.stats.too_large[fi] += 1;
            return DefragResult::Dropped;
        }
        let end = end as u32;
        let to = self.cfg.timeout_secs as u64 * 1_000_000;
        // One lookup of the datagram's tracker (a flood's table is large: each lookup
        // of a new key is a cache miss); its slot stays valid below.
        let mut slot = self.trackers.slot(&f.key);
        if let Some(i) = slot {
            if f.ts_us > self.trackers.at_mut(i).last_us.saturating_add(to) {
                self.stats.timeouts += 1;
                self.remove(&f.key);
                slot = None;
            }
        }
        let slot = match slot {
            Some(i) => i,
            None => match self.new_tracker(f) {
                Some(i) => i,
                None => return DefragResult::Memcap,
            },
        };
        let policy = (self.host_policy)
            .defrag(f.key.family == Family::V4, &f.key.dst)
            .unwrap_or(self.cfg.policy);
        let max_frags = self.cfg.max_frags;
        let memcap = self.cfg.memcap;
        let caps = self.shared.clone();
        let t = self.trackers.at_mut(slot);
        let mem_before = Self::tracker_mem(t);
        t.last_us = t.last_us.max(f.ts_us);
        self.oldest_us = self.oldest_us.min(t.last_us);
        if t.frags.len() >= max_frags {
            self.stats.max_frag_hits += 1;
            self.remove(&f.key);
            return DefragResult::Dropped;
        }
        // A fragment whose every byte lies in held fragments that keep their bytes under
        // the policy adds nothing: Suricata 7.0.10 trims it away whole, so a "last"
        // fragment inside the data says nothing of the datagram's end (sv-ether's
        // fragments at 0 and 408, then a last one at 8 of 1 byte, are never rebuilt;
        // difftest `frag`). The overlap is still raised.
        if start < end && Self::swallowed(&mut self.ranges, &t.frags, policy, start..end) {
            self.stats.overlap[fi] += 1;
            return DefragResult::Pending;
        }
        // Worst-case growth of this insert: the buffer, the header copy, the list.
        let grow = (end as usize).saturating_sub(t.buf.len())
            + if t.have_first { 0 } else { f.header.len() }
            + if t.frags.len() == t.frag_slots {
                (t.frags.len() + 4) * 8
            } else {
                0
            };
        if !caps.defrag.try_take(grow, memcap) {
            self.stats.memcap_drops += 1;
            if t.frags.is_empty() {
                // The tracker made for this fragment holds nothing: not kept.
                self.remove(&f.key);
            }
            return DefragResult::Memcap;
        }
        let held = start < end;
        if held && !caps.defrag_frags.try_take(1, self.cfg.max_held) {
            caps.defrag.give(grow);
            self.stats.max_frag_hits += 1;
            self.remove(&f.key);
            return DefragResult::Dropped;
        }
        if (end as usize) > t.buf.len() {
            if t.buf.capacity() < end as usize {
                // At least double the room (up to the largest datagram): a large
                // datagram's fragments, arriving in order, grew it once each before.
                // The memory charged is the length, not the room (`tracker_mem`).
                let want = (end as usize).max((2 * t.buf.capacity()).min(limit as usize));
                t.buf.reserve_exact(want - t.buf.len());
            }
            t.buf.resize(end as usize, 0);
        }
        if !f.more {
            match t.total {
                // A second, different "last" fragment: keep the first one seen.
                Some(tot) if tot != end => {}
                _ => t.total = Some(end),
            }
        }
        if f.offset == 0 && !t.have_first {
            t.have_first = true;
            t.header.clear();
            if t.header.capacity() < f.header.len() {
                t.header.reserve_exact(f.header.len());
            }
            t.header.extend_from_slice(f.header);
            t.v6_next = f.v6_next;
        }
        // Place the fragment: holes get its bytes; overlaps follow the policy against
        // each held fragment's own boundaries.
        let new = start..end;
        let mut overlapped = false;
        for old in &t.frags {
            let (a, b) = (old.start.max(start), old.end.min(end));
            if a >= b {
                continue;
            }
            overlapped = true;
            if new_wins(policy, &new, old) {
                t.buf[a as usize..b as usize]
                    .copy_from_slice(&f.data[(a - start) as usize..(b - start) as usize]);
            }
        }
        // Holes inside the new range: the bytes no held fragment covers.
        let covered = &mut self.ranges;
        covered.clear();
        covered.extend(
            t.frags
                .iter()
                .filter(|o| o.start < end && o.end > start)
                .map(|o| (o.start.max(start), o.end.min(end))),
        );
        covered.sort_unstable();
        let mut pos = start;
        for (a, b) in covered.iter().copied().chain(std::iter::once((end, end))) {
            if a > pos {
                t.buf[pos as usize..a as usize]
                    .copy_from_slice(&f.data[(pos - start) as usize..(a - start) as usize]);
            }
            pos = pos.max(b);
        }
        if held {
            if t.frags.len() == t.frag_slots {
                t.frag_slots = 2 * t.frags.len() + 4;
                if t.frags.capacity() < t.frag_slots {
                    t.frags.reserve_exact(t.frag_slots - t.frags.len());
                }
            }
            t.frags.push(new);
            self.held += 1;
        }
        if overlapped {
            self.stats.overlap[fi] += 1;
        }
        let mem_after = Self::tracker_mem(t);
        // `grow` was taken from the run's budget; settle on what the insert really took.
        self.memuse = self.memuse + mem_after - mem_before;
        caps.defrag
            .adjust(mem_after as isize - mem_before as isize - grow as isize);
        // Complete?
        let Some(total) = t.total else {
            return DefragResult::Pending;
        };
        if !t.have_first {
            return DefragResult::Pending;
        }
        let ranges = &mut self.ranges;
        ranges.clear();
        ranges.extend(t.frags.iter().map(|r| (r.start, r.end)));
        ranges.sort_unstable();
        let mut reach = 0u32;
        for &(a, b) in ranges.iter() {
            if a > reach {
                break;
            }
            reach = reach.max(b);
        }
        if reach < total {
            return DefragResult::Pending;
        }
        let t = self.trackers.remove(&f.key).expect("present");
        self.release(&t);
        let built = self.rebuild(&t, f.key.family, total);
        self.spare.put(t);
        if !built {
            return DefragResult::Dropped;
        }
        self.stats.reassembled[fi] += 1;
        DefragResult::Reassembled(&self.out)
    }

    /// Whether the held fragments `frags` cover all of `new` and each that overlaps it
    /// keeps its bytes under `policy` (`ranges` is scratch room).
    fn swallowed(
        ranges: &mut Vec<(u32, u32)>,
        frags: &[Range<u32>],
        policy: OverlapPolicy,
        new: Range<u32>,
    ) -> bool {
        ranges.clear();
        for old in frags {
            let (a, b) = (old.start.max(new.start), old.end.min(new.end));
            if a >= b {
                continue;
            }
            if new_wins(policy, &new, old) {
                return false;
            }
            ranges.push((a, b));
        }
        ranges.sort_unstable();
        let mut reach = new.start;
        for &(a, b) in ranges.iter() {
            if a > reach {
                return false;
            }
            reach = reach.max(b);
        }
        reach >= new.end
    }

    /// Writes the datagram `t` completed into `self.out` (its header fixed up); false
    /// when it is refused (counted).
    fn rebuild(&mut self, t: &Tracker, family: Family, total: u32) -> bool {
        let fi = fam(family);
        let payload = &t.buf[..total as usize];
        let total_len = t.header.len() + payload.len();
        if total_len > MAX_DATAGRAM {
            self.stats.too_large[fi] += 1;
            return false;
        }
        self.out.clear();
        self.out.extend_from_slice(&t.header);
        self.out.extend_from_slice(payload);
        match family {
            Family::V4 => {
                if self.out.len() < 20 || total_len > 65535 {
                    self.stats.too_large[fi] += 1;
                    return false;
                }
                let h = &mut self.out;
                h[2..4].copy_from_slice(&(total_len as u16).to_be_bytes());
                // Keep DF, clear MF and the offset.
                h[6] &= 0x40;
                h[7] = 0;
                h[10] = 0;
                h[11] = 0;
                let ihl = ((h[0] & 0x0f) as usize * 4).clamp(20, t.header.len().max(20));
                let ck = ipv4_checksum(&h[..ihl.min(h.len())]);
                h[10..12].copy_from_slice(&ck.to_be_bytes());
            }
            Family::V6 => {
                if self.out.len() < 40 {
                    return false;
                }
                let plen = total_len - 40;
                if plen > 65535 {
                    self.stats.too_large[fi] += 1;
                    return false;
                }
                self.out[4..6].copy_from_slice(&(plen as u16).to_be_bytes());
                if let Some((pos, nh)) = t.v6_next {
                    if let Some(b) = self.out.get_mut(pos) {
                        *b = nh;
                    }
                }
            }
        }
        true
    }

    /// Counters under Suricata's names (ours under `osprey.`).
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let s = self.stats;
        [
            ("defrag.ipv4.fragments", s.fragments[0]),
            ("defrag.ipv4.reassembled", s.reassembled[0]),
            ("defrag.ipv6.fragments", s.fragments[1]),
            ("defrag.ipv6.reassembled", s.reassembled[1]),
            ("defrag.max_frag_hits", s.max_frag_hits),
            ("decoder.event.ipv4.frag_overlap", s.overlap[0]),
            ("decoder.event.ipv6.frag_overlap", s.overlap[1]),
            ("decoder.event.ipv4.frag_pkt_too_large", s.too_large[0]),
            // Not `decoder.event.ipv6.frag_pkt_too_large`: `wire`'s decoder raises that
            // on the fragment whose end passes 65535, so it would be counted twice
            // (sv-ether: 10 against Suricata 7.0.10's 5).
            ("osprey.defrag.ipv6.too_large", s.too_large[1]),
            ("osprey.defrag.memcap_drops", s.memcap_drops),
            ("osprey.defrag.timeouts", s.timeouts),
            (
                "osprey.defrag.memuse",
                (self.memuse + self.table_mem) as u64,
            ),
        ]
        .into_iter()
    }
}

/// A worker's defragmenter gives back to the run's budgets what it still holds.
impl Drop for Defrag {
    fn drop(&mut self) {
        self.shared.defrag.give(self.memuse + self.table_mem);
        self.shared.defrag_frags.give(self.held);
        self.shared.defrag_trackers.give(self.trackers.len());
    }
}

fn new_wins(p: OverlapPolicy, n: &Range<u32>, o: &Range<u32>) -> bool {
    let n = n.start as u64..n.end as u64;
    let o = o.start as u64..o.end as u64;
    p.new_wins(&n, &o)
}

/// RFC 1071 checksum of an IPv4 header whose checksum field is zero.
fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum = 0u32;
    for c in h.chunks(2) {
        sum += u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4key(id: u32) -> FragKey {
        let mut src = [0; 16];
        src[..4].copy_from_slice(&[10, 0, 0, 1]);
        let mut dst = [0; 16];
        dst[..4].copy_from_slice(&[10, 0, 0, 2]);
        FragKey {
            src,
            dst,
            id,
            proto: 17,
            family: Family::V4,
            vlan: 0,
        }
    }

    fn v4hdr() -> Vec<u8> {
        let mut h = vec![0x45, 0, 0, 0, 0x12, 0x34, 0x20, 0, 64, 17, 0, 0];
        h.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        h
    }

    fn frag<'a>(key: FragKey, off: u32, more: bool, data: &'a [u8], hdr: &'a [u8]) -> Fragment<'a> {
        Fragment {
            key,
            offset: off,
            more,
            data,
            header: hdr,
            v6_next: None,
            ts_us: 0,
        }
    }

    fn payload(r: DefragResult<'_>) -> Option<Vec<u8>> {
        match r {
            DefragResult::Reassembled(b) => Some(b.to_vec()),
            _ => None,
        }
    }

    #[test]
    fn in_and_out_of_order() {
        let h = v4hdr();
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let mut d = Defrag::new(DefragConfig::default());
            let parts: [(u32, bool, &[u8]); 3] = [
                (0, true, b"AAAAAAAA"),
                (8, true, b"BBBBBBBB"),
                (16, false, b"CC"),
            ];
            let mut got = None;
            for &i in &order {
                let (o, m, data) = parts[i];
                if let Some(p) = payload(d.insert(&frag(v4key(1), o, m, data, &h))) {
                    got = Some(p);
                }
            }
            let p = got.expect("complete");
            assert_eq!(&p[20..], b"AAAAAAAABBBBBBBBCC");
            assert_eq!(u16::from_be_bytes([p[2], p[3]]), 38);
            assert_eq!(p[6] & 0x3f, 0);
            assert_eq!(ipv4_checksum(&p[..20]), 0, "header checksum verifies");
            assert_eq!(d.stats().reassembled[0], 1);
            assert_eq!(d.pending(), 0);
            assert_eq!(d.memuse(), 0);
        }
    }

    #[test]
    fn trackers_are_reused_without_stale_bytes_or_memory() {
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig::default());
        // A datagram that never completes (its tail is longer than the next one's)
        // times out; its tracker is kept for the next datagram.
        assert_eq!(
            d.insert(&frag(v4key(1), 8, true, b"XXXXXXXXXXXXXXXX", &h)),
            DefragResult::Pending
        );
        let held = d.memuse();
        d.expire(200_000_000);
        assert_eq!((d.pending(), d.memuse()), (0, 0));
        assert_eq!(d.spare.list.len(), 1);
        assert_eq!(
            d.insert(&frag(v4key(2), 8, false, b"BB", &h)),
            DefragResult::Pending
        );
        assert_eq!(
            d.spare.list.len(),
            0,
            "the kept tracker serves the next datagram"
        );
        // Charged as a fresh tracker would be, not by the reused buffer's room.
        assert!(d.memuse() < held, "{} vs {held}", d.memuse());
        let p = payload(d.insert(&frag(v4key(2), 0, true, b"AAAAAAAA", &h))).expect("complete");
        assert_eq!(&p[20..], b"AAAAAAAABB");
        assert_eq!((d.pending(), d.memuse()), (0, 0));
        assert_eq!(d.spare.list.len(), 1);
    }

    #[test]
    fn tracker_slots_are_reused_after_datagrams_go() {
        let mut m = FragMap::default();
        let tracker = |us| Tracker {
            last_us: us,
            ..Tracker::default()
        };
        for id in 0..3 {
            m.insert(v4key(id), tracker(u64::from(id)));
        }
        assert_eq!(m.remove(&v4key(1)).map(|t| t.last_us), Some(1));
        assert!(m.remove(&v4key(1)).is_none() && !m.contains_key(&v4key(1)));
        // The freed slot takes the next datagram: the slab does not grow.
        m.insert(v4key(7), tracker(7));
        assert_eq!((m.len(), m.slab.len()), (3, 3));
        m.retain(|_, t| t.last_us != 0);
        assert!(m.get(&v4key(0)).is_none());
        m.get_mut(&v4key(7)).expect("held").last_us = 9;
        let mut held: Vec<u64> = m.values().map(|t| t.last_us).collect();
        held.sort_unstable();
        assert_eq!(held, [2, 9]);
        m.insert(v4key(8), tracker(8));
        m.insert(v4key(9), tracker(9));
        assert_eq!((m.len(), m.slab.len()), (4, 4));
    }

    #[test]
    fn expiry_skips_the_sweep_only_while_nothing_can_time_out() {
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig::default());
        let to = DefragConfig::default().timeout_secs as u64 * 1_000_000;
        let at = |key, ts_us| Fragment {
            ts_us,
            ..frag(key, 8, true, b"XXXXXXXX", &h)
        };
        // Three datagrams, the first touched again later: its age counts from then.
        assert_eq!(d.insert(&at(v4key(1), 1_000_000)), DefragResult::Pending);
        assert_eq!(d.insert(&at(v4key(2), 5_000_000)), DefragResult::Pending);
        assert_eq!(d.insert(&at(v4key(3), 9_000_000)), DefragResult::Pending);
        let more = Fragment {
            ts_us: 7_000_000,
            ..frag(v4key(1), 16, true, b"YYYYYYYY", &h)
        };
        assert_eq!(d.insert(&more), DefragResult::Pending);
        d.expire(to + 1_000_000);
        assert_eq!(d.pending(), 3, "none idle past the timeout");
        d.expire(to + 5_000_001);
        assert_eq!(d.pending(), 2, "only the second is idle past it");
        assert!(d.trackers.get(&v4key(2)).is_none());
        // Capture time going backwards expires nothing.
        d.expire(2_000_000);
        assert_eq!(d.pending(), 2);
        d.expire(to + 7_000_000);
        assert_eq!(d.pending(), 2, "the first was touched at 7 s");
        d.expire(to + 7_000_001);
        assert_eq!(d.pending(), 1);
        // A new datagram older than the one held (capture time went back) lowers the
        // bound: it is found idle past the timeout on time.
        assert_eq!(d.insert(&at(v4key(4), 3_000_000)), DefragResult::Pending);
        d.expire(to + 3_000_001);
        assert_eq!(d.pending(), 1);
        assert!(d.trackers.get(&v4key(4)).is_none());
        d.expire(to + 9_000_001);
        assert_eq!((d.pending(), d.memuse()), (0, 0));
        assert_eq!(d.stats().timeouts, 4);
        // Empty: the next datagram is held and expired as usual.
        assert_eq!(d.insert(&at(v4key(5), 100 * to)), DefragResult::Pending);
        d.expire(101 * to + 1);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn small_datagrams_are_held_inline_and_large_ones_spill() {
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig::default());
        // Thousands of small first fragments that never complete (a fragment flood):
        // their bytes and headers stay inside the trackers, no buffer per datagram.
        for id in 0..1000 {
            let r = d.insert(&frag(v4key(id), 0, true, b"0123456789abcd", &h));
            assert_eq!(r, DefragResult::Pending);
        }
        assert_eq!(d.pending(), 1000);
        assert!(d
            .trackers
            .values()
            .all(|t| !t.buf.spilled() && !t.header.spilled()));
        // A datagram past the inline room spills and still reassembles exactly.
        let big = vec![b'Z'; 3 * INLINE_BUF];
        assert_eq!(
            d.insert(&frag(v4key(5000), 0, true, &big, &h)),
            DefragResult::Pending
        );
        assert!(d.trackers.get(&v4key(5000)).expect("pending").buf.spilled());
        let p = payload(d.insert(&frag(v4key(5000), big.len() as u32, false, b"end", &h)))
            .expect("complete");
        assert_eq!(&p[20..20 + big.len()], &big[..]);
        assert_eq!(&p[20 + big.len()..], b"end");
        // Expired, the spilled buffer is kept for reuse (under the spare bounds).
        d.expire(200_000_000);
        assert_eq!((d.pending(), d.memuse()), (0, 0));
    }

    #[test]
    fn overlap_policies_on_fragments() {
        let h = v4hdr();
        let run = |p: OverlapPolicy| {
            let mut d = Defrag::new(DefragConfig {
                policy: p,
                ..Default::default()
            });
            d.insert(&frag(v4key(2), 8, true, b"BBBBBBBB", &h));
            d.insert(&frag(v4key(2), 0, true, b"xxxxxxxxxxxxxxxx", &h));
            let r = payload(d.insert(&frag(v4key(2), 16, false, b"CC", &h))).unwrap();
            assert_eq!(d.stats().overlap[0], 1);
            r[20..].to_vec()
        };
        assert_eq!(run(OverlapPolicy::First), b"xxxxxxxxBBBBBBBBCC");
        assert_eq!(run(OverlapPolicy::Last), b"xxxxxxxxxxxxxxxxCC");
        assert_eq!(run(OverlapPolicy::Bsd), b"xxxxxxxxxxxxxxxxCC");
    }

    #[test]
    fn teardrop_does_not_panic_or_complete_wrongly() {
        // Classic teardrop: second fragment lies inside the first and ends before it.
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig::default());
        assert_eq!(
            d.insert(&frag(v4key(3), 0, true, &[1; 36], &h)),
            DefragResult::Pending
        );
        // The last fragment lies inside the first, whose bytes win under BSD: trimmed
        // away whole, as Suricata 7.0.10 (its stats: no `defrag.ipv4.reassembled`), so
        // the datagram stays pending; the overlap is raised.
        assert_eq!(
            d.insert(&frag(v4key(3), 24, false, &[2; 4], &h)),
            DefragResult::Pending
        );
        assert_eq!(d.stats().overlap[0], 1);
        assert_eq!(d.stats().reassembled[0], 0);
        assert_eq!(d.pending(), 1);
        // The other order: the last fragment is held first, the datagram is 28 bytes.
        let mut d = Defrag::new(DefragConfig::default());
        assert_eq!(
            d.insert(&frag(v4key(3), 24, false, &[2; 4], &h)),
            DefragResult::Pending
        );
        let r = payload(d.insert(&frag(v4key(3), 0, true, &[1; 36], &h))).unwrap();
        assert_eq!(r.len(), 20 + 28);
        assert_eq!(
            &r[20 + 24..],
            &[1; 4],
            "the first fragment's bytes win (BSD)"
        );
        assert_eq!(d.stats().overlap[0], 1);
    }

    #[test]
    fn a_fragment_inside_winning_data_is_trimmed_away() {
        let h = vec![0x60; 40];
        let key = |id| FragKey {
            family: Family::V6,
            ..v4key(id)
        };
        // sv-ether's datagram: 0..408 and 408..808 held, then "last" 8..9 inside.
        let mut d = Defrag::new(DefragConfig::default());
        d.insert(&frag(key(1), 0, true, &[1; 408], &h));
        d.insert(&frag(key(1), 408, true, &[2; 400], &h));
        assert_eq!(
            d.insert(&frag(key(1), 8, false, &[3], &h)),
            DefragResult::Pending
        );
        assert_eq!(d.stats().overlap[1], 1);
        // Covered by two held fragments, but starting before the second: its bytes win
        // there under BSD, so it is kept and ends the datagram (Suricata 7.0.10 rebuilds
        // 0..16, 16..32, then "last" 8..20 too).
        d.insert(&frag(key(2), 0, true, &[1; 16], &h));
        d.insert(&frag(key(2), 16, true, &[1; 16], &h));
        let r = payload(d.insert(&frag(key(2), 8, false, &[3; 12], &h))).unwrap();
        assert_eq!(r.len(), 40 + 20);
        // Past the held data, or over a hole: kept, the datagram ends there.
        d.insert(&frag(key(3), 0, true, &[1; 16], &h));
        assert!(payload(d.insert(&frag(key(3), 8, false, &[3; 16], &h))).is_some());
        d.insert(&frag(key(4), 0, true, &[1; 8], &h));
        d.insert(&frag(key(4), 16, true, &[1; 8], &h));
        assert!(payload(d.insert(&frag(key(4), 8, false, &[3; 9], &h))).is_some());
        // Where the policy lets the new bytes win, the fragment counts.
        let mut d = Defrag::new(DefragConfig {
            policy: OverlapPolicy::Last,
            ..Default::default()
        });
        d.insert(&frag(key(5), 0, true, &[1; 16], &h));
        let r = payload(d.insert(&frag(key(5), 8, false, &[3], &h))).unwrap();
        assert_eq!(r.len(), 40 + 9);
    }

    #[test]
    fn ipv6_too_large_is_not_counted_again_as_the_decoder_event() {
        let mut key = v4key(6);
        key.family = Family::V6;
        let h = vec![0x60; 40];
        let mut d = Defrag::new(DefragConfig::default());
        assert_eq!(
            d.insert(&frag(key, 65528, false, &[0; 16], &h)),
            DefragResult::Dropped
        );
        assert_eq!(d.stats().too_large, [0, 1]);
        let counters: Vec<_> = d.counters().collect();
        let get = |name: &str| counters.iter().find(|(n, _)| *n == name).map(|c| c.1);
        assert_eq!(get("osprey.defrag.ipv6.too_large"), Some(1));
        assert_eq!(get("decoder.event.ipv6.frag_pkt_too_large"), None);
        assert_eq!(get("decoder.event.ipv4.frag_pkt_too_large"), Some(0));
    }

    #[test]
    fn too_large_and_limits() {
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig {
            max_frags: 2,
            ..Default::default()
        });
        assert_eq!(
            d.insert(&frag(v4key(4), 65528, false, &[0; 16], &h)),
            DefragResult::Dropped
        );
        assert_eq!(d.stats().too_large[0], 1);
        d.insert(&frag(v4key(5), 0, true, &[0; 8], &h));
        d.insert(&frag(v4key(5), 8, true, &[0; 8], &h));
        assert_eq!(
            d.insert(&frag(v4key(5), 16, true, &[0; 8], &h)),
            DefragResult::Dropped
        );
        assert_eq!(d.stats().max_frag_hits, 1);
        assert_eq!(d.pending(), 0);
        let mut d = Defrag::new(DefragConfig {
            memcap: 1000,
            ..Default::default()
        });
        d.insert(&frag(v4key(6), 0, true, &[0; 8], &h));
        assert_eq!(
            d.insert(&frag(v4key(6), 4000, true, &[0; 8], &h)),
            DefragResult::Memcap
        );
        assert_eq!(d.stats().memcap_drops, 1);
        // Simulated: the next fragment only.
        d.simulate_memcap();
        assert_eq!(
            d.insert(&frag(v4key(7), 0, true, &[0; 8], &h)),
            DefragResult::Memcap
        );
        assert_eq!(
            d.insert(&frag(v4key(7), 0, true, &[0; 8], &h)),
            DefragResult::Pending
        );
        assert_eq!(d.stats().memcap_drops, 2);
    }

    #[test]
    fn timeout_restarts_the_datagram() {
        let h = v4hdr();
        let mut d = Defrag::new(DefragConfig::default());
        d.insert(&frag(v4key(7), 0, true, b"AAAAAAAA", &h));
        let mut late = frag(v4key(7), 8, false, b"BB", &h);
        late.ts_us = 61_000_001;
        assert_eq!(d.insert(&late), DefragResult::Pending);
        assert_eq!(d.stats().timeouts, 1);
        d.expire(200_000_000);
        assert_eq!(d.pending(), 0);
        assert_eq!(d.memuse(), 0);
    }

    #[test]
    fn ipv6_header_is_fixed() {
        let mut key = v4key(9);
        key.family = Family::V6;
        // IPv6 header with next header = 44 (fragment) at byte 6.
        let mut h = vec![0x60, 0, 0, 0, 0, 0, 44, 64];
        h.extend_from_slice(&[0; 32]);
        let mut d = Defrag::new(DefragConfig::default());
        let mut a = frag(key, 0, true, b"12345678", &h);
        a.v6_next = Some((6, 17));
        d.insert(&a);
        let r = payload(d.insert(&frag(key, 8, false, b"9", &h))).unwrap();
        assert_eq!(r[6], 17);
        assert_eq!(u16::from_be_bytes([r[4], r[5]]), 9);
        assert_eq!(&r[40..], b"123456789");
        assert_eq!(d.stats().reassembled[1], 1);
    }
    #[test]
    fn limits_are_shared_by_every_worker() {
        let h = v4hdr();
        let caps = SharedCaps::new();
        let cfg = DefragConfig {
            max_trackers: 3,
            max_held: 4,
            ..Default::default()
        };
        let mut a = Defrag::with_shared(cfg, caps.clone());
        let mut b = Defrag::with_shared(cfg, caps.clone());
        // Two trackers in one worker, one in the other: the run's three.
        for id in [1, 2] {
            assert!(matches!(
                a.insert(&frag(v4key(id), 8, true, b"BBBBBBBB", &h)),
                DefragResult::Pending
            ));
        }
        assert!(matches!(
            b.insert(&frag(v4key(3), 8, true, b"BBBBBBBB", &h)),
            DefragResult::Pending
        ));
        assert_eq!(caps.defrag_trackers.used(), 3);
        assert!(matches!(
            b.insert(&frag(v4key(4), 8, true, b"BBBBBBBB", &h)),
            DefragResult::Memcap
        ));
        assert_eq!(b.stats().memcap_drops, 1);
        // A fourth fragment (the last of its datagram) is held; a fifth is one more
        // than `max-frags` allows.
        assert!(matches!(
            b.insert(&frag(v4key(3), 16, false, b"CCCCCCCC", &h)),
            DefragResult::Pending
        ));
        assert_eq!(caps.defrag_frags.used(), 4);
        assert!(matches!(
            a.insert(&frag(v4key(1), 16, true, b"CCCCCCCC", &h)),
            DefragResult::Dropped
        ));
        assert_eq!(a.stats().max_frag_hits, 1);
        // The datagram given up returned its tracker and fragment to the run.
        assert_eq!(caps.defrag_trackers.used(), 2);
        assert_eq!(caps.defrag_frags.used(), 3);
        // Completing a datagram returns what it held; so does a worker that ends.
        let p = payload(b.insert(&frag(v4key(3), 0, false, b"AAAAAAAA", &h)));
        assert_eq!(p.unwrap().len(), 20 + 24);
        assert_eq!(caps.defrag.used(), a.memuse());
        drop(a);
        assert_eq!(caps.defrag.used(), 0);
        assert_eq!(caps.defrag_trackers.used(), 0);
        assert_eq!(caps.defrag_frags.used(), 0);
        assert!(caps.defrag.peak() > 0);
    }

    #[test]
    fn memcap_is_shared_by_every_worker() {
        let h = v4hdr();
        let caps = SharedCaps::new();
        let cfg = DefragConfig {
            memcap: 3000,
            ..Default::default()
        };
        let mut a = Defrag::with_shared(cfg, caps.clone());
        let mut b = Defrag::with_shared(cfg, caps.clone());
        let data = [7u8; 1000];
        // Each first fragment at offset 1000 takes a 2,000-byte buffer.
        assert!(matches!(
            a.insert(&frag(v4key(1), 1000, true, &data, &h)),
            DefragResult::Pending
        ));
        assert!(caps.defrag.used() > 2000);
        assert!(matches!(
            b.insert(&frag(v4key(2), 1000, true, &data, &h)),
            DefragResult::Memcap
        ));
        assert_eq!(b.memuse(), 0, "nothing kept of a refused fragment");
        assert!(caps.defrag.used() <= 3000);
        drop(a);
        assert_eq!(caps.defrag.used(), 0);
        assert!(matches!(
            b.insert(&frag(v4key(2), 1000, true, &data, &h)),
            DefragResult::Pending
        ));
    }

    #[test]
    fn prealloc_is_counted_against_the_memcap() {
        let caps = SharedCaps::new();
        let cfg = DefragConfig {
            prealloc: true,
            hash_size: 64,
            ..Default::default()
        };
        let d = Defrag::with_shared(cfg, caps.clone());
        assert!(caps.defrag.used() >= 64 * std::mem::size_of::<FragKey>());
        let counted = d
            .counters()
            .find(|(n, _)| *n == "osprey.defrag.memuse")
            .unwrap()
            .1;
        assert_eq!(counted as usize, caps.defrag.used());
        drop(d);
        assert_eq!(caps.defrag.used(), 0);
    }
}

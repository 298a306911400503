//! Per-worker flow table (Haetae §4.1, §5): a hash table with separate chaining over
//! entries owned by one worker (no locks, no atomics). Entries are allocated as flows
//! come, up to the configured capacity, and reused through a free list.
//!
//! A flow whose timeout has passed is ended when its next packet looks it up (the
//! packet then starts a new flow), or by a sweep, the flow manager's job. A sweep visits
//! one of [`SWEEP_PARTS`] parts of the flows, chosen by the low bits of their key hash,
//! so the flows a sweep visits depend only on the flows themselves and the sweep's
//! number, not on the table's size or on which other flows share it: workers that split
//! the flows between them end the same flows at the same sweeps as one worker would.
//! Ended entries are not freed at once: they go to an *ended* queue so that the owner
//! can flush what the flow still holds (stream data that must be inspected on a
//! pseudo-packet, as Suricata does on flow timeout) and then [`FlowTable::release`]
//! them. When no entry is free, an emergency pass evicts idle entries under the
//! emergency timeouts, and failing that the least recently seen of a small sample; both
//! are counted.

use crate::budget::SharedCaps;
use crate::key::FlowKey;
use std::sync::Arc;

/// Slot index of an entry in the table (stable for the entry's life).
pub type Slot = u32;

const NIL: u32 = u32::MAX;

/// The number of parts a full sweep cycle visits, one part per sweep (a power of two).
pub const SWEEP_PARTS: usize = 64;

/// What the table needs to know about the value stored in each entry.
pub trait FlowValue: Default {
    /// Idle timeout of this flow in seconds, given its protocol and state.
    fn timeout_secs(&self, emergency: bool) -> u32;
}

/// One table entry: the canonical key, chain link, activity time and the value.
#[derive(Debug, Default)]
pub struct Entry<V> {
    /// Canonical key (see [`FlowKey::canonical`]).
    pub key: FlowKey,
    /// Low 32 bits of the key's hash (to skip key compares on the chain).
    hash: u32,
    /// Next entry in the bucket chain, or `NIL`.
    next: u32,
    /// Time of the last packet, microseconds.
    pub last_us: u64,
    /// The owner's per-flow data.
    pub value: V,
}

/// Result of [`FlowTable::lookup_or_insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The flow exists.
    Found(Slot),
    /// A new entry was created for the key.
    Inserted(Slot),
    /// No entry could be found or freed: the packet is not tracked (counted).
    Full,
}

/// Counters of the table.
#[derive(Debug, Default, Clone, Copy)]
pub struct TableStats {
    /// Entries ended because their timeout passed (lazy deletion or sweep).
    pub timeouts: u64,
    /// Times the table ran out of free entries and entered emergency mode.
    pub emerg_mode_entered: u64,
    /// Entries evicted in emergency mode.
    pub emergency_evicted: u64,
    /// Packets whose flow could not be created (table full).
    pub memcap: u64,
    /// Times emergency mode ended (`flow.emergency-recovery` reached).
    pub emerg_mode_over: u64,
}

/// A flow table of at most `capacity` entries.
pub struct FlowTable<V> {
    buckets: Vec<u32>,
    mask: u64,
    /// Entries allocated so far (grows up to `capacity`).
    entries: Vec<Entry<V>>,
    capacity: usize,
    /// State of each entry: 0 free, 1 linked, 2 ended (unlinked, waiting for release).
    /// Kept apart from the entries so that a sweep skips free slots reading one byte
    /// each (64 per cache line) instead of a whole entry.
    states: Vec<u8>,
    free: Vec<u32>,
    ended: Vec<u32>,
    /// Where [`FlowTable::order_ended`] sorts the ended queue (kept: no allocation per
    /// sweep once it has grown).
    order: Vec<(std::cmp::Reverse<u64>, u32, u32)>,
    active: usize,
    emergency: bool,
    hand: usize,
    stats: TableStats,
    /// The run's flow budget shared with the other workers' tables (in entries; the
    /// capacity is then the whole engine's), if any.
    shared: Option<Arc<SharedCaps>>,
    /// Percentage of the capacity that must be free again to end emergency mode.
    recovery: u8,
    /// Entries this table counts in the shared budget.
    budget_held: usize,
    /// Every flow was ended ([`FlowTable::end_all`]): released entries keep their
    /// share of the budget until the table is dropped, so that the flows this worker
    /// held at the end of the input are not handed to another worker still reading it
    /// (the flows held do not depend on the worker count).
    closing: bool,
}

impl<V: FlowValue> FlowTable<V> {
    /// A table with `capacity` preallocated entries and a power-of-two number of buckets
    /// no smaller than `buckets`.
    pub fn new(capacity: usize, buckets: usize) -> FlowTable<V> {
        let capacity = capacity.clamp(1, NIL as usize - 1);
        let nb = buckets.clamp(1, 1 << 31).next_power_of_two();
        FlowTable {
            buckets: vec![NIL; nb],
            mask: nb as u64 - 1,
            entries: Vec::new(),
            capacity,
            states: Vec::new(),
            free: Vec::new(),
            ended: Vec::new(),
            order: Vec::new(),
            active: 0,
            emergency: false,
            hand: 0,
            stats: TableStats::default(),
            shared: None,
            recovery: 10,
            budget_held: 0,
            closing: false,
        }
    }

    /// The same table counting its entries in the run's shared flow budget (`caps`,
    /// whose `flows` budget counts entries), so that the capacity is one for every
    /// worker's table together, and ending emergency mode once `recovery` percent of
    /// the capacity is free again (`flow.emergency-recovery`).
    pub fn with_shared(mut self, caps: Arc<SharedCaps>, recovery: u8) -> FlowTable<V> {
        self.shared = Some(caps);
        self.recovery = recovery.min(100);
        self
    }

    /// Entries in use by the whole engine (this table's when not shared).
    fn in_use(&self) -> usize {
        self.shared.as_ref().map_or(self.active, |c| c.flows.used())
    }

    /// Ends emergency mode once enough of the capacity is free again.
    fn check_recovery(&mut self) {
        if !self.emergency {
            return;
        }
        let free = self.capacity.saturating_sub(self.in_use());
        if free * 100 > self.capacity * self.recovery as usize {
            self.emergency = false;
            self.stats.emerg_mode_over += 1;
        }
    }

    /// Number of entries in use (linked or waiting for release).
    pub fn len(&self) -> usize {
        self.active
    }

    /// True when no entry is in use.
    pub fn is_empty(&self) -> bool {
        self.active == 0
    }

    /// Maximum number of entries.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The table's counters.
    pub fn stats(&self) -> TableStats {
        self.stats
    }

    /// True once [`FlowTable::end_all`] ended every flow (until the next new flow).
    pub fn closing(&self) -> bool {
        self.closing
    }

    /// True while the table is in emergency mode (short timeouts).
    pub fn emergency(&self) -> bool {
        self.emergency
    }

    /// The entry in `slot`.
    pub fn entry(&self, slot: Slot) -> &Entry<V> {
        &self.entries[slot as usize]
    }

    /// The entry in `slot`, mutable.
    pub fn entry_mut(&mut self, slot: Slot) -> &mut Entry<V> {
        &mut self.entries[slot as usize]
    }

    fn timed_out(&self, i: usize, now_us: u64) -> bool {
        let e = &self.entries[i];
        let t = e.value.timeout_secs(self.emergency) as u64 * 1_000_000;
        now_us > e.last_us.saturating_add(t)
    }

    /// Unlink entry `i` (whose predecessor in the chain is `prev`) and queue it as ended.
    fn unlink(&mut self, bucket: usize, prev: u32, i: u32) {
        let next = self.entries[i as usize].next;
        if prev == NIL {
            self.buckets[bucket] = next;
        } else {
            self.entries[prev as usize].next = next;
        }
        self.entries[i as usize].next = NIL;
        self.states[i as usize] = 2;
        self.ended.push(i);
    }

    /// Find the flow of `key` (canonical) or create it. Timed-out entries met on the
    /// chain are ended (including one with the same key: the packet then starts a new
    /// flow, as Suricata does). `hash` is [`FlowKey::hash`].
    pub fn lookup_or_insert(&mut self, key: &FlowKey, hash: u64, now_us: u64) -> Lookup {
        let b = (hash & self.mask) as usize;
        let h32 = hash as u32;
        let mut prev = NIL;
        let mut i = self.buckets[b];
        while i != NIL {
            let e = &self.entries[i as usize];
            if e.hash == h32 && e.key == *key {
                if !self.timed_out(i as usize, now_us) {
                    return Lookup::Found(i);
                }
                // Idle past its timeout: it ends, and this packet starts a new flow.
                self.stats.timeouts += 1;
                self.unlink(b, prev, i);
                break;
            }
            prev = i;
            i = e.next;
        }
        match self.alloc(now_us) {
            Some(slot) => {
                let e = &mut self.entries[slot as usize];
                e.key = *key;
                e.hash = h32;
                self.states[slot as usize] = 1;
                e.last_us = now_us;
                e.value = V::default();
                e.next = self.buckets[b];
                self.buckets[b] = slot;
                Lookup::Inserted(slot)
            }
            None => {
                self.stats.memcap += 1;
                Lookup::Full
            }
        }
    }

    /// Loads the bucket of `hash` and the head entry of its chain, so that a lookup
    /// soon after finds them in the cache. The loads are independent of each other
    /// across calls: a batch's lookups overlap their cache misses.
    pub fn prefetch(&self, hash: u64) {
        let head = self.buckets[(hash & self.mask) as usize];
        if let Some(e) = self.entries.get(head as usize) {
            std::hint::black_box(e.hash);
        }
    }

    /// Find the flow of `key` (canonical) without creating it or deleting anything.
    pub fn find(&self, key: &FlowKey, hash: u64) -> Option<Slot> {
        let mut i = self.buckets[(hash & self.mask) as usize];
        while i != NIL {
            let e = &self.entries[i as usize];
            if e.hash == hash as u32 && e.key == *key {
                return Some(i);
            }
            i = e.next;
        }
        None
    }

    fn alloc(&mut self, now_us: u64) -> Option<u32> {
        self.check_recovery();
        self.closing = false;
        let granted = self
            .shared
            .as_ref()
            .is_none_or(|c| c.flows.try_take(1, self.capacity));
        if granted {
            self.budget_held += self.shared.is_some() as usize;
            if let Some(s) = self.free.pop() {
                self.active += 1;
                return Some(s);
            }
            if self.entries.len() < self.capacity {
                self.entries.push(Entry::default());
                self.states.push(0);
                self.active += 1;
                return Some(self.entries.len() as u32 - 1);
            }
            if let Some(c) = &self.shared {
                c.flows.give(1);
                self.budget_held -= 1;
            }
        }
        if !self.emergency {
            self.emergency = true;
            self.stats.emerg_mode_entered += 1;
        }
        // Emergency: end linked entries that are idle under the emergency timeouts,
        // scanning a bounded window with a clock hand; otherwise the oldest in the window.
        let n = self.entries.len();
        let mut oldest: Option<(u64, usize)> = None;
        let mut evicted = 0;
        for _ in 0..n.min(256) {
            let i = self.hand;
            self.hand = (self.hand + 1) % n;
            if self.states[i] != 1 {
                continue;
            }
            if self.timed_out(i, now_us) {
                self.end_linked(i as u32);
                evicted += 1;
                if evicted >= 8 {
                    break;
                }
            } else if oldest.is_none_or(|(t, _)| self.entries[i].last_us < t) {
                oldest = Some((self.entries[i].last_us, i));
            }
        }
        if evicted == 0 {
            if let Some((_, i)) = oldest {
                self.end_linked(i as u32);
                evicted = 1;
            }
        }
        self.stats.emergency_evicted += evicted;
        // The evicted entries wait in `ended` for the owner to flush and release them,
        // so the packet that asked is not tracked this time.
        None
    }

    /// End a linked entry (find its predecessor in the chain, unlink, queue).
    fn end_linked(&mut self, slot: Slot) {
        // Buckets never exceed 2^31, so the stored low 32 bits of the hash pick it.
        let b = (self.entries[slot as usize].hash as u64 & self.mask) as usize;
        let mut prev = NIL;
        let mut i = self.buckets[b];
        while i != NIL && i != slot {
            prev = i;
            i = self.entries[i as usize].next;
        }
        if i == slot {
            self.unlink(b, prev, slot);
        }
    }

    /// End a flow now (e.g. closed by RST and the owner wants it gone).
    pub fn end(&mut self, slot: Slot) {
        if self.states.get(slot as usize) == Some(&1) {
            self.end_linked(slot);
        }
    }

    /// End every linked entry idle past its timeout at `now_us` among the flows of sweep
    /// part `part` (modulo [`SWEEP_PARTS`]): those whose key hash has `part` in its low
    /// bits. Calling it with parts 0, 1, 2, ... in turn visits every flow once per
    /// cycle, a small step each time (the flow manager's job). Returns how many were
    /// ended.
    pub fn sweep(&mut self, now_us: u64, part: usize) -> usize {
        let parts = SWEEP_PARTS as u64;
        let part = part as u64 % parts;
        let nb = self.mask + 1;
        // With at least SWEEP_PARTS buckets a part is every SWEEP_PARTS-th bucket; with
        // fewer, it shares one bucket with other parts.
        let (first, step) = if nb >= parts {
            (part, parts)
        } else {
            (part & self.mask, nb)
        };
        let mut ended = 0;
        let mut b = first;
        while b < nb {
            let mut prev = NIL;
            let mut i = self.buckets[b as usize];
            while i != NIL {
                let next = self.entries[i as usize].next;
                let ours = self.entries[i as usize].hash as u64 % parts == part;
                if ours && self.timed_out(i as usize, now_us) {
                    self.stats.timeouts += 1;
                    self.unlink(b as usize, prev, i);
                    ended += 1;
                } else {
                    prev = i;
                }
                i = next;
            }
            b += step;
        }
        self.order_ended();
        ended
    }

    /// Puts the ended queue in the order of the keys' hashes (the lowest taken first),
    /// so that the flows ended together are flushed in the same order whichever
    /// table, and however split, held them.
    fn order_ended(&mut self) {
        let entries = &self.entries;
        // Each key's hash once, then (hash, queue position, slot) sorted: the order
        // of a stable sort by hash, without its buffer (positions break ties as it
        // would, and are unique: slots are never compared).
        self.order.clear();
        self.order
            .extend(self.ended.iter().enumerate().map(|(i, &s)| {
                (
                    std::cmp::Reverse(entries[s as usize].key.hash()),
                    i as u32,
                    s,
                )
            }));
        self.order.sort_unstable();
        self.ended.clear();
        self.ended.extend(self.order.iter().map(|&(_, _, s)| s));
    }

    /// End every linked entry (end of capture).
    pub fn end_all(&mut self) {
        self.closing = true;
        for i in 0..self.entries.len() {
            if self.states[i] == 1 {
                self.end_linked(i as u32);
            }
        }
        self.order_ended();
    }

    /// Take the next ended entry, if any. The owner flushes it and then calls
    /// [`FlowTable::release`].
    pub fn pop_ended(&mut self) -> Option<Slot> {
        self.ended.pop()
    }

    /// True when ended entries wait for release.
    pub fn has_ended(&self) -> bool {
        !self.ended.is_empty()
    }

    /// Return an ended entry to the free list.
    pub fn release(&mut self, slot: Slot) {
        if self.states[slot as usize] == 2 {
            self.states[slot as usize] = 0;
            self.entries[slot as usize].value = V::default();
            self.active -= 1;
            self.free.push(slot);
            if let Some(c) = self.shared.as_ref().filter(|_| !self.closing) {
                c.flows.give(1);
                self.budget_held -= 1;
            }
            self.check_recovery();
        }
    }

    /// Bytes the table holds: its entries (allocated so far), their states and the
    /// buckets (Suricata's `flow.memuse`).
    pub fn memuse(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry<V>>()
            + self.states.capacity()
            + self.free.capacity() * 4
            + self.buckets.len() * 4
    }
}

impl<V> Drop for FlowTable<V> {
    fn drop(&mut self) {
        // Entries still in use go back to the shared budget with the table.
        // After `end_all` the input is over for this table: its share stays taken so
        // that the workers still reading it do not get more flows than one would.
        if let Some(c) = self.shared.as_ref().filter(|_| !self.closing) {
            c.flows.give(self.budget_held);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Debug)]
    struct V {
        t: u32,
    }
    impl FlowValue for V {
        fn timeout_secs(&self, emergency: bool) -> u32 {
            if emergency {
                1
            } else if self.t == 0 {
                30
            } else {
                self.t
            }
        }
    }

    fn key(i: u16) -> FlowKey {
        FlowKey::v4([10, 0, 0, 1], i, [10, 0, 0, 2], 80, 6)
            .canonical()
            .0
    }

    #[test]
    fn insert_find_and_symmetric_lookup() {
        let mut t: FlowTable<V> = FlowTable::new(16, 4);
        let k = FlowKey::v4([10, 0, 0, 1], 1000, [10, 0, 0, 2], 80, 6);
        let (c, _) = k.canonical();
        let s = match t.lookup_or_insert(&c, c.hash(), 0) {
            Lookup::Inserted(s) => s,
            o => panic!("{o:?}"),
        };
        let (c2, swapped) = k.reversed().canonical();
        assert!(swapped);
        assert_eq!(t.lookup_or_insert(&c2, c2.hash(), 1), Lookup::Found(s));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn lookup_ends_only_its_own_idle_flow() {
        // One bucket: every lookup walks every entry.
        let mut t: FlowTable<V> = FlowTable::new(8, 1);
        let a = key(1);
        let b = key(2);
        let sa = match t.lookup_or_insert(&a, a.hash(), 0) {
            Lookup::Inserted(s) => s,
            o => panic!("{o:?}"),
        };
        t.entry_mut(sa).value.t = 10;
        // 11 s later, looking up b leaves a alone (the sweeps' job) ...
        assert!(matches!(
            t.lookup_or_insert(&b, b.hash(), 11_000_001),
            Lookup::Inserted(_)
        ));
        assert_eq!(t.pop_ended(), None);
        assert_eq!(t.find(&a, a.hash()), Some(sa));
        // ... and a's own next packet ends it and starts a new flow.
        assert!(matches!(
            t.lookup_or_insert(&a, a.hash(), 11_000_002),
            Lookup::Inserted(s) if s != sa
        ));
        assert_eq!(t.pop_ended(), Some(sa));
        assert_eq!(t.stats().timeouts, 1);
        t.release(sa);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn same_key_after_timeout_is_a_new_flow() {
        let mut t: FlowTable<V> = FlowTable::new(8, 8);
        let a = key(1);
        let s = match t.lookup_or_insert(&a, a.hash(), 0) {
            Lookup::Inserted(s) => s,
            o => panic!("{o:?}"),
        };
        assert!(
            matches!(t.lookup_or_insert(&a, a.hash(), 31_000_000), Lookup::Inserted(n) if n != s)
        );
        assert_eq!(t.pop_ended(), Some(s));
    }

    #[test]
    fn emergency_eviction_is_counted_and_bounded() {
        let mut t: FlowTable<V> = FlowTable::new(4, 4);
        for i in 0..4 {
            let k = key(i);
            assert!(matches!(
                t.lookup_or_insert(&k, k.hash(), i as u64),
                Lookup::Inserted(_)
            ));
        }
        let k = key(100);
        assert_eq!(t.lookup_or_insert(&k, k.hash(), 10), Lookup::Full);
        assert!(t.emergency());
        assert_eq!(t.stats().emerg_mode_entered, 1);
        assert_eq!(t.stats().emergency_evicted, 1);
        // The oldest (key 0) was evicted and waits for release.
        let s = t.pop_ended().unwrap();
        assert_eq!(t.entry(s).key, key(0));
        t.release(s);
        assert!(matches!(
            t.lookup_or_insert(&k, k.hash(), 11),
            Lookup::Inserted(_)
        ));
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn shared_budget_caps_every_table_together_and_recovery_ends_emergency() {
        let caps = SharedCaps::new();
        let mut a: FlowTable<V> = FlowTable::new(10, 4).with_shared(caps.clone(), 30);
        let mut b: FlowTable<V> = FlowTable::new(10, 4).with_shared(caps.clone(), 30);
        for i in 0..6 {
            let k = key(i);
            assert!(matches!(
                a.lookup_or_insert(&k, k.hash(), 0),
                Lookup::Inserted(_)
            ));
        }
        for i in 6..10 {
            let k = key(i);
            assert!(matches!(
                b.lookup_or_insert(&k, k.hash(), 0),
                Lookup::Inserted(_)
            ));
        }
        assert_eq!(caps.flows.used(), 10);
        // The engine's ten entries are taken: b goes into emergency mode although it
        // holds only four.
        let k = key(50);
        assert_eq!(b.lookup_or_insert(&k, k.hash(), 1), Lookup::Full);
        assert!(b.emergency());
        assert_eq!(b.stats().emerg_mode_entered, 1);
        // One freed entry is not enough to recover (30 % must be free) ...
        let s = b.pop_ended().unwrap();
        b.release(s);
        assert!(b.emergency());
        // ... four are: emergency mode is over once a's entries go too.
        for _ in 0..3 {
            let i = (0..6).find(|&i| a.states[i] == 1).unwrap() as Slot;
            a.end(i);
            let s = a.pop_ended().unwrap();
            a.release(s);
        }
        assert!(matches!(
            b.lookup_or_insert(&k, k.hash(), 2),
            Lookup::Inserted(_)
        ));
        assert!(!b.emergency());
        assert_eq!(b.stats().emerg_mode_over, 1);
        drop(a);
        drop(b);
        assert_eq!(caps.flows.used(), 0);
    }

    #[test]
    fn a_sweep_cycle_visits_each_flow_once_whatever_the_table_size() {
        // The flows a sweep ends depend on their hashes, not on the table: three tables
        // of different sizes, each holding every other flow, end the same flows at the
        // same sweep numbers.
        let keys: Vec<FlowKey> = (0..500).map(key).collect();
        let ended_at = |buckets: usize, pick: &dyn Fn(usize) -> bool| {
            let mut t: FlowTable<V> = FlowTable::new(1000, buckets);
            let mut slots = std::collections::HashMap::new();
            for (i, k) in keys.iter().enumerate().filter(|(i, _)| pick(*i)) {
                match t.lookup_or_insert(k, k.hash(), 0) {
                    Lookup::Inserted(s) => slots.insert(s, i),
                    o => panic!("{o:?}"),
                };
            }
            let mut at = vec![usize::MAX; keys.len()];
            for part in 0..SWEEP_PARTS {
                t.sweep(31_000_000, part);
                while let Some(s) = t.pop_ended() {
                    at[slots[&s]] = part;
                    t.release(s);
                }
            }
            assert!(t.is_empty());
            at
        };
        let all = ended_at(4, &|_| true);
        let even = ended_at(1024, &|i| i % 2 == 0);
        let odd = ended_at(16, &|i| i % 2 == 1);
        for i in 0..keys.len() {
            let split = if i % 2 == 0 { even[i] } else { odd[i] };
            assert_eq!(all[i], split, "flow {i}");
            assert_eq!(all[i], keys[i].hash() as usize % SWEEP_PARTS);
        }
        // Flows not yet idle stay.
        let mut t: FlowTable<V> = FlowTable::new(16, 16);
        let k = key(1);
        t.lookup_or_insert(&k, k.hash(), 0);
        let ended: usize = (0..SWEEP_PARTS).map(|p| t.sweep(29_000_000, p)).sum();
        assert_eq!(ended, 0);
    }

    #[test]
    fn sweep_and_end_all() {
        let mut t: FlowTable<V> = FlowTable::new(64, 64);
        for i in 0..10 {
            let k = key(i);
            t.lookup_or_insert(&k, k.hash(), 0);
        }
        let sweep_all = |t: &mut FlowTable<V>, now| -> usize {
            (0..SWEEP_PARTS).map(|p| t.sweep(now, p)).sum()
        };
        assert_eq!(sweep_all(&mut t, 1_000_000), 0);
        assert_eq!(sweep_all(&mut t, 31_000_000), 10);
        let mut n = 0;
        while let Some(s) = t.pop_ended() {
            t.release(s);
            n += 1;
        }
        assert_eq!(n, 10);
        assert!(t.is_empty());
        for i in 0..5 {
            let k = key(i);
            t.lookup_or_insert(&k, k.hash(), 0);
        }
        t.end_all();
        while let Some(s) = t.pop_ended() {
            t.release(s);
        }
        assert!(t.is_empty());
    }

    #[test]
    fn ended_flows_are_taken_lowest_hash_first_without_a_sort_buffer_each_time() {
        let mut t: FlowTable<V> = FlowTable::new(256, 64);
        for round in 0..3u16 {
            for i in 0..50 {
                let k = key(round * 100 + i);
                t.lookup_or_insert(&k, k.hash(), 0);
            }
            t.end_all();
            let mut hashes = Vec::new();
            while let Some(s) = t.pop_ended() {
                hashes.push(t.entries[s as usize].key.hash());
                t.release(s);
            }
            assert_eq!(hashes.len(), 50);
            assert!(hashes.windows(2).all(|w| w[0] <= w[1]), "round {round}");
            assert!(t.order.capacity() >= 50, "the sort's room is kept");
        }
    }
}

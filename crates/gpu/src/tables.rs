//! Device-ready matcher tables: the AC-Full DFAs of every signature group in one array
//! ([`AcTables`]) and the regex DFAs in another ([`DfaSet`]), in the layout the kernels read.

use std::fmt;
use std::sync::OnceLock;

use mpm::{DfaTables, PatternStore, PlainDfa};

/// Width of a transition-table entry on the device. 16-bit entries halve the memory
/// traffic (Kargus §4.5: "almost doubles the throughput") and are used when every group's
/// states fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 16-bit state ids (at most 65,536 states per group).
    U16,
    /// 32-bit state ids.
    U32,
}

/// Per-group entry of the group table, as the kernels read it (a `uint4`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupInfo {
    /// Index of the group's first transition entry (its state 0, byte 0).
    pub trans_base: u32,
    /// First matching state of the group (states are local to the group).
    pub match_min: u32,
    /// Index in [`AcTables::out_offsets`] of the group's first matching state.
    pub outoff_base: u32,
    /// Longest pattern of the group (the chunk overlap of the packet-per-block kernel).
    pub max_len: u32,
}

/// Why tables could not be laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// A group has more states than 16-bit entries hold and 16 bits were asked for.
    TooManyStates {
        /// The group.
        group: usize,
        /// Its states.
        states: u32,
    },
    /// The concatenated tables do not fit 32-bit indices.
    TooLarge,
    /// A regex DFA has more states than the GPU takes.
    DfaTooLarge {
        /// Index of the DFA.
        dfa: usize,
        /// Its states.
        states: u32,
        /// The limit.
        limit: u32,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::TooManyStates { group, states } => {
                write!(
                    f,
                    "group {group} has {states} states, too many for 16-bit entries"
                )
            }
            TableError::TooLarge => f.write_str("tables too large for 32-bit indices"),
            TableError::DfaTooLarge { dfa, states, limit } => {
                write!(f, "regex DFA {dfa} has {states} states (limit {limit})")
            }
        }
    }
}

impl std::error::Error for TableError {}

/// The AC-Full DFAs of every signature group, concatenated.
///
/// Group `g`'s transition for local state `s` and byte `b` is
/// `trans[groups[g].trans_base + s * 256 + b]`; a state `s >= match_min` reports the
/// pattern indices `outputs[out_offsets[k]..out_offsets[k + 1]]` with
/// `k = outoff_base + s - match_min` (`out_offsets` values index the shared `outputs`).
/// Reported indices are local to the group; [`AcTables::store`] maps them to the caller's
/// pattern ids and checks case.
#[derive(Clone, Debug)]
pub struct AcTables {
    width: Width,
    trans16: Vec<u16>,
    trans32: Vec<u32>,
    groups: Vec<GroupInfo>,
    out_offsets: Vec<u32>,
    outputs: Vec<u32>,
    stores: Vec<PatternStore>,
    /// States of each group.
    states: Vec<u32>,
    /// Per group and BFS depth: (non-matching, matching) states, computed on first use
    /// by [`AcTables::hot_windows`].
    levels: OnceLock<Vec<Vec<(u32, u32)>>>,
    /// The hot group's states in hotness order, as their class (true: matching), when
    /// its table was renumbered hottest first ([`hot_first`]): the windows then follow it.
    ranking: Option<Vec<bool>>,
}

/// A group's automaton renumbered hottest first within each class (see [`hot_first`]).
#[derive(Clone, Debug)]
pub struct HotFirst {
    /// The renumbered automaton: the same matches, state ids permuted.
    pub tables: DfaTables,
    /// Its states in hotness order, as their class (true: matching), for
    /// [`AcTables::set_hot_ranking`].
    pub ranking: Vec<bool>,
}

/// Renumber `t` so that, within each class (non-matching, then matching: the kernels'
/// `s >= match_min` test is kept), states come in decreasing order of `visits` (lookups
/// counted in each state's row over sample traffic; ties keep the old order), the root
/// staying state 0. The `K` hottest states are then a prefix of each class, which is what
/// the hot-row kernels share: a profile-guided choice of the shared rows instead of the
/// shallowest ones. Every transition and output is carried over: matches are unchanged.
pub fn hot_first(t: &DfaTables, visits: &[u64]) -> HotFirst {
    let n = t.num_states as usize;
    let mm = t.match_min as usize;
    let v = |s: usize| visits.get(s).copied().unwrap_or(0);
    let mut plain: Vec<usize> = (1..mm.min(n)).collect();
    plain.sort_by_key(|&s| std::cmp::Reverse(v(s)));
    if mm > 0 {
        plain.insert(0, 0);
    }
    let mut matching: Vec<usize> = (mm..n).collect();
    matching.sort_by_key(|&s| std::cmp::Reverse(v(s)));
    let mut new_id = vec![0u32; n];
    for (i, &s) in plain.iter().chain(matching.iter()).enumerate() {
        new_id[s] = i as u32;
    }
    let mut transitions = vec![0u32; n * 256];
    for old in 0..n {
        let row = (new_id[old] as usize) << 8;
        for b in 0..256 {
            transitions[row + b] = new_id[t.transitions[(old << 8) + b] as usize];
        }
    }
    let mut out_offsets = Vec::with_capacity(matching.len() + 1);
    let mut outputs = Vec::with_capacity(t.outputs.len());
    out_offsets.push(0);
    for &s in &matching {
        outputs.extend_from_slice(t.outputs_of(s as u32));
        out_offsets.push(outputs.len() as u32);
    }
    // Hotness order over both classes, the root first (every walk starts there), ties:
    // plain first; as classes.
    let mut order: Vec<(u64, bool, u32)> = (0..n).map(|s| (v(s), s >= mm, new_id[s])).collect();
    order.sort_by_key(|&(vis, m, id)| (id != 0, std::cmp::Reverse(vis), m, id));
    HotFirst {
        tables: DfaTables {
            num_states: t.num_states,
            match_min: t.match_min,
            transitions,
            out_offsets,
            outputs,
            patterns: t.patterns.clone(),
        },
        ranking: order.into_iter().map(|(_, m, _)| m).collect(),
    }
}

/// The states a hot-row kernel (`kernels/ac.cu`, `ac_hot*`) keeps in shared memory: the
/// shallowest states of one group, as two windows of its state ids. States are numbered
/// non-matching first, then matching, each class in breadth-first order (`mpm`'s trie),
/// so the shallowest states of each class are a prefix of it: local states `[0, lo)` are
/// shared rows `[0, lo)`, states `[match_min, match_min + hi)` rows `[lo, lo + hi)`. Which
/// rows are shared changes where a lookup reads from, never its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HotWindows {
    /// The group whose rows are shared (other groups read global memory only).
    pub group: u32,
    /// Non-matching states from state 0.
    pub lo: u32,
    /// Matching states from the group's `match_min`.
    pub hi: u32,
}

impl HotWindows {
    /// A row index no state has.
    pub const NO_ROW: u32 = u32::MAX;

    /// Shared rows.
    pub fn rows(&self) -> u32 {
        self.lo + self.hi
    }

    /// The shared row of local state `s` of a group whose first matching state is
    /// `match_min`, or [`HotWindows::NO_ROW`] (the kernels' `hot_row`).
    #[inline]
    pub fn row(lo: u32, hi: u32, match_min: u32, s: u32) -> u32 {
        if s < lo {
            return s;
        }
        let m = s.wrapping_sub(match_min);
        if s >= match_min && m < hi {
            lo + m
        } else {
            Self::NO_ROW
        }
    }

    /// The local state of shared row `r` (the kernels' `row_state`).
    #[inline]
    pub fn state(lo: u32, match_min: u32, r: u32) -> u32 {
        if r < lo {
            r
        } else {
            match_min + (r - lo)
        }
    }
}

impl AcTables {
    /// Lay out `groups` (one [`DfaTables`] per signature group, indexed by group id) with
    /// 16-bit entries when every group fits, else 32-bit.
    pub fn new(groups: &[DfaTables]) -> Result<AcTables, TableError> {
        let fits = groups.iter().all(|g| g.num_states <= u16::MAX as u32 + 1);
        Self::with_width(groups, if fits { Width::U16 } else { Width::U32 })
    }

    /// Lay out `groups` with the given entry width.
    pub fn with_width(groups: &[DfaTables], width: Width) -> Result<AcTables, TableError> {
        let mut t = AcTables {
            width,
            trans16: Vec::new(),
            trans32: Vec::new(),
            groups: Vec::with_capacity(groups.len()),
            out_offsets: Vec::new(),
            outputs: Vec::new(),
            stores: Vec::with_capacity(groups.len()),
            states: Vec::with_capacity(groups.len()),
            levels: OnceLock::new(),
            ranking: None,
        };
        for (gi, g) in groups.iter().enumerate() {
            let base = match width {
                Width::U16 => t.trans16.len(),
                Width::U32 => t.trans32.len(),
            };
            let outoff_base = t.out_offsets.len();
            let out_base = t.outputs.len();
            let total = base + g.transitions.len();
            if total > u32::MAX as usize
                || outoff_base + g.out_offsets.len() > u32::MAX as usize
                || out_base + g.outputs.len() > u32::MAX as usize
            {
                return Err(TableError::TooLarge);
            }
            match width {
                Width::U16 => {
                    let narrow = g.transitions_u16().ok_or(TableError::TooManyStates {
                        group: gi,
                        states: g.num_states,
                    })?;
                    t.trans16.extend_from_slice(&narrow);
                }
                Width::U32 => t.trans32.extend_from_slice(&g.transitions),
            }
            t.out_offsets
                .extend(g.out_offsets.iter().map(|&o| o + out_base as u32));
            t.outputs.extend_from_slice(&g.outputs);
            let max_len = g.patterns.infos.iter().map(|p| p.len).max().unwrap_or(1);
            t.groups.push(GroupInfo {
                trans_base: base as u32,
                match_min: g.match_min,
                outoff_base: outoff_base as u32,
                max_len: max_len.max(1),
            });
            t.stores.push(g.patterns.clone());
            t.states.push(g.num_states);
        }
        Ok(t)
    }

    /// States of group `group` (0 for an unknown group).
    pub fn num_states(&self, group: usize) -> u32 {
        self.states.get(group).copied().unwrap_or(0)
    }

    /// Breadth-first depth of every local state of group `group` from state 0 (the length
    /// of the shortest input reaching it: its trie depth); `u32::MAX` for a state nothing
    /// reaches. Empty for an unknown group.
    pub fn depths(&self, group: usize) -> Vec<u32> {
        let (Some(g), Some(&n)) = (self.groups.get(group), self.states.get(group)) else {
            return Vec::new();
        };
        let mut depth = vec![u32::MAX; n as usize];
        if n == 0 {
            return depth;
        }
        let mut queue = std::collections::VecDeque::from([0u32]);
        depth[0] = 0;
        while let Some(s) = queue.pop_front() {
            let d = depth[s as usize] + 1;
            for b in 0..=255u8 {
                let t = self.next(g, s, b) as usize;
                if t < depth.len() && depth[t] == u32::MAX {
                    depth[t] = d;
                    queue.push_back(t as u32);
                }
            }
        }
        depth
    }

    /// The group a hot-row kernel shares the rows of: the one with the most states (the
    /// first of them), whose lookups miss the caches most.
    pub fn hot_group(&self) -> u32 {
        let mut best = 0;
        for (i, &n) in self.states.iter().enumerate() {
            if n > self.states[best] {
                best = i;
            }
        }
        best as u32
    }

    /// Declare the [`AcTables::hot_group`]'s states renumbered hottest first
    /// ([`hot_first`]'s `ranking`): [`AcTables::hot_windows`] then takes the hottest
    /// states instead of the shallowest. A ranking of another length is ignored.
    pub fn set_hot_ranking(&mut self, ranking: Vec<bool>) {
        if ranking.len() == self.num_states(self.hot_group() as usize) as usize {
            self.ranking = Some(ranking);
        }
    }

    /// The `rows` shallowest states of the [`AcTables::hot_group`] as [`HotWindows`]
    /// (fewer when the group has fewer states): whole BFS levels, then the next level's
    /// non-matching states before its matching ones; the `rows` hottest when the group
    /// was renumbered hottest first ([`AcTables::set_hot_ranking`]).
    pub fn hot_windows(&self, rows: u32) -> HotWindows {
        let group = self.hot_group();
        if rows == 0 {
            // Not a hot-row layout: no depth walk.
            return HotWindows {
                group,
                lo: 0,
                hi: 0,
            };
        }
        if let Some(r) = &self.ranking {
            let take = &r[..(rows as usize).min(r.len())];
            let hi = take.iter().filter(|&&m| m).count() as u32;
            return HotWindows {
                group,
                lo: take.len() as u32 - hi,
                hi,
            };
        }
        let levels = self.levels.get_or_init(|| {
            (0..self.groups.len())
                .map(|gi| {
                    let mm = self.groups[gi].match_min;
                    let mut lv: Vec<(u32, u32)> = Vec::new();
                    for (s, &d) in self.depths(gi).iter().enumerate() {
                        if d == u32::MAX {
                            continue;
                        }
                        if lv.len() <= d as usize {
                            lv.resize(d as usize + 1, (0, 0));
                        }
                        if (s as u32) < mm {
                            lv[d as usize].0 += 1;
                        } else {
                            lv[d as usize].1 += 1;
                        }
                    }
                    lv
                })
                .collect()
        });
        let mut w = HotWindows {
            group,
            lo: 0,
            hi: 0,
        };
        let Some(lv) = levels.get(group as usize) else {
            return w;
        };
        for &(plain, matching) in lv {
            let room = rows - w.rows();
            let take = plain.min(room);
            w.lo += take;
            w.hi += matching.min(room - take);
            if w.rows() == rows {
                break;
            }
        }
        w
    }

    /// The entry width.
    pub fn width(&self) -> Width {
        self.width
    }

    /// 16-bit transitions (empty unless [`Width::U16`]).
    pub fn trans16(&self) -> &[u16] {
        &self.trans16
    }

    /// 32-bit transitions (empty unless [`Width::U32`]).
    pub fn trans32(&self) -> &[u32] {
        &self.trans32
    }

    /// One entry per group.
    pub fn groups(&self) -> &[GroupInfo] {
        &self.groups
    }

    /// Output ranges of the matching states of every group (see the type docs).
    pub fn out_offsets(&self) -> &[u32] {
        &self.out_offsets
    }

    /// Reported pattern indices, local to their group.
    pub fn outputs(&self) -> &[u32] {
        &self.outputs
    }

    /// Pattern ids and case-check data of group `group`.
    pub fn store(&self, group: usize) -> &PatternStore {
        &self.stores[group]
    }

    /// Number of groups.
    pub fn num_groups(&self) -> usize {
        self.groups.len()
    }

    /// Next state of group `g` from local state `s` on byte `b`.
    #[inline]
    pub(crate) fn next(&self, g: &GroupInfo, s: u32, b: u8) -> u32 {
        let i = g.trans_base as usize + ((s as usize) << 8) + b as usize;
        match self.width {
            Width::U16 => self.trans16[i] as u32,
            Width::U32 => self.trans32[i],
        }
    }

    /// Pattern indices reported by local state `s` of group `g` (`s >= match_min`).
    #[inline]
    pub(crate) fn outputs_of(&self, g: &GroupInfo, s: u32) -> &[u32] {
        let k = (g.outoff_base + s - g.match_min) as usize;
        &self.outputs[self.out_offsets[k] as usize..self.out_offsets[k + 1] as usize]
    }

    /// Device bytes of the tables.
    pub fn device_bytes(&self) -> usize {
        self.trans16.len() * 2
            + self.trans32.len() * 4
            + self.groups.len() * std::mem::size_of::<GroupInfo>()
            + (self.out_offsets.len() + self.outputs.len()) * 4
    }
}

/// Per-DFA entry of the regex DFA table, as the kernel reads it (a `uint4`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DfaInfo {
    /// Index of the DFA's first transition entry.
    pub trans_base: u32,
    /// Index of the DFA's first flag byte.
    pub flags_base: u32,
    /// Start state (local).
    pub start: u32,
    /// Number of states.
    pub num_states: u32,
}

/// Regex DFAs (PCRE as DFA, Kargus §4.5) concatenated, 16-bit entries, local state ids.
#[derive(Clone, Debug, Default)]
pub struct DfaSet {
    trans: Vec<u16>,
    flags: Vec<u8>,
    info: Vec<DfaInfo>,
}

impl DfaSet {
    /// Kargus's limit: regexes whose DFA has fewer states run on the GPU, the rest on the CPU.
    pub const DEFAULT_MAX_STATES: u32 = 5_000;

    /// Lay out `dfas` (indexed by DFA id); every DFA must have at most `max_states` states
    /// (at most 65,536: entries are 16-bit).
    pub fn new(dfas: &[PlainDfa], max_states: u32) -> Result<DfaSet, TableError> {
        let limit = max_states.min(u16::MAX as u32 + 1);
        let mut set = DfaSet::default();
        for (i, d) in dfas.iter().enumerate() {
            if d.num_states() > limit {
                return Err(TableError::DfaTooLarge {
                    dfa: i,
                    states: d.num_states(),
                    limit,
                });
            }
            if set.trans.len() + d.transitions().len() > u32::MAX as usize {
                return Err(TableError::TooLarge);
            }
            set.info.push(DfaInfo {
                trans_base: set.trans.len() as u32,
                flags_base: set.flags.len() as u32,
                start: d.start(),
                num_states: d.num_states(),
            });
            set.trans.extend(d.transitions().iter().map(|&s| s as u16));
            set.flags.extend_from_slice(d.flags());
        }
        Ok(set)
    }

    /// Transitions of every DFA.
    pub fn trans(&self) -> &[u16] {
        &self.trans
    }

    /// Flag bytes of every DFA ([`PlainDfa::MATCH`], ...).
    pub fn flags(&self) -> &[u8] {
        &self.flags
    }

    /// One entry per DFA.
    pub fn info(&self) -> &[DfaInfo] {
        &self.info
    }

    /// Number of DFAs.
    pub fn len(&self) -> usize {
        self.info.len()
    }

    /// True when the set holds no DFA.
    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpm::{Limits, Pattern};

    #[test]
    fn groups_are_concatenated() {
        let a = DfaTables::build(&[Pattern::new(&b"abc"[..], 1)], &Limits::default()).unwrap();
        let b = DfaTables::build(
            &[Pattern::new(&b"xy"[..], 2), Pattern::nocase(&b"Q"[..], 3)],
            &Limits::default(),
        )
        .unwrap();
        let t = AcTables::new(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(t.width(), Width::U16);
        assert_eq!(t.groups()[1].trans_base, a.num_states * 256);
        assert_eq!(t.groups()[0].max_len, 3);
        assert_eq!(t.groups()[1].max_len, 2);
        let g = t.groups()[1];
        for s in 0..b.num_states {
            for byte in 0..=255u8 {
                assert_eq!(
                    t.next(&g, s, byte),
                    b.transitions[s as usize * 256 + byte as usize]
                );
            }
            if s >= b.match_min {
                assert_eq!(t.outputs_of(&g, s), b.outputs_of(s));
            }
        }
        let w = AcTables::with_width(&[a, b], Width::U32).unwrap();
        assert_eq!(w.trans32().len(), t.trans16().len());
    }

    #[test]
    fn hot_windows_are_the_shallowest_states_of_the_largest_group() {
        // "a" and "ab" match; "xyz" leaves two non-matching states ("x", "xy").
        let small = DfaTables::build(&[Pattern::new(&b"q"[..], 9)], &Limits::default()).unwrap();
        let big = DfaTables::build(
            &[
                Pattern::new(&b"a"[..], 1),
                Pattern::new(&b"ab"[..], 2),
                Pattern::new(&b"xyz"[..], 3),
            ],
            &Limits::default(),
        )
        .unwrap();
        let t = AcTables::new(&[small, big.clone()]).unwrap();
        assert_eq!(t.hot_group(), 1);
        assert_eq!(t.num_states(1), 6);
        let d = t.depths(1);
        // Root, "x", "xy" (non-matching), then "a", "xyz", "ab" ... by depth per class.
        assert_eq!(d.len(), 6);
        assert_eq!(d[0], 0);
        for s in 1..6 {
            assert!(d[s] >= 1 && d[s] <= 3, "{d:?}");
        }
        let mm = big.match_min;
        assert_eq!(mm, 3);
        // Depth 0: the root; depth 1: "x" (plain) and "a" (matching).
        assert_eq!(
            t.hot_windows(1),
            HotWindows {
                group: 1,
                lo: 1,
                hi: 0
            }
        );
        assert_eq!(
            t.hot_windows(2),
            HotWindows {
                group: 1,
                lo: 2,
                hi: 0
            }
        );
        assert_eq!(
            t.hot_windows(3),
            HotWindows {
                group: 1,
                lo: 2,
                hi: 1
            }
        );
        assert_eq!(t.hot_windows(100).rows(), 6);
        // Every state inside the windows is one of the shallowest.
        let w = t.hot_windows(3);
        let mut inside: Vec<u32> = (0..6)
            .filter(|&s| HotWindows::row(w.lo, w.hi, mm, s) != HotWindows::NO_ROW)
            .map(|s| d[s as usize])
            .collect();
        inside.sort();
        assert_eq!(inside, vec![0, 1, 1]);
        for r in 0..w.rows() {
            let s = HotWindows::state(w.lo, mm, r);
            assert_eq!(HotWindows::row(w.lo, w.hi, mm, s), r);
        }
        assert_eq!(HotWindows::row(w.lo, w.hi, mm, 5), HotWindows::NO_ROW);
    }

    #[test]
    fn hot_first_keeps_every_transition_and_output_and_shares_the_hottest() {
        let pats = [
            Pattern::new(&b"ab"[..], 1),
            Pattern::new(&b"b"[..], 2),
            Pattern::nocase(&b"abcab"[..], 3),
            Pattern::new(&b"zzz"[..], 4),
        ];
        let t = DfaTables::build(&pats, &Limits::default()).unwrap();
        // Visits: the deepest states hottest.
        let visits: Vec<u64> = (0..t.num_states as u64).map(|s| s * s).collect();
        let h = hot_first(&t, &visits);
        assert_eq!(h.tables.match_min, t.match_min);
        // The same matches on every input (walked in both numberings).
        let walk = |d: &DfaTables, hay: &[u8]| {
            let mut s = 0u32;
            let mut out = Vec::new();
            for (i, &b) in hay.iter().enumerate() {
                s = d.transitions[((s as usize) << 8) + b as usize];
                for &o in d.outputs_of(s) {
                    out.push((i, o));
                }
            }
            out
        };
        for hay in [&b"abcabcABCABb zzzz ab"[..], b"bbbb", b"", b"zzabzzz"] {
            assert_eq!(walk(&h.tables, hay), walk(&t, hay));
        }
        // The root stays 0; the hottest plain state (the deepest) comes right after it.
        assert_eq!(h.ranking.len(), t.num_states as usize);
        let mut a = AcTables::new(std::slice::from_ref(&h.tables)).unwrap();
        let before = a.hot_windows(2);
        a.set_hot_ranking(h.ranking.clone());
        let w = a.hot_windows(2);
        assert_eq!(w.rows(), 2);
        // The hottest state overall is matching (the last one): ranked first after the root.
        assert_eq!((w.lo, w.hi), (1, 1));
        assert_ne!(w, before);
        // A ranking of the wrong length is ignored.
        let mut b = AcTables::new(&[h.tables]).unwrap();
        b.set_hot_ranking(vec![false; 3]);
        assert_eq!(b.hot_windows(2), before);
    }

    #[test]
    fn dfa_limit_is_enforced() {
        let d = PlainDfa::new(3, 0, vec![0; 3 * 256], vec![0; 3]).unwrap();
        assert!(DfaSet::new(std::slice::from_ref(&d), 3).is_ok());
        assert_eq!(
            DfaSet::new(&[d.clone(), d], 2).unwrap_err(),
            TableError::DfaTooLarge {
                dfa: 0,
                states: 3,
                limit: 2
            }
        );
    }
}

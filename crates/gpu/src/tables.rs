//! Device-ready matcher tables: the AC-Full DFAs of every signature group in one array
//! ([`AcTables`]) and the regex DFAs in another ([`DfaSet`]), in the layout the kernels read.

use std::fmt;

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
        }
        Ok(t)
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

//! Full-DFA tables (AC-Full, Kargus §4.5, MIDeA §3.2.2): 256 next-state entries per state,
//! case folding baked into the rows, matching states numbered last.

use crate::pattern::{Pattern, PatternStore, FOLD};
use crate::trie::Nfa;
use crate::{BuildError, Limits};

/// How a state id is stored in a table entry.
pub(crate) trait StateRepr: Copy + Default {
    /// Largest state id this representation holds.
    const MAX_ID: u64;
    /// Encode a state id.
    fn encode(id: u32) -> Self;
    /// The raw entry value, compared against the encoded first matching state.
    fn raw(self) -> usize;
    /// Offset of this state's row in the table.
    fn row(self) -> usize;
    /// The state id.
    fn id(self) -> u32;
}

impl StateRepr for u16 {
    const MAX_ID: u64 = u16::MAX as u64;
    #[inline(always)]
    fn encode(id: u32) -> Self {
        id as u16
    }
    #[inline(always)]
    fn raw(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn row(self) -> usize {
        (self as usize) << 8
    }
    #[inline(always)]
    fn id(self) -> u32 {
        self as u32
    }
}

/// A 32-bit state id premultiplied by 256: the entry is the offset of the next row.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Premul32(u32);

impl StateRepr for Premul32 {
    const MAX_ID: u64 = (u32::MAX >> 8) as u64;
    #[inline(always)]
    fn encode(id: u32) -> Self {
        Premul32(id << 8)
    }
    #[inline(always)]
    fn raw(self) -> usize {
        self.0 as usize
    }
    #[inline(always)]
    fn row(self) -> usize {
        self.0 as usize
    }
    #[inline(always)]
    fn id(self) -> u32 {
        self.0 >> 8
    }
}

impl StateRepr for u32 {
    const MAX_ID: u64 = u32::MAX as u64;
    #[inline(always)]
    fn encode(id: u32) -> Self {
        id
    }
    #[inline(always)]
    fn raw(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn row(self) -> usize {
        (self as usize) << 8
    }
    #[inline(always)]
    fn id(self) -> u32 {
        self
    }
}

/// Fill the full transition table of `nfa` (`num_states * 256` entries), after checking
/// that it fits `S` and the memory limit.
pub(crate) fn fill<S: StateRepr>(nfa: &Nfa, limits: &Limits) -> Result<Vec<S>, BuildError> {
    let n = nfa.num_states();
    if n as u64 > S::MAX_ID + 1 {
        return Err(BuildError::TooManyStates {
            states: n,
            limit: (S::MAX_ID + 1) as usize,
        });
    }
    let bytes = n.saturating_mul(256 * std::mem::size_of::<S>());
    if bytes > limits.memory {
        return Err(BuildError::TooLarge {
            bytes,
            limit: limits.memory,
        });
    }
    let mut table = vec![S::default(); n * 256];
    for &u in &nfa.bfs {
        let u = u as usize;
        let base = u << 8;
        if u != 0 {
            // Start from the failure target's row (already complete: BFS order).
            let f = (nfa.fail[u] as usize) << 8;
            table.copy_within(f..f + 256, base);
        }
        for &(c, v) in &nfa.gotos[u] {
            table[base + c as usize] = S::encode(v);
        }
        // Case folding: an upper-case byte moves like its lower-case form.
        for b in b'A'..=b'Z' {
            table[base + b as usize] = table[base + FOLD[b as usize] as usize];
        }
    }
    Ok(table)
}

/// Plain full-DFA tables for consumers outside this crate (the GPU backend): state ids are
/// plain `u32` (not premultiplied), the start state is 0, the input byte indexes the row
/// directly (case folding is in the table), and states `>= match_min` report the patterns
/// listed for them. A reported pattern still needs its case check
/// ([`PatternStore::confirm`]) before it counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DfaTables {
    /// Number of states.
    pub num_states: u32,
    /// First matching state; every state from here to `num_states - 1` reports.
    pub match_min: u32,
    /// `transitions[s * 256 + byte]` is the next state.
    pub transitions: Vec<u32>,
    /// For matching state `s`: `outputs[out_offsets[s - match_min] as usize..out_offsets[s - match_min + 1] as usize]`.
    pub out_offsets: Vec<u32>,
    /// Pattern indices (positions in the pattern list given to [`DfaTables::build`]).
    pub outputs: Vec<u32>,
    /// Id, length and case-check data of every pattern, by index.
    pub patterns: PatternStore,
}

impl DfaTables {
    /// Build the tables for `patterns` within `limits`.
    pub fn build(patterns: &[Pattern], limits: &Limits) -> Result<DfaTables, BuildError> {
        let nfa = Nfa::build(patterns, limits)?;
        let transitions = fill::<u32>(&nfa, limits)?;
        Ok(DfaTables {
            num_states: nfa.num_states() as u32,
            match_min: nfa.match_min,
            transitions,
            out_offsets: nfa.out_offsets,
            outputs: nfa.outputs,
            patterns: PatternStore::new(patterns),
        })
    }

    /// The transition table with 16-bit entries, if every state id fits.
    pub fn transitions_u16(&self) -> Option<Vec<u16>> {
        if self.num_states > u16::MAX as u32 + 1 {
            return None;
        }
        Some(self.transitions.iter().map(|&s| s as u16).collect())
    }

    /// The pattern indices reported in `state` (empty for a non-matching state).
    pub fn outputs_of(&self, state: u32) -> &[u32] {
        if state < self.match_min || state >= self.num_states {
            return &[];
        }
        let k = (state - self.match_min) as usize;
        &self.outputs[self.out_offsets[k] as usize..self.out_offsets[k + 1] as usize]
    }

    /// Heap bytes used by the tables.
    pub fn memory_usage(&self) -> usize {
        self.transitions.capacity() * 4
            + self.out_offsets.capacity() * 4
            + self.outputs.capacity() * 4
            + self.patterns.memory_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    #[test]
    fn tables_walk_like_the_matcher() {
        let pats = vec![
            Pattern::new(&b"he"[..], 10),
            Pattern::nocase(&b"SHE"[..], 11),
            Pattern::new(&b"hers"[..], 12),
        ];
        let t = DfaTables::build(&pats, &Limits::default()).unwrap();
        assert!(t.transitions_u16().is_some());
        let hay = b"uSHErs hers";
        let mut s = 0u32;
        let mut got = Vec::new();
        for (i, &b) in hay.iter().enumerate() {
            s = t.transitions[s as usize * 256 + b as usize];
            for &p in t.outputs_of(s) {
                if t.patterns.confirm(p as usize, hay, i + 1) {
                    got.push(crate::Match {
                        pattern: t.patterns.infos[p as usize].id,
                        end: i + 1,
                    });
                }
            }
        }
        let mut want = naive::find_all(&pats, hay);
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }
}

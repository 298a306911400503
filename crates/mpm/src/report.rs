//! Turning a matching state into match reports: each matching state has a flat list of the
//! patterns it reports, with the pattern's id and case-check data inline so reporting one
//! match is one sequential read (most real matches are runs of `|00|` patterns over zero
//! bytes, so this path is as hot as the automaton walk).

use crate::pattern::{PatternInfo, PatternStore};
use crate::trie::Nfa;
use crate::Match;

/// The output lists of the matching states of one automaton.
#[derive(Clone, Debug)]
pub(crate) struct Reporter {
    /// First matching state id.
    match_min: u32,
    /// `entries[offsets[k]..offsets[k + 1]]` for state `match_min + k`.
    offsets: Vec<u32>,
    /// Reported patterns.
    entries: Vec<PatternInfo>,
    /// Exact bytes for case checks.
    exact: Vec<u8>,
}

impl Reporter {
    pub fn new(nfa: &Nfa, store: &PatternStore) -> Self {
        Reporter {
            match_min: nfa.match_min,
            offsets: nfa.out_offsets.clone(),
            entries: nfa
                .outputs
                .iter()
                .map(|&p| store.infos[p as usize])
                .collect(),
            exact: store.bytes.clone(),
        }
    }

    /// Report every pattern of matching state `state` that ends at `end`.
    #[inline(always)]
    pub fn report<F: FnMut(Match) + ?Sized>(
        &self,
        state: u32,
        end: usize,
        haystack: &[u8],
        f: &mut F,
    ) {
        let k = (state - self.match_min) as usize;
        let (a, b) = (self.offsets[k] as usize, self.offsets[k + 1] as usize);
        for info in &self.entries[a..b] {
            if info.verify_at == PatternInfo::NO_VERIFY || self.confirm(info, haystack, end) {
                f(Match {
                    pattern: info.id,
                    end,
                });
            }
        }
    }

    #[inline]
    fn confirm(&self, info: &PatternInfo, haystack: &[u8], end: usize) -> bool {
        let len = info.len as usize;
        let at = info.verify_at as usize;
        haystack.get(end.wrapping_sub(len)..end) == self.exact.get(at..at + len)
    }

    pub fn memory_usage(&self) -> usize {
        self.offsets.capacity() * 4
            + self.entries.capacity() * std::mem::size_of::<PatternInfo>()
            + self.exact.capacity()
    }
}

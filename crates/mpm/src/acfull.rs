//! AC-Full: the Aho-Corasick DFA with 256 entries per state (Kargus §4.5, MIDeA §3.2.2).
//! One table load per input byte; a state at or above the first matching state reports.

use crate::dfa::{fill, StateRepr};
use crate::pattern::PatternStore;
use crate::report::Reporter;
use crate::trie::Nfa;
use crate::{BuildError, Limits, Match};

/// A full DFA with state entries of type `S` (16-bit ids, or 32-bit premultiplied ids).
#[derive(Clone, Debug)]
pub(crate) struct AcFull<S> {
    table: Vec<S>,
    /// Raw entry value of the first matching state.
    match_raw: usize,
    num_states: usize,
    reporter: Reporter,
}

impl<S: StateRepr> AcFull<S> {
    pub fn new(nfa: &Nfa, store: &PatternStore, limits: &Limits) -> Result<Self, BuildError> {
        let table = fill::<S>(nfa, limits)?;
        let match_raw = if (nfa.match_min as u64) <= S::MAX_ID {
            S::encode(nfa.match_min).raw()
        } else {
            usize::MAX
        };
        Ok(AcFull {
            table,
            match_raw,
            num_states: nfa.num_states(),
            reporter: Reporter::new(nfa, store),
        })
    }

    pub fn num_states(&self) -> usize {
        self.num_states
    }

    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, haystack: &[u8], f: &mut F) {
        let table = self.table.as_slice();
        let match_raw = self.match_raw;
        let mut s = S::encode(0);
        for (i, &b) in haystack.iter().enumerate() {
            s = table[s.row() + b as usize];
            if s.raw() >= match_raw {
                self.reporter.report(s.id(), i + 1, haystack, f);
            }
        }
    }

    pub fn memory_usage(&self) -> usize {
        self.table.capacity() * std::mem::size_of::<S>() + self.reporter.memory_usage()
    }
}

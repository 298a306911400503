//! Plain DFA transition tables for one regular expression (PCRE as DFA, Kargus §4.5), for
//! backends that run table walks elsewhere (the GPU). Whoever builds the DFA (the `detect`
//! crate, from the regex the CPU path uses) fills the table; this type only checks that it
//! is well formed and defines what a walk means, so every walker agrees.

use std::fmt;

/// A complete DFA over bytes: `num_states` rows of 256 next-state entries, a start state and
/// one flag byte per state.
///
/// Walk semantics (what [`PlainDfa::find_end`] does and every other walker must do): start in
/// `start`; for each input byte at position `i`, move to `transitions[s * 256 + byte]`; if the
/// new state has [`PlainDfa::MATCH`], a match ends at `i` (matches are reported one byte
/// late, so that look-ahead such as `$` or `\b` is resolved by the next byte); if it has
/// [`PlainDfa::DEAD`], no match can follow and the walk stops. After the last byte, a state
/// with [`PlainDfa::EOI_MATCH`] means a match ends at the input's end. The answer is the
/// earliest match end, as a regex engine's "earliest" search reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainDfa {
    num_states: u32,
    start: u32,
    transitions: Vec<u32>,
    flags: Vec<u8>,
}

/// Why a table was refused by [`PlainDfa::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidDfa(pub String);

impl fmt::Display for InvalidDfa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid DFA table: {}", self.0)
    }
}

impl std::error::Error for InvalidDfa {}

impl PlainDfa {
    /// Flag: entering this state on the byte at position `i` means a match ends at `i`.
    pub const MATCH: u8 = 1;
    /// Flag: ending the input in this state means a match ends at the input's end.
    pub const EOI_MATCH: u8 = 2;
    /// Flag: no match can be found from this state; a walk stops here.
    pub const DEAD: u8 = 4;

    /// Check and wrap a table: `transitions.len() == num_states * 256`, `flags.len() ==
    /// num_states`, every entry and `start` below `num_states`, no unknown flag bits.
    pub fn new(
        num_states: u32,
        start: u32,
        transitions: Vec<u32>,
        flags: Vec<u8>,
    ) -> Result<PlainDfa, InvalidDfa> {
        let n = num_states as usize;
        if n == 0 {
            return Err(InvalidDfa("no states".into()));
        }
        if transitions.len() != n.saturating_mul(256) {
            return Err(InvalidDfa(format!(
                "{} transitions for {n} states (want {})",
                transitions.len(),
                n.saturating_mul(256)
            )));
        }
        if flags.len() != n {
            return Err(InvalidDfa(format!("{} flags for {n} states", flags.len())));
        }
        if start >= num_states {
            return Err(InvalidDfa(format!("start state {start} out of range")));
        }
        if let Some(bad) = transitions.iter().find(|&&t| t >= num_states) {
            return Err(InvalidDfa(format!(
                "transition to state {bad} out of range"
            )));
        }
        let known = Self::MATCH | Self::EOI_MATCH | Self::DEAD;
        if let Some(bad) = flags.iter().find(|&&f| f & !known != 0) {
            return Err(InvalidDfa(format!("unknown flag bits {bad:#x}")));
        }
        Ok(PlainDfa {
            num_states,
            start,
            transitions,
            flags,
        })
    }

    /// Number of states.
    pub fn num_states(&self) -> u32 {
        self.num_states
    }

    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// `transitions()[s * 256 + byte]` is the next state.
    pub fn transitions(&self) -> &[u32] {
        &self.transitions
    }

    /// One flag byte per state ([`PlainDfa::MATCH`], [`PlainDfa::EOI_MATCH`], [`PlainDfa::DEAD`]).
    pub fn flags(&self) -> &[u8] {
        &self.flags
    }

    /// The transition table with 16-bit entries, if every state id fits.
    pub fn transitions_u16(&self) -> Option<Vec<u16>> {
        if self.num_states > u16::MAX as u32 + 1 {
            return None;
        }
        Some(self.transitions.iter().map(|&s| s as u16).collect())
    }

    /// The earliest match end in `haystack`, by the walk semantics above.
    pub fn find_end(&self, haystack: &[u8]) -> Option<usize> {
        let mut s = self.start as usize;
        if self.flags[s] & Self::DEAD != 0 {
            return None;
        }
        for (i, &b) in haystack.iter().enumerate() {
            s = self.transitions[s * 256 + b as usize] as usize;
            let f = self.flags[s];
            if f & Self::MATCH != 0 {
                return Some(i);
            }
            if f & Self::DEAD != 0 {
                return None;
            }
        }
        (self.flags[s] & Self::EOI_MATCH != 0).then_some(haystack.len())
    }

    /// Heap bytes used by the tables.
    pub fn memory_usage(&self) -> usize {
        self.transitions.capacity() * 4 + self.flags.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DFA of `ab` (unanchored), reporting one byte late like a regex DFA: 0 = start,
    /// 1 = seen `a`, 2 = seen `ab` (a match ends here: reported at the input's end or by the
    /// next byte), 3 = the next byte after `ab` (reports the match that ended before it).
    fn ab() -> PlainDfa {
        let mut t = vec![0u32; 4 * 256];
        for s in [0, 1, 3] {
            t[s * 256 + b'a' as usize] = 1;
        }
        t[256 + b'b' as usize] = 2;
        for b in 0..256 {
            t[2 * 256 + b] = 3;
            t[3 * 256 + b] = 3;
        }
        let flags = vec![
            0,
            0,
            PlainDfa::EOI_MATCH,
            PlainDfa::MATCH | PlainDfa::EOI_MATCH,
        ];
        PlainDfa::new(4, 0, t, flags).unwrap()
    }

    #[test]
    fn walk_reports_the_earliest_end() {
        let d = ab();
        assert_eq!(d.find_end(b"xxab"), Some(4));
        assert_eq!(d.find_end(b"xxabyy"), Some(4));
        assert_eq!(d.find_end(b"aab"), Some(3));
        assert_eq!(d.find_end(b"xxa"), None);
        assert_eq!(d.find_end(b""), None);
        assert!(d.transitions_u16().is_some());
    }

    #[test]
    fn malformed_tables_are_refused() {
        assert!(PlainDfa::new(0, 0, vec![], vec![]).is_err());
        assert!(PlainDfa::new(1, 0, vec![0; 255], vec![0]).is_err());
        assert!(PlainDfa::new(1, 1, vec![0; 256], vec![0]).is_err());
        assert!(PlainDfa::new(1, 0, vec![1; 256], vec![0]).is_err());
        assert!(PlainDfa::new(1, 0, vec![0; 256], vec![8]).is_err());
        assert!(PlainDfa::new(1, 0, vec![0; 256], vec![PlainDfa::DEAD]).is_ok());
    }
}

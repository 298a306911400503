//! Patterns given to a matcher, matches it reports, and the per-pattern data the backends
//! share for reporting (id, length, case check).

/// One pattern to search for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The bytes to find. Must not be empty.
    pub bytes: Vec<u8>,
    /// Caller's identifier, reported with every match. Ids need not be unique or dense.
    pub id: u32,
    /// Match ASCII letters case-insensitively (Suricata's `nocase`).
    pub nocase: bool,
}

impl Pattern {
    /// A case-sensitive pattern.
    pub fn new(bytes: impl Into<Vec<u8>>, id: u32) -> Self {
        Pattern {
            bytes: bytes.into(),
            id,
            nocase: false,
        }
    }

    /// A case-insensitive pattern.
    pub fn nocase(bytes: impl Into<Vec<u8>>, id: u32) -> Self {
        Pattern {
            bytes: bytes.into(),
            id,
            nocase: true,
        }
    }

    /// Whether this pattern matches `haystack` ending (exclusive) at `end`.
    pub fn matches_at(&self, haystack: &[u8], end: usize) -> bool {
        let len = self.bytes.len();
        if len == 0 || end < len || end > haystack.len() {
            return false;
        }
        let window = &haystack[end - len..end];
        if self.nocase {
            window.eq_ignore_ascii_case(&self.bytes)
        } else {
            window == self.bytes.as_slice()
        }
    }
}

/// One occurrence of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// The matching pattern's [`Pattern::id`].
    pub pattern: u32,
    /// Offset one past the last byte of the occurrence in the haystack.
    pub end: usize,
}

/// What a backend needs to report one pattern: its id, its length and, for a
/// case-sensitive pattern with ASCII letters, where its exact bytes are kept so a hit on
/// the case-folded automaton can be checked (MIDeA §3.2.2, Gnort §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternInfo {
    /// The caller's pattern id.
    pub id: u32,
    /// Pattern length in bytes.
    pub len: u32,
    /// Offset of the exact bytes in [`PatternStore::bytes`] when a case check is needed,
    /// `u32::MAX` when any case matches (nocase, or no ASCII letter in the pattern).
    pub verify_at: u32,
}

impl PatternInfo {
    /// No case check needed.
    pub const NO_VERIFY: u32 = u32::MAX;
}

/// Report data for every pattern of a matcher, indexed by the order the patterns were given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternStore {
    /// One entry per pattern, in input order.
    pub infos: Vec<PatternInfo>,
    /// Exact bytes of the case-sensitive patterns that contain ASCII letters.
    pub bytes: Vec<u8>,
}

impl PatternStore {
    /// Build from the input patterns (assumed validated: non-empty, length fits `u32`).
    pub(crate) fn new(patterns: &[Pattern]) -> Self {
        let mut store = PatternStore {
            infos: Vec::with_capacity(patterns.len()),
            bytes: Vec::new(),
        };
        for p in patterns {
            let verify_at = if !p.nocase && p.bytes.iter().any(u8::is_ascii_alphabetic) {
                let at = store.bytes.len() as u32;
                store.bytes.extend_from_slice(&p.bytes);
                at
            } else {
                PatternInfo::NO_VERIFY
            };
            store.infos.push(PatternInfo {
                id: p.id,
                len: p.bytes.len() as u32,
                verify_at,
            });
        }
        store
    }

    /// Whether pattern `index`, found by a case-folded automaton ending at `end`, really
    /// matches (its case check). `end` must be a position where the folded pattern matched.
    #[inline(always)]
    pub fn confirm(&self, index: usize, haystack: &[u8], end: usize) -> bool {
        let info = &self.infos[index];
        if info.verify_at == PatternInfo::NO_VERIFY {
            return true;
        }
        let len = info.len as usize;
        let at = info.verify_at as usize;
        haystack.get(end.wrapping_sub(len)..end) == self.bytes.get(at..at + len)
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        self.infos.capacity() * std::mem::size_of::<PatternInfo>() + self.bytes.capacity()
    }
}

/// ASCII lowercase table: the alphabet every automaton of this crate is built over.
pub(crate) const FOLD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).to_ascii_lowercase();
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_at_respects_case() {
        let p = Pattern::new(&b"Ab"[..], 1);
        assert!(p.matches_at(b"xAb", 3));
        assert!(!p.matches_at(b"xab", 3));
        assert!(!p.matches_at(b"Ab", 3));
        assert!(!p.matches_at(b"Ab", 1));
        let q = Pattern::nocase(&b"Ab"[..], 2);
        assert!(q.matches_at(b"xaB", 3));
    }

    #[test]
    fn store_checks_only_cased_patterns() {
        let pats = [
            Pattern::new(&b"Ab"[..], 1),
            Pattern::nocase(&b"Ab"[..], 2),
            Pattern::new(&[0u8, 1][..], 3),
        ];
        let s = PatternStore::new(&pats);
        assert_eq!(s.infos[0].verify_at, 0);
        assert_eq!(s.infos[1].verify_at, PatternInfo::NO_VERIFY);
        assert_eq!(s.infos[2].verify_at, PatternInfo::NO_VERIFY);
        assert!(s.confirm(0, b"Ab", 2));
        assert!(!s.confirm(0, b"ab", 2));
        assert!(s.confirm(1, b"ab", 2));
    }
}

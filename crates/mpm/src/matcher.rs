//! The facade: [`Builder`] picks a backend by [`Kind`], [`Matcher`] scans with it.

use crate::acfull::AcFull;
use crate::compact::AcCompact;
use crate::dfa::Premul32;
use crate::dfc::Dfc;
use crate::model::Occupancy;
use crate::pattern::PatternStore;
use crate::spatch::Spatch;
use crate::trie::Nfa;
use crate::vpatch::{Path, Vpatch};
use crate::{BuildError, Kind, Match, Pattern};
use std::time::{Duration, Instant};

/// Size limits applied while building; exceeding one is a [`BuildError`], never an
/// allocation failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most automaton states (trie nodes).
    pub max_states: usize,
    /// Most bytes for the backend's tables.
    pub memory: usize,
}

impl Limits {
    /// Default state cap: 16 Mi states.
    pub const DEFAULT_MAX_STATES: usize = 1 << 24;
    /// Default memory cap: 4 GiB (AC-Full over all ET Open contents needs about 1.1 GB).
    pub const DEFAULT_MEMORY: usize = 4 << 30;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_states: Self::DEFAULT_MAX_STATES,
            memory: Self::DEFAULT_MEMORY,
        }
    }
}

/// Configures and builds a [`Matcher`].
#[derive(Clone, Debug)]
pub struct Builder {
    kind: Kind,
    limits: Limits,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            kind: Kind::AcFull,
            limits: Limits::default(),
        }
    }
}

impl Builder {
    /// A builder for [`Kind::AcFull`] with default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Use implementation `kind`.
    pub fn kind(&mut self, kind: Kind) -> &mut Self {
        self.kind = kind;
        self
    }

    /// Cap the tables' memory at `bytes`.
    pub fn memory_limit(&mut self, bytes: usize) -> &mut Self {
        self.limits.memory = bytes;
        self
    }

    /// Cap the number of automaton states.
    pub fn max_states(&mut self, states: usize) -> &mut Self {
        self.limits.max_states = states;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Build a matcher for `patterns`. Every pattern must be non-empty.
    pub fn build(&self, patterns: &[Pattern]) -> Result<Matcher, BuildError> {
        let started = Instant::now();
        if !self.kind.is_available() {
            return Err(BuildError::Unsupported {
                kind: self.kind,
                reason: "not implemented in this build",
            });
        }
        let limits = &self.limits;
        let store = PatternStore::new(patterns);
        let imp = match self.kind {
            Kind::AcFull | Kind::AcFull32 | Kind::AcCompact => {
                let nfa = Nfa::build(patterns, limits)?;
                match self.kind {
                    Kind::AcCompact => Imp::AcCompact(AcCompact::new(&nfa, &store, limits)?),
                    Kind::AcFull if nfa.num_states() <= 1 << 16 => {
                        Imp::AcFull16(AcFull::<u16>::new(&nfa, &store, limits)?)
                    }
                    _ => Imp::AcFull32(AcFull::<Premul32>::new(&nfa, &store, limits)?),
                }
            }
            Kind::Dfc => Imp::Dfc(Dfc::new(patterns, limits)?),
            Kind::Spatch => Imp::Spatch(Spatch::new(patterns, limits)?),
            Kind::Vpatch => Imp::Vpatch(Vpatch::new(patterns, limits, Path::best(), self.kind)?),
            Kind::VpatchAvx2 => Imp::Vpatch(Vpatch::new(patterns, limits, Path::Avx2, self.kind)?),
            Kind::VpatchAvx512 => {
                Imp::Vpatch(Vpatch::new(patterns, limits, Path::Avx512, self.kind)?)
            }
            kind => {
                return Err(BuildError::Unsupported {
                    kind,
                    reason: "not implemented in this build",
                })
            }
        };
        Ok(Matcher {
            imp,
            kind: self.kind,
            patterns: patterns.len(),
            max_pattern_len: patterns.iter().map(|p| p.bytes.len()).max().unwrap_or(0),
            build_time: started.elapsed(),
        })
    }
}

/// The backends. A new backend adds a variant here and one arm in `dispatch!`.
#[derive(Clone, Debug)]
enum Imp {
    AcFull16(AcFull<u16>),
    AcFull32(AcFull<Premul32>),
    AcCompact(AcCompact),
    Dfc(Dfc),
    Spatch(Spatch),
    Vpatch(Vpatch),
}

/// Run `$body` with `$e` bound to the backend (static dispatch, so the match callback is
/// inlined into each backend's scan loop).
macro_rules! dispatch {
    ($imp:expr, $e:ident => $body:expr) => {
        match $imp {
            Imp::AcFull16($e) => $body,
            Imp::AcFull32($e) => $body,
            Imp::AcCompact($e) => $body,
            Imp::Dfc($e) => $body,
            Imp::Spatch($e) => $body,
            Imp::Vpatch($e) => $body,
        }
    };
}

/// A built multi-pattern matcher. Read-only after build: share it between threads.
#[derive(Clone, Debug)]
pub struct Matcher {
    imp: Imp,
    kind: Kind,
    patterns: usize,
    max_pattern_len: usize,
    build_time: Duration,
}

impl Matcher {
    /// Build a matcher of `kind` for `patterns` with default limits.
    pub fn new(kind: Kind, patterns: &[Pattern]) -> Result<Matcher, BuildError> {
        Builder::new().kind(kind).build(patterns)
    }

    /// Report every occurrence of every pattern in `haystack`, overlapping ones included;
    /// patterns that end at the same offset are all reported. The Aho-Corasick backends
    /// report in increasing end offset; callers must not rely on an order.
    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, haystack: &[u8], on_match: &mut F) {
        dispatch!(&self.imp, e => e.scan(haystack, on_match))
    }

    /// [`Matcher::scan`] over each haystack of a batch; `on_match` gets the haystack's index.
    pub fn scan_batch<F: FnMut(usize, Match) + ?Sized>(
        &self,
        haystacks: &[&[u8]],
        on_match: &mut F,
    ) {
        dispatch!(&self.imp, e => {
            for (index, haystack) in haystacks.iter().enumerate() {
                e.scan(haystack, &mut |m| on_match(index, m));
            }
        })
    }

    /// All matches in `haystack`, as [`Matcher::scan`] reports them.
    pub fn find_all(&self, haystack: &[u8]) -> Vec<Match> {
        let mut out = Vec::new();
        self.scan(haystack, &mut |m| out.push(m));
        out
    }

    /// Number of matches in `haystack`.
    pub fn count(&self, haystack: &[u8]) -> usize {
        let mut n = 0usize;
        self.scan(haystack, &mut |_| n += 1);
        n
    }

    /// For S-PATCH and V-PATCH: the set bits of the three filters, the entries behind
    /// filter 1 and the width of the filtering round (the performance model's input, [`crate::model`]); `None` for the
    /// other kinds.
    pub fn filter_occupancy(&self) -> Option<Occupancy> {
        let (s, lanes) = match &self.imp {
            Imp::Spatch(s) => (s, 1),
            Imp::Vpatch(v) => (v.spatch(), v.path().lanes()),
            _ => return None,
        };
        let [f1, f2, f3] = s.occupancy();
        Some(Occupancy {
            f1,
            f2,
            f3,
            short_entries: s.short_entries(),
            lanes,
        })
    }

    /// For S-PATCH and V-PATCH: run only the filtering round over `haystack` and return how
    /// many positions passed filter 1 and how many passed filters 2 and 3 (patterns whose
    /// first two bytes are equal are not filtered: see the crate docs); `None` for the
    /// other kinds.
    pub fn filter_candidates(&self, haystack: &[u8]) -> Option<(usize, usize)> {
        match &self.imp {
            Imp::Spatch(s) => Some(s.filter_only(haystack, crate::spatch::filter_scalar)),
            Imp::Vpatch(v) => Some(v.spatch().filter_only(haystack, v.round())),
            _ => None,
        }
    }

    /// The implementation asked for.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Number of patterns the matcher was built from.
    pub fn pattern_count(&self) -> usize {
        self.patterns
    }

    /// Length of the longest pattern the matcher was built from (0 for none): how far a
    /// scan of part of a buffer must reach back to see every occurrence that ends in it
    /// ([`crate::parallel`]).
    pub fn max_pattern_len(&self) -> usize {
        self.max_pattern_len
    }

    /// Heap bytes used by the matcher's tables.
    pub fn memory_usage(&self) -> usize {
        dispatch!(&self.imp, e => e.memory_usage())
    }

    /// Wall time the build took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// A one-line description of the chosen representation, e.g. `ac-full (16-bit states, 1234 states)`.
    pub fn describe(&self) -> String {
        match &self.imp {
            Imp::AcFull16(e) => format!("{} (16-bit states, {} states)", self.kind, e.num_states()),
            Imp::AcFull32(e) => format!("{} (32-bit states, {} states)", self.kind, e.num_states()),
            Imp::AcCompact(_) | Imp::Dfc(_) | Imp::Spatch(_) => self.kind.to_string(),
            Imp::Vpatch(e) => format!("{} ({} filtering)", self.kind, e.path().name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_state_width() {
        let pats = vec![Pattern::new(&b"abc"[..], 1)];
        let m = Matcher::new(Kind::AcFull, &pats).unwrap();
        assert!(m.describe().contains("16-bit"));
        let m = Matcher::new(Kind::AcFull32, &pats).unwrap();
        assert!(m.describe().contains("32-bit"));
        assert_eq!(m.kind(), Kind::AcFull32);
        assert_eq!(m.pattern_count(), 1);
        assert!(m.memory_usage() >= 4 * 256 * 4);
    }

    #[test]
    fn too_many_states_for_16_bits_falls_back_to_32() {
        // 70,000 distinct 3-byte patterns need more than 65,536 states.
        let pats: Vec<Pattern> = (0..70_000u32)
            .map(|i| {
                Pattern::new(
                    vec![
                        0x80 + (i / 10_000) as u8,
                        0x80 + (i / 100 % 100) as u8,
                        0x80 + (i % 100) as u8,
                    ],
                    i,
                )
            })
            .collect();
        let m = Matcher::new(Kind::AcFull, &pats).unwrap();
        assert!(m.describe().contains("32-bit"), "{}", m.describe());
        // Every 3-byte window is a pattern.
        assert_eq!(m.count(&[0x80, 0x81, 0x82, 0x86, 0x80, 0x85]), 4);
    }

    #[test]
    fn limits_give_errors() {
        let pats = vec![Pattern::new(vec![b'x'; 5000], 1)];
        let err = Builder::new()
            .memory_limit(1 << 20)
            .build(&pats)
            .unwrap_err();
        assert!(matches!(err, BuildError::TooLarge { .. }), "{err}");
        let err = Builder::new()
            .kind(Kind::AcCompact)
            .max_states(10)
            .build(&pats)
            .unwrap_err();
        assert!(matches!(err, BuildError::TooManyStates { .. }), "{err}");
        let err = Matcher::new(Kind::Hyperscan, &pats).unwrap_err();
        assert!(matches!(
            err,
            BuildError::Unsupported {
                kind: Kind::Hyperscan,
                ..
            }
        ));
    }

    #[test]
    fn batch_reports_indices() {
        let pats = vec![Pattern::nocase(&b"ab"[..], 9)];
        let m = Matcher::new(Kind::AcCompact, &pats).unwrap();
        let mut got = Vec::new();
        m.scan_batch(&[b"xab", b"", b"ABab"], &mut |i, m| {
            got.push((i, m.pattern, m.end))
        });
        assert_eq!(got, vec![(0, 9, 3), (2, 9, 2), (2, 9, 4)]);
    }
}

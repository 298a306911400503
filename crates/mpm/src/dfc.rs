//! DFC, Direct Filter Classification (Choi et al., NSDI 2016; V-PATCH paper §2.2).
//!
//! A 2-byte sliding window is tested against an initial direct filter (one bit per raw
//! 2-byte value, 8 KiB, set by the first two bytes of every pattern). A window that passes
//! goes through the length-class filters: one for the short patterns (1 to 3 bytes, same
//! 2-byte index) and one for the long patterns (4 bytes or more) indexed by the *next* two
//! bytes of the input, and a position that passes a class filter is verified at once in
//! that class's compact hash tables ([`crate::verify`]). Filtering and verification are
//! interleaved, unlike S-PATCH's separate rounds.
//!
//! As in S-PATCH, the patterns whose first two case-folded bytes are equal (`|00 00 ..|`,
//! most matches on IDS traffic) stay out of the filters and are reported from the runs of
//! one byte ([`crate::runs`]): inside a zero-filled run every window would pass the filters
//! and verify the same patterns again at each byte.

use crate::pattern::{PatternStore, FOLD};
use crate::runs::{is_run_class, RunTable};
use crate::verify::{first_pairs, validate, variants, RunCache, Verifier, LONG};
use crate::{BuildError, Limits, Match, Pattern};

/// Bytes of one direct filter: one bit per 2-byte value.
const DF_BYTES: usize = 1 << 13;

/// A direct filter over raw 2-byte values `b0 | b1 << 8`.
#[derive(Clone, Debug)]
struct DirectFilter(Box<[u8; DF_BYTES]>);

impl DirectFilter {
    fn new() -> Self {
        DirectFilter(Box::new([0; DF_BYTES]))
    }

    fn set(&mut self, idx: u16) {
        self.0[(idx >> 3) as usize] |= 1 << (idx & 7);
    }

    #[inline(always)]
    fn test(&self, b0: u8, b1: u8) -> bool {
        let idx = b0 as usize | (b1 as usize) << 8;
        self.0[idx >> 3] >> (idx & 7) & 1 != 0
    }
}

/// The DFC matcher.
#[derive(Clone, Debug)]
pub(crate) struct Dfc {
    /// Initial filter: first two bytes of every pattern.
    initial: DirectFilter,
    /// Short class: first two bytes of the 1-3 byte patterns.
    short: DirectFilter,
    /// Long class: bytes 2 and 3 of the patterns of 4 bytes or more.
    long: DirectFilter,
    verifier: Verifier,
    /// The run-class patterns.
    runs: RunTable,
    /// Exact bytes of the case-sensitive run-class patterns ([`PatternStore::bytes`]).
    run_exact: Vec<u8>,
}

impl Dfc {
    pub fn new(patterns: &[Pattern], limits: &Limits) -> Result<Dfc, BuildError> {
        validate(patterns)?;
        let (run_pats, patterns): (Vec<Pattern>, Vec<Pattern>) =
            patterns.iter().cloned().partition(|p| {
                let folded: Vec<u8> = p.bytes.iter().map(|&b| FOLD[b as usize]).collect();
                is_run_class(&folded)
            });
        let store = PatternStore::new(&run_pats);
        let runs = RunTable::new(
            run_pats
                .iter()
                .zip(&store.infos)
                .map(|(p, info)| (p.bytes.to_ascii_lowercase(), p.bytes.clone(), *info))
                .collect(),
        );
        let patterns = &patterns[..];
        let verifier = Verifier::new(patterns, limits)?;
        let (mut initial, mut short, mut long) = (
            DirectFilter::new(),
            DirectFilter::new(),
            DirectFilter::new(),
        );
        for p in patterns {
            for idx in first_pairs(p) {
                initial.set(idx);
                if p.bytes.len() < LONG {
                    short.set(idx);
                }
            }
            if p.bytes.len() >= LONG {
                for a in variants(p.bytes[2], p.nocase) {
                    for b in variants(p.bytes[3], p.nocase) {
                        long.set(a as u16 | (b as u16) << 8);
                    }
                }
            }
        }
        let d = Dfc {
            initial,
            short,
            long,
            verifier,
            runs,
            run_exact: store.bytes,
        };
        if d.memory_usage() > limits.memory {
            return Err(BuildError::TooLarge {
                bytes: d.memory_usage(),
                limit: limits.memory,
            });
        }
        Ok(d)
    }

    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], f: &mut F) {
        let n = hay.len();
        if n == 0 {
            return;
        }
        if !self.runs.is_empty() {
            self.runs.scan(hay, &self.run_exact, f);
        }
        let run = &mut RunCache::default();
        for i in 0..n - 1 {
            let (b0, b1) = (hay[i], hay[i + 1]);
            if !self.initial.test(b0, b1) {
                continue;
            }
            if self.short.test(b0, b1) {
                self.verifier.verify_short(hay, i, f);
            }
            if i + LONG <= n && self.long.test(hay[i + 2], hay[i + 3]) {
                self.verifier.verify_long(hay, i, run, f);
            }
        }
        self.verifier.verify_one(hay, n - 1, f);
    }

    pub fn memory_usage(&self) -> usize {
        3 * DF_BYTES
            + self.verifier.memory_usage()
            + self.runs.memory_usage()
            + self.run_exact.capacity()
    }
}

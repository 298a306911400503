//! S-PATCH (V-PATCH paper §4.1, Algorithm 1): DFC reorganised for vectorization.
//!
//! Three filters, all small enough for L1/L2:
//!
//! - filter 1: one bit per raw 2-byte window that can start a short pattern (1 to 3 bytes;
//!   a one-byte pattern sets its byte followed by each of the 256 bytes);
//! - filter 2: the same indexing for the long patterns (4 bytes or more);
//! - filter 3: one bit per multiplicative hash of the case-folded first 4 bytes of a long
//!   pattern, consulted only after a filter-2 hit.
//!
//! Filters 1 and 2 are *merged* (§4.2, Figure 5): word `w >> 4` of [`Filters::f12`] holds
//! the 16 filter-1 bits of windows `16k..16k+16` in its low half and their filter-2 bits in
//! its high half, so one load (one gather lane in V-PATCH) serves both. Case: filters 1 and
//! 2 are indexed by raw bytes and hold every case variant a `nocase` pattern accepts;
//! filter 3 and the verification tables work on folded bytes.
//!
//! The input is processed in chunks of [`CHUNK`] positions: a filtering round stores the
//! candidate positions in two arrays, then a verification round checks them against the
//! per-length hash tables of [`crate::verify`]. [`Spatch::scan_with`] takes the filtering
//! round as a parameter so V-PATCH reuses everything else.

use crate::long::{LongTable, Rows};
use crate::pattern::{PatternStore, FOLD};
use crate::runs::{is_run_class, RunTable};
use crate::short::ShortTable;
use crate::verify::{first_pairs, fold4, load4, validate, LONG};
use crate::{BuildError, Limits, Match, Pattern};
use std::cell::RefCell;

/// log2 of filter 3's size in bits (2^20 bits = 128 KiB: an L2-resident filter that passes
/// few random positions even with tens of thousands of long patterns).
pub(crate) const F3_BITS: u32 = 20;
/// Words of filter 3.
pub(crate) const F3_WORDS: usize = 1 << (F3_BITS - 5);
/// Multiplier of filter 3's hash.
pub(crate) const F3_MUL: u32 = 0x2545_f491;
/// Words of the merged filters 1 and 2 (65,536 windows, 16 per word).
pub(crate) const F12_WORDS: usize = 1 << 12;
/// Positions filtered per round.
pub(crate) const CHUNK: usize = 2048;
/// Extra slots at the end of each candidate array, so vector code may store a full
/// register of positions at the current count.
pub(crate) const SLACK: usize = 16;

/// Filters 1 and 2 (merged) and filter 3.
#[derive(Clone, Debug)]
pub(crate) struct Filters {
    /// Word `idx >> 4`, bit `idx & 15` is filter 1, bit `16 + (idx & 15)` filter 2, where
    /// `idx = hay[i] | hay[i + 1] << 8`.
    pub f12: Box<[u32; F12_WORDS]>,
    /// Bit `h & 31` of word `h >> 5` for `h` = [`f3_hash`] of the folded 4-byte prefix.
    pub f3: Box<[u32; F3_WORDS]>,
}

/// Filter 3's hash of 4 raw input bytes (little-endian): folded, multiplied, top bits.
#[inline(always)]
pub(crate) fn f3_hash(raw4: u32) -> u32 {
    fold4(raw4).wrapping_mul(F3_MUL) >> (32 - F3_BITS)
}

impl Filters {
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a Pattern>) -> Filters {
        let mut f12 = Box::new([0u32; F12_WORDS]);
        let mut f3 = Box::new([0u32; F3_WORDS]);
        for p in patterns {
            let long = p.bytes.len() >= LONG;
            let high = if long { 16 } else { 0 };
            for idx in first_pairs(p) {
                let idx = idx as usize;
                f12[idx >> 4] |= 1 << (high + (idx & 15));
            }
            if long {
                let h = f3_hash(load4(&p.bytes, 0));
                f3[(h >> 5) as usize] |= 1 << (h & 31);
            }
        }
        Filters { f12, f3 }
    }

    /// The merged filter word for the window at `i`, shifted so bit 0 is filter 1 and bit 16
    /// filter 2.
    #[inline(always)]
    pub fn f12_at(&self, hay: &[u8], i: usize) -> u32 {
        let idx = hay[i] as usize | (hay[i + 1] as usize) << 8;
        self.f12[idx >> 4] >> (idx & 15)
    }

    /// Whether filter 3 passes the 4 bytes at `i`.
    #[inline(always)]
    pub fn f3_at(&self, hay: &[u8], i: usize) -> bool {
        let h = f3_hash(load4(hay, i));
        self.f3[(h >> 5) as usize] >> (h & 31) & 1 != 0
    }
}

/// Candidate positions of one round, relative to the round's first position.
#[derive(Debug)]
pub(crate) struct Cands {
    /// Positions that passed filter 1; the first `ns` are valid.
    pub short: Vec<u32>,
    /// Positions that passed filters 2 and 3; the first `nl` are valid.
    pub long: Vec<u32>,
    pub ns: usize,
    pub nl: usize,
    /// Table rows of the long candidates (verification's first pass).
    rows: Vec<Rows>,
}

impl Cands {
    fn new() -> Cands {
        Cands {
            short: vec![0; CHUNK + SLACK],
            long: vec![0; CHUNK + SLACK],
            ns: 0,
            nl: 0,
            rows: vec![Rows::default(); CHUNK + SLACK],
        }
    }
}

thread_local! {
    /// Per-thread candidate arrays, so a scan of a small payload does not zero 16 KiB.
    static SCRATCH: RefCell<Cands> = RefCell::new(Cands::new());
}

/// A filtering round: append to `c` the positions `i` in `start..end` (relative to `start`)
/// that pass filter 1, and those that pass filters 2 and 3. Requires `end < hay.len()` and
/// `end - start <= CHUNK`; `c.short`/`c.long` are at least `CHUNK + SLACK` long.
pub(crate) type FilterRound = fn(&Filters, &[u8], usize, usize, &mut Cands);

/// The scalar filtering round (Algorithm 1, lines 3-14).
pub(crate) fn filter_scalar(fl: &Filters, hay: &[u8], start: usize, end: usize, c: &mut Cands) {
    filter_scalar_from(fl, hay, start, start, end, c)
}

/// The scalar filter over positions `from..end` of the round that starts at `start` (the
/// vector rounds finish their last positions with it).
pub(crate) fn filter_scalar_from(
    fl: &Filters,
    hay: &[u8],
    start: usize,
    from: usize,
    end: usize,
    c: &mut Cands,
) {
    let n = hay.len();
    let (mut ns, mut nl) = (c.ns, c.nl);
    for i in from..end {
        let w = fl.f12_at(hay, i);
        let rel = (i - start) as u32;
        c.short[ns] = rel;
        ns += (w & 1) as usize;
        if w & 0x1_0000 != 0 && i + LONG <= n && fl.f3_at(hay, i) {
            c.long[nl] = rel;
            nl += 1;
        }
    }
    c.ns = ns;
    c.nl = nl;
}

/// The S-PATCH matcher. Run-class patterns ([`crate::runs`]) stay out of the filters and
/// are found from the runs of one byte; the others go through the filters, then the
/// per-window short lists ([`crate::short`]) or the long tables ([`crate::long`]).
#[derive(Clone, Debug)]
pub(crate) struct Spatch {
    pub filters: Filters,
    short: ShortTable,
    long: LongTable,
    runs: RunTable,
    /// Exact bytes of the case-sensitive patterns ([`PatternStore::bytes`]).
    exact: Vec<u8>,
}

impl Spatch {
    pub fn new(patterns: &[Pattern], limits: &Limits) -> Result<Spatch, BuildError> {
        validate(patterns)?;
        let store = PatternStore::new(patterns);
        let (mut normal, mut run_list, mut long_list) = (Vec::new(), Vec::new(), Vec::new());
        for (p, info) in patterns.iter().zip(&store.infos) {
            let folded: Vec<u8> = p.bytes.iter().map(|&b| FOLD[b as usize]).collect();
            if is_run_class(&folded) {
                run_list.push((folded, p.bytes.clone(), *info));
            } else {
                normal.push(p);
                if p.bytes.len() >= LONG {
                    long_list.push((folded, *info));
                }
            }
        }
        let filters = Filters::new(normal.iter().copied());
        let shorts: Vec<&Pattern> = normal
            .into_iter()
            .filter(|p| p.bytes.len() < LONG)
            .collect();
        let s = Spatch {
            short: ShortTable::new(&shorts),
            long: LongTable::new(long_list),
            runs: RunTable::new(run_list),
            exact: store.bytes,
            filters,
        };
        if s.memory_usage() > limits.memory {
            return Err(BuildError::TooLarge {
                bytes: s.memory_usage(),
                limit: limits.memory,
            });
        }
        Ok(s)
    }

    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], f: &mut F) {
        self.scan_with(hay, f, filter_scalar)
    }

    /// Scan with the filtering round `round`, verification in a separate round per chunk.
    #[inline]
    pub fn scan_with<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], f: &mut F, round: FilterRound) {
        if hay.is_empty() {
            return;
        }
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut c) => self.scan_rounds(hay, f, round, &mut c),
            // A scan from inside a match callback: use fresh arrays.
            Err(_) => self.scan_rounds(hay, f, round, &mut Cands::new()),
        })
    }

    fn scan_rounds<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        f: &mut F,
        round: FilterRound,
        c: &mut Cands,
    ) {
        let n = hay.len();
        if !self.runs.is_empty() {
            self.runs.scan(hay, &self.exact, f);
        }
        let last = n - 1; // positions with a 2-byte window
        let mut start = 0;
        while start < last {
            let end = (start + CHUNK).min(last);
            c.ns = 0;
            c.nl = 0;
            round(&self.filters, hay, start, end, c);
            for &p in &c.short[..c.ns] {
                self.short.verify(hay, start + p as usize, f);
            }
            // Two passes: locate every candidate's rows (independent loads), then verify.
            for (r, &p) in c.rows.iter_mut().zip(&c.long[..c.nl]) {
                *r = self.long.locate(hay, start + p as usize);
            }
            for (&r, &p) in c.rows.iter().zip(&c.long[..c.nl]) {
                self.long
                    .verify_rows(hay, start + p as usize, r, &self.exact, f);
            }
            start = end;
        }
        self.short.verify(hay, last, f);
    }

    /// Run only the filtering rounds of a scan of `hay` with `round`; returns how many
    /// positions passed filter 1 and how many passed filters 2 and 3 (the performance
    /// model's measured hit counts).
    pub fn filter_only(&self, hay: &[u8], round: FilterRound) -> (usize, usize) {
        if hay.len() < 2 {
            return (0, 0);
        }
        SCRATCH.with(|s| {
            let mut fresh = None;
            let mut borrowed = s.try_borrow_mut();
            let c: &mut Cands = match borrowed.as_mut() {
                Ok(c) => c,
                Err(_) => fresh.insert(Cands::new()),
            };
            let last = hay.len() - 1;
            let (mut short, mut long) = (0, 0);
            let mut start = 0;
            while start < last {
                let end = (start + CHUNK).min(last);
                c.ns = 0;
                c.nl = 0;
                round(&self.filters, hay, start, end, c);
                short += c.ns;
                long += c.nl;
                start = end;
            }
            (short, long)
        })
    }

    /// Entries behind filter 1: one per short pattern and raw 2-byte window it accepts.
    pub fn short_entries(&self) -> usize {
        self.short.entries()
    }

    /// Set bits of filters 1, 2 and 3.
    pub fn occupancy(&self) -> [usize; 3] {
        let ones = |mask: u32| -> usize {
            self.filters
                .f12
                .iter()
                .map(|w| (w & mask).count_ones() as usize)
                .sum()
        };
        let f3 = self
            .filters
            .f3
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum();
        [ones(0xffff), ones(0xffff_0000), f3]
    }

    pub fn memory_usage(&self) -> usize {
        (F12_WORDS + F3_WORDS) * 4
            + self.short.memory_usage()
            + self.long.memory_usage()
            + self.runs.memory_usage()
            + self.exact.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_filter_bits() {
        let pats = [
            Pattern::new(&b"ab"[..], 1),
            Pattern::nocase(&b"cdef"[..], 2),
        ];
        let fl = Filters::new(&pats);
        assert_eq!(fl.f12_at(b"ab", 0) & 0x1_0001, 1);
        assert_eq!(fl.f12_at(b"Ab", 0) & 0x1_0001, 0);
        assert_eq!(fl.f12_at(b"cD", 0) & 0x1_0001, 0x1_0000);
        assert!(fl.f3_at(b"CdEf", 0));
        assert!(!fl.f3_at(b"CdEg", 0));
        let ones: u32 = fl.f12.iter().map(|w| w.count_ones()).sum();
        assert_eq!(ones, 1 + 4);
    }

    #[test]
    fn chunk_borders_and_last_byte() {
        let pats = [
            Pattern::new(&b"x"[..], 1),
            Pattern::new(&b"xy"[..], 2),
            Pattern::new(&b"xyzw"[..], 3),
        ];
        let s = Spatch::new(&pats, &Limits::default()).unwrap();
        let mut hay = vec![b'.'; 3 * CHUNK + 5];
        for at in [0, CHUNK - 2, CHUNK - 1, CHUNK, 2 * CHUNK - 3] {
            hay[at..at + 4].copy_from_slice(b"xyzw");
        }
        let n = hay.len();
        hay[n - 1] = b'x';
        let mut got = Vec::new();
        s.scan(&hay, &mut |m| got.push(m));
        let want = crate::naive::find_all(&pats, &hay);
        got.sort();
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
    }
}

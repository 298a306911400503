//! Verification of the long patterns (4 bytes or more) for S-PATCH and V-PATCH: compact
//! hash tables keyed by the case-folded first bytes of the input at a candidate position.
//!
//! Patterns of 4 to 7 bytes are keyed by their first 4 folded bytes; patterns of 8 bytes or
//! more by their first 8, so that the many rule contents sharing a 4-byte prefix
//! (`<title`, `.dns`, `/wp-` in ET Open: hundreds each) do not all land in one bucket. Each
//! entry is one distinct folded pattern with the list of patterns that share it; the rest
//! of the pattern is compared 8 folded bytes at a time, and a case-sensitive pattern's
//! exact bytes are checked only once its folded bytes matched.

use crate::pattern::{PatternInfo, FOLD};
use crate::verify::{fold4, load4};
use crate::Match;

/// Multiplier of the tables' hash (different from the filters' hashes).
const TABLE_MUL: u32 = 0x9e37_79b1;
/// Second multiplier, for the upper 4 bytes of an 8-byte key.
const TABLE_MUL2: u32 = 0x85eb_ca77;

/// A hash table in compressed rows: bucket `b` is `entries[heads[b]..heads[b + 1]]`.
#[derive(Clone, Debug)]
pub(crate) struct Buckets<E> {
    shift: u32,
    heads: Vec<u32>,
    entries: Vec<E>,
}

impl<E> Buckets<E> {
    /// Bucket `entries` by `key(entry)` (a 32-bit key, hashed multiplicatively).
    pub fn new(mut entries: Vec<E>, key: impl Fn(&E) -> u32) -> Buckets<E> {
        // About two entries per bucket: the row heads stay small enough for the L1/L2
        // cache, and a bucket's entries are adjacent (one or two cache lines).
        let buckets = (entries.len() / 2).next_power_of_two().max(2);
        let shift = 32 - buckets.trailing_zeros();
        let bucket = |k: u32| (k.wrapping_mul(TABLE_MUL) >> shift) as usize;
        entries.sort_by_key(|e| bucket(key(e)));
        let mut heads = vec![0u32; buckets + 1];
        for e in &entries {
            heads[bucket(key(e)) + 1] += 1;
        }
        for b in 0..buckets {
            heads[b + 1] += heads[b];
        }
        Buckets {
            shift,
            heads,
            entries,
        }
    }

    /// The row of `key`: `entries[start..end]` (see [`Buckets::row_entries`]).
    #[inline(always)]
    pub fn row(&self, key: u32) -> (u32, u32) {
        let b = (key.wrapping_mul(TABLE_MUL) >> self.shift) as usize;
        (self.heads[b], self.heads[b + 1])
    }

    /// The entries of a row found by [`Buckets::row`].
    #[inline(always)]
    pub fn row_entries(&self, (start, end): (u32, u32)) -> &[E] {
        &self.entries[start as usize..end as usize]
    }

    /// The entries whose key may be `key`.
    #[inline(always)]
    pub fn probe(&self, key: u32) -> &[E] {
        let b = (key.wrapping_mul(TABLE_MUL) >> self.shift) as usize;
        let (s, e) = (self.heads[b] as usize, self.heads[b + 1] as usize);
        &self.entries[s..e]
    }

    /// Whether the table holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        self.heads.capacity() * 4 + self.entries.capacity() * std::mem::size_of::<E>()
    }
}

/// The little-endian `u64` at `hay[i..i + 8]`.
#[inline(always)]
pub(crate) fn load8(hay: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&hay[i..i + 8]);
    u64::from_le_bytes(w)
}

/// ASCII-lowercase the eight bytes of `x` (SWAR).
#[inline(always)]
pub(crate) fn fold8(x: u64) -> u64 {
    let low7 = x & 0x7f7f_7f7f_7f7f_7f7f;
    let ge_a = low7.wrapping_add(0x3f3f_3f3f_3f3f_3f3f);
    let gt_z = low7.wrapping_add(0x2525_2525_2525_2525);
    let upper = ge_a & !gt_z & !x & 0x8080_8080_8080_8080;
    x | (upper >> 2)
}

/// Whether `hay` folded equals `folded` (same length; `folded` already lowercase).
#[inline(always)]
pub(crate) fn folded_eq(hay: &[u8], folded: &[u8]) -> bool {
    debug_assert_eq!(hay.len(), folded.len());
    let mut i = 0;
    while i + 8 <= hay.len() {
        if fold8(load8(hay, i)) != load8(folded, i) {
            return false;
        }
        i += 8;
    }
    hay[i..]
        .iter()
        .zip(&folded[i..])
        .all(|(&h, &p)| FOLD[h as usize] == p)
}

/// Whether the exact (case-sensitive) bytes of `info` end at `end` in `hay`.
#[inline]
pub(crate) fn confirm(info: &PatternInfo, exact: &[u8], hay: &[u8], end: usize) -> bool {
    let len = info.len as usize;
    let at = info.verify_at as usize;
    hay.get(end.wrapping_sub(len)..end) == exact.get(at..at + len)
}

/// Report `infos` ending at `end` (their folded bytes matched), checking case where needed.
#[inline(always)]
pub(crate) fn report<F: FnMut(Match) + ?Sized>(
    infos: &[PatternInfo],
    exact: &[u8],
    hay: &[u8],
    end: usize,
    f: &mut F,
) {
    for info in infos {
        if info.verify_at == PatternInfo::NO_VERIFY || confirm(info, exact, hay, end) {
            f(Match {
                pattern: info.id,
                end,
            });
        }
    }
}

/// One distinct folded long pattern.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Folded bytes 0..4.
    k0: u32,
    /// Folded bytes 4..8 (0 for a pattern shorter than 8 bytes).
    k1: u32,
    /// Pattern length.
    len: u32,
    /// Offset of the folded bytes after the key (4 or 8 bytes) in `LongTable::tails`.
    tail: u32,
    /// `LongTable::reports[start..end]` are the patterns with these folded bytes.
    start: u32,
    end: u32,
}

/// The table rows of one long candidate ([`LongTable::locate`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rows {
    mid: (u32, u32),
    big: (u32, u32),
}

/// The 32-bit table key of an 8-byte prefix.
#[inline(always)]
fn key8(k0: u32, k1: u32) -> u32 {
    k0 ^ k1.wrapping_mul(TABLE_MUL2)
}

/// Verification tables for the long patterns.
#[derive(Clone, Debug)]
pub(crate) struct LongTable {
    /// Patterns of 4 to 7 bytes, keyed by 4 bytes.
    mid: Buckets<Entry>,
    /// Patterns of 8 bytes or more, keyed by [`key8`].
    big: Buckets<Entry>,
    tails: Vec<u8>,
    reports: Vec<PatternInfo>,
}

impl LongTable {
    /// Build from `(folded bytes, report record)` pairs of patterns of at least 4 bytes.
    pub fn new(mut pats: Vec<(Vec<u8>, PatternInfo)>) -> LongTable {
        pats.sort_by(|a, b| a.0.cmp(&b.0));
        let (mut mid, mut big) = (Vec::new(), Vec::new());
        let mut tails = Vec::new();
        let mut reports = Vec::with_capacity(pats.len());
        let mut at = 0;
        while at < pats.len() {
            let folded = pats[at].0.clone();
            debug_assert!(folded.len() >= 4);
            let start = reports.len() as u32;
            while at < pats.len() && pats[at].0 == folded {
                reports.push(pats[at].1);
                at += 1;
            }
            let keyed = if folded.len() >= 8 { 8 } else { 4 };
            let e = Entry {
                k0: load4(&folded, 0),
                k1: if keyed == 8 { load4(&folded, 4) } else { 0 },
                len: folded.len() as u32,
                tail: tails.len() as u32,
                start,
                end: reports.len() as u32,
            };
            tails.extend_from_slice(&folded[keyed..]);
            if keyed == 8 {
                big.push(e);
            } else {
                mid.push(e);
            }
        }
        LongTable {
            mid: Buckets::new(mid, |e| e.k0),
            big: Buckets::new(big, |e| key8(e.k0, e.k1)),
            tails,
            reports,
        }
    }

    /// The table rows a candidate at `i` must look at (`i + 4 <= hay.len()`): the first
    /// half of a two-pass verification. Locating the rows of all the candidates of a round
    /// first lets their cache misses on the row heads overlap.
    #[inline(always)]
    pub fn locate(&self, hay: &[u8], i: usize) -> Rows {
        let k0 = fold4(load4(hay, i));
        let mut mid = self.mid.row(k0);
        // A row of one entry is checked here already (its load overlaps the others too).
        if mid.1 - mid.0 == 1 && self.mid.row_entries(mid)[0].k0 != k0 {
            mid = (0, 0);
        }
        let mut big = (0, 0);
        if i + 8 <= hay.len() {
            let k1 = fold4(load4(hay, i + 4));
            big = self.big.row(key8(k0, k1));
            if big.1 - big.0 == 1 {
                let e = &self.big.row_entries(big)[0];
                if e.k0 != k0 || e.k1 != k1 {
                    big = (0, 0);
                }
            }
        }
        Rows { mid, big }
    }

    /// Report the long patterns that start at `i`, whose rows are `rows` ([`LongTable::locate`]).
    #[inline(always)]
    pub fn verify_rows<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        i: usize,
        rows: Rows,
        exact: &[u8],
        f: &mut F,
    ) {
        if rows.mid.0 == rows.mid.1 && rows.big.0 == rows.big.1 {
            return;
        }
        let n = hay.len();
        let k0 = fold4(load4(hay, i));
        for e in self.mid.row_entries(rows.mid) {
            let end = i + e.len as usize;
            if e.k0 == k0 && end <= n {
                let t = e.tail as usize;
                if folded_eq(&hay[i + 4..end], &self.tails[t..t + e.len as usize - 4]) {
                    self.report(e, exact, hay, end, f);
                }
            }
        }
        if rows.big.0 != rows.big.1 {
            let k1 = fold4(load4(hay, i + 4));
            for e in self.big.row_entries(rows.big) {
                let end = i + e.len as usize;
                if e.k0 == k0 && e.k1 == k1 && end <= n {
                    let t = e.tail as usize;
                    if folded_eq(&hay[i + 8..end], &self.tails[t..t + e.len as usize - 8]) {
                        self.report(e, exact, hay, end, f);
                    }
                }
            }
        }
    }

    /// Report the long patterns that start at `i` (`i + 4 <= hay.len()`).
    #[cfg(test)]
    pub fn verify<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], i: usize, exact: &[u8], f: &mut F) {
        self.verify_rows(hay, i, self.locate(hay, i), exact, f)
    }

    #[inline(always)]
    fn report<F: FnMut(Match) + ?Sized>(
        &self,
        e: &Entry,
        exact: &[u8],
        hay: &[u8],
        end: usize,
        f: &mut F,
    ) {
        report(
            &self.reports[e.start as usize..e.end as usize],
            exact,
            hay,
            end,
            f,
        );
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        self.mid.memory_usage()
            + self.big.memory_usage()
            + self.tails.capacity()
            + self.reports.capacity() * std::mem::size_of::<PatternInfo>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: u32, len: usize, verify_at: u32) -> PatternInfo {
        PatternInfo {
            id,
            len: len as u32,
            verify_at,
        }
    }

    #[test]
    fn fold8_and_folded_eq() {
        let x = u64::from_le_bytes(*b"AbZ[@z09");
        assert_eq!(fold8(x), u64::from_le_bytes(*b"abz[@z09"));
        assert!(folded_eq(b"HeLLo WoRLD!", b"hello world!"));
        assert!(!folded_eq(b"HeLLo WoRLD?", b"hello world!"));
        assert!(!folded_eq(b"hello", b"hellp"));
        assert!(folded_eq(b"", b""));
    }

    #[test]
    fn shared_prefixes_and_lengths() {
        let pats: Vec<(Vec<u8>, PatternInfo)> = [
            &b"<title>a"[..],
            b"<title>b",
            b"<tit",
            b"<titl",
            b"<title>abcdefghij",
        ]
        .iter()
        .enumerate()
        .map(|(i, p)| (p.to_vec(), info(i as u32, p.len(), PatternInfo::NO_VERIFY)))
        .collect();
        let t = LongTable::new(pats);
        let hay = b"<TITLE>ABCDEFGHIJ";
        let mut got = Vec::new();
        t.verify(hay, 0, &[], &mut |m| got.push((m.pattern, m.end)));
        got.sort();
        assert_eq!(got, vec![(0, 8), (2, 4), (3, 5), (4, 17)]);
        got.clear();
        t.verify(&hay[..6], 0, &[], &mut |m| got.push((m.pattern, m.end)));
        got.sort();
        assert_eq!(got, vec![(2, 4), (3, 5)]);
    }

    #[test]
    fn case_checked_only_where_asked() {
        let exact = b"AbCd".to_vec();
        let t = LongTable::new(vec![
            (b"abcd".to_vec(), info(1, 4, 0)),
            (b"abcd".to_vec(), info(2, 4, PatternInfo::NO_VERIFY)),
        ]);
        let mut got = Vec::new();
        t.verify(b"abcd", 0, &exact, &mut |m| got.push(m.pattern));
        assert_eq!(got, vec![2]);
        got.clear();
        t.verify(b"AbCd", 0, &exact, &mut |m| got.push(m.pattern));
        got.sort();
        assert_eq!(got, vec![1, 2]);
    }
}

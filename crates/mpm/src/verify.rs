//! Verification for the filter-then-verify matchers (DFC, S-PATCH, V-PATCH): compact hash
//! tables per pattern-length class (DFC §3.3, V-PATCH §4.1.2). A position that passed the
//! filters is looked up in the table of its class by the case-folded first bytes of the
//! input (1, 2 or 3 bytes for the short classes, 4 for patterns of 4 bytes or more); each
//! bucket entry is one distinct case-folded pattern with the list of patterns that share it
//! (duplicates and case variants are compared once), and each listed pattern's case check
//! runs only when the folded bytes matched.
//!
//! Most real matches are runs of `|00|` patterns over zero-filled payloads, so long patterns
//! made of one repeated (folded) byte get their own class: per byte value, the report
//! records sorted by length. At a position whose first four bytes are that byte repeated,
//! the length of the run is found once per run ([`RunCache`]) and every pattern no longer
//! than what is left of it is reported from one flat list, as an Aho-Corasick output list
//! would be. Other long entries are checked with the 4-byte key, then the next 4 bytes,
//! then the rest (an exact `memcmp` first, case folding only when that fails).

use crate::pattern::{PatternInfo, PatternStore, FOLD};
use crate::{BuildError, Limits, Match, Pattern};

/// Patterns at least this long are "long": filtered by filters 2 and 3 and verified in the
/// 4-byte-keyed table.
pub(crate) const LONG: usize = 4;

/// Multiplier of the tables' hash (different from the filters' hashes).
const TABLE_MUL: u32 = 0x9e37_79b1;

/// One distinct case-folded pattern in a bucket.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Folded first `min(len, 4)` bytes, little-endian.
    key: u32,
    /// Pattern length.
    len: u32,
    /// Offset of the folded bytes after the first four in `Verifier::tails`.
    tail: u32,
    /// Folded bytes 4..8 (for a pattern of at least 8 bytes; 0 otherwise).
    next: u32,
    /// `Verifier::reports[start..end]` are the patterns with these folded bytes.
    start: u32,
    end: u32,
}

/// A hash table of [`Entry`] in compressed rows: bucket `b` is `entries[heads[b]..heads[b + 1]]`.
#[derive(Clone, Debug)]
struct Table {
    shift: u32,
    heads: Vec<u32>,
    entries: Vec<Entry>,
}

impl Table {
    fn new(mut entries: Vec<Entry>) -> Table {
        let buckets = (entries.len() * 2).next_power_of_two().max(2);
        let shift = 32 - buckets.trailing_zeros();
        let bucket = |key: u32| (key.wrapping_mul(TABLE_MUL) >> shift) as usize;
        entries.sort_by_key(|e| (bucket(e.key), e.len));
        let mut heads = vec![0u32; buckets + 1];
        for e in &entries {
            heads[bucket(e.key) + 1] += 1;
        }
        for b in 0..buckets {
            heads[b + 1] += heads[b];
        }
        Table {
            shift,
            heads,
            entries,
        }
    }

    #[inline(always)]
    fn probe(&self, key: u32) -> &[Entry] {
        let b = (key.wrapping_mul(TABLE_MUL) >> self.shift) as usize;
        let (s, e) = (self.heads[b] as usize, self.heads[b + 1] as usize);
        &self.entries[s..e]
    }

    fn memory_usage(&self) -> usize {
        self.heads.capacity() * 4 + self.entries.capacity() * std::mem::size_of::<Entry>()
    }
}

/// ASCII-lowercase the four bytes of `x` (SWAR: no table, no branch).
#[inline(always)]
pub(crate) fn fold4(x: u32) -> u32 {
    let low7 = x & 0x7f7f_7f7f;
    let ge_a = low7.wrapping_add(0x3f3f_3f3f); // high bit set where byte >= b'A'
    let gt_z = low7.wrapping_add(0x2525_2525); // high bit set where byte > b'Z'
    let upper = ge_a & !gt_z & !x & 0x8080_8080;
    x | (upper >> 2)
}

/// The little-endian `u32` at `hay[i..i + 4]`.
#[inline(always)]
pub(crate) fn load4(hay: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([hay[i], hay[i + 1], hay[i + 2], hay[i + 3]])
}

/// Whether `hay` equals the folded pattern bytes `pat` ignoring ASCII case.
#[inline(always)]
fn folded_eq(hay: &[u8], pat: &[u8]) -> bool {
    hay == pat || hay.eq_ignore_ascii_case(pat)
}

/// Check the pattern set and return its validated length bounds `(min, max)`.
pub(crate) fn validate(patterns: &[Pattern]) -> Result<(usize, usize), BuildError> {
    let mut min = usize::MAX;
    let mut max = 0;
    let mut total = 0usize;
    for p in patterns {
        if p.bytes.is_empty() {
            return Err(BuildError::EmptyPattern { id: p.id });
        }
        min = min.min(p.bytes.len());
        max = max.max(p.bytes.len());
        total = total.saturating_add(p.bytes.len());
    }
    if total > u32::MAX as usize / 2 {
        return Err(BuildError::TooLarge {
            bytes: total,
            limit: u32::MAX as usize / 2,
        });
    }
    Ok((min, max))
}

/// Where the current run of one folded byte ends, remembered between the long
/// verifications of one scan (candidates are verified in increasing position).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RunCache {
    byte: u8,
    start: usize,
    /// First position after `start` whose folded byte is not `byte` (or the haystack end).
    end: usize,
}

/// The verification tables of one pattern set.
#[derive(Clone, Debug)]
pub(crate) struct Verifier {
    /// Tables for patterns of 1, 2, 3 and at least 4 bytes.
    tables: [Table; 4],
    /// Which of the four classes have patterns.
    nonempty: [bool; 4],
    /// Folded bytes after the first four of the long patterns.
    tails: Vec<u8>,
    /// Report records, grouped by entry.
    reports: Vec<PatternInfo>,
    /// Exact bytes for case checks ([`PatternStore::bytes`]).
    exact: Vec<u8>,
    /// Long patterns made of one repeated folded byte `c`: `run_reports[runs[c]..runs[c+1]]`,
    /// sorted by length.
    runs: Vec<u32>,
    run_reports: Vec<PatternInfo>,
}

impl Verifier {
    /// Build the tables. `patterns` must have passed [`validate`].
    pub fn new(patterns: &[Pattern], limits: &Limits) -> Result<Verifier, BuildError> {
        let store = PatternStore::new(patterns);
        // Group pattern indices by folded bytes.
        let mut order: Vec<(Vec<u8>, usize)> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| (p.bytes.iter().map(|&b| FOLD[b as usize]).collect(), i))
            .collect();
        order.sort();
        let mut per_class: [Vec<Entry>; 4] = Default::default();
        let mut run_lists: Vec<Vec<PatternInfo>> = vec![Vec::new(); 256];
        let mut tails = Vec::new();
        let mut reports = Vec::with_capacity(patterns.len());
        let mut at = 0;
        while at < order.len() {
            let folded = &order[at].0;
            if folded.len() >= LONG && folded.iter().all(|&b| b == folded[0]) {
                run_lists[folded[0] as usize].push(store.infos[order[at].1]);
                at += 1;
                continue;
            }
            let start = reports.len() as u32;
            while at < order.len() && order[at].0 == *folded {
                reports.push(store.infos[order[at].1]);
                at += 1;
            }
            let mut key = [0u8; 4];
            let k = folded.len().min(LONG);
            key[..k].copy_from_slice(&folded[..k]);
            let tail = tails.len() as u32;
            let mut next = 0;
            if folded.len() > LONG {
                tails.extend_from_slice(&folded[LONG..]);
            }
            if folded.len() >= 2 * LONG {
                next = load4(folded, LONG);
            }
            per_class[k - 1].push(Entry {
                key: u32::from_le_bytes(key),
                len: folded.len() as u32,
                tail,
                next,
                start,
                end: reports.len() as u32,
            });
        }
        let mut runs = vec![0u32; 257];
        let mut run_reports = Vec::new();
        for (c, mut list) in run_lists.into_iter().enumerate() {
            list.sort_by_key(|info| info.len);
            run_reports.extend(list);
            runs[c + 1] = run_reports.len() as u32;
        }
        let nonempty = [0, 1, 2, 3].map(|c| !per_class[c].is_empty());
        let tables = per_class.map(Table::new);
        let v = Verifier {
            tables,
            nonempty,
            tails,
            reports,
            exact: store.bytes,
            runs,
            run_reports,
        };
        if v.memory_usage() > limits.memory {
            return Err(BuildError::TooLarge {
                bytes: v.memory_usage(),
                limit: limits.memory,
            });
        }
        Ok(v)
    }

    /// Report the patterns of `e` that end at `end` (folded bytes already matched).
    #[inline(always)]
    fn report<F: FnMut(Match) + ?Sized>(&self, e: &Entry, hay: &[u8], end: usize, f: &mut F) {
        for info in &self.reports[e.start as usize..e.end as usize] {
            if info.verify_at == PatternInfo::NO_VERIFY || self.confirm(info, hay, end) {
                f(Match {
                    pattern: info.id,
                    end,
                });
            }
        }
    }

    #[inline]
    fn confirm(&self, info: &PatternInfo, hay: &[u8], end: usize) -> bool {
        let len = info.len as usize;
        let at = info.verify_at as usize;
        hay.get(end.wrapping_sub(len)..end) == self.exact.get(at..at + len)
    }

    /// Verify the short patterns (1 to 3 bytes) that may start at `i`.
    #[inline]
    pub fn verify_short<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], i: usize, f: &mut F) {
        let n = hay.len();
        let mut key = FOLD[hay[i] as usize] as u32;
        for len in 1..LONG {
            if len > 1 {
                if i + len > n {
                    return;
                }
                key |= (FOLD[hay[i + len - 1] as usize] as u32) << (8 * (len - 1));
            }
            if self.nonempty[len - 1] {
                for e in self.tables[len - 1].probe(key) {
                    if e.key == key {
                        self.report(e, hay, i + len, f);
                    }
                }
            }
        }
    }

    /// Verify the one-byte patterns at `i` (the last position, which has no 2-byte window).
    #[inline]
    pub fn verify_one<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], i: usize, f: &mut F) {
        if self.nonempty[0] {
            let key = FOLD[hay[i] as usize] as u32;
            for e in self.tables[0].probe(key) {
                if e.key == key {
                    self.report(e, hay, i + 1, f);
                }
            }
        }
    }

    /// Verify the long patterns (4 bytes or more) that may start at `i`; `i + 4 <= hay.len()`.
    /// `run` is per scan and the calls of one scan come in increasing `i`.
    #[inline]
    pub fn verify_long<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        i: usize,
        run: &mut RunCache,
        f: &mut F,
    ) {
        let key = fold4(load4(hay, i));
        let n = hay.len();
        if key == (key & 0xff).wrapping_mul(0x0101_0101) {
            self.verify_run(hay, i, key as u8, run, f);
        }
        for e in self.tables[3].probe(key) {
            let end = i + e.len as usize;
            if e.key == key
                && end <= n
                && (e.len < 2 * LONG as u32 || fold4(load4(hay, i + LONG)) == e.next)
            {
                let t = e.tail as usize;
                let rest = &hay[i + LONG..end];
                if folded_eq(rest, &self.tails[t..t + rest.len()]) {
                    self.report(e, hay, end, f);
                }
            }
        }
    }

    /// Report the repeated-byte patterns of folded byte `c` that start at `i`, where the
    /// first four bytes fold to `c`.
    #[inline]
    fn verify_run<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        i: usize,
        c: u8,
        run: &mut RunCache,
        f: &mut F,
    ) {
        let (s, e) = (
            self.runs[c as usize] as usize,
            self.runs[c as usize + 1] as usize,
        );
        if s == e {
            return;
        }
        if !(run.byte == c && run.start <= i && i < run.end) {
            let mut end = i + LONG;
            while end < hay.len() && FOLD[hay[end] as usize] == c {
                end += 1;
            }
            *run = RunCache {
                byte: c,
                start: i,
                end,
            };
        }
        let left = run.end - i;
        for info in &self.run_reports[s..e] {
            let len = info.len as usize;
            if len > left {
                break;
            }
            if info.verify_at == PatternInfo::NO_VERIFY || self.confirm(info, hay, i + len) {
                f(Match {
                    pattern: info.id,
                    end: i + len,
                });
            }
        }
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        self.tables.iter().map(Table::memory_usage).sum::<usize>()
            + self.tails.capacity()
            + self.reports.capacity() * std::mem::size_of::<PatternInfo>()
            + self.exact.capacity()
            + self.runs.capacity() * 4
            + self.run_reports.capacity() * std::mem::size_of::<PatternInfo>()
    }
}

/// The raw byte values that match pattern byte `b`: both cases of an ASCII letter when the
/// pattern is `nocase`, the byte itself otherwise.
pub(crate) fn variants(b: u8, nocase: bool) -> impl Iterator<Item = u8> {
    let other = if nocase && b.is_ascii_alphabetic() {
        Some(b ^ 0x20)
    } else {
        None
    };
    std::iter::once(b).chain(other)
}

/// Every raw 2-byte window (`first | second << 8`) that can start an occurrence of `p`: for
/// a one-byte pattern, its byte followed by any byte.
pub(crate) fn first_pairs(p: &Pattern) -> Vec<u16> {
    let mut out = Vec::new();
    for a in variants(p.bytes[0], p.nocase) {
        match p.bytes.get(1) {
            Some(&b) => out.extend(variants(b, p.nocase).map(|b| a as u16 | (b as u16) << 8)),
            None => out.extend((0..=255u16).map(|b| a as u16 | b << 8)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold4_lowercases_only_letters() {
        for b in 0..=255u8 {
            let x = u32::from_le_bytes([b, b'@', b, b'[']);
            let want =
                u32::from_le_bytes([b.to_ascii_lowercase(), b'@', b.to_ascii_lowercase(), b'[']);
            assert_eq!(fold4(x), want, "byte {b:#x}");
        }
    }

    #[test]
    fn pairs_cover_case_variants() {
        let p = Pattern::nocase(&b"a1x"[..], 1);
        let mut got = first_pairs(&p);
        got.sort();
        assert_eq!(
            got,
            vec![
                b'A' as u16 | (b'1' as u16) << 8,
                b'a' as u16 | (b'1' as u16) << 8
            ]
        );
        assert_eq!(first_pairs(&Pattern::new(&b"Q"[..], 1)).len(), 256);
        assert_eq!(first_pairs(&Pattern::nocase(&b"Q"[..], 1)).len(), 512);
    }

    #[test]
    fn verifier_reports_duplicates_and_checks_case() {
        let pats = [
            Pattern::new(&b"abcdef"[..], 1),
            Pattern::nocase(&b"ABCDEF"[..], 2),
            Pattern::new(&b"abcdef"[..], 3),
            Pattern::new(&b"Ab"[..], 4),
        ];
        let v = Verifier::new(&pats, &Limits::default()).unwrap();
        let mut got = Vec::new();
        let run = &mut RunCache::default();
        v.verify_long(b"xabcdef", 1, run, &mut |m| got.push(m.pattern));
        got.sort();
        assert_eq!(got, vec![1, 2, 3]);
        got.clear();
        v.verify_long(b"ABCDEF", 0, run, &mut |m| got.push(m.pattern));
        assert_eq!(got, vec![2]);
        got.clear();
        v.verify_short(b"ab", 0, &mut |m| got.push(m.pattern));
        assert!(got.is_empty());
        v.verify_short(b"Ab", 0, &mut |m| got.push(m.pattern));
        assert_eq!(got, vec![4]);
        assert_eq!(v.nonempty, [false, true, false, true]);
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    #[test]
    fn runs_report_by_length_and_case() {
        let pats = [
            Pattern::new(vec![0u8; 6], 6),
            Pattern::new(vec![0u8; 4], 4),
            Pattern::new(&b"AAAA"[..], 40),
            Pattern::nocase(&b"aaaaa"[..], 50),
            Pattern::new(vec![0, 0, 0, 0, 1], 1),
        ];
        let v = Verifier::new(&pats, &Limits::default()).unwrap();
        let run = &mut RunCache::default();
        let hay = [0u8, 0, 0, 0, 0, 0, 1, 0];
        let mut got = Vec::new();
        for i in 0..=hay.len() - 4 {
            v.verify_long(&hay, i, run, &mut |m| got.push((m.pattern, m.end)));
        }
        got.sort();
        assert_eq!(got, vec![(1, 7), (4, 4), (4, 5), (4, 6), (6, 6)]);
        got.clear();
        let hay = b"AAaAA";
        for i in 0..=1 {
            v.verify_long(hay, i, run, &mut |m| got.push((m.pattern, m.end)));
        }
        got.sort();
        assert_eq!(got, vec![(50, 5)]);
    }
}

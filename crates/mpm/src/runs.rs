//! Run patterns for S-PATCH and V-PATCH: the patterns whose first two case-folded bytes are
//! equal (`|00 00 00|`, `AAAAAAAA`, `XXX`, `//evil`, `www.`).
//!
//! On IDS traffic most matches come from such patterns over zero-filled or padded payloads:
//! every position of a run of `|00|` starts a 2-byte window `|00 00|`, so a filter indexed
//! by the first bytes passes the whole run and verification runs at every byte. Instead,
//! these patterns stay out of the filters and are found from the maximal runs of one folded
//! byte (at least 2 long), located with 8-byte SWAR compares:
//!
//! - a pattern made only of byte `c` (*pure*) of length `k` matches at every window of
//!   length `k` inside a run of `c` of length `L >= k`: `L - k + 1` matches reported in one
//!   tight loop, no lookup per position (a case-sensitive pattern of one letter uses the
//!   exact-byte sub-runs instead);
//! - a pattern `c^r` followed by other bytes (*prefixed*, `r >= 2`) can only start `r` bytes
//!   before the end of a maximal run of `c`, so it is looked up once per run, by the run's
//!   byte and the two bytes after the run.

use crate::long::{confirm, fold8, folded_eq, load8, report, Buckets};
use crate::pattern::{PatternInfo, FOLD};
use crate::Match;

/// Whether a pattern (its folded bytes) belongs to the run class.
pub(crate) fn is_run_class(folded: &[u8]) -> bool {
    folded.len() >= 2 && folded[0] == folded[1]
}

/// A distinct folded prefixed pattern: `c^r` then `rest`.
#[derive(Clone, Copy, Debug)]
struct Prefixed {
    /// [`pref_key`] of `c` and the first bytes of `rest`.
    key: u32,
    /// Length of the leading run.
    r: u32,
    /// `RunTable::rests[rest..rest + rest_len]` is the folded rest.
    rest: u32,
    rest_len: u32,
    /// `RunTable::reports[start..end]`.
    start: u32,
    end: u32,
}

/// Key of a prefixed pattern: run byte, first byte after the run, and the second one (with
/// bit 8 set) when the rest has two bytes or more.
#[inline(always)]
fn pref_key(c: u8, r0: u8, r1: Option<u8>) -> u32 {
    let second = r1.map_or(0, |b| b as u32 | 0x100);
    c as u32 | (r0 as u32) << 8 | second << 16
}

/// The run class of one pattern set.
#[derive(Clone, Debug)]
pub(crate) struct RunTable {
    /// Per folded byte: any run pattern (`1`), any prefixed pattern with a one-byte rest (`2`).
    flags: [u8; 256],
    /// Pure patterns found on folded runs: `fold_pure[fold_heads[c]..fold_heads[c + 1]]`,
    /// sorted by length.
    fold_heads: Vec<u32>,
    fold_pure: Vec<PatternInfo>,
    /// Case-sensitive pure patterns of one letter, found on exact-byte runs:
    /// `raw_pure[raw_heads[b]..raw_heads[b + 1]]` for raw byte `b`, sorted by length.
    raw_heads: Vec<u32>,
    raw_pure: Vec<PatternInfo>,
    prefixed: Buckets<Prefixed>,
    rests: Vec<u8>,
    reports: Vec<PatternInfo>,
}

const ACTIVE: u8 = 1;
const SHORT_REST: u8 = 2;
const LETTER_RUNS: u8 = 4;

impl RunTable {
    /// Build from `(folded bytes, exact bytes, report record)` of run-class patterns.
    pub fn new(mut pats: Vec<(Vec<u8>, Vec<u8>, PatternInfo)>) -> RunTable {
        pats.sort_by(|a, b| a.0.cmp(&b.0));
        let mut flags = [0u8; 256];
        let mut fold_lists: Vec<Vec<PatternInfo>> = vec![Vec::new(); 256];
        let mut raw_lists: Vec<Vec<PatternInfo>> = vec![Vec::new(); 256];
        let mut prefixed = Vec::new();
        let mut rests = Vec::new();
        let mut reports = Vec::new();
        let mut at = 0;
        while at < pats.len() {
            let folded = pats[at].0.clone();
            let c = folded[0];
            flags[c as usize] |= ACTIVE;
            let r = folded.iter().take_while(|&&b| b == c).count();
            if r == folded.len() {
                let (_, raw, info) = &pats[at];
                at += 1;
                if info.verify_at != PatternInfo::NO_VERIFY && raw.iter().all(|&b| b == raw[0]) {
                    // One exact letter repeated: exact-byte runs, no per-match case check.
                    flags[c as usize] |= LETTER_RUNS;
                    raw_lists[raw[0] as usize].push(PatternInfo {
                        verify_at: PatternInfo::NO_VERIFY,
                        ..*info
                    });
                } else {
                    fold_lists[c as usize].push(*info);
                }
                continue;
            }
            let start = reports.len() as u32;
            while at < pats.len() && pats[at].0 == folded {
                reports.push(pats[at].2);
                at += 1;
            }
            let rest = &folded[r..];
            if rest.len() == 1 {
                flags[c as usize] |= SHORT_REST;
            }
            prefixed.push(Prefixed {
                key: pref_key(c, rest[0], rest.get(1).copied()),
                r: r as u32,
                rest: rests.len() as u32,
                rest_len: rest.len() as u32,
                start,
                end: reports.len() as u32,
            });
            rests.extend_from_slice(rest);
        }
        let flatten = |lists: Vec<Vec<PatternInfo>>| {
            let mut heads = vec![0u32; 257];
            let mut flat = Vec::new();
            for (b, mut list) in lists.into_iter().enumerate() {
                list.sort_by_key(|i| i.len);
                flat.extend(list);
                heads[b + 1] = flat.len() as u32;
            }
            (heads, flat)
        };
        let (fold_heads, fold_pure) = flatten(fold_lists);
        let (raw_heads, raw_pure) = flatten(raw_lists);
        RunTable {
            flags,
            fold_heads,
            fold_pure,
            raw_heads,
            raw_pure,
            prefixed: Buckets::new(prefixed, |p| p.key),
            rests,
            reports,
        }
    }

    /// Whether the set has no run pattern.
    pub fn is_empty(&self) -> bool {
        self.flags.iter().all(|&f| f == 0)
    }

    /// Report every match of the run patterns in `hay`.
    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], exact: &[u8], f: &mut F) {
        let n = hay.len();
        let mut i = 0;
        while let Some(s) = next_pair(hay, i) {
            let c = FOLD[hay[s] as usize];
            let e = run_end(hay, s + 2, c);
            if self.flags[c as usize] != 0 {
                self.run(hay, s, e, c, exact, f);
            }
            if e >= n {
                break;
            }
            i = e;
        }
    }

    /// The matches of the maximal run `hay[s..e]` of folded byte `c` (`e - s >= 2`).
    #[inline]
    fn run<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        s: usize,
        e: usize,
        c: u8,
        exact: &[u8],
        f: &mut F,
    ) {
        let len = e - s;
        let c = c as usize;
        let (a, b) = (self.fold_heads[c] as usize, self.fold_heads[c + 1] as usize);
        for info in &self.fold_pure[a..b] {
            let k = info.len as usize;
            if k > len {
                break;
            }
            if info.verify_at == PatternInfo::NO_VERIFY {
                for end in s + k..e + 1 {
                    f(Match {
                        pattern: info.id,
                        end,
                    });
                }
            } else {
                for end in s + k..e + 1 {
                    if confirm(info, exact, hay, end) {
                        f(Match {
                            pattern: info.id,
                            end,
                        });
                    }
                }
            }
        }
        if self.flags[c] & LETTER_RUNS != 0 {
            self.letter_runs(hay, s, e, f);
        }
        if e < hay.len() && !self.prefixed.is_empty() {
            let r0 = FOLD[hay[e] as usize];
            if self.flags[c] & SHORT_REST != 0 {
                self.prefixed_at(hay, e, len, pref_key(c as u8, r0, None), exact, f);
            }
            if e + 1 < hay.len() {
                let r1 = FOLD[hay[e + 1] as usize];
                self.prefixed_at(hay, e, len, pref_key(c as u8, r0, Some(r1)), exact, f);
            }
        }
    }

    /// Case-sensitive pure patterns of one letter over the exact-byte sub-runs of `s..e`.
    fn letter_runs<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], s: usize, e: usize, f: &mut F) {
        let mut a = s;
        while a < e {
            let b0 = hay[a];
            let mut b = a + 1;
            while b < e && hay[b] == b0 {
                b += 1;
            }
            let (h0, h1) = (
                self.raw_heads[b0 as usize] as usize,
                self.raw_heads[b0 as usize + 1] as usize,
            );
            for info in &self.raw_pure[h0..h1] {
                let k = info.len as usize;
                if k > b - a {
                    break;
                }
                for end in a + k..b + 1 {
                    f(Match {
                        pattern: info.id,
                        end,
                    });
                }
            }
            a = b;
        }
    }

    /// Prefixed patterns whose rest starts at `e`, the end of a run of `len` bytes.
    #[inline]
    fn prefixed_at<F: FnMut(Match) + ?Sized>(
        &self,
        hay: &[u8],
        e: usize,
        len: usize,
        key: u32,
        exact: &[u8],
        f: &mut F,
    ) {
        for p in self.prefixed.probe(key) {
            let end = e + p.rest_len as usize;
            if p.key == key && p.r as usize <= len && end <= hay.len() {
                let r = p.rest as usize;
                if folded_eq(&hay[e..end], &self.rests[r..r + p.rest_len as usize]) {
                    report(
                        &self.reports[p.start as usize..p.end as usize],
                        exact,
                        hay,
                        end,
                        f,
                    );
                }
            }
        }
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        (self.fold_heads.capacity() + self.raw_heads.capacity()) * 4
            + (self.fold_pure.capacity() + self.raw_pure.capacity() + self.reports.capacity())
                * std::mem::size_of::<PatternInfo>()
            + self.prefixed.memory_usage()
            + self.rests.capacity()
    }
}

/// Whether some byte of `x` is zero (the lowest flagged byte is the first zero byte).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080
}

/// The first `s >= i` with `fold(hay[s]) == fold(hay[s + 1])`.
#[inline]
fn next_pair(hay: &[u8], mut i: usize) -> Option<usize> {
    let n = hay.len();
    while i + 9 <= n {
        let z = zero_bytes(fold8(load8(hay, i)) ^ fold8(load8(hay, i + 1)));
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i + 1 < n {
        if FOLD[hay[i] as usize] == FOLD[hay[i + 1] as usize] {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The first `e >= i` whose folded byte is not `c` (or `hay.len()`).
#[inline]
fn run_end(hay: &[u8], mut i: usize, c: u8) -> usize {
    let n = hay.len();
    let all = 0x0101_0101_0101_0101u64 * c as u64;
    while i + 8 <= n {
        let z = fold8(load8(hay, i)) ^ all;
        if z != 0 {
            return i + (z.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && FOLD[hay[i] as usize] == c {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::PatternStore;
    use crate::Pattern;

    fn table(pats: &[Pattern]) -> (RunTable, Vec<u8>) {
        let store = PatternStore::new(pats);
        let list = pats
            .iter()
            .zip(&store.infos)
            .map(|(p, info)| (p.bytes.to_ascii_lowercase(), p.bytes.clone(), *info))
            .filter(|(folded, _, _)| is_run_class(folded))
            .collect();
        (RunTable::new(list), store.bytes)
    }

    fn check(pats: &[Pattern], hay: &[u8]) {
        let (t, exact) = table(pats);
        let mut got = Vec::new();
        t.scan(hay, &exact, &mut |m| got.push(m));
        got.sort();
        let mut want: Vec<Match> = crate::naive::find_all(pats, hay)
            .into_iter()
            .filter(|m| {
                let p = pats.iter().find(|p| p.id == m.pattern).unwrap();
                is_run_class(&p.bytes.to_ascii_lowercase())
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "haystack {:?}", String::from_utf8_lossy(hay));
    }

    #[test]
    fn runs_pure_prefixed_and_case() {
        let pats = vec![
            Pattern::new(vec![0u8; 3], 1),
            Pattern::new(vec![0u8; 5], 2),
            Pattern::new(&b"AAAA"[..], 3),
            Pattern::nocase(&b"xxx"[..], 4),
            Pattern::new(&b"XXX"[..], 5),
            Pattern::new(&b"aA"[..], 6),
            Pattern::new(&b"wwW."[..], 7),
            Pattern::nocase(&b"//evil"[..], 8),
            Pattern::new(&[0, 0, 0, 0, 1][..], 9),
            Pattern::new(&[0, 0, 7][..], 10),
            Pattern::new(&b"ab"[..], 11),
            Pattern::new(&b"qqz"[..], 12),
        ];
        let mut hay = vec![0u8; 40];
        hay.extend_from_slice(b"\x01AAAAAaAAAAxXxXXXXaAAawwW.wwww.//EVIL///evil\0\0\x07qqz\0\0");
        check(&pats, &hay);
        for cut in 0..hay.len() {
            check(&pats, &hay[cut..]);
            check(&pats, &hay[..cut]);
        }
    }

    #[test]
    fn pair_and_run_search() {
        assert_eq!(next_pair(b"abcdefghijkk", 0), Some(10));
        assert_eq!(next_pair(b"abcdefghijkl", 0), None);
        assert_eq!(next_pair(b"aBbcdefghijk", 0), Some(1));
        assert_eq!(run_end(b"aaaaAAAAAaaab", 0, b'a'), 12);
        assert_eq!(run_end(b"aaa", 0, b'a'), 3);
    }
}

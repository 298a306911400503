//! Verification of the short patterns (1 to 3 bytes) for S-PATCH and V-PATCH: per-byte and
//! per-window report lists, no hashing and no case check.
//!
//! Filter 1 has one bit per raw 2-byte window that can start a short pattern (a one-byte
//! pattern sets the 256 windows that start with each of its raw bytes). Verification keeps
//! the two kinds apart so that its tables stay a few KiB (L1) even when ET's one-byte
//! contents (`x`, `;`, the digits) make a tenth of all positions candidates:
//!
//! - one-byte patterns: per raw byte, the list of their ids (a match as it stands);
//! - two- and three-byte patterns: a bitmap over the raw 2-byte windows that start one, and
//!   per set bit (its rank, a per-word prefix count plus one popcount) the items
//!   `(id, length, third byte)`. Since the window is raw, a 2-byte item is a match as it
//!   stands, and a 3-byte item compares one more byte with its (at most two) accepted raw
//!   values.

use crate::verify::variants;
use crate::{Match, Pattern};

/// One 2- or 3-byte pattern under one raw window.
#[derive(Clone, Copy, Debug)]
struct Item {
    id: u32,
    len: u8,
    /// Accepted raw values of the third byte (3-byte patterns).
    third: u8,
    third_alt: u8,
}

/// Words of [`ShortTable::pairs`] (one bit per raw 2-byte window).
const PAIR_WORDS: usize = 1 << 10;

/// The per-byte and per-window lists.
#[derive(Clone, Debug)]
pub(crate) struct ShortTable {
    /// One-byte pattern ids of raw byte `b`: `ones[one_heads[b]..one_heads[b + 1]]`.
    one_heads: Vec<u32>,
    ones: Vec<u32>,
    /// Bit `idx & 63` of word `idx >> 6`: window `idx` starts a 2- or 3-byte pattern.
    pairs: Box<[u64; PAIR_WORDS]>,
    /// Number of `pairs` bits set before word `w`.
    base: Vec<u32>,
    /// Items of the set bit of rank `k`: `items[heads[k]..heads[k + 1]]`.
    heads: Vec<u32>,
    items: Vec<Item>,
    /// (window, pattern) entries behind filter 1, one-byte patterns counted per window.
    entries: usize,
}

impl ShortTable {
    /// Build for the short `patterns` (all shorter than 4 bytes); their windows are the
    /// filter-1 bits of the filters.
    pub fn new(patterns: &[&Pattern]) -> ShortTable {
        let mut one_lists: Vec<Vec<u32>> = vec![Vec::new(); 256];
        let mut pair_lists: Vec<Vec<Item>> = vec![Vec::new(); 1 << 16];
        let mut entries = 0;
        for p in patterns {
            debug_assert!(!p.bytes.is_empty() && p.bytes.len() < 4);
            if p.bytes.len() == 1 {
                for b in variants(p.bytes[0], p.nocase) {
                    one_lists[b as usize].push(p.id);
                    entries += 256;
                }
                continue;
            }
            let (third, third_alt) = match p.bytes.get(2) {
                Some(&b) => {
                    let mut v = variants(b, p.nocase);
                    let a = v.next().unwrap_or(b);
                    (a, v.next().unwrap_or(a))
                }
                None => (0, 0),
            };
            let item = Item {
                id: p.id,
                len: p.bytes.len() as u8,
                third,
                third_alt,
            };
            for idx in crate::verify::first_pairs(p) {
                pair_lists[idx as usize].push(item);
                entries += 1;
            }
        }
        let mut one_heads = vec![0u32; 257];
        let mut ones = Vec::new();
        for (b, l) in one_lists.into_iter().enumerate() {
            ones.extend(l);
            one_heads[b + 1] = ones.len() as u32;
        }
        let mut pairs = Box::new([0u64; PAIR_WORDS]);
        let mut heads = vec![0u32];
        let mut items = Vec::new();
        for (idx, mut l) in pair_lists.into_iter().enumerate() {
            if l.is_empty() {
                continue;
            }
            pairs[idx >> 6] |= 1 << (idx & 63);
            l.sort_by_key(|i| i.len);
            items.extend(l);
            heads.push(items.len() as u32);
        }
        let mut base = vec![0u32; PAIR_WORDS + 1];
        for w in 0..PAIR_WORDS {
            base[w + 1] = base[w] + pairs[w].count_ones();
        }
        ShortTable {
            one_heads,
            ones,
            pairs,
            base,
            heads,
            items,
            entries,
        }
    }

    /// Report the short patterns that start at `i`; the window at `i` passed filter 1 (at
    /// the last position, `i + 1 == hay.len()`, only one-byte patterns can match).
    #[inline(always)]
    pub fn verify<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], i: usize, f: &mut F) {
        let n = hay.len();
        let b0 = hay[i] as usize;
        let (a, b) = (self.one_heads[b0] as usize, self.one_heads[b0 + 1] as usize);
        for &id in &self.ones[a..b] {
            f(Match {
                pattern: id,
                end: i + 1,
            });
        }
        if i + 2 > n {
            return;
        }
        let idx = b0 | (hay[i + 1] as usize) << 8;
        let word = self.pairs[idx >> 6];
        let bit = idx & 63;
        if word >> bit & 1 == 0 {
            return;
        }
        let r = self.base[idx >> 6] as usize + (word & ((1u64 << bit) - 1)).count_ones() as usize;
        let (a, b) = (self.heads[r] as usize, self.heads[r + 1] as usize);
        for it in &self.items[a..b] {
            let len = it.len as usize;
            if len == 2 || (i + 3 <= n && (hay[i + 2] == it.third || hay[i + 2] == it.third_alt)) {
                f(Match {
                    pattern: it.id,
                    end: i + len,
                });
            }
        }
    }

    /// Number of (window, pattern) entries behind filter 1 (the performance model's `x1`).
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        (self.one_heads.capacity() + self.ones.capacity()) * 4
            + PAIR_WORDS * 8
            + (self.base.capacity() + self.heads.capacity()) * 4
            + self.items.capacity() * std::mem::size_of::<Item>()
    }
}

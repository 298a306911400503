//! Verification of the short patterns (1 to 3 bytes) for S-PATCH and V-PATCH: per-window
//! report lists, no hashing and no case check.
//!
//! Filter 1 has one bit per raw 2-byte window that can start a short pattern. Each set bit
//! owns a list of items (its rank among the set bits, counted with one popcount over the
//! merged filter word plus a per-word prefix count, picks the list): every short pattern
//! whose case variants start with that raw window, as `(id, length, third byte)`. Since
//! the window is raw, a 1- or 2-byte item is a match as it stands, and a 3-byte item only
//! compares one more byte with its (at most two) accepted raw values.

use crate::spatch::{Filters, F12_WORDS};
use crate::verify::variants;
use crate::{Match, Pattern};

/// One short pattern under one raw window.
#[derive(Clone, Copy, Debug)]
struct Item {
    id: u32,
    len: u8,
    /// Accepted raw values of the third byte (3-byte patterns).
    third: u8,
    third_alt: u8,
}

/// The per-window lists.
#[derive(Clone, Debug)]
pub(crate) struct ShortTable {
    /// Number of filter-1 bits set in the merged words before word `w`.
    base: Vec<u32>,
    /// Items of the set bit of rank `k`: `items[heads[k]..heads[k + 1]]`.
    heads: Vec<u32>,
    items: Vec<Item>,
}

impl ShortTable {
    /// Build for the short `patterns` (all shorter than 4 bytes) whose windows are the
    /// filter-1 bits of `fl`.
    pub fn new(fl: &Filters, patterns: &[&Pattern]) -> ShortTable {
        let mut base = vec![0u32; F12_WORDS + 1];
        for w in 0..F12_WORDS {
            base[w + 1] = base[w] + (fl.f12[w] & 0xffff).count_ones();
        }
        let total = base[F12_WORDS] as usize;
        let mut lists: Vec<Vec<Item>> = vec![Vec::new(); total];
        for p in patterns {
            debug_assert!(!p.bytes.is_empty() && p.bytes.len() < 4);
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
                let rank = rank(fl, &base, idx as usize);
                if let Some(r) = rank {
                    lists[r].push(item);
                }
            }
        }
        let mut heads = Vec::with_capacity(total + 1);
        let mut items = Vec::new();
        heads.push(0);
        for mut l in lists {
            l.sort_by_key(|i| i.len);
            items.extend(l);
            heads.push(items.len() as u32);
        }
        ShortTable { base, heads, items }
    }

    /// Report the short patterns that start at `i`; the window at `i` passed filter 1 (at
    /// the last position, `i + 1 == hay.len()`, the window's second byte reads as 0 and
    /// only 1-byte patterns can match).
    #[inline]
    pub fn verify<F: FnMut(Match) + ?Sized>(&self, fl: &Filters, hay: &[u8], i: usize, f: &mut F) {
        let n = hay.len();
        let second = hay.get(i + 1).copied().unwrap_or(0);
        let idx = hay[i] as usize | (second as usize) << 8;
        let Some(r) = rank(fl, &self.base, idx) else {
            return;
        };
        let (a, b) = (self.heads[r] as usize, self.heads[r + 1] as usize);
        for it in &self.items[a..b] {
            let len = it.len as usize;
            let ok = match len {
                1 => true,
                2 => i + 2 <= n,
                _ => i + 3 <= n && (hay[i + 2] == it.third || hay[i + 2] == it.third_alt),
            };
            if ok {
                f(Match {
                    pattern: it.id,
                    end: i + len,
                });
            }
        }
    }

    /// Number of (window, pattern) entries over all lists (the performance model's `x1`).
    pub fn entries(&self) -> usize {
        self.items.len()
    }

    /// Heap bytes used.
    pub fn memory_usage(&self) -> usize {
        (self.base.capacity() + self.heads.capacity()) * 4
            + self.items.capacity() * std::mem::size_of::<Item>()
    }
}

/// The rank of filter-1 bit `idx` among the set bits, `None` when it is clear.
#[inline(always)]
fn rank(fl: &Filters, base: &[u32], idx: usize) -> Option<usize> {
    let word = fl.f12[idx >> 4] & 0xffff;
    let bit = idx & 15;
    if word >> bit & 1 == 0 {
        return None;
    }
    Some(base[idx >> 4] as usize + (word & ((1 << bit) - 1)).count_ones() as usize)
}

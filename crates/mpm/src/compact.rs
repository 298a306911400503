//! AC-Compact (MIDeA §3.2.2): each state keeps only its goto transitions, stored as a banded
//! row (the entries from its first to its last goto byte), plus its failure link. The next
//! state "has to be computed": follow failure links until a state has a goto for the byte.
//! The root's row is full, so the walk always ends there.

use crate::pattern::{PatternStore, FOLD};
use crate::report::Reporter;
use crate::trie::Nfa;
use crate::{BuildError, Limits, Match};

/// One state's banded row and failure link.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    /// Index in `entries` of the band's first entry.
    off: u32,
    /// Failure link.
    fail: u32,
    /// Band length (0..=256).
    len: u16,
    /// First byte of the band.
    lo: u8,
}

#[derive(Clone, Debug)]
pub(crate) struct AcCompact {
    /// Root transitions by raw input byte (case folding included); 0 means stay at the root.
    root: Box<[u32; 256]>,
    rows: Vec<Row>,
    /// Band entries: the goto target, or 0 for none (no goto leads back to the root).
    entries: Vec<u32>,
    match_min: u32,
    reporter: Reporter,
}

impl AcCompact {
    pub fn new(nfa: &Nfa, store: &PatternStore, limits: &Limits) -> Result<Self, BuildError> {
        let n = nfa.num_states();
        let band_total: usize = nfa
            .gotos
            .iter()
            .map(|g| match (g.first(), g.last()) {
                (Some(a), Some(b)) => (b.0 - a.0) as usize + 1,
                _ => 0,
            })
            .sum();
        let bytes = n * std::mem::size_of::<Row>() + band_total * 4;
        if bytes > limits.memory {
            return Err(BuildError::TooLarge {
                bytes,
                limit: limits.memory,
            });
        }
        let mut root = Box::new([0u32; 256]);
        for &(c, v) in &nfa.gotos[0] {
            root[c as usize] = v;
        }
        for b in 0..256 {
            root[b] = root[FOLD[b] as usize];
        }
        let mut rows = Vec::with_capacity(n);
        let mut entries = Vec::with_capacity(band_total);
        for (s, g) in nfa.gotos.iter().enumerate() {
            let mut row = Row {
                off: entries.len() as u32,
                fail: nfa.fail[s],
                len: 0,
                lo: 0,
            };
            if s != 0 {
                if let (Some(&(lo, _)), Some(&(hi, _))) = (g.first(), g.last()) {
                    row.lo = lo;
                    row.len = (hi - lo) as u16 + 1;
                    let start = entries.len();
                    entries.resize(start + row.len as usize, 0);
                    for &(c, v) in g {
                        entries[start + (c - lo) as usize] = v;
                    }
                }
            }
            rows.push(row);
        }
        Ok(AcCompact {
            root,
            rows,
            entries,
            match_min: nfa.match_min,
            reporter: Reporter::new(nfa, store),
        })
    }

    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, haystack: &[u8], f: &mut F) {
        let mut s = 0u32;
        for (i, &b) in haystack.iter().enumerate() {
            s = self.next(s, b);
            if s >= self.match_min {
                self.reporter.report(s, i + 1, haystack, f);
            }
        }
    }

    /// The computed transition: gotos, else failure links, down to the full root row.
    #[inline(always)]
    fn next(&self, mut s: u32, b: u8) -> u32 {
        let c = FOLD[b as usize];
        loop {
            if s == 0 {
                return self.root[b as usize];
            }
            let row = self.rows[s as usize];
            let k = c.wrapping_sub(row.lo) as usize;
            if k < row.len as usize {
                let t = self.entries[row.off as usize + k];
                if t != 0 {
                    return t;
                }
            }
            s = row.fail;
        }
    }

    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<[u32; 256]>()
            + self.rows.capacity() * std::mem::size_of::<Row>()
            + self.entries.capacity() * 4
            + self.reporter.memory_usage()
    }
}

//! Each pattern once per buffer: the prefilter needs the set of patterns that occur in a
//! buffer, not every position, so [`Matcher::scan_unique`] passes a pattern id on only
//! the first time the automaton reports it during one scan. Which ids were reported is
//! kept in generation stamps ([`Seen`]): starting a scan bumps the generation, so the
//! reset costs nothing however many patterns the matcher holds (the stamps are cleared
//! only when the 32-bit generation wraps).

use crate::{Match, Matcher};

/// Which patterns a scan already reported (generation stamps; reuse one per thread).
#[derive(Debug, Default, Clone)]
pub struct Seen {
    stamp: Vec<u32>,
    gen: u32,
}

impl Seen {
    /// Starts a scan over pattern ids `0..n`.
    pub fn begin(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
    }

    /// True the first time `id` is reported since [`Self::begin`] (false for ids at or
    /// past the `n` given there).
    #[inline(always)]
    pub fn first(&mut self, id: u32) -> bool {
        match self.stamp.get_mut(id as usize) {
            Some(s) if *s != self.gen => {
                *s = self.gen;
                true
            }
            _ => false,
        }
    }
}

/// What one [`Matcher::scan_unique`] found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ScanCounts {
    /// Matches the automaton reported (every pattern at every end position).
    pub reported: u64,
    /// Distinct patterns passed on (each once).
    pub unique: u64,
}

impl ScanCounts {
    /// Adds `o` to these counts.
    pub fn add(&mut self, o: ScanCounts) {
        self.reported += o.reported;
        self.unique += o.unique;
    }
}

impl Matcher {
    /// Calls `on_pattern` once for each pattern that occurs in `haystack` (pattern ids
    /// must be below [`Matcher::pattern_count`]: the dense ids a prefilter gives),
    /// in the order of their first report, and counts the reports.
    #[inline]
    pub fn scan_unique<F: FnMut(u32)>(
        &self,
        haystack: &[u8],
        seen: &mut Seen,
        mut on_pattern: F,
    ) -> ScanCounts {
        seen.begin(self.pattern_count());
        let mut c = ScanCounts::default();
        self.scan(haystack, &mut |m: Match| {
            c.reported += 1;
            if seen.first(m.pattern) {
                c.unique += 1;
                on_pattern(m.pattern);
            }
        });
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Pattern};

    fn pats() -> Vec<Pattern> {
        vec![
            Pattern::new(&b"\x00\x00"[..], 0),
            Pattern::nocase(&b"ab"[..], 1),
            Pattern::new(&b"Xy"[..], 2),
            Pattern::new(&b"zzz"[..], 3),
        ]
    }

    #[test]
    fn each_pattern_once_per_scan_on_every_kind() {
        let hay = b"\x00\x00\x00\x00\x00ab AB aB Xy xy Xy zz";
        for kind in [
            Kind::AcFull,
            Kind::AcCompact,
            Kind::Dfc,
            Kind::Spatch,
            Kind::Vpatch,
        ] {
            let m = Matcher::new(kind, &pats()).unwrap();
            let mut seen = Seen::default();
            let mut got = Vec::new();
            let c = m.scan_unique(hay, &mut seen, |p| got.push(p));
            got.sort_unstable();
            assert_eq!(got, vec![0, 1, 2], "{kind}");
            // 4 runs of |00 00| in five zeros, 3 of "ab", 2 of "Xy".
            assert_eq!(
                c,
                ScanCounts {
                    reported: 9,
                    unique: 3
                },
                "{kind}"
            );
            assert_eq!(c.reported as usize, m.count(hay), "{kind}");
            // The next scan starts afresh without clearing anything.
            let mut again = Vec::new();
            m.scan_unique(b"zzzz ab", &mut seen, |p| again.push(p));
            again.sort_unstable();
            assert_eq!(again, vec![1, 3], "{kind}");
        }
    }

    #[test]
    fn generation_wrap_clears_the_stamps() {
        let mut s = Seen::default();
        s.begin(3);
        assert!(s.first(1));
        assert!(!s.first(1));
        assert!(!s.first(7));
        s.gen = u32::MAX;
        s.stamp[2] = 0;
        s.begin(3);
        assert_eq!(s.gen, 1);
        assert!(s.first(1) && s.first(2) && !s.first(2));
    }
}

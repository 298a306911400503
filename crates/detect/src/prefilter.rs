//! Prefilter: one multi-pattern matcher per (signature group, buffer) over the fast
//! patterns of the group's rules; a match makes its rules candidates.

use std::collections::HashMap;

/// A matcher and the rules each of its patterns stands for.
#[derive(Debug)]
pub(crate) struct Prefilter {
    matcher: mpm::Matcher,
    /// Pattern id → signature indices.
    pat_sigs: Vec<Vec<u32>>,
    /// Pattern id → (bytes, nocase): what a batch matcher elsewhere needs (`offload`).
    pats: Vec<(Vec<u8>, bool)>,
}

/// What a build used.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PrefilterStats {
    pub patterns: usize,
    pub memory: usize,
}

impl Prefilter {
    /// Builds a prefilter over `(pattern, nocase, sig)` entries. Falls back to AC-Compact
    /// when the chosen kind cannot hold the set; `Err` with the sigs when nothing can
    /// (the caller then evaluates them without prefilter).
    pub fn build(kind: mpm::Kind, entries: &[(Vec<u8>, bool, u32)]) -> Result<Prefilter, Vec<u32>> {
        let mut ids: HashMap<(&[u8], bool), u32> = HashMap::new();
        let mut pats = Vec::new();
        let mut pat_sigs: Vec<Vec<u32>> = Vec::new();
        for (p, nocase, sig) in entries {
            let id = *ids.entry((p.as_slice(), *nocase)).or_insert_with(|| {
                let id = pats.len() as u32;
                pats.push(if *nocase {
                    mpm::Pattern::nocase(p.clone(), id)
                } else {
                    mpm::Pattern::new(p.clone(), id)
                });
                pat_sigs.push(Vec::new());
                id
            });
            let v = &mut pat_sigs[id as usize];
            if v.last() != Some(sig) {
                v.push(*sig);
            }
        }
        let plain = pats.iter().map(|p| (p.bytes.clone(), p.nocase)).collect();
        let matcher = match mpm::Matcher::new(kind, &pats) {
            Ok(m) => m,
            Err(_) => match mpm::Matcher::new(mpm::Kind::AcCompact, &pats) {
                Ok(m) => m,
                Err(_) => return Err(entries.iter().map(|e| e.2).collect()),
            },
        };
        Ok(Prefilter {
            matcher,
            pat_sigs,
            pats: plain,
        })
    }

    /// Reports the signatures whose fast pattern occurs in `hay`, each pattern's
    /// signatures once however often it occurs.
    #[inline]
    pub fn scan(&self, hay: &[u8], seen: &mut Seen, mut f: impl FnMut(u32)) {
        seen.begin(self.pat_sigs.len());
        self.matcher.scan(hay, &mut |m: mpm::Match| {
            let id = m.pattern as usize;
            if seen.first(id) {
                if let Some(v) = self.pat_sigs.get(id) {
                    v.iter().for_each(|&s| f(s));
                }
            }
        });
    }

    /// Every pattern: its bytes, nocase, and the signatures it makes candidates.
    pub fn entries(&self) -> impl Iterator<Item = (&[u8], bool, &[u32])> + '_ {
        self.pats
            .iter()
            .zip(&self.pat_sigs)
            .map(|((b, nocase), sigs)| (b.as_slice(), *nocase, sigs.as_slice()))
    }

    pub fn stats(&self) -> PrefilterStats {
        PrefilterStats {
            patterns: self.matcher.pattern_count(),
            memory: self.matcher.memory_usage(),
        }
    }
}

/// Which patterns already reported during one scan (generation stamps, reused).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    stamp: Vec<u32>,
    gen: u32,
}

impl Seen {
    /// Starts a scan over patterns `0..n`.
    pub(crate) fn begin(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
    }

    /// True the first time `id` is reported in this scan.
    pub(crate) fn first(&mut self, id: usize) -> bool {
        match self.stamp.get_mut(id) {
            Some(s) if *s != self.gen => {
                *s = self.gen;
                true
            }
            _ => false,
        }
    }
}

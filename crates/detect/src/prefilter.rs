//! Prefilter: one multi-pattern matcher per (signature group, buffer) over the fast
//! patterns of the group's rules; a match makes its rules candidates.

use std::collections::HashMap;

use rules::IntCmp;

/// A matcher and the rules each of its patterns stands for.
#[derive(Debug)]
pub(crate) struct Prefilter {
    matcher: mpm::Matcher,
    /// Pattern id → signature indices.
    pat_sigs: Vec<Vec<u32>>,
    /// Pattern id → (bytes, nocase): what a batch matcher elsewhere needs (`offload`).
    pats: Vec<(Vec<u8>, bool)>,
    /// Pattern id → the `dsize` each of its signatures (same order as `pat_sigs`)
    /// requires, or empty when none of them has one ([`Self::gate_dsize`]).
    dsize: Vec<Vec<Option<IntCmp>>>,
    /// The longest pattern's length less one: how far before the part of a growing
    /// buffer scanned already a new pattern may start ([`crate::body_scan`]).
    overlap: usize,
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
        let overlap = pats
            .iter()
            .map(|p| p.bytes.len())
            .max()
            .unwrap_or(0)
            .saturating_sub(1);
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
            dsize: Vec::new(),
            overlap,
        })
    }

    /// Records the `dsize` condition of each signature (`dsize_of`) so that
    /// [`Self::scan_packet`] skips the signatures the packet's payload size already
    /// rules out, before they become candidates.
    pub fn gate_dsize(&mut self, dsize_of: impl Fn(u32) -> Option<IntCmp>) {
        self.dsize = self
            .pat_sigs
            .iter()
            .map(|v| {
                let g: Vec<_> = v.iter().map(|&s| dsize_of(s)).collect();
                if g.iter().any(Option::is_some) {
                    g
                } else {
                    Vec::new()
                }
            })
            .collect();
    }

    /// Reports the signatures whose fast pattern occurs in `hay`, each pattern's
    /// signatures once however often it occurs (the matcher passes each pattern on once
    /// per buffer), and counts the scan in `seen`.
    #[inline]
    pub fn scan(&self, hay: &[u8], seen: &mut Seen, f: impl FnMut(u32)) {
        self.scan_with(hay, None, seen, f)
    }

    /// [`Self::scan`] for a packet whose payload is `dsize` bytes: signatures whose
    /// `dsize` ([`Self::gate_dsize`]) fails on it are left out, as they cannot match it.
    #[inline]
    pub fn scan_packet(&self, hay: &[u8], dsize: u64, seen: &mut Seen, f: impl FnMut(u32)) {
        self.scan_with(hay, Some(dsize), seen, f)
    }

    #[inline]
    fn scan_with(&self, hay: &[u8], dsize: Option<u64>, seen: &mut Seen, f: impl FnMut(u32)) {
        self.scan_inner(hay, dsize, seen, None, f)
    }

    /// [`Self::scan_packet`] (or [`Self::scan`] without `dsize`) that also appends
    /// every pattern it found to `ids`, before the `dsize` gate: what a raw stream
    /// chunk holding these bytes reports ([`crate::stream_memo`]).
    #[inline]
    pub fn scan_recording(
        &self,
        hay: &[u8],
        dsize: Option<u64>,
        seen: &mut Seen,
        ids: &mut Vec<u32>,
        f: impl FnMut(u32),
    ) {
        self.scan_inner(hay, dsize, seen, Some(ids), f)
    }

    #[inline]
    fn scan_inner(
        &self,
        hay: &[u8],
        dsize: Option<u64>,
        seen: &mut Seen,
        mut ids: Option<&mut Vec<u32>>,
        mut f: impl FnMut(u32),
    ) {
        let mut cands = 0u64;
        let mut gated = 0u64;
        let c = self.matcher.scan_unique(hay, &mut seen.seen, |id| {
            if let Some(ids) = ids.as_deref_mut() {
                ids.push(id);
            }
            self.report(id, dsize, &mut cands, &mut gated, &mut f);
        });
        let n = &mut seen.counts;
        n.buffers += 1;
        n.bytes += hay.len() as u64;
        n.matches.add(c);
        n.candidates += cands;
        n.dsize_skipped += gated;
    }

    /// The signatures of pattern `id`, less those the payload size `dsize` rules out.
    #[inline]
    fn report(
        &self,
        id: u32,
        dsize: Option<u64>,
        cands: &mut u64,
        gated: &mut u64,
        f: &mut impl FnMut(u32),
    ) {
        let Some(v) = self.pat_sigs.get(id as usize) else {
            return;
        };
        match (dsize, self.dsize.get(id as usize).filter(|g| !g.is_empty())) {
            (Some(len), Some(g)) => {
                for (&s, d) in v.iter().zip(g) {
                    if d.as_ref().is_none_or(|d| crate::detector::dsize_ok(d, len)) {
                        *cands += 1;
                        f(s);
                    } else {
                        *gated += 1;
                    }
                }
            }
            _ => {
                *cands += v.len() as u64;
                v.iter().for_each(|&s| f(s));
            }
        }
    }

    /// Reports what [`Self::scan_with`] over `hay` would, from a
    /// [`crate::stream_memo::Plan`]: the patterns found before in the packets `hay`
    /// holds whole, and a scan of the plan's ranges of `hay`. Counted as one buffer of
    /// the bytes scanned.
    pub fn scan_parts(
        &self,
        hay: &[u8],
        plan: &crate::stream_memo::Plan,
        dsize: Option<u64>,
        seen: &mut Seen,
        mut f: impl FnMut(u32),
    ) {
        let mut cands = 0u64;
        let mut gated = 0u64;
        let mut c = mpm::ScanCounts::default();
        seen.seen.begin(self.matcher.pattern_count());
        for &id in &plan.ids {
            if seen.seen.first(id) {
                c.unique += 1;
                self.report(id, dsize, &mut cands, &mut gated, &mut f);
            }
        }
        let mut bytes = 0u64;
        for w in &plan.wins {
            let Some(part) = hay.get(w.clone()) else {
                continue;
            };
            bytes += part.len() as u64;
            self.matcher.scan(part, &mut |m: mpm::Match| {
                c.reported += 1;
                if seen.seen.first(m.pattern) {
                    c.unique += 1;
                    self.report(m.pattern, dsize, &mut cands, &mut gated, &mut f);
                }
            });
        }
        let n = &mut seen.counts;
        n.buffers += 1;
        n.bytes += bytes;
        n.matches.add(c);
        n.candidates += cands;
        n.dsize_skipped += gated;
    }

    /// The longest pattern's length less one.
    pub fn overlap(&self) -> usize {
        self.overlap
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

/// The first `dsize` condition of signature `s`, if any (its others are checked with
/// the rest of the signature).
pub(crate) fn sig_dsize(s: &crate::sig::Sig) -> Option<IntCmp> {
    s.pkt.iter().find_map(|o| match o {
        crate::sig::PktOpt::Dsize(c) => Some(*c),
        _ => None,
    })
}

/// What the prefilter scans of one worker did (`osprey.detect.mpm_*` counters).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PrefilterCounts {
    /// Buffers scanned.
    pub buffers: u64,
    /// Bytes scanned.
    pub bytes: u64,
    /// Matches the matchers reported, and distinct patterns passed on per buffer.
    pub matches: mpm::ScanCounts,
    /// Signatures the patterns made candidates (before the per-pass dedup of rules).
    pub candidates: u64,
    /// Signatures left out because the packet's payload size failed their `dsize`.
    pub dsize_skipped: u64,
}

/// Which patterns already reported during one scan (generation stamps, reused), and
/// the counts of every scan so far.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    seen: mpm::Seen,
    pub(crate) counts: PrefilterCounts,
}

impl Seen {
    /// Starts a scan over patterns `0..n`.
    pub(crate) fn begin(&mut self, n: usize) {
        self.seen.begin(n);
    }

    /// True the first time `id` is reported in this scan.
    pub(crate) fn first(&mut self, id: usize) -> bool {
        u32::try_from(id).is_ok_and(|id| self.seen.first(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_reports_each_pattern_once_and_counts() {
        let entries = vec![
            (b"\x00\x00".to_vec(), false, 3),
            (b"abc".to_vec(), true, 5),
            (b"abc".to_vec(), true, 7),
            (b"zz".to_vec(), false, 9),
        ];
        let pf = Prefilter::build(mpm::Kind::Vpatch, &entries).unwrap();
        let mut seen = Seen::default();
        let mut got = Vec::new();
        pf.scan(b"\x00\x00\x00\x00 ABC abc", &mut seen, |s| got.push(s));
        got.sort_unstable();
        assert_eq!(got, vec![3, 5, 7]);
        assert_eq!(
            seen.counts,
            PrefilterCounts {
                buffers: 1,
                bytes: 12,
                matches: mpm::ScanCounts {
                    reported: 5,
                    unique: 2
                },
                candidates: 3,
                dsize_skipped: 0,
            }
        );
        got.clear();
        pf.scan(b"zzz", &mut seen, |s| got.push(s));
        assert_eq!(got, vec![9]);
        assert_eq!(seen.counts.matches.reported, 7);
        assert_eq!(seen.counts.candidates, 4);
    }

    #[test]
    fn dsize_gate_leaves_out_what_the_payload_size_rules_out() {
        let entries = vec![
            (b"abc".to_vec(), false, 1),
            (b"abc".to_vec(), false, 2),
            (b"abc".to_vec(), false, 4),
            (b"xyz".to_vec(), false, 6),
        ];
        let mut pf = Prefilter::build(mpm::Kind::AcFull, &entries).unwrap();
        pf.gate_dsize(|s| match s {
            2 => Some(IntCmp::Lt(5)),
            4 => Some(IntCmp::Ge(5)),
            _ => None,
        });
        let mut seen = Seen::default();
        let scan = |pf: &Prefilter, seen: &mut Seen, hay: &[u8]| {
            let mut got = Vec::new();
            pf.scan_packet(hay, hay.len() as u64, seen, |s| got.push(s));
            got
        };
        assert_eq!(scan(&pf, &mut seen, b"abc"), vec![1, 2]);
        assert_eq!(scan(&pf, &mut seen, b"abcdef xyz"), vec![1, 4, 6]);
        assert_eq!(seen.counts.dsize_skipped, 2);
        assert_eq!(seen.counts.candidates, 5);
        // Buffers that are not the packet (stream, transactions) are not gated.
        let mut got = Vec::new();
        pf.scan(b"abc", &mut seen, |s| got.push(s));
        assert_eq!(got, vec![1, 2, 4]);
        // Every signature stays listed for the batch matchers.
        let all: Vec<_> = pf.entries().map(|e| e.2.to_vec()).collect();
        assert_eq!(all, vec![vec![1, 2, 4], vec![6]]);
    }
}

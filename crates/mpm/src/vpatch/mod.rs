//! V-PATCH (V-PATCH paper §4.2, Algorithm 2): S-PATCH with the filtering round vectorized.
//!
//! Each step loads raw input, builds the 4-byte sliding windows of `W` consecutive
//! positions with one byte shuffle (their low halves are the 2-byte windows), fetches the
//! merged filter-1/2 words of all `W` windows with one gather (filter merging, Figure 5),
//! and, when any lane passed filter 2, hashes the case-folded 4-byte windows and gathers
//! filter 3 for every lane speculatively, masked by the filter-2 hits. Candidate positions
//! are packed into S-PATCH's arrays (AVX2: a permutation from a 256-entry table; AVX-512:
//! `vpcompressd`), the loop is unrolled twice so one block's gathers overlap the other's
//! arithmetic, and verification is S-PATCH's, in its own round.
//!
//! [`Path`] picks the vector width at run time (`is_x86_feature_detected!`); the scalar
//! S-PATCH filter is the fallback, and the positions a vector step cannot cover (the last
//! few of each round) are filtered by it too.

use crate::spatch::{filter_scalar, FilterRound, Spatch};
use crate::{BuildError, Kind, Limits, Match, Pattern};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

/// Which filtering round a [`Vpatch`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    /// S-PATCH's scalar round.
    Scalar,
    /// AVX2: 8 lanes, `vpgatherdd`.
    Avx2,
    /// AVX-512 (F and BW): 16 lanes, mask registers, `vpcompressd`.
    Avx512,
}

impl Path {
    /// The widest path this CPU supports.
    pub fn best() -> Path {
        if Path::Avx512.is_supported() {
            Path::Avx512
        } else if Path::Avx2.is_supported() {
            Path::Avx2
        } else {
            Path::Scalar
        }
    }

    /// Whether this CPU can run the path.
    pub fn is_supported(self) -> bool {
        match self {
            Path::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => avx2::is_supported(),
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => avx512::is_supported(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Positions one vector step filters (1 for the scalar round).
    pub fn lanes(self) -> usize {
        match self {
            Path::Scalar => 1,
            Path::Avx2 => 8,
            Path::Avx512 => 16,
        }
    }

    /// Short name, as printed by `describe`.
    pub fn name(self) -> &'static str {
        match self {
            Path::Scalar => "scalar",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
        }
    }
}

/// The V-PATCH matcher: S-PATCH's filters and tables with a vector filtering round.
#[derive(Clone, Debug)]
pub(crate) struct Vpatch {
    inner: Spatch,
    path: Path,
}

impl Vpatch {
    /// Build with filtering path `path`; an error when this CPU cannot run it (`kind` is
    /// the kind reported in that error).
    pub fn new(
        patterns: &[Pattern],
        limits: &Limits,
        path: Path,
        kind: Kind,
    ) -> Result<Vpatch, BuildError> {
        if !path.is_supported() {
            return Err(BuildError::Unsupported {
                kind,
                reason: "this CPU lacks the instruction set",
            });
        }
        Ok(Vpatch {
            inner: Spatch::new(patterns, limits)?,
            path,
        })
    }

    /// The filtering path in use.
    pub fn path(&self) -> Path {
        self.path
    }

    /// The filtering round of the path.
    pub fn round(&self) -> FilterRound {
        match self.path {
            Path::Scalar => filter_scalar,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => avx2::filter,
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => avx512::filter,
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("vector paths are only built on x86_64"),
        }
    }

    /// The S-PATCH tables underneath.
    pub fn spatch(&self) -> &Spatch {
        &self.inner
    }

    #[inline]
    pub fn scan<F: FnMut(Match) + ?Sized>(&self, hay: &[u8], f: &mut F) {
        self.inner.scan_with(hay, f, self.round())
    }

    pub fn memory_usage(&self) -> usize {
        self.inner.memory_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatch::CHUNK;
    use crate::testutil::{pseudo_random, sorted};

    /// Each path forced (scalar included) over a haystack of several rounds with zero runs,
    /// letters and pattern copies across round borders.
    #[test]
    fn every_path_matches_naive_across_rounds() {
        let mut hay = pseudo_random(11, 3 * CHUNK + 77);
        for at in (0..hay.len() - 40).step_by(301) {
            hay[at..at + 33].fill(0);
        }
        for at in [CHUNK - 3, 2 * CHUNK - 1, 3 * CHUNK - 2, 3 * CHUNK + 70] {
            hay[at..at + 6].copy_from_slice(b"HeLLo!");
        }
        let mut pats: Vec<Pattern> = (1..=40u32)
            .map(|n| Pattern::new(vec![0u8; n as usize], n))
            .collect();
        pats.push(Pattern::nocase(&b"hello!"[..], 100));
        pats.push(Pattern::new(&b"HeLLo"[..], 101));
        pats.push(Pattern::new(&b"Hello"[..], 102));
        pats.push(Pattern::nocase(&b"l"[..], 103));
        pats.push(Pattern::new(&b"o!"[..], 104));
        pats.extend(
            (0..200u32).map(|k| Pattern::new(hay[k as usize * 29..][..5].to_vec(), 200 + k)),
        );
        let want = sorted(crate::naive::find_all(&pats, &hay));
        for path in [Path::Scalar, Path::Avx2, Path::Avx512] {
            if !path.is_supported() {
                eprintln!("skipping {}: not supported here", path.name());
                continue;
            }
            let v = Vpatch::new(&pats, &Limits::default(), path, Kind::Vpatch).unwrap();
            assert_eq!(v.path(), path);
            for cut in [0, 1, 5, 17, 31, 64] {
                let h = &hay[cut..];
                let mut got = Vec::new();
                v.scan(h, &mut |m| got.push(m));
                let want = sorted(crate::naive::find_all(&pats, h));
                assert_eq!(sorted(got), want, "{} cut {cut}", path.name());
            }
        }
        assert!(want.len() > 1000);
    }

    #[test]
    fn best_path_is_supported() {
        assert!(Path::best().is_supported());
        assert!(Path::Scalar.is_supported());
    }
}

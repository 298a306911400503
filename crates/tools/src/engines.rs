//! The engines the benchmark runs: this project's matchers by [`mpm::Kind`], the
//! `aho-corasick` crate's DFA and (feature `hyperscan`) Hyperscan. All report the same
//! matches for the same patterns: the `aho-corasick` crate gets the case-folded patterns
//! and checks the case of case-sensitive ones on a hit, as `mpm` does.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use mpm::{Kind, Matcher, Pattern};

/// A built engine: counts every match over a list of haystacks.
pub(crate) trait Engine {
    /// Total matches over `haystacks`, each scanned separately.
    fn count(&self, haystacks: &[&[u8]]) -> u64;
    /// Heap bytes of the engine's tables.
    fn memory_bytes(&self) -> usize;
}

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spec {
    /// One of `mpm`'s matchers.
    Mpm(Kind),
    /// The `aho-corasick` crate, DFA.
    AhoCorasick,
    /// Intel Hyperscan.
    #[cfg(feature = "hyperscan")]
    Hyperscan,
}

impl Spec {
    /// Every engine of this build, in report order.
    pub fn all() -> Vec<Spec> {
        let mut v: Vec<Spec> = [Kind::AcFull, Kind::AcFull32, Kind::AcCompact]
            .into_iter()
            .chain(Kind::available().into_iter().filter(|k| {
                !matches!(
                    k,
                    Kind::AcFull | Kind::AcFull32 | Kind::AcCompact | Kind::Hyperscan
                )
            }))
            .map(Spec::Mpm)
            .collect();
        v.push(Spec::AhoCorasick);
        #[cfg(feature = "hyperscan")]
        v.push(Spec::Hyperscan);
        v
    }

    /// The name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Spec::Mpm(k) => k.name(),
            Spec::AhoCorasick => "aho-corasick",
            #[cfg(feature = "hyperscan")]
            Spec::Hyperscan => "hyperscan",
        }
    }

    /// Build for `patterns`.
    pub fn build(self, patterns: &[Pattern]) -> Result<Box<dyn Engine>, String> {
        match self {
            Spec::Mpm(kind) => Ok(Box::new(
                Matcher::new(kind, patterns).map_err(|e| e.to_string())?,
            )),
            Spec::AhoCorasick => Ok(Box::new(AcCrate::new(patterns)?)),
            #[cfg(feature = "hyperscan")]
            Spec::Hyperscan => Ok(Box::new(crate::hyperscan::Hyperscan::new(patterns)?)),
        }
    }
}

impl Engine for Matcher {
    fn count(&self, haystacks: &[&[u8]]) -> u64 {
        let mut n = 0u64;
        for h in haystacks {
            self.scan(h, &mut |_| n += 1);
        }
        n
    }

    fn memory_bytes(&self) -> usize {
        self.memory_usage()
    }
}

/// The `aho-corasick` crate's DFA over ASCII-case-insensitive patterns, with a case check
/// for the case-sensitive ones.
struct AcCrate {
    ac: AhoCorasick,
    /// Exact bytes of each case-sensitive pattern with letters.
    exact: Vec<Option<Vec<u8>>>,
}

impl AcCrate {
    fn new(patterns: &[Pattern]) -> Result<Self, String> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(patterns.iter().map(|p| &p.bytes))
            .map_err(|e| e.to_string())?;
        let exact = patterns
            .iter()
            .map(|p| {
                (!p.nocase && p.bytes.iter().any(u8::is_ascii_alphabetic)).then(|| p.bytes.clone())
            })
            .collect();
        Ok(AcCrate { ac, exact })
    }
}

impl Engine for AcCrate {
    fn count(&self, haystacks: &[&[u8]]) -> u64 {
        let mut n = 0u64;
        for h in haystacks {
            for m in self.ac.find_overlapping_iter(h) {
                match &self.exact[m.pattern().as_usize()] {
                    Some(exact) if &h[m.start()..m.end()] != exact.as_slice() => {}
                    _ => n += 1,
                }
            }
        }
        n
    }

    fn memory_bytes(&self) -> usize {
        self.ac.memory_usage() + self.exact.iter().flatten().map(Vec::len).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_counts_the_same() {
        let pats = vec![
            Pattern::new(&b"GET"[..], 0),
            Pattern::nocase(&b"host:"[..], 1),
            Pattern::new(vec![0u8; 3], 2),
            Pattern::new(&b"et"[..], 3),
        ];
        let hays: Vec<&[u8]> = vec![b"GET / get Host: x HOST:", &[0u8; 10], b""];
        // GET, et(x1: "et" in "get" is lower; "GET" has "ET"), host: x2, 8 zero runs.
        let want = 1 + 1 + 2 + 8;
        for spec in Spec::all() {
            let e = spec.build(&pats).unwrap();
            assert_eq!(e.count(&hays), want, "{}", spec.name());
            assert!(e.memory_bytes() > 0);
        }
    }
}

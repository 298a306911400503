//! The differential test table every backend must pass: each case is scanned by the backend
//! and by [`crate::naive`] and the two multisets of matches must be equal, with every
//! haystack also padded by 0..261 bytes before and after (to hit block edges of the SIMD
//! and GPU backends, as aho-corasick's tests do). A new backend is tested by making
//! [`Kind::is_available`] true for it: the crate's tests run every available kind.

use crate::{naive, BuildError, Kind, Match, Matcher, Pattern};

/// Most padding bytes added before and after a haystack.
pub const MAX_PAD: usize = 261;

/// One named case: patterns and the haystacks to scan with them.
#[derive(Clone, Debug)]
pub struct Case {
    /// What the case exercises.
    pub name: &'static str,
    /// The patterns.
    pub patterns: Vec<Pattern>,
    /// The haystacks.
    pub haystacks: Vec<Vec<u8>>,
}

fn cs(list: &[&[u8]]) -> Vec<Pattern> {
    list.iter()
        .enumerate()
        .map(|(i, p)| Pattern::new(p.to_vec(), i as u32))
        .collect()
}

fn nc(list: &[&[u8]]) -> Vec<Pattern> {
    list.iter()
        .enumerate()
        .map(|(i, p)| Pattern::nocase(p.to_vec(), i as u32))
        .collect()
}

/// A deterministic pseudo-random byte sequence (xorshift), for cases that need bulk data.
pub fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The shared cases: textbook, adversarial and case-handling inputs.
#[allow(clippy::vec_init_then_push)] // one case per push reads best
pub fn cases() -> Vec<Case> {
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    let mut v = Vec::new();
    v.push(Case {
        name: "textbook he/she/his/hers",
        patterns: cs(&[b"he", b"she", b"his", b"hers"]),
        haystacks: vec![
            b"ushers".to_vec(),
            b"ahishers hehe".to_vec(),
            b"h".to_vec(),
            Vec::new(),
        ],
    });
    v.push(Case {
        name: "empty pattern set",
        patterns: Vec::new(),
        haystacks: vec![Vec::new(), b"anything".to_vec(), all_bytes.clone()],
    });
    v.push(Case {
        name: "all-A haystack, A-run patterns",
        patterns: (1..=40)
            .map(|n| Pattern::new(vec![b'A'; n], n as u32))
            .collect(),
        haystacks: vec![vec![b'A'; 400], vec![b'a'; 100], b"AAAaAAAA".to_vec()],
    });
    v.push(Case {
        name: "all-A haystack, nocase a-run patterns",
        patterns: (1..=17)
            .map(|n| Pattern::nocase(vec![b'a'; n], 100 + n as u32))
            .collect(),
        haystacks: vec![vec![b'A'; 500], b"aAaAbAAAA".to_vec()],
    });
    v.push(Case {
        name: "zero-filled payload, |00| runs",
        patterns: (1..=24)
            .map(|n| Pattern::new(vec![0u8; n], n as u32))
            .chain([Pattern::new(vec![0, 0, 1], 99)])
            .collect(),
        haystacks: vec![
            vec![0u8; 700],
            [vec![0u8; 40], vec![1], vec![0u8; 5]].concat(),
        ],
    });
    v.push(Case {
        name: "one-byte patterns",
        patterns: cs(&[b"a", b"Z", b"\x00", b"\xff", b"a"]),
        haystacks: vec![b"aAzZ\x00\xff".to_vec(), all_bytes.clone()],
    });
    v.push(Case {
        name: "all 256 one-byte patterns, case-sensitive",
        patterns: (0..=255u8)
            .map(|b| Pattern::new(vec![b], b as u32))
            .collect(),
        haystacks: vec![all_bytes.clone(), pseudo_random(1, 2000)],
    });
    v.push(Case {
        name: "all 256 one-byte patterns, nocase",
        patterns: (0..=255u8)
            .map(|b| Pattern::nocase(vec![b], b as u32))
            .collect(),
        haystacks: vec![all_bytes.clone(), b"Hello, World".to_vec()],
    });
    let long = pseudo_random(7, 300);
    v.push(Case {
        name: "patterns of 1 to 300 bytes",
        patterns: (1..=300)
            .map(|n| Pattern::new(long[300 - n..].to_vec(), n as u32))
            .collect(),
        haystacks: vec![
            [long.clone(), long.clone()].concat(),
            long[..150].to_vec(),
            pseudo_random(8, 1000),
        ],
    });
    v.push(Case {
        name: "nocase and case-sensitive mixed, shared final states",
        patterns: vec![
            Pattern::new(&b"GET"[..], 1),
            Pattern::nocase(&b"get"[..], 2),
            Pattern::new(&b"get"[..], 3),
            Pattern::new(&b"GET"[..], 4),
            Pattern::nocase(&b"eT /"[..], 5),
            Pattern::new(&b"T"[..], 6),
            Pattern::new(&b"/index.HTML"[..], 7),
            Pattern::nocase(&b"index.html"[..], 8),
        ],
        haystacks: vec![
            b"GET /index.html HTTP/1.1".to_vec(),
            b"get /INDEX.HTML".to_vec(),
            b"gEt /index.HTML gET /".to_vec(),
        ],
    });
    v.push(Case {
        name: "nocase patterns with non-letters",
        patterns: nc(&[b"a|b", b"\xc4x", b"[@`{", b"1a2B"]),
        haystacks: vec![b"A|B \xc4X \xe4x [@`{ [@`[ 1A2b".to_vec()],
    });
    v.push(Case {
        name: "failure chains",
        patterns: cs(&[
            b"abcd", b"bcde", b"cdef", b"abcdefg", b"bc", b"d", b"abab", b"babb",
        ]),
        haystacks: vec![b"abcdefgabababbabcde".to_vec(), b"xxabcdexx".to_vec()],
    });
    v.push(Case {
        name: "duplicate patterns and ids",
        patterns: vec![
            Pattern::new(&b"dup"[..], 1),
            Pattern::new(&b"dup"[..], 1),
            Pattern::nocase(&b"DUP"[..], 2),
        ],
        haystacks: vec![b"dupDUPdup".to_vec()],
    });
    v
}

/// `matches` sorted, for order-insensitive comparison.
pub fn sorted(mut matches: Vec<Match>) -> Vec<Match> {
    matches.sort_unstable();
    matches
}

/// Check `matcher` against the naive matcher on one haystack, through both `scan` and
/// `scan_batch`.
pub fn check_haystack(
    matcher: &Matcher,
    patterns: &[Pattern],
    haystack: &[u8],
) -> Result<(), String> {
    let want = sorted(naive::find_all(patterns, haystack));
    let got = sorted(matcher.find_all(haystack));
    if got != want {
        return Err(describe_diff(matcher, haystack, &got, &want));
    }
    let mut batch = Vec::new();
    matcher.scan_batch(&[haystack, b"", haystack], &mut |i, m| batch.push((i, m)));
    let per_index = |i: usize| {
        sorted(
            batch
                .iter()
                .filter(|(j, _)| *j == i)
                .map(|&(_, m)| m)
                .collect(),
        )
    };
    if per_index(0) != want || !per_index(1).is_empty() || per_index(2) != want {
        return Err(format!("{}: scan_batch differs from scan", matcher.kind()));
    }
    Ok(())
}

fn describe_diff(matcher: &Matcher, haystack: &[u8], got: &[Match], want: &[Match]) -> String {
    let missing: Vec<_> = want.iter().filter(|m| !got.contains(m)).take(5).collect();
    let extra: Vec<_> = got.iter().filter(|m| !want.contains(m)).take(5).collect();
    format!(
        "{}: {} matches, naive {}; missing e.g. {:?}; extra e.g. {:?}; haystack {} bytes starting {:?}",
        matcher.kind(),
        got.len(),
        want.len(),
        missing,
        extra,
        haystack.len(),
        String::from_utf8_lossy(&haystack[..haystack.len().min(64)])
    )
}

/// Pad sizes used for haystacks longer than [`SMALL_HAYSTACK`]: block edges of 1, 8, 16, 32,
/// 64 and 128-byte strides and the largest pad.
const PADS_FOR_LARGE: &[usize] = &[
    1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, MAX_PAD,
];

/// Haystacks up to this length are checked with every pad size `1..=MAX_PAD`.
pub const SMALL_HAYSTACK: usize = 64;

/// Check on `haystack` and on it padded before and after: with every size `1..=MAX_PAD` for
/// a short haystack, with the block-edge sizes for a longer one. Pad bytes are `0xa5` and
/// `0x00` (the byte most IDS patterns are made of).
pub fn check_padded(
    matcher: &Matcher,
    patterns: &[Pattern],
    haystack: &[u8],
) -> Result<(), String> {
    check_haystack(matcher, patterns, haystack)?;
    let all: Vec<usize> = (1..=MAX_PAD).collect();
    let pads = if haystack.len() <= SMALL_HAYSTACK {
        &all[..]
    } else {
        PADS_FOR_LARGE
    };
    for &pad in pads {
        for fill in [0xa5u8, 0] {
            let padding = vec![fill; pad];
            check_haystack(matcher, patterns, &[&padding[..], haystack].concat())?;
            check_haystack(matcher, patterns, &[haystack, &padding[..]].concat())?;
        }
    }
    Ok(())
}

/// Build `kind` for `patterns` and check it on every haystack, padded.
pub fn check_kind(kind: Kind, patterns: &[Pattern], haystacks: &[Vec<u8>]) -> Result<(), String> {
    let matcher = Matcher::new(kind, patterns).map_err(|e| format!("{kind}: build failed: {e}"))?;
    for h in haystacks {
        check_padded(&matcher, patterns, h)?;
    }
    Ok(())
}

/// Run the whole shared table, and the empty-pattern rejection, against `kind`.
pub fn check_all_cases(kind: Kind) -> Result<(), String> {
    for case in cases() {
        check_kind(kind, &case.patterns, &case.haystacks)
            .map_err(|e| format!("case {:?}: {e}", case.name))?;
    }
    match Matcher::new(
        kind,
        &[Pattern::new(&b"x"[..], 1), Pattern::new(Vec::new(), 2)],
    ) {
        Err(BuildError::EmptyPattern { id: 2 }) => Ok(()),
        other => Err(format!(
            "{kind}: empty pattern gave {:?}",
            other.map(|m| m.describe())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ac_full_passes_the_table() {
        check_all_cases(Kind::AcFull).unwrap();
    }

    #[test]
    fn ac_full_32_passes_the_table() {
        check_all_cases(Kind::AcFull32).unwrap();
    }

    #[test]
    fn ac_compact_passes_the_table() {
        check_all_cases(Kind::AcCompact).unwrap();
    }

    #[test]
    fn dfc_passes_the_table() {
        check_all_cases(Kind::Dfc).unwrap();
    }

    #[test]
    fn spatch_passes_the_table() {
        check_all_cases(Kind::Spatch).unwrap();
    }

    #[test]
    fn vpatch_passes_the_table() {
        check_all_cases(Kind::Vpatch).unwrap();
    }

    #[test]
    fn vpatch_avx2_passes_the_table() {
        if Kind::VpatchAvx2.is_available() {
            check_all_cases(Kind::VpatchAvx2).unwrap();
        } else {
            eprintln!("skipping: no AVX2 on this CPU");
        }
    }

    #[test]
    fn vpatch_avx512_passes_the_table() {
        if Kind::VpatchAvx512.is_available() {
            check_all_cases(Kind::VpatchAvx512).unwrap();
        } else {
            eprintln!("skipping: no AVX-512 on this CPU");
        }
    }

    #[test]
    fn every_available_kind_is_tested_above() {
        // A new backend adds its `*_passes_the_table` test and its kind here.
        let tested = [
            Kind::AcFull,
            Kind::AcFull32,
            Kind::AcCompact,
            Kind::Dfc,
            Kind::Spatch,
            Kind::Vpatch,
            Kind::VpatchAvx2,
            Kind::VpatchAvx512,
        ];
        for kind in Kind::available() {
            assert!(tested.contains(&kind), "add a table test for {kind}");
        }
    }

    #[test]
    fn the_check_catches_a_wrong_answer() {
        // A matcher for other patterns than the ones naive is told about must fail.
        let m = Matcher::new(Kind::AcFull, &[Pattern::new(&b"ab"[..], 1)]).unwrap();
        assert!(check_haystack(&m, &[Pattern::new(&b"aB"[..], 1)], b"xaBx").is_err());
        assert!(check_haystack(&m, &[Pattern::new(&b"ab"[..], 1)], b"xabx").is_ok());
    }
}

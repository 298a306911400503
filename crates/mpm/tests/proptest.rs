//! Random patterns and haystacks: every available backend against the naive matcher.

use mpm::testutil::{check_haystack, check_padded};
use mpm::{Kind, Matcher, Pattern};
use proptest::prelude::*;

/// Bytes from a small alphabet (so patterns actually occur), with case variants and zero.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'a'),
        Just(b'A'),
        Just(b'b'),
        Just(b'B'),
        Just(0u8),
        Just(b'c'),
        any::<u8>()
    ]
}

fn patterns() -> impl Strategy<Value = Vec<Pattern>> {
    prop::collection::vec(
        (prop::collection::vec(byte(), 1..8), any::<bool>(), 0u32..20),
        0..24,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(bytes, nocase, id)| Pattern { bytes, id, nocase })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_sets_match_naive(pats in patterns(), hay in prop::collection::vec(byte(), 0..200)) {
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            prop_assert_eq!(check_haystack(&m, &pats, &hay), Ok(()));
        }
    }

    #[test]
    fn random_sets_match_naive_padded(pats in patterns(), hay in prop::collection::vec(byte(), 0..40)) {
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            prop_assert_eq!(check_padded(&m, &pats, &hay), Ok(()));
        }
    }

    #[test]
    fn haystack_substrings_are_found(hay in prop::collection::vec(any::<u8>(), 1..300), cuts in prop::collection::vec((any::<prop::sample::Index>(), 1usize..40, any::<bool>()), 1..30)) {
        // Patterns cut from the haystack itself: each must be found at least once.
        let pats: Vec<Pattern> = cuts.iter().enumerate().map(|(i, (at, len, nocase))| {
            let start = at.index(hay.len());
            let end = (start + len).min(hay.len());
            Pattern { bytes: hay[start..end].to_vec(), id: i as u32, nocase: *nocase }
        }).collect();
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            prop_assert_eq!(check_haystack(&m, &pats, &hay), Ok(()));
            let found = m.find_all(&hay);
            for p in &pats {
                prop_assert!(found.iter().any(|x| x.pattern == p.id));
            }
        }
    }
}

//! The reference matcher every backend is tested against: at each offset, compare every
//! pattern whose first two bytes (case-folded) fit. Obviously correct; slow.

use crate::pattern::FOLD;
use crate::{Match, Pattern};
use std::collections::HashMap;

/// Every occurrence of every pattern in `haystack` (overlapping), sorted by end offset and
/// then by position in `patterns`. Empty patterns never match.
pub fn find_all(patterns: &[Pattern], haystack: &[u8]) -> Vec<Match> {
    // Candidates by folded first byte (1-byte patterns) and folded first two bytes.
    let mut one: Vec<Vec<usize>> = vec![Vec::new(); 256];
    let mut two: HashMap<usize, Vec<usize>> = HashMap::new();
    let fold = |b: u8| FOLD[b as usize] as usize;
    for (i, p) in patterns.iter().enumerate() {
        match p.bytes[..] {
            [] => {}
            [a] => one[fold(a)].push(i),
            [a, b, ..] => two.entry(fold(a) << 8 | fold(b)).or_default().push(i),
        }
    }
    let mut out = Vec::new();
    for start in 0..haystack.len() {
        let a = fold(haystack[start]);
        let pair = haystack
            .get(start + 1)
            .and_then(|&b| two.get(&(a << 8 | fold(b))));
        for &i in one[a].iter().chain(pair.into_iter().flatten()) {
            let p = &patterns[i];
            let end = start + p.bytes.len();
            if p.matches_at(haystack, end) {
                out.push((end, i, Match { pattern: p.id, end }));
            }
        }
    }
    out.sort_unstable_by_key(|&(end, i, _)| (end, i));
    out.into_iter().map(|(_, _, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_and_case() {
        let pats = [
            Pattern::new(&b"aa"[..], 1),
            Pattern::nocase(&b"A"[..], 2),
            Pattern::new(&b"B"[..], 3),
        ];
        let m = find_all(&pats, b"aAab");
        let ids: Vec<(u32, usize)> = m.iter().map(|m| (m.pattern, m.end)).collect();
        assert_eq!(ids, vec![(2, 1), (2, 2), (2, 3)]);
        assert_eq!(find_all(&pats, b"xaa").len(), 3);
        assert!(find_all(&pats, b"").is_empty());
        assert!(find_all(&[], b"abc").is_empty());
    }
}

//! The reference matcher every backend is tested against: at each offset, compare every
//! pattern whose first byte (case-folded) fits. Obviously correct; slow.

use crate::pattern::FOLD;
use crate::{Match, Pattern};

/// Every occurrence of every pattern in `haystack` (overlapping), sorted by end offset and
/// then by position in `patterns`. Empty patterns never match.
pub fn find_all(patterns: &[Pattern], haystack: &[u8]) -> Vec<Match> {
    let mut by_first: Vec<Vec<usize>> = vec![Vec::new(); 256];
    for (i, p) in patterns.iter().enumerate() {
        if let Some(&b) = p.bytes.first() {
            by_first[FOLD[b as usize] as usize].push(i);
        }
    }
    let mut out = Vec::new();
    for start in 0..haystack.len() {
        for &i in &by_first[FOLD[haystack[start] as usize] as usize] {
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

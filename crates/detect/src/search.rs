//! Single-pattern search used to verify contents: exact bytes or ASCII case-insensitive.

use memchr::memmem;

/// Finds the first occurrence of `pat` in `hay`, ASCII case-insensitively when `nocase`.
/// An empty pattern never matches (contents are never empty).
pub(crate) fn find(hay: &[u8], pat: &[u8], nocase: bool) -> Option<usize> {
    if pat.is_empty() || pat.len() > hay.len() {
        return None;
    }
    if !nocase {
        return memmem::find(hay, pat);
    }
    let first = pat[0];
    let (lo, up) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let last_start = hay.len() - pat.len();
    let mut from = 0;
    while from <= last_start {
        let rel = memchr::memchr2(lo, up, &hay[from..=last_start])?;
        let at = from + rel;
        if hay[at..at + pat.len()].eq_ignore_ascii_case(pat) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_nocase() {
        assert_eq!(find(b"abcABC", b"ABC", false), Some(3));
        assert_eq!(find(b"abcABC", b"ABC", true), Some(0));
        assert_eq!(find(b"xxaBc", b"AbC", true), Some(2));
        assert_eq!(find(b"ab", b"abc", true), None);
        assert_eq!(find(b"abc", b"", false), None);
        assert_eq!(find(b"\x00\xff\x00", b"\xff\x00", true), Some(1));
    }
}

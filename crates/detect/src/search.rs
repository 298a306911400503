//! Single-pattern search used to verify contents: exact bytes or ASCII case-insensitive.
//!
//! A content is searched many times (every candidate rule, every occurrence tried by a
//! relative chain), so what its search needs is chosen once with the rule ([`Needle`]):
//! the pattern's least common byte, scanned for with `memchr` (`memchr2` for both cases
//! of a letter in a case-insensitive pattern), the pattern compared around each hit.
//! `memchr::memmem::find` built a searcher on every call (most of the search time on
//! short buffers), and a prebuilt `memmem::Finder` per content costs about 300 bytes,
//! 15 MiB of peak RSS over ET Open's contents; scanning for the first byte, as before,
//! stops at every common one (`/`, space, `<`, `e`).

/// Finds the first occurrence of `pat` in `hay`, ASCII case-insensitively when `nocase`.
/// An empty pattern never matches (contents are never empty). The reference the
/// prebuilt [`Needle`] is tested against.
#[cfg(test)]
pub(crate) fn find(hay: &[u8], pat: &[u8], nocase: bool) -> Option<usize> {
    if pat.is_empty() || pat.len() > hay.len() {
        return None;
    }
    if !nocase {
        return memchr::memmem::find(hay, pat);
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

/// How common a byte is in network payloads, higher more common: a rough ranking (text
/// and protocol punctuation, zero and 0xff padding common; other control and high bytes
/// rare) used only to pick which byte of a pattern to scan for. A bad
/// guess costs speed, never a result.
fn commonness(b: u8) -> u32 {
    match b {
        0x00 => 250,
        b' ' => 240,
        b'e' | b't' | b'a' => 200,
        b'o' | b'i' | b'n' | b's' | b'r' => 190,
        b'/' | b'.' | b'\r' | b'\n' | 0xff => 185,
        b'h' | b'l' | b'd' | b'c' | b'u' => 180,
        b'0'..=b'9' => 175,
        b'm' | b'f' | b'p' | b'g' | b'w' | b'y' | b'b' => 170,
        b'=' | b':' | b'-' | b'_' | b',' | b'"' | b'<' | b'>' | b'&' | b'%' => 160,
        b'v' | b'k' => 150,
        b'E' | b'T' | b'A' | b'O' | b'I' | b'N' | b'S' | b'R' | b'H' | b'L' | b'C' => 140,
        b'A'..=b'Z' => 120,
        b'x' | b'j' | b'q' | b'z' => 110,
        0x01..=0x1f | 0x7f..=0xfe => 60,
        _ => 100,
    }
}

/// A content's prebuilt searcher: which byte of the pattern to scan for. Eight bytes,
/// the pattern itself stays in its content (one is kept per content of every rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Needle {
    /// Index of the scanned byte in the pattern.
    rare: u32,
    /// The scanned byte, lower and upper case (equal when exact or not a letter).
    lo: u8,
    up: u8,
    nocase: bool,
}

impl Needle {
    /// The searcher of `pat`, ASCII case-insensitive when `nocase`: it scans for the
    /// pattern's least common byte (in both cases when a letter and `nocase`).
    pub(crate) fn new(pat: &[u8], nocase: bool) -> Needle {
        let score = |b: u8| {
            if nocase && b.is_ascii_alphabetic() {
                commonness(b.to_ascii_lowercase()) + commonness(b.to_ascii_uppercase())
            } else {
                2 * commonness(b)
            }
        };
        let rare = (0..pat.len()).min_by_key(|&i| score(pat[i])).unwrap_or(0);
        let b = pat.get(rare).copied().unwrap_or(0);
        let (lo, up) = if nocase {
            (b.to_ascii_lowercase(), b.to_ascii_uppercase())
        } else {
            (b, b)
        };
        Needle {
            rare: rare as u32,
            lo,
            up,
            nocase,
        }
    }

    /// The first occurrence of `pat` (the pattern this needle was built for) in `hay`.
    #[inline]
    pub(crate) fn find(&self, pat: &[u8], hay: &[u8]) -> Option<usize> {
        let plen = pat.len();
        let rare = self.rare as usize;
        if plen == 0 || plen > hay.len() || rare >= plen {
            return None;
        }
        // Starts 0..=last; the scanned byte of start `s` is at `s + rare`.
        let last = hay.len() - plen;
        let scan = &hay[rare..=last + rare];
        let mut from = 0;
        while from < scan.len() {
            let rel = if self.lo == self.up {
                memchr::memchr(self.lo, &scan[from..])?
            } else {
                memchr::memchr2(self.lo, self.up, &scan[from..])?
            };
            let at = from + rel;
            let cand = &hay[at..at + plen];
            if (self.nocase && cand.eq_ignore_ascii_case(pat)) || (!self.nocase && cand == pat) {
                return Some(at);
            }
            from = at + 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_and_nocase() {
        assert_eq!(find(b"abcABC", b"ABC", false), Some(3));
        assert_eq!(find(b"abcABC", b"ABC", true), Some(0));
        assert_eq!(find(b"xxaBc", b"AbC", true), Some(2));
        assert_eq!(find(b"ab", b"abc", true), None);
        assert_eq!(find(b"abc", b"", false), None);
        assert_eq!(find(b"\x00\xff\x00", b"\xff\x00", true), Some(1));
    }

    #[test]
    fn needle_cases() {
        let n = |p: &'static [u8], nc| move |hay: &[u8]| Needle::new(p, nc).find(p, hay);
        assert_eq!(n(b"ABC", false)(b"abcABC"), Some(3));
        assert_eq!(n(b"ABC", true)(b"abcABC"), Some(0));
        assert_eq!(n(b"AbC", true)(b"xxaBc"), Some(2));
        assert_eq!(n(b"abc", true)(b"ab"), None);
        assert_eq!(n(b"", false)(b"abc"), None);
        assert_eq!(n(b"", true)(b""), None);
        assert_eq!(n(b"\xff\x00", true)(b"\x00\xff\x00"), Some(1));
        // The rare byte in the middle or at the end of the pattern, hits at both ends.
        assert_eq!(n(b"e z", true)(b"E Z"), Some(0));
        assert_eq!(n(b"eeQ", true)(b"eeeeeeeq"), Some(5));
        assert_eq!(n(b"eeQ", false)(b"eeeeeeeq"), None);
        assert_eq!(n(b"Qee", true)(b"qeE"), Some(0));
        assert_eq!(n(b"Qee", true)(b"qe"), None);
        assert_eq!(n(b"a|b", true)(b"xxA|Bxx"), Some(2));
        // Only the first occurrence, overlapping candidates included.
        assert_eq!(n(b"aaz", true)(b"aaaAAZaaz"), Some(3));
        assert_eq!(n(b"aaz", false)(b"aaaAAZaaz"), Some(6));
        // A needle is small: one is kept for every content of every rule.
        assert!(std::mem::size_of::<Needle>() <= 8);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn needle_agrees_with_the_reference(
            pat in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'A'), Just(b'z'), Just(b'Z'), Just(b' '), Just(0u8), Just(b'1')], 0..5),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'A'), Just(b'z'), Just(b'Z'), Just(b' '), Just(0u8), Just(b'1'), Just(b'q')], 0..40),
            nocase in any::<bool>(),
        ) {
            prop_assert_eq!(Needle::new(&pat, nocase).find(&pat, &hay), find(&hay, &pat, nocase));
        }
    }
}

//! Single-pattern search used to verify contents: exact bytes or ASCII case-insensitive.
//!
//! A content is searched many times (every candidate rule, every occurrence tried by a
//! relative chain), so its searcher is built once with the rule ([`Needle`]): an exact
//! pattern gets a prebuilt `memchr::memmem::Finder` (SIMD prefilter on rare bytes, no
//! set-up per call); a case-insensitive one scans for its rarest byte in both cases
//! (`memchr`/`memchr2`) and compares the pattern around each hit, instead of scanning for
//! its first byte, which in traffic is often a common one (`/`, space, `<`, `e`).

use memchr::memmem;

/// Finds the first occurrence of `pat` in `hay`, ASCII case-insensitively when `nocase`.
/// An empty pattern never matches (contents are never empty). The reference the
/// prebuilt [`Needle`] is tested against.
#[cfg(test)]
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

/// How common a byte is in network payloads, higher more common: a rough ranking (text
/// and protocol punctuation, zero and 0xff padding common; other control and high bytes
/// rare) used only to pick which byte of a case-insensitive pattern to scan for. A bad
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

/// A content's prebuilt searcher.
#[derive(Debug, Clone)]
pub(crate) enum Needle {
    /// An empty pattern: never found.
    Empty,
    /// Exact bytes (or case-insensitive without a letter); boxed, as a finder is large.
    Exact(Box<memmem::Finder<'static>>),
    /// ASCII case-insensitive: scan for the byte at `rare` (both cases when a letter),
    /// then compare the whole pattern at the start it implies.
    NoCase {
        pat: Box<[u8]>,
        rare: usize,
        lo: u8,
        up: u8,
    },
}

impl Needle {
    /// The searcher of `pat`, ASCII case-insensitive when `nocase`.
    pub(crate) fn new(pat: &[u8], nocase: bool) -> Needle {
        if pat.is_empty() {
            return Needle::Empty;
        }
        if !nocase || !pat.iter().any(u8::is_ascii_alphabetic) {
            return Needle::Exact(Box::new(memmem::Finder::new(pat).into_owned()));
        }
        let score = |b: u8| {
            if b.is_ascii_alphabetic() {
                commonness(b.to_ascii_lowercase()) + commonness(b.to_ascii_uppercase())
            } else {
                2 * commonness(b)
            }
        };
        let rare = (0..pat.len())
            .min_by_key(|&i| score(pat[i]))
            .expect("pattern not empty");
        Needle::NoCase {
            pat: pat.into(),
            rare,
            lo: pat[rare].to_ascii_lowercase(),
            up: pat[rare].to_ascii_uppercase(),
        }
    }

    /// The first occurrence in `hay`.
    #[inline]
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        match self {
            Needle::Empty => None,
            Needle::Exact(f) => f.find(hay),
            Needle::NoCase { pat, rare, lo, up } => {
                let (plen, rare) = (pat.len(), *rare);
                if plen > hay.len() {
                    return None;
                }
                // Starts 0..=last; the scanned byte of start `s` is at `s + rare`.
                let last = hay.len() - plen;
                let scan = &hay[rare..=last + rare];
                let mut from = 0;
                while from < scan.len() {
                    let rel = if lo == up {
                        memchr::memchr(*lo, &scan[from..])?
                    } else {
                        memchr::memchr2(*lo, *up, &scan[from..])?
                    };
                    let at = from + rel;
                    if hay[at..at + plen].eq_ignore_ascii_case(pat) {
                        return Some(at);
                    }
                    from = at + 1;
                }
                None
            }
        }
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
        let n = |p: &[u8], nc| Needle::new(p, nc);
        assert_eq!(n(b"ABC", false).find(b"abcABC"), Some(3));
        assert_eq!(n(b"ABC", true).find(b"abcABC"), Some(0));
        assert_eq!(n(b"AbC", true).find(b"xxaBc"), Some(2));
        assert_eq!(n(b"abc", true).find(b"ab"), None);
        assert_eq!(n(b"", false).find(b"abc"), None);
        assert_eq!(n(b"", true).find(b""), None);
        assert_eq!(n(b"\xff\x00", true).find(b"\x00\xff\x00"), Some(1));
        // The rare byte in the middle or at the end of the pattern, hits at both ends.
        assert_eq!(n(b"e z", true).find(b"E Z"), Some(0));
        assert_eq!(n(b"eeQ", true).find(b"eeeeeeeq"), Some(5));
        assert_eq!(n(b"Qee", true).find(b"qeE"), Some(0));
        assert_eq!(n(b"Qee", true).find(b"qe"), None);
        assert_eq!(n(b"a|b", true).find(b"xxA|Bxx"), Some(2));
        // Only the first occurrence, overlapping candidates included.
        assert_eq!(n(b"aaz", true).find(b"aaaAAZaaz"), Some(3));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn needle_agrees_with_the_reference(
            pat in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'A'), Just(b'z'), Just(b'Z'), Just(b' '), Just(0u8), Just(b'1')], 0..5),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'A'), Just(b'z'), Just(b'Z'), Just(b' '), Just(0u8), Just(b'1'), Just(b'q')], 0..40),
            nocase in any::<bool>(),
        ) {
            prop_assert_eq!(Needle::new(&pat, nocase).find(&hay), find(&hay, &pat, nocase));
        }
    }
}

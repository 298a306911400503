//! `pcre` modifier flags (the letters after the closing `/` that do not select a
//! buffer), typed at parse time.

use std::fmt;

/// The modifier flags of a `pcre` match, as a set. Buffer-selecting letters (`U`, `H`,
/// ...) are not flags: the parser turns them into the match's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PcreFlags(u16);

/// Every flag with its letter, in the order they are printed.
const LETTERS: [(char, PcreFlags); 10] = [
    ('i', PcreFlags::CASELESS),
    ('s', PcreFlags::DOTALL),
    ('m', PcreFlags::MULTILINE),
    ('x', PcreFlags::EXTENDED),
    ('A', PcreFlags::ANCHORED),
    ('E', PcreFlags::DOLLAR_ENDONLY),
    ('G', PcreFlags::UNGREEDY),
    ('R', PcreFlags::RELATIVE),
    ('B', PcreFlags::RAWBYTES),
    ('O', PcreFlags::MATCH_LIMIT),
];

impl PcreFlags {
    /// No flag.
    pub const NONE: PcreFlags = PcreFlags(0);
    /// `i`: caseless.
    pub const CASELESS: PcreFlags = PcreFlags(1 << 0);
    /// `s`: `.` matches newlines too.
    pub const DOTALL: PcreFlags = PcreFlags(1 << 1);
    /// `m`: `^` and `$` match at line breaks.
    pub const MULTILINE: PcreFlags = PcreFlags(1 << 2);
    /// `x`: whitespace and `#` comments in the pattern are ignored.
    pub const EXTENDED: PcreFlags = PcreFlags(1 << 3);
    /// `A`: anchored at the start offset.
    pub const ANCHORED: PcreFlags = PcreFlags(1 << 4);
    /// `E`: `$` matches only at the very end.
    pub const DOLLAR_ENDONLY: PcreFlags = PcreFlags(1 << 5);
    /// `G`: quantifiers ungreedy by default.
    pub const UNGREEDY: PcreFlags = PcreFlags(1 << 6);
    /// `R`: relative to the end of the previous match.
    pub const RELATIVE: PcreFlags = PcreFlags(1 << 7);
    /// `B`: raw bytes (Snort; no effect in Suricata 7).
    pub const RAWBYTES: PcreFlags = PcreFlags(1 << 8);
    /// `O`: overrides the match limits.
    pub const MATCH_LIMIT: PcreFlags = PcreFlags(1 << 9);

    /// The flag a letter names, if it is a flag (buffer letters are not).
    pub fn from_letter(c: char) -> Option<PcreFlags> {
        LETTERS.iter().find(|(l, _)| *l == c).map(|(_, f)| *f)
    }

    /// Parses a string of flag letters; `None` on a letter that is not a flag.
    pub fn parse(s: &str) -> Option<PcreFlags> {
        s.chars().try_fold(PcreFlags::NONE, |acc, c| {
            Some(acc.with(PcreFlags::from_letter(c)?))
        })
    }

    /// Whether every flag of `f` is set.
    #[inline]
    pub fn contains(self, f: PcreFlags) -> bool {
        self.0 & f.0 == f.0
    }

    /// These flags and those of `f`.
    #[must_use]
    pub fn with(self, f: PcreFlags) -> PcreFlags {
        PcreFlags(self.0 | f.0)
    }

    /// Whether no flag is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for PcreFlags {
    /// The flag letters, in a fixed order (`ismxAEGRBO`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (c, flag) in LETTERS {
            if self.contains(flag) {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        let f = PcreFlags::parse("Ris").unwrap();
        assert!(f.contains(PcreFlags::RELATIVE) && f.contains(PcreFlags::CASELESS));
        assert!(!f.contains(PcreFlags::MULTILINE));
        assert_eq!(f.to_string(), "isR");
        assert_eq!(PcreFlags::parse("").unwrap(), PcreFlags::NONE);
        assert!(PcreFlags::parse("iU").is_none());
        assert_eq!(PcreFlags::from_letter('U'), None);
        assert_eq!(
            PcreFlags::parse("ismxAEGRBO").unwrap().to_string(),
            "ismxAEGRBO"
        );
    }
}

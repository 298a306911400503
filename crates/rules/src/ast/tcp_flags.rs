//! `flags` / `tcp.flags`: TCP flag bit masks typed at parse time, with the bit values of
//! [`wire::proto::tcp::flags`].

use wire::proto::tcp::flags as bit;

/// How `flags` compares a packet's flags (ignored bits cleared) with the listed ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FlagsModifier {
    /// No modifier: exactly the listed flags.
    #[default]
    Exact,
    /// `+`: all the listed flags, any others too.
    All,
    /// `*`: any of the listed flags.
    Any,
    /// `!`: not all of the listed flags.
    Not,
}

impl FlagsModifier {
    /// Parses a modifier character (`+`, `*`, `!`).
    pub fn from_char(c: char) -> Option<FlagsModifier> {
        Some(match c {
            '+' => FlagsModifier::All,
            '*' => FlagsModifier::Any,
            '!' => FlagsModifier::Not,
            _ => return None,
        })
    }

    /// The modifier character, `None` for [`FlagsModifier::Exact`].
    pub fn as_char(self) -> Option<char> {
        match self {
            FlagsModifier::Exact => None,
            FlagsModifier::All => Some('+'),
            FlagsModifier::Any => Some('*'),
            FlagsModifier::Not => Some('!'),
        }
    }
}

/// `flags` / `tcp.flags`: bit masks in the TCP header's flag byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags {
    /// How the flags compare.
    pub modifier: FlagsModifier,
    /// Flags listed (`0` lists none).
    pub set: u8,
    /// Flags ignored (after the comma); 0 when no mask is given.
    pub ignore: u8,
}

/// Flag letters in canonical order with their bits (`C` is CWR, `E` is ECE).
pub const TCP_FLAG_LETTERS: [(char, u8); 8] = [
    ('F', bit::FIN),
    ('S', bit::SYN),
    ('R', bit::RST),
    ('P', bit::PSH),
    ('A', bit::ACK),
    ('U', bit::URG),
    ('C', bit::CWR),
    ('E', bit::ECE),
];

impl TcpFlags {
    /// The bit of a flag letter (case-insensitive); `1` and `2` are Snort's names for
    /// CWR and ECE, `0` (no flag) has no bit. `None` for anything else.
    pub fn letter_bit(c: char) -> Option<u8> {
        match c.to_ascii_uppercase() {
            '0' => Some(0),
            '1' => Some(bit::CWR),
            '2' => Some(bit::ECE),
            u => TCP_FLAG_LETTERS
                .iter()
                .find(|(l, _)| *l == u)
                .map(|(_, b)| *b),
        }
    }

    /// True when a packet with these TCP flags matches.
    #[inline]
    pub fn matches(&self, packet_flags: u8) -> bool {
        let f = packet_flags & !self.ignore;
        match self.modifier {
            FlagsModifier::Not => f & self.set != self.set,
            FlagsModifier::All => f & self.set == self.set,
            FlagsModifier::Any => f & self.set != 0,
            FlagsModifier::Exact => f == self.set,
        }
    }

    /// Writes the letters of a mask in canonical order (`0` for none).
    pub fn write_letters(out: &mut impl std::fmt::Write, bits: u8) -> std::fmt::Result {
        if bits == 0 {
            return out.write_char('0');
        }
        for (l, b) in TCP_FLAG_LETTERS {
            if bits & b != 0 {
                out.write_char(l)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_matching() {
        assert_eq!(TcpFlags::letter_bit('s'), Some(0x02));
        assert_eq!(TcpFlags::letter_bit('1'), Some(0x80));
        assert_eq!(TcpFlags::letter_bit('E'), Some(0x40));
        assert_eq!(TcpFlags::letter_bit('X'), None);
        let syn = TcpFlags {
            set: 0x02,
            ..TcpFlags::default()
        };
        assert!(syn.matches(0x02));
        assert!(!syn.matches(0x12));
        let any = TcpFlags {
            modifier: FlagsModifier::Any,
            set: 0x03,
            ignore: 0,
        };
        assert!(any.matches(0x01) && !any.matches(0x10));
        let mut s = String::new();
        TcpFlags::write_letters(&mut s, 0xC2).unwrap();
        assert_eq!(s, "SCE");
    }
}

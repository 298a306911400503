//! Reading the numbers `byte_test`, `byte_jump`, `byte_extract` and `byte_math` inspect:
//! binary (big or little endian) or text in a base.

/// How to read the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// Binary, big endian.
    Big,
    /// Binary, little endian.
    Little,
    /// Text in base 8, 10 or 16.
    Text(u32),
    /// Binary in the byte order of the DCERPC call inspected (`dce`): little endian
    /// when its header's data representation says so, else big endian (also outside
    /// DCERPC stub data, as Suricata).
    Dce,
}

impl Read {
    /// This order with `dce` settled: `dce_le` is the inspected call's byte order.
    pub(crate) fn settle(self, dce_le: bool) -> Read {
        match self {
            Read::Dce if dce_le => Read::Little,
            Read::Dce => Read::Big,
            r => r,
        }
    }
}

/// Whether a `byte_*` keyword of the rule reads in the DCERPC byte order (`dce`):
/// Suricata then makes the rule a DCERPC rule.
pub(crate) fn uses_dce(r: &rules::Rule) -> bool {
    use rules::{Endian, Match};
    r.buffers.iter().flat_map(|b| &b.matches).any(|m| {
        let c = match m {
            Match::ByteTest(t) => &t.common,
            Match::ByteJump(j) => &j.common,
            Match::ByteExtract(e) => &e.common,
            Match::ByteMath(b) => &b.common,
            _ => return false,
        };
        c.endian == Endian::Dce
    })
}

/// Reads `n` bytes at `pos` of `buf`: the value and how many bytes the number took (`n`
/// for binary, the characters `strtoull` consumed for text: `byte_jump` jumps from
/// there). `None` when out of bounds, when `n` is not readable (0, more than 8 binary
/// bytes, more than 23 text bytes) or when the text holds no number of the base. Text is
/// read as C's `strtoull` reads the `n` bytes (Suricata's reading): leading whitespace,
/// then a sign (`-` negates modulo 2^64), then a `0x` prefix in base 16, then digits up
/// to the first non-digit; an overflow is no value.
pub(crate) fn read_counted(buf: &[u8], pos: usize, n: usize, how: Read) -> Option<(u64, usize)> {
    let end = pos.checked_add(n)?;
    let b = buf.get(pos..end)?;
    match how {
        Read::Big if (1..=8).contains(&n) => {
            Some((b.iter().fold(0u64, |a, &x| a << 8 | x as u64), n))
        }
        Read::Little if (1..=8).contains(&n) => {
            Some((b.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64), n))
        }
        Read::Text(base) if (1..=23).contains(&n) => text(b, base),
        _ => None,
    }
}

/// C's `strtoull(b, &end, base)`: the value and the bytes consumed; `None` when no digit
/// was read or the magnitude overflows 64 bits (`ERANGE`).
fn text(b: &[u8], base: u32) -> Option<(u64, usize)> {
    let mut i = 0;
    // isspace(): space, \t, \n, \v, \f, \r.
    while i < b.len() && matches!(b[i], b' ' | b'\t'..=b'\r') {
        i += 1;
    }
    let negative = i < b.len() && b[i] == b'-';
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    // `0x` counts only when a hex digit follows; else the `0` alone is the number.
    if base == 16
        && b.len() > i + 2
        && b[i] == b'0'
        && (b[i + 1] | 0x20) == b'x'
        && (b[i + 2] as char).is_ascii_hexdigit()
    {
        i += 2;
    }
    let mut v: u64 = 0;
    let mut digits = 0;
    while i < b.len() {
        let Some(d) = (b[i] as char).to_digit(base) else {
            break;
        };
        v = v.checked_mul(base as u64)?.checked_add(d as u64)?;
        digits += 1;
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    Some((if negative { v.wrapping_neg() } else { v }, i))
}

/// Applies a `bitmask`: keeps the masked bits and shifts them down past the mask's
/// trailing zeros, as Suricata does.
pub(crate) fn apply_mask(v: u64, mask: Option<u32>) -> u64 {
    match mask {
        Some(m) if m != 0 => (v & m as u64) >> m.trailing_zeros(),
        Some(_) => 0,
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(buf: &[u8], pos: usize, n: usize, how: Read) -> Option<u64> {
        read_counted(buf, pos, n, how).map(|(v, _)| v)
    }

    #[test]
    fn dce_reads_in_the_calls_byte_order() {
        let b = [1, 0, 0, 0];
        assert_eq!(read(&b, 0, 4, Read::Dce.settle(true)), Some(1));
        assert_eq!(read(&b, 0, 4, Read::Dce.settle(false)), Some(0x0100_0000));
        assert_eq!(Read::Big.settle(true), Read::Big);
        assert_eq!(Read::Text(10).settle(true), Read::Text(10));
    }

    #[test]
    fn binary() {
        let b = [0x01, 0x02, 0x03, 0x04];
        assert_eq!(read(&b, 0, 2, Read::Big), Some(0x0102));
        assert_eq!(read(&b, 0, 2, Read::Little), Some(0x0201));
        assert_eq!(read(&b, 1, 3, Read::Big), Some(0x020304));
        assert_eq!(read(&b, 2, 3, Read::Big), None);
        assert_eq!(read(&b, usize::MAX, 3, Read::Big), None);
        assert_eq!(read(&b, 0, 0, Read::Big), None);
    }

    #[test]
    fn textual() {
        assert_eq!(read(b"123x", 0, 4, Read::Text(10)), Some(123));
        assert_eq!(read(b" 42", 0, 3, Read::Text(10)), Some(42));
        assert_eq!(read(b"ff", 0, 2, Read::Text(16)), Some(255));
        assert_eq!(read(b"0x1F", 0, 4, Read::Text(16)), Some(31));
        assert_eq!(read(b"17", 0, 2, Read::Text(8)), Some(15));
        assert_eq!(read(b"abc", 0, 3, Read::Text(10)), None);
        assert_eq!(
            read(b"99999999999999999999999", 0, 23, Read::Text(10)),
            None
        );
    }

    #[test]
    fn text_reads_as_strtoull() {
        let t = |b: &[u8], base| read_counted(b, 0, b.len(), Read::Text(base));
        assert_eq!(t(b" 7xz", 10), Some((7, 2)));
        assert_eq!(t(b"\x0b\t7", 10), Some((7, 3)));
        assert_eq!(t(b"+9zz", 10), Some((9, 2)));
        assert_eq!(t(b"-3zz", 10), Some((3u64.wrapping_neg(), 2)));
        assert_eq!(t(b"-3zz", 16), Some((3u64.wrapping_neg(), 2)));
        assert_eq!(t(b"0x1F", 10), Some((0, 1)));
        assert_eq!(t(b"0x1F", 16), Some((31, 4)));
        assert_eq!(t(b"0xZZ", 16), Some((0, 1)));
        assert_eq!(t(b"0012", 8), Some((10, 4)));
        assert_eq!(t(b"-", 10), None);
        assert_eq!(t(b" ", 10), None);
        assert_eq!(t(b"-99999999999999999999999", 10), None);
        assert_eq!(read_counted(b"\x00\x04", 0, 2, Read::Big), Some((4, 2)));
    }

    #[test]
    fn masks() {
        assert_eq!(apply_mask(0xABCD, Some(0x0FF0)), 0xBC);
        assert_eq!(apply_mask(0xABCD, None), 0xABCD);
    }
}

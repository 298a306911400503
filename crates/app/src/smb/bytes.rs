//! Bounds-checked little-endian reads and SMB string decoding shared by the SMB1 and
//! SMB2 parsers: every read answers `None` past the end, never panics.

/// `len` bytes of `b` at `off`.
pub fn slice(b: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    b.get(off..off.checked_add(len)?)
}

/// The byte at `off`.
pub fn u8_at(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

/// A little-endian `u16` at `off`.
pub fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    slice(b, off, 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

/// A little-endian `u32` at `off`.
pub fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    slice(b, off, 4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A little-endian `u64` at `off`.
pub fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    slice(b, off, 8).map(|s| {
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        u64::from_le_bytes(a)
    })
}

/// UTF-16LE text as UTF-8 bytes (unpaired surrogates become U+FFFD), up to its first
/// NUL.
pub fn utf16(b: &[u8]) -> Vec<u8> {
    let units = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0);
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect::<String>()
        .into_bytes()
}

/// A NUL-terminated string at the start of `b` (all of `b` without a NUL) and the
/// bytes after its terminator; `unicode`: UTF-16LE (terminated by two NULs on an even
/// offset).
pub fn cstr(b: &[u8], unicode: bool) -> (Vec<u8>, &[u8]) {
    if unicode {
        let mut i = 0;
        while i + 1 < b.len() {
            if b[i] == 0 && b[i + 1] == 0 {
                return (utf16(&b[..i]), &b[i + 2..]);
            }
            i += 2;
        }
        (utf16(b), &[])
    } else {
        match b.iter().position(|&c| c == 0) {
            Some(i) => (b[..i].to_vec(), &b[i + 1..]),
            None => (b.to_vec(), &[]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_strings() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u16_at(&b, 0), Some(0x0201));
        assert_eq!(u32_at(&b, 5), Some(0x0908_0706));
        assert_eq!(u32_at(&b, 6), None);
        assert_eq!(u64_at(&b, 1), Some(0x0908_0706_0504_0302));
        assert_eq!(slice(&b, usize::MAX, 2), None);
        assert_eq!(utf16(b"a\0b\0\0\0c\0"), b"ab");
        assert_eq!(cstr(b"ab\0cd", false), (b"ab".to_vec(), &b"cd"[..]));
        assert_eq!(cstr(b"a\0b\0\0\0x", true), (b"ab".to_vec(), &b"x"[..]));
        assert_eq!(cstr(b"abc", false), (b"abc".to_vec(), &b""[..]));
    }
}

//! Small byte helpers shared by the parsers.

/// `s` without leading and trailing spaces and tabs (and the other whitespace libhtp
/// trims: CR, LF, VT, FF).
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let is_ws = |b: &u8| matches!(*b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c);
    let start = s.iter().position(|b| !is_ws(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !is_ws(b)).map_or(start, |p| p + 1);
    &s[start..end]
}

/// `s` without trailing CR and LF bytes (libhtp's "chomp").
pub(crate) fn chomp(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .rposition(|&b| b != b'\r' && b != b'\n')
        .map_or(0, |p| p + 1);
    &s[..end]
}

/// Case-insensitive ASCII substring search.
pub(crate) fn contains_nocase(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Appends `data` to `buf` without letting `buf` grow past `limit`; returns `true` if
/// something was cut.
pub(crate) fn push_capped(buf: &mut Vec<u8>, data: &[u8], limit: usize) -> bool {
    let room = limit.saturating_sub(buf.len());
    let want = buf.len() + data.len().min(room);
    if want > buf.capacity() {
        // Grow by half (amortized appends with less slack than doubling: every open
        // flow's body in progress holds it), never past `limit`: a body buffer of a
        // 100 KiB limit would otherwise reach 128 KiB.
        let cap = (buf.capacity() + buf.capacity() / 2)
            .max(want)
            .min(limit.max(want));
        buf.reserve_exact(cap - buf.len());
    }
    if data.len() <= room {
        buf.extend_from_slice(data);
        false
    } else {
        buf.extend_from_slice(&data[..room]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_chomps() {
        assert_eq!(trim(b"  a b \t"), b"a b");
        assert_eq!(trim(b"   "), b"");
        assert_eq!(chomp(b"abc\r\n"), b"abc");
        assert_eq!(chomp(b"abc\r\r\n\n"), b"abc");
        assert_eq!(chomp(b"\r\n"), b"");
        assert!(contains_nocase(b"gzip, Chunked", b"chunked"));
        assert!(!contains_nocase(b"chunk", b"chunked"));
    }

    #[test]
    fn push_capped_cuts() {
        let mut v = Vec::new();
        assert!(!push_capped(&mut v, b"abc", 4));
        assert!(push_capped(&mut v, b"def", 4));
        assert_eq!(v, b"abcd");
        let mut v = Vec::new();
        for _ in 0..10 {
            push_capped(&mut v, &[7; 300], 1000);
        }
        assert_eq!(
            (v.len(), v.capacity()),
            (1000, 1000),
            "grown up to the limit only"
        );
    }
}

//! `base64_decode` and the `base64_data` buffer it fills.
//!
//! Semantics of Suricata 7.0.10, checked by running it on crafted payloads:
//! - the input starts at `offset` (from the buffer start, or from the cursor with
//!   `relative`) and is at most `bytes` long (default 65535);
//! - decoding stops at the first byte that is neither a base64 letter nor `=` (a space,
//!   a CR, ...); `=` pads the current group, and decoding goes on after it; a trailing
//!   group of 2 or 3 letters yields 1 or 2 bytes;
//! - nothing decoded: no match (even with only negated contents in `base64_data`);
//! - the step is terminal: the rule's `base64_data` matches on the decoded bytes decide
//!   the buffer, the steps after `base64_decode` in the same buffer are not inspected,
//!   and a `base64_decode` without `base64_data` never matches.

use rules::{Buffer, Match, Rule};

use crate::program::Program;
use crate::sig::{failed, unsupported, Refusal};

/// `base64_decode`'s default (and largest) input length.
pub(crate) const MAX_BYTES: u32 = 65535;

/// A compiled `base64_decode` with the rule's `base64_data` program.
#[derive(Debug, Clone)]
pub(crate) struct Base64C {
    /// Input bytes decoded at most.
    pub bytes: u32,
    /// Where the input starts (from the cursor with `relative`).
    pub offset: u32,
    /// `relative`
    pub relative: bool,
    /// The `base64_data` program (`None`: the rule has none, the step never matches).
    pub data: Option<Program>,
}

impl Base64C {
    /// The input slice of `buf` for a cursor at `cursor`, or `None` when it starts at or
    /// past the end.
    pub(crate) fn input<'b>(&self, buf: &'b [u8], cursor: usize) -> Option<&'b [u8]> {
        let base = if self.relative { cursor } else { 0 };
        let start = base.checked_add(self.offset as usize)?;
        if start >= buf.len() {
            return None;
        }
        let end = buf.len().min(start.saturating_add(self.bytes as usize));
        Some(&buf[start..end])
    }
}

/// The matches of the rule's `base64_data` buffer, compiled at its `base64_decode`.
/// Refused: `base64_data` without `base64_decode` (Suricata fails such a rule),
/// transforms on it, or two `base64_data` lists.
pub(crate) fn data_matches(r: &Rule) -> Result<Option<Vec<Match>>, Refusal> {
    let data: Vec<_> = r
        .buffers
        .iter()
        .filter(|b| b.buffer == Buffer::Base64Data)
        .collect();
    let decode = r
        .buffers
        .iter()
        .flat_map(|b| &b.matches)
        .any(|m| matches!(m, Match::Base64Decode { .. }));
    match data.as_slice() {
        [] => Ok(None),
        [_] if !decode => Err(failed("base64_data", "base64_data without base64_decode")),
        [d] if !d.transforms.is_empty() => {
            Err(unsupported("base64_data", "transforms on base64_data"))
        }
        [d] => Ok(Some(d.matches.clone())),
        _ => Err(unsupported("base64_data", "base64_data split in two lists")),
    }
}

/// Runs a `base64_decode` step at cursor `cursor` of `buf`: decodes and matches the
/// `base64_data` program on the result (`vars` as the rule's other buffers).
pub(crate) fn matches(
    b: &Base64C,
    buf: &[u8],
    cursor: usize,
    vars: &mut crate::program::ProgVars,
) -> bool {
    let (Some(data), Some(input)) = (&b.data, b.input(buf, cursor)) else {
        return false;
    };
    let mut out = Vec::new();
    decode(input, &mut out);
    !out.is_empty() && data.matches(&out, vars)
}

fn value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes `input` into `out` (cleared first) as `base64_decode` does.
pub(crate) fn decode(input: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let (mut acc, mut letters, mut group) = (0u32, 0u32, 0u32);
    let flush = |acc: u32, letters: u32, out: &mut Vec<u8>| {
        // `letters` 6-bit values in the top of a 24-bit group.
        let bytes = (letters * 6 / 8) as usize;
        let v = acc << (6 * (4 - letters));
        out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8][..bytes]);
    };
    for &c in input {
        if let Some(v) = value(c) {
            if letters < 4 && group == letters {
                acc = acc << 6 | v;
                letters += 1;
            }
            // A letter after padding in the same group is dropped with the group.
        } else if c != b'=' {
            // A lone letter before a byte outside the alphabet still yields a byte (its
            // 6 bits and two zero bits); at the input's end it yields none. Suricata
            // 7.0.10 decodes `e\r\n` to `x`, `aGVsb\r\n` to 4 bytes, `aGVsb` to 3
            // (found by the differential harness's `b64` family).
            if letters == 1 && group == 1 {
                out.push((acc << 2) as u8);
                letters = 0;
            }
            break;
        }
        group += 1;
        if group == 4 {
            flush(acc, letters, out);
            (acc, letters, group) = (0, 0, 0);
        }
    }
    if letters > 0 {
        flush(acc, letters, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &[u8]) -> Vec<u8> {
        let mut o = Vec::new();
        decode(s, &mut o);
        o
    }

    #[test]
    fn decodes_as_suricata() {
        assert_eq!(d(b"aGVsbG8gd29ybGQ="), b"hello world");
        // Stops at the first byte outside the alphabet.
        assert_eq!(d(b"aGVs bG8gd29ybGQ="), b"hel");
        assert_eq!(d(b"aGVsb\r\nG8gd29ybGQ="), b"hell");
        // A trailing group of 2 or 3 letters still yields its bytes.
        assert_eq!(d(b"aGVsbG"), b"hell");
        assert_eq!(d(b"aGVsbG8"), b"hello");
        assert_eq!(d(b"aGVsb"), b"hel");
        assert_eq!(d(b"e\r\nHN3c"), b"x");
        assert_eq!(d(b"aGVsbG8gd"), b"hello ");
        // Padding ends a group; decoding goes on after it.
        assert_eq!(d(b"aGVsbG8=d29ybGQ="), b"helloworld");
        assert_eq!(d(b"!!!!"), b"");
        assert_eq!(d(b""), b"");
    }

    #[test]
    fn input_window() {
        let b = Base64C {
            bytes: 4,
            offset: 5,
            relative: false,
            data: None,
        };
        assert_eq!(b.input(b"T6 X=aGVsbG8=", 0), Some(&b"aGVs"[..]));
        let r = Base64C {
            relative: true,
            offset: 0,
            bytes: MAX_BYTES,
            ..b
        };
        assert_eq!(r.input(b"T6 X=aGVsbG8=", 5), Some(&b"aGVsbG8="[..]));
        assert_eq!(r.input(b"abc", 3), None);
        assert_eq!(r.input(b"abc", usize::MAX), None);
    }

    proptest! {
        #[test]
        fn round_trips_and_never_panics(data in proptest::collection::vec(any::<u8>(), 0..64),
                                        junk in proptest::collection::vec(any::<u8>(), 0..64)) {
            use base64::Engine;
            let enc = base64::engine::general_purpose::STANDARD.encode(&data);
            prop_assert_eq!(d(enc.as_bytes()), data.clone());
            let out = d(&junk);
            prop_assert!(out.len() <= junk.len());
        }
    }
}

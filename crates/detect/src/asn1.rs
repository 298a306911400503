//! `asn1`: a bounded BER walk over the buffer from an offset, checking each element.
//!
//! Semantics of Suricata 7.0.10, established by running it on crafted payloads:
//! - decoding starts at `absolute_offset` (from the buffer start; the default, 0) or at
//!   `relative_offset` from the cursor (may be negative); outside the buffer: no match;
//! - top-level elements are decoded one after the other; an element that does not
//!   decode (truncated, a bad length, an empty or constructed BIT STRING, nesting past
//!   [`MAX_DEPTH`]) stops the walk and none of its own checks count, while the elements
//!   decoded before it do;
//! - `oversize_length N`: an element with a definite length above N;
//! - `bitstring_overflow`: a primitive universal BIT STRING whose unused-bits count is
//!   above 8 times its length;
//! - `double_overflow`: a primitive universal REAL over 256 bytes in decimal (ISO 6093)
//!   encoding (first content byte's top two bits 0);
//! - the contents of SEQUENCE, SET and of non-universal constructed elements are
//!   decoded as elements; other constructed universal elements are opaque.
//!
//! The keyword matches when any check holds for any decoded element.

use crate::sig::{failed, Refusal};

/// Deepest nesting decoded.
pub const MAX_DEPTH: u32 = 64;

/// Most elements decoded per evaluation.
pub const MAX_ELEMENTS: u32 = 4096;

/// A compiled `asn1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Asn1C {
    /// `bitstring_overflow`
    pub bitstring_overflow: bool,
    /// `double_overflow`
    pub double_overflow: bool,
    /// `oversize_length`
    pub oversize_length: Option<u32>,
    /// `absolute_offset` (`false`) or `relative_offset` (`true`) with its value.
    pub relative: bool,
    /// The offset.
    pub offset: i64,
}

/// Whether the rule's payload matches hold an `asn1`: Suricata checks it on the packet
/// payload only (not on the reassembled stream), so such a rule is matched per packet.
pub(crate) fn in_payload(r: &rules::Rule) -> bool {
    r.buffers
        .iter()
        .filter(|b| b.buffer == rules::Buffer::Payload)
        .flat_map(|b| &b.matches)
        .any(|m| matches!(m, rules::Match::Asn1(_)))
}

/// Parses the value of `asn1` (`opt, opt N, ...`).
pub(crate) fn compile(val: &str) -> Result<Asn1C, Refusal> {
    let mut a = Asn1C {
        bitstring_overflow: false,
        double_overflow: false,
        oversize_length: None,
        relative: false,
        offset: 0,
    };
    let bad = |m: String| failed("asn1", m);
    let mut any = false;
    for part in val.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut w = part.split_whitespace();
        let (k, v) = (w.next().unwrap_or(""), w.next());
        if w.next().is_some() {
            return Err(bad(format!("asn1: bad option '{part}'")));
        }
        let num = |v: Option<&str>| -> Result<i64, Refusal> {
            v.and_then(|x| x.parse::<i64>().ok())
                .ok_or_else(|| bad(format!("asn1: '{k}' needs a number")))
        };
        match k {
            "bitstring_overflow" if v.is_none() => a.bitstring_overflow = true,
            "double_overflow" if v.is_none() => a.double_overflow = true,
            "oversize_length" => {
                let n = num(v)?;
                a.oversize_length =
                    Some(u32::try_from(n).map_err(|_| bad(format!("asn1: bad length {n}")))?);
            }
            "absolute_offset" => {
                let n = num(v)?;
                if !(0..=u16::MAX as i64).contains(&n) {
                    return Err(bad(format!("asn1: bad absolute_offset {n}")));
                }
                (a.relative, a.offset) = (false, n);
            }
            "relative_offset" => {
                let n = num(v)?;
                if !(-(u16::MAX as i64)..=u16::MAX as i64).contains(&n) {
                    return Err(bad(format!("asn1: bad relative_offset {n}")));
                }
                (a.relative, a.offset) = (true, n);
            }
            _ => return Err(bad(format!("asn1: unknown option '{part}'"))),
        }
        any = true;
    }
    if !any {
        return Err(bad("asn1: no option".into()));
    }
    Ok(a)
}

impl Asn1C {
    /// Whether the check holds on `buf` with the cursor at `cursor`.
    pub(crate) fn matches(&self, buf: &[u8], cursor: usize) -> bool {
        let base = if self.relative { cursor as i64 } else { 0 };
        let start = base.saturating_add(self.offset);
        if start < 0 || start >= buf.len() as i64 {
            return false;
        }
        let mut w = Walk {
            a: self,
            elements: 0,
        };
        let mut rest = &buf[start as usize..];
        while !rest.is_empty() {
            match w.element(rest, 0) {
                Some((hit, r)) => {
                    if hit {
                        return true;
                    }
                    rest = r;
                }
                None => return false,
            }
        }
        false
    }
}

struct Walk<'a> {
    a: &'a Asn1C,
    elements: u32,
}

/// The length of an element: definite, or indefinite (ends at an end-of-contents).
enum Len {
    Definite(usize),
    Indefinite,
}

/// Reads an identifier and a length: (class, constructed, tag, length, header size).
fn header(b: &[u8]) -> Option<(u8, bool, u32, Len, usize)> {
    let first = *b.first()?;
    let (class, constructed) = (first >> 6, first & 0x20 != 0);
    let mut i = 1;
    let mut tag = (first & 0x1f) as u32;
    if tag == 0x1f {
        tag = 0;
        loop {
            let c = *b.get(i)?;
            i += 1;
            tag = tag.checked_mul(128)? | (c & 0x7f) as u32;
            if c & 0x80 == 0 {
                break;
            }
            if i > 5 {
                return None;
            }
        }
    }
    let l = *b.get(i)?;
    i += 1;
    let len = match l {
        0x80 => Len::Indefinite,
        0xff => return None,
        l if l & 0x80 == 0 => Len::Definite(l as usize),
        l => {
            let n = (l & 0x7f) as usize;
            let bytes = b.get(i..i + n)?;
            i += n;
            let mut v: u64 = 0;
            for &x in bytes {
                v = v.checked_mul(256)? | x as u64;
            }
            Len::Definite(usize::try_from(v).ok()?)
        }
    };
    Some((class, constructed, tag, len, i))
}

const BIT_STRING: u32 = 3;
const REAL: u32 = 9;
const SEQUENCE: u32 = 16;
const SET: u32 = 17;

impl Walk<'_> {
    /// Decodes one element: whether a check holds in it, and the bytes after it.
    /// `None`: it does not decode.
    fn element<'b>(&mut self, b: &'b [u8], depth: u32) -> Option<(bool, &'b [u8])> {
        self.elements += 1;
        if depth > MAX_DEPTH || self.elements > MAX_ELEMENTS {
            return None;
        }
        let (class, constructed, tag, len, hl) = header(b)?;
        let universal = class == 0;
        let body = &b[hl..];
        let recurse = constructed && (!universal || tag == SEQUENCE || tag == SET);
        if universal && tag == BIT_STRING && (constructed || matches!(len, Len::Definite(0))) {
            return None;
        }
        match len {
            Len::Definite(n) => {
                let content = body.get(..n)?;
                let mut hit = self.a.oversize_length.is_some_and(|m| n as u64 > m as u64);
                if universal && !constructed && tag == BIT_STRING && self.a.bitstring_overflow {
                    hit |= content[0] as u64 > 8 * n as u64;
                }
                if universal && !constructed && tag == REAL && self.a.double_overflow {
                    hit |= n > 256 && content[0] & 0xc0 == 0;
                }
                if recurse {
                    let mut r = content;
                    while !r.is_empty() {
                        let (h, rest) = self.element(r, depth + 1)?;
                        hit |= h;
                        r = rest;
                    }
                }
                Some((hit, &body[n..]))
            }
            Len::Indefinite => {
                if !constructed {
                    return None;
                }
                let mut hit = false;
                let mut r = body;
                loop {
                    if r.starts_with(&[0, 0]) {
                        return Some((hit, &r[2..]));
                    }
                    let (h, rest) = self.element(r, depth + 1)?;
                    hit |= h;
                    r = rest;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chk(opts: &str, data: &[u8]) -> bool {
        compile(opts).unwrap().matches(data, 0)
    }

    #[test]
    fn parses_options() {
        let a = compile(
            "double_overflow, bitstring_overflow, relative_offset 27, oversize_length 2048",
        )
        .unwrap();
        assert!(a.double_overflow && a.bitstring_overflow && a.relative);
        assert_eq!((a.offset, a.oversize_length), (27, Some(2048)));
        let a = compile("oversize_length 1024,relative_offset -1").unwrap();
        assert_eq!((a.offset, a.relative), (-1, true));
        assert!(compile("").is_err());
        assert!(compile("nope").is_err());
        assert!(compile("oversize_length x").is_err());
    }

    // Each case below was run through Suricata 7.0.10 (`asn1:...,relative_offset 0`
    // after a 3-byte tag) and gave the outcome asserted.
    #[test]
    fn oversize_length() {
        let mut big = b"\x04\x82\x04\x10".to_vec();
        big.extend([b'x'; 0x410]);
        assert!(chk("oversize_length 1024", &big));
        assert!(!chk("oversize_length 2048", &big));
        // Truncated: nothing decodes, nothing matches.
        assert!(!chk("oversize_length 3", b"\x04\x82\x10\x00xxxxxxxxxx"));
        // A second element.
        let mut two = b"\x04\x01a".to_vec();
        two.extend(&big);
        assert!(chk("oversize_length 1024", &two));
        // Inside a sequence; an indefinite length is not a length.
        assert!(chk("oversize_length 3", b"\x30\x06\x04\x01a\x04\x01b"));
        assert!(!chk("oversize_length 3", b"\x30\x80\x04\x01a\x00\x00"));
        // Elements before one that does not decode still count.
        assert!(chk("oversize_length 3", b"\x04\x05xxxxx\xff"));
        assert!(chk("oversize_length 3", b"\x04\x05xxxxx\x04\x09"));
        // An empty or constructed BIT STRING does not decode.
        assert!(!chk("oversize_length 3", b"\x03\x00\x04\x05xxxxx"));
        assert!(!chk("oversize_length 3", b"\x23\x04\x03\x02\x08\xff"));
        assert!(!chk(
            "oversize_length 3",
            b"\x30\x08\x03\x02\x09\x00\x04\x01a"
        ));
        // High tag numbers and long length forms.
        assert!(chk("oversize_length 3", b"\x1f\x81\x00\x05xxxxx"));
        assert!(chk(
            "oversize_length 3",
            b"\x04\x85\x00\x00\x00\x00\x05xxxxx"
        ));
    }

    #[test]
    fn bitstring_overflow() {
        // Unused bits above 8 times the length.
        for (len, unused, hit) in [
            (1u8, 8u8, false),
            (1, 9, true),
            (2, 16, false),
            (2, 17, true),
            (3, 24, false),
            (3, 31, true),
            (4, 32, false),
            (4, 33, true),
            (9, 72, false),
            (9, 73, true),
        ] {
            let mut b = vec![3, len, unused];
            b.extend(std::iter::repeat_n(0xff, len as usize - 1));
            assert_eq!(
                chk("bitstring_overflow", &b),
                hit,
                "len {len} unused {unused}"
            );
        }
    }

    #[test]
    fn double_overflow() {
        let real = |first: u8, n: usize| {
            let mut b = vec![0x09, 0x82, (n >> 8) as u8, n as u8, first];
            b.extend(std::iter::repeat_n(b'1', n - 1));
            b
        };
        assert!(chk("double_overflow", &real(0x01, 257)));
        assert!(chk("double_overflow", &real(0x3f, 257)));
        assert!(chk("double_overflow", &real(0x02, 768)));
        assert!(!chk("double_overflow", &real(0x01, 256)));
        assert!(!chk("double_overflow", &real(0x80, 257)));
        assert!(!chk("double_overflow", &real(0x41, 257)));
        assert!(!chk("double_overflow", b"\x09\x00"));
    }

    #[test]
    fn offsets() {
        let a = compile("oversize_length 3, relative_offset -3").unwrap();
        assert!(a.matches(b"ABC\x04\x05xxxxx", 6));
        assert!(!a.matches(b"ABC\x04\x05xxxxx", 2));
        let a = compile("oversize_length 3, absolute_offset 3").unwrap();
        assert!(a.matches(b"ABC\x04\x05xxxxx", 0));
        assert!(!a.matches(b"ABC", 0));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..256),
                                       cursor in 0usize..300) {
            let a = compile("bitstring_overflow, double_overflow, oversize_length 10, relative_offset -2").unwrap();
            let _ = a.matches(&b, cursor);
        }
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let b: Vec<u8> = std::iter::repeat_n([0x30u8, 0x80], 10_000)
            .flatten()
            .collect();
        assert!(!chk("oversize_length 1", &b));
    }
}

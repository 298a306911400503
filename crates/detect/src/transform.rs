//! Sticky-buffer transforms the detector applies before matching.

use rules::Transform;

use crate::sig::{transform_refusal, Refusal};

/// A supported transform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Xform {
    Lower,
    Upper,
    StripWhitespace,
    CompressWhitespace,
    DotPrefix,
    UrlDecode,
    Xor(Vec<u8>),
}

/// Compiles a rule transform, refusing the ones not implemented.
pub(crate) fn compile(t: &Transform) -> Result<Xform, Refusal> {
    Ok(match t {
        Transform::ToLowercase => Xform::Lower,
        Transform::ToUppercase => Xform::Upper,
        Transform::StripWhitespace => Xform::StripWhitespace,
        Transform::CompressWhitespace => Xform::CompressWhitespace,
        Transform::DotPrefix => Xform::DotPrefix,
        Transform::UrlDecode => Xform::UrlDecode,
        Transform::Xor(k) if !k.is_empty() => Xform::Xor(k.clone()),
        other => return Err(transform_refusal(other)),
    })
}

/// Applies `xs` in order to `input`, writing the result into `out` (reused buffer).
pub(crate) fn apply(xs: &[Xform], input: &[u8], out: &mut Vec<u8>, tmp: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(input);
    for x in xs {
        tmp.clear();
        one(x, out, tmp);
        std::mem::swap(out, tmp);
    }
}

fn one(x: &Xform, b: &[u8], o: &mut Vec<u8>) {
    match x {
        Xform::Lower => o.extend(b.iter().map(u8::to_ascii_lowercase)),
        Xform::Upper => o.extend(b.iter().map(u8::to_ascii_uppercase)),
        Xform::StripWhitespace => o.extend(
            b.iter()
                .copied()
                .filter(|c| !c.is_ascii_whitespace() && *c != 0x0b),
        ),
        Xform::CompressWhitespace => {
            let mut prev_ws = false;
            for &c in b {
                let ws = c.is_ascii_whitespace() || c == 0x0b;
                if ws {
                    if !prev_ws {
                        o.push(b' ');
                    }
                } else {
                    o.push(c);
                }
                prev_ws = ws;
            }
        }
        Xform::DotPrefix => {
            o.push(b'.');
            o.extend_from_slice(b);
        }
        Xform::UrlDecode => {
            let mut i = 0;
            while i < b.len() {
                let c = b[i];
                if c == b'%' && i + 2 < b.len() {
                    let h = (b[i + 1] as char).to_digit(16);
                    let l = (b[i + 2] as char).to_digit(16);
                    if let (Some(h), Some(l)) = (h, l) {
                        o.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                }
                o.push(if c == b'+' { b' ' } else { c });
                i += 1;
            }
        }
        Xform::Xor(k) => o.extend(b.iter().enumerate().map(|(i, c)| c ^ k[i % k.len()])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(xs: &[Xform], s: &[u8]) -> Vec<u8> {
        let (mut o, mut t) = (Vec::new(), Vec::new());
        apply(xs, s, &mut o, &mut t);
        o
    }

    #[test]
    fn transforms() {
        assert_eq!(run(&[Xform::Lower], b"AbC"), b"abc");
        assert_eq!(run(&[Xform::StripWhitespace], b" a b\t"), b"ab");
        assert_eq!(run(&[Xform::CompressWhitespace], b"a  \t b"), b"a b");
        assert_eq!(run(&[Xform::DotPrefix], b"x.com"), b".x.com");
        assert_eq!(run(&[Xform::UrlDecode], b"a%41+b%4"), b"aA b%4");
        assert_eq!(run(&[Xform::Xor(vec![1])], b"\x00\x01"), b"\x01\x00");
        assert_eq!(run(&[Xform::Upper, Xform::DotPrefix], b"a"), b".A");
    }
}

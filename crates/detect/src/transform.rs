//! Sticky-buffer transforms the detector applies before matching.

use rules::Transform;

use md5::Digest;

use crate::buffer_program::transform_refusal;
use crate::sig::{failed, Refusal};

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
    Md5,
    Sha1,
    Sha256,
    HeaderLowercase,
    StripPseudoHeaders,
    Pcre(PcreX),
}

/// A compiled `pcrexform`: its one capture group replaces the buffer when the regex
/// matches; the buffer is left as it is otherwise (as in Suricata 7.0.10).
#[derive(Debug, Clone)]
pub(crate) struct PcreX {
    source: String,
    re: std::sync::Arc<pcre2::bytes::Regex>,
}

impl PartialEq for PcreX {
    fn eq(&self, o: &Self) -> bool {
        self.source == o.source
    }
}

impl Eq for PcreX {}

/// Compiles `pcrexform`'s regex: it must compile and hold exactly one capture group
/// (Suricata refuses the rule otherwise).
fn pcrexform(src: &str) -> Result<PcreX, Refusal> {
    let re = pcre2::bytes::RegexBuilder::new()
        .jit_if_available(true)
        .build(src)
        .map_err(|e| failed("pcrexform", format!("pcrexform does not compile: {e}")))?;
    if re.captures_len() != 2 {
        return Err(failed(
            "pcrexform",
            "pcrexform needs exactly one capture group",
        ));
    }
    Ok(PcreX {
        source: src.to_owned(),
        re: std::sync::Arc::new(re),
    })
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
        Transform::ToMd5 => Xform::Md5,
        Transform::ToSha1 => Xform::Sha1,
        Transform::ToSha256 => Xform::Sha256,
        Transform::HeaderLowercase => Xform::HeaderLowercase,
        Transform::StripPseudoHeaders => Xform::StripPseudoHeaders,
        Transform::PcreXform(src) => Xform::Pcre(pcrexform(src)?),
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
                    // The run's first byte stays as it is (a lone tab stays a tab), as
                    // Suricata 7.0.10 does (tests/parity/difftest/fixed/dt-1-573).
                    if !prev_ws {
                        o.push(c);
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
        Xform::Md5 => o.extend_from_slice(&md5::Md5::digest(b)),
        Xform::Sha1 => o.extend_from_slice(&sha1::Sha1::digest(b)),
        Xform::Sha256 => o.extend_from_slice(&sha2::Sha256::digest(b)),
        Xform::HeaderLowercase => {
            // Names (up to the first ':' of each line) lowercased, values kept; a line
            // without ':' (the request line of http.start) is lowercased whole.
            let mut name = true;
            for &c in b {
                o.push(if name { c.to_ascii_lowercase() } else { c });
                if c == b':' {
                    name = false;
                } else if c == b'\n' {
                    name = true;
                }
            }
        }
        Xform::StripPseudoHeaders => {
            // Lines starting with ':' (HTTP/2 pseudo-headers) removed with their end.
            for line in b.split_inclusive(|&c| c == b'\n') {
                if line.first() != Some(&b':') {
                    o.extend_from_slice(line);
                }
            }
        }
        // An empty capture empties the buffer: Suricata 7.0.10 does so once the
        // transform's inspection buffer has been allocated in the thread, and keeps the
        // buffer as it is before (tests/parity/KNOWN_DIFFERENCES.md, `xchain/pcrexform-empty`).
        Xform::Pcre(p) => match p.re.captures(b) {
            Ok(Some(c)) => o.extend_from_slice(c.get(1).map_or(&[][..], |m| m.as_bytes())),
            _ => o.extend_from_slice(b),
        },
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
        assert_eq!(
            run(&[Xform::CompressWhitespace], b"a\t b\x0bc"),
            b"a\tb\x0bc"
        );
        assert_eq!(run(&[Xform::DotPrefix], b"x.com"), b".x.com");
        assert_eq!(run(&[Xform::UrlDecode], b"a%41+b%4"), b"aA b%4");
        assert_eq!(run(&[Xform::Xor(vec![1])], b"\x00\x01"), b"\x01\x00");
        assert_eq!(run(&[Xform::Upper, Xform::DotPrefix], b"a"), b".A");
    }

    fn x(t: Transform) -> Xform {
        compile(&t).unwrap()
    }

    #[test]
    fn digests() {
        // md5("abc"), sha1("abc"), sha256("abc").
        assert_eq!(
            run(&[Xform::Md5], b"abc"),
            b"\x90\x01\x50\x98\x3c\xd2\x4f\xb0\xd6\x96\x3f\x7d\x28\xe1\x7f\x72"
        );
        assert_eq!(run(&[Xform::Sha1], b"abc").len(), 20);
        assert_eq!(&run(&[Xform::Sha1], b"abc")[..4], b"\xa9\x99\x3e\x36");
        assert_eq!(&run(&[Xform::Sha256], b"abc")[..4], b"\xba\x78\x16\xbf");
        assert_eq!(
            run(&[Xform::Upper, Xform::Md5], b"abc"),
            run(&[Xform::Md5], b"ABC")
        );
    }

    #[test]
    fn header_transforms() {
        // As Suricata 7.0.10 matched them on http.header and http.start.
        assert_eq!(
            run(&[Xform::HeaderLowercase], b"Host: h\r\nX-Ab: VaL\r\n"),
            b"host: h\r\nx-ab: VaL\r\n"
        );
        assert_eq!(
            run(
                &[Xform::HeaderLowercase],
                b"GET /P HTTP/1.1\r\nX-Ab: VaL\r\n\r\n"
            ),
            b"get /p http/1.1\r\nx-ab: VaL\r\n\r\n"
        );
        assert_eq!(
            run(
                &[Xform::StripPseudoHeaders],
                b":method: GET\r\nHost: h\r\n:path: /\r\n"
            ),
            b"Host: h\r\n"
        );
    }

    #[test]
    fn pcrexform() {
        let p = x(Transform::PcreXform("a=([^&]+)".into()));
        assert_eq!(run(std::slice::from_ref(&p), b"/p?a=foo&b=2"), b"foo");
        // No match: the buffer is kept.
        assert_eq!(run(std::slice::from_ref(&p), b"/p?b=2"), b"/p?b=2");
        assert_eq!(run(&[p, Xform::Upper], b"a=x"), b"X");
        // An empty capture: an empty buffer.
        let e = x(Transform::PcreXform("xny(.*)".into()));
        assert_eq!(run(std::slice::from_ref(&e), b"sid=xny"), b"");
        assert!(compile(&Transform::PcreXform("(a)(b)".into())).is_err());
        assert!(compile(&Transform::PcreXform("ab".into())).is_err());
        assert!(compile(&Transform::PcreXform("(".into())).is_err());
    }
}

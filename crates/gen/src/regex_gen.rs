//! A string that a (simple) PCRE matches, built from the regex's syntax tree
//! (regex-syntax's HIR): literals as written, one member of each class, the minimum of
//! each repetition, the first branch of each alternation. Anything regex-syntax cannot
//! parse (look-around, back-references, possessive quantifiers) is not synthesizable.

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use regex_syntax::ParserBuilder;
use rules::PcreFlags;

/// The longest string built from one regex.
const MAX_LEN: usize = 4096;

/// A string built from a regex, with its anchors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Bytes the regex matches.
    pub bytes: Vec<u8>,
    /// `^` at the start (the match must begin where the subject begins).
    pub anchored_start: bool,
    /// `$` at the end (the match must end where the subject ends).
    pub anchored_end: bool,
}

/// Builds a sample for `pattern` with PCRE `flags` (`i`, `s`, `m`, `x`, `G`; others
/// ignored).
/// `avoid` lists bytes a class member should not be when another member exists.
pub fn sample(pattern: &str, flags: PcreFlags, avoid: &[u8]) -> Result<Sample, String> {
    let hir = ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(flags.contains(PcreFlags::CASELESS))
        .dot_matches_new_line(flags.contains(PcreFlags::DOTALL))
        .multi_line(flags.contains(PcreFlags::MULTILINE))
        .ignore_whitespace(flags.contains(PcreFlags::EXTENDED))
        .swap_greed(flags.contains(PcreFlags::UNGREEDY))
        .build()
        .parse(pattern)
        .map_err(|e| {
            format!(
                "pcre not parsed by regex-syntax: {}",
                first_line(&e.to_string())
            )
        })?;
    let mut out = Vec::new();
    let mut anchored_start = false;
    let mut anchored_end = false;
    let parts: Vec<&Hir> = match hir.kind() {
        HirKind::Concat(v) => v.iter().collect(),
        _ => vec![&hir],
    };
    for (i, h) in parts.iter().enumerate() {
        if let HirKind::Look(l) = h.kind() {
            match l {
                Look::Start | Look::StartLF | Look::StartCRLF if i == 0 => {
                    anchored_start = matches!(l, Look::Start);
                    continue;
                }
                Look::End | Look::EndLF | Look::EndCRLF if i + 1 == parts.len() => {
                    anchored_end = matches!(l, Look::End);
                    continue;
                }
                _ => {}
            }
        }
        emit(h, avoid, &mut out)?;
    }
    Ok(Sample {
        bytes: out,
        anchored_start,
        anchored_end,
    })
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("syntax")
        .to_string()
}

fn emit(h: &Hir, avoid: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    if out.len() > MAX_LEN {
        return Err("pcre sample longer than 4096 bytes".into());
    }
    match h.kind() {
        HirKind::Empty => {}
        HirKind::Literal(l) => out.extend_from_slice(&l.0),
        HirKind::Class(c) => out.push(class_member(c, avoid).ok_or("pcre: empty class")?),
        HirKind::Look(_) => return Err("pcre: anchor or word boundary inside the pattern".into()),
        HirKind::Repetition(r) => {
            let n = r.min.max(u32::from(r.min == 0 && r.max == Some(0))) as usize;
            if n > MAX_LEN {
                return Err("pcre: repetition too long".into());
            }
            for _ in 0..n {
                emit(&r.sub, avoid, out)?;
            }
        }
        HirKind::Capture(c) => emit(&c.sub, avoid, out)?,
        HirKind::Concat(v) => {
            for x in v {
                emit(x, avoid, out)?;
            }
        }
        HirKind::Alternation(v) => emit(&v[0], avoid, out)?,
    }
    Ok(())
}

/// One byte in the class: a letter or digit if there is one, else printable, else any.
fn class_member(c: &Class, avoid: &[u8]) -> Option<u8> {
    let contains = |b: u8| match c {
        Class::Bytes(bc) => bc.ranges().iter().any(|r| r.start() <= b && b <= r.end()),
        Class::Unicode(uc) => uc
            .ranges()
            .iter()
            .any(|r| r.start() <= b as char && b as char <= r.end()),
    };
    let preferred = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let printable = (0x21u8..0x7f).chain([b' ']);
    let any = 0u8..=255;
    preferred
        .iter()
        .copied()
        .chain(printable)
        .chain(any.clone())
        .find(|&b| contains(b) && !avoid.contains(&b))
        .or_else(|| any.into_iter().find(|&b| contains(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(p: &str, flags: &str) -> Vec<u8> {
        let s = sample(p, PcreFlags::parse(flags).unwrap(), b" ").unwrap();
        let re = pcre2::bytes::RegexBuilder::new()
            .caseless(flags.contains('i'))
            .dotall(flags.contains('s'))
            .build(p)
            .unwrap();
        assert!(
            re.is_match(&s.bytes).unwrap(),
            "{p} !~ {:?}",
            String::from_utf8_lossy(&s.bytes)
        );
        s.bytes
    }

    #[test]
    fn samples_match_their_regex() {
        check(r"^/[a-z]{5,10}\.php\?id=\d+$", "");
        check(r"User-Agent\x3a\x20[^\r\n]*bot", "i");
        check(r"(foo|bar)+baz.{3}", "s");
        check(r"\/ab\-c[\x00-\x08]x", "");
        assert_eq!(check("ab(c|d)e?", ""), b"abc");
    }

    #[test]
    fn anchors_are_reported() {
        let s = sample("^abc$", PcreFlags::NONE, b"").unwrap();
        assert!(s.anchored_start && s.anchored_end);
        assert_eq!(s.bytes, b"abc");
    }

    #[test]
    fn unsupported_constructs_are_refused() {
        assert!(sample(r"(?=abc)x", PcreFlags::NONE, b"").is_err());
        assert!(sample(r"(a)\1", PcreFlags::NONE, b"").is_err());
        assert!(sample(r"a\bb", PcreFlags::NONE, b"").is_err());
    }
}

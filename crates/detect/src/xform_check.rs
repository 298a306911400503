//! Contents a buffer's transforms make impossible, refused as Suricata 7.0.10 refuses
//! them ("content string ... incompatible with <transform> transform"): with
//! `to_lowercase` a content with an uppercase letter, with `to_uppercase` one with a
//! lowercase letter, with `strip_whitespace` one with a whitespace byte, with
//! `compress_whitespace` one with two whitespace bytes in a row (whitespace: space, tab,
//! LF, VT, FF, CR). Every transform of the list is checked against every content after
//! it, whatever its place in the chain (`to_lowercase; to_md5;` still refuses an
//! uppercase byte) and with `nocase` too; negated contents and `pcre` are not checked.
//! Found by the differential harness (tests/parity/difftest/fixed/dt-1-7, dt-1-501).

use rules::{BufferMatches, Match, Transform};

use crate::sig::{failed, Refusal};

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whether `pattern` is a content `t` lets through.
fn compatible(t: &Transform, pattern: &[u8]) -> bool {
    match t {
        Transform::ToLowercase => !pattern.iter().any(u8::is_ascii_uppercase),
        Transform::ToUppercase => !pattern.iter().any(u8::is_ascii_lowercase),
        Transform::StripWhitespace => !pattern.iter().copied().any(is_space),
        Transform::CompressWhitespace => {
            !pattern.windows(2).any(|w| is_space(w[0]) && is_space(w[1]))
        }
        _ => true,
    }
}

/// Refuses a buffer whose (non-negated) contents one of its transforms cannot produce.
pub(crate) fn check(bm: &BufferMatches) -> Result<(), Refusal> {
    for t in &bm.transforms {
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            if !c.negated && !compatible(t, &c.pattern) {
                return Err(failed(
                    t.name(),
                    format!("a content incompatible with the {} transform", t.name()),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn refused(opts: &str) -> bool {
        crate::testutil::refused(&format!("alert http any any -> any any ({opts} sid:1;)"))
    }

    /// The answers of `suricata -T` (7.0.10) on each rule.
    #[test]
    fn contents_a_transform_cannot_produce_are_refused_as_suricata() {
        let u = "http.uri;";
        for (opts, no) in [
            ("to_lowercase; content:\"aB\";", true),
            ("to_lowercase; content:\"aB\"; nocase;", true),
            ("to_uppercase; content:\"Ab\";", true),
            ("strip_whitespace; content:\"a b\";", true),
            ("compress_whitespace; content:\"a  b\";", true),
            ("compress_whitespace; content:\"a b\";", false),
            ("compress_whitespace; content:\"a|09 20|b\";", true),
            ("compress_whitespace; content:\" \";", false),
            ("to_lowercase; content:!\"AB\";", false),
            (
                "to_lowercase; content:\"ab\"; content:\"CD\"; distance:0;",
                true,
            ),
            ("to_lowercase; pcre:\"/AB/\";", false),
            ("to_lowercase; url_decode; content:\"AB\";", true),
            ("strip_whitespace; content:\"a|0b|b\";", true),
            ("to_uppercase; content:\"AB\"; nocase;", false),
            ("dotprefix; content:\"AB\";", false),
            ("compress_whitespace; content:\"|0b 0b|\";", true),
            ("strip_whitespace; content:\"|0c|\";", true),
            ("to_md5; content:\"a b\";", false),
            ("strip_whitespace; to_md5; content:\"a b\";", true),
        ] {
            assert_eq!(refused(&format!("{u} {opts}")), no, "{opts}");
        }
        assert!(!refused("http.header; header_lowercase; content:\"AB\";"));
        assert!(!refused(
            "http.uri; to_lowercase; content:\"ab\"; http.host; content:\"x\";"
        ));
    }
}

//! Byte and length matches: `byte_test`, `byte_jump`, `byte_extract`, `byte_math`,
//! `isdataat`, `bsize`, `urilen`, `base64_decode`, `asn1`.

use super::payload::HTTP;
use super::{Ctx, Keyword, Kind, Value};
use crate::ast::Match;
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;
use crate::values as v;

/// Byte and length keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("byte_test", Value::Required, Kind::Match, byte_op).about(
        "read a number from the buffer and compare it",
        "rules/payload-keywords.html#byte-test",
    ),
    Keyword::new("byte_jump", Value::Required, Kind::Match, byte_op).about(
        "read a number from the buffer and move the match position by it",
        "rules/payload-keywords.html#byte-jump",
    ),
    Keyword::new("byte_extract", Value::Required, Kind::Match, byte_op).about(
        "read a number from the buffer into a variable for later keywords",
        "rules/payload-keywords.html#byte-extract",
    ),
    Keyword::new("byte_math", Value::Required, Kind::Match, byte_op).about(
        "read a number from the buffer, compute with it, store the result",
        "rules/payload-keywords.html#byte-math",
    ),
    Keyword::new("isdataat", Value::Required, Kind::Match, byte_op).about(
        "check that the buffer has data at a position",
        "rules/payload-keywords.html#isdataat",
    ),
    Keyword::new("bsize", Value::Required, Kind::Match, bsize).about(
        "compare the size of the current buffer",
        "rules/payload-keywords.html#bsize",
    ),
    Keyword::new("urilen", Value::Required, Kind::Match, urilen)
        .protos(HTTP)
        .about(
            "compare the length of the HTTP URI",
            "rules/http-keywords.html#urilen",
        ),
    Keyword::new("base64_decode", Value::Optional, Kind::Match, base64_decode).about(
        "decode base64 from the buffer into base64_data",
        "rules/base64-keywords.html#base64-decode",
    ),
    Keyword::new("asn1", Value::Required, Kind::Match, asn1).about(
        "check ASN.1 encoded data for malformed lengths and overflows",
        "rules/asn1-keywords.html",
    ),
];

fn byte_op(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let (m, relative) = match kw {
        "byte_test" => {
            let t = tryv!(st, o, kw, v::byte_test(val));
            if !(st.check_num(off, kw, &t.nbytes)
                && st.check_num(off, kw, &t.value)
                && st.check_num(off, kw, &t.offset))
            {
                return;
            }
            let r = t.common.relative;
            (Match::ByteTest(t), r)
        }
        "byte_jump" => {
            let t = tryv!(st, o, kw, v::byte_jump(val));
            if !(st.check_num(off, kw, &t.nbytes) && st.check_num(off, kw, &t.offset)) {
                return;
            }
            let r = t.common.relative;
            (Match::ByteJump(t), r)
        }
        "byte_extract" => {
            let t = tryv!(st, o, kw, v::byte_extract(val));
            st.vars.push(t.name.clone());
            let r = t.common.relative;
            (Match::ByteExtract(t), r)
        }
        "byte_math" => {
            let t = tryv!(st, o, kw, v::byte_math(val));
            if !(st.check_num(off, kw, &t.nbytes)
                && st.check_num(off, kw, &t.offset)
                && st.check_num(off, kw, &t.rvalue))
            {
                return;
            }
            st.vars.push(t.result.clone());
            let r = t.common.relative;
            (Match::ByteMath(t), r)
        }
        _ => {
            let t = tryv!(st, o, kw, v::isdataat(val));
            if !st.check_num(off, kw, &t.offset) {
                return;
            }
            let r = t.relative;
            (Match::IsDataAt(t), r)
        }
    };
    // Like Suricata: a relative byte_*/isdataat without a sticky buffer goes to the
    // buffer of the match it is relative to.
    let block = match (relative, st.sticky.is_some(), st.last_match) {
        (true, false, Some((b, _))) => b,
        _ => st.current_block(),
    };
    st.push_match(block, m);
}

fn bsize(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    // Suricata 7.0.10's 64-bit unsigned-integer syntax: `<0`, `>=0`, `1-2`, `0x10` are
    // refused, 4294967296 is taken (found by the differential harness's `xchain` family).
    let c = tryv!(st, o, kw, v::suricata_uint(val, u64::MAX));
    if st.sticky.is_none() {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            "bsize needs a sticky buffer before it",
        );
        return;
    }
    let b = st.current_block();
    st.push_match(b, Match::Bsize(c));
}

fn urilen(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let (cmp_s, raw) = match val.split_once(',') {
        Some((a, m)) => match m.trim() {
            "raw" => (a, true),
            "norm" => (a, false),
            other => {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("urilen: unknown option '{other}'"),
                );
                return;
            }
        },
        None => (val, false),
    };
    let cmp = tryv!(st, o, kw, v::int_cmp(cmp_s, 65535));
    let b = st.block_for(
        if raw {
            Buffer::HttpUriRaw
        } else {
            Buffer::HttpUri
        },
        &[],
    );
    st.blocks[b].matches.push(Match::Urilen { cmp, raw });
}

fn base64_decode(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let off = c.o.value_off;
    let (bytes, offset, relative) = match o.value.map_or(Ok((None, None, false)), base64_options) {
        Ok(v) => v,
        Err(e) => {
            st.err(off, Reason::InvalidValue, kw, format!("base64_decode: {e}"));
            return;
        }
    };
    let b = match (relative, st.sticky.is_some(), st.last_match) {
        (true, false, Some((b, _))) => b,
        _ => st.current_block(),
    };
    st.push_match(
        b,
        Match::Base64Decode {
            bytes,
            offset,
            relative,
        },
    );
}

fn asn1(st: &mut State, c: &Ctx<'_>) {
    let val = c.val;
    let b = st.current_block();
    st.push_match(b, Match::Asn1(val.to_owned()));
}

/// `base64_decode`'s options as Suricata 7.0.10 reads them (checked against it with the
/// differential harness's `b64` family): `bytes N` (up to 65,535), then `offset N`, each
/// with an optional comma, then one word that must be `relative`; what follows that word
/// is ignored (`relative, bytes 4` is `relative` alone), and the order is fixed
/// (`offset 1, bytes 4` is refused: `bytes` is then the word).
pub(crate) fn base64_options(val: &str) -> Result<(Option<u32>, Option<u32>, bool), String> {
    /// `name` then blanks then digits (and an optional comma after blanks): the number
    /// and the rest, or `None` when the text does not start so.
    fn field<'a>(s: &'a str, name: &str) -> Option<(&'a str, &'a str)> {
        let r = s.trim_start().strip_prefix(name)?;
        let t = r.trim_start();
        if t.len() == r.len() {
            return None;
        }
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        if end == 0 {
            return None;
        }
        let rest = &t[end..];
        let rest = rest.strip_prefix(',').unwrap_or(rest);
        Some((&t[..end], rest))
    }
    let mut rest = val;
    let mut bytes = None;
    let mut offset = None;
    if let Some((n, r)) = field(rest, "bytes") {
        bytes = Some(
            n.parse::<u16>()
                .map_err(|_| format!("bytes {n} out of range 0..=65535"))?
                .into(),
        );
        rest = r;
    }
    if let Some((n, r)) = field(rest, "offset") {
        offset = Some(
            n.parse::<u32>()
                .map_err(|_| format!("offset {n} out of range"))?,
        );
        rest = r;
    }
    let r = rest.trim_start();
    let end = r
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(r.len());
    let relative = match &r[..end] {
        "" => false,
        "relative" => true,
        w => return Err(format!("invalid argument \"{w}\"")),
    };
    Ok((bytes, offset, relative))
}

#[cfg(test)]
mod base64_tests {
    use super::base64_options;

    #[test]
    fn base64_decode_options_in_suricatas_order() {
        assert_eq!(base64_options(""), Ok((None, None, false)));
        assert_eq!(
            base64_options("bytes 18, offset 1, relative"),
            Ok((Some(18), Some(1), true))
        );
        assert_eq!(
            base64_options("bytes 18 offset 1"),
            Ok((Some(18), Some(1), false))
        );
        assert_eq!(base64_options("  bytes 5 "), Ok((Some(5), None, false)));
        assert_eq!(
            base64_options("offset 65536"),
            Ok((None, Some(65536), false))
        );
        // The word ends the options: what follows is ignored.
        assert_eq!(base64_options("relative, bytes 18"), Ok((None, None, true)));
        assert_eq!(
            base64_options("bytes 1, offset 2, relative, relative"),
            Ok((Some(1), Some(2), true))
        );
        for bad in [
            "offset 1, bytes 18",
            "bytes 18, bytes 4",
            "bytes 65536",
            "bytes -1",
            "offset",
            "bytes 5, offset 2, relativ",
            "bytes 18, offset 1, nosuch",
        ] {
            assert!(base64_options(bad).is_err(), "{bad}");
        }
    }
}

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
    let mut bytes = None;
    let mut offset = None;
    let mut relative = false;
    if let Some(val) = o.value {
        for p in v::csv(val) {
            let mut w = p.split_whitespace();
            match (w.next(), w.next()) {
                (Some("bytes"), Some(n)) => {
                    bytes = Some(tryv!(st, o, kw, v::uint(n, u32::MAX as u64)) as u32)
                }
                (Some("offset"), Some(n)) => {
                    offset = Some(tryv!(st, o, kw, v::uint(n, u32::MAX as u64)) as u32)
                }
                (Some("relative"), None) => relative = true,
                _ => {
                    st.err(
                        off,
                        Reason::InvalidValue,
                        kw,
                        format!("base64_decode: unknown option '{p}'"),
                    );
                    return;
                }
            }
        }
    }
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

//! Buffer transforms: `dotprefix`, `to_lowercase`, `xor`, `pcrexform` ...

use super::pcre::compile_pcre;
use super::{Ctx, Keyword, Kind, Value};
use crate::buffers::Transform;
use crate::diag::Reason;
use crate::lexer::RawOption;
use crate::parser::state::State;

/// Transform keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dotprefix", Value::None, Kind::Transform, simple).about(
        "transform: prefix the buffer with a dot",
        "rules/transforms.html#dotprefix",
    ),
    Keyword::new("strip_whitespace", Value::None, Kind::Transform, simple).about(
        "transform: remove all whitespace",
        "rules/transforms.html#strip-whitespace",
    ),
    Keyword::new("compress_whitespace", Value::None, Kind::Transform, simple).about(
        "transform: turn runs of whitespace into one space",
        "rules/transforms.html#compress-whitespace",
    ),
    Keyword::new("to_lowercase", Value::None, Kind::Transform, simple).about(
        "transform: make the buffer lowercase",
        "rules/transforms.html#to_lowercase",
    ),
    Keyword::new("to_uppercase", Value::None, Kind::Transform, simple).about(
        "transform: make the buffer uppercase",
        "rules/transforms.html#to_uppercase",
    ),
    Keyword::new("to_md5", Value::None, Kind::Transform, simple).about(
        "transform: replace the buffer with its MD5",
        "rules/transforms.html#to-md5",
    ),
    Keyword::new("to_sha1", Value::None, Kind::Transform, simple).about(
        "transform: replace the buffer with its SHA-1",
        "rules/transforms.html#to-sha1",
    ),
    Keyword::new("to_sha256", Value::None, Kind::Transform, simple).about(
        "transform: replace the buffer with its SHA-256",
        "rules/transforms.html#to-sha256",
    ),
    Keyword::new("url_decode", Value::None, Kind::Transform, simple).about(
        "transform: decode URL %-escapes",
        "rules/transforms.html#url-decode",
    ),
    Keyword::new("header_lowercase", Value::None, Kind::Transform, simple).about(
        "transform: lowercase the header names",
        "rules/transforms.html#header_lowercase",
    ),
    Keyword::new("strip_pseudo_headers", Value::None, Kind::Transform, simple).about(
        "transform: remove HTTP/2 pseudo headers",
        "rules/transforms.html#strip_pseudo_headers",
    ),
    Keyword::new("xor", Value::Quoted, Kind::Transform, xor).about(
        "transform: xor the buffer with a key",
        "rules/transforms.html#xor",
    ),
    Keyword::new("pcrexform", Value::Quoted, Kind::Transform, pcrexform).about(
        "transform: keep what a regular expression captures",
        "rules/transforms.html#pcre-xform",
    ),
];

/// Transforms that take no value.
fn simple(st: &mut State, c: &Ctx<'_>) {
    if let Some(t) = Transform::simple(c.kw) {
        add_transform(st, c.kw, c.o, t);
    }
}

/// `xor:"hex key"`
fn xor(st: &mut State, c: &Ctx<'_>) {
    let (kw, o, s) = (c.kw, c.o, c.val);
    let key = match hex_bytes(s) {
        Some(k) if !k.is_empty() => k,
        _ => {
            st.err(
                o.value_off,
                Reason::InvalidValue,
                kw,
                "xor key must be hex bytes",
            );
            return;
        }
    };
    add_transform(st, kw, o, Transform::Xor(key));
}

/// `pcrexform:"regex"`
fn pcrexform(st: &mut State, c: &Ctx<'_>) {
    let (kw, o, s) = (c.kw, c.o, c.val);
    if let Err(e) = compile_pcre(s, crate::ast::PcreFlags::NONE) {
        st.err(o.value_off, Reason::InvalidPcre, kw, e);
        return;
    }
    add_transform(st, kw, o, Transform::PcreXform(s.to_owned()));
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn add_transform(st: &mut State, kw: &str, o: &RawOption<'_>, t: Transform) {
    match st.sticky.as_mut() {
        Some(s) => match s.block {
            None => s.transforms.push(t),
            Some(b) => {
                // Suricata applies a transform to the whole buffer, matches before it included.
                s.transforms.push(t.clone());
                st.blocks[b].transforms.push(t);
                st.warn(
                    o.name_off,
                    Reason::Semantic,
                    kw,
                    "transform after matches applies to the whole buffer, earlier matches included (as in Suricata)",
                );
            }
        },
        None => st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("transform '{kw}' needs a sticky buffer"),
        ),
    }
}

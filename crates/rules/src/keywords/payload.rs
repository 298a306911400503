//! Payload matches and content modifiers: `content`, `uricontent`, `nocase`, `offset`,
//! `depth`, `distance`, `within`, `fast_pattern`, `replace` ..., and `pkt_data`.

use super::{Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{AppProto, Content, FastPattern, Match, Num};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;
use crate::values as v;

/// HTTP (any version).
pub(super) const HTTP: &[AppProto] = &[AppProto::Http, AppProto::Http1, AppProto::Http2];

/// Payload keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("content", Value::Required, Kind::Match, content).about(
        "match bytes in the current buffer",
        "rules/payload-keywords.html#content",
    ),
    Keyword::new("uricontent", Value::Required, Kind::Match, content)
        .protos(HTTP)
        .about(
            "match bytes in the normalised HTTP URI (old form of http.uri with content)",
            "rules/http-keywords.html#uricontent",
        ),
    Keyword::new("nocase", Value::None, Kind::ContentModifier, content_flag)
        .once()
        .about(
            "make the preceding content case-insensitive",
            "rules/payload-keywords.html#nocase",
        ),
    Keyword::new("rawbytes", Value::None, Kind::ContentModifier, content_flag).about(
        "Snort compatibility modifier: no effect",
        "rules/payload-keywords.html#rawbytes",
    ),
    Keyword::new(
        "startswith",
        Value::None,
        Kind::ContentModifier,
        content_flag,
    )
    .once()
    .about(
        "the preceding content must be at the start of the buffer",
        "rules/payload-keywords.html#startswith",
    ),
    Keyword::new("endswith", Value::None, Kind::ContentModifier, content_flag)
        .once()
        .about(
            "the preceding content must end the buffer",
            "rules/payload-keywords.html#endswith",
        ),
    Keyword::new(
        "offset",
        Value::Required,
        Kind::ContentModifier,
        content_position,
    )
    .once()
    .about(
        "start looking for the preceding content this many bytes into the buffer",
        "rules/payload-keywords.html#offset",
    ),
    Keyword::new(
        "depth",
        Value::Required,
        Kind::ContentModifier,
        content_position,
    )
    .once()
    .about(
        "look for the preceding content only in the first N bytes of the buffer",
        "rules/payload-keywords.html#depth",
    ),
    Keyword::new(
        "distance",
        Value::Required,
        Kind::ContentModifier,
        content_position,
    )
    .once()
    .about(
        "the preceding content starts at least N bytes after the previous match",
        "rules/payload-keywords.html#distance",
    ),
    Keyword::new(
        "within",
        Value::Required,
        Kind::ContentModifier,
        content_position,
    )
    .once()
    .about(
        "the preceding content ends within N bytes of the previous match",
        "rules/payload-keywords.html#within",
    ),
    Keyword::new(
        "fast_pattern",
        Value::Optional,
        Kind::ContentModifier,
        fast_pattern,
    )
    .once()
    .about(
        "use the preceding content as the rule's prefilter pattern",
        "rules/prefilter-keywords.html#fast-pattern",
    ),
    Keyword::new("replace", Value::Required, Kind::ContentModifier, replace).about(
        "in IPS mode, overwrite the matched content with these bytes",
        "rules/payload-keywords.html#replace",
    ),
];

/// `pkt_data` and `base64_data`.
pub(super) const STICKY: Stickies = &[(&[Buffer::Payload, Buffer::Base64Data], &[])];

fn content(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let (negated, pattern) = tryv!(st, o, kw, v::content_value(val));
    let block = if kw == "uricontent" {
        if st.sticky.is_some() {
            st.err(
                o.name_off,
                Reason::Semantic,
                kw,
                "uricontent used while a sticky buffer is set",
            );
            return;
        }
        st.block_for(Buffer::HttpUri, &[])
    } else {
        st.current_block()
    };
    st.push_match(
        block,
        Match::Content(Content {
            pattern,
            negated,
            ..Content::default()
        }),
    );
}

fn content_flag(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    if kw == "nocase" && st.file_text_after.is_some_and(|at| at == st.last_content) {
        // `filemagic:"x"; nocase;` (difftest filekw): refused as Suricata 7.0.10 does.
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            "can't use multiple nocase modifiers with the same content (filename, fileext and filemagic are nocase already)",
        );
        return;
    }
    if kw == "rawbytes" {
        return rawbytes(st, o.name_off);
    }
    let Some(c) = st.content_for(o.name_off, kw) else {
        return;
    };
    let slot = match kw {
        "nocase" => &mut c.nocase,
        "rawbytes" => &mut c.rawbytes,
        "startswith" => &mut c.startswith,
        _ => &mut c.endswith,
    };
    let dup = *slot;
    *slot = true;
    if dup && kw != "rawbytes" {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("'{kw}' given twice for the same content"),
        );
    }
}

/// `rawbytes` as Suricata 7.0.10 takes it (measured by loading rules, difftest
/// `appkw/uricontent-raw`): refused under a sticky buffer other than the payload,
/// applied to the last content of the payload list (not the last content of the rule:
/// `content:"a"; uricontent:"x"; rawbytes;` is accepted), refused when that list has
/// none (`uricontent:"x"; rawbytes;`, `byte_test:..; rawbytes;`) and when that content
/// has it already.
fn rawbytes(st: &mut State, off: usize) {
    if let Some(b) = st.sticky.as_ref().map(|s| s.buffer) {
        if b != Buffer::Payload {
            let name = b.name();
            st.err(
                off,
                Reason::Semantic,
                "rawbytes",
                format!("\"rawbytes\" cannot be combined with the \"{name}\" sticky buffer"),
            );
            return;
        }
    }
    let last = st
        .blocks
        .iter_mut()
        .filter(|b| b.buffer == Buffer::Payload && b.transforms.is_empty())
        .flat_map(|b| b.matches.iter_mut())
        .filter_map(|m| match m {
            Match::Content(c) => Some(c),
            _ => None,
        })
        .last();
    let msg = match last {
        None => "\"rawbytes\" needs a preceding content option",
        Some(c) if c.rawbytes => "can't use multiple rawbytes modifiers for the same content",
        Some(c) => {
            c.rawbytes = true;
            return;
        }
    };
    st.err(off, Reason::Semantic, "rawbytes", msg);
}

fn content_position(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let n = tryv!(st, o, kw, v::num(val));
    if !st.check_num(off, kw, &n) {
        return;
    }
    if let Num::Lit(x) = n {
        let ok = match kw {
            "distance" => (-65535..=65535).contains(&x),
            _ => (0..=65535).contains(&x),
        };
        if !ok {
            st.err(
                off,
                Reason::InvalidValue,
                kw,
                format!("{kw} {x} out of range"),
            );
            return;
        }
    }
    let Some(c) = st.content_for(o.name_off, kw) else {
        return;
    };
    let slot = match kw {
        "offset" => &mut c.offset,
        "depth" => &mut c.depth,
        "distance" => &mut c.distance,
        _ => &mut c.within,
    };
    let dup = slot.is_some();
    *slot = Some(n);
    if dup {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            format!("'{kw}' given twice for the same content"),
        );
    }
}

fn fast_pattern(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let off = c.o.value_off;
    let fp = match o.value.map(str::trim) {
        None => FastPattern::Yes,
        Some("only") => FastPattern::Only,
        Some(s) => {
            let p = v::csv(s);
            if p.len() != 2 {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    "fast_pattern takes 'only' or offset,length",
                );
                return;
            }
            let a = tryv!(st, o, kw, v::uint(p[0], 65535)) as u16;
            let b = tryv!(st, o, kw, v::uint(p[1], 65535)) as u16;
            FastPattern::Chop {
                offset: a,
                length: b,
            }
        }
    };
    let Some(c) = st.last_content_mut() else {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            "fast_pattern needs a preceding content",
        );
        return;
    };
    let dup = c.fast_pattern.is_some();
    c.fast_pattern = Some(fp);
    if dup {
        st.err(
            o.name_off,
            Reason::Semantic,
            kw,
            "fast_pattern given twice for the same content",
        );
    }
}

fn replace(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let off = c.o.value_off;
    let (neg, bytes) = tryv!(st, o, kw, v::content_value(val));
    if neg {
        st.err(off, Reason::InvalidValue, kw, "replace cannot be negated");
        return;
    }
    // Suricata 7.0.10 rewrites packets only where its engine runs in IPS mode when the
    // rules load, which NFQ (`-q`) does: in AF_PACKET inline mode and with
    // `--simulate-ips`, as in IDS mode, it warns "Can't use 'replace' keyword in non IPS
    // mode" once per `replace`, loads the rule and rewrites nothing (observed by
    // running it; bench/RESULTS.md, "The replace keyword in IPS mode"). Osprey has no
    // NFQ capture, so every `replace` is ignored with that one warning; one of the
    // content's length is kept on the content for printing the rule back. The content
    // and length checks Suricata makes in NFQ mode do not apply (difftest
    // `replace/length`, `replace/nocontent`).
    let why = "Can't use 'replace' keyword in non IPS mode: ignored (Suricata 7.0.10 \
               rewrites packets only in NFQ inline mode, which Osprey does not have)";
    st.warn(o.name_off, Reason::Semantic, kw, why);
    let Some(c) = st.last_content_mut() else {
        return;
    };
    if c.pattern.len() != bytes.len() {
        return;
    }
    c.replace = Some(bytes);
}

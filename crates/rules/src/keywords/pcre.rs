//! `pcre`: Suricata/Snort regular expressions with their flags and buffer letters.

use super::{Ctx, Keyword, Kind, Value};
use crate::ast::{Match, Pcre, PcreFlags};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::lexer::{self, RawOption};
use crate::parser::state::State;

/// `pcre`.
pub(super) const KEYWORDS: &[Keyword] =
    &[
        Keyword::new("pcre", Value::Required, Kind::Match, pcre_kw).about(
            "match a Perl-compatible regular expression in the buffer",
            "rules/payload-keywords.html#pcre-perl-compatible-regular-expressions",
        ),
    ];

fn pcre_kw(st: &mut State, c: &Ctx<'_>) {
    pcre(st, c.o, c.val);
}

/// Compiles a pcre pattern with Suricata flags, for validation.
pub fn compile_pcre(pattern: &str, flags: PcreFlags) -> Result<(), String> {
    let mut b = pcre2::bytes::RegexBuilder::new();
    b.caseless(flags.contains(PcreFlags::CASELESS))
        .dotall(flags.contains(PcreFlags::DOTALL))
        .multi_line(flags.contains(PcreFlags::MULTILINE))
        .extended(flags.contains(PcreFlags::EXTENDED));
    b.build(pattern)
        .map(|_| ())
        .map_err(|e| format!("pcre does not compile: {e}"))
}

fn pcre(st: &mut State, o: &RawOption<'_>, val: &str) {
    let kw = "pcre";
    let (negated, rest) = match val.strip_prefix('!') {
        Some(r) => (true, r.trim_start()),
        None => (false, val),
    };
    // Suricata also accepts an unquoted /regex/flags.
    let inner = if rest.starts_with('"') {
        match lexer::strip_quotes(rest) {
            Ok(s) => s,
            Err(e) => {
                st.err(o.value_off, Reason::Syntax, kw, e);
                return;
            }
        }
    } else {
        rest
    };
    let Some(body) = inner.strip_prefix('/') else {
        st.err(
            o.value_off,
            Reason::Syntax,
            kw,
            "pcre must be \"/regex/flags\"",
        );
        return;
    };
    let Some(end) = body.rfind('/') else {
        st.err(o.value_off, Reason::Syntax, kw, "pcre has no closing '/'");
        return;
    };
    let pattern = &body[..end];
    let tail = &body[end + 1..];
    let (all_flags, captures) = match tail.split_once(',') {
        Some((f, caps)) => {
            let caps: Vec<String> = caps.split(',').map(|c| c.trim().to_owned()).collect();
            for c in &caps {
                let ok = c.split_once(':').is_some_and(|(k, n)| {
                    matches!(k, "pkt" | "flow" | "alert")
                        && !n.is_empty()
                        && !n.contains(char::is_whitespace)
                });
                if !ok {
                    st.err(
                        o.value_off,
                        Reason::InvalidValue,
                        kw,
                        format!("bad pcre capture '{c}' (pkt:|flow:|alert:name)"),
                    );
                    return;
                }
            }
            (f.trim(), caps)
        }
        None => (tail, Vec::new()),
    };
    let mut flags = PcreFlags::NONE;
    let mut buffer = None;
    for c in all_flags.chars() {
        if Buffer::from_pcre_flag(c).is_none() && PcreFlags::from_letter(c).is_none() {
            st.err(
                o.value_off,
                Reason::InvalidValue,
                kw,
                format!("unknown pcre flag '{c}'"),
            );
            return;
        }
        if let Some(b) = Buffer::from_pcre_flag(c) {
            if buffer.is_some_and(|x| x != b) {
                st.err(
                    o.value_off,
                    Reason::Semantic,
                    kw,
                    "pcre selects two different buffers",
                );
                return;
            }
            buffer = Some(b);
        } else if let Some(f) = PcreFlags::from_letter(c) {
            if flags.contains(f) {
                st.err(
                    o.value_off,
                    Reason::InvalidValue,
                    kw,
                    format!("pcre flag '{c}' given twice"),
                );
                return;
            }
            flags = flags.with(f);
        }
    }
    if let Err(e) = compile_pcre(pattern, flags) {
        st.err(o.value_off, Reason::InvalidPcre, kw, e);
        return;
    }
    let block = match buffer {
        Some(b) => {
            if let Some(s) = &st.sticky {
                // `/Q` (the response body) inside `file.data` reads the same bytes.
                let same = s.buffer == b
                    || (s.buffer == Buffer::FileData && b == Buffer::HttpResponseBody);
                if !same {
                    st.err(
                        o.value_off,
                        Reason::Semantic,
                        kw,
                        format!(
                            "pcre buffer flag conflicts with sticky buffer {}",
                            s.buffer.name()
                        ),
                    );
                    return;
                }
                st.current_block()
            } else {
                st.block_for(b, &[])
            }
        }
        None => st.current_block(),
    };
    let p = Pcre {
        pattern: pattern.to_owned(),
        flags,
        negated,
        captures,
    };
    if p.is_relative() && st.blocks[block].matches.is_empty() {
        st.err(
            o.value_off,
            Reason::Semantic,
            kw,
            "pcre with /R (relative) needs a preceding match in the same buffer",
        );
        return;
    }
    st.push_match(block, Match::Pcre(p));
}

//! Rule text → [`Rule`]: the header, each option parsed by its definition in the
//! [`keywords`](crate::keywords) registry, and the checks Suricata makes once all
//! options are read.

use crate::ast::*;
use crate::buffers::Buffer;
use crate::diag::{Diagnostic, Reason};
use crate::header::{AddrExpr, PortExpr};
use crate::keywords;
use crate::lexer::{self, Record};
use crate::values as v;

mod raw_header_dir;
pub(crate) mod state;

pub use crate::keywords::pcre::compile_pcre;
use state::State;

/// Result of parsing one record.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The rule, if no error was found.
    pub rule: Option<Rule>,
    /// Errors and warnings, located.
    pub diagnostics: Vec<Diagnostic>,
    /// Keywords used (as written, lowercased), in order, for usage statistics.
    pub keywords: Vec<String>,
    /// sid, if one parsed (even when the rule failed).
    pub sid: Option<u32>,
}

/// Parses one rule given as text (line 1, column 1).
pub fn parse_rule(text: &str) -> Result<Rule, Vec<Diagnostic>> {
    let p = parse_record(&Record::from_text(text));
    match p.rule {
        Some(r) => Ok(r),
        None => Err(p.diagnostics),
    }
}

/// Parses a record produced by [`lexer::records`].
pub fn parse_record(rec: &Record<'_>) -> Parsed {
    let text: &str = &rec.text;
    let mut st = State::default();
    let mut keywords = Vec::new();
    let rule = run(text, &mut st, &mut keywords);
    let ok = rule.is_some() && !st.diags.iter().any(|(_, d)| d.is_error());
    let sid = if st.meta.sid != 0 {
        Some(st.meta.sid)
    } else {
        None
    };
    let diagnostics = st
        .diags
        .into_iter()
        .map(|(off, mut d)| {
            let (l, c) = rec.pos(off);
            d.line = l;
            d.column = c;
            d.sid = sid;
            d
        })
        .collect();
    Parsed {
        rule: if ok {
            rule.map(|mut r| {
                r.enabled = !rec.commented;
                r
            })
        } else {
            None
        },
        diagnostics,
        keywords,
        sid,
    }
}

fn run(text: &str, st: &mut State, keywords: &mut Vec<String>) -> Option<Rule> {
    let raw = match lexer::split_rule(text) {
        Ok(r) => r,
        Err(e) => {
            st.diags
                .push((e.off, Diagnostic::error(Reason::Syntax, None, e.message)));
            return None;
        }
    };
    // Header.
    let h = &raw.header;
    // 7.0's `config` action: `alert` with `noalert` (log_config.rs).
    let config_action = crate::log_config::config_action(h[0].0);
    if config_action {
        st.options.push(Opt::NoAlert);
    }
    let action = Action::parse(h[0].0).or(config_action.then_some(Action::Alert));
    if action.is_none() {
        st.err(
            h[0].1,
            Reason::Syntax,
            "action",
            format!("unknown action '{}'", h[0].0),
        );
    }
    let protocol = Protocol::parse(h[1].0);
    if protocol.is_none() {
        st.err(
            h[1].1,
            Reason::Syntax,
            "protocol",
            format!("unknown protocol '{}'", h[1].0),
        );
    }
    let mut addr = |i: usize, what: &str| match AddrExpr::parse(h[i].0) {
        Ok(a) => Some(a),
        Err(e) => {
            st.err(h[i].1, Reason::Syntax, what, e);
            None
        }
    };
    let src = addr(2, "source address");
    let dst = addr(5, "destination address");
    let mut port = |i: usize, what: &str| match PortExpr::parse(h[i].0) {
        Ok(a) => Some(a),
        Err(e) => {
            st.err(h[i].1, Reason::Syntax, what, e);
            None
        }
    };
    let src_ports = port(3, "source port");
    let dst_ports = port(6, "destination port");
    let direction = match h[4].0 {
        "->" => Some(Direction::ToDst),
        "<>" => Some(Direction::Both),
        "<-" => {
            st.err(
                h[4].1,
                Reason::Syntax,
                "direction",
                "'<-' is not a valid direction",
            );
            None
        }
        d => {
            st.err(
                h[4].1,
                Reason::Syntax,
                "direction",
                format!("expected '->' or '<>', found '{d}'"),
            );
            None
        }
    };
    if raw.missing_last_semicolon {
        let off = raw.options.last().map(|o| o.name_off).unwrap_or(0);
        st.warn(
            off,
            Reason::Syntax,
            "",
            "last option has no terminating ';' (accepted)",
        );
    }
    st.meta.gid = 1;
    st.header = protocol;
    for o in &raw.options {
        let lname;
        let name = if o.name.bytes().any(|c| c.is_ascii_uppercase()) {
            lname = o.name.to_ascii_lowercase();
            lname.as_str()
        } else {
            o.name
        };
        keywords.push(name.to_owned());
        keywords::apply(st, name, o);
    }
    finish(st, text.len());
    raw_header_dir::check(st, text.len());
    crate::frames::finish(st, text.len());
    let header = Header {
        protocol: protocol?,
        src: src?,
        src_ports: src_ports?,
        direction: direction?,
        dst: dst?,
        dst_ports: dst_ports?,
    };
    if st.diags.iter().any(|(_, d)| d.is_error()) {
        return None;
    }
    app_proto_check(st, &header, h[1].1);
    Some(Rule {
        action: action?,
        header,
        meta: std::mem::take(&mut st.meta),
        buffers: std::mem::take(&mut st.blocks)
            .into_iter()
            .filter(|b| !b.matches.is_empty())
            .collect(),
        options: std::mem::take(&mut st.options),
        enabled: true,
    })
}

/// Checks made once all options are read.
fn finish(st: &mut State, end: usize) {
    if !st.seen_sid
        && !st
            .diags
            .iter()
            .any(|(_, d)| d.keyword.as_deref() == Some("sid"))
    {
        st.diags.push((
            end,
            Diagnostic::error(Reason::MissingSid, Some("sid"), "rule has no sid"),
        ));
    }
    let mut fp = 0;
    let mut errs = Vec::new();
    let dsize_max = st.options.iter().find_map(|o| match o {
        Opt::Dsize(c) => v::cmp_max(*c),
        _ => None,
    });
    for b in &st.blocks {
        // Suricata 7.0.10 compares a content's length with the number the rule gives:
        // `bsize:N`, `bsize:<N` and `bsize:A<>N` refuse contents longer than N (a
        // 4-byte content with `bsize:<4` loads, though it can never match), `<=` is not
        // checked.
        // A second mention of an untransformed buffer continues its list: its `bsize`
        // counts for the contents of the first and the reverse. A content's literal
        // `offset` counts too ("required content length 21 exceeds bsize value: 18":
        // `content:"_0.78"; offset:16; bsize:18;`, found by the differential harness's
        // `ssh` family).
        // A multi-buffer whose every mention starts a list of its own
        // (`Buffer::list_per_keyword`) is checked list by list (Suricata 7.0.10 loads
        // `http2.header_name; content:"x-o"; content:"xwxu"; distance:6;
        // http2.header_name; content:":path"; bsize:<6;`: found by the `h2frame` family).
        let same = |o: &&BufferMatches| {
            o.buffer == b.buffer
                && o.transforms.is_empty()
                && b.transforms.is_empty()
                && !b.buffer.list_per_keyword()
        };
        let bsize_max = st
            .blocks
            .iter()
            .filter(|o| std::ptr::eq(*o, b) || same(o))
            .flat_map(|o| o.matches.iter())
            .find_map(|m| match m {
                Match::Bsize(IntCmp::Eq(n) | IntCmp::Lt(n) | IntCmp::Range(_, n)) => Some(*n),
                _ => None,
            });
        // The length a chain of contents needs: the first content, then each later
        // non-negated relative one with its distance ("required content length 4
        // exceeds bsize value: 3" for `content:"2.0"; content:"2.0"; distance:-2;`).
        if let (Some(max), true) = (bsize_max, std::ptr::eq(b, first_of(&st.blocks, b))) {
            let mut need: Option<i64> = None;
            let lists = st.blocks.iter().filter(|o| std::ptr::eq(*o, b) || same(o));
            for c in lists
                .flat_map(|o| o.matches.iter())
                .filter_map(|m| match m {
                    Match::Content(c) => Some(c),
                    _ => None,
                })
            {
                let len = c.pattern.len() as i64;
                need = match need {
                    None if !c.negated => Some(len),
                    Some(n) if c.is_relative() && !c.negated => {
                        let d = match c.distance {
                            Some(Num::Lit(d)) => d,
                            _ => 0,
                        };
                        Some(n + d + len)
                    }
                    n => n,
                };
            }
            if let Some(n) = need.filter(|&n| n > 0 && n as u64 > max) {
                errs.push((
                    "bsize",
                    format!("required content length {n} exceeds bsize value: {max}"),
                ));
            }
        }
        // Suricata checks one content's offset against `bsize`: the first that is not
        // negated, where the chain starts (`content:"a"; bsize:<3; content:"ab";
        // offset:2;` loads, `content:"a"; offset:5; content:"b"; bsize:<3;` does not).
        let chain_start = st
            .blocks
            .iter()
            .filter(|o| std::ptr::eq(*o, b) || same(o))
            .flat_map(|o| o.matches.iter())
            .find_map(|m| match m {
                Match::Content(c) if !c.negated => Some(c as *const _),
                _ => None,
            });
        for m in &b.matches {
            let Match::Content(c) = m else { continue };
            let len = c.pattern.len() as i64;
            let name = b.buffer.name();
            if c.fast_pattern.is_some() {
                fp += 1;
            }
            if c.is_relative() && (c.offset.is_some() || c.depth.is_some()) {
                errs.push(("distance", "can't mix relative (distance/within) and absolute (offset/depth) modifiers on one content".to_string()));
            }
            if let Some(Num::Lit(d)) = c.depth {
                if d < len {
                    errs.push((
                        "depth",
                        format!("depth {d} is shorter than the content ({len} bytes)"),
                    ));
                }
                if d == 0 {
                    errs.push(("depth", "depth 0 is invalid".into()));
                }
            }
            if let Some(Num::Lit(w)) = c.within {
                if w < len {
                    errs.push((
                        "within",
                        format!("within {w} is shorter than the content ({len} bytes)"),
                    ));
                }
            }
            if c.startswith
                && (c.offset.is_some()
                    || c.depth.is_some()
                    || c.distance.is_some()
                    || c.within.is_some())
            {
                errs.push((
                    "startswith",
                    "startswith can't be combined with offset/depth/distance/within".into(),
                ));
            }
            match c.fast_pattern {
                Some(FastPattern::Only) if c.is_relative() || c.offset.is_some() || c.depth.is_some() => {
                    errs.push(("fast_pattern", "fast_pattern:only can't be used with offset/depth/distance/within".into()))
                }
                Some(FastPattern::Only) if c.negated => {
                    errs.push(("fast_pattern", "fast_pattern:only can't be used on a negated content".into()))
                }
                Some(FastPattern::Chop { offset, length }) if offset as i64 + length as i64 > len => errs.push((
                    "fast_pattern",
                    format!("fast_pattern {offset},{length} goes past the end of the content ({len} bytes)"),
                )),
                _ => {}
            }
            if !c.negated {
                if let Some(max) = bsize_max.filter(|_| chain_start == Some(c as *const _)) {
                    let off = match c.offset {
                        Some(Num::Lit(o)) if o > 0 => o as u64,
                        _ => 0,
                    };
                    if len as u64 + off > max {
                        errs.push(("bsize", format!("content of {len} bytes at offset {off} can never fit bsize (at most {max}) of {name}")));
                    }
                }
                if b.buffer == Buffer::Payload {
                    if let Some(max) = dsize_max {
                        if len as u64 > max {
                            errs.push((
                                "dsize",
                                format!(
                                    "content of {len} bytes can never fit dsize (at most {max})"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    if fp > 1 {
        errs.push((
            "fast_pattern",
            "fast_pattern can be set on only one content per rule".into(),
        ));
    }
    for (k, m) in errs {
        st.diags
            .push((end, Diagnostic::error(Reason::Semantic, Some(k), m)));
    }
}

fn app_proto_check(st: &mut State, h: &Header, off: usize) {
    let mut allowed: Option<(&'static [AppProto], Buffer)> = None;
    let header_app = match h.protocol {
        Protocol::App(a) => Some(a),
        _ => None,
    };
    for b in &st.blocks {
        let Some(set) = keywords::buffer_protos(b.buffer) else {
            continue;
        };
        if let Some(a) = header_app {
            if !set.contains(&a) {
                let m = format!(
                    "buffer {} can't be used in a rule for protocol {}",
                    b.buffer.name(),
                    a.name()
                );
                st.diags.push((
                    off,
                    Diagnostic::error(Reason::Semantic, Some(b.buffer.name()), m),
                ));
                return;
            }
        }
        if let Some((prev, pb)) = allowed {
            if !set.iter().any(|p| prev.contains(p)) {
                let m = format!(
                    "buffers {} and {} belong to different protocols",
                    pb.name(),
                    b.buffer.name()
                );
                st.diags.push((
                    off,
                    Diagnostic::error(Reason::Semantic, Some(b.buffer.name()), m),
                ));
                return;
            }
        }
        allowed = Some((set, b.buffer));
    }
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;

/// The first list of `blocks` that `b` continues (itself when none before it names the
/// same untransformed buffer).
fn first_of<'a>(blocks: &'a [BufferMatches], b: &'a BufferMatches) -> &'a BufferMatches {
    blocks
        .iter()
        .find(|o| {
            std::ptr::eq(*o, b)
                || (o.buffer == b.buffer
                    && o.transforms.is_empty()
                    && b.transforms.is_empty()
                    && !b.buffer.list_per_keyword())
        })
        .unwrap_or(b)
}

//! Parser state for one rule: the buffers and options built so far, the sticky buffer,
//! and the value checks every keyword shares.

use crate::ast::*;
use crate::buffers::{Buffer, Transform};
use crate::diag::{Diagnostic, Reason};
use crate::lexer::{self, RawOption};

/// The sticky buffer in effect and its transforms.
#[derive(Default)]
pub(crate) struct Sticky {
    pub(crate) buffer: Buffer,
    pub(crate) transforms: Vec<Transform>,
    pub(crate) block: Option<usize>,
}

/// What one rule's options built so far.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) diags: Vec<(usize, Diagnostic)>,
    pub(crate) meta: Meta,
    pub(crate) blocks: Vec<BufferMatches>,
    pub(crate) options: Vec<Opt>,
    pub(crate) sticky: Option<Sticky>,
    /// (block, index) of the last content.
    pub(crate) last_content: Option<(usize, usize)>,
    /// (block, index) of the last match of any kind.
    pub(crate) last_match: Option<(usize, usize)>,
    pub(crate) vars: Vec<String>,
    pub(crate) seen_sid: bool,
    pub(crate) seen_rev: bool,
    pub(crate) seen_gid: bool,
    pub(crate) seen_msg: bool,
    pub(crate) seen_classtype: bool,
    /// The rule header's protocol (the `frame` keyword reads it).
    pub(crate) header: Option<Protocol>,
    /// Set by `filename`/`fileext`/`filemagic` to the last content then: Suricata
    /// 7.0.10 makes each a content of its own with `nocase` already set, so a `nocase`
    /// right after one is a second `nocase` on that content.
    pub(crate) file_text_after: Option<Option<(usize, usize)>>,
    /// The `http.response_body` sticky buffer was selected (it gives the rule the
    /// to-client direction; the `http_server_body` modifier does not).
    pub(crate) response_body_sticky: bool,
}

impl State {
    pub(crate) fn err(&mut self, off: usize, reason: Reason, kw: &str, msg: impl Into<String>) {
        self.diags
            .push((off, Diagnostic::error(reason, Some(kw), msg)));
    }

    pub(crate) fn warn(&mut self, off: usize, reason: Reason, kw: &str, msg: impl Into<String>) {
        self.diags
            .push((off, Diagnostic::warning(reason, Some(kw), msg)));
    }

    pub(crate) fn block_for(&mut self, buffer: Buffer, transforms: &[Transform]) -> usize {
        if let Some(i) = self
            .blocks
            .iter()
            .position(|b| b.buffer == buffer && b.transforms == transforms)
        {
            return i;
        }
        self.blocks.push(BufferMatches {
            buffer,
            transforms: transforms.to_vec(),
            matches: Vec::new(),
        });
        self.blocks.len() - 1
    }

    /// Block the next match goes to: the sticky buffer or the payload.
    pub(crate) fn current_block(&mut self) -> usize {
        match self.sticky.take() {
            Some(mut s) => {
                let b = match s.block {
                    Some(b) => b,
                    None if s.buffer.list_per_keyword() => {
                        self.blocks.push(BufferMatches {
                            buffer: s.buffer,
                            transforms: s.transforms.clone(),
                            matches: Vec::new(),
                        });
                        let b = self.blocks.len() - 1;
                        s.block = Some(b);
                        b
                    }
                    None => {
                        let b = self.block_for(s.buffer, &s.transforms);
                        s.block = Some(b);
                        b
                    }
                };
                self.sticky = Some(s);
                b
            }
            None => self.block_for(Buffer::Payload, &[]),
        }
    }

    pub(crate) fn push_match(&mut self, block: usize, m: Match) {
        let is_content = matches!(m, Match::Content(_));
        self.blocks[block].matches.push(m);
        let idx = (block, self.blocks[block].matches.len() - 1);
        if is_content {
            self.last_content = Some(idx);
        }
        self.last_match = Some(idx);
    }

    pub(crate) fn last_content_mut(&mut self) -> Option<&mut Content> {
        let (b, i) = self.last_content?;
        match self.blocks.get_mut(b)?.matches.get_mut(i)? {
            Match::Content(c) => Some(c),
            _ => None,
        }
    }

    /// The content modifier `kw` (at `off`) applies to: the last content, or `None` after
    /// reporting that `kw` needs one.
    pub(crate) fn content_for(&mut self, off: usize, kw: &str) -> Option<&mut Content> {
        if self.last_content_mut().is_none() {
            self.err(
                off,
                Reason::Semantic,
                kw,
                format!("'{kw}' needs a preceding content"),
            );
            return None;
        }
        self.last_content_mut()
    }

    pub(crate) fn check_num(&mut self, off: usize, kw: &str, n: &Num) -> bool {
        if let Num::Var(name) = n {
            if !self.vars.iter().any(|v| v == name) {
                self.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown byte_extract/byte_math variable '{name}'"),
                );
                return false;
            }
        }
        true
    }
}

pub(crate) fn need_value<'a>(st: &mut State, o: &RawOption<'a>, kw: &str) -> Option<&'a str> {
    match o.value {
        Some(v) if !v.is_empty() => Some(v),
        _ => {
            st.err(
                o.name_off,
                Reason::InvalidValue,
                kw,
                format!("'{kw}' needs a value"),
            );
            None
        }
    }
}

pub(crate) fn no_value(st: &mut State, o: &RawOption<'_>, kw: &str) -> bool {
    if o.value.is_some() {
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            format!("'{kw}' takes no value"),
        );
        return false;
    }
    true
}

pub(crate) fn quoted<'a>(st: &mut State, o: &RawOption<'a>, kw: &str) -> Option<&'a str> {
    let val = need_value(st, o, kw)?;
    match lexer::strip_quotes(val) {
        Ok(s) => Some(s),
        Err(e) => {
            st.err(o.value_off, Reason::Syntax, kw, e);
            None
        }
    }
}

//! Compiled buffer programs: the ordered matches of one inspection buffer (content, pcre,
//! byte_*, isdataat, bsize, urilen) and their evaluation with Suricata's relative-match
//! backtracking.
//!
//! Semantics (Suricata 7, `DetectEngineContentInspection`): a cursor (the end of the
//! previous match) is carried from step to step; `distance`/`within`, `pcre` `R`,
//! relative `byte_*` and `isdataat` work from it. When a content or pcre is followed by a
//! relative step and the rest of the list fails, the next occurrence of the content (pcre)
//! is tried, from one byte after the previous occurrence's start. A step that is not
//! followed by a relative one is matched once. Evaluation is bounded by
//! [`RECURSION_LIMIT`] step entries per buffer (Suricata's `inspection-recursion-limit`);
//! past it the buffer does not match.

use crate::bytes::{self, Read};
use crate::search;
use crate::state::PcrePre;
use rules::{ByteOp, IntCmp};

/// Most step entries one buffer evaluation may make (Suricata's default 3000).
pub const RECURSION_LIMIT: u32 = 3000;

/// Most `byte_extract`/`byte_math` variables one rule may define.
pub const MAX_VARS: usize = 8;

/// The variable slots of one rule's evaluation (`byte_extract`/`byte_math` values
/// carried across its buffers) and the worker's count of `pcre` runs stopped by the
/// match or depth limit (a [`crate::ScratchStats`] counter).
#[derive(Debug, Clone, Default)]
pub(crate) struct ProgVars {
    vals: [u64; MAX_VARS],
    pub(crate) pcre_limit_hits: u64,
    /// The byte order `byte_*` with `dce` read in: set from the DCERPC call whose
    /// buffers are inspected, false (big endian) elsewhere.
    pub(crate) dce_le: bool,
    /// Variables the `pcre`s of the rule being evaluated captured (`vars.rs`).
    pub(crate) captured: crate::vars::Captured,
}

impl core::ops::Deref for ProgVars {
    type Target = [u64; MAX_VARS];
    fn deref(&self) -> &Self::Target {
        &self.vals
    }
}

impl core::ops::DerefMut for ProgVars {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.vals
    }
}

/// A number known at compile time or read from a variable slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumC {
    Lit(i64),
    Var(u8),
}

impl NumC {
    fn get(self, vars: &[u64; MAX_VARS]) -> i64 {
        match self {
            NumC::Lit(v) => v,
            NumC::Var(i) => vars[i as usize] as i64,
        }
    }
}

/// A compiled `content`.
#[derive(Debug, Clone)]
pub(crate) struct ContentC {
    pub pat: Vec<u8>,
    pub negated: bool,
    pub offset: Option<NumC>,
    pub depth: Option<NumC>,
    pub distance: Option<NumC>,
    pub within: Option<NumC>,
    pub startswith: bool,
    pub endswith: bool,
    /// The searcher of `pat`, ASCII case-insensitive for `nocase`, built once.
    pub needle: search::Needle,
}

impl ContentC {
    fn relative(&self) -> bool {
        self.distance.is_some() || self.within.is_some()
    }
}

/// A compiled `pcre`.
#[derive(Debug, Clone)]
pub(crate) struct PcreC {
    pub re: pcre2::bytes::Regex,
    /// The rule's pattern and flags, for building its DFA ([`crate::pcre_dfa`]).
    pub source: std::sync::Arc<(String, rules::PcreFlags)>,
    pub negated: bool,
    pub relative: bool,
    /// Capture groups stored as `flowvar`/`pktvar` values.
    pub captures: Vec<crate::vars::VarCapture>,
    /// Set once the regex hit a limit (the warning is logged once).
    pub warned: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl PcreC {
    fn limit_hit(&self, e: &pcre2::Error) {
        if !self.warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "pcre /{}/: {e}; the rule does not match where a limit is hit \
                 (pcre.match-limit / pcre.match-limit-recursion; logged once per regex)",
                self.source.0
            );
        }
    }
}

/// How `byte_*` read their bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ByteRead {
    pub nbytes: NumC,
    pub offset: NumC,
    pub relative: bool,
    pub how: Read,
    pub bitmask: Option<u32>,
}

/// `byte_math` operator, typed by the rule parser.
pub(crate) use rules::MathOp;

/// One step of a buffer program.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    Content(ContentC),
    Pcre(PcreC),
    ByteTest {
        rd: ByteRead,
        negated: bool,
        op: ByteOp,
        value: NumC,
    },
    ByteJump {
        rd: ByteRead,
        jump: crate::byte_jump::JumpC,
    },
    ByteExtract {
        rd: ByteRead,
        multiplier: u64,
        align: u64,
        var: u8,
    },
    ByteMath {
        rd: ByteRead,
        op: MathOp,
        rvalue: NumC,
        var: u8,
    },
    IsDataAt {
        offset: NumC,
        relative: bool,
        negated: bool,
    },
    /// `bsize` and `urilen`: the buffer's length.
    Len(IntCmp),
    /// `base64_decode` with the rule's `base64_data` program (terminal).
    Base64(Box<crate::base64::Base64C>),
    /// `asn1` (does not move the cursor).
    Asn1(crate::asn1::Asn1C),
    /// `dataset` / `datarep`: the whole buffer looked up in a shared set.
    List(crate::lists::ListC),
}

impl Step {
    fn relative(&self) -> bool {
        match self {
            Step::Content(c) => c.relative(),
            Step::Pcre(p) => p.relative,
            Step::ByteTest { rd, .. }
            | Step::ByteJump { rd, .. }
            | Step::ByteExtract { rd, .. }
            | Step::ByteMath { rd, .. } => rd.relative,
            Step::IsDataAt { relative, .. } => *relative,
            Step::Len(_) | Step::List(_) => false,
            Step::Base64(b) => b.relative,
            Step::Asn1(a) => a.relative,
        }
    }
}

/// The ordered steps of one buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program {
    pub steps: Vec<Step>,
    /// `relative_next[i]`: step `i + 1` is relative to step `i`'s match.
    relative_next: Vec<bool>,
}

impl Program {
    /// Whether a content is anchored to the start of the buffer (`offset`, `depth`,
    /// `startswith`).
    pub fn has_anchored_content(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(s, Step::Content(c) if c.offset.is_some() || c.depth.is_some() || c.startswith)
        })
    }

    pub fn new(steps: Vec<Step>) -> Program {
        let relative_next = (0..steps.len())
            .map(|i| steps.get(i + 1).is_some_and(Step::relative))
            .collect();
        Program {
            steps,
            relative_next,
        }
    }

    /// True if the program matches `buf`. `vars` carries `byte_extract`/`byte_math`
    /// values across the rule's buffers.
    pub(crate) fn matches(&self, buf: &[u8], vars: &mut ProgVars) -> bool {
        self.matches_pre(buf, vars, None)
    }

    /// [`Program::matches`], taking the outcomes of `pcre` DFAs run over `buf` elsewhere
    /// where they decide a `pcre` alone (no match over the whole buffer).
    pub(crate) fn matches_pre(
        &self,
        buf: &[u8],
        vars: &mut ProgVars,
        pre: Option<&PcrePre>,
    ) -> bool {
        let mut st = State {
            off: 0,
            calls: 0,
            vars,
            pre,
        };
        self.run(0, buf, &mut st)
    }

    fn run(&self, i: usize, buf: &[u8], st: &mut State<'_>) -> bool {
        let Some(step) = self.steps.get(i) else {
            return true;
        };
        st.calls += 1;
        if st.calls > RECURSION_LIMIT {
            return false;
        }
        match step {
            Step::Content(c) => self.content(i, c, buf, st),
            Step::Pcre(p) => self.pcre(i, p, buf, st),
            Step::ByteTest {
                rd,
                negated,
                op,
                value,
            } => {
                let Some((v, _)) = read_value(rd, buf, st) else {
                    return false;
                };
                let want = value.get(st.vars) as u64;
                let hit = match op {
                    ByteOp::Lt => v < want,
                    ByteOp::Gt => v > want,
                    ByteOp::Eq => v == want,
                    ByteOp::Le => v <= want,
                    ByteOp::Ge => v >= want,
                    ByteOp::And => v & want != 0,
                    ByteOp::Xor => v ^ want != 0,
                };
                hit != *negated && self.run(i + 1, buf, st)
            }
            Step::ByteJump { rd, jump } => {
                let Some((v, end)) = read_jump_value(rd, buf, st) else {
                    return false;
                };
                let Some(to) = jump.land(v, end, buf.len()) else {
                    return false;
                };
                st.off = to;
                self.run(i + 1, buf, st)
            }
            Step::ByteExtract {
                rd,
                multiplier,
                align,
                var,
            } => {
                let Some((v, end)) = read_value(rd, buf, st) else {
                    return false;
                };
                let mut v = v.saturating_mul(*multiplier);
                if *align > 1 && v % align != 0 {
                    v = v.saturating_add(align - v % align);
                }
                st.vars[*var as usize] = v;
                st.off = end;
                self.run(i + 1, buf, st)
            }
            Step::ByteMath {
                rd,
                op,
                rvalue,
                var,
            } => {
                let Some((v, _)) = read_value(rd, buf, st) else {
                    return false;
                };
                let r = rvalue.get(st.vars) as u64;
                let out = match op {
                    MathOp::Add => v.wrapping_add(r),
                    MathOp::Sub => v.wrapping_sub(r),
                    MathOp::Mul => v.wrapping_mul(r),
                    MathOp::Div => match v.checked_div(r) {
                        Some(x) => x,
                        None => return false,
                    },
                    MathOp::Shl => v.checked_shl(r.min(64) as u32).unwrap_or(0),
                    MathOp::Shr => v.checked_shr(r.min(64) as u32).unwrap_or(0),
                };
                st.vars[*var as usize] = out;
                self.run(i + 1, buf, st)
            }
            Step::IsDataAt {
                offset,
                relative,
                negated,
            } => {
                let n = offset.get(st.vars);
                let hit = if *relative {
                    // Suricata: no match when cursor + N is past the end.
                    (st.off as i64).saturating_add(n) <= buf.len() as i64
                } else {
                    n >= 0 && n < buf.len() as i64
                };
                hit != *negated && self.run(i + 1, buf, st)
            }
            Step::Len(cmp) => cmp.matches(buf.len() as u64) && self.run(i + 1, buf, st),
            // Terminal: the steps after it are not inspected (as in Suricata).
            Step::Base64(b) => crate::base64::matches(b, buf, st.off, st.vars),
            Step::Asn1(a) => a.matches(buf, st.off) && self.run(i + 1, buf, st),
            Step::List(l) => l.matches(buf) && self.run(i + 1, buf, st),
        }
    }

    fn content(&self, i: usize, c: &ContentC, buf: &[u8], st: &mut State<'_>) -> bool {
        let len = buf.len() as i64;
        let plen = c.pat.len() as i64;
        let prev = st.off as i64;
        let (mut start, mut end) = if c.relative() {
            let dist = c.distance.map_or(0, |d| d.get(st.vars));
            let s = (prev + dist).max(0);
            let e = match c.within {
                Some(w) => prev + dist + w.get(st.vars),
                None => len,
            };
            // Suricata 7.0.10 (its bug 7390, fixed in 7.0.11): when the distance comes
            // from a byte_extract variable, the window's end is moved by its start a
            // second time, so `within` reaches further than the rule says.
            let e = if matches!(c.distance, Some(NumC::Var(_))) {
                e.saturating_add(s)
            } else {
                e
            };
            (s, e)
        } else {
            let off = c.offset.map_or(0, |o| o.get(st.vars)).max(0);
            let e = match c.depth {
                Some(d) => off + d.get(st.vars),
                None => len,
            };
            (off, e)
        };
        if c.startswith {
            start = 0;
            end = end.min(plen);
        }
        if c.endswith {
            start = start.max(len - plen);
        }
        end = end.min(len);
        let found_any;
        loop {
            if start < 0 || end - start < plen {
                found_any = None;
                break;
            }
            let window = &buf[start as usize..end as usize];
            match c.needle.find(&c.pat, window) {
                None => {
                    found_any = None;
                    break;
                }
                Some(p) => {
                    let at = start + p as i64;
                    if c.negated {
                        found_any = Some(at);
                        break;
                    }
                    let saved = st.off;
                    st.off = (at + plen) as usize;
                    if !self.relative_next[i] {
                        return self.run(i + 1, buf, st);
                    }
                    if self.run(i + 1, buf, st) {
                        return true;
                    }
                    if st.calls > RECURSION_LIMIT {
                        return false;
                    }
                    st.off = saved;
                    start = at + 1;
                }
            }
        }
        if c.negated {
            found_any.is_none() && self.run(i + 1, buf, st)
        } else {
            false
        }
    }

    fn pcre(&self, i: usize, p: &PcreC, buf: &[u8], st: &mut State<'_>) -> bool {
        let base = if p.relative { st.off.min(buf.len()) } else { 0 };
        let subject = &buf[base..];
        // Suricata does not run a pcre over an empty subject, negated or not.
        if subject.is_empty() {
            return false;
        }
        // The regex's DFA ran over this very subject and found no match: neither would
        // PCRE2 (the DFA accepts at least what PCRE2 matches), so this is the no-match
        // answer below without running it. A match still runs PCRE2 for its position.
        if base == 0 && st.pre.and_then(|pre| pre.outcome(buf, &p.source)) == Some(false) {
            if let Some(pre) = st.pre {
                pre.skipped
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            return p.negated && self.run(i + 1, buf, st);
        }
        let mut from = 0;
        loop {
            if from > subject.len() {
                return false;
            }
            // Match or depth limit hit: the rule does not match, negated or not, as in
            // Suricata; counted, and logged once per regex.
            let found = if p.captures.is_empty() {
                p.re.find_at(subject, from)
                    .map(|m| m.map(|m| (m.start(), m.end())))
            } else {
                crate::vars::find_capturing(
                    &p.re,
                    &p.captures,
                    subject,
                    from,
                    &mut st.vars.captured,
                )
            };
            let m = match found {
                Ok(m) => m,
                Err(e) => {
                    st.vars.pcre_limit_hits += 1;
                    p.limit_hit(&e);
                    return false;
                }
            };
            match m {
                None => return p.negated && self.run(i + 1, buf, st),
                Some((m_start, m_end)) => {
                    if p.negated {
                        return false;
                    }
                    let saved = st.off;
                    st.off = base + m_end;
                    if !self.relative_next[i] {
                        return self.run(i + 1, buf, st);
                    }
                    if self.run(i + 1, buf, st) {
                        return true;
                    }
                    if st.calls > RECURSION_LIMIT {
                        return false;
                    }
                    st.off = saved;
                    from = m_start + 1;
                }
            }
        }
    }
}

struct State<'v> {
    off: usize,
    calls: u32,
    vars: &'v mut ProgVars,
    pre: Option<&'v PcrePre>,
}

/// Reads the value of a `byte_*` step; returns it (masked) and the position right after
/// the bytes read.
/// `byte_jump`'s value and the position right after the number read (for text, after
/// the characters `strtoull` consumed). `byte_jump:0` (as Suricata 7 accepts) reads
/// nothing, jumps by 0 and leaves the cursor where the read would start.
fn read_jump_value(rd: &ByteRead, buf: &[u8], st: &State<'_>) -> Option<(u64, usize)> {
    if rd.nbytes.get(st.vars) != 0 {
        let (v, pos, used) = read_number(rd, buf, st)?;
        return Some((v, pos + used));
    }
    let base = if rd.relative { st.off as i64 } else { 0 };
    let pos = base.checked_add(rd.offset.get(st.vars))?;
    if pos < 0 || pos as u64 > buf.len() as u64 {
        return None;
    }
    Some((0, pos as usize))
}

/// Reads the value of a `byte_*` step; returns it (masked) and the position right after
/// the bytes read.
fn read_value(rd: &ByteRead, buf: &[u8], st: &State<'_>) -> Option<(u64, usize)> {
    let (v, pos, _) = read_number(rd, buf, st)?;
    let n = match rd.nbytes.get(st.vars) {
        0 => buf.len() - pos,
        n => n as usize,
    };
    Some((v, pos + n))
}

/// The value of a `byte_*` step (masked), where its bytes start and how many of them
/// the number took. With `string`, 0 bytes means the rest of the buffer (as Suricata 7
/// reads `http.content_len; byte_test:0,<,200,0,string,dec;`), at most 23 bytes of it.
fn read_number(rd: &ByteRead, buf: &[u8], st: &State<'_>) -> Option<(u64, usize, usize)> {
    let base = if rd.relative { st.off as i64 } else { 0 };
    let pos = base.checked_add(rd.offset.get(st.vars))?;
    if pos < 0 {
        return None;
    }
    let mut n = rd.nbytes.get(st.vars);
    if n == 0 && matches!(rd.how, bytes::Read::Text(_)) {
        n = (buf.len() as i64).checked_sub(pos)?;
    }
    if !(1..=23).contains(&n) {
        return None;
    }
    let how = rd.how.settle(st.vars.dce_le);
    let (v, used) = bytes::read_counted(buf, pos as usize, n as usize, how)?;
    Some((bytes::apply_mask(v, rd.bitmask), pos as usize, used))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    struct C {
        pat: Vec<u8>,
        negated: bool,
        nocase: bool,
        rel: Option<(i64, Option<i64>)>,
        abs: (Option<i64>, Option<i64>),
    }

    fn compile(cs: &[C]) -> Program {
        Program::new(
            cs.iter()
                .map(|c| {
                    Step::Content(ContentC {
                        pat: c.pat.clone(),
                        negated: c.negated,
                        offset: c.abs.0.map(NumC::Lit),
                        depth: c.abs.1.map(NumC::Lit),
                        distance: c.rel.map(|r| NumC::Lit(r.0)),
                        within: c.rel.and_then(|r| r.1).map(NumC::Lit),
                        startswith: false,
                        endswith: false,
                        needle: search::Needle::new(&c.pat, c.nocase),
                    })
                })
                .collect(),
        )
    }

    /// Window of content `c` given the previous match end.
    fn window(c: &C, prev: i64, len: i64) -> (i64, i64) {
        match c.rel {
            Some((d, w)) => ((prev + d).max(0), w.map_or(len, |w| prev + d + w).min(len)),
            None => {
                let o = c.abs.0.unwrap_or(0);
                (o, c.abs.1.map_or(len, |d| o + d).min(len))
            }
        }
    }

    fn eq(a: &[u8], b: &[u8], nocase: bool) -> bool {
        if nocase {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    }

    /// Reference: is there any assignment of positions satisfying every content?
    /// As in Suricata, a content is retried at later occurrences only when the content
    /// after it is relative (Suricata's "relative next"); otherwise its first occurrence
    /// in its window is the only one tried.
    fn naive(cs: &[C], i: usize, hay: &[u8], prev: i64) -> bool {
        let Some(c) = cs.get(i) else { return true };
        let len = hay.len() as i64;
        let pl = c.pat.len() as i64;
        let (s, e) = window(c, prev, len);
        let occurs = |p: i64| {
            p >= s && p + pl <= e && eq(&hay[p as usize..(p + pl) as usize], &c.pat, c.nocase)
        };
        if c.negated {
            return !(0..=len - pl).any(occurs) && naive(cs, i + 1, hay, prev);
        }
        let retry = cs.get(i + 1).is_some_and(|n| n.rel.is_some());
        let mut found = (0..=len - pl).filter(|&p| occurs(p));
        if retry {
            found.any(|p| naive(cs, i + 1, hay, p + pl))
        } else {
            found.next().is_some_and(|p| naive(cs, i + 1, hay, p + pl))
        }
    }

    fn content() -> impl Strategy<Value = C> {
        (
            proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'A')], 1..3),
            prop::bool::weighted(0.2),
            any::<bool>(),
            prop_oneof![
                (-3i64..4, proptest::option::of(2i64..6)).prop_map(|r| (Some(r), (None, None))),
                (proptest::option::of(0i64..4), proptest::option::of(2i64..8))
                    .prop_map(|a| (None, a)),
            ],
        )
            .prop_map(|(pat, negated, nocase, (rel, abs))| {
                // within/depth shorter than the pattern are rejected by the rule parser.
                let rel = rel.map(|(d, w)| (d, w.map(|w| w.max(pat.len() as i64))));
                let abs = (abs.0, abs.1.map(|d| d.max(pat.len() as i64)));
                C {
                    pat,
                    negated,
                    nocase,
                    rel,
                    abs,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn contents_match_reference(
            cs in proptest::collection::vec(content(), 1..4),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'A'), Just(b'x')], 0..14),
        ) {
            let prog = compile(&cs);
            let mut vars = ProgVars::default();
            prop_assert_eq!(prog.matches(&hay, &mut vars), naive(&cs, 0, &hay, 0));
        }
    }

    #[test]
    fn recursion_is_bounded() {
        // Every "a" is a candidate at every level: the limit stops the search.
        let c = |rel: bool| C {
            pat: b"a".to_vec(),
            negated: false,
            nocase: false,
            rel: rel.then_some((0, None)),
            abs: (None, None),
        };
        let mut cs = vec![c(false)];
        cs.extend((0..8).map(|_| c(true)));
        cs.push(C {
            pat: b"z".to_vec(),
            ..c(true)
        });
        let prog = compile(&cs);
        let mut vars = ProgVars::default();
        assert!(!prog.matches(&[b'a'; 200], &mut vars));
    }
}

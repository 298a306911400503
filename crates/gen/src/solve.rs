//! One inspection buffer as a list of positioned matches: building bytes that satisfy
//! them (content with offset/depth/distance/within, pcre samples, isdataat, length
//! checks) and checking bytes against them with the engine's semantics (relative
//! positions from the end of the previous match, `within` counted from `distance`,
//! backtracking over earlier occurrences).

use crate::regex_gen;
use crate::rng::Rng;
use rules::{IntCmp, Match, Num, PcreFlags};

/// Cap on the bytes of one constructed buffer.
pub const MAX_BUFFER: usize = 8192;

/// One match of a buffer, positions resolved to numbers.
#[derive(Debug)]
pub enum Item {
    /// `content`
    Content {
        /// Bytes.
        pat: Vec<u8>,
        /// `nocase`
        nocase: bool,
        /// `!`
        negated: bool,
        /// `offset`
        offset: i64,
        /// `depth`
        depth: Option<i64>,
        /// `distance` or `within` present.
        relative: bool,
        /// `distance`
        distance: i64,
        /// `within`
        within: Option<i64>,
        /// `startswith`
        startswith: bool,
        /// `endswith`
        endswith: bool,
    },
    /// `pcre`
    Pcre {
        /// Compiled regex (for checking).
        re: Box<pcre2::bytes::Regex>,
        /// A string it matches.
        sample: regex_gen::Sample,
        /// `R`
        relative: bool,
        /// `!`
        negated: bool,
    },
    /// `isdataat`
    IsDataAt {
        /// Position.
        n: i64,
        /// `relative`
        relative: bool,
        /// `!`
        negated: bool,
    },
    /// `bsize`, `urilen`, `dsize`: the buffer's length.
    Len(IntCmp),
}

fn lit(n: &Option<Num>) -> Result<Option<i64>, String> {
    match n {
        None => Ok(None),
        Some(Num::Lit(v)) => Ok(Some(*v)),
        Some(Num::Var(v)) => Err(format!("byte_extract variable `{v}` as a position")),
    }
}

/// Converts a rule's matches for one buffer; `Err` says why it cannot be synthesized.
pub fn items(matches: &[Match], avoid: &[u8]) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    for m in matches {
        out.push(match m {
            Match::Content(c) => {
                if c.pattern.is_empty() {
                    return Err("empty content".into());
                }
                Item::Content {
                    pat: c.pattern.clone(),
                    nocase: c.nocase,
                    negated: c.negated,
                    offset: lit(&c.offset)?.unwrap_or(0),
                    depth: lit(&c.depth)?,
                    relative: c.is_relative(),
                    distance: lit(&c.distance)?.unwrap_or(0),
                    within: lit(&c.within)?,
                    startswith: c.startswith,
                    endswith: c.endswith,
                }
            }
            Match::Pcre(p) => {
                if !p.captures.is_empty() {
                    return Err("pcre with captures".into());
                }
                let bad: Vec<char> = ['A', 'E']
                    .into_iter()
                    .filter(|&c| PcreFlags::from_letter(c).is_some_and(|f| p.flags.contains(f)))
                    .collect();
                if !bad.is_empty() {
                    return Err(format!("pcre flags {bad:?}"));
                }
                let sample = regex_gen::sample(&p.pattern, p.flags, avoid)?;
                let re = pcre2::bytes::RegexBuilder::new()
                    .caseless(p.flags.contains(PcreFlags::CASELESS))
                    .dotall(p.flags.contains(PcreFlags::DOTALL))
                    .multi_line(p.flags.contains(PcreFlags::MULTILINE))
                    .extended(p.flags.contains(PcreFlags::EXTENDED))
                    .build(&p.pattern)
                    .map_err(|e| format!("pcre2: {e}"))?;
                Item::Pcre {
                    re: Box::new(re),
                    sample,
                    relative: p.is_relative(),
                    negated: p.negated,
                }
            }
            Match::IsDataAt(d) => match &d.offset {
                Num::Lit(n) => Item::IsDataAt {
                    n: *n,
                    relative: d.relative,
                    negated: d.negated,
                },
                Num::Var(v) => return Err(format!("isdataat on variable `{v}`")),
            },
            Match::Bsize(c) => Item::Len(*c),
            Match::Urilen { cmp, .. } => Item::Len(*cmp),
            Match::ByteTest(_) => return Err("byte_test".into()),
            Match::ByteJump(_) => return Err("byte_jump".into()),
            Match::ByteExtract(_) => return Err("byte_extract".into()),
            Match::ByteMath(_) => return Err("byte_math".into()),
            Match::Base64Decode { .. } => return Err("base64_decode".into()),
            Match::Asn1(_) => return Err("asn1".into()),
            Match::List(l) => return Err(l.keyword().into()),
        });
    }
    Ok(out)
}

/// Bytes under construction: `None` is still free.
#[derive(Default)]
struct Draft {
    bytes: Vec<Option<u8>>,
    min_len: usize,
    max_len: usize,
}

fn eq_byte(a: u8, b: u8, nocase: bool) -> bool {
    a == b || (nocase && a.eq_ignore_ascii_case(&b))
}

impl Draft {
    fn fits(&self, pos: usize, pat: &[u8], nocase: bool) -> bool {
        pat.iter()
            .enumerate()
            .all(|(i, &b)| match self.bytes.get(pos + i) {
                Some(Some(x)) => eq_byte(*x, b, nocase),
                _ => true,
            })
    }

    fn put(&mut self, pos: usize, pat: &[u8]) {
        if self.bytes.len() < pos + pat.len() {
            self.bytes.resize(pos + pat.len(), None);
        }
        for (i, &b) in pat.iter().enumerate() {
            if self.bytes[pos + i].is_none() {
                self.bytes[pos + i] = Some(b);
            }
        }
    }

    /// First position in `lo..` where `pat` fits and ends by `end_max`.
    fn place(&mut self, lo: i64, end_max: Option<i64>, pat: &[u8], nocase: bool) -> Option<usize> {
        let lo = lo.max(0) as usize;
        let last = match end_max {
            Some(e) => (e - pat.len() as i64).min((MAX_BUFFER - pat.len().min(MAX_BUFFER)) as i64),
            None => (MAX_BUFFER - pat.len().min(MAX_BUFFER)) as i64,
        };
        if last < lo as i64 {
            return None;
        }
        let pos = (lo..=last as usize).find(|&p| self.fits(p, pat, nocase))?;
        self.put(pos, pat);
        Some(pos)
    }
}

/// Builds bytes satisfying `items`, starting from `fixed` (bytes that must stay, e.g. the
/// leading `/` of a URI); free bytes come from `filler`. The result is checked with
/// [`check`]; `Err` says why no bytes were found.
pub fn build(
    items: &[Item],
    fixed: &[(usize, u8)],
    rng: &mut Rng,
    filler: &dyn Fn(&mut Rng) -> u8,
) -> Result<Vec<u8>, String> {
    let mut d = Draft {
        max_len: MAX_BUFFER,
        ..Draft::default()
    };
    for &(p, b) in fixed {
        d.put(p, &[b]);
    }
    let mut prev: i64 = 0;
    let mut end_at: Option<usize> = None;
    for it in items {
        match it {
            Item::Content {
                pat,
                nocase,
                negated: false,
                offset,
                depth,
                relative,
                distance,
                within,
                startswith,
                endswith,
            } => {
                let plen = pat.len() as i64;
                let (mut lo, mut hi) = if *relative {
                    (prev + distance, within.map(|w| prev + distance + w))
                } else {
                    (*offset, depth.map(|dp| offset + dp))
                };
                if *startswith {
                    lo = 0;
                    hi = Some(hi.map_or(plen, |h| h.min(plen)));
                }
                if *endswith {
                    lo = lo.max(d.bytes.len() as i64);
                }
                let pos = d
                    .place(lo, hi, pat, *nocase)
                    .ok_or("content positions cannot be met")?;
                prev = pos as i64 + plen;
                if *endswith {
                    end_at = Some(prev as usize);
                }
            }
            Item::Pcre {
                sample,
                relative,
                negated: false,
                ..
            } => {
                let lo = if *relative { prev } else { 0 };
                let hi = sample
                    .anchored_start
                    .then_some(lo + sample.bytes.len() as i64);
                let pos = d
                    .place(lo, hi, &sample.bytes, false)
                    .ok_or("pcre position cannot be met")?;
                prev = (pos + sample.bytes.len()) as i64;
                if sample.anchored_end {
                    end_at = Some(prev as usize);
                }
            }
            Item::IsDataAt {
                n,
                relative,
                negated,
            } => {
                let base = if *relative { prev } else { 0 };
                let need = if *relative { base + n } else { n + 1 };
                if *negated {
                    let max = if *relative { base + n - 1 } else { *n };
                    d.max_len = d.max_len.min(max.max(0) as usize);
                } else {
                    d.min_len = d.min_len.max(need.max(0) as usize);
                }
            }
            Item::Len(cmp) => {
                let (lo, hi) = match *cmp {
                    IntCmp::Eq(n) => (n, n),
                    IntCmp::Lt(n) => (0, n.saturating_sub(1)),
                    IntCmp::Le(n) => (0, n),
                    IntCmp::Gt(n) => (n + 1, u64::MAX),
                    IntCmp::Ge(n) => (n, u64::MAX),
                    IntCmp::Range(a, b) => (a + 1, b.saturating_sub(1)),
                    IntCmp::Ne(_) | IntCmp::NotRange(..) => (0, u64::MAX),
                };
                d.min_len = d.min_len.max(lo.min(MAX_BUFFER as u64 + 1) as usize);
                d.max_len = d.max_len.min(hi.min(MAX_BUFFER as u64) as usize);
            }
            _ => {}
        }
    }
    let mut len = d.bytes.len().max(d.min_len);
    if let Some(e) = end_at {
        if e < len {
            return Err("endswith/`$` before other bytes".into());
        }
        len = e;
    }
    if len > d.max_len {
        return Err("buffer length limits cannot be met".into());
    }
    d.bytes.resize(len, None);
    let out: Vec<u8> = d
        .bytes
        .iter()
        .map(|b| b.unwrap_or_else(|| filler(rng)))
        .collect();
    if !check(items, &out) {
        return Err("constructed bytes fail the rule's own checks".into());
    }
    Ok(out)
}

/// True when `buf` satisfies every item (the engine's semantics).
pub fn check(items: &[Item], buf: &[u8]) -> bool {
    let mut budget = 10_000u32;
    run(items, 0, buf, 0, &mut budget)
}

fn find(hay: &[u8], pat: &[u8], nocase: bool) -> Option<usize> {
    if pat.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - pat.len()).find(|&i| {
        hay[i..i + pat.len()]
            .iter()
            .zip(pat)
            .all(|(a, b)| eq_byte(*a, *b, nocase))
    })
}

fn run(items: &[Item], i: usize, buf: &[u8], cur: i64, budget: &mut u32) -> bool {
    let Some(it) = items.get(i) else {
        return true;
    };
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let len = buf.len() as i64;
    match it {
        Item::Content {
            pat,
            nocase,
            negated,
            offset,
            depth,
            relative,
            distance,
            within,
            startswith,
            endswith,
        } => {
            let plen = pat.len() as i64;
            let (mut start, mut end) = if *relative {
                let s = (cur + distance).max(0);
                (s, within.map_or(len, |w| cur + distance + w))
            } else {
                let off = (*offset).max(0);
                (off, depth.map_or(len, |dp| off + dp))
            };
            if *startswith {
                start = 0;
                end = end.min(plen);
            }
            if *endswith {
                start = start.max(len - plen);
            }
            end = end.min(len);
            let mut found = false;
            loop {
                if start < 0 || end - start < plen {
                    break;
                }
                let Some(at) = find(&buf[start as usize..end as usize], pat, *nocase) else {
                    break;
                };
                found = true;
                let m_end = start + at as i64 + plen;
                if *negated {
                    return false;
                }
                if run(items, i + 1, buf, m_end, budget) {
                    return true;
                }
                // Only a following relative match can make a later occurrence work.
                if !next_is_relative(items, i) {
                    return false;
                }
                start += at as i64 + 1;
            }
            if *negated && !found {
                return run(items, i + 1, buf, cur, budget);
            }
            false
        }
        Item::Pcre {
            re,
            relative,
            negated,
            ..
        } => {
            let from = if *relative {
                cur.clamp(0, len) as usize
            } else {
                0
            };
            // As in Suricata, a pcre never runs over an empty subject, negated or not.
            if from >= buf.len() {
                return false;
            }
            let m = re.find(&buf[from..]).ok().flatten();
            match (m, negated) {
                (Some(_), true) => false,
                (None, true) => run(items, i + 1, buf, cur, budget),
                (Some(m), false) => run(items, i + 1, buf, (from + m.end()) as i64, budget),
                (None, false) => false,
            }
        }
        Item::IsDataAt {
            n,
            relative,
            negated,
        } => {
            let hit = if *relative {
                cur.saturating_add(*n) <= len
            } else {
                *n >= 0 && *n < len
            };
            hit != *negated && run(items, i + 1, buf, cur, budget)
        }
        Item::Len(cmp) => cmp.matches(len as u64) && run(items, i + 1, buf, cur, budget),
    }
}

fn next_is_relative(items: &[Item], i: usize) -> bool {
    match items.get(i + 1) {
        Some(Item::Content { relative, .. }) => *relative,
        Some(Item::Pcre { relative, .. }) => *relative,
        Some(Item::IsDataAt { relative, .. }) => *relative,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_items(opts: &str) -> Vec<Item> {
        let r = rules::parse_rule(&format!(
            "alert tcp any any -> any any (msg:\"t\"; {opts} sid:1;)"
        ))
        .unwrap();
        items(&r.buffers[0].matches, b"").unwrap()
    }

    fn filler(_: &mut Rng) -> u8 {
        b'.'
    }

    fn built(opts: &str) -> Vec<u8> {
        let it = rule_items(opts);
        let b = build(&it, &[], &mut Rng::new(1), &filler).unwrap();
        assert!(check(&it, &b));
        b
    }

    #[test]
    fn absolute_positions() {
        assert_eq!(built("content:\"abc\"; offset:3; depth:3;"), b"...abc");
        assert_eq!(
            built("content:\"ab\"; content:\"cd\"; offset:5;"),
            b"ab...cd"
        );
    }

    #[test]
    fn relative_positions() {
        assert_eq!(
            built("content:\"ab\"; content:\"cd\"; distance:2; within:4;"),
            b"ab..cd"
        );
        assert_eq!(
            built("content:\"abc\"; content:\"c\"; distance:-1; within:1;"),
            b"abc"
        );
    }

    #[test]
    fn negation_and_lengths() {
        let b = built("content:\"ab\"; content:!\"zz\"; isdataat:3,relative;");
        assert!(b.len() >= 5);
        assert_eq!(built("dsize:4; content:\"x\";").len(), 1);
        let it = items(&[Match::Bsize(IntCmp::Eq(4))], b"").unwrap();
        assert_eq!(build(&it, &[], &mut Rng::new(1), &filler).unwrap().len(), 4);
        let it = rule_items("content:\"ab\"; content:!\"cd\"; distance:0;");
        assert!(check(&it, b"abxx"));
        assert!(!check(&it, b"abcd"));
        // A later occurrence of the first content can satisfy the negation.
        assert!(check(&it, b"abcdab"));
    }

    #[test]
    fn pcre_relative() {
        let b = built("content:\"id=\"; pcre:\"/^\\d{3}x/R\";");
        assert_eq!(b, b"id=000x");
    }

    #[test]
    fn impossible_is_reported() {
        let it = rule_items("content:\"abc\"; depth:3; content:\"xyz\"; offset:1; depth:3;");
        assert!(build(&it, &[], &mut Rng::new(1), &filler).is_err());
    }

    #[test]
    fn backtracks_to_later_occurrence() {
        let it = rule_items("content:\"a\"; content:\"b\"; within:1;");
        assert!(check(&it, b"axab"));
        assert!(!check(&it, b"axax"));
    }
}

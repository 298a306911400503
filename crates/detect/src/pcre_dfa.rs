//! PCRE as DFA (Kargus §4.5): a `pcre` option whose regex has an equivalent DFA of at most
//! [`PCRE_DFA_MAX_STATES`] states becomes plain transition tables ([`mpm::PlainDfa`]) that
//! a table walker (the GPU, or the `gpu` crate's CPU executor) runs; the others stay with
//! PCRE2 on the CPU.
//!
//! The DFA is built by `regex-automata` from the same pattern and flags the CPU path
//! compiles with PCRE2 ([`crate::pcre::compile`]), bytes only (no Unicode, no UTF-8), after
//! a conservative check that the pattern means the same in both dialects. What a DFA
//! answers is whether the regex matches anywhere in a subject (the earliest match end);
//! that is all a filter needs: where the DFA finds no match, PCRE2 finds none either and
//! the option fails without running PCRE2; where it finds one, PCRE2 runs for the match
//! position the following relative options need.
//!
//! Refused (they stay on the CPU): constructs PCRE2 and `regex-automata` read differently
//! or that no DFA expresses — back-references, look-around, atomic groups and possessive
//! quantifiers (rejected by the regex parser), `\G`, `\K`, `\Q…\E`, `\R`, `\h`, `\v`,
//! `\c`, `\e`, octal escapes, `{,n}`, `(?#…)`, inline `m`/`x`/`U` flag groups, `$` or
//! `\Z` not at the end of an alternative, whitespace inside a class under `x`, non-ASCII
//! literal characters — and regexes whose DFA has too many states. Translated: `\<` and
//! `\>` (literal in PCRE, word boundaries in `regex`), `$`/`\Z` without `m` (PCRE: end of
//! subject or before a final newline → `\n?\z`).

use mpm::PlainDfa;
use regex_automata::dfa::{dense, Automaton};
use regex_automata::nfa::thompson;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, MatchKind};
use rules::PcreFlags;
use std::collections::HashMap;
use std::fmt;

/// Kargus's limit: a regex becomes a DFA only with at most this many states.
pub const PCRE_DFA_MAX_STATES: u32 = 5_000;

/// Memory `regex-automata` may use while determinizing one regex (bounds build time).
const DETERMINIZE_LIMIT: usize = 16 << 20;

/// Why a `pcre` did not become a DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoDfa {
    /// A construct the two dialects read differently, or that no DFA expresses.
    Syntax(String),
    /// The DFA has more states than allowed (or the build hit its memory limit).
    TooManyStates,
    /// `regex-automata` rejected the pattern (look-around, back-references, ...).
    Rejected(String),
}

impl NoDfa {
    /// A short reason, for counting refusals by kind.
    pub fn kind(&self) -> &str {
        match self {
            NoDfa::Syntax(s) => s,
            NoDfa::TooManyStates => "too many states",
            NoDfa::Rejected(_) => "rejected by the DFA builder",
        }
    }
}

impl fmt::Display for NoDfa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoDfa::Syntax(s) => write!(f, "not DFA-compatible: {s}"),
            NoDfa::TooManyStates => f.write_str("DFA too large"),
            NoDfa::Rejected(e) => write!(f, "DFA builder: {e}"),
        }
    }
}

impl std::error::Error for NoDfa {}

/// The DFA of `pattern` with the rule's `flags` (as [`crate::pcre::compile`] takes them),
/// for a search over a whole subject (anchored at its start with `A`), with at most
/// `max_states` states.
pub fn pcre_dfa(pattern: &str, flags: PcreFlags, max_states: u32) -> Result<PlainDfa, NoDfa> {
    let multi_line = flags.contains(PcreFlags::MULTILINE);
    let extended = flags.contains(PcreFlags::EXTENDED);
    if flags.contains(PcreFlags::DOLLAR_ENDONLY) && pattern.contains('$') {
        return Err(NoDfa::Syntax("flag E".into()));
    }
    let translated = translate(pattern, multi_line, extended)?;
    let anchored = flags.contains(PcreFlags::ANCHORED);
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(if anchored {
                    regex_automata::dfa::StartKind::Anchored
                } else {
                    regex_automata::dfa::StartKind::Unanchored
                })
                .match_kind(MatchKind::LeftmostFirst)
                .byte_classes(false)
                .minimize(false)
                .determinize_size_limit(Some(DETERMINIZE_LIMIT))
                .dfa_size_limit(Some((max_states as usize + 2) * 256 * 4 + (1 << 16))),
        )
        .syntax(
            syntax::Config::new()
                .unicode(false)
                .utf8(false)
                .case_insensitive(flags.contains(PcreFlags::CASELESS))
                .dot_matches_new_line(flags.contains(PcreFlags::DOTALL))
                .multi_line(multi_line)
                .ignore_whitespace(extended)
                .swap_greed(flags.contains(PcreFlags::UNGREEDY))
                .nest_limit(100),
        )
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(8 << 20)),
        )
        .build(&translated)
        .map_err(|e| {
            if e.to_string().contains("exceeds") || e.to_string().contains("limit") {
                NoDfa::TooManyStates
            } else {
                NoDfa::Rejected(e.to_string())
            }
        })?;
    plain(&dfa, anchored, max_states)
}

/// Renumber the states reachable from the start state into a [`PlainDfa`].
fn plain(dfa: &dense::DFA<Vec<u32>>, anchored: bool, max_states: u32) -> Result<PlainDfa, NoDfa> {
    let cfg = start::Config::new().anchored(if anchored {
        Anchored::Yes
    } else {
        Anchored::No
    });
    let start = dfa
        .start_state(&cfg)
        .map_err(|e| NoDfa::Rejected(e.to_string()))?;
    let mut ids = HashMap::new();
    let mut order = vec![start];
    ids.insert(start, 0u32);
    let mut trans = Vec::new();
    let mut flags = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let s = order[k];
        k += 1;
        if dfa.is_quit_state(s) {
            return Err(NoDfa::Rejected("quit state".into()));
        }
        let mut f = 0;
        if dfa.is_match_state(s) {
            f |= PlainDfa::MATCH;
        }
        if dfa.is_match_state(dfa.next_eoi_state(s)) {
            f |= PlainDfa::EOI_MATCH;
        }
        if dfa.is_dead_state(s) {
            f |= PlainDfa::DEAD;
        }
        flags.push(f);
        for b in 0..=255u8 {
            let n = dfa.next_state(s, b);
            let id = *ids.entry(n).or_insert_with(|| {
                order.push(n);
                (order.len() - 1) as u32
            });
            trans.push(id);
        }
        if order.len() > max_states as usize {
            return Err(NoDfa::TooManyStates);
        }
    }
    PlainDfa::new(order.len() as u32, 0, trans, flags).map_err(|e| NoDfa::Rejected(e.0))
}

/// Check a PCRE pattern for constructs the dialects read differently and rewrite the few
/// that have an exact equivalent (module docs).
fn translate(pattern: &str, multi_line: bool, extended: bool) -> Result<String, NoDfa> {
    let bad = |s: &str| Err(NoDfa::Syntax(s.to_string()));
    if !pattern.is_ascii() {
        return bad("non-ASCII character");
    }
    let b = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    // `$` (and `\Z`) is only translated where nothing follows it in its alternative.
    let at_alt_end = |j: usize| -> bool { j >= b.len() || b[j] == b'|' || b[j] == b')' };
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            let Some(&e) = b.get(i + 1) else {
                return bad("trailing backslash");
            };
            match e {
                b'G' | b'K' | b'Q' | b'E' | b'R' | b'h' | b'H' | b'v' | b'V' | b'c' | b'e'
                | b'g' | b'k' | b'N' | b'X' | b'C' | b'o' | b'P' | b'p' => {
                    return Err(NoDfa::Syntax(format!("escape \\{}", e as char)));
                }
                b'0'..=b'9' => return bad("octal escape or back-reference"),
                b'<' | b'>' => {
                    out.push(e as char);
                    i += 2;
                    continue;
                }
                b'Z' if !in_class => {
                    if !at_alt_end(i + 2) {
                        return bad("\\Z before more pattern");
                    }
                    out.push_str("(?:\\n?\\z)");
                    i += 2;
                    continue;
                }
                b'b' | b'B' | b'A' | b'z' | b'Z' if in_class => {
                    return bad("assertion escape inside a class");
                }
                b'x' => {
                    // `\x{...}` or `\xhh` (PCRE also takes `\xh`, one digit: refuse it).
                    if b.get(i + 2) == Some(&b'{') {
                        let end = b[i..].iter().position(|&c| c == b'}');
                        let Some(end) = end else {
                            return bad("unterminated \\x{");
                        };
                        out.push_str(&pattern[i..i + end + 1]);
                        i += end + 1;
                        continue;
                    }
                    let hex = |k: usize| b.get(i + k).is_some_and(u8::is_ascii_hexdigit);
                    if !(hex(2) && hex(3)) {
                        return bad("short \\x escape");
                    }
                    out.push_str(&pattern[i..i + 4]);
                    i += 4;
                    continue;
                }
                _ => {
                    out.push('\\');
                    out.push(e as char);
                    i += 2;
                    continue;
                }
            }
        }
        if in_class {
            match c {
                b']' => in_class = false,
                b'[' if b.get(i + 1) == Some(&b':') => {
                    // A POSIX class `[:name:]` inside a bracket expression.
                    let Some(end) = pattern[i + 2..].find(":]") else {
                        return bad("unterminated POSIX class");
                    };
                    out.push_str(&pattern[i..i + 2 + end + 2]);
                    i += 2 + end + 2;
                    continue;
                }
                b'[' => {
                    // `regex` reads `[` inside a class as a nested class; PCRE as a literal.
                    out.push_str("\\[");
                    i += 1;
                    continue;
                }
                b'&' | b'~' | b'-' if b.get(i + 1) == Some(&c) => {
                    // `regex` class set operators (`&&`, `~~`, `--`); literal in PCRE.
                    return bad("class set operator");
                }
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' if extended => {
                    return bad("whitespace in a class under x");
                }
                _ => {}
            }
            out.push(c as char);
            i += 1;
            continue;
        }
        match c {
            b'[' => {
                in_class = true;
                out.push('[');
                i += 1;
                // A leading `]` (after an optional `^`) is a literal in both dialects.
                if b.get(i) == Some(&b'^') {
                    out.push('^');
                    i += 1;
                }
                if b.get(i) == Some(&b']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            b'$' if !multi_line => {
                if !at_alt_end(i + 1) {
                    return bad("$ before more pattern");
                }
                out.push_str("(?:\\n?\\z)");
                i += 1;
                continue;
            }
            b'{' if b.get(i + 1) == Some(&b',') => return bad("{,n} quantifier"),
            b'(' if b.get(i + 1) == Some(&b'?') => {
                // Inline flags: `i` and `s` read the same in both; `m`, `x` and `U` change
                // how this checker reads the rest of the pattern.
                let rest = &b[i + 2..];
                if rest.first() == Some(&b'#') {
                    return bad("(?# comment)");
                }
                let letters = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == b'-')
                    .count();
                if letters > 0 && matches!(rest.get(letters), Some(b':') | Some(b')')) {
                    let fl = &rest[..letters];
                    if fl.iter().any(|c| !matches!(c, b'i' | b's' | b'-')) {
                        return bad("inline m, x or U flag");
                    }
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' | b'#' if extended => {
                // Ignored (or a comment) under `x` in both dialects.
            }
            _ => {}
        }
        out.push(c as char);
        i += 1;
    }
    if in_class {
        return bad("unterminated class");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`pcre_dfa`] with the flags as letters.
    fn pcre_dfa(pattern: &str, flags: &str, max: u32) -> Result<PlainDfa, NoDfa> {
        super::pcre_dfa(pattern, PcreFlags::parse(flags).unwrap(), max)
    }

    fn both(pattern: &str, flags: &str, hay: &[u8]) -> (bool, bool) {
        let dfa = pcre_dfa(pattern, flags, PCRE_DFA_MAX_STATES).unwrap();
        let re = crate::pcre::compile(pattern, PcreFlags::parse(flags).unwrap(), None).unwrap();
        (dfa.find_end(hay).is_some(), re.is_match(hay).unwrap())
    }

    #[test]
    fn agrees_with_pcre2_on_flags_and_anchors() {
        let cases: &[(&str, &str, &[&[u8]])] = &[
            ("abc", "i", &[b"xABC", b"ab", b"abc"]),
            ("^gEt", "i", &[b"GET /", b" get"]),
            ("a.b", "", &[b"a\nb", b"axb"]),
            ("a.b", "s", &[b"a\nb"]),
            ("^b", "m", &[b"a\nb", b"ab"]),
            ("a$", "", &[b"xa", b"xa\n", b"xa\nb", b"xa\n\n"]),
            ("(a|b$)", "", &[b"b\n", b"bc", b"xa"]),
            ("a$", "m", &[b"a\nb", b"ab"]),
            ("a\\Z", "", &[b"a\n", b"ab"]),
            ("\\<tag\\>", "", &[b"<tag>", b"tag"]),
            ("[]a]x", "", &[b"]x", b"ax", b"bx"]),
            ("[^]a]x", "", &[b"]x", b"bx"]),
            ("[[:digit:]]{3}", "", &[b"12a", b"x123"]),
            ("a[[]b", "", &[b"a[b", b"ab"]),
            ("\\bfoo\\b", "", &[b"a foo.", b"afoo"]),
            ("\\d+\\.\\d+", "", &[b"v1.2", b"v1."]),
            ("\\s\\w\\S\\W", "", &[b" a1!", b"\x0bab-", b"aaaa"]),
            ("\\x41\\x{42}", "", &[b"AB", b"ab"]),
            ("\\x41\\x{42}", "i", &[b"ab"]),
            ("a b # comment", "x", &[b"ab", b"a b"]),
            ("(?i)abc", "", &[b"ABC"]),
            ("(?i:a)b", "", &[b"Ab", b"AB"]),
            (
                "^\\/search\\?q=[0-9]{1,3}(&aq=7(\\?[0-9a-f]{8})?)?",
                "",
                &[b"/search?q=12&aq=7"],
            ),
            ("abc", "A", &[b"abcd", b"xabc"]),
            ("\\xff\\xfe", "", &[b"\xff\xfe", b"\xff"]),
            ("[\\x80-\\xff]{2}", "i", &[b"a\x80\x81", b"a\x80"]),
            ("a.*b", "G", &[b"aXbXb", b"ax"]),
        ];
        for (p, f, hays) in cases {
            for h in *hays {
                let (d, r) = both(p, f, h);
                assert_eq!(d, r, "/{p}/{f} on {h:?}");
            }
        }
    }

    #[test]
    fn refuses_what_differs_or_is_not_regular() {
        for (p, f) in [
            ("(a)\\1", ""),
            ("a(?=b)", ""),
            ("a(?!b)", ""),
            ("(?<=a)b", ""),
            ("(?>ab)", ""),
            ("\\Gab", ""),
            ("a\\Kb", ""),
            ("\\Qa.b\\E", ""),
            ("a\\hb", ""),
            ("a\\vb", ""),
            ("a$b", ""),
            ("\\012", ""),
            ("a{,3}", ""),
            ("(?m)^a", ""),
            ("[a b]", "x"),
            ("a[&&]", ""),
            ("é", ""),
            ("a$", "E"),
        ] {
            assert!(pcre_dfa(p, f, PCRE_DFA_MAX_STATES).is_err(), "/{p}/{f}");
        }
        // State explosion: the n-th byte from the end.
        assert_eq!(
            pcre_dfa("a.{20}$", "s", PCRE_DFA_MAX_STATES),
            Err(NoDfa::TooManyStates)
        );
        assert!(pcre_dfa("a.{3}", "s", PCRE_DFA_MAX_STATES).is_ok());
    }
}

/// Agreement with PCRE2 on real traffic, and how many ET Open regexes become DFAs.
#[cfg(test)]
mod corpus_tests {
    use super::*;
    use std::path::{Path, PathBuf};

    const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

    fn shared(rel: &str) -> Option<PathBuf> {
        let p = Path::new(SHARED).join(rel);
        if p.exists() {
            return Some(p);
        }
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "{} is missing",
            p.display()
        );
        eprintln!("skipping: {} not found", p.display());
        None
    }

    /// The frames of a classic pcap file (at most `max`); other formats give none.
    fn frames(path: &Path, max: usize) -> Vec<Vec<u8>> {
        let Ok(data) = std::fs::read(path) else {
            return Vec::new();
        };
        let Some(magic) = data.get(..4) else {
            return Vec::new();
        };
        let le = match magic {
            [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
            [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
            _ => return Vec::new(),
        };
        let u32_at = |at: usize| {
            let b: [u8; 4] = data[at..at + 4].try_into().unwrap();
            if le {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            }
        };
        let mut out = Vec::new();
        let mut at = 24;
        while at + 16 <= data.len() && out.len() < max {
            let len = u32_at(at + 8) as usize;
            let end = at + 16 + len;
            if end > data.len() {
                break;
            }
            out.push(data[at + 16..end].to_vec());
            at = end;
        }
        out
    }

    /// The `pcre` options of rule files: `(pattern, flags)` with the buffer letters
    /// removed as the rule parser does.
    fn pcres(files: &[PathBuf]) -> Vec<(String, PcreFlags)> {
        let vars = rules::Vars::suricata_default();
        let (set, _) = rules::RuleSet::load(files, &vars, &Default::default());
        let (det, _) = crate::Detector::build(&set.rules, &crate::DetectOptions::default(), &vars);
        let mut v = Vec::new();
        det.each_pcre_source(|src| v.push(src.clone()));
        v.sort();
        v.dedup();
        v
    }

    /// DFA and PCRE2 say the same (match or not) on every haystack; returns
    /// (regexes checked, haystacks that matched).
    fn check(res: &[(String, PcreFlags)], hays: &[Vec<u8>]) -> (usize, usize) {
        let (mut checked, mut positives) = (0, 0);
        for (p, f) in res {
            let Ok(dfa) = pcre_dfa(p, *f, PCRE_DFA_MAX_STATES) else {
                continue;
            };
            let re = crate::pcre::compile(p, *f, None).unwrap();
            checked += 1;
            for h in hays {
                let Ok(want) = re.is_match(h) else {
                    continue; // PCRE2 match limit: the CPU path says no match either way.
                };
                let got = dfa.find_end(h).is_some();
                assert_eq!(got, want, "/{p}/{f} on {:?}", String::from_utf8_lossy(h));
                positives += usize::from(want);
            }
        }
        (checked, positives)
    }

    #[test]
    fn corpus_pcres_agree_with_pcre2_on_their_captures() {
        let Some(dir) = shared("corpus/open") else {
            return;
        };
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        cases.sort();
        let (mut checked, mut positives, mut total) = (0, 0, 0);
        for case in cases {
            let rules = case.join("test.rules");
            let text = std::fs::read_to_string(&rules).unwrap_or_default();
            if !text.contains("pcre:") {
                continue;
            }
            let res = pcres(&[rules]);
            total += res.len();
            let mut hays = frames(&case.join("input.pcap"), 5000);
            // Payload tails too: a regex anchored at `^` sees the payload start.
            let tails: Vec<Vec<u8>> = hays
                .iter()
                .flat_map(|f| [14usize, 34, 42, 54, 66].map(|k| f.get(k..).unwrap_or(&[]).to_vec()))
                .collect();
            hays.extend(tails);
            let (c, pos) = check(&res, &hays);
            checked += c;
            positives += pos;
        }
        eprintln!("corpus: {checked} of {total} regexes as DFAs, {positives} matching haystacks");
        assert!(checked > 10 && positives > 0);
    }

    #[test]
    fn et_open_pcres_become_dfas_and_agree_with_pcre2() {
        let Some(dir) = shared("rules/et-open") else {
            return;
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rules"))
            .collect();
        files.sort();
        let res = pcres(&files);
        let t = std::time::Instant::now();
        let mut refused: std::collections::BTreeMap<String, usize> = Default::default();
        let mut states = Vec::new();
        for (p, f) in &res {
            match pcre_dfa(p, *f, PCRE_DFA_MAX_STATES) {
                Ok(d) => states.push(d.num_states()),
                Err(e) => *refused.entry(e.kind().to_string()).or_default() += 1,
            }
        }
        states.sort_unstable();
        eprintln!(
            "ET Open: {} of {} distinct pcre become DFAs of <= {} states ({:?}; median {} states, max {}); refused: {refused:?}",
            states.len(),
            res.len(),
            PCRE_DFA_MAX_STATES,
            t.elapsed(),
            states.get(states.len() / 2).copied().unwrap_or(0),
            states.last().copied().unwrap_or(0),
        );
        assert!(states.len() * 2 > res.len(), "most ET regexes fit");
        // Agreement on the start of the real capture (frames and their payload tails).
        let Some(pcap) = shared("pcaps/sv-ether.pcap") else {
            return;
        };
        let mut hays = frames(&pcap, 400);
        let tails: Vec<Vec<u8>> = hays
            .iter()
            .flat_map(|f| [54usize, 66].map(|k| f.get(k..).unwrap_or(&[]).to_vec()))
            .collect();
        hays.extend(tails);
        let (checked, positives) = check(&res, &hays);
        eprintln!("ET Open on sv-ether: {checked} DFAs agree with PCRE2 on {} haystacks ({positives} matches)", hays.len());
    }
}

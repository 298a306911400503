//! Turning rule files into rule records (comments, blank lines, backslash continuation)
//! and splitting one rule's text into header tokens and raw `keyword:value;` options.
//!
//! Positions are byte offsets into the record's text; [`Record::pos`] maps them back to
//! the file's line and column (1-based) even when the rule spans several lines.

use std::borrow::Cow;

/// Longest rule text accepted (Suricata's own limit on a rule line is 8 KiB per line with
/// continuation lines adding up; 64 KiB bounds the work any single record can cause).
pub const MAX_RULE_LEN: usize = 64 * 1024;

/// (offset in text, line, column) of a joined piece.
type Seg = (usize, u32, u32);

/// One rule's text as found in a file.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// The rule text, continuation lines joined, leading `#` removed for commented-out rules.
    pub text: Cow<'a, str>,
    /// True if the rule was commented out (`# alert ...`).
    pub commented: bool,
    /// (offset in `text`, line, column of that offset) for each joined piece.
    segs: Vec<(usize, u32, u32)>,
}

impl<'a> Record<'a> {
    /// Builds a record for a rule given as a string at line 1, column 1.
    pub fn from_text(text: &'a str) -> Self {
        Record {
            text: Cow::Borrowed(text),
            commented: false,
            segs: vec![(0, 1, 1)],
        }
    }

    /// Line and column (1-based) of a byte offset into `text`.
    pub fn pos(&self, off: usize) -> (u32, u32) {
        let mut best = (0usize, 1u32, 1u32);
        for &s in &self.segs {
            if s.0 <= off {
                best = s;
            } else {
                break;
            }
        }
        let piece = self
            .text
            .get(best.0..off.min(self.text.len()))
            .unwrap_or("");
        (best.1, best.2 + piece.chars().count() as u32)
    }

    /// Line of the start of the rule.
    pub fn line(&self) -> u32 {
        self.segs.first().map(|s| s.1).unwrap_or(1)
    }
}

/// Splits a file's contents into rule records. Blank lines and comments are dropped; lines
/// that start with `#` followed by something that looks like a rule (an action word and a
/// space) are returned with `commented = true` only when `with_commented` is set.
/// Records longer than [`MAX_RULE_LEN`] are returned as they are (the parser rejects them).
pub fn records(src: &str, with_commented: bool) -> Vec<Record<'_>> {
    let mut out = Vec::new();
    let mut pending: Option<(String, Vec<Seg>)> = None;
    for (idx, raw_line) in src.split('\n').enumerate() {
        let lineno = (idx + 1) as u32;
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        let trimmed_end = line.trim_end();
        let continues = trimmed_end.ends_with('\\') && !trimmed_end.ends_with("\\\\\\");
        let body = if continues {
            &trimmed_end[..trimmed_end.len() - 1]
        } else {
            line
        };
        match pending.as_mut() {
            Some((buf, segs)) => {
                if buf.len() < MAX_RULE_LEN * 2 {
                    segs.push((buf.len(), lineno, 1));
                    buf.push_str(body);
                }
            }
            None if continues => {
                pending = Some((body.to_owned(), vec![(0, lineno, 1)]));
            }
            None => {
                if let Some(r) =
                    make_record(Cow::Borrowed(body), vec![(0, lineno, 1)], with_commented)
                {
                    out.push(r);
                }
                continue;
            }
        }
        if !continues {
            if let Some((buf, segs)) = pending.take() {
                if let Some(r) = make_record(Cow::Owned(buf), segs, with_commented) {
                    out.push(r);
                }
            }
        }
    }
    if let Some((buf, segs)) = pending.take() {
        if let Some(r) = make_record(Cow::Owned(buf), segs, with_commented) {
            out.push(r);
        }
    }
    out
}

const ACTIONS: &[&str] = &[
    "alert",
    "drop",
    "pass",
    "reject",
    "rejectsrc",
    "rejectdst",
    "rejectboth",
    "log",
    "sdrop",
];

fn looks_like_rule(s: &str) -> bool {
    let word_end = s.find(|c: char| c.is_ascii_whitespace()).unwrap_or(s.len());
    word_end < s.len() && ACTIONS.contains(&&s[..word_end]) && s.trim_end().ends_with(')')
}

fn make_record(
    text: Cow<'_, str>,
    mut segs: Vec<(usize, u32, u32)>,
    with_commented: bool,
) -> Option<Record<'_>> {
    let lead = text.len() - text.trim_start().len();
    let rest = &text[lead..];
    if rest.trim_end().is_empty() {
        return None;
    }
    let mut commented = false;
    let mut start = lead;
    if rest.starts_with('#') {
        if !with_commented {
            return None;
        }
        let after = rest.trim_start_matches('#');
        let after_trim = after.trim_start();
        if !looks_like_rule(after_trim) {
            return None;
        }
        commented = true;
        start = text.len() - after_trim.len();
    }
    let end = text.trim_end().len();
    // Shift segments so offsets are relative to the kept slice.
    let text = match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..end]),
        Cow::Owned(s) => Cow::Owned(s[start..end].to_owned()),
    };
    let mut shifted = Vec::with_capacity(segs.len());
    for (i, s) in segs.drain(..).enumerate() {
        if s.0 <= start {
            // First piece(s): column advances by how much we cut.
            let cut = start - s.0;
            shifted.clear();
            shifted.push((0, s.1, s.2 + cut as u32));
            let _ = i;
        } else {
            shifted.push((s.0 - start, s.1, s.2));
        }
    }
    Some(Record {
        text,
        commented,
        segs: shifted,
    })
}

/// A `keyword[:value];` option as written, with byte offsets into the rule text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOption<'a> {
    /// The keyword as written.
    pub name: &'a str,
    /// The value, whitespace-trimmed, still quoted/escaped as written.
    pub value: Option<&'a str>,
    /// Offset of the keyword.
    pub name_off: usize,
    /// Offset of the value (or of the keyword if there is none).
    pub value_off: usize,
}

/// A lexing error: offset and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    /// Offset in the rule text.
    pub off: usize,
    /// What is wrong.
    pub message: String,
}

fn lex_err(off: usize, m: impl Into<String>) -> LexError {
    LexError {
        off,
        message: m.into(),
    }
}

/// The seven header fields and the option list of a rule.
#[derive(Debug, Clone)]
pub struct RawRule<'a> {
    /// Header tokens with their offsets: action, protocol, src, sport, direction, dst, dport.
    pub header: Vec<(&'a str, usize)>,
    /// Options in order.
    pub options: Vec<RawOption<'a>>,
    /// Set when the last option had no terminating `;` (accepted, as Snort does).
    pub missing_last_semicolon: bool,
}

/// Splits a rule into header tokens and raw options.
pub fn split_rule(text: &str) -> Result<RawRule<'_>, LexError> {
    if text.len() > MAX_RULE_LEN {
        return Err(lex_err(0, format!("rule longer than {MAX_RULE_LEN} bytes")));
    }
    let bytes = text.as_bytes();
    let mut header = Vec::with_capacity(7);
    let mut i = 0;
    let mut open = None;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        if bytes[i] == b'(' {
            open = Some(i);
            break;
        }
        let start = i;
        let mut depth = 0i32;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'[' {
                depth += 1;
            } else if c == b']' {
                depth -= 1;
            } else if depth <= 0 && (c.is_ascii_whitespace() || c == b'(') {
                break;
            }
            i += 1;
        }
        if depth > 0 {
            return Err(lex_err(start, "unbalanced '[' in rule header"));
        }
        header.push((&text[start..i], start));
        if header.len() > 7 {
            return Err(lex_err(
                start,
                "too many fields in rule header (expected 7 before '(')",
            ));
        }
    }
    let open = open.ok_or_else(|| lex_err(text.len(), "no option list: '(' not found"))?;
    if header.len() < 7 {
        return Err(lex_err(
            open,
            format!(
                "rule header has {} fields, expected 7 (action proto src sport dir dst dport)",
                header.len()
            ),
        ));
    }
    let trimmed = text.trim_end();
    if !trimmed.ends_with(')') {
        return Err(lex_err(trimmed.len(), "rule does not end with ')'"));
    }
    let body_start = open + 1;
    let body_end = trimmed.len() - 1;
    let (options, missing) = split_options(text, body_start, body_end)?;
    Ok(RawRule {
        header,
        options,
        missing_last_semicolon: missing,
    })
}

fn split_options(
    text: &str,
    start: usize,
    end: usize,
) -> Result<(Vec<RawOption<'_>>, bool), LexError> {
    let b = text.as_bytes();
    let mut opts = Vec::with_capacity(16);
    let mut i = start;
    let mut missing = false;
    loop {
        while i < end && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= end {
            break;
        }
        let name_start = i;
        while i < end && b[i] != b':' && b[i] != b';' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let name = &text[name_start..i];
        if name.is_empty() {
            return Err(lex_err(name_start, "empty option name"));
        }
        while i < end && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= end {
            opts.push(RawOption {
                name,
                value: None,
                name_off: name_start,
                value_off: name_start,
            });
            missing = true;
            break;
        }
        if b[i] == b';' {
            opts.push(RawOption {
                name,
                value: None,
                name_off: name_start,
                value_off: name_start,
            });
            i += 1;
            continue;
        }
        if b[i] != b':' {
            return Err(lex_err(
                i,
                format!("expected ':' or ';' after option '{name}'"),
            ));
        }
        i += 1;
        let vstart = i;
        let mut escaped = false;
        while i < end {
            let c = b[i];
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b';' {
                break;
            }
            i += 1;
        }
        let raw = &text[vstart..i];
        let lead = raw.len() - raw.trim_start().len();
        let value = raw.trim();
        opts.push(RawOption {
            name,
            value: Some(value),
            name_off: name_start,
            value_off: vstart + lead,
        });
        if i >= end {
            missing = true;
            break;
        }
        i += 1;
    }
    Ok((opts, missing))
}

/// Removes surrounding double quotes if present. Returns an error for a value that opens
/// a quote and does not close it.
pub fn strip_quotes(v: &str) -> Result<&str, String> {
    let v = v.trim();
    if let Some(rest) = v.strip_prefix('"') {
        if !rest.is_empty() && rest.ends_with('"') && !ends_escaped(&rest[..rest.len() - 1]) {
            Ok(&rest[..rest.len() - 1])
        } else {
            Err("unterminated quoted string".into())
        }
    } else {
        Ok(v)
    }
}

fn ends_escaped(s: &str) -> bool {
    s.bytes().rev().take_while(|&c| c == b'\\').count() % 2 == 1
}

/// Undoes `\;` `\"` `\\` `\:` (and, leniently, any `\x` → `x`) in a quoted value
/// such as `msg`.
pub fn unescape_text(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_skip_comments_and_blank_lines() {
        let src = "# comment\n\n  alert tcp any any -> any any (sid:1;)\n#alert udp any any -> any any (sid:2;)\n";
        let r = records(src, false);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].line(), 3);
        assert_eq!(r[0].pos(0), (3, 3));
        let r = records(src, true);
        assert_eq!(r.len(), 2);
        assert!(r[1].commented);
        assert!(r[1].text.starts_with("alert udp"));
        assert_eq!(r[1].pos(0), (4, 2));
        // A plain comment that is not a rule stays a comment even when asked.
        assert_eq!(records("# alert is a word here\n", true).len(), 0);
    }

    #[test]
    fn continuation_lines_join_and_positions_map_back() {
        let src = "alert tcp any any -> any any (msg:\"a\"; \\\n   sid:1;)\r\nalert ip any any -> any any (sid:2;)";
        let r = records(src, false);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0].text,
            "alert tcp any any -> any any (msg:\"a\";    sid:1;)"
        );
        let off = r[0].text.find("sid").unwrap();
        assert_eq!(r[0].pos(off), (2, 4));
        assert_eq!(r[1].line(), 3);
    }

    #[test]
    fn split_rule_header_and_options() {
        let t = "alert tcp [1.2.3.4, 5.6.7.8] any -> $HOME_NET 80 (msg:\"a\\;b\"; content:\"x\"; nocase; sid:1;)";
        let r = split_rule(t).unwrap();
        assert_eq!(r.header.len(), 7);
        assert_eq!(r.header[2].0, "[1.2.3.4, 5.6.7.8]");
        assert_eq!(r.options.len(), 4);
        assert_eq!(r.options[0].value, Some("\"a\\;b\""));
        assert_eq!(r.options[2].name, "nocase");
        assert_eq!(r.options[2].value, None);
        assert!(!r.missing_last_semicolon);
        let r = split_rule("alert tcp any any -> any any (sid:1)").unwrap();
        assert!(r.missing_last_semicolon);
    }

    #[test]
    fn split_rule_errors() {
        assert!(split_rule("alert tcp any any -> any (sid:1;)").is_err());
        assert!(split_rule("alert tcp any any -> any any sid:1;").is_err());
        assert!(split_rule("alert tcp any any -> any any (sid:1;").is_err());
        assert!(split_rule("alert tcp [1.2.3.4 any -> any any (sid:1;)").is_err());
        assert!(split_rule("alert tcp any any -> any any (sid 1;)").is_err());
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(strip_quotes("\"abc\"").unwrap(), "abc");
        assert_eq!(strip_quotes("abc").unwrap(), "abc");
        assert!(strip_quotes("\"abc").is_err());
        assert!(strip_quotes("\"abc\\\"").is_err());
        assert_eq!(unescape_text("a\\;b\\\"c\\\\d\\:e"), "a;b\"c\\d:e");
    }
}

//! Compiling `pcre` options with their Snort/Suricata flags into PCRE2 (JIT when
//! available).

use rules::PcreFlags;

/// The limits every `pcre` runs under (`pcre.match-limit`, `pcre.match-limit-recursion`
/// in suricata.yaml): a run that reaches one stops, and the rule does not match there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcreLimits {
    /// Most backtracking steps of one match attempt (Suricata's default 3500).
    pub match_limit: u32,
    /// Most nested backtracking depth (Suricata's default 1500).
    pub depth_limit: u32,
}

impl Default for PcreLimits {
    fn default() -> Self {
        PcreLimits {
            match_limit: 3500,
            depth_limit: 1500,
        }
    }
}

/// Compiles `pattern` with the flags left by the rule parser (buffer letters removed),
/// under `limits` unless the rule's `O` flag lifts them (as Suricata's does).
///
/// `i` caseless, `s` dotall, `m` multiline, `x` extended, `A` anchored at the start
/// offset (`\G`), `G` ungreedy (`(?U)`), `R` relative and `B` rawbytes (handled by the
/// caller / no-op), `O` (match-limit override, accepted). `E` (dollar end-only) has no
/// inline form in PCRE2: a pattern using it with a `$` is reported unsupported.
pub(crate) fn compile(
    pattern: &str,
    flags: PcreFlags,
    limits: Option<PcreLimits>,
) -> Result<pcre2::bytes::Regex, String> {
    let mut pat = String::with_capacity(pattern.len() + 64);
    if flags.contains(PcreFlags::DOLLAR_ENDONLY) && pattern.contains('$') {
        return Err("pcre flag E (dollar end-only) with '$'".into());
    }
    // Start-of-pattern settings: PCRE2 applies them to every match (JIT included).
    if let Some(l) = limits.filter(|_| !flags.contains(PcreFlags::MATCH_LIMIT)) {
        pat.push_str(&format!(
            "(*LIMIT_MATCH={})(*LIMIT_DEPTH={})",
            l.match_limit.max(1),
            l.depth_limit.max(1)
        ));
    }
    if flags.contains(PcreFlags::UNGREEDY) {
        pat.push_str("(?U)");
    }
    if flags.contains(PcreFlags::ANCHORED) {
        pat.push_str("\\G(?:");
        pat.push_str(pattern);
        pat.push(')');
    } else {
        pat.push_str(pattern);
    }
    let mut b = pcre2::bytes::RegexBuilder::new();
    b.caseless(flags.contains(PcreFlags::CASELESS))
        .dotall(flags.contains(PcreFlags::DOTALL))
        .multi_line(flags.contains(PcreFlags::MULTILINE))
        .extended(flags.contains(PcreFlags::EXTENDED))
        .jit_if_available(true);
    b.build(&pat)
        .map_err(|e| format!("pcre does not compile: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(pattern: &str, flags: &str) -> Result<pcre2::bytes::Regex, String> {
        super::compile(pattern, PcreFlags::parse(flags).unwrap(), None)
    }

    #[test]
    fn flags() {
        let r = compile("abc", "i").unwrap();
        assert!(r.is_match(b"xABC").unwrap());
        let r = compile("abc", "A").unwrap();
        assert!(!r.is_match(b"xabc").unwrap());
        assert!(r.find_at(b"xabc", 1).unwrap().is_some());
        let r = compile("a.b", "s").unwrap();
        assert!(r.is_match(b"a\nb").unwrap());
        let r = compile("^b", "m").unwrap();
        assert!(r.is_match(b"a\nb").unwrap());
        let r = compile("a.*b", "G").unwrap();
        assert_eq!(r.find(b"aXbXb").unwrap().unwrap().end(), 3);
        assert!(compile("a$", "E").is_err());
        assert!(compile("(", "").is_err());
    }

    #[test]
    fn catastrophic_backtracking_stops_at_the_match_limit() {
        let mut hay = vec![b'a'; 1400];
        hay.push(b'b');
        let limited = super::compile("(a+)+$", PcreFlags::NONE, Some(PcreLimits::default()));
        assert!(limited.unwrap().is_match(&hay).is_err());
        // `O` lifts the limits; a pattern that needs few steps still matches under them.
        let o = super::compile(
            "(a+)+b",
            PcreFlags::parse("O").unwrap(),
            Some(PcreLimits::default()),
        );
        assert!(o.unwrap().is_match(&hay).unwrap());
        let fine = super::compile("a+b$", PcreFlags::NONE, Some(PcreLimits::default()));
        assert!(fine.unwrap().is_match(&hay).unwrap());
    }
}

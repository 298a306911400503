//! Compiling `pcre` options with their Snort/Suricata flags into PCRE2 (JIT when
//! available).

use rules::PcreFlags;

/// Compiles `pattern` with the flags left by the rule parser (buffer letters removed).
///
/// `i` caseless, `s` dotall, `m` multiline, `x` extended, `A` anchored at the start
/// offset (`\G`), `G` ungreedy (`(?U)`), `R` relative and `B` rawbytes (handled by the
/// caller / no-op), `O` (match-limit override, accepted). `E` (dollar end-only) has no
/// inline form in PCRE2: a pattern using it with a `$` is reported unsupported.
pub(crate) fn compile(pattern: &str, flags: PcreFlags) -> Result<pcre2::bytes::Regex, String> {
    let mut pat = String::with_capacity(pattern.len() + 16);
    if flags.contains(PcreFlags::DOLLAR_ENDONLY) && pattern.contains('$') {
        return Err("pcre flag E (dollar end-only) with '$'".into());
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
        super::compile(pattern, PcreFlags::parse(flags).unwrap())
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
}

//! The functions of Suricata 7.0.10's detection Lua API that Osprey does not provide.
//!
//! Suricata registers them for every detection script (listed from its globals on
//! 7.0.10); a script calling one here would raise "attempt to call a nil value" and
//! never match where Suricata's may. So a script that names one is refused when its
//! rule is compiled, as an unsupported rule with the function's name, instead of
//! running differently. Names are looked up as Lua identifiers outside comments and
//! string literals.

/// The functions Osprey does not provide, with what they answer in Suricata.
const MISSING: &[(&str, &str)] = &[
    ("DNP3GetTx", "the DNP3 transaction"),
    ("SCByteVarGet", "byte_extract/byte_math variables"),
    ("SCFlowId", "the flow id"),
    ("SCFlowTimeString", "the flow's start time"),
    ("SCLogPath", "the log directory"),
    ("SCRuleAction", "the rule's action"),
    ("SCRuleClass", "the rule's class"),
    ("SCRuleIds", "the rule's ids"),
    ("SCRuleMsg", "the rule's message"),
    ("SCRuleSid", "the rule's sid"),
    ("SCRuleRev", "the rule's rev"),
    ("SCRuleGid", "the rule's gid"),
    ("SCStreamingBuffer", "streaming data"),
    ("SCThreadInfo", "the worker thread"),
    ("SMTPGetMailFrom", "the SMTP transaction"),
    ("SMTPGetMimeField", "the SMTP transaction"),
    ("SMTPGetMimeList", "the SMTP transaction"),
    ("SMTPGetRcptList", "the SMTP transaction"),
];

/// The first function of [`MISSING`] that `source` names, as a refusal message.
pub(super) fn check(source: &str) -> Result<(), String> {
    let mut found = None;
    identifiers(source, &mut |id| {
        if found.is_none() {
            found = MISSING.iter().find(|(n, _)| *n == id);
        }
    });
    match found {
        Some((name, what)) => Err(format!("calls {name} ({what}): not supported by Osprey")),
        None => Ok(()),
    }
}

/// The level of a long bracket opening at `b[i]` (`[[` 0, `[=[` 1, ...), if one does.
fn long_open(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let eq = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
    (b.get(i + 1 + eq) == Some(&b'[')).then_some(eq)
}

/// The index after the long bracket of `level` closing at or after `i` (or the end).
fn long_close(b: &[u8], mut i: usize, level: usize) -> usize {
    while i < b.len() {
        if b[i] == b']' {
            let eq = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
            if eq == level && b.get(i + 1 + eq) == Some(&b']') {
                return i + eq + 2;
            }
        }
        i += 1;
    }
    b.len()
}

/// Calls `f` with each identifier of Lua source `s`, comments and strings skipped.
fn identifiers<'a>(s: &'a str, f: &mut impl FnMut(&'a str)) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            i += 2;
            if let Some(level) = long_open(b, i) {
                i = long_close(b, i + level + 2, level);
            } else {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
        } else if let Some(level) = long_open(b, i) {
            i = long_close(b, i + level + 2, level);
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            f(&s[start..i]);
        } else if c.is_ascii_digit() {
            // A number, hexadecimal digits and exponents included.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_function_is_named() {
        let e = check("function match(args)\n  local tid = SCThreadInfo()\n  return 1\nend\n")
            .unwrap_err();
        assert!(
            e.contains("SCThreadInfo") && e.contains("not supported"),
            "{e}"
        );
        assert!(check("x = SMTPGetMailFrom ()").is_err());
        assert!(check("local s = SCRuleSid").is_err());
    }

    #[test]
    fn provided_functions_pass() {
        let src = "function match(args)\n  local a = HttpGetRequestHeader('Host')\n  \
                   local id, err = SCFileInfo()\n  SCFlowintIncr(0)\n  return 1\nend\n";
        assert_eq!(check(src), Ok(()));
    }

    #[test]
    fn comments_strings_and_longer_names_do_not_count() {
        let src = "-- SCThreadInfo would tell the thread\n\
                   --[[ SCRuleMsg\n SCRuleIds ]]\n\
                   local a = \"SCFlowId \\\" SCLogPath\"\n\
                   local b = 'SMTPGetMailFrom'\n\
                   local c = [==[ SCStreamingBuffer ]] ]==]\n\
                   local SCFlowIdent = 0x1e5 + 1e5\n\
                   return 1";
        assert_eq!(check(src), Ok(()));
        // After a closed long comment names count again.
        assert!(check("--[[ x ]] SCFlowId()").is_err());
    }

    #[test]
    fn hostile_source_ends() {
        for s in [
            "\"unterminated",
            "--[[ open",
            "[=[",
            "'\\",
            "--",
            "[",
            "a\\",
        ] {
            assert_eq!(check(s), Ok(()), "{s}");
        }
    }
}

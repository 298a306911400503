//! Keywords that add no packet condition, checked when a rule is compiled:
//! `prefilter` (which keyword feeds the prefilter: a performance hint, the verdict is
//! the same), `nfq_set_mark` (sets the netfilter mark of a matching packet in IPS mode
//! with NFQUEUE, which Osprey does not have; in every other mode Suricata ignores it,
//! so does Osprey, after checking its value) and `requires` (Suricata 7's
//! requirements: a rule whose requirements the engine does not meet is skipped).
//!
//! Osprey answers `requires` as Suricata 7.0.10 does: the version compared is 7.0.10,
//! and no named feature is provided (7.0.10 itself skips `feature output::file-store`
//! and unknown features). A rule that requires more is refused as unsupported, so it
//! is skipped and counted in `osprey.rules.unsupported` (Suricata counts it in
//! `detect.engines[].rules_skipped` without a warning).

use crate::sig::{failed, unsupported, Refusal};

/// The version `requires: version` compares against.
pub(crate) const SURICATA_VERSION: [u64; 3] = [7, 0, 10];

/// Checks keyword `name` (`prefilter`, `nfq_set_mark`, `requires`) with its value.
pub(crate) fn check(name: &str, value: Option<&str>) -> Result<(), Refusal> {
    let v = value.map(str::trim).unwrap_or("");
    match name {
        "prefilter" if v.is_empty() => Ok(()),
        "prefilter" => Err(failed(name, "prefilter takes no value")),
        "nfq_set_mark" => nfq_set_mark(v),
        _ => requires(v),
    }
}

/// `nfq_set_mark:<mark>/<mask>`, each a decimal or `0x` hexadecimal 32-bit number.
fn nfq_set_mark(v: &str) -> Result<(), Refusal> {
    let num = |s: &str| {
        let s = s.trim();
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => u32::from_str_radix(h, 16).ok(),
            None => s.parse::<u32>().ok(),
        }
    };
    match v.split_once('/') {
        Some((m, k)) if num(m).is_some() && num(k).is_some() => Ok(()),
        _ => Err(failed(
            "nfq_set_mark",
            format!("nfq_set_mark:{v}: expected <mark>/<mask>"),
        )),
    }
}

/// `requires: feature <name>, version <op> <x.y.z> [<op> <x.y.z>...] [| ...]`.
fn requires(v: &str) -> Result<(), Refusal> {
    if v.is_empty() {
        return Err(failed("requires", "requires needs a requirement"));
    }
    for part in v.split(',').map(str::trim) {
        let (what, rest) = part.split_once(char::is_whitespace).unwrap_or((part, ""));
        let rest = rest.trim();
        match what {
            "feature" if !rest.is_empty() => {
                return Err(unsupported(
                    "requires",
                    format!("requires: feature {rest} is not provided"),
                ))
            }
            "version" => {
                let alternatives = rest
                    .split('|')
                    .map(version_holds)
                    .collect::<Result<Vec<bool>, Refusal>>()?;
                if !alternatives.iter().any(|&ok| ok) {
                    return Err(unsupported(
                        "requires",
                        format!("requires: version {rest} excludes 7.0.10"),
                    ));
                }
            }
            _ => {
                return Err(failed(
                    "requires",
                    format!("requires: unknown requirement '{part}'"),
                ))
            }
        }
    }
    Ok(())
}

/// Whether 7.0.10 meets every comparison of `expr` (`>= 7.0.3 < 8`).
fn version_holds(expr: &str) -> Result<bool, Refusal> {
    let bad = || {
        failed(
            "requires",
            format!("requires: bad version expression '{expr}'"),
        )
    };
    let words: Vec<&str> = expr.split_whitespace().collect();
    if words.is_empty() || !words.len().is_multiple_of(2) {
        return Err(bad());
    }
    let mut ok = true;
    for pair in words.chunks(2) {
        let mut want = [0u64; 3];
        let parts: Vec<&str> = pair[1].split('.').collect();
        if parts.len() > 3 {
            return Err(bad());
        }
        for (w, p) in want.iter_mut().zip(&parts) {
            *w = p.parse().map_err(|_| bad())?;
        }
        let have = SURICATA_VERSION;
        ok &= match pair[0] {
            ">=" => have >= want,
            ">" => have > want,
            "<=" => have <= want,
            "<" => have < want,
            "=" | "==" => have == want,
            _ => return Err(bad()),
        };
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requires_as_suricata_7_0_10() {
        assert!(check("requires", Some("version >= 7.0.0")).is_ok());
        assert!(check("requires", Some("version >= 7.0.3 < 8")).is_ok());
        assert!(check("requires", Some("version >= 7")).is_ok());
        assert!(check("requires", Some("version >= 8.0.0 | >= 7.0.10 < 7.1")).is_ok());
        for skipped in [
            "version >= 8.0.0",
            "version >= 7.0.3 < 7.0.5",
            "feature nosuchfeature",
            "feature output::file-store, version >= 7.0.3 < 8",
        ] {
            assert!(
                check("requires", Some(skipped)).unwrap_err().unsupported,
                "{skipped}"
            );
        }
        for bad in ["", "version", "version >= x", "version ~ 7", "colour blue"] {
            assert!(
                !check("requires", Some(bad)).unwrap_err().unsupported,
                "{bad}"
            );
        }
    }

    #[test]
    fn nfq_set_mark_and_prefilter_values() {
        assert!(check("nfq_set_mark", Some("0x10/0xff")).is_ok());
        assert!(check("nfq_set_mark", Some("16/255")).is_ok());
        assert!(check("nfq_set_mark", Some("16")).is_err());
        assert!(check("nfq_set_mark", Some("x/1")).is_err());
        assert!(check("prefilter", None).is_ok());
        assert!(check("prefilter", Some("1")).is_err());
    }
}

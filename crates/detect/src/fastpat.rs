//! Fast pattern selection, as Suricata 7 does it: an explicit `fast_pattern` (with its
//! `offset,length` chop) wins; otherwise the non-negated content with the highest
//! pattern strength (unique letters 3, unique printable or 0x00/0x01/0xff bytes 4, other
//! unique bytes 6, repeated bytes 1), ties to the longer, then the first. Negated
//! contents and contents in transformed buffers are never used: such a rule has no
//! prefilter and is evaluated on every packet or transaction its header admits.
//!
//! The choice only decides which rules are candidates; a candidate is always verified in
//! full, so any content of the rule is a correct prefilter.

use rules::{Buffer, Content, FastPattern, Match, Rule};

use crate::sig::Slot;

/// Suricata's pattern strength score.
pub(crate) fn strength(p: &[u8]) -> u32 {
    let mut seen = [false; 256];
    let mut s = 0;
    for &b in p {
        if seen[b as usize] {
            s += 1;
            continue;
        }
        seen[b as usize] = true;
        s += if b.is_ascii_alphabetic() {
            3
        } else if b.is_ascii_graphic() || b == b' ' || b == 0 || b == 1 || b == 0xff {
            4
        } else {
            6
        };
    }
    s
}

fn slot_of(b: Buffer) -> Option<Slot> {
    if b == Buffer::Payload {
        return Some(Slot::Payload);
    }
    crate::sig::app_buf(b).map(Slot::App)
}

fn pattern_of(c: &Content) -> Option<Vec<u8>> {
    match c.fast_pattern {
        Some(FastPattern::Chop { offset, length }) => {
            let (o, l) = (offset as usize, length as usize);
            c.pattern
                .get(o..o.checked_add(l)?)
                .filter(|p| !p.is_empty())
                .map(<[u8]>::to_vec)
        }
        _ => Some(c.pattern.clone()),
    }
}

/// The rule's fast pattern: its slot, bytes and case-insensitivity. With `app_only`
/// (transaction rules, inspected per transaction) only app-layer buffers qualify.
pub(crate) fn select(r: &Rule, app_only: bool) -> Option<(Slot, Vec<u8>, bool)> {
    let mut best: Option<(u32, usize, Slot, &Content)> = None;
    for bm in &r.buffers {
        let usable = bm.transforms.is_empty();
        let slot = slot_of(bm.buffer).filter(|s| !app_only || *s != Slot::Payload);
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            if c.fast_pattern.is_some() {
                // Explicit choice: honoured when usable.
                if let Some(slot) = slot.filter(|_| usable && !c.negated) {
                    return Some((slot, pattern_of(c)?, c.nocase));
                }
                if !app_only {
                    return None;
                }
                continue;
            }
            if c.negated || !usable {
                continue;
            }
            let Some(slot) = slot else { continue };
            let s = strength(&c.pattern);
            let better = match best {
                None => true,
                Some((bs, bl, _, _)) => s > bs || (s == bs && c.pattern.len() > bl),
            };
            if better {
                best = Some((s, c.pattern.len(), slot, c));
            }
        }
    }
    let (_, _, slot, c) = best?;
    Some((slot, c.pattern.clone(), c.nocase))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(s: &str) -> Rule {
        rules::parse_rule(s).expect("parses")
    }

    #[test]
    fn strength_scores() {
        assert_eq!(strength(b"abc"), 9);
        assert_eq!(strength(b"aaa"), 5);
        assert_eq!(strength(b"/"), 4);
        assert_eq!(strength(b"\x02"), 6);
    }

    #[test]
    fn explicit_and_chosen() {
        let r = rule(
            r#"alert tcp any any -> any any (content:"abcdef"; content:"xy"; fast_pattern; sid:1;)"#,
        );
        assert_eq!(
            select(&r, false),
            Some((Slot::Payload, b"xy".to_vec(), false))
        );
        let r =
            rule(r#"alert tcp any any -> any any (content:"abcdef"; fast_pattern:1,2; sid:1;)"#);
        assert_eq!(
            select(&r, false),
            Some((Slot::Payload, b"bc".to_vec(), false))
        );
        let r = rule(
            r#"alert tcp any any -> any any (content:"ab"; content:!"zzzzzzzzzz"; content:"abcd"; nocase; sid:1;)"#,
        );
        assert_eq!(
            select(&r, false),
            Some((Slot::Payload, b"abcd".to_vec(), true))
        );
        let r = rule(
            r#"alert http any any -> any any (http.uri; content:"/a"; http.host; content:"example"; sid:1;)"#,
        );
        assert_eq!(select(&r, false).map(|x| x.1), Some(b"example".to_vec()));
        let r = rule(r#"alert tcp any any -> any any (content:!"ab"; sid:1;)"#);
        assert_eq!(select(&r, false), None);
    }
}

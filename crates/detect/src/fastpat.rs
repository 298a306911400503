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

/// Why a fast pattern was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpReason {
    /// The rule marks the content `fast_pattern` (with `offset,length` when chopped).
    Explicit,
    /// No explicit choice: the usable content with the highest pattern strength (ties
    /// to the longer, then the first). `usable` counts the contents that qualified.
    Strongest {
        /// Its strength score.
        strength: u32,
        /// Contents that could have been chosen.
        usable: usize,
    },
}

/// Why a rule has no fast pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFastPattern {
    /// The rule has no content at all.
    NoContent,
    /// The content marked `fast_pattern` cannot be used (negated, in a transformed
    /// buffer, in a buffer no matcher scans, or an `offset,length` outside it), and a
    /// packet rule then takes no other.
    ExplicitUnusable,
    /// Every content is negated, in a transformed buffer or in a buffer no matcher
    /// scans (for transaction rules: the packet payload).
    NoUsable,
}

/// The fast pattern of a rule and why it was chosen.
#[derive(Debug, Clone)]
pub(crate) struct Choice<'r> {
    /// Where the prefilter matcher scans it.
    pub slot: Slot,
    /// The rule buffer of the content.
    pub buffer: Buffer,
    /// The content it comes from.
    pub content: &'r Content,
    /// The bytes given to the matcher (chopped for `fast_pattern:offset,length`).
    pub pattern: Vec<u8>,
    /// Why this one.
    pub reason: FpReason,
}

/// The rule's fast pattern with the reason of the choice, or why there is none. With
/// `app_only` (transaction rules, inspected per transaction) only app-layer buffers
/// qualify.
pub(crate) fn choose(r: &Rule, app_only: bool) -> Result<Choice<'_>, NoFastPattern> {
    let mut best: Option<(u32, usize, Slot, Buffer, &Content)> = None;
    let mut usable_count = 0;
    let mut any_content = false;
    for bm in &r.buffers {
        let usable = bm.transforms.is_empty();
        let slot = slot_of(bm.buffer).filter(|s| !app_only || *s != Slot::Payload);
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            any_content = true;
            if c.fast_pattern.is_some() {
                // Explicit choice: honoured when usable.
                if let Some(slot) = slot.filter(|_| usable && !c.negated) {
                    let pattern = pattern_of(c).ok_or(NoFastPattern::ExplicitUnusable)?;
                    return Ok(Choice {
                        slot,
                        buffer: bm.buffer,
                        content: c,
                        pattern,
                        reason: FpReason::Explicit,
                    });
                }
                if !app_only {
                    return Err(NoFastPattern::ExplicitUnusable);
                }
                continue;
            }
            if c.negated || !usable {
                continue;
            }
            let Some(slot) = slot else { continue };
            usable_count += 1;
            let s = strength(&c.pattern);
            let better = match best {
                None => true,
                Some((bs, bl, ..)) => s > bs || (s == bs && c.pattern.len() > bl),
            };
            if better {
                best = Some((s, c.pattern.len(), slot, bm.buffer, c));
            }
        }
    }
    match best {
        Some((strength, _, slot, buffer, c)) => Ok(Choice {
            slot,
            buffer,
            content: c,
            pattern: c.pattern.clone(),
            reason: FpReason::Strongest {
                strength,
                usable: usable_count,
            },
        }),
        None if any_content => Err(NoFastPattern::NoUsable),
        None => Err(NoFastPattern::NoContent),
    }
}

/// The rule's fast pattern: its slot, bytes and case-insensitivity (see [`choose`]).
pub(crate) fn select(r: &Rule, app_only: bool) -> Option<(Slot, Vec<u8>, bool)> {
    choose(r, app_only)
        .ok()
        .map(|c| (c.slot, c.pattern, c.content.nocase))
}

/// A prefilter pattern for a transaction rule that has no fast pattern only because its
/// contents lie in a buffer transformed by `dotprefix` (`dns.query; dotprefix;
/// content:".evil.com"; endswith;`, about 1,400 ET Open rules, which would otherwise be
/// evaluated on every DNS and TLS transaction). The transformed buffer is `.` followed
/// by the buffer, so a content found in it is found in the buffer itself less its first
/// bytes when they are the added `.`s, one per `dotprefix` (a content not starting with
/// `.` cannot start at an added byte and is found whole). The pattern only decides which rules are
/// candidates (each is verified in full on the transformed buffer), so it is not
/// Suricata's fast pattern and engine analysis does not report it.
pub(crate) fn select_transformed(r: &Rule) -> Option<(Slot, Vec<u8>, bool)> {
    let mut best: Option<(u32, Slot, Vec<u8>, bool)> = None;
    for bm in &r.buffers {
        if bm.transforms.is_empty()
            || !bm
                .transforms
                .iter()
                .all(|t| matches!(t, rules::Transform::DotPrefix))
        {
            continue;
        }
        let Some(slot) = slot_of(bm.buffer).filter(|s| *s != Slot::Payload) else {
            continue;
        };
        for m in &bm.matches {
            let Match::Content(c) = m else { continue };
            if c.negated {
                continue;
            }
            // Each `dotprefix` adds one leading `.`: as many of the content's leading
            // dots may be added ones.
            let added = c
                .pattern
                .iter()
                .take(bm.transforms.len())
                .take_while(|&&b| b == b'.')
                .count();
            let p = &c.pattern[added..];
            if p.is_empty() {
                continue;
            }
            let s = strength(p);
            if best.as_ref().is_none_or(|b| s > b.0) {
                best = Some((s, slot, p.to_vec(), c.nocase));
            }
        }
    }
    best.map(|(_, slot, p, nocase)| (slot, p, nocase))
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

    #[test]
    fn dotprefix_contents_give_a_prefilter_pattern() {
        let r = rule(
            r#"alert dns any any -> any any (dns.query; dotprefix; content:".evil.com"; nocase; endswith; sid:1;)"#,
        );
        // Not Suricata's fast pattern: the buffer is transformed.
        assert_eq!(select(&r, true), None);
        let (slot, p, nocase) = select_transformed(&r).unwrap();
        assert!(matches!(slot, Slot::App(_)));
        assert_eq!((p.as_slice(), nocase), (&b"evil.com"[..], true));
        // A content not starting with the added dot is found whole; negated ones and
        // other transforms give none.
        let r = rule(
            r#"alert dns any any -> any any (dns.query; dotprefix; content:"bad"; content:!".x"; sid:1;)"#,
        );
        assert_eq!(select_transformed(&r).unwrap().1, b"bad".to_vec());
        let r =
            rule(r#"alert dns any any -> any any (dns.query; dotprefix; content:!".x"; sid:1;)"#);
        assert_eq!(select_transformed(&r), None);
        let r = rule(
            r#"alert dns any any -> any any (dns.query; to_lowercase; content:"bad"; sid:1;)"#,
        );
        assert_eq!(select_transformed(&r), None);
        let r = rule(r#"alert dns any any -> any any (dns.query; dotprefix; content:"."; sid:1;)"#);
        assert_eq!(select_transformed(&r), None);
        // Two `dotprefix`es add two dots (difftest `xform/dns.query/content`, seed
        // 3635822698 case 5145): both may be added ones, a third is the buffer's.
        let r = rule(
            r#"alert dns any any -> any any (dns.query; dotprefix; dotprefix; content:"..ab"; startswith; sid:1;)"#,
        );
        assert_eq!(select_transformed(&r).unwrap().1, b"ab".to_vec());
        let r = rule(
            r#"alert dns any any -> any any (dns.query; dotprefix; dotprefix; content:"...ab"; sid:1;)"#,
        );
        assert_eq!(select_transformed(&r).unwrap().1, b".ab".to_vec());
    }

    #[test]
    fn reasons() {
        let r = rule(
            r#"alert tcp any any -> any any (content:"abcdef"; content:"xy"; fast_pattern; sid:1;)"#,
        );
        assert_eq!(choose(&r, false).unwrap().reason, FpReason::Explicit);
        let r = rule(r#"alert tcp any any -> any any (content:"ab"; content:"abcd"; sid:1;)"#);
        let c = choose(&r, false).unwrap();
        assert_eq!(
            c.reason,
            FpReason::Strongest {
                strength: 12,
                usable: 2
            }
        );
        assert_eq!(c.buffer, Buffer::Payload);
        let r = rule(r#"alert tcp any any -> any any (content:!"ab"; sid:1;)"#);
        assert_eq!(choose(&r, false).unwrap_err(), NoFastPattern::NoUsable);
        let r = rule(r#"alert tcp any any -> any any (dsize:3; sid:1;)"#);
        assert_eq!(choose(&r, false).unwrap_err(), NoFastPattern::NoContent);
        let r = rule(
            r#"alert tcp any any -> any any (content:!"ab"; fast_pattern; content:"xyz"; sid:1;)"#,
        );
        assert_eq!(
            choose(&r, false).unwrap_err(),
            NoFastPattern::ExplicitUnusable
        );
    }
}

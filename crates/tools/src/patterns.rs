//! The two benchmark pattern sets taken from rules: one fast pattern per rule, and every
//! content. Each set is deduplicated on (bytes, nocase), as an IDS's prefilter does.

use mpm::Pattern;
use rules::{FastPattern, RuleSet};
use std::collections::HashMap;

/// Patterns with their dedup index.
#[derive(Default)]
struct Dedup {
    seen: HashMap<(Vec<u8>, bool), u32>,
    out: Vec<Pattern>,
}

impl Dedup {
    fn add(&mut self, bytes: &[u8], nocase: bool) {
        if bytes.is_empty() {
            return;
        }
        // Case-insensitive patterns compare lowercased.
        let key = if nocase {
            bytes.to_ascii_lowercase()
        } else {
            bytes.to_vec()
        };
        let next = self.out.len() as u32;
        let id = *self.seen.entry((key, nocase)).or_insert(next);
        if id == next {
            self.out.push(Pattern {
                bytes: bytes.to_vec(),
                id,
                nocase,
            });
        }
    }
}

/// The fast set (explicit `fast_pattern`, its `offset,length` chop applied, else the rule's
/// longest non-negated content, the first on a tie) and the set of all contents of the enabled rules.
/// With `buffer` set (a name such as `http.uri`), only that buffer's contents count.
pub(crate) fn pattern_sets(set: &RuleSet, buffer: Option<&str>) -> (Vec<Pattern>, Vec<Pattern>) {
    let mut fast = Dedup::default();
    let mut all = Dedup::default();
    for loaded in set.rules.iter().filter(|r| r.rule.enabled) {
        let contents: Vec<_> = loaded
            .rule
            .contents()
            .filter(|(b, _)| buffer.is_none_or(|name| b.name() == name))
            .map(|(_, c)| c)
            .collect();
        for c in &contents {
            all.add(&c.pattern, c.nocase);
        }
        let explicit = contents.iter().find(|c| c.fast_pattern.is_some());
        let chosen = explicit.or_else(|| {
            contents
                .iter()
                .rev()
                .filter(|c| !c.negated)
                .max_by_key(|c| c.pattern.len())
                .or(contents.first())
        });
        if let Some(c) = chosen {
            let bytes = match c.fast_pattern {
                Some(FastPattern::Chop { offset, length }) => {
                    let start = (offset as usize).min(c.pattern.len());
                    let end = start.saturating_add(length as usize).min(c.pattern.len());
                    &c.pattern[start..end]
                }
                _ => &c.pattern[..],
            };
            fast.add(bytes, c.nocase);
        }
    }
    (fast.out, all.out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{LoadOptions, Vars};

    #[test]
    fn fast_and_all_sets() {
        let src = r#"alert tcp any any -> any any (msg:"a"; content:"ab"; content:"longest"; sid:1;)
alert tcp any any -> any any (msg:"b"; content:"xyz"; fast_pattern; content:"longer one"; sid:2;)
alert tcp any any -> any any (msg:"c"; content:"LONGEST"; nocase; content:"Longest"; nocase; sid:3;)
alert tcp any any -> any any (msg:"d"; content:"abcdef"; fast_pattern:2,3; sid:4;)
"#;
        let (set, _) = RuleSet::load_str(
            src,
            None,
            &Vars::suricata_default(),
            &LoadOptions::default(),
        );
        assert_eq!(set.rules.len(), 4);
        let (fast, all) = pattern_sets(&set, None);
        let f: Vec<&[u8]> = fast.iter().map(|p| &p.bytes[..]).collect();
        assert_eq!(f, vec![&b"longest"[..], b"xyz", b"LONGEST", b"cde"]);
        // "LONGEST"/"Longest" nocase are one pattern; "longest" case-sensitive is another.
        assert_eq!(all.len(), 6);
        assert!(all.iter().enumerate().all(|(i, p)| p.id == i as u32));
        let uri = r#"alert http any any -> any any (msg:"u"; content:"GET"; http_method; content:"/x.php"; http_uri; sid:5;)"#;
        let (set, _) = RuleSet::load_str(
            uri,
            None,
            &Vars::suricata_default(),
            &LoadOptions::default(),
        );
        let (fast, all) = pattern_sets(&set, Some("http.uri"));
        assert_eq!((fast.len(), all.len()), (1, 1));
        assert_eq!(fast[0].bytes, b"/x.php");
    }
}

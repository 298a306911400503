//! The known differences of the differential batch: the entries of the section
//! `## Differential batch` of `tests/parity/KNOWN_DIFFERENCES.md`, one bullet each,
//! starting with `` `difftest:TEMPLATE-PREFIX kind` `` (kind: `missing`, `extra`,
//! `packets`, `osprey-accepts`, `osprey-rejects` or `any`), followed by the evidence.

use crate::compare::Kind;

/// The known differences.
#[derive(Clone, Debug, Default)]
pub struct Known {
    entries: Vec<(String, String)>,
}

/// The section's heading.
pub const SECTION: &str = "## Differential batch";

impl Known {
    /// Reads the entries from the markdown text.
    pub fn parse(md: &str) -> Known {
        let mut entries = Vec::new();
        let mut inside = false;
        for line in md.lines() {
            if line.starts_with("## ") {
                inside = line.starts_with(SECTION);
                continue;
            }
            let Some(rest) = line.trim_start().strip_prefix("- `difftest:") else {
                continue;
            };
            if !inside {
                continue;
            }
            let Some(end) = rest.find('`') else { continue };
            let mut words = rest[..end].split_whitespace();
            if let Some(t) = words.next() {
                let kind = words.next().unwrap_or("any").to_string();
                entries.push((t.to_string(), kind));
            }
        }
        Known { entries }
    }

    /// Reads the file (no file: no entries).
    pub fn load(path: &std::path::Path) -> Known {
        std::fs::read_to_string(path)
            .map(|s| Known::parse(&s))
            .unwrap_or_default()
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a difference of `kind` on a case of `template` is listed.
    pub fn covers(&self, template: &str, kind: Kind) -> bool {
        self.entries
            .iter()
            .any(|(t, k)| template.starts_with(t.as_str()) && (k == "any" || k == kind.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_the_section_only() {
        let md = "# x\n- `difftest:flags/ missing` not here\n## Differential batch\n\ntext\n- `difftest:ipopts/esec missing` evidence\n- `difftest:byte_math/` more\n## Other\n- `difftest:dsize/ any`\n";
        let k = Known::parse(md);
        assert_eq!(k.len(), 2);
        assert!(k.covers("ipopts/esec", Kind::Missing));
        assert!(!k.covers("ipopts/esec", Kind::Extra));
        assert!(k.covers("byte_math/+", Kind::Extra));
        assert!(!k.covers("flags/+", Kind::Missing));
        assert!(!k.covers("dsize/eq", Kind::Missing));
    }
}

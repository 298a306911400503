//! `classification.config`: `config classification: name,description,priority`.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::{Diagnostic, Reason};

/// One class type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// Short name used by `classtype`.
    pub name: String,
    /// Description (EVE `alert.category`).
    pub description: String,
    /// Default priority of rules of this class.
    pub priority: u32,
}

/// The class types of a `classification.config`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classifications {
    map: HashMap<String, Classification>,
}

impl Classifications {
    /// Parses the file's text; bad lines give diagnostics and are skipped.
    pub fn parse(src: &str) -> (Self, Vec<Diagnostic>) {
        let mut out = Classifications::default();
        let mut diags = Vec::new();
        for (i, line) in src.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let err = |m: &str| {
                Diagnostic::error(Reason::Config, Some("classification"), m).at(i as u32 + 1, 1)
            };
            let Some(rest) = t.strip_prefix("config classification:") else {
                diags.push(err(
                    "expected 'config classification: name,description,priority'",
                ));
                continue;
            };
            let parts: Vec<&str> = rest.splitn(3, ',').map(str::trim).collect();
            let [name, desc, prio] = parts[..] else {
                diags.push(err("expected name,description,priority"));
                continue;
            };
            let Ok(priority) = prio.parse::<u32>() else {
                diags.push(err("priority is not a number"));
                continue;
            };
            if name.is_empty() {
                diags.push(err("empty class name"));
                continue;
            }
            out.map.insert(
                name.to_owned(),
                Classification {
                    name: name.to_owned(),
                    description: desc.to_owned(),
                    priority,
                },
            );
        }
        (out, diags)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<(Self, Vec<Diagnostic>), Diagnostic> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostic::error(
                Reason::Io,
                None,
                format!("cannot read classification file: {e}"),
            )
            .in_file(Some(std::sync::Arc::from(path)))
        })?;
        let (c, mut d) = Self::parse(&text);
        for x in &mut d {
            x.file = Some(std::sync::Arc::from(path));
        }
        Ok((c, d))
    }

    /// Looks up a class type.
    pub fn get(&self, name: &str) -> Option<&Classification> {
        self.map.get(name)
    }

    /// Number of class types.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_and_reports_bad_ones() {
        let (c, d) = Classifications::parse(
            "# c\nconfig classification: trojan-activity,A Network Trojan was detected, 1\nbogus\nconfig classification: x,y,z\n",
        );
        assert_eq!(c.len(), 1);
        assert_eq!(c.get("trojan-activity").unwrap().priority, 1);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].line, 3);
    }

    #[test]
    fn suricata_default_file() {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/etc/classification.config"
        );
        if !Path::new(p).exists() {
            assert!(
                std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
                "missing {p}"
            );
            eprintln!("skip: {p} not found");
            return;
        }
        let (c, d) = Classifications::load(Path::new(p)).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert!(c.len() >= 38);
        assert_eq!(c.get("not-suspicious").unwrap().priority, 3);
        assert_eq!(c.get("trojan-activity").unwrap().priority, 1);
    }
}

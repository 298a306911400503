//! `reference.config`: `config reference: system url-prefix`.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::{Diagnostic, Reason};

/// Reference systems and their URL prefixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReferenceConfig {
    map: HashMap<String, String>,
}

impl ReferenceConfig {
    /// Parses the file's text (system names are case-insensitive).
    pub fn parse(src: &str) -> (Self, Vec<Diagnostic>) {
        let mut out = ReferenceConfig::default();
        let mut diags = Vec::new();
        for (i, line) in src.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let err = |m: &str| {
                Diagnostic::error(Reason::Config, Some("reference"), m).at(i as u32 + 1, 1)
            };
            let Some(rest) = t.strip_prefix("config reference:") else {
                diags.push(err("expected 'config reference: system url'"));
                continue;
            };
            let mut w = rest.split_whitespace();
            match (w.next(), w.next()) {
                (Some(sys), Some(url)) => {
                    out.map.insert(sys.to_ascii_lowercase(), url.to_owned());
                }
                _ => diags.push(err("expected a system name and a URL")),
            }
        }
        (out, diags)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<(Self, Vec<Diagnostic>), Diagnostic> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostic::error(Reason::Io, None, format!("cannot read reference file: {e}"))
                .in_file(Some(std::sync::Arc::from(path)))
        })?;
        let (c, mut d) = Self::parse(&text);
        for x in &mut d {
            x.file = Some(std::sync::Arc::from(path));
        }
        Ok((c, d))
    }

    /// URL prefix of a system.
    pub fn get(&self, system: &str) -> Option<&str> {
        self.map
            .get(&system.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Number of systems.
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
    fn parses() {
        let (r, d) = ReferenceConfig::parse(
            "config reference: bugtraq   http://www.securityfocus.com/bid/\nconfig reference: x\n",
        );
        assert_eq!(r.get("BugTraq"), Some("http://www.securityfocus.com/bid/"));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn suricata_default_file() {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/etc/reference.config"
        );
        if !Path::new(p).exists() {
            assert!(
                std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
                "missing {p}"
            );
            eprintln!("skip: {p} not found");
            return;
        }
        let (r, d) = ReferenceConfig::load(Path::new(p)).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert!(r.get("url").is_some() && r.get("cve").is_some());
    }
}

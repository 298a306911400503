//! `osprey rules check`: load rule files, report every diagnostic and a summary.

use std::fmt;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::diag::{Diagnostic, Severity};
use crate::ruleset::{LoadOptions, LoadStats, RuleSet};
use crate::vars::Vars;

/// Options of a check run.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Variables used to resolve `$VAR` (Suricata's defaults unless a config says otherwise).
    pub vars: Vars,
    /// Loading options (strict mode, commented-out rules, classtype/reference checks).
    pub load: LoadOptions,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            vars: Vars::suricata_default(),
            load: LoadOptions::default(),
        }
    }
}

/// Outcome of a check run.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// Files checked.
    pub files: Vec<PathBuf>,
    /// All diagnostics, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Counters.
    pub stats: LoadStats,
}

/// Loads the files and gathers diagnostics and statistics.
pub fn check_files(paths: &[PathBuf], opts: &CheckOptions) -> CheckReport {
    let (set, diagnostics) = RuleSet::load(paths, &opts.vars, &opts.load);
    CheckReport {
        files: paths.to_vec(),
        diagnostics,
        stats: set.stats,
    }
}

impl CheckReport {
    /// True if any rule failed (or a file could not be read): exit status 1.
    pub fn has_failures(&self) -> bool {
        self.stats.failed > 0 || self.diagnostics.iter().any(|d| d.is_error())
    }

    /// Process exit status for the CLI: 0 when everything loaded, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.has_failures())
    }

    /// Machine-readable summary: `loaded`, `failed`, `warnings`, `files`, `skipped`
    /// (reason → count), `unsupported` (keyword → count), `keywords` (keyword → rules
    /// using it), `diagnostics` (list).
    pub fn to_json(&self) -> Value {
        let counts = |it: &mut dyn Iterator<Item = (String, usize)>| -> Value {
            Value::Object(it.map(|(k, v)| (k, json!(v))).collect::<Map<_, _>>())
        };
        let diags: Vec<Value> = self
            .diagnostics
            .iter()
            .map(|d| {
                json!({
                    "file": d.file.as_ref().map(|p| p.display().to_string()),
                    "line": d.line,
                    "column": d.column,
                    "severity": if d.severity == Severity::Error { "error" } else { "warning" },
                    "reason": d.reason.as_str(),
                    "keyword": d.keyword,
                    "sid": d.sid,
                    "message": d.message,
                })
            })
            .collect();
        json!({
            "files": self.stats.files,
            "loaded": self.stats.loaded,
            "failed": self.stats.failed,
            "warnings": self.stats.warnings,
            "skipped": counts(&mut self.stats.failed_by_reason.iter().map(|(k, v)| (k.as_str().to_owned(), *v))),
            "unsupported": counts(&mut self.stats.unsupported.iter().map(|(k, v)| (k.clone(), *v))),
            "keywords": counts(&mut self.stats.keywords.iter().map(|(k, v)| (k.clone(), *v))),
            "diagnostics": diags,
        })
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diagnostics {
            writeln!(f, "{d}")?;
        }
        let s = &self.stats;
        writeln!(f, "files: {}", s.files)?;
        writeln!(f, "rules loaded: {}", s.loaded)?;
        writeln!(f, "rules failed: {}", s.failed)?;
        if s.warnings > 0 {
            writeln!(f, "warnings: {}", s.warnings)?;
        }
        if !s.failed_by_reason.is_empty() {
            writeln!(f, "skipped by reason:")?;
            for (r, n) in &s.failed_by_reason {
                writeln!(f, "  {r}: {n}")?;
            }
        }
        if !s.unsupported.is_empty() {
            writeln!(f, "unsupported keywords:")?;
            for (k, n) in &s.unsupported {
                writeln!(f, "  {k}: {n}")?;
            }
        }
        let mut kw: Vec<(&String, &usize)> = s.keywords.iter().collect();
        kw.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        writeln!(f, "keyword usage (rules):")?;
        for (k, n) in kw {
            writeln!(f, "  {k}: {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_counts_and_json() {
        let dir = std::env::temp_dir().join(format!("osprey-rules-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.rules");
        std::fs::write(
            &f,
            "alert tcp any any -> any any (msg:\"a\"; content:\"x\"; sid:1;)\n\
             alert tcp any any -> any any (msg:\"b\"; nosuch_kw:x; sid:2;)\n\
             alert tcp any any -> any any (msg:\"c\"; content:\"abc\"; depth:2; sid:3;)\n",
        )
        .unwrap();
        let r = check_files(
            &[f.clone(), dir.join("missing.rules")],
            &CheckOptions::default(),
        );
        assert_eq!(r.stats.loaded, 1);
        assert_eq!(r.stats.failed, 2);
        assert_eq!(r.exit_code(), 1);
        let j = r.to_json();
        assert_eq!(j["loaded"], 1);
        assert_eq!(j["failed"], 2);
        assert_eq!(j["unsupported"]["nosuch_kw"], 1);
        assert_eq!(j["keywords"]["msg"], 3);
        assert_eq!(j["skipped"]["unsupported keyword"], 1);
        let text = r.to_string();
        assert!(text.contains("a.rules:2:"), "{text}");
        assert!(text.contains("rules loaded: 1"));
        assert!(text.contains("nosuch_kw: 1"));
        assert!(text.contains("missing.rules"));
        let ok = check_files(std::slice::from_ref(&f), &CheckOptions::default());
        assert_eq!(ok.stats.files, 1);
        std::fs::remove_dir_all(&dir).ok();
    }
}

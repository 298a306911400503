//! `--engine-analysis`: writes the per-rule report of `detect::analysis` (computed by
//! `engine::analyze` from the detector it builds) into the log directory as
//! `rules.json` (one JSON object per rule) and `rules_fast_pattern.txt` (a summary and
//! one block per rule). The format is documented in docs/engine-analysis.md.

use detect::analysis::{pattern_text, RuleReport, Status, Summary};
use detect::FpReason;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Loads the configuration and rules of `setup`, writes the report into `dir`, says
/// where in one line, and exits 0 (rules that did not load are in the report).
pub fn run(setup: &engine::SetupArgs, dir: &Path) -> Result<ExitCode, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create log directory {}: {e}", dir.display()))?;
    let (_, reports) = engine::analyze(setup)?;
    let mut json_lines = String::new();
    for r in &reports {
        json_lines.push_str(&to_json(r).to_string());
        json_lines.push('\n');
    }
    let summary = detect::analysis::summarize(&reports);
    let text = to_text(&reports, &summary);
    for (name, body) in [
        ("rules.json", &json_lines),
        ("rules_fast_pattern.txt", &text),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    tracing::info!(
        "engine analysis of {} rules ({} loaded, {} skipped, {} prefiltered, {} with warnings) written to {}",
        summary.total,
        summary.loaded,
        summary.skipped,
        summary.prefiltered,
        summary.warned,
        dir.join("rules.json").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The JSON object of one rule (rules.json).
fn to_json(r: &RuleReport) -> Value {
    let reason = match &r.status {
        Status::Loaded | Status::Disabled => Value::Null,
        Status::Invalid(m) => json!({ "message": m }),
        Status::Unsupported { keyword, message } | Status::Failed { keyword, message } => {
            json!({ "keyword": keyword, "message": message })
        }
    };
    let fp = r.fast_pattern.as_ref().map(|f| {
        let (how, strength, candidates) = match f.reason {
            FpReason::Explicit => ("explicit", None, None),
            FpReason::Strongest { strength, usable } => ("strongest", Some(strength), Some(usable)),
        };
        json!({
            "buffer": f.buffer,
            "pattern": pattern_text(&f.pattern),
            "length": f.pattern.len(),
            "nocase": f.nocase,
            "chosen_by": how,
            "strength": strength,
            "candidates": candidates,
            "chop": f.chop.map(|(o, l)| json!({ "offset": o, "length": l })),
            "why": f.reason_text(),
        })
    });
    let buffers: Vec<Value> = r
        .buffers
        .iter()
        .map(|b| {
            json!({
                "name": b.name,
                "transforms": b.transforms,
                "matches": b.matches,
                "contents": b.contents,
            })
        })
        .collect();
    json!({
        "sid": r.sid,
        "gid": r.gid,
        "rev": r.rev,
        "file": r.file,
        "line": r.line,
        "status": r.status.name(),
        "reason": reason,
        "action": r.action,
        "kind": r.kind.map(|k| k.name()),
        "prefilter": r.prefilter,
        "fast_pattern": fp,
        "buffers": buffers,
        "warnings": r.warnings,
    })
}

/// The human report (rules_fast_pattern.txt).
fn to_text(reports: &[RuleReport], s: &Summary) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Osprey engine analysis: {} rules, {} loaded, {} skipped, {} prefiltered, {} with warnings",
        s.total, s.loaded, s.skipped, s.prefiltered, s.warned
    );
    let by: Vec<String> = s
        .by_buffer
        .iter()
        .map(|(b, n)| format!("{b} {n}"))
        .collect();
    let _ = writeln!(t, "Fast patterns by buffer: {}", by.join(", "));
    for r in reports {
        let at = format!("{}:{}", r.file.as_deref().unwrap_or("<rules>"), r.line);
        let _ = writeln!(t, "\n== {}:{}:{} ({at}) ==", r.gid, r.sid, r.rev);
        let status = match &r.status {
            Status::Invalid(m) => format!("invalid: {m}"),
            Status::Unsupported { keyword, message } | Status::Failed { keyword, message } => {
                format!("{} (`{keyword}`: {message})", r.status.name())
            }
            other => other.name().to_owned(),
        };
        let _ = writeln!(t, "    status: {status}");
        if let Some(kind) = r.kind {
            let _ = writeln!(
                t,
                "    kind: {}, prefilter: {}",
                kind.name(),
                if r.prefilter { "yes" } else { "no" }
            );
        }
        if let Some(f) = &r.fast_pattern {
            let _ = writeln!(
                t,
                "    fast pattern: \"{}\" ({} bytes{}) in {}: {}",
                pattern_text(&f.pattern),
                f.pattern.len(),
                if f.nocase { ", nocase" } else { "" },
                f.buffer,
                f.reason_text()
            );
        }
        if !r.buffers.is_empty() {
            let bufs: Vec<String> = r
                .buffers
                .iter()
                .map(|b| {
                    let tr = if b.transforms.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", b.transforms.join(", "))
                    };
                    format!(
                        "{}{tr} ({} matches, {} contents)",
                        b.name, b.matches, b.contents
                    )
                })
                .collect();
            let _ = writeln!(t, "    buffers: {}", bufs.join("; "));
        }
        for w in &r.warnings {
            let _ = writeln!(t, "    warning: {w}");
        }
    }
    t
}

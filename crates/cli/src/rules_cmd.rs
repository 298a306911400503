//! `osprey rules check`: parse errors (rules crate) and, for the rules that parse, what
//! the detector skips (unsupported keywords, buffers or protocols; rules it cannot
//! build), so that the check says which rules a run will really load.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use rules::check::{check_files, CheckOptions};
use rules::RuleSet;
use serde_json::{json, Value};

/// What the detector makes of the rules that parsed.
struct DetectorCheck {
    /// Rules skipped as unsupported, and as failed.
    unsupported: usize,
    failed: usize,
    /// Skipped rules per keyword.
    by_keyword: BTreeMap<String, usize>,
    /// One line per skipped rule: file, line, sid, kind, keyword, message.
    rules: Vec<(String, u32, u32, &'static str, String, String)>,
}

fn detector_check(files: &[PathBuf], opts: &CheckOptions) -> DetectorCheck {
    let (set, _) = RuleSet::load(files, &opts.vars, &opts.load);
    let (_, diags) =
        detect::Detector::build(&set.rules, &detect::DetectOptions::default(), &opts.vars);
    let mut check = DetectorCheck {
        unsupported: 0,
        failed: 0,
        by_keyword: BTreeMap::new(),
        rules: Vec::new(),
    };
    for d in diags {
        let kind = match d.kind {
            detect::DiagKind::Unsupported => {
                check.unsupported += 1;
                "unsupported"
            }
            detect::DiagKind::Failed => {
                check.failed += 1;
                "failed"
            }
        };
        *check.by_keyword.entry(d.keyword.clone()).or_insert(0) += 1;
        let (file, line) = set.rules.get(d.rule).map_or((String::new(), 0), |r| {
            let file = r.file.as_ref().map(|f| f.display().to_string());
            (file.unwrap_or_default(), r.line)
        });
        check
            .rules
            .push((file, line, d.sid, kind, d.keyword, d.message));
    }
    check
}

/// Runs `osprey rules check [--json] FILES`: exit status 1 when a rule fails to parse
/// or to build (rules skipped as unsupported are reported, not failures).
pub fn check(json: bool, files: &[PathBuf]) -> ExitCode {
    let opts = CheckOptions::default();
    let report = check_files(files, &opts);
    let det = detector_check(files, &opts);
    if json {
        let mut v = report.to_json();
        let rules: Vec<Value> = det
            .rules
            .iter()
            .map(|(file, line, sid, kind, keyword, message)| {
                json!({"file": file, "line": line, "sid": sid, "kind": kind,
                       "keyword": keyword, "message": message})
            })
            .collect();
        v["detector"] = json!({
            "unsupported": det.unsupported,
            "failed": det.failed,
            "by_keyword": det.by_keyword,
            "rules": rules,
        });
        outln!("{v}");
    } else {
        out!("{report}");
        for (file, line, sid, kind, keyword, message) in &det.rules {
            outln!("{file}:{line}: sid {sid}: {kind} by the detector: {keyword}: {message}");
        }
        outln!(
            "rules the detector skips: {} unsupported, {} failed",
            det.unsupported,
            det.failed
        );
        let mut kw: Vec<(&String, &usize)> = det.by_keyword.iter().collect();
        kw.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, n) in kw {
            outln!("  {k}: {n}");
        }
    }
    if report.has_failures() || det.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

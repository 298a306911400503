//! Whole rule sets: ET Open (emerging-* and IP reputation), suricata-verify test rules,
//! and the AST → text → AST round trip.

use std::path::{Path, PathBuf};

use rules::{parse_rule, LoadOptions, RuleSet, Vars};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

fn data(rel: &str) -> Option<PathBuf> {
    let p = Path::new(SHARED).join(rel);
    if p.exists() {
        Some(p)
    } else {
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "missing {}",
            p.display()
        );
        eprintln!("skip: {} not found", p.display());
        None
    }
}

fn files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&pred))
        .collect();
    v.sort();
    v
}

#[test]
fn et_open_emerging_all_load() {
    let Some(dir) = data("rules/et-open") else {
        return;
    };
    let f = files(&dir, |n| {
        n.starts_with("emerging-") && n.ends_with(".rules")
    });
    let (set, diags) = RuleSet::load(&f, &Vars::suricata_default(), &LoadOptions::default());
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert_eq!(set.stats.loaded, 23_635);
    assert_eq!(set.stats.failed, 0);
    assert!(set.stats.unsupported.is_empty());
}

#[test]
fn et_open_ip_reputation_all_load() {
    let Some(dir) = data("rules/et-open") else {
        return;
    };
    let names = [
        "botcc",
        "ciarmy",
        "compromised",
        "drop",
        "dshield",
        "tor",
        "3coresec",
        "threatview_CS_c2",
    ];
    let f = files(&dir, |n| {
        n.ends_with(".rules") && names.iter().any(|k| n.starts_with(k))
    });
    let (set, diags) = RuleSet::load(&f, &Vars::suricata_default(), &LoadOptions::default());
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    assert_eq!(set.stats.loaded, 1_192);
}

#[test]
fn et_open_round_trip_is_identity() {
    let Some(dir) = data("rules/et-open") else {
        return;
    };
    let f = files(&dir, |n| n.ends_with(".rules"));
    let (set, _) = RuleSet::load(&f, &Vars::suricata_default(), &LoadOptions::default());
    assert!(set.len() > 24_000);
    for lr in &set.rules {
        let text = lr.rule.to_string();
        let again = parse_rule(&text).unwrap_or_else(|d| panic!("{text}\n{d:?}"));
        assert_eq!(again, lr.rule, "\n{text}");
        assert_eq!(again.to_string(), text);
    }
}

/// Every rule of the suricata-verify cases loads, except the ones Suricata itself
/// rejects (listed with the reason).
#[test]
fn suricata_verify_rules_load() {
    let Some(dir) = data("corpus/open") else {
        return;
    };
    let mut total = 0;
    let mut failed = Vec::new();
    for case in files(&dir, |_| true) {
        let rules = case.join("test.rules");
        if !rules.exists() {
            continue;
        }
        let (set, diags) =
            RuleSet::load(&[rules], &Vars::suricata_default(), &LoadOptions::default());
        total += set.stats.loaded + set.stats.failed;
        for d in diags.iter().filter(|d| d.is_error()) {
            failed.push(format!(
                "{}: {d}",
                case.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(total > 900, "{total}");
    let expected_failures: &[&str] = &[];
    let unexpected: Vec<&String> = failed
        .iter()
        .filter(|f| !expected_failures.iter().any(|e| f.contains(e)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{}",
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

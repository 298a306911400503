//! Compiles every ET Open rule file and reports how many rules the detector supports,
//! and why the others are refused (by keyword).

use std::collections::BTreeMap;
use std::path::PathBuf;

#[test]
fn et_open_compiles() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/rules/et-open"
    ));
    let Ok(rd) = std::fs::read_dir(&dir) else {
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "{} is missing",
            dir.display()
        );
        eprintln!("skipping: {} not found", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("emerging-") && n.ends_with(".rules")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let vars = rules::Vars::suricata_default();
    let (set, _) = rules::RuleSet::load(&files, &vars, &Default::default());
    let t = std::time::Instant::now();
    let (det, diags) =
        detect::Detector::build(&set.rules, &detect::DetectOptions::default(), &vars);
    let took = t.elapsed();
    let s = det.stats();
    let mut by_kw: BTreeMap<(detect::DiagKind, String), usize> = BTreeMap::new();
    for d in &diags {
        *by_kw.entry((d.kind, d.keyword.clone())).or_default() += 1;
    }
    eprintln!(
        "ET Open: {} rules parsed ({} failed to parse), detector: {} loaded, {} unsupported, {} failed; \
         {} prefiltered, {} groups, {} matchers, {} patterns, {} KiB; built in {:?}",
        set.rules.len(),
        set.stats.failed,
        s.rules_loaded,
        s.rules_unsupported,
        s.rules_failed,
        s.rules_prefiltered,
        s.groups,
        s.matchers,
        s.patterns,
        s.mpm_memory / 1024,
        took
    );
    let mut v: Vec<_> = by_kw.into_iter().collect();
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    for ((k, kw), n) in &v {
        eprintln!("  {k:?} {kw}: {n}");
    }
    assert_eq!(
        s.rules_loaded + s.rules_unsupported + s.rules_failed + s.rules_disabled,
        set.rules.len()
    );
    // Suricata 7.0.10 loads every ET Open rule: none may be refused as wrong (a rule
    // Osprey cannot evaluate is unsupported, not failed).
    assert_eq!(s.rules_failed, 0, "ET Open rules refused as failed");
    // Most of ET Open must load: a regression in a common keyword shows up here.
    assert!(
        s.rules_loaded * 100 >= set.rules.len() * 80,
        "only {} of {} rules loaded",
        s.rules_loaded,
        set.rules.len()
    );
}

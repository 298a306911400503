//! Every EVE record Osprey writes validates against Suricata 7.0.10's EVE schema
//! (`../shared/reference/eve-schema-7.0.10.json`), allowing only the deviations the
//! reference itself has: Suricata's own complete EVE of sv-ether
//! (`../shared/pcaps/sv-ether.suricata-eve.json.gz`) is validated first, and the
//! (event type, schema location) pairs it fails on form the allowed set. Osprey's
//! records are then checked on a slice of the corpus cases (their rules, every event
//! type Osprey writes) and on sv-ether (no rules, every type).
//!
//! Skipped with a printed reason without the shared data; mandatory under
//! `OSPREY_REQUIRE_DATA=1`.

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every event type Osprey writes (`--eve-types`).
const TYPES: &str = "alert,http,dns,tls,flow,netflow,anomaly,stats,drop";

/// A failure's identity: the record's event type and the schema keyword it broke.
type Deviation = (String, String);

/// Osprey's own deviations on the corpus, each with its cause; any other fails the test.
/// (When one no longer occurs the test says so: remove it then.)
const KNOWN: &[(&str, &str, &str)] = &[];

/// The schema's failures on each line of `text`: per deviation, how many records.
fn failures(v: &jsonschema::Validator, text: &str) -> (usize, BTreeMap<Deviation, usize>) {
    let mut records = 0;
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).expect("an EVE line is JSON");
        records += 1;
        let kind = rec["event_type"].as_str().unwrap_or("?").to_string();
        let mut seen = BTreeSet::new();
        for e in v.iter_errors(&rec) {
            seen.insert((kind.clone(), e.schema_path().to_string()));
        }
        for d in seen {
            *out.entry(d).or_default() += 1;
        }
    }
    (records, out)
}

/// The schema's validator and the deviations of Suricata's own reference EVE.
fn reference() -> Option<(jsonschema::Validator, BTreeSet<Deviation>)> {
    let schema = common::shared("reference/eve-schema-7.0.10.json")?;
    let eve = common::shared("pcaps/sv-ether.suricata-eve.json.gz")?;
    let schema: Value = serde_json::from_slice(&std::fs::read(schema).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).expect("the schema compiles");
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(&eve)
        .output()
        .expect("gzip runs");
    assert!(out.status.success(), "gzip -dc {}", eve.display());
    let (n, fails) = failures(&v, &String::from_utf8_lossy(&out.stdout));
    assert!(n > 14_000, "the reference EVE has {n} records");
    println!("reference: {n} records, deviations {fails:?}");
    Some((v, fails.into_keys().collect()))
}

/// The records of `eve` whose failures the reference does not share: (records, the
/// disallowed deviations with their counts).
fn check(
    v: &jsonschema::Validator,
    allowed: &BTreeSet<Deviation>,
    eve: &Path,
) -> (usize, BTreeMap<Deviation, usize>) {
    let text = std::fs::read_to_string(eve).unwrap_or_default();
    let (n, mut fails) = failures(v, &text);
    fails.retain(|d, _| !allowed.contains(d));
    (n, fails)
}

#[test]
fn corpus_records_validate() {
    let Some((v, allowed)) = reference() else {
        return;
    };
    let Some(corpus) = common::shared("corpus/open") else {
        return;
    };
    let mut cases: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("test.rules").is_file())
        .collect();
    cases.sort();
    // A slice that stays quick in a debug build: every other case that is not an
    // http-evader variant, every 20th of those.
    let (evader, other): (Vec<_>, Vec<_>) = cases.into_iter().partition(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("http-evader"))
    });
    let slice: Vec<_> = other
        .iter()
        .step_by(2)
        .chain(evader.iter().step_by(20))
        .collect();
    let (mut records, mut bad) = (0, BTreeMap::new());
    for case in &slice {
        let Some(pcap) = ["input.pcap", "input.pcapng"]
            .iter()
            .map(|f| case.join(f))
            .find(|p| p.is_file())
        else {
            continue;
        };
        let ips = std::fs::read_to_string(case.join("case.toml"))
            .is_ok_and(|t| t.contains("simulate_ips = true"));
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let dir = common::tempdir(&format!("eve-schema-{name}"));
        let rules = case.join("test.rules");
        let mut args = vec![
            "-r",
            pcap.to_str().unwrap(),
            "-S",
            rules.to_str().unwrap(),
            "-k",
            "none",
            "-l",
            dir.to_str().unwrap(),
            "--eve-types",
            TYPES,
        ];
        if ips {
            args.push("--simulate-ips");
        }
        common::osprey(&args);
        let (n, fails) = check(&v, &allowed, &dir.join("eve.json"));
        records += n;
        for (d, c) in fails {
            *bad.entry(d).or_insert(0) += c;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!("corpus: {} cases, {records} records", slice.len());
    assert!(records > 800, "only {records} records on the corpus slice");
    for (kind, path, why) in KNOWN {
        let d = (kind.to_string(), path.to_string());
        match bad.remove(&d) {
            Some(n) => println!("known deviation ({n} records): {kind} {path}: {why}"),
            None => println!("known deviation no longer seen (remove it): {kind} {path}"),
        }
    }
    assert!(bad.is_empty(), "schema failures on the corpus: {bad:?}");
}

#[test]
fn sv_ether_records_validate() {
    let Some((v, allowed)) = reference() else {
        return;
    };
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let dir = common::tempdir("eve-schema-sv-ether");
    let out = common::osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        dir.to_str().unwrap(),
        "--eve-types",
        TYPES,
    ]);
    assert!(out.status.success(), "{out:?}");
    let (n, fails) = check(&v, &allowed, &dir.join("eve.json"));
    let total: usize = fails.values().sum();
    println!("sv-ether: {n} records, {total} failing beyond the reference: {fails:?}");
    assert!(n > 9_000, "only {n} records on sv-ether");
    assert!(total <= 2, "schema failures on sv-ether: {fails:?}");
}

//! The repository's own parity cases (`tests/parity/cases/<name>/`): corpus-style
//! folders (`input.pcap`, `test.rules`, `expected.jsonl` written from Suricata 7.0.10's
//! EVE by `tests/parity/tools/expect.py`, `case.toml`), each one the minimized case of a
//! difference fixed in Osprey. Every folder is run as the corpus README says (case folder
//! as working directory, `-k none`, the stock configuration) and its alerts must equal
//! Suricata's as a multiset on (signature_id, src_ip, src_port, dest_ip, dest_port,
//! proto, pcap_cnt). Where Suricata is installed, a second test reruns it on every case
//! and checks that `expected.jsonl` is still what it writes.

mod common;

use common::repo;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

type Key = (
    u64,
    String,
    Option<u64>,
    String,
    Option<u64>,
    String,
    Option<u64>,
);

fn key(o: &Value) -> Key {
    let sid = o["alert"]["signature_id"]
        .as_u64()
        .or_else(|| o["signature_id"].as_u64())
        .unwrap_or(0);
    let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
    (
        sid,
        s("src_ip"),
        o["src_port"].as_u64(),
        s("dest_ip"),
        o["dest_port"].as_u64(),
        s("proto").to_uppercase(),
        o["pcap_cnt"].as_u64(),
    )
}

/// The alerts of an EVE file (`eve`: only `alert` records) or of an `expected.jsonl`.
fn load(path: &Path, eve: bool) -> BTreeMap<Key, usize> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} readable: {e}", path.display()));
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let o: Value = serde_json::from_str(line).expect("a JSON line");
        if eve && o["event_type"] != "alert" {
            continue;
        }
        *m.entry(key(&o)).or_default() += 1;
    }
    m
}

/// The case folders, in name order.
fn cases() -> Vec<PathBuf> {
    let root = repo("tests/parity/cases");
    let mut v: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/parity/cases readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    v.sort();
    v
}

/// What differs between `want` and `got`: up to 10 keys each way, as text.
fn diff(want: &BTreeMap<Key, usize>, got: &BTreeMap<Key, usize>) -> Option<String> {
    let only = |a: &BTreeMap<Key, usize>, b: &BTreeMap<Key, usize>| -> Vec<String> {
        a.iter()
            .filter(|(k, n)| **n > *b.get(*k).unwrap_or(&0))
            .map(|(k, n)| format!("sid {} pcap_cnt {:?} x{n}", k.0, k.6))
            .collect()
    };
    let (missing, extra) = (only(want, got), only(got, want));
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    Some(format!(
        "{} missing {:?}, {} extra {:?}",
        missing.len(),
        &missing[..missing.len().min(10)],
        extra.len(),
        &extra[..extra.len().min(10)]
    ))
}

#[test]
fn every_case_alerts_as_suricata() {
    let cases = cases();
    assert!(!cases.is_empty(), "no case under tests/parity/cases");
    let out_root = common::tempdir("parity_cases");
    let mut failed = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = out_root.join(&name);
        std::fs::create_dir_all(&out).unwrap();
        let r = Command::new(env!("CARGO_BIN_EXE_osprey"))
            .current_dir(dir)
            .args(["-r", "input.pcap", "-S", "test.rules", "-k", "none", "-l"])
            .arg(&out)
            .output()
            .expect("osprey runs");
        assert!(
            r.status.success(),
            "{name}: osprey failed: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let want = load(&dir.join("expected.jsonl"), false);
        let got = load(&out.join("eve.json"), true);
        match diff(&want, &got) {
            None => println!("ok {name}: {} alerts", want.values().sum::<usize>()),
            Some(d) => {
                println!("FAIL {name}: {d}");
                failed.push(name);
            }
        }
    }
    assert!(failed.is_empty(), "cases that differ: {failed:?}");
}

#[test]
fn expected_alerts_are_suricatas() {
    if common::suricata().is_none() {
        return;
    }
    let yaml = Path::new("/etc/suricata/suricata.yaml");
    if !yaml.exists() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
        }
        eprintln!("skipped: /etc/suricata/suricata.yaml not found");
        return;
    }
    let out_root = common::tempdir("parity_cases_suricata");
    for dir in cases() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = out_root.join(&name);
        common::suricata_rules_eve(yaml, &dir.join("input.pcap"), &dir.join("test.rules"), &out);
        let want = load(&dir.join("expected.jsonl"), false);
        let got = load(&out.join("eve.json"), true);
        assert_eq!(diff(&want, &got), None, "{name}: Suricata's alerts changed");
    }
}

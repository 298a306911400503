//! Osprey's own parity cases: every folder under `tests/parity/cases/` is a
//! corpus-style case (`input.pcap`, `test.rules`, `case.toml`, `expected.jsonl`: the
//! alerts Suricata 7.0.10 logged, made by `tests/parity/cases/make_expected.sh`), run
//! as `../shared/tools/parity.py` runs a corpus case. Each must match exactly: the
//! alerts as a multiset on (signature_id, src_ip, src_port, dest_ip, dest_port, proto,
//! pcap_cnt). The cases are minimized differences found against Suricata and fixed.

mod common;

use common::repo;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

type Key = (u64, String, u64, String, u64, String, Option<u64>);

fn alerts(path: &Path, eve: bool) -> BTreeMap<Key, usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let o: Value = serde_json::from_str(line).expect("JSON line");
        if eve && o["event_type"] != "alert" {
            continue;
        }
        let sid = o["alert"]["signature_id"]
            .as_u64()
            .or_else(|| o["signature_id"].as_u64())
            .unwrap_or(0);
        let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
        let n = |k: &str| o[k].as_u64().unwrap_or(0);
        let key = (
            sid,
            s("src_ip"),
            n("src_port"),
            s("dest_ip"),
            n("dest_port"),
            s("proto").to_uppercase(),
            o["pcap_cnt"].as_u64(),
        );
        *m.entry(key).or_default() += 1;
    }
    m
}

fn run_case(dir: &Path, out: &Path) -> Result<(), String> {
    let meta: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
        .map_err(|e| e.to_string())?
        .parse()
        .map_err(|e| format!("case.toml: {e}"))?;
    let test_args: Vec<String> = meta
        .get("test_args")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_osprey"));
    cmd.current_dir(dir)
        .args(["-r", "input.pcap", "-S", "test.rules", "-l"])
        .arg(out);
    if !test_args.iter().any(|a| a.starts_with("-k")) {
        cmd.args(["-k", "none"]);
    }
    if meta.get("simulate_ips").and_then(|v| v.as_bool()) == Some(true) {
        cmd.arg("--simulate-ips");
    }
    if dir.join("suricata.yaml").exists() {
        cmd.args(["-c", "suricata.yaml"]);
    }
    for a in &test_args {
        cmd.args(a.replace("${TEST_DIR}", ".").split_whitespace());
    }
    let r = cmd.output().map_err(|e| e.to_string())?;
    if !r.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            r.status.code(),
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    let want = alerts(&dir.join("expected.jsonl"), false);
    let got = alerts(&out.join("eve.json"), true);
    let diff = |a: &BTreeMap<Key, usize>, b: &BTreeMap<Key, usize>| -> Vec<String> {
        a.iter()
            .filter(|(k, n)| b.get(*k).unwrap_or(&0) < *n)
            .map(|(k, _)| format!("{k:?}"))
            .collect()
    };
    let (missing, extra) = (diff(&want, &got), diff(&got, &want));
    if missing.is_empty() && extra.is_empty() {
        Ok(())
    } else {
        Err(format!("missing {missing:?}, extra {extra:?}"))
    }
}

#[test]
fn every_parity_case_matches_suricata() {
    let root = repo("tests/parity/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/parity/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case under {}", root.display());
    let out_root = common::tempdir("parity-cases");
    let mut failed = Vec::new();
    for (i, dir) in cases.iter().enumerate() {
        let out = out_root.join(i.to_string());
        std::fs::create_dir_all(&out).unwrap();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        match run_case(dir, &out) {
            Ok(()) => println!("ok {name}"),
            Err(why) => failed.push(format!("{name}: {why}")),
        }
    }
    assert!(failed.is_empty(), "cases that differ: {failed:#?}");
}

//! The repository's own corpus-style cases (`tests/parity/cases/<name>/`): each folder
//! holds `input.pcap`, `test.rules`, `expected.jsonl` (the alerts Suricata 7.0.10 logged,
//! one object a line) and `case.toml` (how Suricata was run: `test_args`,
//! `simulate_ips`), as in `../shared/corpus/open`. Every case must give exactly
//! Suricata's alerts, compared as a multiset on (signature_id, src_ip, src_port,
//! dest_ip, dest_port, proto, pcap_cnt). The cases are minimized reproductions of
//! differences found and fixed (their `case.toml` says what each one checks);
//! `tests/parity/tools/` holds the scripts that built them.

mod common;

use common::repo;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
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

/// The alerts of a file as a multiset; `eve` keeps only `alert` records.
fn load(path: &Path, eve: bool) -> BTreeMap<Key, usize> {
    let mut m = BTreeMap::new();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let o: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}: bad JSON line: {e}", path.display()));
        if eve && o["event_type"] != "alert" {
            continue;
        }
        *m.entry(key(&o)).or_default() += 1;
    }
    m
}

/// Runs one case as `../shared/corpus/README.md` says; `Err` describes the difference.
fn run_case(dir: &Path, out: &Path) -> Result<(), String> {
    let meta: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
        .map_err(|e| format!("case.toml: {e}"))?
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
        .arg(out)
        .args(["-k", "none", "--runmode", "single"]);
    if meta.get("simulate_ips").and_then(|v| v.as_bool()) == Some(true)
        && !test_args.iter().any(|a| a == "--simulate-ips")
    {
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
    let expected = load(&dir.join("expected.jsonl"), false);
    let got = load(&out.join("eve.json"), true);
    if expected == got {
        return Ok(());
    }
    let diff = |a: &BTreeMap<Key, usize>, b: &BTreeMap<Key, usize>| -> Vec<String> {
        a.iter()
            .filter(|(k, n)| **n > *b.get(*k).unwrap_or(&0))
            .map(|((sid, _, sp, _, dp, _, cnt), _)| {
                format!("sid {sid} {sp:?}->{dp:?} pcap_cnt {cnt:?}")
            })
            .collect()
    };
    Err(format!(
        "missing {:?}, extra {:?}",
        diff(&expected, &got),
        diff(&got, &expected)
    ))
}

#[test]
fn own_cases_match_suricata() {
    let root = repo("tests/parity/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/parity/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    let out_root = common::tempdir("parity_cases");
    let mut failed = Vec::new();
    for (i, dir) in cases.iter().enumerate() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = out_root.join(i.to_string());
        std::fs::create_dir_all(&out).unwrap();
        match run_case(dir, &out) {
            Ok(()) => println!("ok   {name}"),
            Err(why) => {
                println!("FAIL {name}: {why}");
                failed.push(name);
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases differ from Suricata: {failed:?}",
        failed.len(),
        cases.len()
    );
}

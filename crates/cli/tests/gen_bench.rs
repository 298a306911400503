//! `osprey gen` writes traffic whose alerts it predicts, and `osprey bench engine --json`
//! replays it: the alert count the benchmark reports equals the predicted one.

mod common;

use std::process::Command;

fn osprey() -> Command {
    Command::new(env!("CARGO_BIN_EXE_osprey"))
}

#[test]
fn gen_then_bench_engine_json() {
    let dir = std::env::temp_dir().join(format!("osprey-gen-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("t.rules");
    std::fs::write(&rules, common::GEN_ATTACK_RULES).unwrap();
    let pcap = dir.join("out.pcap");
    let st = osprey()
        .args(["gen", "-o"])
        .arg(&pcap)
        .args(["--rules"])
        .arg(&rules)
        .args(["--packets", "3000", "--flows", "20", "--size", "imix"])
        .args(["--attack-fraction", "0.5", "--seed", "9"])
        .status()
        .unwrap();
    assert!(st.success());
    let expected = std::fs::read_to_string(dir.join("out.expected.jsonl")).unwrap();
    let n_expected = expected.lines().count();
    assert!(n_expected > 10, "{n_expected} expected alerts");
    for line in expected.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!([1000001, 1000002].contains(&v["signature_id"].as_u64().unwrap()));
        assert!(v["pcap_cnt"].as_u64().unwrap() > 0);
    }

    let out = osprey()
        .args(["bench", "engine", "--pcap"])
        .arg(&pcap)
        .args(["--rules"])
        .arg(&rules)
        .args(["--runs", "1", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["packets"].as_u64().unwrap() >= 3000);
    assert_eq!(v["alerts"].as_u64().unwrap() as usize, n_expected);
    assert!(v["wire_gbit_per_s"].as_f64().unwrap() > v["gbit_per_s"].as_f64().unwrap());
    assert_eq!(v["stages"].as_array().unwrap().len(), 5);
    assert!(v["latency"]["p99_us"].as_f64().unwrap() >= v["latency"]["p50_us"].as_f64().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

//! `bench/gpu/run.sh --dry` (issue 27, point 5): the device script's dry mode — tiny
//! sizes, the CPU executor — generates traffic, runs `osprey bench gpu` and the
//! end-to-end table, and every offloaded run raises the alerts of `--gpu off`.

mod common;

use common::tempdir;
use std::path::Path;
use std::process::Command;

#[test]
fn the_device_script_runs_dry_and_its_gpu_runs_equal_off() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skip: python3 not found (the script's tables are written with it)");
        return;
    }
    let out = tempdir("gpu-bench-script");
    let rules = out.join("r.rules");
    std::fs::write(
        &rules,
        concat!(
            "alert http any any -> any any (msg:\"ua\"; flow:established,to_server; content:\"Mozilla\"; http_user_agent; sid:1;)\n",
            "alert tcp any any -> any any (msg:\"get\"; flow:established,to_server; content:\"GET /\"; depth:5; sid:2;)\n",
            "alert tcp any any -> any any (msg:\"html\"; flow:established,to_client; content:\"<html\"; nocase; sid:3;)\n",
        ),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/gpu/run.sh");
    let r = Command::new("bash")
        .arg(&script)
        .arg("--dry")
        .env("OSPREY", env!("CARGO_BIN_EXE_osprey"))
        .env("RULES", &rules)
        .env("OUT", out.join("out"))
        .output()
        .expect("bash runs");
    let log = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{log}\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bench: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("out/bench-gpu.json")).unwrap()).unwrap();
    assert_eq!(bench["executor"]["kind"], "cpu-sim", "{bench}");
    assert!(bench["points"].as_array().unwrap().len() >= 8);
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(out.join("out/e2e.json")).unwrap()).unwrap();
    assert_eq!(
        rows.len(),
        6,
        "2 worker counts x off/auto/cpu-sim: {rows:?}"
    );
    for row in &rows {
        assert_eq!(row["rc"], 0, "{row}");
        assert_eq!(row["alerts_equal_off"], true, "{row}");
    }
    assert!(
        rows.iter().all(|r| r["alerts"].as_u64() > Some(0)),
        "{rows:?}"
    );
    let table = std::fs::read_to_string(out.join("out/e2e.md")).unwrap();
    assert!(table.contains("| 2 | cpu-sim |"), "{table}");
}

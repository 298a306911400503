//! Running one corpus-style case folder (`input.pcap` or `input.pcapng`, `test.rules`,
//! `expected.jsonl`, `case.toml`, maybe `suricata.yaml`) as `../shared/corpus/README.md`
//! says, and comparing Osprey's alerts with Suricata's as a multiset on (signature_id,
//! src_ip, src_port, dest_ip, dest_port, proto, pcap_cnt). Shared by the corpus parity
//! test and the repository's own cases.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// What two alerts must share to be the same alert.
pub type AlertKey = (
    u64,
    String,
    Option<u64>,
    String,
    Option<u64>,
    String,
    Option<u64>,
);

fn alert_key(o: &Value) -> AlertKey {
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

/// The alerts of a file as a multiset (`eve`: only its `alert` records; an unreadable
/// file or line counts as no alert).
pub fn alerts(path: &Path, eve: bool) -> BTreeMap<AlertKey, usize> {
    let mut m = BTreeMap::new();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(o) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if eve && o["event_type"] != "alert" {
            continue;
        }
        *m.entry(alert_key(&o)).or_default() += 1;
    }
    m
}

/// The case's `case.toml`.
#[allow(dead_code)]
pub fn meta(dir: &Path) -> Result<toml::Table, String> {
    std::fs::read_to_string(dir.join("case.toml"))
        .map_err(|e| format!("case.toml: {e}"))?
        .parse()
        .map_err(|e| format!("case.toml: {e}"))
}

/// Runs the case in `dir` (its folder as working directory, `-k none` unless its
/// arguments say otherwise, `--simulate-ips` and its own `suricata.yaml` when it has
/// them, then its `test_args`) logging into `out`; `Err` says how the alerts differ.
pub fn run(dir: &Path, out: &Path, meta: &toml::Table) -> Result<(), String> {
    let pcap = ["input.pcap", "input.pcapng"]
        .into_iter()
        .find(|p| dir.join(p).exists())
        .ok_or("no input pcap")?;
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
        .args(["-r", pcap, "-S", "test.rules", "-l"])
        .arg(out);
    if !test_args.iter().any(|a| a.starts_with("-k")) {
        cmd.args(["-k", "none"]);
    }
    if meta.get("simulate_ips").and_then(|v| v.as_bool()) == Some(true)
        && !test_args.iter().any(|a| a == "--simulate-ips")
    {
        cmd.arg("--simulate-ips");
    }
    if dir.join("suricata.yaml").exists() {
        cmd.args(["-c", "suricata.yaml"]);
    }
    for a in &test_args {
        let a = a
            .replace("${TEST_DIR}", ".")
            .replace("${OUTPUT_DIR}", &out.to_string_lossy());
        cmd.args(a.split_whitespace());
    }
    let r = cmd.output().map_err(|e| e.to_string())?;
    if !r.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            r.status.code(),
            String::from_utf8_lossy(&r.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let expected = alerts(&dir.join("expected.jsonl"), false);
    let got = alerts(&out.join("eve.json"), true);
    if expected == got {
        return Ok(());
    }
    let only = |a: &BTreeMap<AlertKey, usize>, b: &BTreeMap<AlertKey, usize>| {
        a.iter()
            .filter(|(k, n)| **n > *b.get(*k).unwrap_or(&0))
            .map(|((sid, _, sp, _, dp, _, cnt), _)| {
                format!("sid {sid} {sp:?}->{dp:?} pcap_cnt {cnt:?}")
            })
            .take(5)
            .collect::<Vec<_>>()
    };
    let count = |a: &BTreeMap<AlertKey, usize>, b: &BTreeMap<AlertKey, usize>| -> usize {
        a.iter()
            .map(|(k, n)| n.saturating_sub(*b.get(k).unwrap_or(&0)))
            .sum()
    };
    let (missing, extra) = (only(&expected, &got), only(&got, &expected));
    Err(format!(
        "missing={} extra={} expected={}: missing {:?}, extra {:?}",
        count(&expected, &got),
        count(&got, &expected),
        expected.values().sum::<usize>(),
        missing,
        extra
    ))
}

//! `replace` as Suricata 7.0.10 treats it offline: in IDS mode and with
//! `--simulate-ips` alike it warns "Can't use 'replace' keyword in non IPS mode" once per
//! `replace`, loads the rule and rewrites nothing (only its NFQ inline mode rewrites
//! packets; its AF_PACKET inline mode does not either, bench/RESULTS.md "The replace
//! keyword in IPS mode"). So the alerts' `payload`, `payload_printable` and `packet`
//! carry the original bytes, other rules on the same packet and later packets see the
//! original bytes, a rule looking for the replacement never alerts, and `ips.replaced`
//! stays 0. The capture (`data/replace.pcap`, written by `data/make-replace.py`): a TCP
//! session with two `hello`s, `abcdef` cut across segments, two segments sent before
//! their ACK, a plain retransmission and a reply, then two UDP datagrams; the rules
//! (`data/replace.rules`) replace in the packet payload and in the stream, twice in one
//! rule, with another length and without a content.
//!
//! Expected: Suricata 7.0.10's alerts on it in both modes (`data/replace.suricata.jsonl`,
//! reduced to mode, pcap_cnt, sid, stream, payload, payload_printable, packet), and a live
//! Suricata run compared against them when `suricata` is installed. The inline
//! payload is the acknowledged part of the inspected stream (the packet's payload when
//! none of it is): Osprey's `detection::acked_prefix`.

mod common;

use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert:\n            \
    payload: yes\n            payload-printable: yes\n            packet: yes\n            \
    metadata: no\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
    filename: eve-stats.json\n      types:\n        - stats:\n            totals: yes\n            \
    threads: no\n";

/// The modes compared and the arguments each adds.
const MODES: &[(&str, &[&str])] = &[("ids", &[]), ("ips", &["--simulate-ips"])];

/// The reduced alert records of an eve.json, in mode `mode`, sorted.
fn reduced(eve: &str, mode: &str) -> Vec<String> {
    let mut v: Vec<String> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event_type"] == "alert")
        .map(|e| {
            let mut o = serde_json::Map::new();
            o.insert("mode".into(), mode.into());
            o.insert("pcap_cnt".into(), e["pcap_cnt"].clone());
            o.insert("signature_id".into(), e["alert"]["signature_id"].clone());
            for k in ["stream", "payload", "payload_printable", "packet"] {
                if let Some(x) = e.get(k) {
                    o.insert(k.into(), x.clone());
                }
            }
            canonical(&Value::Object(o))
        })
        .collect();
    v.sort();
    v
}

/// A record as one string with its keys sorted.
fn canonical(v: &Value) -> String {
    let m: std::collections::BTreeMap<String, Value> = v
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect();
    serde_json::to_string(&m).unwrap()
}

/// Suricata's records saved from its run, for `mode`.
fn saved(mode: &str) -> Vec<String> {
    let text =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/replace.suricata.jsonl"))
            .unwrap();
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["mode"] == mode)
        .map(|e| canonical(&e))
        .collect();
    v.sort();
    v
}

/// The `ips.replaced` counter of the last stats record of an EVE stats file, if any.
fn replaced(stats: &str) -> Option<u64> {
    stats
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["stats"]["ips"]["replaced"].as_u64())
        .next_back()
}

fn data(name: &str) -> std::path::PathBuf {
    common::repo(&format!("crates/cli/tests/data/{name}"))
}

fn write_config(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let yaml = dir.join("replace.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    yaml
}

/// The saved expectation itself: no alert sees a rewritten byte, nothing looks for the
/// replacement and alerts, each mode has its alerts.
#[test]
fn saved_alerts_show_the_original_bytes() {
    for (mode, _) in MODES {
        let want = saved(mode);
        assert!(want.len() >= 13, "{mode}: {} alerts", want.len());
        for r in &want {
            let e: Value = serde_json::from_str(r).unwrap();
            let sid = e["signature_id"].as_u64().unwrap();
            assert!(
                sid != 3 && sid != 7,
                "{mode}: the replacement was seen: {r}"
            );
            let printable = e["payload_printable"].as_str().unwrap();
            assert!(
                !printable.contains("HOLA") && !printable.contains("ZZZ"),
                "{mode}: {r}"
            );
        }
    }
}

/// Osprey in both modes against Suricata's saved alerts: the same alerts on the same
/// packets with the same payloads and frames; the rules load with one warning per
/// `replace`; nothing is rewritten (`ips.replaced` 0 in IPS mode).
#[test]
fn osprey_rewrites_nothing_offline_as_suricata() {
    let dir = common::tempdir("replace-osprey");
    let yaml = write_config(&dir);
    for (mode, extra) in MODES {
        let out = dir.join(mode);
        let r = common::osprey_single_with(
            &yaml,
            &data("replace.rules"),
            &data("replace.pcap"),
            "none",
            &out,
            extra,
        );
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(r.status.success(), "{stderr}");
        assert_eq!(
            stderr
                .matches("Can't use 'replace' keyword in non IPS mode")
                .count(),
            7,
            "{mode}: one warning per replace\n{stderr}"
        );
        let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
        common::assert_same_records(&reduced(&eve, mode), &saved(mode));
        if *mode == "ips" {
            let stats = std::fs::read_to_string(out.join("eve-stats.json")).unwrap();
            assert_eq!(replaced(&stats), Some(0), "{stats}");
        }
    }
}

/// A live Suricata 7.0.10 run in both modes gives the saved alerts, warns once per
/// `replace`, and counts no replaced packet.
#[test]
fn saved_alerts_are_suricatas() {
    if common::suricata().is_none() {
        return;
    }
    let dir = common::tempdir("replace-suricata");
    let yaml = write_config(&dir);
    for (mode, extra) in MODES {
        let out = dir.join(mode);
        std::fs::create_dir_all(&out).unwrap();
        let ok = std::process::Command::new("suricata")
            .arg("-c")
            .arg(&yaml)
            .arg("-r")
            .arg(data("replace.pcap"))
            .arg("-S")
            .arg(data("replace.rules"))
            .args(["-k", "none", "--runmode", "single", "-l"])
            .arg(&out)
            .args(*extra)
            .output()
            .expect("run suricata");
        let log =
            String::from_utf8_lossy(&ok.stderr).into_owned() + &String::from_utf8_lossy(&ok.stdout);
        assert!(ok.status.success(), "{log}");
        assert_eq!(
            log.matches("Can't use 'replace' keyword in non IPS mode")
                .count(),
            7,
            "{mode}: {log}"
        );
        let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
        common::assert_same_records(&reduced(&eve, mode), &saved(mode));
        if *mode == "ips" {
            let stats = std::fs::read_to_string(out.join("eve-stats.json")).unwrap();
            assert_eq!(replaced(&stats), Some(0), "{stats}");
        }
    }
}

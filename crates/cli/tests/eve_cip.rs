//! `cip_service` on the CIP requests of an ENIP session (`data/ics/cip/`, written by
//! its `make_pcap.py`; ENIP turned on by its `suricata.yaml`): Get/Set_Attribute_Single
//! and _List, a 16-bit class segment, a Multiple Service Packet embedding two
//! requests. The alerts of `test.rules` are those Suricata 7.0.10 raised
//! (`expected.jsonl`, checked live when `suricata` is installed). `documented.rules`
//! holds where Osprey follows Suricata's documentation and Suricata 7.0.10 differs:
//! the request path's attribute segment (`cip_service:16,246,6`, the documented
//! example, never matches in Suricata) and numbers of three digits (Suricata reads
//! `14,200` as `14,20`).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::path::Path;

/// Each alert as (sid, pcap_cnt, tx_id), sorted.
fn alerts(lines: &str) -> Vec<(u64, u64, u64)> {
    let mut v: Vec<_> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["pcap_cnt"].as_u64().unwrap_or(0),
                r["tx_id"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn run(dir: &Path, rules: &Path) -> String {
    let case = repo("crates/cli/tests/data/ics/cip");
    let out = dir.join("osprey");
    std::fs::create_dir_all(&out).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let r = osprey(&[
        "-c",
        &s(&case.join("suricata.yaml")),
        "-S",
        &s(rules),
        "-r",
        &s(&case.join("input.pcap")),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        &s(&out),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

#[test]
fn cip_service_alerts_as_suricata() {
    let dir = tempdir("eve-cip");
    let case = repo("crates/cli/tests/data/ics/cip");
    let got = alerts(&run(&dir, &case.join("test.rules")));
    let want = alerts(&std::fs::read_to_string(case.join("expected.jsonl")).unwrap());
    assert_eq!(want.len(), 20);
    assert_eq!(got, want);

    if common::suricata().is_none() {
        return;
    }
    let out = dir.join("suricata");
    std::fs::create_dir_all(&out).unwrap();
    assert!(common::run_suricata(
        &case.join("suricata.yaml"),
        &case.join("input.pcap"),
        &case.join("test.rules"),
        &out,
    ));
    let live = std::fs::read_to_string(out.join("eve.json")).unwrap();
    assert_eq!(alerts(&live), want);
}

#[test]
fn cip_service_documented_semantics() {
    let dir = tempdir("eve-cip-doc");
    let rules = repo("crates/cli/tests/data/ics/cip/documented.rules");
    // Get_Attribute_Single 1/1/7 (tx 2), Set_Attribute_Single 246/1/6 (tx 4), the
    // class 200 request (tx 20), class 256 attribute 5 (tx 12).
    let want = vec![(101, 11, 2), (102, 15, 4), (103, 47, 20), (104, 31, 12)];
    assert_eq!(alerts(&run(&dir, &rules)), want);
}

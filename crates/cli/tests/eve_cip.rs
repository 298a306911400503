//! `cip_service` on the CIP requests of an ENIP session (`data/ics/cip/`, written by
//! its `make_pcap.py`; ENIP turned on by its `suricata.yaml`): Get/Set_Attribute_Single
//! and _List, a 16-bit class segment, a Multiple Service Packet embedding two
//! requests. The alerts of `test.rules` are those Suricata 7.0.10 raised
//! (`expected.jsonl`, checked live when `suricata` is installed). `documented.rules`
//! holds where Suricata 7.0.10 differs from its documentation, and Osprey follows
//! Suricata (the difftest `enip` family found the rules): the request path's attribute
//! segment never matches (`cip_service:16,246,6`, the documented example), and a
//! number is read from its first two digits (`14,200` is `14,20`).

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

/// Suricata 7.0.10's alerts with `rules` on the case, when it is installed.
fn suricata_alerts(dir: &Path, rules: &Path) -> Option<Vec<(u64, u64, u64)>> {
    common::suricata()?;
    let case = repo("crates/cli/tests/data/ics/cip");
    let out = dir.join("suricata");
    std::fs::create_dir_all(&out).unwrap();
    assert!(common::run_suricata(
        &case.join("suricata.yaml"),
        &case.join("input.pcap"),
        rules,
        &out,
    ));
    Some(alerts(
        &std::fs::read_to_string(out.join("eve.json")).unwrap(),
    ))
}

#[test]
fn cip_service_alerts_as_suricata() {
    let dir = tempdir("eve-cip");
    let case = repo("crates/cli/tests/data/ics/cip");
    let got = alerts(&run(&dir, &case.join("test.rules")));
    let want = alerts(&std::fs::read_to_string(case.join("expected.jsonl")).unwrap());
    assert_eq!(want.len(), 20);
    assert_eq!(got, want);

    if let Some(live) = suricata_alerts(&dir, &case.join("test.rules")) {
        assert_eq!(live, want);
    }
}

#[test]
fn cip_service_where_the_documentation_differs() {
    let dir = tempdir("eve-cip-doc");
    let case = repo("crates/cli/tests/data/ics/cip");
    let rules = case.join("documented.rules");
    // `14,200` matches as class 20 (the request to class 20, tx 18); the path's
    // attributes (sids 101, 102) and `14,256,5` (class 25) match nothing; `14,1,1`
    // matches the Get_Attribute_Single requests to class 1 with an 8-bit attribute
    // segment (its attribute compares with the class: tx 2 and 16).
    let want = vec![(103, 43, 18), (105, 11, 2), (105, 39, 16)];
    assert_eq!(alerts(&run(&dir, &rules)), want);

    if let Some(live) = suricata_alerts(&dir, &rules) {
        assert_eq!(live, want);
    }
}

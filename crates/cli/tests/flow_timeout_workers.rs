//! Alerts raised when a flow ends without a packet of its own (flow timeout, end of the
//! capture: Suricata's pseudo-packets, no `pcap_cnt`) carry the same timestamp and
//! fields with 1 and 3 workers: the capture's clock they are stamped with is the time
//! of the frame being processed or of the reader's latest frame, never the latest time
//! a worker happens to have seen (sv-ether.pcap is a concatenation of captures whose
//! clocks jump back and forth: with that, 11 of its 19 such alerts differed between 1
//! and 2 workers). At the end of the capture it is the last packet's time, as Suricata
//! stamps them.

mod common;

use std::collections::BTreeSet;

/// The ET Open rules that raise flow-end alerts on sv-ether (Suricata 7.0.10 raises the
/// same 19 without `pcap_cnt`).
const SIDS: [&str; 10] = [
    "2002023", "2002024", "2002025", "2002026", "2007616", "2025066", "2025714", "2029022",
    "2030093", "2100366",
];

/// Every field of the alerts without `pcap_cnt` but the flow id, one line each.
fn flow_end_alerts(dir: &std::path::Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .filter(|v| v["event_type"] == "alert" && v.get("pcap_cnt").is_none())
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("flow_id");
            v.to_string()
        })
        .collect()
}

#[test]
fn flow_end_alerts_do_not_depend_on_the_worker_count() {
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let dir = common::tempdir("flow-timeout-workers");
    let Some(et) = common::et_open_rules(&dir) else {
        return;
    };
    let rules: String = std::fs::read_to_string(&et)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && SIDS.iter().any(|s| l.contains(&format!("sid:{s};"))))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        rules.lines().count(),
        SIDS.len(),
        "the rules are in ET Open"
    );
    let rules_path = dir.join("flow-end.rules");
    std::fs::write(&rules_path, rules).unwrap();
    let run = |threads: &str| {
        let log = common::run_with_threads(&dir, &pcap, &rules_path, threads);
        flow_end_alerts(&log)
    };
    let one = run("1");
    assert!(one.len() >= 15, "{} flow-end alerts", one.len());
    // The capture's last packet is at 2022-05-25T21:02:44.586675 (its latest time is
    // 2026-08-11): flows still open at the end are stamped with the former.
    let at_end = one
        .iter()
        .filter(|a| a.contains("\"timestamp\":\"2022-05-25T21:02:44.586675+0000\""))
        .count();
    assert!(
        at_end >= 1,
        "{at_end} alerts stamped with the last packet's time"
    );
    assert!(!one.iter().any(|a| a.contains("2026-08-11T23:20:29")));
    let three = run("3");
    let diff: Vec<_> = one.symmetric_difference(&three).collect();
    assert!(diff.is_empty(), "1 vs 3 workers: {diff:#?}");
}

//! `tag` end to end: rules with both tag scopes and every metric (tests/data/tag.rules)
//! over two captures; the alerts and the EVE `packet` records of the tagged packets
//! (`alert: tagged-packets: yes`) are the ones Suricata 7.0.10 writes: summaries saved
//! from its run (tests/data/tag.suricata.txt: capture, pcap_cnt, event type, sid,
//! source, the packet's base64 length and tail), and whole records compared with a live
//! run when `suricata` is installed. Without `tagged-packets` no packet is logged.

mod common;

use std::path::Path;

const CAPTURES: [&str; 2] = ["http-files", "lists-dns"];

fn config(tagged: bool) -> String {
    format!(
        "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
         filename: eve.json\n      types:\n        - alert:\n            tagged-packets: {}\n",
        if tagged { "yes" } else { "no" }
    )
}

/// The alert and packet records of `eve` (flow_id left out: its value is the
/// engine's own).
fn records(eve: &str) -> Vec<serde_json::Value> {
    eve.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert" || v["event_type"] == "packet")
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("flow_id");
            v
        })
        .collect()
}

/// One summary line per record, as in tag.suricata.txt.
fn summary(capture: &str, recs: &[serde_json::Value]) -> Vec<String> {
    recs.iter()
        .map(|v| {
            let p = v["packet"].as_str().unwrap_or("");
            format!(
                "{capture} {} {} {} {} {} {} {}",
                v["pcap_cnt"].as_u64().unwrap_or(0),
                v["event_type"].as_str().unwrap(),
                v["alert"]["signature_id"].as_u64().unwrap_or(0),
                v["src_ip"].as_str().unwrap(),
                v["src_port"].as_u64().unwrap_or(0),
                p.len(),
                if p.is_empty() {
                    "-"
                } else {
                    &p[p.len().saturating_sub(12)..]
                },
            )
        })
        .collect()
}

fn run(dir: &Path, tagged: bool, capture: &str) -> String {
    let yaml = dir.join(format!("tag-{tagged}.yaml"));
    std::fs::write(&yaml, config(tagged)).unwrap();
    let rules = common::repo("crates/cli/tests/data/tag.rules");
    let pcap = common::repo(&format!("crates/cli/tests/data/{capture}.pcap"));
    let out = dir.join(format!("osprey-{tagged}-{capture}"));
    let r = common::osprey_single(&yaml, &rules, &pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

#[test]
fn tagged_packets_as_suricata_logs_them() {
    let dir = common::tempdir("keywords-tag");
    let want =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/tag.suricata.txt")).unwrap();
    let want: Vec<String> = want.lines().map(str::to_owned).collect();
    let mut got = Vec::new();
    let mut osprey_recs = Vec::new();
    for c in CAPTURES {
        let recs = records(&run(&dir, true, c));
        got.extend(summary(c, &recs));
        osprey_recs.push(recs);
    }
    assert!(got.iter().filter(|l| l.contains(" packet ")).count() > 100);
    common::assert_same_records(&got, &want);

    // Off: the same alerts, no packet records.
    for c in CAPTURES {
        let recs = records(&run(&dir, false, c));
        assert!(recs.iter().all(|v| v["event_type"] == "alert"));
        let alerts = want
            .iter()
            .filter(|l| l.starts_with(c) && l.contains(" alert "));
        assert_eq!(recs.len(), alerts.count(), "{c}");
    }

    if common::suricata().is_none() {
        return;
    }
    let yaml = dir.join("suricata.yaml");
    std::fs::write(&yaml, config(true)).unwrap();
    let packets = |r: &[serde_json::Value]| -> Vec<String> {
        r.iter()
            .filter(|v| v["event_type"] == "packet")
            .map(|v| v.to_string())
            .collect()
    };
    for (c, ours) in CAPTURES.iter().zip(&osprey_recs) {
        let ours = packets(ours);
        // Suricata's host tags are also expired by its flow-manager thread, which races
        // the packets in a capture read this fast: a run now and then misses a tagged
        // packet of a host (1 to 2 in 12 runs on lists-dns on a loaded machine; the
        // saved summary is the usual outcome). Every record such a run writes must
        // still be ours, whole, and a run that disagrees more is retried: the test
        // fails only when three runs in a row do.
        let mut last = String::new();
        let agrees = (0..3).any(|attempt| {
            let eve = common::suricata_rules_eve(
                &yaml,
                &common::repo(&format!("crates/cli/tests/data/{c}.pcap")),
                &common::repo("crates/cli/tests/data/tag.rules"),
                &dir.join(format!("suricata-{c}-{attempt}")),
            );
            let theirs = packets(&records(&eve));
            let foreign: Vec<&String> = theirs.iter().filter(|r| !ours.contains(r)).collect();
            last = format!(
                "{c}, run {attempt}: Suricata {} packet records, Osprey {}; not Osprey's: {foreign:?}",
                theirs.len(),
                ours.len()
            );
            foreign.is_empty() && theirs.len() + 2 >= ours.len()
        });
        assert!(agrees, "{last}");
    }
}

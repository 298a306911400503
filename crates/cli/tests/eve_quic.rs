//! EVE `quic` records and `quic.*` alerts on a capture cut from sv-ether.pcap
//! (`data/quic.pcap`): seven flows, a ClientHello in one shuffled Initial packet
//! (Chrome), a v1 handshake over IPv6 (cloudflare-quic.com), a Google QUIC Q046 session,
//! a ClientHello spread over three Initial packets followed by 0-RTT, a GREASEd
//! ClientHello sent three times (Facebook), a Retry (the client starts again with new
//! keys) and a Google QUIC Q043 CHLO. The records are compared
//! with what Suricata 7.0.10 wrote for the same capture (`data/quic.suricata.jsonl`,
//! its `quic` records), and that file with a live Suricata run when `suricata` is
//! installed; the alerts of `data/quic.rules` with those Suricata raises.

mod common;

use common::{osprey_eve, repo, tempdir};
use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n        \
    - quic\n";

/// The compared part of each `quic` record, as JSON strings in file order.
fn quic_records(lines: &str) -> Vec<String> {
    lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "quic")
        .map(|r| {
            let mut keep = serde_json::Map::new();
            for f in ["timestamp", "event_type", "src_ip", "src_port", "dest_ip"] {
                keep.insert(f.into(), r[f].clone());
            }
            for f in ["dest_port", "proto", "quic"] {
                keep.insert(f.into(), r[f].clone());
            }
            Value::Object(keep).to_string()
        })
        .collect()
}

/// Each alert as (sid, source port, destination port, tx_id, has a `quic` object).
fn alerts(lines: &str) -> Vec<(u64, u64, u64, u64, bool)> {
    let mut v: Vec<_> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["tx_id"].as_u64().unwrap_or(u64::MAX),
                r.get("quic").is_some(),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn run_osprey(dir: &Path, pcap: &Path, rules: &Path) -> String {
    osprey_eve(dir, CONFIG, pcap, rules)
}

/// QUIC's app-layer counters in osprey's `stats.json`.
fn counters(dir: &Path) -> (u64, u64, u64) {
    let stats = common::stats(&dir.join("osprey"));
    let a = &stats["app_layer"];
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    (
        n(&a["flow"]["quic"]),
        n(&a["tx"]["quic"]),
        n(&a["error"]["quic"]["parser"]),
    )
}

#[test]
fn quic_records_and_alerts_are_suricatas() {
    let dir = tempdir("eve-quic");
    let pcap = repo("crates/cli/tests/data/quic.pcap");
    let rules = repo("crates/cli/tests/data/quic.rules");
    let eve = run_osprey(&dir, &pcap, &rules);
    let got = quic_records(&eve);
    let want_text =
        std::fs::read_to_string(repo("crates/cli/tests/data/quic.suricata.jsonl")).unwrap();
    let want = quic_records(&want_text);
    assert_eq!(want.len(), 32);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len());
    // As Suricata 7.0.10 counts them on this capture.
    assert_eq!(counters(&dir), (7, 32, 0));
    // The alerts Suricata 7.0.10 raises with data/quic.rules on this capture.
    let want_alerts = vec![
        (1, 50280, 443, 0, true),
        (2, 45514, 443, 2, true),
        (2, 60796, 443, 0, true),
        (3, 51989, 443, 0, true),
        (3, 51989, 443, 4, true),
        (3, 60796, 443, 0, true),
        (4, 443, 51989, 1, true),
        (4, 443, 51989, 2, true),
        (4, 443, 51989, 5, true),
        (4, 51989, 443, 0, true),
        (4, 51989, 443, 3, true),
        (4, 51989, 443, 4, true),
        (5, 51989, 443, 0, true),
        (6, 51989, 443, 0, true),
        (6, 51989, 443, 4, true),
    ];
    assert_eq!(alerts(&eve), want_alerts);

    if common::suricata().is_none() {
        return;
    }
    let live = common::suricata_rules_eve(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &dir.join("suricata"),
    );
    assert_eq!(quic_records(&live), want);
    assert_eq!(alerts(&live), want_alerts);
}

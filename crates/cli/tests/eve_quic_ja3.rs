//! `ja3.*`/`ja3s.*` on QUIC flows: Suricata registers the JA3 buffers for QUIC as for
//! TLS, so a `quic` rule reads the fingerprints of the ClientHello and ServerHello
//! carried in QUIC's CRYPTO frames. The alerts of `data/quic-ja3.rules` on
//! `data/quic.pcap` against those Suricata 7.0.10 raises (checked live when
//! `suricata` is installed).

mod common;

use common::{osprey_eve, repo, tempdir};
use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

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

#[test]
fn ja3_on_quic_alerts_as_suricata() {
    let dir = tempdir("eve-quic-ja3");
    let pcap = repo("crates/cli/tests/data/quic.pcap");
    let rules = repo("crates/cli/tests/data/quic-ja3.rules");
    let eve = osprey_eve(&dir, CONFIG, &pcap, &rules);
    // As Suricata 7.0.10 raises them (sid 16, a `tls` rule, matches no QUIC flow).
    let want = vec![
        (11, 49979, 443, 1, true),
        (11, 49979, 443, 4, true),
        (12, 45514, 443, 2, true),
        (12, 50280, 443, 0, true),
        (12, 51333, 443, 0, true),
        (13, 443, 49979, 7, true),
        (13, 443, 57917, 4, true),
        (14, 443, 45514, 7, true),
        (14, 443, 49979, 7, true),
        (14, 443, 50280, 2, true),
        (14, 443, 57917, 4, true),
        (15, 57917, 443, 0, true),
    ];
    assert_eq!(alerts(&eve), want);

    if common::suricata().is_none() {
        return;
    }
    let live = common::suricata_rules_eve(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &dir.join("suricata"),
    );
    assert_eq!(alerts(&live), want);
}

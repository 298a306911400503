//! `rfb.sectype` and `rfb.secresult` on the five RFB flows of `data/issue24c.pcap`
//! (cut from sv-ether.pcap) with `data/rfb-keywords.rules`, against the flows Suricata
//! 7.0.10 alerts on (checked live when `suricata` is installed). An alert is compared
//! as its rule and the flow's client port: which packet carries it is the detection
//! engine's business.
//!
//! On the flow whose server chose security type 30 (client port 46254), where Suricata
//! raises `rfb.unimplemented_security_type` and inspects the handshake no further,
//! `rfb.sectype` reads 0 there as in Suricata (`rfb.sectype:>1` does not match; found by
//! the differential harness's `rfb` family).

mod common;

use common::{osprey_eve, repo, tempdir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// Each alert as (sid, client port).
fn alerts(lines: &str) -> BTreeSet<(u64, u64)> {
    lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            let (s, d) = (
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
            );
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                if s == 5900 { d } else { s },
            )
        })
        .collect()
}

/// What Suricata 7.0.10 raises: VNC authentication (type 2) and its success on three
/// flows; no flow without authentication, none failed.
const SURICATA: &[(u64, u64)] = &[
    (1, 58048),
    (1, 58102),
    (1, 59018),
    (2, 58048),
    (2, 58102),
    (2, 59018),
    (4, 58048),
    (4, 58102),
    (4, 59018),
];

#[test]
fn rfb_keywords_alert_as_suricata() {
    let dir = tempdir("eve-rfb-keywords");
    let pcap = repo("crates/cli/tests/data/issue24c.pcap");
    let rules = repo("crates/cli/tests/data/rfb-keywords.rules");
    let got = alerts(&osprey_eve(&dir, CONFIG, &pcap, &rules));
    let want: BTreeSet<_> = SURICATA.iter().copied().collect();
    assert_eq!(got, want);

    if common::suricata().is_none() {
        return;
    }
    let out = dir.join("suricata");
    std::fs::create_dir_all(&out).unwrap();
    assert!(common::run_suricata(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &out,
    ));
    let live = std::fs::read_to_string(out.join("eve.json")).unwrap();
    assert_eq!(alerts(&live), SURICATA.iter().copied().collect());
}

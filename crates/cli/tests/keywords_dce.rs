//! `byte_test`, `byte_jump` and `byte_extract` with `dce` (the DCERPC call's byte
//! order), `isdataat` and `content` on `dce_stub_data`, over the DCERPC flows cut from
//! sv-ether.pcap (`tests/data/dcerpc.pcap`, little-endian calls) with the rules of
//! `tests/data/dce-bytes.rules`: the alerts (sid, pcap_cnt) are those Suricata 7.0.10
//! raises (hard-coded from its run, and compared with a live run when `suricata` is
//! installed). Rules reading the stub big endian do not match; `dce` in the payload
//! list reads big endian, as Suricata; `byte_math` with `dce` is refused, as Suricata.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

/// `sid -> sorted pcap_cnt` of Suricata 7.0.10's alerts.
const WANT: &[(u64, &[u64])] = &[
    (1, &[8, 35]),
    (7, &[6, 8, 14, 35, 97, 99]),
    (9, &[51]),
    (10, &[8, 35]),
    (11, &[51]),
    (
        12,
        &[
            0, 0, 0, 51, 81, 83, 85, 87, 89, 91, 93, 95, 98, 100, 102, 104, 106, 108, 110, 112,
            114, 116,
        ],
    ),
];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// `sid -> sorted pcap_cnt` of every alert in `dir/eve.json`.
fn alerts(dir: &Path) -> BTreeMap<u64, Vec<u64>> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut m: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
        if v["event_type"] == "alert" {
            let sid = v["alert"]["signature_id"].as_u64().unwrap();
            m.entry(sid)
                .or_default()
                .push(v["pcap_cnt"].as_u64().unwrap_or(0));
        }
    }
    m.values_mut().for_each(|v| v.sort_unstable());
    m
}

#[test]
fn dce_byte_options_alert_as_suricata() {
    let dir = common::tempdir("keywords-dce");
    let pcap = common::repo("crates/cli/tests/data/dcerpc.pcap");
    let rules = common::repo("crates/cli/tests/data/dce-bytes.rules");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let out = dir.join("osprey");
    let r = common::osprey_single(&yaml, &rules, &pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stderr = String::from_utf8_lossy(&r.stderr);
    for sid in [5, 6] {
        assert!(
            stderr.contains(&format!("(sid {sid}): byte_math: dce is refused")),
            "byte_math with dce (sid {sid}) is refused: {stderr}"
        );
    }
    let got = alerts(&out);
    let want: BTreeMap<u64, Vec<u64>> = WANT.iter().map(|(s, v)| (*s, v.to_vec())).collect();
    assert_eq!(got, want, "alerts differ from Suricata 7.0.10's");

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(got, alerts(&sdir), "alerts differ from a live Suricata run");
}

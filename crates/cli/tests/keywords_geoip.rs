//! `geoip` end to end: rules over tests/data/dcerpc.pcap with the small MaxMind DB
//! `crates/detect/tests/data/geoip-test.mmdb` (written by its generator script beside
//! it: 192.168.56.0/24 US, 192.168.10.0/24 CA, 10.10.0.0/16 GB, 172.16.0.0/12 DE) as
//! `geoip-database` raise the alerts Suricata 7.0.10 raises with the same database
//! (counts per sid hard-coded from its run, and compared alert for alert with a live
//! run when `suricata` is installed). Without a database the rules are skipped with
//! one warning.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

const RULES: &str = r#"alert ip any any -> any any (msg:"src US"; geoip:src,US; sid:1;)
alert ip any any -> any any (msg:"dst CA"; geoip:dst,CA; sid:2;)
alert ip any any -> any any (msg:"both US"; geoip:both,US; sid:3;)
alert ip any any -> any any (msg:"any DE or GB"; geoip:any,DE,GB; sid:4;)
alert ip any any -> any any (msg:"src not US"; geoip:src,!US; sid:5;)
alert ip any any -> any any (msg:"no side: any"; geoip:CA; sid:6;)
alert ip any any -> any any (msg:"both US or CA"; geoip:both,US,CA; sid:7;)
alert ip any any -> any any (msg:"dst not DE,US"; geoip:dst,!DE,US; sid:8;)
alert tcp any any -> any any (msg:"no geoip"; flags:S; sid:9;)
"#;

/// Alerts per sid as Suricata 7.0.10 raises them with the test database.
const WANT: &[(u64, usize)] = &[
    (1, 38),
    (2, 48),
    (3, 38),
    (4, 15),
    (5, 63),
    (6, 48),
    (7, 86),
    (8, 48),
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

fn run(dir: &Path, yaml: &Path, name: &str) -> (BTreeMap<u64, Vec<u64>>, String) {
    let out = dir.join(name);
    let pcap = common::repo("crates/cli/tests/data/dcerpc.pcap");
    let rules = dir.join("geoip.rules");
    let r = common::osprey_single(yaml, &rules, &pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    (
        alerts(&out),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

#[test]
fn geoip_alerts_as_suricata() {
    let dir = common::tempdir("keywords-geoip");
    std::fs::write(dir.join("geoip.rules"), RULES).unwrap();
    let db = common::repo("crates/detect/tests/data/geoip-test.mmdb");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, format!("{CONFIG}geoip-database: {}\n", db.display())).unwrap();
    let (got, _) = run(&dir, &yaml, "osprey");
    let counts: Vec<(u64, usize)> = got
        .iter()
        .filter(|(s, _)| **s != 9)
        .map(|(s, v)| (*s, v.len()))
        .collect();
    assert_eq!(counts, WANT.to_vec());

    // No database: the geoip rules are skipped with one warning, the others run.
    let bare = dir.join("bare.yaml");
    std::fs::write(&bare, CONFIG).unwrap();
    let (none, stderr) = run(&dir, &bare, "nodb");
    assert_eq!(none.keys().copied().collect::<Vec<_>>(), vec![9]);
    assert_eq!(none[&9], got[&9]);
    assert_eq!(
        stderr.matches("with geoip skipped").count(),
        1,
        "one warning: {stderr}"
    );
    assert!(stderr.contains("8 rule(s) with geoip skipped"), "{stderr}");
    assert!(!stderr.contains("`geoip`"), "no line per rule: {stderr}");

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(
        &yaml,
        &common::repo("crates/cli/tests/data/dcerpc.pcap"),
        &dir.join("geoip.rules"),
        &sdir
    ));
    assert_eq!(got, alerts(&sdir), "alerts differ from Suricata's");
}

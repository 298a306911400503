//! `metadata.flowints` in alerts: the flow's `flowint` variables, one object by name in
//! the order they were first set, after `metadata.flowbits` and before
//! `metadata.flowvars`/`pktvars`, with the values after the packet's rules ran, as
//! Suricata 7.0.10 logs them on tests/data/http-files.pcap with
//! tests/data/flowints.rules (`+` from unset, `=`, `-` that leaves an unset variable
//! unset, comparisons, beside flowbits, a flow variable and a packet variable). Its
//! alerts (pcap_cnt, sid, metadata) are saved in tests/data/flowints.suricata.txt and
//! compared with a live run when `suricata` is installed.

mod common;

fn lines(eve: &str) -> Vec<String> {
    let mut v: Vec<String> = eve
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert")
        .map(|v| {
            format!(
                "{} {} {}",
                v["pcap_cnt"].as_u64().unwrap_or(0),
                v["alert"]["signature_id"],
                v.get("metadata").cloned().unwrap_or(serde_json::json!({}))
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn flowints_are_logged_as_suricata() {
    let dir = common::tempdir("alert-flowints");
    let config = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
                  filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    let rules = common::repo("crates/cli/tests/data/flowints.rules");
    let got = lines(&common::osprey_eve(&dir, config, &pcap, &rules));
    let mut want: Vec<String> =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/flowints.suricata.txt"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
    want.sort();
    assert!(want
        .iter()
        .any(|l| l.contains(r#""flowbits":["fb1"],"flowints":{"#)));
    common::assert_same_records(&got, &want);

    if common::suricata().is_none() {
        return;
    }
    let yaml = dir.join("osprey.yaml");
    let eve = common::suricata_rules_eve(&yaml, &pcap, &rules, &dir.join("suricata"));
    common::assert_same_records(&got, &lines(&eve));
}

//! `flowvar` and `pktvar` end to end: pcre named captures (`flow_`/`pkt_` groups) and
//! the older `,flow:<name>` form store variables, `flowvar`/`pktvar` match them, and
//! alerts carry them in `metadata.flowvars`/`metadata.pktvars` as Suricata 7.0.10
//! does on tests/data/http-files.pcap (tests/data/vars.rules): its alerts (pcap_cnt,
//! sid, metadata) saved in tests/data/vars.suricata.txt, and compared with a live run
//! when `suricata` is installed. The rules cover a flow variable read on the packet that
//! captured it (not yet set), on later packets, in the same transaction, and packet
//! variables read by a rule listed before the one that sets them.

mod common;

fn lines(eve: &str) -> Vec<String> {
    eve.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert")
        .map(|v| {
            let mut md = v.get("metadata").cloned().unwrap_or(serde_json::json!({}));
            // Suricata also logs flowints; none of these rules use them.
            md.as_object_mut().unwrap().remove("flowints");
            format!(
                "{} {} {}",
                v["pcap_cnt"].as_u64().unwrap_or(0),
                v["alert"]["signature_id"],
                md
            )
        })
        .collect()
}

#[test]
fn variables_match_and_are_logged_as_suricata() {
    let dir = common::tempdir("keywords-vars");
    let config = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
                  filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    let rules = common::repo("crates/cli/tests/data/vars.rules");
    let got = lines(&common::osprey_eve(&dir, config, &pcap, &rules));
    let want: Vec<String> =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/vars.suricata.txt"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
    assert!(want.iter().any(|l| l.contains("pktvars")) && want.len() > 20);
    common::assert_same_records(&got, &want);

    if common::suricata().is_none() {
        return;
    }
    let yaml = dir.join("osprey.yaml");
    let eve = common::suricata_rules_eve(&yaml, &pcap, &rules, &dir.join("suricata"));
    common::assert_same_records(&got, &lines(&eve));
}

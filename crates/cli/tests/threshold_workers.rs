//! Thresholds tracked by source, destination or rule count the matches of every worker:
//! over sv-ether.pcap, rules with `threshold` (limit, threshold, both) and
//! `detection_filter` raise the same alerts with 1, 2 and 4 workers. Workers get flows
//! by address pair, so a source's matches are spread over workers; each counting alone
//! raised 278 / 300 / 311 alerts of the `limit by_src` rule below with 1 / 2 / 4.

mod common;

use std::collections::BTreeMap;

const RULES: &str = r#"alert tcp any any -> any any (msg:"syn limit by_src"; flags:S; threshold: type limit, track by_src, count 1, seconds 3600; sid:1;)
alert tcp any any -> any any (msg:"syn threshold by_dst"; flags:S; threshold: type threshold, track by_dst, count 5, seconds 60; sid:2;)
alert tcp any any -> any any (msg:"syn both by_rule"; flags:S; threshold: type both, track by_rule, count 20, seconds 60; sid:3;)
alert udp any any -> any 53 (msg:"dns detection_filter by_src"; detection_filter: track by_src, count 10, seconds 60; sid:4;)
alert icmp any any -> any any (msg:"icmp limit by_dst"; threshold: type limit, track by_dst, count 2, seconds 600; sid:5;)
alert tcp any any -> any any (msg:"syn limit by_both"; flags:S; threshold: type limit, track by_both, count 1, seconds 3600; sid:6;)
"#;

/// (sid, src, sport, dst, dport, pcap_cnt) of every alert, counted.
fn alerts(dir: &std::path::Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("json");
        if v["event_type"] != "alert" {
            continue;
        }
        let k = format!(
            "{} {} {} {} {} {}",
            v["alert"]["signature_id"],
            v["src_ip"],
            v["src_port"],
            v["dest_ip"],
            v["dest_port"],
            v["pcap_cnt"]
        );
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[test]
fn thresholds_count_across_workers() {
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let dir = common::tempdir("threshold-workers");
    let rules = dir.join("th.rules");
    std::fs::write(&rules, RULES).unwrap();
    let run = |threads: &str| {
        let log = common::run_with_threads(&dir, &pcap, &rules, threads);
        (alerts(&log), common::stats(&log))
    };
    let (one, one_stats) = run("1");
    let per_sid = |m: &BTreeMap<String, usize>, sid: &str| -> usize {
        m.iter()
            .filter(|(k, _)| k.split(' ').next() == Some(sid))
            .map(|(_, n)| n)
            .sum()
    };
    for sid in ["1", "2", "3", "4", "5", "6"] {
        assert!(per_sid(&one, sid) > 0, "sid {sid} raised nothing");
    }
    for threads in ["2", "4"] {
        let (many, stats) = run(threads);
        for sid in ["1", "2", "3", "4", "5", "6"] {
            assert_eq!(
                per_sid(&one, sid),
                per_sid(&many, sid),
                "sid {sid} with --threads {threads}"
            );
        }
        assert!(one == many, "alerts differ with --threads {threads}");
        for path in ["/detect/alert", "/detect/alerts_suppressed"] {
            assert_eq!(
                one_stats.pointer(path),
                stats.pointer(path),
                "{path} with --threads {threads}"
            );
        }
    }
}

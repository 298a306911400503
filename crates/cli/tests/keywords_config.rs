//! `config: logging disable, type tx|flow, scope tx|flow` and the `config` action end
//! to end, against what Suricata 7.0.10 does on the same captures: each capture is run
//! with the rules of tests/data/config-*.rules and with the same rules without their
//! `config` options (the `config` action read as `alert`); the records the `config`
//! options removed, and the alerts of the first run, must be Suricata's (saved in
//! tests/data/config-keyword.suricata.txt, and compared with a live run when `suricata`
//! is installed).
//!
//! What the captures show: a rule matched on a transaction keeps that transaction's
//! EVE record from being written (HTTP, TLS, DNS: the DNS answer too), for every
//! type/scope pair; alerts and `fileinfo` records stay; the `config` action alerts
//! nothing; a packet rule marks the flow's transaction 0 (the UDP DNS query it matched
//! when that is the flow's first, nothing when transaction 0 was logged already); a
//! rule with `config` is not IP-only (the packet rule without content alerts on each
//! query of its flow); TCP payload rules mark transaction 0 as well (the first HTTP
//! request of each flow they match before it is logged).

mod common;

use serde_json::Value;
use std::path::Path;

/// The EVE records of `eve` that `config` may remove (not `alert`, `flow`, `stats`),
/// one line each: type, ports and what tells the record apart. Not the packet it was
/// written on: which records `config` removes is compared here, and Osprey writes
/// some TLS records on a later packet than Suricata with or without `config`.
fn records(eve: &str) -> Vec<String> {
    let mut out: Vec<String> = eve
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter_map(|v| {
            let t = v["event_type"].as_str()?.to_owned();
            if matches!(t.as_str(), "alert" | "flow" | "stats") {
                return None;
            }
            let o = &v[t.as_str()];
            let s = |k: &str| o[k].as_str().unwrap_or("").to_owned();
            let detail = match t.as_str() {
                "dns" => format!("{} {}", s("rrname"), s("type")),
                "http" => s("url"),
                "tls" => s("sni"),
                "fileinfo" => format!("{} tx {}", s("filename"), o["tx_id"]),
                "anomaly" => format!("{} tx {}", s("event"), v["tx_id"]),
                _ => String::new(),
            };
            Some(format!("{t} {}:{} {detail}", v["src_port"], v["dest_port"]))
        })
        .collect();
    out.sort();
    out
}

/// A record's `pcap_cnt`, `end` without one (written when the flow ended).
fn packet(v: &Value) -> String {
    v["pcap_cnt"]
        .as_u64()
        .map_or_else(|| "end".to_owned(), |n| n.to_string())
}

/// `alert <sid> <packet>` for each alert of `eve`, in order (not its `tx_id`: Osprey
/// guesses the transaction of a stream match differently, with or without `config`).
fn alerts(eve: &str) -> Vec<String> {
    eve.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert")
        .map(|v| format!("alert {} {}", v["alert"]["signature_id"], packet(&v)))
        .collect()
}

/// What the `config` options did: the records of `plain` missing from `with_config`
/// (`removed ...`), those only `with_config` has (`added ...`), then its alerts.
fn effects(with_config: &str, plain: &str) -> Vec<String> {
    let mut left = records(with_config);
    let mut out = Vec::new();
    for r in records(plain) {
        match left.iter().position(|x| *x == r) {
            Some(i) => {
                left.remove(i);
            }
            None => out.push(format!("removed {r}")),
        }
    }
    out.extend(left.into_iter().map(|r| format!("added {r}")));
    out.extend(alerts(with_config));
    out
}

/// The rules of `text` without their `config` options, the `config` action as `alert`.
fn without_config(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut l = match line.strip_prefix("config ") {
            Some(rest) => format!("alert {rest}"),
            None => line.to_owned(),
        };
        while let Some(i) = l.find(" config:") {
            let end = l[i..].find(';').expect("config option ends with ';'");
            l.replace_range(i..i + end + 1, "");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The saved Suricata effects of the section `name` of the fixture.
fn saved(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(common::repo(
        "crates/cli/tests/data/config-keyword.suricata.txt",
    ))
    .unwrap();
    let mut lines = text.lines().skip_while(|l| *l != format!("== {name}"));
    assert!(lines.next().is_some(), "section {name} in the fixture");
    lines
        .take_while(|l| !l.starts_with("== "))
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Osprey's configuration: Suricata's defaults with an EVE log of the record types
/// the rules touch.
const CONFIG: &str = "%YAML 1.1
---
outputs:
  - eve-log:
      enabled: yes
      filetype: regular
      filename: eve.json
      types:
        - alert
        - http:
            extended: yes
        - dns
        - tls:
            extended: yes
        - http2
        - fileinfo
        - anomaly
";

/// Runs one capture both ways with Osprey and, when installed, with Suricata (the
/// stock suricata.yaml, which logs these types and more), and compares.
fn check(name: &str, pcap: &str, rules: &str) {
    let dir = common::tempdir(&format!("keywords-config-{name}"));
    let pcap = common::repo(pcap);
    let rules = common::repo(rules);
    let plain_rules = dir.join("plain.rules");
    std::fs::write(
        &plain_rules,
        without_config(&std::fs::read_to_string(&rules).unwrap()),
    )
    .unwrap();
    let run = |sub: &str, r: &Path| {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).unwrap();
        common::osprey_eve(&d, CONFIG, &pcap, r)
    };
    let got = effects(&run("config", &rules), &run("plain", &plain_rules));
    let want = saved(name);
    assert!(want.iter().any(|l| l.starts_with("removed ")));
    common::assert_same_records(&got, &want);

    if common::suricata().is_none() {
        return;
    }
    let yaml = Path::new("/etc/suricata/suricata.yaml");
    let live = |sub: &str, r: &Path| common::suricata_rules_eve(yaml, &pcap, r, &dir.join(sub));
    let suricata = |n: &str| {
        effects(
            &live(&format!("suricata-config{n}"), &rules),
            &live(&format!("suricata-plain{n}"), &plain_rules),
        )
    };
    let first = suricata("");
    if first != got {
        // Suricata 7.0.10 sometimes writes the HTTP records of keywords24.pcap's
        // upgraded flow twice: run it again, and believe it only when it agrees.
        let second = suricata("-again");
        if second != first {
            eprintln!("warning: skipped: two Suricata runs disagree ({name})");
            return;
        }
    }
    common::assert_same_records(&got, &first);
}

#[test]
fn config_keeps_http_and_tls_transactions_unlogged_as_suricata() {
    check(
        "keywords24",
        "crates/cli/tests/data/keywords24.pcap",
        "crates/cli/tests/data/config-http-tls.rules",
    );
}

#[test]
fn config_keeps_dns_queries_and_answers_unlogged_as_suricata() {
    check(
        "lists-dns",
        "crates/cli/tests/data/lists-dns.pcap",
        "crates/cli/tests/data/config-dns.rules",
    );
}

#[test]
fn config_in_tcp_payload_rules_marks_transaction_0_as_suricata() {
    check(
        "http-files",
        "crates/cli/tests/data/http-files.pcap",
        "crates/cli/tests/data/config-tcp.rules",
    );
}

#[test]
fn bad_config_values_are_rule_errors_with_their_place() {
    let dir = common::tempdir("keywords-config-errors");
    let rules = dir.join("bad.rules");
    std::fs::write(
        &rules,
        "alert dns any any -> any any (dns.query; content:\"a\"; config: logging disable; sid:1;)\n\
         alert dns any any -> any any (config: logging disable, type packet, scope tx; sid:2;)\n\
         alert dns any any -> any any (config: logging disable, type tx, scope tx; sid:3;)\n",
    )
    .unwrap();
    let out = common::osprey(&["rules", "check", rules.to_str().unwrap()]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let name = rules.to_str().unwrap();
    assert!(
        text.contains(&format!("{name}:1:")) && text.contains("config is rather picky"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{name}:2:")) && text.contains("only 'tx' and 'flow'"),
        "{text}"
    );
    assert!(!text.contains(&format!("{name}:3:")), "{text}");
}

//! EVE `ssh`, `krb5`, `snmp` and `dhcp` records on flows cut from sv-ether.pcap
//! (`data/issue24a.pcap`: five SSH sessions, one on port 443 and two the client never
//! spoke in; four Kerberos exchanges over TCP with an error and a weak reply; the
//! SNMP v1 trap, v2c and v3 flows; the DHCP flows), compared with what Suricata 7.0.10
//! writes for the same capture (`data/issue24a-suricata.jsonl`, and a live run when
//! `suricata` is installed): every record's type, flow, transaction id and object,
//! the app-layer anomalies, and the flow and transaction counters.

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - anomaly:\n            \
    enabled: yes\n            types:\n              applayer: yes\n        - ssh\n        \
    - krb5\n        - snmp\n        - dhcp:\n            enabled: yes\n            \
    extended: no\n";

/// The record types compared.
const TYPES: [&str; 5] = ["ssh", "krb5", "snmp", "dhcp", "anomaly"];

/// Each record of the compared types as one comparable line (timestamp, type, flow,
/// transaction id and object), sorted. A record written when its flow timed out (no
/// `pcap_cnt`) is compared without its timestamp: that is when the engine noticed the
/// timeout, which in this capture of flows from different years is not the flows'
/// business. A record written when its flow timed out (no
/// `pcap_cnt`) is compared without its timestamp: that is when the engine noticed the
/// timeout, which in this capture of flows from different years is not the flows'
/// business.
fn records(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| TYPES.iter().any(|t| r["event_type"] == *t))
        .map(|r| {
            let t = r["event_type"].as_str().unwrap_or_default();
            let ts = if r["pcap_cnt"].is_null() {
                Value::Null
            } else {
                r["timestamp"].clone()
            };
            format!(
                "{ts} {t} {}:{} -> {}:{} {} {}",
                r["src_ip"], r["src_port"], r["dest_ip"], r["dest_port"], r["tx_id"], r[t]
            )
        })
        .collect();
    v.sort();
    v
}

fn run_osprey(dir: &Path, pcap: &Path, yaml: &Path) -> Vec<String> {
    let out = osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        dir.to_str().unwrap(),
        "-S",
        "/dev/null",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    records(&std::fs::read_to_string(dir.join("eve.json")).unwrap())
}

#[test]
fn ssh_krb5_snmp_dhcp_records_are_suricatas() {
    let dir = tempdir("eve-issue24a");
    let pcap = repo("crates/cli/tests/data/issue24a.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let got = run_osprey(&dir, &pcap, &yaml);
    let want = records(
        &std::fs::read_to_string(repo("crates/cli/tests/data/issue24a-suricata.jsonl")).unwrap(),
    );
    let count = |t: &str| got.iter().filter(|l| l.contains(&format!(" {t} "))).count();
    assert_eq!(
        [count("ssh"), count("krb5"), count("snmp"), count("dhcp")],
        [5, 8, 31, 22]
    );
    assert_eq!(got, want);
    // Suricata's counters for the capture (not `app_layer.flow.ssh`: Suricata counts 4
    // of the 5 SSH sessions it logs, Osprey 5).
    let s = common::stats(&dir);
    let app = &s["app_layer"];
    let flows = ["krb5_tcp", "snmp", "dhcp"].map(|p| app["flow"][p].as_u64());
    assert_eq!(flows, [Some(4), Some(9), Some(8)]);
    let txs = ["krb5_tcp", "snmp", "dhcp"].map(|p| app["tx"][p].as_u64());
    assert_eq!(txs, [Some(8), Some(31), Some(30)]);
    assert_eq!(app["error"]["snmp"]["parser"], 5);

    if common::suricata().is_none() {
        return;
    }
    let syaml = dir.join("suricata.yaml");
    std::fs::write(&syaml, CONFIG).unwrap();
    let eve = common::suricata_eve(&syaml, &pcap, &dir.join("suricata"));
    let live = records(&eve);
    assert_eq!(got, live, "records differ from Suricata's");
}

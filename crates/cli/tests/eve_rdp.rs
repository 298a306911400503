//! `rdp` records against Suricata 7.0.10's: the RDP flow of sv-ether.pcap (in
//! `data/issue24c.pcap`, whose Suricata records are `data/issue24c.suricata.jsonl`) and
//! the four connections of `data/rdp/input.pcap` (written by `data/rdp/make_pcap.py`:
//! negotiation with TLS and the server certificate, a negotiation failure, RDP 10.7
//! client data with every optional field, a minimal RDP 4 client), whose records
//! Suricata wrote into `data/rdp/expected.jsonl`; that file is checked against a live
//! Suricata run when `suricata` is installed.

mod common;

use common::{assert_same_records, osprey_eve, repo, tempdir};
use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - rdp\n";

/// The `rdp` records of an EVE text, reduced to `fields` (and the `rdp` object), in
/// order of appearance within each flow (flows sorted by their client port).
fn reduce(lines: &str, fields: &[&str]) -> Vec<String> {
    let mut out: Vec<(u64, String)> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "rdp")
        .map(|r| {
            let mut keep = serde_json::Map::new();
            for f in fields.iter().chain(&["rdp"]) {
                if let Some(v) = r.get(*f) {
                    keep.insert((*f).into(), v.clone());
                }
            }
            let port = r["src_port"]
                .as_u64()
                .unwrap()
                .min(r["dest_port"].as_u64().unwrap());
            (port, Value::Object(keep).to_string())
        })
        .collect();
    out.sort_by_key(|(p, _)| *p);
    out.into_iter().map(|(_, r)| r).collect()
}

const ADDRS: &[&str] = &[
    "event_type",
    "src_ip",
    "src_port",
    "dest_ip",
    "dest_port",
    "proto",
];

#[test]
fn sv_ether_rdp_records_are_suricatas() {
    let dir = tempdir("eve-rdp-sv-ether");
    let pcap = repo("crates/cli/tests/data/issue24c.pcap");
    let got = reduce(
        &osprey_eve(&dir, CONFIG, &pcap, Path::new("/dev/null")),
        ADDRS,
    );
    let want_text =
        std::fs::read_to_string(repo("crates/cli/tests/data/issue24c.suricata.jsonl")).unwrap();
    let want = reduce(&want_text, ADDRS);
    assert_eq!(want.len(), 4);
    assert_same_records(&got, &want);
}

#[test]
fn rdp_negotiation_tls_and_client_data_are_suricatas() {
    let dir = tempdir("eve-rdp-cases");
    let pcap = repo("crates/cli/tests/data/rdp/input.pcap");
    let mut fields = ADDRS.to_vec();
    fields.push("pcap_cnt");
    let got = reduce(
        &osprey_eve(&dir, CONFIG, &pcap, Path::new("/dev/null")),
        &fields,
    );
    let want_text =
        std::fs::read_to_string(repo("crates/cli/tests/data/rdp/expected.jsonl")).unwrap();
    let want = reduce(&want_text, &fields);
    assert_eq!(want.len(), 13);
    assert_same_records(&got, &want);

    if common::suricata().is_none() {
        return;
    }
    let live = common::suricata_eve(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &dir.join("suricata"),
    );
    assert_same_records(&reduce(&live, &fields), &want);
}

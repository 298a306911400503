//! EVE records of the protocols of issue 24 (part c: IKE) on a capture cut from
//! sv-ether.pcap (`data/issue24c.pcap`: the IKEv1 flow, two BitTorrent DHT flows, the
//! RDP flow and five RFB flows, each TCP flow cut to its first 40 packets). The
//! records of the protocols Osprey parses and their app-layer anomalies are compared
//! with what Suricata 7.0.10 wrote for the same capture
//! (`data/issue24c.suricata.jsonl`, its records reduced to the fields compared here),
//! and that file with a live Suricata run when `suricata` is installed.

mod common;

use common::{assert_same_records, osprey_eve, repo, tempdir};
use serde_json::Value;
use std::path::Path;

/// The EVE types compared (and the `app_proto` of their anomalies).
const TYPES: &[(&str, &str)] = &[
    ("ike", "ike"),
    ("bittorrent_dht", "bittorrent-dht"),
    ("rfb", "rfb"),
];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - anomaly:\n            \
    enabled: yes\n            types:\n              applayer: yes\n        - ike\n        - bittorrent-dht\n        - rfb\n";

/// The compared part of each record of [`TYPES`] and of their app-layer anomalies, as
/// sorted JSON strings (the order across flows depends on when flows end). Suricata
/// lists an IKE message's payload types in hash order: they are sorted.
fn reduce(lines: &str) -> Vec<String> {
    let mut out: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter_map(|mut r| {
            let t = r["event_type"].as_str()?.to_string();
            let mut keep = serde_json::Map::new();
            let mut fields = vec!["event_type", "src_ip", "src_port", "dest_ip", "dest_port"];
            fields.push("proto");
            if let Some((name, _)) = TYPES.iter().find(|(n, _)| *n == t) {
                fields.push(name);
            } else if t == "anomaly"
                && r["anomaly"]["type"] == "applayer"
                && TYPES.iter().any(|(_, p)| r["anomaly"]["app_proto"] == *p)
            {
                fields.extend(["tx_id", "anomaly"]);
            } else {
                return None;
            }
            if let Some(Value::Array(p)) = r.pointer_mut("/ike/payload") {
                p.sort_by_key(|v| v.to_string());
            }
            for f in fields {
                if let Some(v) = r.get(f) {
                    keep.insert(f.into(), v.clone());
                }
            }
            Some(Value::Object(keep).to_string())
        })
        .collect();
    out.sort();
    out
}

fn run_osprey(dir: &Path, pcap: &Path) -> String {
    osprey_eve(dir, CONFIG, pcap, Path::new("/dev/null"))
}

#[test]
fn issue24c_records_are_suricatas() {
    let dir = tempdir("eve-issue24c");
    let pcap = repo("crates/cli/tests/data/issue24c.pcap");
    let got = reduce(&run_osprey(&dir, &pcap));
    let want_text =
        std::fs::read_to_string(repo("crates/cli/tests/data/issue24c.suricata.jsonl")).unwrap();
    let want = reduce(&want_text);
    let count = |v: &[String], t: &str| {
        v.iter()
            .filter(|r| r.contains(&format!("\"event_type\":\"{t}\"")))
            .count()
    };
    assert_eq!(
        (
            count(&want, "ike"),
            count(&want, "bittorrent_dht"),
            count(&want, "rfb"),
            count(&want, "anomaly")
        ),
        (10, 16, 5, 2)
    );
    assert_same_records(&got, &want);

    if common::suricata().is_none() {
        return;
    }
    let out = dir.join("suricata");
    std::fs::create_dir_all(&out).unwrap();
    let ok = common::run_suricata(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        Path::new("/dev/null"),
        &out,
    );
    assert!(ok, "suricata runs on the capture");
    let live = reduce(&std::fs::read_to_string(out.join("eve.json")).unwrap());
    assert_same_records(&live, &want);
}

/// The IKE keywords and buffers on the capture's IKE flow, through the real binary:
/// how many alerts each rule raises, as Suricata 7.0.10 raises them (checked live when
/// `suricata` is installed): each of its ten messages is a transaction inspected in
/// its own direction, with its own payloads (found by the differential harness's
/// `ike` family).
#[test]
fn ike_keywords_alert_on_the_capture() {
    let dir = tempdir("eve-issue24c-rules");
    let rules = dir.join("ike.rules");
    std::fs::write(
        &rules,
        "alert ike any any -> any any (ike.exchtype:2; sid:1;)\n\
         alert ike any any -> any any (ike.chosen_sa_attribute:alg_hash=2; sid:3;)\n\
         alert ike any any -> any any (ike.nonce_payload_length:20; sid:5;)\n\
         alert ike any any -> any any (ike.init_spi; content:\"e47a591fd057587f\"; sid:7;)\n\
         alert ike any any -> any any (ike.resp_spi; content:\"a00b8ef0902bb8ec\"; sid:8;)\n\
         alert ike any any -> any any (ike.vendor; content:\"4a131c81070358455c5728f20e95452f\"; sid:9;)\n\
         alert ike any any -> any any (ike.nonce_payload; content:\"|15 b6 88 42|\"; sid:10;)\n\
         alert ike any any -> any any (ike.key_exchange_payload; content:\"|35 04 d3 d2|\"; sid:11;)\n",
    )
    .unwrap();
    let yaml = dir.join("osprey.yaml");
    std::fs::write(
        &yaml,
        "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      filename: eve.json\n      types:\n        - alert\n",
    )
    .unwrap();
    let pcap = repo("crates/cli/tests/data/issue24c.pcap");
    let r = common::osprey_single(&yaml, &rules, &pcap, &dir);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let eve = std::fs::read_to_string(dir.join("eve.json")).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for l in eve.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        if let Some(sid) = v.pointer("/alert/signature_id").and_then(Value::as_u64) {
            *counts.entry(sid).or_insert(0) += 1;
        }
    }
    // Exchange type 2 in the seven main-mode messages; SHA in the responder's SA
    // answer; the two nonces of 20 bytes (each side's key exchange message), the
    // client's nonce and key exchange once; the initiator's SPI in its six messages,
    // the responder's in its four; the vendor ID in the initiator's two messages.
    let want = [
        (1, 7),
        (3, 1),
        (5, 2),
        (7, 6),
        (8, 4),
        (9, 2),
        (10, 1),
        (11, 1),
    ];
    assert_eq!(counts.into_iter().collect::<Vec<_>>(), want);

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
    let mut live = std::collections::BTreeMap::new();
    for l in std::fs::read_to_string(out.join("eve.json"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(l).unwrap();
        if let Some(sid) = v.pointer("/alert/signature_id").and_then(Value::as_u64) {
            *live.entry(sid).or_insert(0) += 1;
        }
    }
    assert_eq!(live.into_iter().collect::<Vec<_>>(), want);
}

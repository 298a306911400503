//! The TLS, MQTT, Kerberos and HTTP/2 keywords of issue 24 (`tls.version`,
//! `ssl_version`, `ssl_state`, the certificate keywords, `tls.random*`, `ja4.hash`,
//! `mqtt.*`, `krb5.ticket_encryption`, `http2.*`) run by `osprey` on flows cut from
//! sv-ether.pcap (`data/keywords24.pcap`: nine TLS sessions from SSL 3.1 to TLS 1.3
//! drafts and final, six MQTT 3.1/3.1.1/5 sessions, two Kerberos AS exchanges over TCP
//! with an RC4 and an AES ticket, five HTTP/2 connections) with the rules of
//! `data/keywords24.rules`, against what Suricata 7.0.10 alerts on the same capture
//! (`data/keywords24-suricata.jsonl`, and a live run when `suricata` is installed);
//! and the `sip.*` buffers (`data/keywords24-sip.rules`) on the SIP flows of
//! `data/issue24b.pcap` (`data/keywords24-sip-suricata.jsonl`).
//!
//! An alert is compared as its rule, its flow (endpoints in order) and its transaction:
//! which packet of the flow carries it is the detection engine's business.
//!
//! Left out of the rules, as known differences: `http2.window` on connection-level
//! WINDOW_UPDATE frames (Suricata opens an unlogged transaction for them, Osprey none),
//! `ssl_state:server_hello` seen from the client side of a TLS 1.3 session (Suricata
//! resets its handshake state when it parses the client's next data, which its stream
//! engine does later than Osprey's).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::collections::BTreeSet;

/// One alert: rule, endpoints in order, transaction id.
type Key = (u64, String, String, Option<u64>);

fn alerts(text: &str) -> BTreeSet<Key> {
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert" || r["event_type"].is_null())
        .map(|r| {
            let sid = r["sid"]
                .as_u64()
                .or_else(|| r["alert"]["signature_id"].as_u64())
                .expect("a rule id");
            let a = format!("{}:{}", r["src_ip"], r["src_port"]);
            let b = format!("{}:{}", r["dest_ip"], r["dest_port"]);
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            (sid, a, b, r["tx_id"].as_u64())
        })
        .collect()
}

/// Runs `osprey` (its built-in configuration: Suricata's defaults) on `pcap` with
/// `rules` and compares its alerts with Suricata's stored ones (`reference`), then,
/// when `suricata` runs here, with a live run (stock suricata.yaml).
fn alerts_as_suricata(name: &str, pcap: &str, rules: &str, reference: &str, min_rules: usize) {
    let dir = tempdir(name);
    let pcap = repo(pcap);
    let rules = repo(rules);
    let out = osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        dir.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("0 failed, 0 unsupported"),
        "every rule loads: {stderr}"
    );
    let got = alerts(&std::fs::read_to_string(dir.join("eve.json")).unwrap());
    let want = alerts(&std::fs::read_to_string(repo(reference)).unwrap());
    let sids: BTreeSet<u64> = want.iter().map(|k| k.0).collect();
    assert!(sids.len() >= min_rules, "{sids:?}");
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "Suricata only: {missing:?}\nOsprey only: {extra:?}"
    );

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(
        std::path::Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &sdir
    ));
    let live = alerts(&std::fs::read_to_string(sdir.join("eve.json")).unwrap());
    assert_eq!(got, live, "alerts differ from Suricata's");
}

#[test]
fn tls_mqtt_krb5_http2_keywords_alert_as_suricata() {
    alerts_as_suricata(
        "eve-keywords24",
        "crates/cli/tests/data/keywords24.pcap",
        "crates/cli/tests/data/keywords24.rules",
        "crates/cli/tests/data/keywords24-suricata.jsonl",
        45,
    );
}

#[test]
fn sip_buffers_alert_as_suricata() {
    alerts_as_suricata(
        "eve-keywords24-sip",
        "crates/cli/tests/data/issue24b.pcap",
        "crates/cli/tests/data/keywords24-sip.rules",
        "crates/cli/tests/data/keywords24-sip-suricata.jsonl",
        7,
    );
}

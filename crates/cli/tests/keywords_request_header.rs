//! `http.request_header` / `http.response_header` (one instance per header, `name:
//! value`) and the `strip_pseudo_headers` transform with `data/request-header.rules`
//! over HTTP/2 (`data/keywords24.pcap`, cut from sv-ether.pcap) and HTTP/1
//! (`data/http-files.pcap`). The alerts are the ones Suricata 7.0.10 raised on the same
//! captures (hard-coded below, compared with a live run when `suricata` is installed;
//! required under `OSPREY_REQUIRE_SURICATA=1`). What they show:
//! - HTTP/1 headers are inspected (libhtp's merged headers, names in the case sent),
//!   HTTP/2 fields one each, pseudo-headers included; `strip_pseudo_headers` empties a
//!   pseudo-header's instance (sids 21-23) and drops those lines from `http.header`
//!   (sids 26, 27);
//! - each `http.request_header` keyword starts a list that may match another header
//!   (sid 6 matches, sid 7 does not);
//! - on HTTP/2 responses Suricata's fast-pattern matcher finds nothing: a rule whose
//!   fast pattern is an `http.response_header` content (sids 31, 35, 36) never
//!   matches there, while `pcre`, `bsize` and a fast pattern in another buffer (sids
//!   32-34, 37) do; HTTP/1 responses match either way.
//!
//! The same alert may be raised on a transaction at more than one packet (a general
//! HTTP/2 matter, not one of these buffers): each is compared once, as in
//! `eve_http2_header_name.rs`. `rules check` refuses what Suricata refuses.

mod common;

use common::{osprey_eve, repo, tempdir};
use serde_json::Value;
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// What Suricata 7.0.10 raised on keywords24.pcap (HTTP/2).
const HTTP2: &[(u64, u64, u64, u64)] = &[
    (21, 43326, 80, 3),
    (21, 49792, 80, 2),
    (21, 49792, 80, 3),
    (21, 49792, 80, 8),
    (21, 49792, 80, 9),
    (21, 50078, 80, 4),
    (21, 52770, 80, 3),
    (21, 56238, 443, 2),
    (21, 56238, 443, 8),
    (21, 56238, 443, 11),
    (23, 43326, 80, 3),
    (23, 49792, 80, 2),
    (23, 49792, 80, 3),
    (23, 49792, 80, 8),
    (23, 49792, 80, 9),
    (23, 50078, 80, 4),
    (23, 52770, 80, 3),
    (23, 56238, 443, 2),
    (23, 56238, 443, 3),
    (23, 56238, 443, 8),
    (23, 56238, 443, 11),
    (24, 56238, 443, 2),
    (24, 56238, 443, 3),
    (24, 56238, 443, 8),
    (24, 56238, 443, 11),
    (25, 43326, 80, 3),
    (25, 49792, 80, 2),
    (25, 49792, 80, 3),
    (25, 49792, 80, 8),
    (25, 49792, 80, 9),
    (25, 50078, 80, 4),
    (25, 52770, 80, 3),
    (25, 56238, 443, 2),
    (25, 56238, 443, 3),
    (25, 56238, 443, 8),
    (25, 56238, 443, 11),
    (27, 43326, 80, 3),
    (27, 49792, 80, 2),
    (27, 49792, 80, 3),
    (27, 49792, 80, 8),
    (27, 49792, 80, 9),
    (27, 50078, 80, 4),
    (27, 52770, 80, 3),
    (27, 56238, 443, 2),
    (27, 56238, 443, 3),
    (27, 56238, 443, 8),
    (27, 56238, 443, 11),
    (28, 43326, 80, 3),
    (28, 49792, 80, 2),
    (28, 49792, 80, 3),
    (28, 49792, 80, 8),
    (28, 49792, 80, 9),
    (28, 50078, 80, 4),
    (28, 52770, 80, 3),
    (28, 56238, 443, 2),
    (28, 56238, 443, 3),
    (28, 56238, 443, 8),
    (28, 56238, 443, 11),
    (29, 43326, 80, 3),
    (29, 49792, 80, 2),
    (29, 49792, 80, 3),
    (29, 49792, 80, 8),
    (29, 49792, 80, 9),
    (29, 50078, 80, 4),
    (29, 52770, 80, 3),
    (29, 56238, 443, 2),
    (29, 56238, 443, 3),
    (29, 56238, 443, 8),
    (29, 56238, 443, 11),
    (32, 80, 43326, 3),
    (32, 80, 49792, 2),
    (32, 80, 49792, 3),
    (32, 80, 49792, 8),
    (32, 80, 49792, 9),
    (32, 80, 50078, 4),
    (32, 80, 52770, 3),
    (32, 443, 56238, 2),
    (32, 443, 56238, 3),
    (32, 443, 56238, 8),
    (32, 443, 56238, 11),
    (33, 80, 43326, 3),
    (33, 80, 49792, 2),
    (33, 80, 49792, 3),
    (33, 80, 49792, 8),
    (33, 80, 49792, 9),
    (33, 80, 50078, 4),
    (33, 80, 52770, 3),
    (33, 443, 56238, 2),
    (33, 443, 56238, 3),
    (33, 443, 56238, 8),
    (33, 443, 56238, 11),
    (34, 80, 49792, 2),
    (34, 80, 49792, 3),
    (34, 80, 49792, 8),
    (34, 80, 49792, 9),
    (34, 443, 56238, 2),
    (34, 443, 56238, 3),
    (34, 443, 56238, 8),
    (34, 443, 56238, 11),
    (37, 80, 43326, 3),
    (37, 80, 49792, 2),
    (37, 80, 49792, 3),
    (37, 80, 49792, 8),
    (37, 80, 49792, 9),
    (37, 80, 50078, 4),
    (37, 80, 52770, 3),
    (37, 443, 56238, 2),
    (37, 443, 56238, 3),
    (37, 443, 56238, 8),
    (37, 443, 56238, 11),
];

/// What Suricata 7.0.10 raised on http-files.pcap (HTTP/1).
const HTTP1: &[(u64, u64, u64, u64)] = &[
    (1, 52316, 443, 0),
    (1, 52316, 443, 1),
    (1, 52316, 443, 2),
    (3, 443, 52316, 0),
    (3, 443, 52316, 1),
    (3, 443, 52316, 2),
    (4, 443, 52316, 0),
    (4, 443, 52316, 1),
    (6, 1580, 80, 0),
    (6, 12900, 80, 0),
    (6, 46063, 8100, 0),
    (6, 52316, 443, 0),
    (6, 52316, 443, 1),
    (6, 52316, 443, 2),
    (6, 54503, 80, 0),
    (9, 1580, 80, 0),
    (9, 12900, 80, 0),
    (10, 52316, 443, 0),
    (10, 52316, 443, 1),
    (10, 52316, 443, 2),
    (11, 80, 1580, 0),
    (11, 80, 12900, 0),
    (11, 80, 54503, 0),
    (11, 443, 52316, 0),
    (11, 443, 52316, 1),
    (11, 443, 52316, 2),
    (12, 80, 54503, 0),
    (32, 80, 1580, 0),
    (32, 80, 12900, 0),
    (32, 80, 54503, 0),
    (32, 443, 52316, 0),
    (32, 443, 52316, 1),
    (32, 443, 52316, 2),
    (33, 80, 1580, 0),
    (33, 80, 12900, 0),
    (33, 80, 54503, 0),
    (33, 443, 52316, 0),
    (33, 443, 52316, 1),
    (33, 443, 52316, 2),
    (33, 8100, 46063, 0),
    (36, 80, 1580, 0),
    (36, 80, 12900, 0),
    (36, 80, 54503, 0),
    (36, 443, 52316, 0),
    (36, 443, 52316, 1),
    (36, 443, 52316, 2),
    (38, 1580, 80, 0),
    (38, 12900, 80, 0),
    (38, 46063, 8100, 0),
    (38, 52316, 443, 0),
    (38, 52316, 443, 1),
    (38, 52316, 443, 2),
    (38, 54503, 80, 0),
];

/// Runs Osprey (and Suricata when installed) over `pcap` with the rules; both must
/// raise `want`.
fn check(name: &str, pcap: &str, want: &[(u64, u64, u64, u64)]) {
    let dir = tempdir(name);
    let pcap = repo(pcap);
    let rules = repo("crates/cli/tests/data/request-header.rules");
    let eve = osprey_eve(&dir, CONFIG, &pcap, &rules);
    assert_eq!(common::alert_txs(&eve), want);
    if common::suricata().is_none() {
        return;
    }
    let live = common::suricata_rules_eve(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &dir.join("suricata"),
    );
    assert_eq!(common::alert_txs(&live), want);
}

#[test]
fn http2_header_buffers_alert_as_suricata() {
    check(
        "request-header-h2",
        "crates/cli/tests/data/keywords24.pcap",
        HTTP2,
    );
}

#[test]
fn http1_header_buffers_alert_as_suricata() {
    check(
        "request-header-h1",
        "crates/cli/tests/data/http-files.pcap",
        HTTP1,
    );
}

/// The rules Suricata 7.0.10 refuses (`suricata -T`: "mixes keywords with conflicting
/// directions", "transforms must directly follow stickybuffers", "can't set rule app
/// proto to http2: already set to http") are refused, the ones it loads load.
#[test]
fn refused_where_suricata_refuses() {
    let dir = tempdir("request-header-check");
    let rules = dir.join("check.rules");
    let lines = [
        // Refused.
        r#"alert http any any -> any any (flow:to_server; http.response_header; content:"a"; sid:1;)"#,
        r#"alert http any any -> any any (flow:to_client; http.request_header; content:"a"; sid:2;)"#,
        r#"alert http any any -> any any (http.request_header; content:"a"; http.response_header; content:"b"; sid:3;)"#,
        r#"alert tcp any any -> any any (strip_pseudo_headers; content:"a"; sid:4;)"#,
        r#"alert http1 any any -> any any (http2.header_name; content:"a"; sid:5;)"#,
        // Loaded.
        r#"alert http1 any any -> any any (http.request_header; content:"a"; sid:6;)"#,
        r#"alert http any any -> any any (http.uri; strip_pseudo_headers; content:"a"; sid:7;)"#,
        r#"alert dns any any -> any any (dns.query; strip_pseudo_headers; content:"a"; sid:8;)"#,
        r#"alert http any any -> any any (http.response_header; strip_pseudo_headers; content:"a"; sid:9;)"#,
        r#"alert http any any -> any any (http2.header_name; content:"a"; http.stat_code; content:"2"; sid:10;)"#,
        r#"alert http any any -> any any (flow:to_client; http2.header_name; content:"a"; sid:11;)"#,
        r#"alert http any any -> any any (http.request_header; header_lowercase; content:"a"; sid:12;)"#,
    ];
    std::fs::write(&rules, lines.join("\n") + "\n").unwrap();
    let out = common::osprey(&["rules", "check", "--json", rules.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text).expect("rules check --json");
    // Parser errors carry file:line:column, detector refusals file:line.
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    assert!(
        diags.iter().all(|d| d["column"].as_u64().is_some()),
        "{text}"
    );
    let mut bad: Vec<u64> = diags
        .iter()
        .chain(v["detector"]["rules"].as_array().into_iter().flatten())
        .filter_map(|d| d["line"].as_u64())
        .collect();
    bad.sort_unstable();
    bad.dedup();
    assert_eq!(bad, [1, 2, 3, 4, 5], "{text}");
    if common::suricata().is_none() {
        return;
    }
    // Suricata refuses the same lines (one `-T` run per rule).
    for (i, l) in lines.iter().enumerate() {
        let one = dir.join(format!("one-{i}.rules"));
        std::fs::write(&one, format!("{l}\n")).unwrap();
        let ok = std::process::Command::new("suricata")
            .args(["-c", "/etc/suricata/suricata.yaml", "-T", "-l"])
            .arg(&dir)
            .arg("-S")
            .arg(&one)
            .output()
            .expect("suricata -T")
            .status
            .success();
        assert_eq!(ok, i >= 5, "suricata -T on: {l}");
    }
}

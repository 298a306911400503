//! HTTP request methods, hosts and URIs and TLS SNIs that Osprey logs (EVE `http` and
//! `tls` records, extended) on the corpus captures, against what tshark decodes from the
//! same captures (`fixtures/tshark-app.txt`, made by `fixtures/make-tshark-app.py`).
//! Per case the two multisets must be equal, except for the cases listed (with their
//! cause) in `tshark_app_known_differences.txt`; the test fails when a case outside the
//! list differs, and reports listed cases that now agree.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;

const FIXTURE: &str = include_str!("fixtures/tshark-app.txt");
const KNOWN: &str = include_str!("tshark_app_known_differences.txt");

/// A host as EVE's `hostname` writes it: lowercased, port and trailing dots removed.
fn norm_host(h: &str) -> String {
    let h = h.trim();
    let h = match h.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => h.split(':').next().unwrap_or(h),
    };
    h.trim_end_matches('.').to_ascii_lowercase()
}

fn ours(eve: &str) -> Vec<String> {
    let mut v: Vec<String> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| match r["event_type"].as_str()? {
            "http" => {
                let h = &r["http"];
                let s = |k: &str| h[k].as_str().unwrap_or("").to_string();
                // A response without a request has no method: tshark shows no request.
                (!s("http_method").is_empty())
                    .then(|| format!("http {} {} {}", s("http_method"), s("hostname"), s("url")))
            }
            "tls" => r["tls"]["sni"].as_str().map(|s| format!("tls {s}")),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn methods_hosts_uris_and_snis_match_tshark() {
    let Some(corpus) = common::shared("corpus/open") else {
        return;
    };
    let mut want: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for line in FIXTURE.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let rec = match f[1] {
            "http" => format!("http {} {} {}", f[2], norm_host(f[3]), f[4]),
            _ => format!("tls {}", f[2]),
        };
        want.entry(f[0]).or_default().push(rec);
    }
    let known: Vec<&str> = KNOWN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let dir = common::tempdir("tshark-app");
    let (mut same, mut unexpected, mut fixed) = (0, Vec::new(), Vec::new());
    for (case, recs) in &mut want {
        recs.sort();
        let pcap = corpus.join(case).join("input.pcap");
        let out = common::osprey(&[
            "-r",
            pcap.to_str().unwrap(),
            "-k",
            "none",
            "--eve-types",
            "http-extended,tls-extended",
            "-l",
            dir.to_str().unwrap(),
            "--no-progress",
        ]);
        assert!(out.status.success(), "{case}: osprey failed");
        let got = ours(&std::fs::read_to_string(dir.join("eve.json")).unwrap());
        let listed = known.contains(case);
        if got == *recs {
            same += 1;
            if listed {
                fixed.push(*case);
            }
        } else if !listed {
            unexpected.push(format!("{case}:\n  tshark {recs:?}\n  osprey {got:?}"));
        }
    }
    println!(
        "{same} of {} cases identical, {} listed differences",
        want.len(),
        known.len()
    );
    if !fixed.is_empty() {
        println!("listed but now identical: {fixed:?}");
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

#[test]
fn hosts_normalize_like_eve() {
    assert_eq!(norm_host("WWW.Example.com:8080"), "www.example.com");
    assert_eq!(norm_host("[::1]:80"), "::1");
    assert_eq!(norm_host("a.b."), "a.b");
}

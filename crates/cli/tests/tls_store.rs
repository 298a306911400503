//! `tls_store` and the `tls-store` output against Suricata 7.0.10: the alerts of the
//! rules of `data/tls-store/*/test.rules` and the `.pem`/`.meta` files written, byte
//! for byte, as Suricata wrote them (checked in beside the captures; compared with a
//! live Suricata run too when `suricata` is installed).
//!
//! - `main`: five TLS sessions cut from sv-ether. A match on a to-client packet before
//!   the certificate (sid 3, 4) has the chain written once Suricata's "handshake done"
//!   is reached; a match after it (sid 1) on the matching packet; a match on a
//!   to-server packet (sid 2, `tls.store`) stores nothing; a file name's microseconds
//!   are not zero-padded (`1647506358.4835-3`); files count from 1 across flows.
//! - `end`: a session cut before the client answers the certificate: the chain is
//!   written at flow end, its `.meta` without `PCAP PKT NUM`; the rule's header is
//!   `tcp` (`tls_store` makes it a TLS rule).

mod common;

use common::{repo, tempdir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The eve-log of alerts and the `tls-store` output into `certs/`.
const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n  \
    - tls-store:\n      enabled: yes\n      certs-log-dir: certs\n";

/// Each alert as (pcap_cnt, 0 for a pseudo-packet; sid; source port), in EVE order.
fn alerts(eve: &str) -> Vec<(u64, u64, u64)> {
    eve.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["pcap_cnt"].as_u64().unwrap_or(0),
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The `.pem`/`.meta` files of `dir`, by name, with their bytes.
fn stored(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("pem" | "meta")))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// A run's alerts (see [`alerts`]) and stored files (see [`stored`]).
type Run = (Vec<(u64, u64, u64)>, Vec<(String, Vec<u8>)>);

fn case(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let d = repo(&format!("crates/cli/tests/data/tls-store/{name}"));
    (d.join("input.pcap"), d.join("test.rules"), d)
}

/// Runs Osprey (UTC) on case `name`: its alerts and stored files.
fn osprey(name: &str) -> Run {
    let dir = tempdir(&format!("tls-store-{name}"));
    let (pcap, rules, _) = case(name);
    let eve = common::osprey_eve(&dir, CONFIG, &pcap, &rules);
    (alerts(&eve), stored(&dir.join("osprey/certs")))
}

/// Suricata 7.0.10 on case `name` with the stock configuration and the `tls-store`
/// output on (UTC); `None` without Suricata.
fn suricata(name: &str) -> Option<Run> {
    common::suricata()?;
    let out = tempdir(&format!("tls-store-{name}-suricata"));
    let (pcap, rules, _) = case(name);
    let st = std::process::Command::new("suricata")
        .env("TZ", "UTC")
        .args(["-c", "/etc/suricata/suricata.yaml"])
        .args(["--set", "outputs.4.tls-store.enabled=yes"])
        .args(["-k", "none", "--runmode", "single", "-r"])
        .arg(&pcap)
        .arg("-S")
        .arg(&rules)
        .arg("-l")
        .arg(&out)
        .output()
        .expect("suricata runs");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
    Some((alerts(&eve), stored(&out)))
}

#[test]
fn chains_are_stored_as_suricata_stores_them() {
    let (_, _, data) = case("main");
    let want_files = stored(&data);
    assert_eq!(
        want_files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        [
            "1425669142.423355-1.meta",
            "1425669142.423355-1.pem",
            "1647506357.963944-2.meta",
            "1647506357.963944-2.pem",
            "1647506358.4835-3.meta",
            "1647506358.4835-3.pem",
        ]
    );
    // As Suricata 7.0.10 raises them, sorted, less one: Suricata also raises sid 3 on
    // the SELKS session's end-of-flow pseudo-packet (when its flow manager times the
    // 2015 flow out, which varies from run to run); Osprey does not (the same with a
    // plain `alert tls` rule: not `tls_store`'s doing).
    let mut want = vec![
        (5, 3, 443),
        (6, 3, 443),
        (9, 3, 443),
        (11, 3, 443),
        (12, 3, 443),
        (38, 4, 443),
        (39, 1, 443),
        (42, 4, 443),
        (44, 4, 443),
        (46, 4, 443),
        (48, 4, 443),
        (49, 4, 443),
        (52, 4, 443),
        (64, 2, 60168),
        (0, 4, 443),
    ];
    want.sort_unstable();
    let (mut got, files) = osprey("main");
    got.sort_unstable();
    assert_eq!(got, want);
    assert!(files == want_files, "Osprey's files differ from Suricata's");

    if let Some((mut live, live_files)) = suricata("main") {
        live.sort_unstable();
        want.insert(0, (0, 3, 443));
        assert_eq!(live, want);
        assert!(live_files == want_files, "Suricata's own files differ");
    }
}

#[test]
fn a_chain_is_stored_at_flow_end() {
    let (_, _, data) = case("end");
    let want_files = stored(&data);
    assert_eq!(want_files.len(), 2);
    let meta = String::from_utf8_lossy(&want_files[0].1).into_owned();
    assert!(!meta.contains("PCAP PKT NUM"), "{meta}");
    let want = vec![
        (5, 5, 443),
        (6, 5, 443),
        (7, 5, 443),
        (9, 5, 443),
        (11, 5, 443),
        (0, 5, 443),
    ];
    let (got, files) = osprey("end");
    assert_eq!(got, want);
    assert!(files == want_files, "Osprey's files differ from Suricata's");
    if let Some((live, live_files)) = suricata("end") {
        assert_eq!(live, want);
        assert!(live_files == want_files, "Suricata's own files differ");
    }
}

#[test]
fn without_the_output_nothing_is_stored_and_the_rule_still_alerts() {
    let dir = tempdir("tls-store-off");
    let (pcap, rules, _) = case("end");
    let config = CONFIG.replace(
        "enabled: yes\n      certs-log-dir",
        "enabled: no\n      certs-log-dir",
    );
    let eve = common::osprey_eve(&dir, &config, &pcap, &rules);
    assert_eq!(alerts(&eve).len(), 6);
    assert!(!dir.join("osprey/certs").exists());
    assert!(stored(&dir.join("osprey")).is_empty());
}

#[test]
fn tls_store_takes_no_value_and_no_other_protocol() {
    let dir = tempdir("tls-store-check");
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "alert tls any any -> any any (tls_store; sid:1;)\n\
         alert tcp any any -> any any (tls.store; sid:2;)\n\
         alert tls any any -> any any (tls_store:foo; sid:3;)\n\
         alert http any any -> any any (tls_store; sid:4;)\n",
    )
    .unwrap();
    let out = common::osprey(&["rules", "check", "--json", rules.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json summary");
    let refused: Vec<u64> = v["detector"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(refused, [3, 4], "{v}");
}

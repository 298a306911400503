//! EVE `anomaly` records on flows cut from sv-ether.pcap where Osprey used to write
//! fewer than Suricata 7.0.10, compared with Suricata's records on the same bytes
//! (`data/*.suricata.jsonl`, written by Suricata with the stock config and no rules):
//!
//! - `smb-psexec-pipes.pcap`: a psexec session (192.168.202.115:3049 to
//!   192.168.24.100:445, vlan 120; frames 1-16, 1547-1550 and 1684-1749 of the flow,
//!   sequence numbers shifted over the frames left out). Its service pipe and the
//!   console's stdout pipe carry bytes that are not DCERPC: Suricata reports each read
//!   and write of them as SMB `malformed_data`. In the whole flow the console's later
//!   output comes past the 1 MiB `stream.reassembly.depth`: SMB follows its sessions
//!   to the end unless `app-layer.protocols.smb.stream-depth` says otherwise (checked
//!   here with a 4 KiB reassembly depth).
//! - `smtp-no-welcome.pcap`: a server whose welcome has no line end (it runs into the
//!   next reply, so the first reply answers the `EHLO`), and two sessions where the
//!   client only says `QUIT`: every client line before a welcome is
//!   `NO_SERVER_WELCOME_MESSAGE`. (Parser events only: Osprey raises the session's
//!   `APPLAYER_DETECT_PROTOCOL_ONLY_ONE_DIRECTION` on another packet.)
//! - `http-gzip-layers.pcap`: evader responses whose two content codings differ
//!   (`gzip, deflate` and `deflate, gzip`, as one header or two, the bytes in either
//!   order): libhtp undoes the codings as listed, and a layer that meets the other
//!   format reports its failed tries (four `GZIP_DECOMPRESSION_FAILED` a response,
//!   though the body decodes); the same coding twice reports none. And a request
//!   declared gzip whose body is JSON: libhtp decodes request bodies too.

mod common;

use common::{repo, tempdir};
use serde_json::Value;
use std::path::Path;

/// The anomaly records of `lines` as `pcap_cnt src -> dst app_proto event` strings
/// (the flow's direction on the packet, as Suricata logs it), sorted.
fn anomalies(lines: &str) -> Vec<String> {
    let mut v: Vec<String> = lines
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["event_type"] == "anomaly")
        .map(|r| {
            let a = &r["anomaly"];
            format!(
                "{} {}:{} -> {}:{} {} {} {}",
                r["pcap_cnt"],
                r["src_ip"].as_str().unwrap_or(""),
                r["src_port"],
                r["dest_ip"].as_str().unwrap_or(""),
                r["dest_port"],
                a["app_proto"].as_str().unwrap_or("-"),
                a["layer"].as_str().unwrap_or("-"),
                a["event"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    v.sort();
    v
}

/// Osprey's anomaly records on `pcap` (stock config, no rules, `extra` options).
fn run(name: &str, pcap: &str, extra: &[&str]) -> Vec<String> {
    let dir = tempdir(name);
    let pcap = repo(&format!("crates/cli/tests/data/{pcap}"));
    let r = common::osprey_single_with(
        Path::new("/etc/suricata/suricata.yaml"),
        Path::new("/dev/null"),
        &pcap,
        "none",
        &dir,
        extra,
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    anomalies(&std::fs::read_to_string(dir.join("eve.json")).unwrap())
}

fn reference(file: &str) -> Vec<String> {
    let p = repo(&format!("crates/cli/tests/data/{file}"));
    anomalies(&std::fs::read_to_string(p).unwrap())
}

/// The stock configuration (Debian's `suricata.yaml`), or `None` after saying why the
/// test is skipped (a failure under `OSPREY_REQUIRE_SURICATA=1`).
fn stock_yaml() -> Option<()> {
    if Path::new("/etc/suricata/suricata.yaml").exists() {
        return Some(());
    }
    if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
        panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
    }
    eprintln!("skipped: no /etc/suricata/suricata.yaml (Suricata's stock config)");
    None
}

#[test]
fn smb_pipe_bytes_that_are_not_dcerpc_are_malformed_data() {
    if stock_yaml().is_none() {
        return;
    }
    let want = reference("smb-psexec-pipes.suricata.jsonl");
    assert_eq!(want.len(), 10);
    assert!(want
        .iter()
        .all(|w| w.ends_with("smb proto_parser malformed_data")));
    common::assert_same_records(
        &run("anomaly-smb-pipes", "smb-psexec-pipes.pcap", &[]),
        &want,
    );
}

#[test]
fn smb_sessions_are_followed_past_the_reassembly_depth_unless_smb_sets_its_own() {
    if stock_yaml().is_none() {
        return;
    }
    let depth = ["--set", "stream.reassembly.depth=4kb"];
    let want = reference("smb-psexec-pipes.suricata.jsonl");
    common::assert_same_records(
        &run("anomaly-smb-depth", "smb-psexec-pipes.pcap", &depth),
        &want,
    );
    // Suricata with `app-layer.protocols.smb.stream-depth: 4kb` too: no SMB message
    // past the first 4 KiB of either direction is parsed, and none of those is
    // malformed.
    let both = [
        depth[0],
        depth[1],
        "--set",
        "app-layer.protocols.smb.stream-depth=4kb",
    ];
    let got = run("anomaly-smb-depth-own", "smb-psexec-pipes.pcap", &both);
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn smtp_client_lines_before_a_welcome_are_reported() {
    if stock_yaml().is_none() {
        return;
    }
    let parser = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .filter(|w| w.contains(" proto_parser "))
            .collect()
    };
    let want = parser(reference("smtp-no-welcome.suricata.jsonl"));
    let welcome = |v: &[String]| {
        v.iter()
            .filter(|w| w.ends_with("NO_SERVER_WELCOME_MESSAGE"))
            .count()
    };
    assert_eq!(welcome(&want), 22);
    assert_eq!(want.len(), 22);
    let got = parser(run("anomaly-smtp", "smtp-no-welcome.pcap", &[]));
    common::assert_same_records(&got, &want);
}

#[test]
fn http_codings_are_undone_as_listed_in_requests_too() {
    if stock_yaml().is_none() {
        return;
    }
    let want = reference("http-gzip-layers.suricata.jsonl");
    assert_eq!(want.len(), 20);
    assert!(want
        .iter()
        .all(|w| w.ends_with("GZIP_DECOMPRESSION_FAILED")));
    let got = run("anomaly-gzip", "http-gzip-layers.pcap", &[]);
    common::assert_same_records(&got, &want);
}

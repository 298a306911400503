//! Application-layer alert timing in IPS mode (`--simulate-ips`) as Suricata 7.0.10 gives
//! it, and the same capture in IDS mode. Inline, each packet's own data reaches the app
//! layer at arrival, and Suricata inspects a direction's transactions only on a packet
//! that updated that direction's app layer (its own data, or the end of the session: a
//! RST, the last ACK of the FIN handshake); a buffer's own progress rules then decide:
//! an HTTP/2 stream's `http.*` header buffers wait for its first DATA frame (or
//! END_STREAM), the client's `tls.random*` for the ServerHello, and `tls.version`/
//! `ssl_version` read a record header's version before the hello is in. The capture
//! (`data/ips-app-timing.pcap`, written by `data/make-ips-app-timing.py`) holds one
//! TCP session per case, the rules are `data/ips-app-timing.rules`.
//!
//! Expected: Suricata 7.0.10's alerts (mode, pcap_cnt, sid) in both modes
//! (`data/ips-app-timing.suricata.jsonl`), and a live Suricata run compared against them
//! when `suricata` is installed (bench/RESULTS.md "IPS mode: app-layer alert timing").

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The modes compared and the arguments each adds.
const MODES: &[(&str, &[&str])] = &[("ids", &[]), ("ips", &["--simulate-ips"])];

/// `(mode, pcap_cnt, sid)` of each alert record of `eve`, sorted.
fn reduced(eve: &str, mode: &str) -> Vec<String> {
    let mut v: Vec<String> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event_type"] == "alert")
        .map(|e| format!("{mode} {} {}", e["pcap_cnt"], e["alert"]["signature_id"]))
        .collect();
    v.sort();
    v
}

/// Suricata's alerts saved from its run, for `mode`.
fn saved(mode: &str) -> Vec<String> {
    let text = std::fs::read_to_string(common::repo(
        "crates/cli/tests/data/ips-app-timing.suricata.jsonl",
    ))
    .unwrap();
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["mode"] == mode)
        .map(|e| format!("{mode} {} {}", e["pcap_cnt"], e["signature_id"]))
        .collect();
    v.sort();
    v
}

/// Runs `program` (osprey or suricata) on the capture in `mode`, logging into `out`;
/// the text of its `eve.json`.
fn run(program: &Path, extra: &[&str], out: &Path) -> String {
    std::fs::create_dir_all(out).unwrap();
    let data = common::repo("crates/cli/tests/data");
    let st = Command::new(program)
        .args(["-c", "/etc/suricata/suricata.yaml"])
        .args(extra)
        .args(["-k", "none", "--runmode", "single", "-r"])
        .arg(data.join("ips-app-timing.pcap"))
        .arg("-S")
        .arg(data.join("ips-app-timing.rules"))
        .arg("-l")
        .arg(out)
        .output()
        .expect("run");
    assert!(
        st.status.success(),
        "{}: {}",
        program.display(),
        String::from_utf8_lossy(&st.stderr)
    );
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

#[test]
fn app_layer_alerts_land_on_suricatas_packets_in_both_modes() {
    if !Path::new("/etc/suricata/suricata.yaml").is_file() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
        }
        eprintln!("skipped: /etc/suricata/suricata.yaml not found (Suricata not installed)");
        return;
    }
    let dir = common::tempdir("ips-app-timing");
    let osprey = Path::new(env!("CARGO_BIN_EXE_osprey"));
    for &(mode, extra) in MODES {
        let want = saved(mode);
        assert!(want.len() > 20, "{mode}: {} saved alerts", want.len());
        let got = reduced(
            &run(osprey, extra, &dir.join(format!("osprey-{mode}"))),
            mode,
        );
        common::assert_same_records(&got, &want);
        if common::suricata().is_some() {
            let live = reduced(
                &run(
                    Path::new("suricata"),
                    extra,
                    &dir.join(format!("suricata-{mode}")),
                ),
                mode,
            );
            common::assert_same_records(&live, &want);
        }
    }
}

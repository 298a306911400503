//! `Content-Encoding: lzma` bodies as Suricata 7.0.10 (libhtp 0.5) undoes them, with
//! `lzma-enabled` on (`data/http-lzma/suricata.yaml`) and off (`--set`, Suricata's
//! default): the capture (`data/http-lzma/input.pcap`, written by its
//! `make_pcap.py`) holds good lzma-alone bodies with small and huge dictionaries, a
//! header announcing a wrong size, bodies cut in the header or the data, xz data and
//! bad property bytes, plain text, corrupt data after some output, junk after the end
//! marker, lzma in lists with gzip (the list's lzma-layer limit: `COMPRESSION_BOMB`),
//! the memory limit (`LZMA_MEMLIMIT_REACHED`), a 3 MiB compression bomb, and an lzma
//! request body. `expected-on.jsonl` / `expected-off.jsonl` are what Suricata 7.0.10
//! logged (alerts, anomalies, files, reduced fields), checked live when `suricata` is
//! installed.
//!
//! Compared: every alert with its packet (the `app-layer-event` rules' included: once
//! per transaction and direction, on the first packet of that direction after the
//! event, none to the server for a response body's event raised after the request was
//! inspected complete), the anomaly records with their packet, the files with their
//! size and state.

mod common;

use common::{osprey_single_with, repo, tempdir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// What is compared of a run's EVE records.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    /// (client port, pcap_cnt, sid), every record.
    alerts: Vec<(u64, u64, u64)>,
    /// (client port, pcap_cnt, event), every record.
    anomalies: Vec<(u64, u64, String)>,
    /// (client port, size, state).
    files: Vec<(u64, u64, String)>,
}

fn seen(lines: &str) -> Seen {
    let mut s = Seen::default();
    for r in lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
    {
        let (Some(sp), Some(dp)) = (r["src_port"].as_u64(), r["dest_port"].as_u64()) else {
            continue;
        };
        let port = if sp == 80 { dp } else { sp };
        let cnt = r["pcap_cnt"].as_u64().unwrap_or(0);
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        match r["event_type"].as_str() {
            Some("alert") => {
                let sid = r["alert"]["signature_id"]
                    .as_u64()
                    .or(r["signature_id"].as_u64());
                s.alerts.push((port, cnt, sid.expect("an alert's sid")));
            }
            Some("anomaly") => {
                let ev = r["anomaly"]["event"].as_str().map(str::to_owned);
                s.anomalies
                    .push((port, cnt, ev.unwrap_or_else(|| text(&r["event"]))));
            }
            Some("fileinfo") => {
                let (size, state) = match r.get("fileinfo") {
                    Some(f) => (f["size"].as_u64(), text(&f["state"])),
                    None => (r["size"].as_u64(), text(&r["state"])),
                };
                s.files.push((port, size.unwrap_or(0), state));
            }
            _ => {}
        }
    }
    s.alerts.sort();
    s.anomalies.sort();
    s.files.sort();
    s
}

impl Seen {
    /// Whether rule `sid` alerted on the flow of client port `port`.
    fn alerted(&self, port: u64, sid: u64) -> bool {
        self.alerts.iter().any(|a| a.0 == port && a.2 == sid)
    }

    /// The packets rule `sid` alerted on in the flow of client port `port`.
    fn alert_packets(&self, port: u64, sid: u64) -> Vec<u64> {
        self.alerts
            .iter()
            .filter(|a| a.0 == port && a.2 == sid)
            .map(|a| a.1)
            .collect()
    }
}

fn case() -> std::path::PathBuf {
    repo("crates/cli/tests/data/http-lzma")
}

/// `--set` turning lzma off, or nothing (the yaml turns it on).
fn sets(on: bool) -> Vec<&'static str> {
    if on {
        vec![]
    } else {
        vec![
            "--set",
            "app-layer.protocols.http.libhtp.default-config.lzma-enabled=no",
        ]
    }
}

fn run_osprey(dir: &Path, on: bool) -> Seen {
    let c = case();
    let out = dir.join(if on { "osprey-on" } else { "osprey-off" });
    let r = osprey_single_with(
        &c.join("suricata.yaml"),
        &c.join("test.rules"),
        &c.join("input.pcap"),
        "none",
        &out,
        &sets(on),
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    seen(&std::fs::read_to_string(out.join("eve.json")).unwrap())
}

fn run_suricata(dir: &Path, on: bool) -> Option<Seen> {
    common::suricata()?;
    let c = case();
    let out = dir.join(if on { "suricata-on" } else { "suricata-off" });
    std::fs::create_dir_all(&out).unwrap();
    let ok = std::process::Command::new("suricata")
        .arg("-c")
        .arg(c.join("suricata.yaml"))
        .arg("-r")
        .arg(c.join("input.pcap"))
        .arg("-S")
        .arg(c.join("test.rules"))
        .args(["-k", "none", "--runmode", "single", "-l"])
        .arg(&out)
        .args(sets(on))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "suricata runs on the lzma capture");
    Some(seen(
        &std::fs::read_to_string(out.join("eve.json")).unwrap(),
    ))
}

fn check(on: bool) {
    let dir = tempdir(if on { "http-lzma-on" } else { "http-lzma-off" });
    let name = if on {
        "expected-on.jsonl"
    } else {
        "expected-off.jsonl"
    };
    let want = seen(&std::fs::read_to_string(case().join(name)).unwrap());
    let got = run_osprey(&dir, on);
    assert_eq!(got, want, "Osprey against {name}");
    if let Some(live) = run_suricata(&dir, on) {
        assert_eq!(live, want, "{name} is what Suricata logs");
    }
}

#[test]
fn lzma_bodies_decoded_as_suricata() {
    check(true);
    // The decoded text reached the rules: the EICAR string in file_data and the
    // response body, in the request body too, and the events of the limits.
    let want = seen(&std::fs::read_to_string(case().join("expected-on.jsonl")).unwrap());
    assert!(want.alerted(41001, 1) && want.alerted(41001, 5));
    assert!(want.alerted(41023, 7));
    // The event rules' timing: a response body's event (raised on the client's ACK of
    // the body) alerts once, on the next packet to the client (the request side was
    // inspected complete before); an event of the response headers also alerts on the
    // first to-server packet after them.
    assert_eq!(want.alert_packets(41010, 9), [127]);
    assert_eq!(want.alert_packets(41021, 11), [313]);
    assert_eq!(want.alert_packets(41014, 10), [197, 198]);
    let events: BTreeSet<&str> = want.anomalies.iter().map(|a| a.2.as_str()).collect();
    for e in [
        "LZMA_MEMLIMIT_REACHED",
        "COMPRESSION_BOMB",
        "GZIP_DECOMPRESSION_FAILED",
    ] {
        assert!(events.contains(e), "{e}");
    }
}

#[test]
fn lzma_bodies_passed_through_by_default() {
    check(false);
    let want = seen(&std::fs::read_to_string(case().join("expected-off.jsonl")).unwrap());
    // The lzma-alone magic is what file_data sees; no decoding event but the list's.
    assert!(want.alerted(41001, 2) && !want.alerted(41001, 1));
    assert!(want
        .anomalies
        .iter()
        .all(|a| a.2 == "COMPRESSION_BOMB" || a.2 == "ABNORMAL_CE_HEADER"));
}

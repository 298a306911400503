//! The industrial protocols (off in Suricata's stock configuration, so sv-ether.pcap
//! has none) as corpus-style cases: each folder under `data/ics/` holds a capture
//! written by `data/ics/make_pcaps.py` (`input.pcap`), rules using the protocol's
//! keywords and events (`test.rules`), the configuration turning the protocol on
//! (`suricata.yaml`) and what Suricata 7.0.10 wrote with them (`expected.jsonl`).
//! Osprey runs the same way and must write the same alerts (signature and packet),
//! the same protocol records and the same app-layer anomalies; the expected file is
//! checked against a live Suricata run when `suricata` is installed. Cases: `modbus`
//! (function codes, an exception, a malformed request, an unsolicited response, the
//! `modbus` keyword), `enip` (encapsulation commands, `enip_command`) and `dnp3`
//! (`dnp3/make_pcap.py`: polls, controls, unsolicited responses, transport
//! reassembly, CRC errors, unknown objects; `dnp3_func`, `dnp3_ind`, `dnp3_obj`,
//! `dnp3.data`, the DNP3 events; no record over UDP, where Suricata 7 does not parse
//! DNP3).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The compared part of a run's EVE lines, sorted: `alert SID PCAP_CNT` for alerts,
/// the flow tuple and object of the protocol's (`event_type`) records, and the
/// app-layer anomalies with their transaction.
fn reduce(lines: &str, event_type: &str) -> Vec<String> {
    let mut out: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter_map(|r| {
            let t = r["event_type"].as_str()?;
            let tuple = format!(
                "{}:{} -> {}:{}",
                r["src_ip"], r["src_port"], r["dest_ip"], r["dest_port"]
            );
            match t {
                "alert" => Some(format!(
                    "alert {} {}",
                    r["alert"]["signature_id"], r["pcap_cnt"]
                )),
                "anomaly" if r["anomaly"]["type"] == "applayer" => Some(format!(
                    "anomaly {tuple} tx {} {}",
                    r["tx_id"], r["anomaly"]
                )),
                t if t == event_type => Some(format!("{t} {tuple} {}", r[t])),
                _ => None,
            }
        })
        .collect();
    out.sort();
    out
}

/// Runs osprey on a case with `yaml`; its `eve.json`.
fn run_osprey(case: &Path, yaml: &Path, out: &Path) -> String {
    std::fs::create_dir_all(out).unwrap();
    let arg = |p: PathBuf| p.to_str().unwrap().to_owned();
    let r = osprey(&[
        "-c",
        &arg(yaml.to_path_buf()),
        "-S",
        &arg(case.join("test.rules")),
        "-r",
        &arg(case.join("input.pcap")),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        &arg(out.to_path_buf()),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

/// Prints the lines only one side has, then fails if there are any.
fn assert_same(got: &[String], want: &[String]) {
    let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
    let extra: Vec<_> = got.iter().filter(|g| !want.contains(g)).collect();
    for m in &missing {
        eprintln!("missing: {}", &m[..m.len().min(800)]);
    }
    for e in &extra {
        eprintln!("extra:   {}", &e[..e.len().min(800)]);
    }
    assert_eq!(got, want);
}

/// One case: osprey against the expected output, that against a live Suricata, and
/// the protocol off without its `enabled: yes` (no record, no alert).
fn case(name: &str, event_type: &str, counts: (usize, usize, usize)) {
    let case = repo(&format!("crates/cli/tests/data/ics/{name}"));
    let dir = tempdir(&format!("eve-ics-{name}"));
    let yaml = case.join("suricata.yaml");
    let got = reduce(&run_osprey(&case, &yaml, &dir.join("osprey")), event_type);
    let want = reduce(
        &std::fs::read_to_string(case.join("expected.jsonl")).unwrap(),
        event_type,
    );
    let count = |p: &str| want.iter().filter(|l| l.starts_with(p)).count();
    assert_eq!(
        (
            count("alert "),
            count(&format!("{event_type} ")),
            count("anomaly ")
        ),
        counts
    );
    assert_same(&got, &want);

    // Off unless enabled, as in the stock configuration.
    let text = std::fs::read_to_string(&yaml).unwrap();
    let off = text.split("app-layer:").next().unwrap().to_owned();
    let off_yaml = dir.join("off.yaml");
    std::fs::write(&off_yaml, off).unwrap();
    let off = reduce(&run_osprey(&case, &off_yaml, &dir.join("off")), event_type);
    assert_eq!(off, Vec::<String>::new());

    if common::suricata().is_none() {
        return;
    }
    let out = dir.join("suricata");
    std::fs::create_dir_all(&out).unwrap();
    assert!(
        common::run_suricata(
            &yaml,
            &case.join("input.pcap"),
            &case.join("test.rules"),
            &out
        ),
        "suricata runs on the case"
    );
    let live = reduce(
        &std::fs::read_to_string(out.join("eve.json")).unwrap(),
        event_type,
    );
    assert_same(&live, &want);
}

#[test]
fn modbus_case_is_suricatas() {
    case("modbus", "modbus", (30, 9, 3));
}

#[test]
fn enip_case_is_suricatas() {
    // No `enip` records: Suricata 7 has no ENIP logger.
    case("enip", "enip", (14, 0, 0));
}

#[test]
fn dnp3_case_is_suricatas() {
    case("dnp3", "dnp3", (46, 25, 2));
}

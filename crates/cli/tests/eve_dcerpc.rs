//! EVE `dcerpc` records and the DCERPC counters on flows cut from sv-ether.pcap
//! (`tests/data/dcerpc.pcap`): endpoint-mapper binds and calls on TCP 135, calls on
//! dynamic ports (one with a 4.5 kB stub and an unanswered call, one with an
//! alter_context, one whose AUTH3 and one whose FAULT end the parsing, as in Suricata)
//! and a connectionless (UDP) flow. The records are compared with what Suricata 7.0.10
//! wrote for the same capture (`tests/data/dcerpc-suricata.jsonl`), and with a live
//! Suricata run when it is installed.

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - dcerpc\n        \
    - stats\n";

/// `(src_port, dest_port, proto, dcerpc)` of each `dcerpc` record, sorted (the order
/// records of different transactions are written in is not compared).
fn records(lines: &str) -> Vec<(u64, u64, String, String)> {
    let mut v: Vec<_> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON lines"))
        .filter(|r| r.get("event_type").is_none_or(|t| t == "dcerpc"))
        .map(|r| {
            (
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["proto"].as_str().unwrap().to_string(),
                // Key order is part of the format: compare the text.
                serde_json::to_string(&r["dcerpc"]).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The last stats record's `app_layer` counters for DCERPC.
fn counters(eve: &str) -> Vec<(String, u64)> {
    let last = eve
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["event_type"] == "stats")
        .expect("a stats record");
    let a = &last["stats"]["app_layer"];
    ["flow", "tx"]
        .iter()
        .flat_map(|k| ["dcerpc_tcp", "dcerpc_udp"].map(|p| (k.to_string(), p)))
        .map(|(k, p)| (format!("{k}.{p}"), a[&k][p].as_u64().unwrap_or(0)))
        .chain(std::iter::once((
            "error.dcerpc_tcp.parser".to_string(),
            a["error"]["dcerpc_tcp"]["parser"].as_u64().unwrap_or(0),
        )))
        .collect()
}

fn run(dir: &Path, cmd: &str, pcap: &Path, yaml: &Path) -> String {
    let out = dir.join(cmd);
    std::fs::create_dir_all(&out).unwrap();
    let args = [
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        "/dev/null",
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        out.to_str().unwrap(),
    ];
    let r = if cmd == "osprey" {
        osprey(&args)
    } else {
        Command::new(cmd).args(args).output().unwrap()
    };
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

#[test]
fn dcerpc_records_are_suricatas() {
    let dir = tempdir("eve-dcerpc");
    let pcap = repo("crates/cli/tests/data/dcerpc.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let eve = run(&dir, "osprey", &pcap, &yaml);
    let got = records(&eve);
    let want = records(
        &std::fs::read_to_string(repo("crates/cli/tests/data/dcerpc-suricata.jsonl")).unwrap(),
    );
    assert_eq!(want.len(), 36);
    assert_eq!(got, want);
    // Suricata's stats for the same capture.
    let c = |k: &str, v: u64| (k.to_string(), v);
    let want_counters = vec![
        c("flow.dcerpc_tcp", 6),
        c("flow.dcerpc_udp", 1),
        c("tx.dcerpc_tcp", 31),
        c("tx.dcerpc_udp", 5),
        c("error.dcerpc_tcp.parser", 2),
    ];
    assert_eq!(counters(&eve), want_counters);

    if common::suricata().is_none() {
        return;
    }
    let live = |n: u32| {
        let syaml = dir.join(format!("suricata{n}.yaml"));
        let sdir = dir.join(format!("suricata{n}"));
        std::fs::write(
            &syaml,
            format!("{CONFIG}\ndefault-log-dir: {}\n", sdir.display()),
        )
        .unwrap();
        run(&dir, "suricata", &pcap, &syaml)
    };
    let seve = live(1);
    if records(&seve) != got {
        // Suricata 7.0.10 is not stable on this capture: one CI rehearsal's run lost
        // the 59374 -> 49154 REQUEST_LOST record its saved run has. As the difftest
        // harness does, a second run decides; two runs that disagree are skipped.
        if records(&live(2)) != records(&seve) {
            eprintln!("skipped the live comparison: two Suricata runs disagree");
            return;
        }
    }
    assert_eq!(got, records(&seve), "dcerpc records differ from Suricata's");
    assert_eq!(counters(&eve), counters(&seve), "counters differ");
}

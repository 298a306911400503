//! NFS and TFTP records of the real `osprey` binary against Suricata 7.0.10's on the same
//! capture: `tests/data/nfs_tftp.pcap` is cut from sv-ether.pcap (an NFSv2 and an NFSv3
//! session over UDP with READs and WRITEs, two UDP flows holding only the NULL
//! procedure, an NFSv4.1 session over TCP with a WRITE, and the two TFTP requests);
//! `tests/data/nfs_tftp.suricata.jsonl` holds the `nfs` and `tftp` records Suricata
//! wrote for it (`suricata -c suricata.yaml -r nfs_tftp.pcap -k none --runmode single
//! -S /dev/null`, the stock configuration of the Debian package), reduced to their event
//! type, ports, protocol and `rpc`/`nfs`/`tftp` objects.

mod common;

use common::{osprey, tempdir};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - nfs\n        - tftp\n\
    app-layer:\n  protocols:\n    nfs:\n      enabled: yes\n    tftp:\n      enabled: yes\n";

fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(name)
}

/// Each record as `{event_type, client port, proto, rpc, nfs, tftp}`, sorted. Suricata
/// writes an answered call's record from the server to the client and Osprey from the
/// client to the server, so the client's port stands for both.
fn summary(lines: &str) -> Vec<String> {
    let mut v: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON lines"))
        .filter(|r| matches!(r["event_type"].as_str(), Some("nfs" | "tftp")))
        .map(|r| {
            let (s, d) = (&r["src_port"], &r["dest_port"]);
            let server = |p: &Value| matches!(p.as_u64(), Some(2049 | 69));
            let client = if server(s) { d } else { s };
            let mut o = Map::new();
            o.insert("event_type".into(), r["event_type"].clone());
            o.insert("client_port".into(), client.clone());
            o.insert("proto".into(), r["proto"].clone());
            for k in ["rpc", "nfs", "tftp"] {
                if let Some(x) = r.get(k) {
                    o.insert(k.into(), x.clone());
                }
            }
            Value::Object(o).to_string()
        })
        .collect();
    v.sort();
    v
}

fn run_osprey(dir: &Path, pcap: &Path, yaml: &Path) -> PathBuf {
    let out = dir.join("osprey");
    std::fs::create_dir_all(&out).unwrap();
    let r = osprey(&[
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
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

#[test]
fn nfs_and_tftp_records_are_suricatas() {
    let dir = tempdir("eve-nfs");
    let pcap = data("nfs_tftp.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let out = run_osprey(&dir, &pcap, &yaml);
    let got = summary(&std::fs::read_to_string(out.join("eve.json")).unwrap());
    let want = summary(&std::fs::read_to_string(data("nfs_tftp.suricata.jsonl")).unwrap());
    assert_eq!(want.len(), 105);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len());

    // Suricata's counters for the capture: the NULL-only UDP flows stay undetected.
    let stats = common::stats(&out);
    let app = &stats["app_layer"];
    for (k, v) in [
        ("nfs_udp", 2),
        ("nfs_tcp", 1),
        ("tftp", 2),
        ("failed_udp", 13),
    ] {
        assert_eq!(app["flow"][k], v, "app_layer.flow.{k}");
    }
    for (k, v) in [("nfs_udp", 128), ("nfs_tcp", 1), ("tftp", 2)] {
        assert_eq!(app["tx"][k], v, "app_layer.tx.{k}");
    }

    if common::suricata().is_none() {
        return;
    }
    let syaml = dir.join("suricata.yaml");
    std::fs::write(&syaml, CONFIG).unwrap();
    let eve = common::suricata_eve(&syaml, &pcap, &dir.join("suricata"));
    let live = summary(&eve);
    assert_eq!(got, live, "records differ from the installed Suricata's");
}

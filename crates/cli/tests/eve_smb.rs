//! EVE `smb` records on a capture cut from sv-ether.pcap (`data/smb.pcap`: an SMB1
//! session over NetBIOS port 139, an SMB1 file read, an SMB1 session with named pipes
//! and DCERPC, an SMB2 session with DCERPC over the `svcctl` pipe and an SMB2 file
//! read), checked field by field against what Suricata 7.0.10 wrote for the same
//! capture (`data/smb-suricata.jsonl`, its `smb` records; compared with a live run too
//! when `suricata` is installed).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A record's flow (both endpoints, sorted) and `smb.id`.
type Key = (String, u64);

fn key(r: &Value) -> Key {
    let a = format!("{}:{}", r["src_ip"].as_str().unwrap(), r["src_port"]);
    let b = format!("{}:{}", r["dest_ip"].as_str().unwrap(), r["dest_port"]);
    let flow = if a < b {
        format!("{a}-{b}")
    } else {
        format!("{b}-{a}")
    };
    (flow, r["smb"]["id"].as_u64().unwrap())
}

fn records(lines: &str) -> BTreeMap<Key, Value> {
    lines
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("event_type").is_none_or(|t| t == "smb"))
        .map(|r| (key(&r), r["smb"].clone()))
        .collect()
}

/// The `dcerpc` fields compared (the response's stub size is left out: Suricata
/// counts it differently over SMB).
fn dcerpc_view(d: &Value) -> Value {
    let mut d = d.clone();
    if let Some(res) = d.get_mut("res").and_then(Value::as_object_mut) {
        res.remove("stub_data_size");
    }
    d
}

/// Every difference between Suricata's records and Osprey's, as `flow id field`.
fn differences(ours: &BTreeMap<Key, Value>, theirs: &BTreeMap<Key, Value>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (k, s) in theirs {
        let at = format!("{} {}", k.0, k.1);
        let Some(o) = ours.get(k) else {
            out.insert(format!("{at} missing"));
            continue;
        };
        let (so, oo) = (s.as_object().unwrap(), o.as_object().unwrap());
        let skeys: Vec<_> = so.keys().collect();
        let okeys: Vec<_> = oo.keys().collect();
        if skeys != okeys {
            out.insert(format!("{at} keys"));
        }
        for (f, v) in so {
            let same = match f.as_str() {
                "dcerpc" => oo.get(f).map(dcerpc_view) == Some(dcerpc_view(v)),
                _ => oo.get(f) == Some(v),
            };
            if !same {
                out.insert(format!("{at} {f}"));
            }
        }
    }
    for k in ours.keys().filter(|k| !theirs.contains_key(*k)) {
        out.insert(format!("{} {} extra", k.0, k.1));
    }
    out
}

/// Known differences: a pipe write of a non-DCERPC payload (an exploit's `AAAA...`),
/// which Suricata logs with a `dcerpc` object read from those bytes (Osprey's
/// `WRITE_ANDX` transaction has none), and one SMB2 file read Suricata shows without a
/// status.
const KNOWN: &[&str] = &[
    "10.4.30.101:49193-10.4.30.5:445 17 dcerpc",
    "10.4.30.101:49193-10.4.30.5:445 17 keys",
    "10.7.9.103:49359-10.7.9.6:445 9 keys",
];

/// EVE with the `smb` records only.
const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - smb\n";

fn run_osprey(dir: &Path) -> String {
    let pcap = repo("crates/cli/tests/data/smb.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let out = osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        dir.to_str().unwrap(),
        "-S",
        "/dev/null",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("eve.json")).unwrap()
}

#[test]
fn smb_records_are_suricatas() {
    let dir = tempdir("eve_smb");
    let ours = records(&run_osprey(&dir));
    let theirs = records(
        &std::fs::read_to_string(repo("crates/cli/tests/data/smb-suricata.jsonl")).unwrap(),
    );
    assert_eq!(theirs.len(), 53);
    let diff = differences(&ours, &theirs);
    let known: BTreeSet<String> = KNOWN.iter().map(|s| s.to_string()).collect();
    assert_eq!(diff, known, "differences from Suricata's records changed");
    // What the records show, spelled out for a few of them.
    let pipe = ours
        .values()
        .find(|s| s["command"] == "SMB2_COMMAND_TREE_CONNECT" && s.get("named_pipe").is_some())
        .expect("an SMB2 tree connect to IPC$");
    assert_eq!(pipe["share_type"], "PIPE");
    let bind = ours
        .values()
        .find(|s| s["dcerpc"]["request"] == "BIND" && s["command"] == "SMB2_COMMAND_WRITE")
        .expect("a DCERPC bind over an SMB2 pipe");
    assert_eq!(bind["dcerpc"]["response"], "BINDACK");
    assert!(ours.values().any(|s| s.get("ntlmssp").is_some()));
}

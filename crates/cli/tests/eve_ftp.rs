//! EVE `ftp`, `ftp_data` and `flow` records of FTP control flows and their data
//! connections, on packets cut from sv-ether.pcap (`data/ftp-active-passive.pcap`:
//! two vsftpd sessions on 127.0.0.1, one downloading `index.html` over an active-mode
//! data connection (`PORT`), one over a passive one (`PASV`)). The records are compared
//! with what Suricata 7.0.10 wrote for the same packets
//! (`data/ftp-active-passive.suricata.jsonl`), and with a live run when `suricata` is
//! installed: every field of each `ftp`/`ftp_data` object, and each data connection's
//! `parent_id` naming its control flow.

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One record: event type, ports, `tx_id`, the protocol object, and for a data
/// connection the client port of the control flow its `parent_id` names.
type Rec = (String, u64, u64, u64, Value, Option<u64>);

fn records(eve: &Path) -> Vec<Value> {
    std::fs::read_to_string(eve)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("EVE lines are JSON"))
        .collect()
}

/// The `ftp` and `ftp_data` records of `recs`, sorted, with the parent named by port.
fn summary(recs: &[Value]) -> Vec<Rec> {
    let control: HashMap<u64, u64> = recs
        .iter()
        .filter(|r| r["event_type"] == "ftp")
        .map(|r| {
            (
                r["flow_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut out: Vec<Rec> = recs
        .iter()
        .filter(|r| r["event_type"] == "ftp" || r["event_type"] == "ftp_data")
        .map(|r| {
            let t = r["event_type"].as_str().unwrap().to_string();
            let parent = r["parent_id"].as_u64().map(|p| control[&p]);
            (
                t.clone(),
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["tx_id"].as_u64().unwrap(),
                r[t.as_str()].clone(),
                parent,
            )
        })
        .collect();
    out.sort_by(|a, b| (&a.0, a.1, a.3).cmp(&(&b.0, b.1, b.3)));
    out
}

/// `(src_port, dest_port, app_proto, parent's client port)` of each TCP flow record.
fn flows(recs: &[Value]) -> Vec<(u64, u64, String, Option<u64>)> {
    let control: HashMap<u64, u64> = recs
        .iter()
        .filter(|r| r["event_type"] == "ftp")
        .map(|r| {
            (
                r["flow_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut v: Vec<_> = recs
        .iter()
        .filter(|r| r["event_type"] == "flow")
        .map(|r| {
            (
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["app_proto"].as_str().unwrap_or("").to_string(),
                r["parent_id"].as_u64().map(|p| control[&p]),
            )
        })
        .collect();
    v.sort();
    v
}

/// EVE with the ftp (which includes the `ftp_data` records) and flow types.
const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - ftp\n        \
    - flow\n";

/// Runs `bin` (`osprey` or `suricata`) on `pcap` with [`CONFIG`]; its EVE file.
fn run(bin: &str, dir: &Path, pcap: &Path) -> PathBuf {
    let out = dir.join(bin);
    std::fs::create_dir_all(&out).unwrap();
    let yaml = dir.join(format!("{bin}.yaml"));
    std::fs::write(
        &yaml,
        format!("{CONFIG}default-log-dir: {}\n", out.display()),
    )
    .unwrap();
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
    let r = if bin == "osprey" {
        osprey(&args)
    } else {
        Command::new(bin).args(args).output().unwrap()
    };
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out.join("eve.json")
}

#[test]
fn ftp_and_ftp_data_records_are_suricatas() {
    let dir = tempdir("eve-ftp");
    let pcap = repo("crates/cli/tests/data/ftp-active-passive.pcap");
    let recs = records(&run("osprey", &dir, &pcap));
    let got = summary(&recs);
    let want = summary(&records(&repo(
        "crates/cli/tests/data/ftp-active-passive.suricata.jsonl",
    )));
    assert_eq!(got.len(), 18, "16 ftp and 2 ftp_data records: {got:#?}");
    assert_eq!(got, want);
    // The data connections' flow records name their control flows too.
    let f = flows(&recs);
    assert!(
        f.contains(&(20, 40003, "ftp-data".into(), Some(38736))),
        "{f:?}"
    );
    assert!(
        f.contains(&(58202, 47373, "ftp-data".into(), Some(38768))),
        "{f:?}"
    );
    assert!(f.contains(&(38736, 21, "ftp".into(), None)), "{f:?}");
    let s = common::stats(&dir.join("osprey"));
    let c = |n: &str| s["app_layer"][n]["ftp"].as_u64();
    assert_eq!(c("flow"), Some(2));
    assert_eq!(c("tx"), Some(16));
    assert_eq!(s["app_layer"]["flow"]["ftp-data"].as_u64(), Some(2));

    if common::suricata().is_none() {
        return;
    }
    let srecs = records(&run("suricata", &dir, &pcap));
    assert_eq!(got, summary(&srecs), "records differ from Suricata's");
    assert_eq!(f, flows(&srecs), "flow records differ from Suricata's");
}

//! EVE `flow` and `netflow` records against Suricata 7.0.10's.
//!
//! * Corpus case bug-1045 (an SMTP session, with its flowbit rules): the records Suricata
//!   7.0.10 writes with `- flow` and `- netflow` on (run by hand with the stock
//!   suricata.yaml), value for value.
//! * sv-ether.pcap, no rules: the number of flow records against the two reference runs
//!   (`../shared/pcaps/sv-ether.suricata-eve*.json.gz`) and, over the flows matched by
//!   5-tuple and start, the share of equal counters, states and TCP flags; the floors are
//!   today's figures (see the report of issue 21 for the differences left).

mod common;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The EVE records of `event_type` in `dir/eve.json`.
fn records(dir: &Path, event_type: &str) -> Vec<Value> {
    std::fs::read_to_string(dir.join("eve.json"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["event_type"] == event_type)
        .collect()
}

/// Runs Osprey on corpus case bug-1045 with its rules and `types`.
fn bug_1045(types: &str) -> Option<std::path::PathBuf> {
    let case = common::shared("corpus/open/bug-1045")?;
    let dir = common::tempdir(&format!("eve-flow-{}", types.replace(',', "-")));
    let out = common::osprey(&[
        "-r",
        case.join("input.pcap").to_str().unwrap(),
        "-S",
        case.join("test.rules").to_str().unwrap(),
        "-k",
        "none",
        "-l",
        dir.to_str().unwrap(),
        "--eve-types",
        types,
    ]);
    assert!(out.status.success(), "{out:?}");
    Some(dir)
}

/// `v` without its `flow_id` (Suricata seeds it per run), checking it is there.
fn without_flow_id(v: Value) -> Value {
    assert!(v["flow_id"].as_u64().is_some(), "flow_id missing: {v}");
    let Value::Object(o) = v else {
        panic!("a record is an object")
    };
    // Rebuilt in order (removing from an ordered map may move its last key).
    Value::Object(o.into_iter().filter(|(k, _)| k != "flow_id").collect())
}

#[test]
fn smtp_flow_record_as_suricata_writes_it() {
    let Some(dir) = bug_1045("flow") else {
        return;
    };
    let flows = records(&dir, "flow");
    assert_eq!(flows.len(), 1, "{flows:?}");
    // Suricata 7.0.10's record, flow_id left out; it also writes `app_proto_tc: failed`
    // (its SMTP probe of the server's side failed), which Osprey's app layer does not
    // keep per direction.
    let want: Value = serde_json::from_str(
        r#"{"timestamp":"2013-11-26T15:30:20.306047+0000","event_type":"flow","src_ip":"88.191.140.111","src_port":51906,"dest_ip":"188.125.69.79","dest_port":25,"proto":"TCP","app_proto":"smtp","flow":{"pkts_toserver":11,"pkts_toclient":8,"bytes_toserver":1340,"bytes_toclient":808,"start":"2013-11-26T15:30:19.952558+0000","end":"2013-11-26T15:30:20.306047+0000","age":1,"state":"closed","reason":"shutdown","alerted":true},"metadata":{"flowbits":["smtp.data.found"]},"tcp":{"tcp_flags":"1f","tcp_flags_ts":"1f","tcp_flags_tc":"1b","syn":true,"fin":true,"rst":true,"psh":true,"ack":true,"state":"closed","ts_max_regions":1,"tc_max_regions":1}}"#,
    )
    .unwrap();
    let got = without_flow_id(flows[0].clone());
    assert_eq!(got, want);
    // Key order as Suricata's.
    assert_eq!(got.to_string(), want.to_string());
    // The same flow id as the flow's alerts.
    let alerts = records(&dir, "alert");
    assert!(!alerts.is_empty());
    assert!(alerts.iter().all(|a| a["flow_id"] == flows[0]["flow_id"]));
    assert!(records(&dir, "netflow").is_empty(), "netflow is off");
}

#[test]
fn smtp_netflow_records_one_per_direction() {
    let Some(dir) = bug_1045("netflow") else {
        return;
    };
    assert!(records(&dir, "flow").is_empty(), "flow is off");
    let nf: Vec<Value> = records(&dir, "netflow")
        .into_iter()
        .map(without_flow_id)
        .collect();
    // Suricata 7.0.10's two records (the second says `app_proto: failed`: its
    // server-side probe failed; Osprey keeps one app_proto per flow).
    let want = [
        r#"{"timestamp":"2013-11-26T15:30:20.306047+0000","event_type":"netflow","src_ip":"88.191.140.111","src_port":51906,"dest_ip":"188.125.69.79","dest_port":25,"proto":"TCP","app_proto":"smtp","netflow":{"pkts":11,"bytes":1340,"start":"2013-11-26T15:30:19.952558+0000","end":"2013-11-26T15:30:20.306047+0000","age":1,"min_ttl":64,"max_ttl":64},"tcp":{"tcp_flags":"1f","syn":true,"fin":true,"rst":true,"psh":true,"ack":true}}"#,
        r#"{"timestamp":"2013-11-26T15:30:20.306047+0000","event_type":"netflow","src_ip":"188.125.69.79","src_port":25,"dest_ip":"88.191.140.111","dest_port":51906,"proto":"TCP","app_proto":"smtp","netflow":{"pkts":8,"bytes":808,"start":"2013-11-26T15:30:19.952558+0000","end":"2013-11-26T15:30:20.306047+0000","age":1,"min_ttl":55,"max_ttl":55},"tcp":{"tcp_flags":"1b","syn":true,"fin":true,"psh":true,"ack":true}}"#,
    ];
    let got: Vec<String> = nf.iter().map(Value::to_string).collect();
    assert_eq!(got, want);
}

/// The flow records of an EVE text.
fn flow_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.contains(r#""event_type":"flow""#))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A flow's identity: its ends as written, protocol and start.
fn flow_key(r: &Value) -> String {
    format!(
        "{} {} {} {} {} {}",
        r["src_ip"], r["src_port"], r["dest_ip"], r["dest_port"], r["proto"], r["flow"]["start"]
    )
}

fn gunzip(path: &Path) -> String {
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .output()
        .expect("gzip runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn sv_ether_flow_records_against_suricata() {
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let Some(single) = common::shared("pcaps/sv-ether.suricata-eve.json.gz") else {
        return;
    };
    let Some(autofp) = common::shared("pcaps/sv-ether.suricata-eve-autofp.json.gz") else {
        return;
    };
    let reference = flow_lines(&gunzip(&single));
    let other = flow_lines(&gunzip(&autofp)).len();
    let dir = common::tempdir("eve-flow-sv-ether");
    let out = common::osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        dir.to_str().unwrap(),
        "--eve-types",
        "flow",
        // As the reference run.
        "--runmode",
        "single",
    ]);
    assert!(out.status.success(), "{out:?}");
    let ours = records(&dir, "flow");
    // Within 3% of the range the two reference runs span (2,580 to 2,625).
    let (lo, hi) = (reference.len().min(other), reference.len().max(other));
    let n = ours.len();
    println!("flow records: osprey {n}, Suricata {lo} to {hi}");
    assert!(
        n * 100 >= lo * 97 && n * 100 <= hi * 103,
        "{n} flow records"
    );
    // Per protocol: TCP and UDP within 3% of the single-threaded run.
    for proto in ["TCP", "UDP"] {
        let count = |v: &[Value]| v.iter().filter(|r| r["proto"] == proto).count();
        let (a, b) = (count(&ours), count(&reference));
        println!("{proto}: osprey {a}, Suricata {b}");
        assert!(
            a * 100 >= b * 97 && a * 100 <= b * 103,
            "{proto}: {a} vs {b}"
        );
    }
    // Values on the flows matched by 5-tuple and start.
    let mut by_key: HashMap<String, Vec<&Value>> = HashMap::new();
    for r in &reference {
        by_key.entry(flow_key(r)).or_default().push(r);
    }
    let fields: [&[&str]; 8] = [
        &["flow", "pkts_toserver"],
        &["flow", "pkts_toclient"],
        &["flow", "bytes_toserver"],
        &["flow", "bytes_toclient"],
        &["flow", "state"],
        &["tcp", "tcp_flags_ts"],
        &["tcp", "tcp_flags_tc"],
        &["tcp", "state"],
    ];
    let mut equal = [0usize; 8];
    // The end reason and the record's time (when the flow was logged) depend on when
    // flows time out: Osprey's table times flows out against the latest capture time,
    // Suricata's flow manager later (see the report of issue 21): today's figures.
    let (mut same_reason, mut same_time) = (0usize, 0usize);
    let mut matched = 0;
    for r in &ours {
        let Some(theirs) = by_key.get_mut(&flow_key(r)).and_then(Vec::pop) else {
            continue;
        };
        matched += 1;
        same_reason += usize::from(r["flow"]["reason"] == theirs["flow"]["reason"]);
        same_time += usize::from(r["timestamp"] == theirs["timestamp"]);
        for (i, path) in fields.iter().enumerate() {
            let get = |v: &Value| path.iter().fold(v.clone(), |v, k| v[k].clone());
            equal[i] += usize::from(get(r) == get(theirs));
        }
    }
    println!("matched {matched} of {n}; same reason {same_reason}, same timestamp {same_time}");
    assert!(same_reason * 100 >= matched * 40, "reason: {same_reason}");
    assert!(same_time * 100 >= matched * 30, "timestamp: {same_time}");
    assert!(
        matched * 100 >= n * 97,
        "only {matched} of {n} flows matched"
    );
    for (path, eq) in fields.iter().zip(equal) {
        let share = eq as f64 / matched as f64;
        println!(
            "{}: {eq}/{matched} equal ({:.1}%)",
            path.join("."),
            share * 100.0
        );
        // Today's figures (96.6% to 99.9%), a little below.
        assert!(share >= 0.96, "{}: {share}", path.join("."));
    }
}

#[test]
fn one_sided_icmp_flow_and_netflow() {
    let Some(case) = common::shared("corpus/open/detect-icmp-id-01") else {
        return;
    };
    let dir = common::tempdir("eve-flow-icmp");
    let out = common::osprey(&[
        "-r",
        case.join("input.pcap").to_str().unwrap(),
        "-k",
        "none",
        "-l",
        dir.to_str().unwrap(),
        "--eve-types",
        "flow,netflow",
    ]);
    assert!(out.status.success(), "{out:?}");
    let got: Vec<String> = ["flow", "netflow"]
        .iter()
        .flat_map(|t| records(&dir, t))
        .map(without_flow_id)
        .map(|v| v.to_string())
        .collect();
    // Suricata 7.0.10's records (flow_id left out): an echo request without reply, so
    // one netflow record.
    assert_eq!(
        got,
        [
            r#"{"timestamp":"2022-10-28T22:14:15.683070+0000","event_type":"flow","src_ip":"192.168.1.5","dest_ip":"192.168.1.1","proto":"ICMP","icmp_type":8,"icmp_code":0,"flow":{"pkts_toserver":1,"pkts_toclient":0,"bytes_toserver":42,"bytes_toclient":0,"start":"2022-10-28T22:14:15.683070+0000","end":"2022-10-28T22:14:15.683070+0000","age":0,"state":"new","reason":"shutdown","alerted":false}}"#,
            r#"{"timestamp":"2022-10-28T22:14:15.683070+0000","event_type":"netflow","src_ip":"192.168.1.5","dest_ip":"192.168.1.1","proto":"ICMP","icmp_type":8,"icmp_code":0,"app_proto":"unknown","netflow":{"pkts":1,"bytes":42,"start":"2022-10-28T22:14:15.683070+0000","end":"2022-10-28T22:14:15.683070+0000","age":0,"min_ttl":64,"max_ttl":64}}"#,
        ]
    );
}

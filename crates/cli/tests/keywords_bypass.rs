//! The `bypass` rule keyword against Suricata 7.0.10 (its local bypass in file mode):
//! the rules of `data/bypass/bypass.rules` over two captures, the alerts, app-layer,
//! anomaly and flow records and the bypass counters compared with what Suricata wrote
//! (`data/bypass/*.suricata.jsonl`, made by `make-expected.py`; compared with a live
//! Suricata run too when it is installed).
//!
//! - `flows.pcap`: the five HTTP sessions of `http-files.pcap`, 10 s apart (so that no
//!   flow times out: Suricata's flow manager, on the wall clock, would time some out
//!   across the original's years). An HTTP rule bypasses a keep-alive flow on its
//!   first request (sid 1): its later requests (sids 2, 4) and packets (sid 3) are
//!   not inspected or logged, the flow's counters still count them
//!   (`flow_bypassed.local_pkts`), its record says `"state": "bypassed"`,
//!   `"bypass": "local"`; a `noalert` rule bypasses silently (sid 6: the flow's
//!   response is never parsed, so no `http` record); a packet rule on a response
//!   (sid 7) bypasses before the transaction is logged; a rule whose
//!   `detection_filter` keeps it from alerting still bypasses (sid 8, first in
//!   signature order by its priority); the flows of other requests alert (sid 5).
//! - `midstream.pcap`: a session without its SYN under `stream.midstream-policy`
//!   `bypass` and `pass-flow` (the same local bypass, and Suricata's flow action).
//! - `timeout.pcap`: the keep-alive flow alone, its packets after the bypass 200 s
//!   later: past the `bypassed` timeout (100 s), before the `established` one
//!   (600 s), so the bypassed flow times out and the later packets make a new flow.

mod common;

use common::{repo, tempdir};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The parts of a record this test compares (see `make-expected.py`).
fn project(r: &Value) -> Value {
    let et = r["event_type"].as_str().unwrap_or("");
    let mut o = Map::new();
    o.insert("event_type".into(), et.into());
    for k in ["pcap_cnt", "src_port", "dest_port", "tx_id"] {
        if let Some(v) = r.get(k) {
            o.insert(k.into(), v.clone());
        }
    }
    if et == "alert" {
        o.insert("sid".into(), r["alert"]["signature_id"].clone());
    }
    if matches!(et, "alert" | "flow") {
        if let Some(f) = r.get("flow") {
            o.insert("flow".into(), f.clone());
        }
    }
    if et == "flow" {
        o.insert("timestamp".into(), r["timestamp"].clone());
        o.insert("tcp".into(), r.get("tcp").cloned().unwrap_or(Value::Null));
    }
    if let Some(h) = r.get("http") {
        o.insert("url".into(), h.get("url").cloned().unwrap_or(Value::Null));
    }
    if et == "anomaly" {
        o.insert(
            "anomaly".into(),
            r["anomaly"].get("event").cloned().unwrap_or(Value::Null),
        );
    }
    Value::Object(o)
}

/// `v` as JSON text with every object's keys sorted.
fn canonical(v: &Value) -> String {
    // Written by hand: the key order is the sorted one whatever the map's own.
    fn text(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                out.push('{');
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    text(&m[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    text(x, out);
                }
                out.push(']');
            }
            x => out.push_str(&x.to_string()),
        }
    }
    let mut out = String::new();
    text(v, &mut out);
    out
}

/// The bypass counters of an EVE `stats` object (see `make-expected.py`).
fn counters(stats: &Value) -> Value {
    let tcp_state: Map<String, Value> = stats["flow"]["end"]["tcp_state"]
        .as_object()
        .expect("flow.end.tcp_state")
        .iter()
        .filter(|(_, n)| n.as_u64() != Some(0))
        .map(|(k, n)| (k.clone(), n.clone()))
        .collect();
    let mut o = Map::new();
    o.insert("flow_bypassed".into(), stats["flow_bypassed"].clone());
    o.insert(
        "flow.end.state".into(),
        stats["flow"]["end"]["state"].clone(),
    );
    o.insert("flow.end.tcp_state".into(), Value::Object(tcp_state));
    o.insert("flow.total".into(), stats["flow"]["total"].clone());
    let mut s = Map::new();
    s.insert("stats".into(), Value::Object(o));
    Value::Object(s)
}

/// An eve.json as the lines of the expected files: projected records, sorted, then
/// the counters of its last `stats` record.
fn lines(eve: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stats = None;
    for l in eve.lines() {
        let r: Value = serde_json::from_str(l).expect("EVE lines are JSON");
        if r["event_type"] == "stats" {
            stats = Some(r["stats"].clone());
        } else {
            out.push(canonical(&project(&r)));
        }
    }
    out.sort();
    out.push(canonical(&counters(&stats.expect("a stats record"))));
    out
}

fn data(name: &str) -> PathBuf {
    repo(&format!("crates/cli/tests/data/{name}"))
}

/// The capture of case `name`.
fn pcap(name: &str) -> PathBuf {
    data(&format!("bypass/{name}.pcap"))
}

/// Runs Osprey on capture `name` with `rules` and the extra arguments `extra` (stock
/// configuration, as the reference), logging into a directory named after `tag`; its
/// eve.json.
fn osprey(name: &str, rules: &Path, tag: &str, extra: &[&str]) -> String {
    let out = tempdir(&format!("bypass-{tag}"));
    let pcap = pcap(name);
    let mut args = vec![
        "-c",
        "/etc/suricata/suricata.yaml",
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let r = common::osprey(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).expect("eve.json written")
}

/// Suricata 7.0.10 the same way; its eve.json.
fn suricata(name: &str, rules: &Path, tag: &str, extra: &[&str]) -> String {
    let out = tempdir(&format!("bypass-{tag}"));
    let st = std::process::Command::new("suricata")
        .args(["-c", "/etc/suricata/suricata.yaml", "-S"])
        .arg(rules)
        .arg("-r")
        .arg(pcap(name))
        .args(["-k", "none", "--runmode", "single", "-l"])
        .arg(&out)
        .args(extra)
        .output()
        .expect("suricata runs");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    std::fs::read_to_string(out.join("eve.json")).expect("Suricata wrote eve.json")
}

/// The expected lines of case `name`.
fn expected(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(data(&format!("bypass/{name}.suricata.jsonl")))
        .expect("expected records");
    text.lines()
        .map(|l| canonical(&serde_json::from_str(l).expect("JSON")))
        .collect()
}

/// The stock configuration is the reference's; without it the case cannot run.
fn stock_config() -> Option<()> {
    if Path::new("/etc/suricata/suricata.yaml").exists() {
        return Some(());
    }
    if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
        panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
    }
    eprintln!("skipped: /etc/suricata/suricata.yaml not found (Suricata's stock configuration)");
    None
}

/// Case `case` (capture `name` with the extra arguments `extra`): Osprey against the
/// saved records, and Suricata's live run against them when it is installed.
fn check_case(case: &str, name: &str, extra: &[&str]) {
    if stock_config().is_none() {
        return;
    }
    let rules = data("bypass/bypass.rules");
    let want = expected(case);
    let got = lines(&osprey(name, &rules, &format!("{case}-osprey"), extra));
    common::assert_same_records(&got, &want);
    if common::suricata().is_none() {
        return;
    }
    // Suricata's flow manager runs on the wall clock: a run may time a flow out before
    // the end of the capture (a bypassed flow after 100 s of capture time). A live run
    // that differs from the saved records is repeated; two runs that agree must equal
    // them, two that disagree are the wall clock's doing and only warned about.
    let live = |n: u32| {
        lines(&suricata(
            name,
            &rules,
            &format!("{case}-suricata{n}"),
            extra,
        ))
    };
    let first = live(1);
    if first == want {
        return;
    }
    let second = live(2);
    if second == want {
        return;
    }
    if first == second {
        common::assert_same_records(&first, &want);
    }
    eprintln!("warning: two live Suricata runs on {case} disagree (its flow manager's timing)");
}

#[test]
fn bypass_rules_match_suricata() {
    check_case("flows", "flows", &[]);
}

#[test]
fn bypassed_flow_times_out_as_suricata() {
    check_case("timeout", "timeout", &[]);
}

#[test]
fn without_bypass_the_flows_are_inspected_to_the_end() {
    if stock_config().is_none() {
        return;
    }
    // The same rules without `bypass`: the later requests alert (and sid 8's fifth
    // match does not come: one request per flow), nothing is bypassed.
    let dir = tempdir("bypass-control-rules");
    let text = std::fs::read_to_string(data("bypass/bypass.rules")).unwrap();
    let rules = dir.join("no-bypass.rules");
    std::fs::write(&rules, text.replace(" bypass;", "")).unwrap();
    let eve = osprey("flows", &rules, "control", &[]);
    let sids: Vec<u64> = eve
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["event_type"] == "alert")
        .filter_map(|r| r["alert"]["signature_id"].as_u64())
        .collect();
    assert!(
        sids.contains(&2) && sids.contains(&4) && !sids.contains(&8),
        "{sids:?}"
    );
    assert!(!eve.contains("\"bypass\""));
    let stats = lines(&eve).pop().unwrap();
    assert!(stats.contains("\"local_bypassed\":0"), "{stats}");
    assert!(stats.contains("\"local_pkts\":0"), "{stats}");
    // Timed from their last packet, the established flow outlives the 200 s pause.
    let eve = osprey("timeout", &rules, "control-timeout", &[]);
    let flows = eve.matches("\"event_type\":\"flow\"").count();
    assert_eq!(flows, 1);
}

#[test]
fn midstream_policies_write_flow_records_as_suricata() {
    // A session without its SYN (corpus case bug-5825's capture) under
    // `stream.midstream-policy`: `bypass` is a local bypass with the flow action
    // `pass`; `pass-flow` the action alone (the flow keeps its state, nothing is
    // counted as bypassed).
    for policy in ["bypass", "pass-flow"] {
        let set = format!("stream.midstream-policy={policy}");
        check_case(
            &format!("midstream-{policy}"),
            "midstream",
            &["--set", &set],
        );
    }
}

//! TCP stream events (`stream-event` rules, EVE `anomaly` records of type `stream`)
//! against Suricata 7.0.10 on real traffic.
//!
//! `data/stream-events.pcap` holds flows cut whole from sv-ether.pcap (188 packets):
//! 10.10.10.2:53104 (a client ACK with the right sequence number and a wrong
//! acknowledgement, server data below what its SYN/ACK made acknowledged, server ACKs
//! that do not follow the SYN/ACK), 10.0.0.1:12345 -> 10.0.0.2:80 (SYNs again on an
//! established session, one with another sequence number), 127.0.0.1:1212 and
//! 172.16.9.181:38498 (RST and FIN without a session), 100.73.5.8:45511 (SYNs with
//! random numbers before the real one: ACK numbers without the ACK flag, a SYN/ACK
//! answering another SYN than the first), 1.1.1.1:12345 -> 2.2.2.2:80 (a four-way
//! handshake, no anomaly) and 192.168.0.103:22 (SYN/ACKs again on an established
//! session with another acknowledgement). `data/stream-events.rules` has one rule per
//! event name Suricata 7.0.10 knows (sid 9100 + its index); what Suricata wrote with
//! them is `data/stream-events.suricata.txt`. `data/stream-window.pcap` holds crafted
//! sessions for receive-window tracking, the closing states, TCP timestamps (PAWS), bad
//! window updates, retransmissions and SYNs in the closing states and four-way handshakes
//! (written by
//! `data/make-stream-window.py`, Suricata's records in
//! `data/stream-window.suricata.txt`).
//!
//! Events Osprey's tracker does not raise are listed in [`NOT_RAISED`] with the reason
//! (rules naming them are unsupported);
//! the records of those events are left out of the comparison, and so are the few
//! records listed in [`KNOWN`] with their cause. Everything else must be equal, record
//! for record (packet number and event).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Suricata's stream events Osprey's tracker never raises, and why. A rule naming one
/// is refused as unsupported, except `wrong_thread` (its condition cannot arise in
/// Osprey).
const NOT_RAISED: &[(&str, &str)] = &[
    (
        "3whs_ack_data_inject",
        "inline-only check on data ACKs in SYN_RECV, not modelled",
    ),
    (
        "3whs_syn_flood",
        "no queue of SYNs with different ISNs (stream.max-syn-queued)",
    ),
    (
        "3whs_synack_flood",
        "no queue of SYN/ACKs with different ISNs (stream.max-synack-queued)",
    ),
    (
        "3whs_synack_tfo_data_ignored",
        "a Fast Open SYN/ACK's data is not tracked",
    ),
    (
        "est_ack_zwp_data",
        "zero-window probes are told, their ACKs are not followed",
    ),
    ("suspected_rst_inject", "no RST sequence validation"),
    (
        "wrong_thread",
        "Osprey's dispatch is flow-symmetric: a flow never meets two workers",
    ),
    (
        "reassembly_no_segment",
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        "reassembly_segment_before_base_seq",
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        "reassembly_insert_limit",
        "no stream.reassembly.max-regions style insert limit",
    ),
    (
        "reassembly_insert_invalid",
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        "reassembly_urgent_oob_limit_reached",
        "urgent data is not handled out of band",
    ),
];

/// How many rules of a rule file Osprey refuses as unsupported: those naming an event
/// of [`NOT_RAISED`] other than `wrong_thread`.
fn unsupported_in(rules: &str) -> usize {
    sids(rules)
        .values()
        .filter(|e| *e != "wrong_thread" && NOT_RAISED.iter().any(|(n, _)| n == e))
        .count()
}

/// Records of events Osprey raises that still differ on this capture, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "anomaly stream.reassembly_seq_gap 24",
        "10.10.10.2:53104: Suricata handles the server's FIN in SYN_RECV as a close and \
         reassembles from there; Osprey's session stays in SYN_RECV",
    ),
    ("alert 9161 24", "the same record's alert"),
    (
        "anomaly stream.reassembly_seq_gap -",
        "10.10.10.2:53104 at flow end: the same cause",
    ),
    ("alert 9161 -", "the same record's alert"),
    (
        "anomaly stream.reassembly_seq_gap 123",
        "192.168.0.103:22: Suricata raises the gap on the packet whose reassembly meets \
         it, Osprey on the packet that hands the gap to the app layer",
    ),
    ("alert 9161 123", "the same record's alert"),
    (
        "anomaly stream.reassembly_seq_gap 122",
        "192.168.0.103:22: the gap Suricata raises on packet 123, on the ACK that hands \
         it to the app layer",
    ),
    ("alert 9161 122", "the same record's alert"),
    (
        "anomaly stream.reassembly_seq_gap 126",
        "192.168.0.103:22: the client's gap at the same point of the replayed session",
    ),
    ("alert 9161 126", "the same record's alert"),
    (
        "anomaly stream.est_pkt_before_last_ack 120",
        "192.168.0.103:22 (a session replayed on the same tuple): Suricata skips this \
         server ACK before its state checks (its pre-state classification of ACKs: \
         keep-alive, window update, outdated or duplicate ACK, not modelled)",
    ),
    ("alert 9128 120", "the same record's alert"),
    (
        "anomaly stream.est_pkt_before_last_ack 123",
        "192.168.0.103:22: a spurious retransmission Suricata skips before its state \
         checks (before its base_seq, the bytes it released; Osprey's consumed point is \
         behind it there)",
    ),
    ("alert 9128 123", "the same record's alert"),
];

/// The rules' sid of each event name (`stream-event:<name>` in the rules file).
fn sids(rules: &str) -> BTreeMap<u64, String> {
    rules
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let ev = l.split("stream-event:").nth(1)?.split(';').next()?.trim();
            let sid = l
                .split("sid:")
                .nth(1)?
                .split(';')
                .next()?
                .trim()
                .parse()
                .ok()?;
            Some((sid, ev.to_owned()))
        })
        .collect()
}

/// `alert <sid> <pcap_cnt>` and `anomaly <event> <pcap_cnt>` lines of an eve.json.
fn records(eve: &str) -> Vec<String> {
    let mut v: Vec<String> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| {
            let pc = r["pcap_cnt"].as_u64().map_or("-".into(), |n| n.to_string());
            match r["event_type"].as_str()? {
                "alert" => Some(format!("alert {} {pc}", r["alert"]["signature_id"])),
                "anomaly" if r["anomaly"]["type"] == "stream" => Some(format!(
                    "anomaly {} {pc}",
                    r["anomaly"]["event"].as_str().unwrap_or("?")
                )),
                _ => None,
            }
        })
        .collect();
    v.sort();
    v
}

/// Whether a record is left out of the comparison: its event is not raised by Osprey,
/// or it is a known difference.
fn compared(line: &str, by_sid: &BTreeMap<u64, String>, known: &[(&str, &str)]) -> bool {
    if known.iter().any(|(k, _)| *k == line) {
        return false;
    }
    let mut f = line.split(' ');
    let (kind, what) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
    let event = match kind {
        "alert" => what
            .parse::<u64>()
            .ok()
            .and_then(|s| by_sid.get(&s).cloned())
            .unwrap_or_default(),
        _ => what.strip_prefix("stream.").unwrap_or(what).to_owned(),
    };
    !NOT_RAISED.iter().any(|(n, _)| *n == event)
}

const CONFIG: &str = "%YAML 1.1
---
outputs:
  - eve-log:
      enabled: yes
      filetype: regular
      filename: eve.json
      types:
        - alert
        - anomaly:
            enabled: yes
            types:
              decode: no
              stream: yes
              applayer: no
";

/// Osprey's records on `pcap` with `rules` (the configuration above).
fn run_osprey(name: &str, pcap: &Path, rules: &Path) -> String {
    run_osprey_with(name, pcap, rules, &[])
}

/// [`run_osprey`] with more arguments; the log directory is `tempdir(name)`.
fn run_osprey_with(name: &str, pcap: &Path, rules: &Path, extra: &[&str]) -> String {
    let dir = tempdir(name);
    std::fs::write(dir.join("osprey.yaml"), CONFIG).unwrap();
    let yaml = dir.join("osprey.yaml");
    let mut args = vec![
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let r = osprey(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let err = String::from_utf8_lossy(&r.stderr);
    let n = unsupported_in(&std::fs::read_to_string(rules).unwrap());
    assert!(err.contains(&format!("0 failed, {n} unsupported")), "{err}");
    std::fs::read_to_string(dir.join("eve.json")).unwrap()
}

fn data(file: &str) -> std::path::PathBuf {
    repo(&format!("crates/cli/tests/data/{file}"))
}

#[test]
fn every_event_name_is_known_and_each_is_raised_or_listed() {
    let rules = std::fs::read_to_string(data("stream-events.rules")).unwrap();
    let by_sid = sids(&rules);
    assert_eq!(
        by_sid.len(),
        71,
        "one rule per Suricata 7.0.10 stream event"
    );
    for (n, _) in NOT_RAISED {
        assert!(by_sid.values().any(|e| e == n), "{n} is an event name");
    }
    // An unknown name is a rule error, as in Suricata.
    let dir = tempdir("stream-events-unknown");
    let bad = dir.join("bad.rules");
    std::fs::write(
        &bad,
        "alert tcp any any -> any any (stream-event:no_such_event; sid:1;)\n\
         alert tcp any any -> any any (engine-event:stream.est_invalid_ack; sid:2;)\n",
    )
    .unwrap();
    let out = osprey(&["rules", "check", "--json", bad.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["detector"]["failed"], 1, "{v}");
    assert_eq!(v["detector"]["unsupported"], 0, "{v}");
    // The events Osprey does not raise are unsupported rules, not rules that never
    // match.
    assert_eq!(unsupported_in(&rules), NOT_RAISED.len() - 1);
    let out = osprey(&[
        "rules",
        "check",
        "--json",
        data("stream-events.rules").to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["detector"]["failed"], 0, "{v}");
    assert_eq!(v["detector"]["unsupported"], NOT_RAISED.len() - 1, "{v}");
}

#[test]
fn records_equal_suricatas_on_sv_ether_flows() {
    let rules = data("stream-events.rules");
    let by_sid = sids(&std::fs::read_to_string(&rules).unwrap());
    let want: Vec<String> = std::fs::read_to_string(data("stream-events.suricata.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let got = records(&run_osprey(
        "stream-events-saved",
        &data("stream-events.pcap"),
        &rules,
    ));
    // The Osprey side never has a record the comparison leaves out.
    for g in &got {
        assert!(
            compared(g, &by_sid, &[]),
            "Osprey raised a listed event: {g}"
        );
    }
    // Known differences are left out on both sides.
    let got: Vec<String> = got
        .into_iter()
        .filter(|l| compared(l, &by_sid, KNOWN))
        .collect();
    let want: Vec<String> = want
        .into_iter()
        .filter(|l| compared(l, &by_sid, KNOWN))
        .collect();
    assert!(want.len() > 150, "{} records compared", want.len());
    common::assert_same_records(&got, &want);
    // Both the handshake events and the SYN-again events are there.
    for e in [
        "3whs_right_seq_wrong_ack_evasion",
        "3whs_wrong_seq_wrong_ack",
        "3whs_synack_with_wrong_ack",
        "est_syn_resend",
        "est_syn_resend_diff_seq",
        "est_synack_resend_with_diff_ack",
        "rst_but_no_session",
        "fin_but_no_session",
        "pkt_broken_ack",
        "pkt_spurious_retransmission",
    ] {
        let n = got
            .iter()
            .filter(|g| g.contains(&format!(" stream.{e} ")))
            .count();
        assert!(n > 0, "no {e}");
    }
}

/// The events of receive-window tracking and of the closing states, on the crafted
/// sessions of `data/stream-window.pcap` (written by `data/make-stream-window.py`: one
/// session per case, each described there), against Suricata 7.0.10's records
/// (`data/stream-window.suricata.txt`): equal record for record, the events of
/// [`NOT_RAISED`] left out.
#[test]
fn window_and_closing_records_equal_suricatas_on_crafted_sessions() {
    let rules = data("stream-events.rules");
    let by_sid = sids(&std::fs::read_to_string(&rules).unwrap());
    let got = records(&run_osprey(
        "stream-window-saved",
        &data("stream-window.pcap"),
        &rules,
    ));
    for g in &got {
        assert!(
            compared(g, &by_sid, &[]),
            "Osprey raised a listed event: {g}"
        );
    }
    let want: Vec<String> = saved("stream-window.suricata.txt")
        .into_iter()
        .filter(|l| compared(l, &by_sid, &[]))
        .collect();
    assert!(want.len() > 140, "{} records compared", want.len());
    common::assert_same_records(&got, &want);
    for e in WINDOW_EVENTS {
        let n = got
            .iter()
            .filter(|g| g.contains(&format!(" stream.{e} ")))
            .count();
        assert!(n > 0, "no {e}");
    }
}

/// The state each crafted session of `data/stream-window.pcap` ends in (the `tcp.state`
/// of its EVE `flow` record, by client port), as Suricata 7.0.10 logged them: the
/// closing states in Suricata's orientation (the server's FIN first: FIN_WAIT1), the
/// refused packets leaving 40001-40004 and 40012 short of CLOSED, and 40023 (a SYN/ACK
/// refused for its timestamps) in SYN_SENT.
const WINDOW_END_STATES: &str = "40001 fin_wait1 40002 fin_wait1 40003 established \
    40004 established 40005 closed 40006 closed 40007 closed 40008 closed 40009 closed \
    40010 closed 40011 closed 40012 time_wait 40013 closed 40014 closed 40015 closed \
    40016 closed 40017 closed 40018 closed 40019 closed 40020 closed 40021 closed \
    40022 closed 40023 syn_sent 40024 closed 40025 closed 40026 established \
    40027 established 40028 closed 40029 closed 40030 closed 40031 closed \
    40032 close_wait 40033 closed 40034 closed 40035 closed 40036 closed \
    40037 closed 40038 closed 40039 closed";

/// `port state` of each TCP `flow` record of an eve.json, sorted, space-separated.
fn end_states(eve: &str) -> String {
    let mut v: Vec<String> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["event_type"] == "flow" && r["proto"] == "TCP")
        .map(|r| {
            format!(
                "{} {}",
                r["src_port"],
                r["tcp"]["state"].as_str().unwrap_or("-")
            )
        })
        .collect();
    v.sort();
    v.join(" ")
}

#[test]
fn crafted_sessions_end_in_suricatas_states() {
    let dir = tempdir("stream-window-states");
    let yaml = dir.join("flow.yaml");
    std::fs::write(
        &yaml,
        "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
         filetype: regular\n      filename: eve.json\n      types:\n        - flow\n",
    )
    .unwrap();
    let pcap = data("stream-window.pcap");
    let r = common::osprey_single(&yaml, Path::new("/dev/null"), &pcap, &dir);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want = WINDOW_END_STATES
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let got = end_states(&std::fs::read_to_string(dir.join("eve.json")).unwrap());
    assert_eq!(got, want);
    if common::suricata().is_some() {
        let live = end_states(&common::suricata_rules_eve(
            &yaml,
            &pcap,
            Path::new("/dev/null"),
            &dir.join("suricata"),
        ));
        assert_eq!(live, want);
    }
}

/// The events the window tracking, the closing states and the timestamps (PAWS) raise,
/// each present in `data/stream-window.pcap`.
const WINDOW_EVENTS: &[&str] = &[
    "est_packet_out_of_window",
    "est_invalid_ack",
    "est_pkt_before_last_ack",
    "pkt_invalid_ack",
    "fin_invalid_ack",
    "fin_out_of_window",
    "fin1_invalid_ack",
    "fin1_ack_wrong_seq",
    "fin1_fin_wrong_seq",
    "fin2_invalid_ack",
    "fin2_ack_wrong_seq",
    "fin2_fin_wrong_seq",
    "closewait_invalid_ack",
    "closewait_ack_out_of_window",
    "closewait_fin_out_of_window",
    "closewait_pkt_before_last_ack",
    "closing_invalid_ack",
    "closing_ack_wrong_seq",
    "lastack_invalid_ack",
    "lastack_ack_wrong_seq",
    "timewait_invalid_ack",
    "timewait_ack_wrong_seq",
    "rst_invalid_ack",
    "pkt_invalid_timestamp",
    "pkt_bad_window_update",
    "pkt_retransmission",
    "4whs_synack_with_wrong_ack",
    "4whs_synack_with_wrong_syn",
    "4whs_wrong_seq",
    "4whs_invalid_ack",
    "shutdown_syn_resend",
];

/// The records of a saved Suricata run (comment lines left out).
fn saved(file: &str) -> Vec<String> {
    std::fs::read_to_string(data(file))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// `stats.stream-events: true` counts every event under `stream.<event>` (all 71,
/// zeros included, as Suricata prints them), once per record; off (the default), no
/// `stream` counters.
#[test]
fn stream_event_stats_count_what_was_raised() {
    let pcap = data("stream-events.pcap");
    let rules = data("stream-events.rules");
    let eve = run_osprey_with(
        "stream-events-stats",
        &pcap,
        &rules,
        &["--set", "stats.stream-events=true"],
    );
    let stats = common::stats(&tempdir_path("stream-events-stats"));
    let counters = stats["stream"].as_object().expect("stream counters");
    assert_eq!(counters.len(), 71);
    let recs = records(&eve);
    let mut raised = 0;
    for (name, n) in counters {
        let want = recs
            .iter()
            .filter(|r| r.starts_with(&format!("anomaly stream.{name} ")))
            .count();
        assert_eq!(n.as_u64(), Some(want as u64), "stream.{name}");
        raised += want;
    }
    assert!(raised > 90, "{raised}");
    run_osprey_with("stream-events-no-stats", &pcap, &rules, &[]);
    let stats = common::stats(&tempdir_path("stream-events-no-stats"));
    assert!(stats.get("stream").is_none(), "{stats}");
}

/// The directory [`run_osprey_with`] logged into (without clearing it).
fn tempdir_path(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// With Suricata installed: its records with the same rules are the saved ones, and on
/// its own `stream-events.rules` the per-sid alert counts equal Osprey's for every rule
/// whose event Osprey raises.
#[test]
fn live_suricata_agrees() {
    let stock = Path::new("/etc/suricata/suricata.yaml");
    let suri_rules = Path::new("/etc/suricata/rules/stream-events.rules");
    if common::suricata().is_none() {
        return;
    }
    if !stock.exists() || !suri_rules.exists() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but Suricata's stock config or rules are missing");
        }
        eprintln!("skipped: no /etc/suricata/suricata.yaml or rules/stream-events.rules");
        return;
    }
    let dir = tempdir("stream-events-live");
    let yaml = dir.join("suricata.yaml");
    let text = std::fs::read_to_string(stock).unwrap();
    assert!(text.contains("              # stream: no"));
    std::fs::write(
        &yaml,
        text.replace("              # stream: no", "              stream: yes"),
    )
    .unwrap();
    let pcap = data("stream-events.pcap");
    let ours = data("stream-events.rules");
    let saved: Vec<String> = std::fs::read_to_string(data("stream-events.suricata.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    // A live run equal to the saved records (a run that is not is retried: see below).
    let live_equals = |pcap: &Path, want: &[String], name: &str| {
        let mut live = Vec::new();
        for attempt in 0..3 {
            live = records(&common::suricata_rules_eve(
                &yaml,
                pcap,
                &ours,
                &dir.join(format!("{name}-{attempt}")),
            ));
            if live == want {
                return;
            }
        }
        common::assert_same_records(&live, want);
    };
    live_equals(&pcap, &saved, "ours");
    live_equals(
        &data("stream-window.pcap"),
        &self::saved("stream-window.suricata.txt"),
        "window",
    );
    // Suricata's own rule file: per-sid counts.
    let count = |eve: &str| {
        let mut m: BTreeMap<u64, usize> = BTreeMap::new();
        for r in records(eve) {
            let mut f = r.split(' ');
            if f.next() == Some("alert") {
                *m.entry(f.next().unwrap().parse().unwrap()).or_default() += 1;
            }
        }
        m
    };
    let o = count(&run_osprey("stream-events-live-osprey", &pcap, suri_rules));
    let by_sid = sids(&std::fs::read_to_string(suri_rules).unwrap());
    // The known seq_gap records on each side.
    let gap_known = |on_suricata: bool| {
        KNOWN
            .iter()
            .filter(|(k, _)| k.starts_with("anomaly stream.reassembly_seq_gap "))
            .filter(|(k, _)| saved.iter().any(|l| l == k) == on_suricata)
            .count()
    };
    // The first per-sid count that differs, if any.
    let differs = |s: &BTreeMap<u64, usize>| -> Option<String> {
        by_sid.iter().find_map(|(sid, ev)| {
            let (want, got) = (
                s.get(sid).copied().unwrap_or(0),
                o.get(sid).copied().unwrap_or(0),
            );
            let (got, want) = if NOT_RAISED.iter().any(|(n, _)| n == ev) {
                (got, 0)
            } else if ev == "reassembly_seq_gap" {
                (got + gap_known(true), want + gap_known(false))
            } else {
                (got, want)
            };
            (got != want).then(|| format!("sid {sid} ({ev}): Osprey {got}, Suricata {want}"))
        })
    };
    // Suricata's counts of some events move on a loaded machine (its flow manager runs
    // on the wall clock: 3whs_wrong_seq_wrong_ack gave 4 once in a full test run, 10 in
    // every run alone): a disagreeing run is retried, three in a row fail the test.
    let mut last = None;
    for attempt in 0..3 {
        let s = count(&common::suricata_rules_eve(
            &yaml,
            &pcap,
            suri_rules,
            &dir.join(format!("suricata-{attempt}")),
        ));
        last = differs(&s);
        if last.is_none() {
            break;
        }
    }
    assert!(last.is_none(), "{}", last.unwrap_or_default());
}

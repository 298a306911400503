//! The `outputs:` section governs what a run writes: several `eve-log` outputs each get
//! exactly the records of their types, `append`, disabled outputs, `fast`, `stats.log`
//! in Suricata's layout, the EVE `stats` record, unimplemented keys named in a
//! warning, `community_id` as Suricata computes it, `-l` and `default-log-dir`.

mod common;

use common::{osprey, repo, tempdir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

const RULES: &str = "\
alert dns any any -> any any (msg:\"dns google\"; dns.query; content:\"google\"; sid:1;)
alert udp any any -> any 53 (msg:\"udp 53\"; sid:2;)
";

/// A rule that alerts on every packet (every flow of the capture gets an alert).
const ALL: &str = "alert ip any any -> any any (msg:\"all\"; sid:1;)\n";

fn sample() -> String {
    repo("samples/sample.pcap").to_str().unwrap().to_string()
}

/// Writes `yaml` and `rules` into `dir` and runs osprey on the sample with them,
/// logging into `dir/log` (created); returns the log dir and stderr.
fn run(dir: &Path, yaml: &str, rules: &str) -> (std::path::PathBuf, String) {
    let log = dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    run_in(dir, &log, yaml, rules)
}

fn run_in(dir: &Path, log: &Path, yaml: &str, rules: &str) -> (std::path::PathBuf, String) {
    let (c, r) = (dir.join("osprey.yaml"), dir.join("test.rules"));
    std::fs::write(&c, yaml).unwrap();
    std::fs::write(&r, rules).unwrap();
    let out = osprey(&[
        "-c",
        c.to_str().unwrap(),
        "-r",
        &sample(),
        "-S",
        r.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        log.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "osprey failed: {stderr}");
    (log.to_path_buf(), stderr)
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("EVE line is JSON"))
        .collect()
}

fn of_type<'a>(recs: &'a [Value], t: &str) -> Vec<&'a Value> {
    recs.iter().filter(|r| r["event_type"] == t).collect()
}

#[test]
fn two_eve_logs_receive_exactly_their_records() {
    let dir = tempdir("outputs-two-eve");
    // One output with both types: what the two must share out.
    let (both, _) = run(
        &dir.join("both"),
        "outputs:\n- eve-log:\n    enabled: yes\n    filename: eve.json\n    types: [alert, dns]\n",
        RULES,
    );
    let both = records(&both.join("eve.json"));
    let (alerts, dns) = (of_type(&both, "alert"), of_type(&both, "dns"));
    assert!(!alerts.is_empty() && !dns.is_empty());
    let (log, _) = run(
        &dir.join("split"),
        "outputs:\n\
         - eve-log:\n    enabled: yes\n    filename: alerts.json\n    types: [alert]\n\
         - eve-log:\n    filename: forgot.json\n    types: [alert]\n\
         - eve-log:\n    enabled: yes\n    filename: dns.json\n    types:\n      - dns\n\
         - eve-log:\n    enabled: no\n    filename: off.json\n    types: [alert, dns]\n\
         - fast:\n    enabled: no\n",
        RULES,
    );
    let a = records(&log.join("alerts.json"));
    let d = records(&log.join("dns.json"));
    assert!(a.iter().all(|r| r["event_type"] == "alert"));
    assert!(d.iter().all(|r| r["event_type"] == "dns"));
    let sids = |v: &[&Value]| -> Vec<String> {
        let mut s: Vec<String> = v
            .iter()
            .map(|r| format!("{} {}", r["pcap_cnt"], r["alert"]["signature_id"]))
            .collect();
        s.sort();
        s
    };
    assert_eq!(sids(&a.iter().collect::<Vec<_>>()), sids(&alerts));
    assert_eq!(d.len(), dns.len());
    assert!(
        !log.join("off.json").exists(),
        "a disabled output writes nothing"
    );
    assert!(!log.join("fast.log").exists(), "fast disabled");
    assert!(
        !log.join("eve.json").exists(),
        "only the configured outputs"
    );
}

#[test]
fn append_or_truncate() {
    let dir = tempdir("outputs-append");
    let yaml = |append: &str| {
        format!(
            "outputs:\n- fast:\n    enabled: yes\n    filename: fast.log{append}\n\
             - eve-log:\n    enabled: yes\n    filename: eve.json\n    types: [alert]{append}\n"
        )
    };
    let count = |log: &Path, f: &str| {
        std::fs::read_to_string(log.join(f))
            .unwrap()
            .lines()
            .count()
    };
    // Default: appended, as Suricata.
    let (log, _) = run(&dir, &yaml(""), RULES);
    let (n_eve, n_fast) = (count(&log, "eve.json"), count(&log, "fast.log"));
    assert!(n_eve > 0 && n_fast > 0);
    run(&dir, &yaml(""), RULES);
    assert_eq!(count(&log, "eve.json"), 2 * n_eve);
    assert_eq!(count(&log, "fast.log"), 2 * n_fast);
    // `append: no`: created afresh.
    run(&dir, &yaml("\n    append: no"), RULES);
    assert_eq!(count(&log, "eve.json"), n_eve);
    assert_eq!(count(&log, "fast.log"), n_fast);
}

const STATS_YAML: &str = r#"stats:
  enabled: yes
  interval: 8
outputs:
  - fast:
      enabled: yes
      filename: fast.log
  - eve-log:
      enabled: yes
      filetype: regular
      filename: eve.json
      types:
        - alert
        - dns
        - stats:
            totals: yes
            threads: no
            deltas: no
  - stats:
      enabled: yes
      filename: stats.log
      append: yes
      totals: yes
      threads: no
"#;

#[test]
fn stats_record_once_at_exit() {
    let dir = tempdir("outputs-stats-eve");
    let (log, _) = run(&dir, STATS_YAML, RULES);
    let recs = records(&log.join("eve.json"));
    let stats = of_type(&recs, "stats");
    assert_eq!(stats.len(), 1, "one stats record (at exit) for a short run");
    let s = &stats[0]["stats"];
    assert_eq!(s.as_object().unwrap().keys().next().unwrap(), "uptime");
    assert_eq!(s["decoder"]["pkts"], 78);
    assert_eq!(s["decoder"]["bytes"], 25025);
    assert!(
        s.get("osprey").is_none(),
        "Osprey's own counters stay in stats.json"
    );
    assert!(s.get("threads").is_none());
    assert!(stats[0]["timestamp"].is_string());
    // Disabled statistics: no record, no stats.log.
    let off = STATS_YAML.replace("enabled: yes\n  interval", "enabled: no\n  interval");
    let (log, stderr) = run(&tempdir("outputs-stats-off"), &off, RULES);
    assert!(of_type(&records(&log.join("eve.json")), "stats").is_empty());
    assert!(!log.join("stats.log").exists());
    assert!(stderr.contains("stats: enabled"), "{stderr}");
}

/// The rows of a stats.log block: (counter, thread, value).
fn rows(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter(|l| l.contains(" | ") && !l.starts_with("Counter"))
        .map(|l| {
            let p: Vec<&str> = l.split(" | ").collect();
            (p[0].trim().into(), p[1].trim().into(), p[2].into())
        })
        .collect()
}

/// Lines with the variable parts (dates, uptime, counter names, values) blanked.
fn layout(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            if l.starts_with("Date: ") {
                let digits: String = l
                    .chars()
                    .map(|c| if c.is_ascii_digit() { '9' } else { c })
                    .collect();
                return digits;
            }
            if l.contains(" | ") && !l.starts_with("Counter") {
                let p: Vec<&str> = l.split(" | ").collect();
                // Name column padded to 45, thread column to 25.
                return format!("{}|{}|", p[0].len().max(45), p[1].len());
            }
            l.to_string()
        })
        .collect()
}

#[test]
fn stats_log_as_suricata_writes_it() {
    let dir = tempdir("outputs-stats-log");
    let (log, _) = run(&dir, STATS_YAML, RULES);
    let ours = std::fs::read_to_string(log.join("stats.log")).unwrap();
    assert!(ours.starts_with(&"-".repeat(84)));
    let r = rows(&ours);
    assert!(r
        .iter()
        .any(|(n, t, v)| n == "decoder.pkts" && t == "Total" && v == "78"));
    assert!(r.iter().all(|(_, _, v)| v != "0"), "zero counters left out");
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    let yaml = dir.join("suricata.yaml");
    std::fs::write(&yaml, format!("%YAML 1.1\n---\n{STATS_YAML}")).unwrap();
    assert!(common::run_suricata(
        &yaml,
        Path::new(&sample()),
        &dir.join("test.rules"),
        &sdir
    ));
    let theirs = std::fs::read_to_string(sdir.join("stats.log")).unwrap();
    // The same header and the same columns.
    let (a, b) = (layout(&ours), layout(&theirs));
    assert_eq!(a[..5], b[..5], "header:\n{ours}\n---\n{theirs}");
    let body = |v: &[String]| {
        v[5..]
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(body(&a), body(&b));
    // The capture's totals agree (layer counts depend on the decoder settings, which
    // this minimal configuration leaves at Suricata's built-in defaults).
    let theirs = rows(&theirs);
    for name in ["decoder.pkts", "decoder.bytes", "decoder.ipv4"] {
        let get =
            |r: &[(String, String, String)]| r.iter().find(|x| x.0 == name).map(|x| x.2.clone());
        assert_eq!(get(&r), get(&theirs), "{name}");
    }
}

#[test]
fn unimplemented_keys_are_named_once() {
    let dir = tempdir("outputs-warn");
    let (_, stderr) = run(
        &dir,
        "outputs:\n\
         - eve-log:\n    enabled: yes\n    filename: eve.json\n    xff:\n      enabled: yes\n    types:\n      \
           - http:\n          custom: [a]\n\
         - pcap-log:\n    enabled: yes\n\
         - tls-store:\n    enabled: no\n",
        RULES,
    );
    for key in [
        "outputs.0.eve-log.xff",
        "outputs.0.eve-log.types.http.custom",
        "outputs.1.pcap-log",
    ] {
        assert_eq!(
            stderr.matches(key).count(),
            1,
            "{key} named once:\n{stderr}"
        );
    }
    assert!(
        !stderr.contains("tls-store"),
        "a disabled output is not reported"
    );
}

#[test]
fn log_dir_must_exist_and_default_log_dir() {
    let out = osprey(&[
        "-r",
        &sample(),
        "-k",
        "none",
        "-l",
        "/nonexistent/osprey-log",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("doesn't exist"), "{stderr}");
    // Without -l, the configuration's default-log-dir.
    let dir = tempdir("outputs-default-log-dir");
    let set = format!("default-log-dir={}", dir.display());
    let out = osprey(&[
        "-r",
        &sample(),
        "-k",
        "none",
        "-S",
        "/dev/null",
        "--set",
        &set,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("eve.json").exists() && dir.join("stats.json").exists());
}

#[test]
fn community_id_as_suricata() {
    let dir = tempdir("outputs-community-id");
    let yaml =
        "outputs:\n- eve-log:\n    enabled: yes\n    filename: eve.json\n    community-id: yes\n    types: [alert]\n";
    let (log, _) = run(
        &dir,
        &yaml.replace("types:", "pcap-file: yes\n    types:"),
        ALL,
    );
    let ours = records(&log.join("eve.json"));
    assert!(ours.iter().all(|r| r["pcap_filename"] == sample().as_str()));
    assert!(ours.iter().all(|r| r["community_id"]
        .as_str()
        .is_some_and(|c| c.starts_with("1:"))));
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    let syaml = dir.join("suricata.yaml");
    std::fs::write(&syaml, format!("%YAML 1.1\n---\n{yaml}")).unwrap();
    assert!(common::run_suricata(
        &syaml,
        Path::new(&sample()),
        &dir.join("test.rules"),
        &sdir
    ));
    let by_packet = |recs: &[Value]| -> std::collections::BTreeMap<u64, String> {
        recs.iter()
            .filter(|r| r["event_type"] == "alert")
            .filter_map(|r| {
                Some((
                    r["pcap_cnt"].as_u64()?,
                    r["community_id"].as_str()?.to_string(),
                ))
            })
            .collect()
    };
    let (o, s) = (
        by_packet(&ours),
        by_packet(&records(&sdir.join("eve.json"))),
    );
    let common: Vec<_> = o.keys().filter(|k| s.contains_key(k)).collect();
    assert!(
        common.len() >= 10,
        "alerts on the same packets: {}",
        common.len()
    );
    for k in common {
        assert_eq!(o[k], s[k], "community_id of packet {k}");
    }
}

/// A pcap global header (Ethernet): a run reading it from standard input then waits
/// for more.
const PCAP_HEADER: [u8; 24] = [
    0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0,
];

/// Waits (at most 10 s) until `done` holds.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(t.elapsed() < std::time::Duration::from_secs(10), "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn stats_at_the_interval_and_every_output_reopens_on_sighup() {
    use std::io::Write;
    let dir = tempdir("outputs-interval");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(
        &yaml,
        STATS_YAML
            .replace("interval: 8", "interval: 1")
            .replace("filename: eve.json", "filename: a.json")
            + "  - eve-log:\n      enabled: yes\n      filename: d.json\n      types: [dns]\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(["-r", "-", "--no-progress", "--gpu", "off", "-k", "none"])
        .args(["-S", "/dev/null", "-c"])
        .arg(&yaml)
        .arg("-l")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("osprey starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&PCAP_HEADER).unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    // Two intervals: two stats.log blocks and two stats records while running.
    wait_until("stats.log blocks at the interval", || {
        read("stats.log").matches("Date: ").count() >= 2
    });
    wait_until("stats records at the interval", || {
        read("a.json").matches("\"event_type\":\"stats\"").count() >= 2
    });
    // Rotation: every file output is moved away, SIGHUP makes each anew.
    let files = ["a.json", "d.json", "fast.log", "stats.log"];
    for f in files {
        std::fs::rename(dir.join(f), dir.join(format!("{f}.1"))).unwrap();
    }
    let st = Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    wait_until("every output reopened", || {
        files.iter().all(|f| dir.join(f).exists())
    });
    drop(stdin);
    let t = std::time::Instant::now();
    let st = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30),
            "osprey did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(st.success());
    // The record at exit lands in the reopened file.
    assert!(read("a.json").contains("\"event_type\":\"stats\""));
    assert!(read("stats.log").contains("Date: "));
    assert!(!read("a.json.1").contains("\"event_type\":\"dns\""));
}

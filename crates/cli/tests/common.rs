//! Helpers shared by the binary's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The shared reference data beside the checkout, or `None` (after printing why) when it
/// is absent and `OSPREY_REQUIRE_DATA` is not set.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("OSPREY_REQUIRE_DATA").is_some_and(|v| v == "1") {
        panic!("OSPREY_REQUIRE_DATA=1 but {} is missing", path.display());
    }
    eprintln!(
        "skipped: {} not found (set OSPREY_REQUIRE_DATA=1 to require it)",
        path.display()
    );
    None
}

/// The `emerging-*.rules` files of the shared ET Open copy, in name order, written as one
/// file `et-all.rules` into `out`; `None` (after printing why) without the shared data.
pub fn et_open_rules(out: &std::path::Path) -> Option<PathBuf> {
    let dir = shared("rules/et-open")?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("rules dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("emerging-") && n.ends_with(".rules")
        })
        .collect();
    files.sort();
    let mut all = String::new();
    for f in &files {
        all.push_str(&std::fs::read_to_string(f).expect("rules readable"));
        if !all.ends_with('\n') {
            all.push('\n');
        }
    }
    let rules = out.join("et-all.rules");
    std::fs::write(&rules, all).expect("write rules");
    Some(rules)
}

/// The repository root.
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)
}

/// Runs the `osprey` binary with `args`, in the UTC time zone (EVE and fast.log write
/// local time, as Suricata does; the expected values in the tests are UTC).
pub fn osprey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_osprey"))
        .env("TZ", "UTC")
        .args(args)
        .output()
        .expect("the osprey binary runs")
}

/// A fresh temporary directory under the target dir.
pub fn tempdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Reads `dir/stats.json`.
pub fn stats(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("stats.json")).expect("stats.json written");
    serde_json::from_str(&text).expect("stats.json is JSON")
}

/// A test that needs root and network namespaces cannot run: fails under
/// `OSPREY_REQUIRE_NETNS=1` (CI, where it can), else prints why and lets it pass.
pub fn skip_netns(test: &str, reason: &str) {
    if std::env::var("OSPREY_REQUIRE_NETNS").as_deref() == Ok("1") {
        panic!("{test} cannot run: {reason} (OSPREY_REQUIRE_NETNS=1)");
    }
    eprintln!("skipped: {reason}");
}

/// Whether `cmd arg` can be started (the tool is installed).
pub fn runs(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// The reference `suricata` can be run, or `None` after printing why the test is
/// skipped (a failure under `OSPREY_REQUIRE_SURICATA=1`, which CI sets where it
/// installs Suricata).
#[allow(dead_code)]
pub fn suricata() -> Option<()> {
    if runs("suricata", "-V") {
        return Some(());
    }
    if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
        panic!("OSPREY_REQUIRE_SURICATA=1 but suricata cannot be run");
    }
    eprintln!("skipped: suricata not installed (set OSPREY_REQUIRE_SURICATA=1 to require it)");
    None
}

/// Runs the reference Suricata on `pcap` with `rules` and the configuration `yaml`
/// (`-k none --runmode single -l out`, output silenced); whether it exited with 0.
#[allow(dead_code)]
pub fn run_suricata(
    yaml: &std::path::Path,
    pcap: &std::path::Path,
    rules: &std::path::Path,
    out: &std::path::Path,
) -> bool {
    Command::new("suricata")
        .arg("-c")
        .arg(yaml)
        .arg("-r")
        .arg(pcap)
        .arg("-S")
        .arg(rules)
        .args(["-k", "none", "--runmode", "single", "-l"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs the reference Suricata without rules on `pcap` with the configuration `yaml`,
/// logging into `out` (created); the text of its `eve.json`. Fails the test when
/// Suricata does not run to the end.
#[allow(dead_code)]
pub fn suricata_eve(
    yaml: &std::path::Path,
    pcap: &std::path::Path,
    out: &std::path::Path,
) -> String {
    suricata_rules_eve(yaml, pcap, std::path::Path::new("/dev/null"), out)
}

/// Runs the reference Suricata with `rules` on `pcap` and the configuration `yaml`,
/// logging into `out` (created); the text of its `eve.json`. Fails the test when
/// Suricata does not run to the end.
pub fn suricata_rules_eve(
    yaml: &std::path::Path,
    pcap: &std::path::Path,
    rules: &std::path::Path,
    out: &std::path::Path,
) -> String {
    std::fs::create_dir_all(out).expect("create Suricata's log dir");
    assert!(
        run_suricata(yaml, pcap, rules, out),
        "suricata runs on {}",
        pcap.display()
    );
    std::fs::read_to_string(out.join("eve.json")).expect("Suricata wrote eve.json")
}

/// [`suricata_rules_eve`] retried while `accept` refuses its `eve.json`, three runs at
/// most (logging into `out-0`, `out-1`, ...); the text of the last run's `eve.json`.
/// For live comparisons on events Suricata decides on the wall clock (its flow
/// manager), which a loaded machine now and then moves.
#[allow(dead_code)]
pub fn suricata_rules_eve_until(
    yaml: &std::path::Path,
    pcap: &std::path::Path,
    rules: &std::path::Path,
    out: &std::path::Path,
    accept: impl Fn(&str) -> bool,
) -> String {
    let mut eve = String::new();
    for attempt in 0..3 {
        let dir = std::path::PathBuf::from(format!("{}-{attempt}", out.display()));
        eve = suricata_rules_eve(yaml, pcap, rules, &dir);
        if accept(&eve) {
            break;
        }
    }
    eve
}

/// Runs `args[0] args[1..]`; its stderr is the error when it fails.
pub fn sh(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Waits for `child` to exit; kills it and fails the test after `limit`.
pub fn wait_exit(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let t = std::time::Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("osprey did not stop within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `osprey -c YAML -S RULES -r PCAP -k K --runmode single -l OUT EXTRA...`,
/// creating OUT; the process's output (its status and stderr are the caller's to check).
pub fn osprey_single_with(
    yaml: &std::path::Path,
    rules: &std::path::Path,
    pcap: &std::path::Path,
    k: &str,
    out: &std::path::Path,
    extra: &[&str],
) -> Output {
    std::fs::create_dir_all(out).unwrap();
    let mut args = vec![
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        k,
        "--runmode",
        "single",
        "-l",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    osprey(&args)
}

/// [`osprey_single_with`] without extra arguments.
pub fn osprey_single_k(
    yaml: &std::path::Path,
    rules: &std::path::Path,
    pcap: &std::path::Path,
    k: &str,
    out: &std::path::Path,
) -> Output {
    osprey_single_with(yaml, rules, pcap, k, out, &[])
}

/// [`osprey_single_k`] without checksum validation (`-k none`).
pub fn osprey_single(
    yaml: &std::path::Path,
    rules: &std::path::Path,
    pcap: &std::path::Path,
    out: &std::path::Path,
) -> Output {
    osprey_single_k(yaml, rules, pcap, "none", out)
}

/// Runs `osprey` with the yaml text `config` (written to `dir/osprey.yaml`) and the rules
/// file `rules` over `pcap` in the single runmode, without checksum validation, logging
/// into `dir/osprey`; returns its `eve.json`.
pub fn osprey_eve(
    dir: &std::path::Path,
    config: &str,
    pcap: &std::path::Path,
    rules: &std::path::Path,
) -> String {
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, config).unwrap();
    let out = dir.join("osprey");
    let r = osprey_single(&yaml, rules, pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json")).unwrap()
}

/// Prints the records (one string each) only one side has, then fails if there are any
/// or if the two lists differ in order or count.
pub fn assert_same_records(got: &[String], want: &[String]) {
    let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
    let extra: Vec<_> = got.iter().filter(|g| !want.contains(g)).collect();
    for m in &missing {
        eprintln!("missing: {}", &m[..m.len().min(600)]);
    }
    for e in &extra {
        eprintln!("extra:   {}", &e[..e.len().min(600)]);
    }
    assert!(missing.is_empty() && extra.is_empty());
    assert_eq!(got, want);
}

/// Runs `osprey -r pcap -S rules -k none --threads N` into `dir/log<N>` (created) and
/// returns that log directory; fails on an unsuccessful exit.
pub fn run_with_threads(
    dir: &std::path::Path,
    pcap: &std::path::Path,
    rules: &std::path::Path,
    threads: &str,
) -> PathBuf {
    let log = dir.join(format!("log{threads}"));
    run_into(&log, pcap, rules, threads, &[]);
    log
}

/// Runs `osprey -r pcap -S rules -k none --threads threads` with `extra` arguments,
/// logging into `log` (created); fails on an unsuccessful exit.
pub fn run_into(
    log: &std::path::Path,
    pcap: &std::path::Path,
    rules: &std::path::Path,
    threads: &str,
    extra: &[&str],
) {
    std::fs::create_dir_all(log).unwrap();
    let mut args = vec![
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-k",
        "none",
        "--threads",
        threads,
        "-l",
        log.to_str().unwrap(),
        "--no-progress",
    ];
    args.extend_from_slice(extra);
    let out = osprey(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `osprey gen` of a hunt test's link into `pcap`: 3,000 packets over 30 flows, imix
/// sizes, half of them attacks built from `rules`, with `seed`. Fails on an error.
#[allow(dead_code)]
pub fn gen_link(pcap: &std::path::Path, rules: &std::path::Path, seed: &str) {
    let out = osprey(&[
        "gen",
        "-o",
        pcap.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--packets",
        "3000",
        "--flows",
        "30",
        "--size",
        "imix",
        "--attack-fraction",
        "0.5",
        "--seed",
        seed,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The rules of the attacks `osprey gen` builds into its conversations: a URI and a raw
/// TCP payload (sids 1000001 and 1000002).
pub const GEN_ATTACK_RULES: &str = "alert http $HOME_NET any -> $EXTERNAL_NET any (msg:\"uri\"; \
    flow:established,to_server; http.uri; content:\"/gate.php?id=\"; pcre:\"/id=\\d{4}$/\"; \
    sid:1000001; rev:1;)\n\
    alert tcp $EXTERNAL_NET any -> $HOME_NET 4444 (msg:\"raw\"; flow:established,to_server; \
    content:\"|de ad be ef|\"; depth:4; content:\"shell\"; distance:2; within:5; \
    sid:1000002; rev:1;)\n";

/// The rule of `osprey gen`'s response-body attack (sid 1000003).
pub const GEN_BODY_RULE: &str = "alert http $EXTERNAL_NET any -> $HOME_NET any (msg:\"body\"; \
    flow:established,to_client; http.response_body; content:\"EVILPAYLOAD\"; sid:1000003; \
    rev:1;)\n";

/// Each alert once as (sid, source port, destination port, tx_id).
pub fn alert_txs(lines: &str) -> Vec<(u64, u64, u64, u64)> {
    let mut v: Vec<_> = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["tx_id"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// (signature id, pcap_cnt, src, src port, dest, dest port) of every alert in
/// `dir/eve.json`, sorted: what runs that must agree (GPU modes, worker counts) compare.
pub fn alert_keys(dir: &std::path::Path) -> Vec<(u64, u64, String, String, String, String)> {
    let text = std::fs::read_to_string(dir.join("eve.json")).unwrap_or_default();
    let mut v: Vec<_> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event_type"] == "alert")
        .map(|e| {
            (
                e["alert"]["signature_id"].as_u64().unwrap_or(0),
                e["pcap_cnt"].as_u64().unwrap_or(0),
                e["src_ip"].to_string(),
                e["src_port"].to_string(),
                e["dest_ip"].to_string(),
                e["dest_port"].to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The `osprey.gpu.NAME` counter of `dir/stats.json` (0 when absent).
pub fn gpu_counter(dir: &std::path::Path, name: &str) -> u64 {
    stats(dir)["osprey"]["gpu"][name].as_u64().unwrap_or(0)
}

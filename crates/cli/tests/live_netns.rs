//! Live capture end to end: two network namespaces joined by a veth pair; `osprey -i`
//! with two workers (AF_PACKET fanout) on one end, tcpreplay replaying corpus captures
//! at a bounded rate from the other; the alerts must be the corpus' expected ones,
//! compared on signature id and 5-tuple (live packets have no `pcap_cnt`). SIGINT then
//! ends the run with exit status 0, and the kernel ring counters are reported. A filter
//! expression after the options is compiled in-process and filters in the kernel.
//!
//! Needs root, `ip` (iproute2) and `tcpreplay`. Skipped with a printed reason otherwise,
//! unless OSPREY_REQUIRE_NETNS=1 makes it mandatory.
#![cfg(target_os = "linux")]

mod common;

use common::{runs, sh};

use common::shared;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Corpus cases replayed (plain Ethernet captures, frames ≤ 1514 bytes, no special
/// configuration), whose offline alerts equal Suricata's.
const CASES: &[&str] = &[
    "http-raw-header",
    "dns__dns-query__dns-detect-query-01",
    "http-protocol-inspect-v2",
];

type Key = (u64, String, u64, String, u64, String);

fn skip(reason: &str) {
    common::skip_netns("live capture test", reason);
}

/// Two namespaces and the veth pair between them; removed on drop.
struct Netns {
    a: String,
    b: String,
}

impl Netns {
    /// Namespaces named after `tag` (one per test: tests run in parallel) and the pid.
    fn new(tag: &str) -> Result<Netns, String> {
        let id = std::process::id();
        let ns = Netns {
            a: format!("osprey-{tag}a-{id}"),
            b: format!("osprey-{tag}b-{id}"),
        };
        sh(&["ip", "netns", "add", &ns.a])?;
        sh(&["ip", "netns", "add", &ns.b])?;
        sh(&[
            "ip", "link", "add", "va", "netns", &ns.a, "type", "veth", "peer", "name", "vb",
            "netns", &ns.b,
        ])?;
        sh(&["ip", "-n", &ns.a, "link", "set", "va", "up"])?;
        sh(&["ip", "-n", &ns.b, "link", "set", "vb", "up"])?;
        Ok(ns)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = sh(&["ip", "netns", "del", &self.a]);
        let _ = sh(&["ip", "netns", "del", &self.b]);
    }
}

fn key(o: &Value) -> Key {
    let sid = o["alert"]["signature_id"]
        .as_u64()
        .or_else(|| o["signature_id"].as_u64())
        .unwrap_or(0);
    let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
    let n = |k: &str| o[k].as_u64().unwrap_or(u64::MAX);
    (
        sid,
        s("src_ip"),
        n("src_port"),
        s("dest_ip"),
        n("dest_port"),
        s("proto").to_uppercase(),
    )
}

fn load(path: &Path, eve: bool) -> BTreeMap<Key, usize> {
    let mut m = BTreeMap::new();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let o: Value = serde_json::from_str(line).expect("JSON line");
        if eve && o["event_type"] != "alert" {
            continue;
        }
        *m.entry(key(&o)).or_default() += 1;
    }
    m
}

/// Starts `osprey -k none --no-progress -l out ARGS` in `ns.a`; returns once it says it
/// is capturing.
fn start_live(ns: &Netns, out: &Path, args: &[String]) -> Result<std::process::Child, String> {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.a, env!("CARGO_BIN_EXE_osprey")])
        .args(["-k", "none", "--no-progress", "-l"])
        .arg(out)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let t = Instant::now();
    let mut log = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) if line.contains("capturing on") => break,
            Ok(line) => log.push(line),
            Err(_) => {
                let _ = child.kill();
                return Err(format!("osprey did not start: {log:?}"));
            }
        }
        if t.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            return Err("osprey did not start in 30 s".into());
        }
    }
    Ok(child)
}

/// Sends SIGINT to `child` and waits (20 s at most) for it to end.
fn stop_live(child: &mut std::process::Child) -> Result<std::process::ExitStatus, String> {
    sh(&["kill", "-INT", &child.id().to_string()])?;
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(st);
        }
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            return Err("osprey did not stop on SIGINT".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Captures while `dir`'s input is replayed, with the capture filter `filter` (words
/// after the options; none for no filter); returns stats.json and the alerts.
fn replay_case(
    ns: &Netns,
    dir: &Path,
    out: &Path,
    filter: &[&str],
) -> Result<(Value, BTreeMap<Key, usize>), String> {
    // `-l` names an existing directory (as in Suricata).
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let mut args = vec![
        "-i".to_string(),
        "va".into(),
        "--threads".into(),
        "2".into(),
        "-S".into(),
        dir.join("test.rules").display().to_string(),
    ];
    if dir.join("suricata.yaml").exists() {
        args.push("-c".into());
        args.push(dir.join("suricata.yaml").display().to_string());
    }
    args.extend(filter.iter().map(|f| f.to_string()));
    let mut child = start_live(ns, out, &args)?;
    // The sockets are opened right after that line.
    std::thread::sleep(Duration::from_millis(700));
    let pcap = dir.join("input.pcap");
    let replay = sh(&[
        "ip",
        "netns",
        "exec",
        &ns.b,
        "tcpreplay",
        "-q",
        "-i",
        "vb",
        "--pps=200",
        pcap.to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_millis(700));
    let status = stop_live(&mut child)?;
    replay?;
    if !status.success() {
        return Err(format!("osprey exit status {status:?}"));
    }
    let stats: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("stats.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let kernel = stats["capture"]["kernel_packets"].as_u64().unwrap_or(0);
    let drops = stats["capture"]["kernel_drops"].as_u64().unwrap_or(0);
    let decoded = stats["decoder"]["pkts"].as_u64().unwrap_or(0);
    // Every frame the kernel put in (or dropped from) the rings was inspected or counted
    // as dropped; a few may arrive between the drain and the final counter read.
    // (A filter may leave nothing for the kernel to hand over.)
    if (kernel == 0 && filter.is_empty())
        || decoded + drops > kernel
        || kernel - decoded - drops > 8
    {
        return Err(format!(
            "counters do not add up: kernel_packets={kernel} kernel_drops={drops} decoder.pkts={decoded}"
        ));
    }
    Ok((stats, load(&out.join("eve.json"), true)))
}

#[test]
fn live_capture_raises_the_expected_alerts() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return skip("not root");
    }
    if !runs("ip", "-V") {
        return skip("`ip` (iproute2) not installed");
    }
    if !runs("tcpreplay", "-V") {
        return skip("tcpreplay not installed");
    }
    let ns = match Netns::new("r") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let out_root = common::tempdir("live-netns");
    let mut failures = Vec::new();
    for case in CASES {
        let out = out_root.join(case);
        std::fs::create_dir_all(&out).unwrap();
        let expected = load(&corpus.join(case).join("expected.jsonl"), false);
        match replay_case(&ns, &corpus.join(case), &out, &[]) {
            Ok((_, got)) if got == expected => {}
            Ok((_, got)) => failures.push(format!(
                "{case}: alerts differ: expected {expected:?}, got {got:?}"
            )),
            Err(e) => failures.push(format!("{case}: {e}")),
        }
    }
    // A filter expression, compiled in-process by libpcap and attached to the sockets:
    // one that keeps the DNS case's queries keeps its alerts, one that leaves UDP out
    // leaves them out (the kernel never hands those frames over).
    let case = corpus.join("dns__dns-query__dns-detect-query-01");
    let expected = load(&case.join("expected.jsonl"), false);
    for (name, filter, keeps) in [
        ("keep", &["udp", "port", "53"][..], true),
        ("drop", &["tcp"][..], false),
    ] {
        let out = out_root.join(format!("filter-{name}"));
        std::fs::create_dir_all(&out).unwrap();
        match replay_case(&ns, &case, &out, filter) {
            Ok((stats, got)) => {
                let udp = stats["decoder"]["udp"].as_u64().unwrap_or(0);
                if keeps && (got != expected || udp == 0) {
                    failures.push(format!("filter {filter:?}: got {got:?}, udp {udp}"));
                }
                if !keeps && (!got.is_empty() || udp != 0) {
                    failures.push(format!("filter {filter:?}: got {got:?}, udp {udp}"));
                }
            }
            Err(e) => failures.push(format!("filter {filter:?}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The link going down and up under a running capture: the socket error the kernel
/// leaves is read and counted (`osprey.capture.link_errors`), the worker goes back to
/// waiting instead of spinning on `poll` (a busy loop would burn a core for ever), and
/// SIGINT still ends the run cleanly.
#[test]
fn a_link_that_goes_down_and_up_is_counted_not_spun_on() {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return skip("not root");
    }
    if !runs("ip", "-V") {
        return skip("`ip` (iproute2) not installed");
    }
    let ns = match Netns::new("f") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let out = common::tempdir("live-flap");
    let args = ["-i", "va", "--threads", "1", "-S", "/dev/null"].map(String::from);
    let mut child = start_live(&ns, &out, &args).expect("osprey starts");
    std::thread::sleep(Duration::from_millis(700));
    sh(&["ip", "-n", &ns.a, "link", "set", "va", "down"]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    sh(&["ip", "-n", &ns.a, "link", "set", "va", "up"]).unwrap();
    let cpu_ticks = || -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        // utime and stime: fields 14 and 15, counted after the parenthesised name.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = rest.split(' ').collect();
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    };
    let before = cpu_ticks();
    std::thread::sleep(Duration::from_secs(2));
    let spent = cpu_ticks() - before;
    let status = stop_live(&mut child).unwrap();
    assert!(status.success(), "exit status {status:?}");
    // 2 s of an idle link: a spinning worker spends ~200 ticks (at 100 Hz).
    assert!(spent < 50, "{spent} CPU ticks in 2 s of an idle link");
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    let errors = stats["osprey"]["capture"]["link_errors"].as_u64();
    assert!(errors.is_some_and(|n| n >= 1), "link_errors {errors:?}");
}

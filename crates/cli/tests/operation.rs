//! Running Osprey as a service: SIGINT stops a run cleanly (exit 0, outputs and
//! statistics flushed, every frame read inspected), the unix socket reloads the rules
//! and shuts down, `--stats-interval` rewrites stats.json while running.
#![cfg(unix)]

mod common;

use common::shared;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("osprey starts")
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(st.success());
}

fn stats(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("stats.json")).expect("stats.json written");
    serde_json::from_str(&text).expect("stats.json is JSON")
}

fn counter(v: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(v, |v, k| &v[k])
        .as_u64()
        .unwrap_or_else(|| panic!("counter {path} missing"))
}

/// Every line of eve.json is a whole JSON record.
fn check_eve(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("eve.json")).unwrap_or_default();
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("eve.json lines are whole records");
    }
    text.lines().count()
}

#[test]
fn sigint_drains_and_flushes() {
    let (Some(pcap), Some(rules)) = (
        shared("pcaps/sv-ether.pcap"),
        shared("rules/et-open/emerging-web_server.rules"),
    ) else {
        return;
    };
    let out = common::tempdir("op-sigint");
    let child = start(&[
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        out.to_str().unwrap(),
        "--threads",
        "2",
        "--stats-interval",
        "0.1",
        "--no-progress",
    ]);
    // Periodic statistics appear while the capture is being read.
    let t = Instant::now();
    while !out.join("stats.json").exists() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // Twice within moments, as `timeout(1)` sends it (to the command, then to its
    // process group): one stop, not the "second signal exits at once" of a later one.
    signal(&child, "-INT");
    std::thread::sleep(Duration::from_millis(100));
    signal(&child, "-INT");
    let st = common::wait_exit(child, Duration::from_secs(60));
    assert!(st.success(), "exit status {st:?}");
    let s = stats(&out);
    let read = counter(&s, "osprey.capture.packets");
    assert!(read > 0 && read <= 183_315, "{read} frames read");
    // Offline nothing is dropped: every frame read went through a worker's decoder.
    assert_eq!(counter(&s, "decoder.pkts"), read);
    assert_eq!(counter(&s, "osprey.dispatch.drops"), 0);
    assert_eq!(counter(&s, "osprey.threads"), 2);
    assert_eq!(check_eve(&out) as u64, counter(&s, "detect.alert"));
}

#[test]
fn unix_socket_reloads_rules_and_shuts_down() {
    let (Some(pcap), Some(rules)) = (
        shared("pcaps/sv-ether.pcap"),
        shared("rules/et-open/emerging-web_server.rules"),
    ) else {
        return;
    };
    let out = common::tempdir("op-socket");
    let sock = out.join("osprey.sock");
    // ET's web-server rules and one that does not parse: the socket's ruleset account
    // counts it from the start, as the summary does.
    let mut text = std::fs::read_to_string(&rules).unwrap();
    text.push_str("\nalert tcp any any -> any any (msg:\"bad\"; frobnicate; sid:9;)\n");
    let rules = out.join("with-a-bad-one.rules");
    std::fs::write(&rules, text).unwrap();
    let child = start(&[
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        out.to_str().unwrap(),
        "--threads",
        "2",
        "--unix-socket",
        sock.to_str().unwrap(),
        "--no-progress",
    ]);
    let t = Instant::now();
    let stream = loop {
        match UnixStream::connect(&sock) {
            Ok(s) => break s,
            Err(_) if t.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("cannot connect to {}: {e}", sock.display()),
        }
    };
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    let mut ask = |cmd: &str| -> Value {
        w.write_all(cmd.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        serde_json::from_str(&line).expect("JSON reply")
    };
    assert_eq!(ask(r#"{"version": "0.2"}"#)["return"], "OK");
    let stats_reply = ask(r#"{"command": "ruleset-stats"}"#);
    assert_eq!(
        stats_reply["message"][0]["rules_failed"], 1,
        "{stats_reply}"
    );
    assert!(
        stats_reply["message"][0]["rules_loaded"].as_u64().unwrap() > 100,
        "{stats_reply}"
    );
    let failed = ask(r#"{"command": "ruleset-failed-rules"}"#);
    assert!(
        failed["message"].to_string().contains("frobnicate"),
        "{failed}"
    );
    let reply = ask(r#"{"command": "reload-rules"}"#);
    assert_eq!(reply["return"], "OK", "{reply}");
    assert_eq!(ask("no-such-command")["return"], "NOK");
    assert_eq!(ask("shutdown")["return"], "OK");
    let st = common::wait_exit(child, Duration::from_secs(60));
    assert!(st.success(), "exit status {st:?}");
    let s = stats(&out);
    assert_eq!(
        counter(&s, "decoder.pkts"),
        counter(&s, "osprey.capture.packets")
    );
    check_eve(&out);
    assert!(!sock.exists(), "socket file removed at exit");
}

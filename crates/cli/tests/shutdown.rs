//! Stopping a run: a signal that arrives while the rules load ends the run cleanly
//! (issue: the default action used to kill the process, leaving no logs).

mod common;
use common::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether process `pid` has a handler for SIGTERM (its `SigCgt` mask in /proc).
fn catches_sigterm(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (15 - 1)) != 0)
}

#[test]
fn a_stop_during_rule_loading_ends_the_run_cleanly() {
    let dir = tempdir("shutdown-early");
    // Enough rules that loading them takes a while in any build.
    let mut rules = String::new();
    for i in 1..=60_000u32 {
        rules.push_str(&format!(
            "alert tcp any any -> any any (msg:\"r{i}\"; content:\"pattern-{i}-x\"; sid:{i};)\n"
        ));
    }
    let rule_file = dir.join("many.rules");
    std::fs::write(&rule_file, rules).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(["-r", repo("samples/sample.pcap").to_str().unwrap()])
        .args([
            "-S",
            rule_file.to_str().unwrap(),
            "-l",
            dir.to_str().unwrap(),
        ])
        .args(["-k", "none"])
        .env("TZ", "UTC")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t = Instant::now();
    while !catches_sigterm(pid) {
        assert!(t.elapsed() < Duration::from_secs(30), "no SIGTERM handler");
        std::thread::sleep(Duration::from_millis(2));
    }
    let st = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    assert!(st.unwrap().success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(stderr.contains("while loading the rules"), "{stderr}");
    // Nothing was inspected.
    assert!(!dir.join("stats.json").exists());
}

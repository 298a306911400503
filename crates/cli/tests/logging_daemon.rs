//! Logging, signals and daemon mode without root: log levels (`-v`, `logging:`), the
//! log file reopened on SIGHUP, rules reloaded on SIGUSR2, `-q` refused, `-D` with a
//! pidfile over a capture file, the sample configuration of `etc/`.
#![cfg(unix)]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn stderr_of(args: &[&str]) -> (bool, String) {
    let out = common::osprey(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Waits until `path` exists and holds `needle`.
fn wait_for(path: &Path, needle: &str) -> String {
    let t = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{} never held {needle:?}: {text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn verbosity_and_configured_outputs() {
    let pcap = common::repo("samples/sample.pcap");
    let pcap = pcap.to_str().unwrap();
    let out = common::tempdir("log-levels");
    let dir = out.to_str().unwrap();
    let base = ["-r", pcap, "-l", dir, "--no-progress", "--gpu", "off"];
    // Notice by default: the rules line, not the Info and Perf ones.
    let (ok, err) = stderr_of(&base);
    assert!(ok, "{err}");
    assert!(err.contains("osprey: 0 rules loaded"), "{err}");
    assert!(!err.contains("log directory"), "{err}");
    // -v: Info; -vv: Perf; -vvv: Config.
    let (_, v1) = stderr_of(&[&base[..], &["-v"]].concat());
    assert!(
        v1.contains("log directory") && !v1.contains("rules compiled in"),
        "{v1}"
    );
    let (_, v2) = stderr_of(&[&base[..], &["-vv"]].concat());
    assert!(
        v2.contains("rules compiled in") && !v2.contains("rule files:"),
        "{v2}"
    );
    let (_, v3) = stderr_of(&[&base[..], &["-vvv"]].concat());
    assert!(v3.contains("rule files:"), "{v3}");

    // The configuration: console at error only, the file at info, Suricata's extra
    // keys named once as unused.
    let yaml = out.join("log.yaml");
    std::fs::write(
        &yaml,
        "logging:\n  default-log-level: notice\n  default-log-format: \"%M\"\n  outputs:\n  \
         - console:\n      enabled: yes\n      level: error\n  - file:\n      enabled: yes\n      \
         level: info\n      filename: osprey-test.log\n      append: no\n",
    )
    .unwrap();
    let (ok, err) = stderr_of(&[&base[..], &["-c", yaml.to_str().unwrap()]].concat());
    assert!(ok, "{err}");
    assert!(
        !err.contains("rules loaded"),
        "console shows errors only: {err}"
    );
    let log = std::fs::read_to_string(out.join("osprey-test.log")).expect("log file written");
    assert!(
        log.contains(" Notice: ") && log.contains("rules loaded"),
        "{log}"
    );
    assert!(
        log.contains(" Info: ") && log.contains("log directory"),
        "{log}"
    );
    assert!(
        log.contains("Warning") && log.contains("logging.default-log-format"),
        "{log}"
    );
    assert_eq!(
        log.matches("logging.default-log-format").count(),
        1,
        "{log}"
    );
    assert!(!log.contains("Perf:"), "{log}");
    // A log file that cannot be opened is warned about; the run goes on (as Suricata).
    let bad = out.join("bad.yaml");
    std::fs::write(
        &bad,
        "logging:\n  outputs:\n  - console:\n      enabled: yes\n  - file:\n      filename: /nonexistent/dir/x.log\n",
    )
    .unwrap();
    let (ok, err) = stderr_of(&[&base[..], &["-c", bad.to_str().unwrap()]].concat());
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: file output not used: cannot open log file /nonexistent/dir/x.log"),
        "{err}"
    );
    // `append: no` starts the file afresh.
    stderr_of(&[&base[..], &["-c", yaml.to_str().unwrap()]].concat());
    let again = std::fs::read_to_string(out.join("osprey-test.log")).unwrap();
    assert_eq!(again.matches("rules loaded").count(), 1, "{again}");
}

#[test]
fn nfqueue_is_refused_with_osprey_inline_options() {
    let (ok, err) = stderr_of(&["-q", "0"]);
    assert!(!ok);
    assert!(
        err.contains("NFQUEUE") && err.contains("--af-packet-ips") && err.contains("copy-mode"),
        "{err}"
    );
}

#[test]
fn sample_configuration_loads_without_warnings() {
    let yaml = common::repo("etc/osprey.yaml");
    let rules = common::repo("samples/sample.rules");
    let (ok, err) = stderr_of(&[
        "-T",
        "-c",
        yaml.to_str().unwrap(),
        "-s",
        rules.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("0 failed, 0 unsupported"), "{err}");
    // The rule file the sample names is where suricata-update puts it; where it is not
    // installed, that is the one warning (as Suricata warns and goes on).
    let unexpected = err
        .lines()
        .filter(|l| l.contains("warning") || l.contains("error"))
        .filter(|l| !l.contains("suricata.rules (from the configuration) not found"))
        .count();
    assert_eq!(unexpected, 0, "{err}");
}

/// A pcap global header (Ethernet): the run then waits on standard input.
const PCAP_HEADER: [u8; 24] = [
    0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0,
];

#[test]
fn sighup_reopens_log_and_outputs_sigusr2_reloads_rules() {
    let out = common::tempdir("log-signals");
    let yaml = out.join("log.yaml");
    std::fs::write(
        &yaml,
        "logging:\n  outputs:\n  - file:\n      level: info\n      filename: osprey.log\n",
    )
    .unwrap();
    let rules = out.join("r.rules");
    std::fs::write(&rules, "alert tcp any any -> any any (msg:\"a\"; sid:1;)\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args([
            "-r",
            "-",
            "--no-progress",
            "--gpu",
            "off",
            "-k",
            "none",
            "-c",
        ])
        .arg(&yaml)
        .arg("-S")
        .arg(&rules)
        .arg("-l")
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("osprey starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&PCAP_HEADER).unwrap();
    let log = out.join("osprey.log");
    wait_for(&log, "running");
    let kill = |sig: &str| {
        let st = Command::new("kill")
            .args([sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    };
    // Rotation: the file is moved away, SIGHUP makes a new one that gets the next lines.
    let rotated = out.join("osprey.log.1");
    std::fs::rename(&log, &rotated).unwrap();
    kill("-HUP");
    wait_for(&log, "log files reopened");
    // The EVE and fast.log writers reopen too (when idle, or every 1,024 lines).
    for name in ["eve.json", "fast.log"] {
        std::fs::rename(out.join(name), out.join(format!("{name}.1"))).unwrap();
    }
    kill("-HUP");
    let t = Instant::now();
    while !(out.join("eve.json").exists() && out.join("fast.log").exists()) {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "outputs not reopened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGUSR2 reloads the rules (now two of them); SIGHUP did not.
    std::fs::write(
        &rules,
        "alert tcp any any -> any any (msg:\"a\"; sid:1;)\nalert udp any any -> any any (msg:\"b\"; sid:2;)\n",
    )
    .unwrap();
    kill("-USR2");
    let text = wait_for(&log, "rules reloaded: 2 rules loaded");
    assert_eq!(text.matches("reloading rules").count(), 1, "{text}");
    let old = std::fs::read_to_string(&rotated).unwrap();
    assert!(
        old.contains("rules loaded") && !old.contains("reopened"),
        "{old}"
    );
    // A TCP packet: its alert lands in the reopened files.
    stdin.write_all(&tcp_record()).unwrap();
    drop(stdin);
    let t = Instant::now();
    let st = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "osprey did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(st.success(), "{st:?}");
    let fast = std::fs::read_to_string(out.join("fast.log")).unwrap();
    assert!(fast.contains("[1:1:0] a"), "{fast}");
    assert_eq!(std::fs::read_to_string(out.join("fast.log.1")).unwrap(), "");
    let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
    assert!(eve.contains("\"signature_id\":1"), "{eve}");
}

/// One pcap record: Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, TCP SYN 1234 -> 80.
fn tcp_record() -> Vec<u8> {
    let mut frame = vec![0u8; 54];
    frame[12..14].copy_from_slice(&[0x08, 0x00]);
    frame[14..34].copy_from_slice(&[
        0x45, 0, 0, 40, 0, 1, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ]);
    frame[34..38].copy_from_slice(&[0x04, 0xd2, 0, 80]);
    frame[46] = 0x50;
    frame[47] = 0x02;
    let mut rec = Vec::new();
    for v in [1_700_000_000u32, 0, 54, 54] {
        rec.extend_from_slice(&v.to_le_bytes());
    }
    rec.extend_from_slice(&frame);
    rec
}

#[test]
fn daemon_over_a_capture_file_with_a_pidfile() {
    let pcap = common::repo("samples/sample.pcap");
    let out = common::tempdir("daemon-file");
    let pidfile = out.join("osprey.pid");
    let dir = out.to_str().unwrap();
    let pid = pidfile.to_str().unwrap();
    // A pidfile naming a live process (this test) is refused, on the terminal.
    std::fs::write(&pidfile, format!("{}\n", std::process::id())).unwrap();
    let args = [
        "-D",
        "--pidfile",
        pid,
        "-r",
        pcap.to_str().unwrap(),
        "-l",
        dir,
        "--gpu",
        "off",
    ];
    let (ok, err) = stderr_of(&args);
    assert!(!ok && err.contains("already running"), "{err}");
    // A stale one is replaced; the parent returns once the daemon runs; the daemon
    // logs to osprey.log, writes its outputs and removes the pidfile at exit.
    std::fs::write(&pidfile, format!("{}\n", i32::MAX)).unwrap();
    let started = Instant::now();
    let (ok, err) = stderr_of(&args);
    assert!(ok, "{err}");
    assert!(err.contains("stale pidfile"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let t = Instant::now();
    while pidfile.exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "pidfile not removed");
        std::thread::sleep(Duration::from_millis(20));
    }
    let stats = common::stats(&out);
    assert_eq!(stats["decoder"]["pkts"], 78, "{stats}");
    let log = std::fs::read_to_string(out.join("osprey.log")).expect("osprey.log");
    assert!(log.contains("rules loaded"), "{log}");
    // A start that fails after detaching reports why, and exits 1.
    let (ok, err) = stderr_of(&[
        "-D",
        "--pidfile",
        pid,
        "-r",
        pcap.to_str().unwrap(),
        "-l",
        dir,
        "--gpu",
        "off",
        "--mpm",
        "no-such-matcher",
    ]);
    assert!(!ok, "{err}");
    assert!(err.contains("no-such-matcher"), "{err}");
    assert!(!pidfile.exists());
}

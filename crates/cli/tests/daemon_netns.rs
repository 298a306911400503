//! Daemon mode on a live interface: `osprey -D --pidfile P -i va` in a network
//! namespace returns at once, the pidfile names the running daemon, a second start on
//! the same pidfile is refused, traffic replayed over the veth pair is inspected,
//! SIGTERM stops the daemon, which writes stats.json and removes its pidfile. With
//! `--user nobody` the daemon runs as nobody and still writes its logs.
//!
//! Needs root, `ip` (iproute2) and `tcpreplay`. Skipped with a printed reason otherwise,
//! unless OSPREY_REQUIRE_NETNS=1 makes it mandatory.
#![cfg(target_os = "linux")]

mod common;

use common::{runs, sh};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn skip(reason: &str) {
    common::skip_netns("daemon test", reason);
}

/// Two namespaces and the veth pair between them (`ia` in `a`, `ib` in `b`); removed
/// on drop.
struct Netns {
    a: String,
    b: String,
    ia: String,
    ib: String,
}

impl Netns {
    fn new(tag: &str) -> Result<Netns, String> {
        let id = std::process::id();
        let ns = Netns {
            a: format!("osprey-{tag}a-{id}"),
            b: format!("osprey-{tag}b-{id}"),
            ia: format!("v{tag}a"),
            ib: format!("v{tag}b"),
        };
        sh(&["ip", "netns", "add", &ns.a])?;
        sh(&["ip", "netns", "add", &ns.b])?;
        sh(&[
            "ip", "link", "add", &ns.ia, "netns", &ns.a, "type", "veth", "peer", "name", &ns.ib,
            "netns", &ns.b,
        ])?;
        sh(&["ip", "-n", &ns.a, "link", "set", &ns.ia, "up"])?;
        sh(&["ip", "-n", &ns.b, "link", "set", &ns.ib, "up"])?;
        Ok(ns)
    }

    fn replay(&self, pcap: &Path) -> Result<(), String> {
        sh(&[
            "ip",
            "netns",
            "exec",
            &self.b,
            "tcpreplay",
            "-q",
            "-i",
            &self.ib,
            "--pps=200",
            pcap.to_str().unwrap(),
        ])
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = sh(&["ip", "netns", "del", &self.a]);
        let _ = sh(&["ip", "netns", "del", &self.b]);
    }
}

/// Whether the tests can run here; prints why not.
fn usable() -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        skip("not root");
        return false;
    }
    if !runs("ip", "-V") {
        skip("`ip` (iproute2) not installed");
        return false;
    }
    if !runs("tcpreplay", "-V") {
        skip("tcpreplay not installed");
        return false;
    }
    true
}

/// `osprey -D ...` in namespace `ns`: its status and stderr.
fn start_daemon(ns: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_osprey"), "-D"])
        .args(args)
        .output()
        .expect("ip runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `State:` and `Uid:` lines of a process, `None` once it is gone (or a zombie).
fn status(pid: i32) -> Option<String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let state = text.lines().find(|l| l.starts_with("State:"))?;
    (!state.contains("Z")).then_some(text)
}

fn pid_of(pidfile: &Path) -> i32 {
    std::fs::read_to_string(pidfile)
        .expect("pidfile written")
        .trim()
        .parse()
        .expect("pidfile holds a pid")
}

/// SIGTERM to `pid`, then waits for it to end.
fn terminate(pid: i32) {
    sh(&["kill", "-TERM", &pid.to_string()]).expect("kill");
    let t = Instant::now();
    while status(pid).is_some() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn fresh_dir(name: &str) -> PathBuf {
    // Under /tmp: every ancestor can be searched by `nobody`.
    let dir = std::env::temp_dir().join(format!("osprey-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn daemon_on_a_veth_stops_on_sigterm() {
    if !usable() {
        return;
    }
    let ns = match Netns::new("d") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let out = fresh_dir("daemon");
    let pidfile = out.join("osprey.pid");
    let rules = common::repo("samples/sample.rules");
    let args = [
        "--pidfile",
        pidfile.to_str().unwrap(),
        "-i",
        &ns.ia,
        "-l",
        out.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-k",
        "none",
        "--threads",
        "1",
        "--gpu",
        "off",
    ];
    let t = Instant::now();
    let (ok, err) = start_daemon(&ns.a, &args);
    assert!(ok, "{err}");
    assert!(t.elapsed() < Duration::from_secs(20), "-D did not return");
    let pid = pid_of(&pidfile);
    let st = status(pid).expect("the pidfile names a live process");
    assert!(st.contains("osprey"), "{st}");
    // A second daemon on the same pidfile is refused; the first one goes on.
    let (ok, err) = start_daemon(&ns.a, &args);
    assert!(!ok && err.contains("already running"), "{err}");
    assert!(status(pid).is_some());
    assert_eq!(pid_of(&pidfile), pid);

    ns.replay(&common::repo("samples/sample.pcap"))
        .expect("tcpreplay");
    std::thread::sleep(Duration::from_millis(500));
    terminate(pid);
    assert!(!pidfile.exists(), "pidfile removed at exit");
    let stats = common::stats(&out);
    let decoded = stats["decoder"]["pkts"].as_u64().unwrap_or(0);
    assert!(decoded >= 70, "{stats}");
    assert!(stats["capture"]["kernel_packets"].as_u64().unwrap_or(0) >= decoded);
    assert!(
        stats["detect"]["alert"].as_u64().unwrap_or(0) > 0,
        "{stats}"
    );
    let fast = std::fs::read_to_string(out.join("fast.log")).unwrap_or_default();
    assert!(fast.contains("[1:1000002:1]"), "{fast}");
    let log = std::fs::read_to_string(out.join("osprey.log")).expect("osprey.log");
    assert!(log.contains(&format!("capturing on {}", ns.ia)), "{log}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn daemon_drops_to_nobody_after_opening_its_files() {
    if !usable() {
        return;
    }
    let Ok(id) = Command::new("id").args(["-u", "nobody"]).output() else {
        return skip("no `id`");
    };
    let uid = String::from_utf8_lossy(&id.stdout).trim().to_string();
    if uid.is_empty() {
        return skip("no user nobody");
    }
    let ns = match Netns::new("u") {
        Ok(ns) => ns,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let out = fresh_dir("daemon-nobody");
    // The daemon writes stats.json (and removes its pidfile) as nobody.
    sh(&["chown", "nobody", out.to_str().unwrap()]).unwrap();
    let pidfile = out.join("osprey.pid");
    let (ok, err) = start_daemon(
        &ns.a,
        &[
            "--pidfile",
            pidfile.to_str().unwrap(),
            "--user",
            "nobody",
            "-i",
            &ns.ia,
            "-l",
            out.to_str().unwrap(),
            "-S",
            common::repo("samples/sample.rules").to_str().unwrap(),
            "--threads",
            "1",
            "--gpu",
            "off",
            "-v",
        ],
    );
    assert!(ok, "{err}");
    let pid = pid_of(&pidfile);
    let st = status(pid).expect("the daemon runs");
    let uids = st.lines().find(|l| l.starts_with("Uid:")).unwrap();
    let fields: Vec<&str> = uids.split_whitespace().skip(1).collect();
    assert_eq!(fields, vec![uid.as_str(); 4], "{uids}");
    ns.replay(&common::repo("samples/sample.pcap"))
        .expect("tcpreplay");
    std::thread::sleep(Duration::from_millis(300));
    terminate(pid);
    let log = std::fs::read_to_string(out.join("osprey.log")).expect("osprey.log");
    assert!(log.contains(&format!("running as uid {uid}")), "{log}");
    let stats = common::stats(&out);
    assert!(
        stats["decoder"]["pkts"].as_u64().unwrap_or(0) > 0,
        "{stats}"
    );
    assert!(!pidfile.exists());
    let _ = std::fs::remove_dir_all(&out);
}

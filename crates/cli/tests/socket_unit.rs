//! Retro-hunt work units sent to one persistent Osprey (unix-socket runmode, rules
//! loaded once): `pcap-file` with Osprey's `pcap-file-list` and `flow-hash-bucket`
//! arguments, waited on with `pcap-file-result`. The buckets of a link's files, each a
//! job of the same process, together raise exactly the alerts of one `osprey -r` over
//! the list, every packet counted once; a job that cannot run is reported `failed`;
//! Suricata's own client still drives `pcap-file` on the same socket.
#![cfg(unix)]

mod common;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cuts a pcap file into files of `per` packets (the global header repeated).
fn split(pcap: &Path, dir: &Path, per: usize) -> Vec<PathBuf> {
    let data = std::fs::read(pcap).unwrap();
    let (header, mut rest) = data.split_at(24);
    assert_eq!(
        &header[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "little-endian pcap"
    );
    std::fs::create_dir_all(dir).unwrap();
    let mut files = Vec::new();
    while !rest.is_empty() {
        let mut out = header.to_vec();
        for _ in 0..per {
            if rest.is_empty() {
                break;
            }
            let len = u32::from_le_bytes(rest[8..12].try_into().unwrap()) as usize;
            out.extend_from_slice(&rest[..16 + len]);
            rest = &rest[16 + len..];
        }
        let path = dir.join(format!("part-{:04}.pcap", files.len() + 1));
        std::fs::write(&path, out).unwrap();
        files.push(path);
    }
    files
}

/// The alerts of an EVE file as a multiset of rule, time, addresses, ports, `pcap_cnt`.
fn alerts(path: &Path, into: &mut BTreeMap<String, usize>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["event_type"] == "alert" {
            let key = format!(
                "{} {} {}:{} {}:{} {}",
                v["alert"]["signature_id"],
                v["timestamp"],
                v["src_ip"],
                v["src_port"],
                v["dest_ip"],
                v["dest_port"],
                v["pcap_cnt"]
            );
            *into.entry(key).or_insert(0) += 1;
        }
    }
}

/// One command over a fresh connection (greeting first); the reply.
fn request(sock: &Path, command: &str, arguments: Value) -> Value {
    let mut w = UnixStream::connect(sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    let mut line = String::new();
    for msg in [
        json!({"version": "0.2"}),
        json!({"command": command, "arguments": arguments}),
    ] {
        w.write_all(format!("{msg}\n").as_bytes()).unwrap();
        line.clear();
        r.read_line(&mut line).unwrap();
    }
    serde_json::from_str(&line).unwrap()
}

/// Waits until the job writing to `dir` has ended; its `pcap-file-result`.
fn wait_result(sock: &Path, dir: &Path) -> Value {
    let t = Instant::now();
    loop {
        let r = request(sock, "pcap-file-result", json!({"output-dir": dir}));
        assert_eq!(r["return"], "OK", "{r}");
        let state = r["message"]["state"].as_str().unwrap().to_string();
        if state == "done" || state == "failed" {
            return r["message"].clone();
        }
        assert!(
            ["queued", "running"].contains(&state.as_str()),
            "{}",
            r["message"]
        );
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "job {dir:?} not done"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `suricatasc`, or `None` after printing why; required under OSPREY_REQUIRE_SURICATA=1.
fn suricatasc() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("suricatasc"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert_ne!(
            std::env::var("OSPREY_REQUIRE_SURICATA").as_deref(),
            Ok("1"),
            "OSPREY_REQUIRE_SURICATA=1 but suricatasc is not installed"
        );
        eprintln!("skipped (suricatasc part): suricatasc not installed");
    }
    found
}

#[test]
fn hunt_units_on_one_persistent_osprey_equal_one_run_over_the_list() {
    let dir = common::tempdir("socket-unit");
    let rules = dir.join("hunt.rules");
    std::fs::write(&rules, common::GEN_ATTACK_RULES).unwrap();
    let pcap = dir.join("link.pcap");
    common::gen_link(&pcap, &rules, "3");
    let files = split(&pcap, &dir.join("link"), 250);
    assert!(files.len() >= 10, "{}", files.len());
    let list = dir.join("files.txt");
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    std::fs::write(&list, names.join("\n") + "\n").unwrap();
    let common_args = ["-k", "none", "--runmode", "single", "--eve-types", "alert"];

    // The reference: one run over the list.
    let reference = dir.join("reference");
    std::fs::create_dir_all(&reference).unwrap();
    let mut args = vec![
        "-r",
        list.to_str().unwrap(),
        "--pcap-file-list",
        "--no-progress",
    ];
    args.extend([
        "-S",
        rules.to_str().unwrap(),
        "-l",
        reference.to_str().unwrap(),
    ]);
    args.extend(common_args);
    let out = common::osprey(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = BTreeMap::new();
    alerts(&reference.join("eve.json"), &mut want);
    let total = common::stats(&reference)["decoder"]["pkts"]
        .as_u64()
        .unwrap();
    assert!(total >= 3000, "{total}");
    assert!(want.values().sum::<usize>() > 20, "{want:?}");

    // One persistent osprey.
    let sock = dir.join("o.sock");
    let log = dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    let mut args = vec![format!("--unix-socket={}", sock.display())];
    for a in ["-S", rules.to_str().unwrap(), "-l", log.to_str().unwrap()] {
        args.push(a.into());
    }
    args.extend(common_args.iter().map(|s| s.to_string()));
    let child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while UnixStream::connect(&sock).is_err() {
        assert!(t.elapsed() < Duration::from_secs(30), "no socket");
        std::thread::sleep(Duration::from_millis(20));
    }

    // Three buckets, queued at once, each a job of its own.
    let buckets = 3;
    let mut got = BTreeMap::new();
    let mut packets = 0;
    let outs: Vec<PathBuf> = (0..buckets).map(|b| dir.join(format!("b{b}"))).collect();
    for (b, out) in outs.iter().enumerate() {
        std::fs::create_dir_all(out).unwrap();
        let r = request(
            &sock,
            "pcap-file",
            json!({"filename": list, "output-dir": out, "pcap-file-list": true,
                   "flow-hash-bucket": format!("{b}/{buckets}")}),
        );
        assert_eq!(r["return"], "OK", "{r}");
    }
    for out in &outs {
        let result = wait_result(&sock, out);
        assert_eq!(result["state"], "done", "{result}");
        let n = result["packets"].as_u64().unwrap();
        assert!(
            n > 0 && n < total,
            "a bucket holds some of the packets: {n}"
        );
        let stats = common::stats(out);
        assert_eq!(stats["decoder"]["pkts"], n);
        assert_eq!(
            stats["osprey"]["capture"]["filtered"].as_u64().unwrap() + n,
            total,
            "the frames of other buckets are counted as filtered"
        );
        packets += n;
        alerts(&out.join("eve.json"), &mut got);
    }
    assert_eq!(packets, total, "every packet in exactly one bucket");
    assert_eq!(got, want, "the buckets' alerts are one run's over the list");

    // A job that cannot run is `failed`, with the reason; bad arguments are refused.
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let r = request(
        &sock,
        "pcap-file",
        json!({"filename": list, "output-dir": bad}),
    );
    assert_eq!(r["return"], "OK", "{r}");
    let result = wait_result(&sock, &bad);
    assert_eq!(
        result["state"], "failed",
        "a list is not a capture: {result}"
    );
    assert!(result["error"].as_str().is_some_and(|e| !e.is_empty()));
    let r = request(
        &sock,
        "pcap-file",
        json!({"filename": list, "output-dir": bad, "flow-hash-bucket": "3/3"}),
    );
    assert_eq!(r["return"], "NOK", "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .starts_with("flow-hash-bucket"));
    let r = request(&sock, "pcap-file-result", json!({"output-dir": "/nowhere"}));
    assert_eq!(r["message"]["state"], "unknown");

    // Suricata's client on the same socket: `pcap-file FILE DIR` as Suricata takes it.
    if let Some(sc) = suricatasc() {
        let one = dir.join("one");
        std::fs::create_dir_all(&one).unwrap();
        let cmd = format!("pcap-file {} {}", files[0].display(), one.display());
        let out = Command::new(sc)
            .args(["-c", &cmd, sock.to_str().unwrap()])
            .output()
            .unwrap();
        let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(reply["return"], "OK", "{reply}");
        let result = wait_result(&sock, &one);
        assert_eq!(result, json!({"state": "done", "packets": 250}));
    }

    let r = request(&sock, "shutdown", Value::Null);
    assert_eq!(r["return"], "OK");
    let st = common::wait_exit(child, Duration::from_secs(30));
    assert!(st.success());
    let _ = std::fs::remove_dir_all(&dir);
}

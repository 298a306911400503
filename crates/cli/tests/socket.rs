//! The command socket speaks Suricata's protocol: Suricata's own client `suricatasc`
//! drives Osprey's unix-socket runmode (version, counters, reload, files sent with
//! `pcap-file` processed into their output directories, shutdown); garbage, truncated
//! and huge messages get an error reply and never stop the engine; clients do not block
//! each other; `--metrics-listen` serves the counters to Prometheus over HTTP/1.1.
#![cfg(unix)]

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Osprey in unix-socket runmode on `sock` with the sample rules, plus `extra`.
fn start(sock: &Path, log: &Path, extra: &[&str]) -> Child {
    let mut args = vec![format!("--unix-socket={}", sock.display())];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    start_with(sock, log, &args)
}

/// Osprey with the sample rules and `extra` (which name the socket), once `sock` answers.
fn start_with(sock: &Path, log: &Path, extra: &[&str]) -> Child {
    let rules = common::repo("samples/sample.rules");
    let mut args = vec![
        "-S".into(),
        rules.display().to_string(),
        "-l".into(),
        log.display().to_string(),
        "--threads".into(),
        "2".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("osprey starts");
    let t = Instant::now();
    while UnixStream::connect(sock).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "no socket at {}",
            sock.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// `suricatasc`, or `None` (after printing why) when it is not installed; mandatory
/// under `OSPREY_REQUIRE_SURICATA=1`.
fn suricatasc() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("suricatasc"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but suricatasc is not installed");
        }
        eprintln!(
            "skipped: suricatasc not installed (set OSPREY_REQUIRE_SURICATA=1 to require it)"
        );
    }
    found
}

/// `suricatasc -c CMD SOCK`: its exit status and the JSON reply it prints.
fn sc(client: &Path, sock: &Path, cmd: &str) -> (bool, Value) {
    let out = Command::new(client)
        .args(["-c", cmd, sock.to_str().unwrap()])
        .output()
        .expect("suricatasc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let reply = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "suricatasc -c {cmd}: not JSON ({e}): {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), reply)
}

fn ok(client: &Path, sock: &Path, cmd: &str) -> Value {
    let (success, reply) = sc(client, sock, cmd);
    assert!(success, "suricatasc -c {cmd}: {reply}");
    assert_eq!(reply["return"], "OK", "{cmd}: {reply}");
    reply["message"].clone()
}

/// Sends `pcap-file FILE DIR` and waits until the queue is empty and nothing runs.
fn process(client: &Path, sock: &Path, pcap: &Path, dir: &Path) {
    let cmd = format!("pcap-file {} {}", pcap.display(), dir.display());
    assert_eq!(ok(client, sock, &cmd), "Successfully added file to list");
    let t = Instant::now();
    loop {
        let queued = ok(client, sock, "pcap-file-number");
        let current = ok(client, sock, "pcap-current");
        if queued == 0 && current == "None" && dir.join("stats.json").exists() {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{} not processed",
            pcap.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn suricatasc_drives_the_unix_socket_runmode() {
    let Some(client) = suricatasc() else { return };
    let out = common::tempdir("socket-sc");
    let sock = out.join("osprey.sock");
    // A copy of the sample rules, rewritten below to see a reload take effect (the
    // last -S wins).
    let rules = out.join("rules.rules");
    std::fs::copy(common::repo("samples/sample.rules"), &rules).unwrap();
    let child = start(&sock, &out, &["-S", rules.to_str().unwrap()]);
    let mode = std::fs::metadata(&sock).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o660
    );

    assert!(ok(&client, &sock, "version")
        .as_str()
        .unwrap()
        .contains("osprey"));
    let list = ok(&client, &sock, "command-list");
    let names: Vec<&str> = list["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for c in [
        "dump-counters",
        "reload-rules",
        "pcap-file",
        "pcap-file-number",
        "shutdown",
    ] {
        assert!(names.contains(&c), "{c} listed: {list}");
    }
    assert_eq!(ok(&client, &sock, "capture-mode"), "UNIX_SOCKET");
    assert!(ok(&client, &sock, "dump-counters")["uptime"].is_u64());
    assert_eq!(ok(&client, &sock, "reload-rules"), "done");
    let rs = ok(&client, &sock, "ruleset-stats");
    assert_eq!(rs[0]["rules_loaded"], 5, "{rs}");
    let (success, reply) = sc(&client, &sock, "conf-get no.such.key");
    assert!(!success && reply["return"] == "NOK", "{reply}");
    let (_, reply) = sc(&client, &sock, "pcap-file /nonexistent.pcap /tmp");
    assert_eq!(reply["message"], "filename does not exist");

    // The same file twice: each run is a run of its own (fresh flows and counters),
    // with the alerts a plain `-r` run raises.
    let pcap = common::repo("samples/sample.pcap");
    let direct = out.join("direct");
    std::fs::create_dir_all(&direct).unwrap();
    let st = common::osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        common::repo("samples/sample.rules").to_str().unwrap(),
        "-l",
        direct.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(st.status.success());
    let expected = lines(&direct.join("fast.log"));
    assert!(expected > 0, "the sample rules alert on the sample capture");
    for name in ["a", "b"] {
        let dir = out.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        process(&client, &sock, &pcap, &dir);
        assert_eq!(lines(&dir.join("fast.log")), expected, "alerts in {name}");
        let s = common::stats(&dir);
        assert_eq!(s["decoder"]["pkts"], 78, "counters per file");
        assert_eq!(s["detect"]["engines"][0]["rules_loaded"], 5);
    }
    let counters = ok(&client, &sock, "dump-counters");
    assert_eq!(
        counters["decoder"]["pkts"], 78,
        "the last file's counters between files"
    );
    assert!(ok(&client, &sock, "pcap-last-processed").as_u64().unwrap() > 0);

    // reload-rules swaps the rules for the files that follow.
    let text = std::fs::read_to_string(&rules).unwrap();
    let only_icmp: String = text
        .lines()
        .filter(|l| l.contains("sid:1000005;"))
        .collect();
    std::fs::write(&rules, only_icmp).unwrap();
    assert_eq!(ok(&client, &sock, "reload-rules"), "done");
    assert_eq!(ok(&client, &sock, "ruleset-stats")[0]["rules_loaded"], 1);
    let dir = out.join("c");
    std::fs::create_dir_all(&dir).unwrap();
    process(&client, &sock, &pcap, &dir);
    let fast = std::fs::read_to_string(dir.join("fast.log")).unwrap();
    assert_eq!(fast.lines().count(), 1, "{fast}");
    assert!(fast.contains("1:1000005:"), "{fast}");

    assert_eq!(ok(&client, &sock, "shutdown"), "Closing Osprey");
    let st = common::wait_exit(child, Duration::from_secs(30));
    assert!(st.success(), "exit status {st:?}");
    assert!(!sock.exists(), "socket file removed at exit");
}

/// Sends raw bytes and reads until the server closes or a newline-terminated reply.
fn raw(sock: &Path, bytes: &[u8]) -> String {
    let mut s = UnixStream::connect(sock).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(bytes);
    let mut r = BufReader::new(s);
    let mut line = String::new();
    let _ = r.read_line(&mut line);
    line
}

fn ask(w: &mut UnixStream, r: &mut BufReader<UnixStream>, msg: &str) -> Value {
    w.write_all(msg.as_bytes()).unwrap();
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.ends_with('\n'), "replies end with a newline: {line:?}");
    serde_json::from_str(&line).expect("JSON reply")
}

#[test]
fn garbage_gets_an_error_and_never_stops_the_engine() {
    let out = common::tempdir("socket-garbage");
    let sock = out.join("osprey.sock");
    // `--unix-socket` without a path takes the configuration's `unix-command.filename`.
    let child = start_with(
        &sock,
        &out,
        &[
            "--unix-socket",
            "--set",
            &format!("unix-command.filename={}", sock.display()),
        ],
    );

    // An idle client holding a half-sent message does not block the others.
    let mut idle = UnixStream::connect(&sock).unwrap();
    idle.write_all(b"{\"version\": \"0.2\"}{\"comm").unwrap();

    let reply: Value = serde_json::from_str(&raw(&sock, b"{\"command\": nope}\n")).unwrap();
    assert_eq!(reply["return"], "NOK", "{reply}");
    let mut huge = b"{\"command\": \"".to_vec();
    huge.extend(vec![b'a'; 200_000]);
    let reply: Value = serde_json::from_str(&raw(&sock, &huge)).unwrap();
    assert_eq!(reply["message"], "message too long");
    let binary: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let reply = raw(&sock, &binary);
    assert!(reply.is_empty() || reply.contains("NOK"), "{reply}");
    // Truncated, then the client goes away.
    let _ = UnixStream::connect(&sock)
        .unwrap()
        .write_all(b"{\"command\": \"vers");

    // A client speaking the protocol is still served, split messages included.
    let mut w = UnixStream::connect(&sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    assert_eq!(
        ask(&mut w, &mut r, "{\"version\": \"0.2\"}"),
        serde_json::json!({"return": "OK"})
    );
    w.write_all(b"{\"command\":").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let v = ask(&mut w, &mut r, " \"uptime\"}\n");
    assert_eq!(v["return"], "OK");
    let v = ask(&mut w, &mut r, "{\"command\": \"frobnicate\"}\n");
    assert_eq!(
        v,
        serde_json::json!({"return": "NOK", "message": "Unknown command"})
    );
    let v = ask(&mut w, &mut r, "{\"command\": \"conf-get\"}\n");
    assert_eq!(v["return"], "NOK", "missing argument: {v}");

    // The idle client finishes its message and is answered.
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    idle.write_all(b"and\": \"version\"}").unwrap();
    let mut text = String::new();
    let mut br = BufReader::new(idle);
    br.read_line(&mut text).unwrap();
    br.read_line(&mut text).unwrap();
    assert!(text.contains("osprey"), "{text}");

    let v = ask(&mut w, &mut r, "shutdown\n");
    assert_eq!(v["return"], "OK");
    let st = common::wait_exit(child, Duration::from_secs(30));
    assert!(st.success(), "exit status {st:?}");
}

fn http(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text
}

#[test]
fn metrics_endpoint_serves_the_counters() {
    let Some(client) = suricatasc() else { return };
    let out = common::tempdir("socket-metrics");
    let sock = out.join("osprey.sock");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = start(&sock, &out, &["--metrics-listen", &addr]);
    let t = Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "metrics endpoint not up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let dir = out.join("run");
    std::fs::create_dir_all(&dir).unwrap();
    process(&client, &sock, &common::repo("samples/sample.pcap"), &dir);

    let page = http(&addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(
        page.contains("Content-Type: text/plain; version=0.0.4"),
        "{page}"
    );
    assert!(
        page.contains("# TYPE osprey_decoder_pkts counter\nosprey_decoder_pkts 78\n"),
        "{page}"
    );
    assert!(page.contains("# HELP osprey_decoder_pkts "), "{page}");
    assert!(page.contains("\nosprey_uptime "), "{page}");
    let body = page.split("\r\n\r\n").nth(1).unwrap();
    let len: usize = page
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(body.len(), len);

    assert!(http(&addr, b"GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
    assert!(http(&addr, b"POST /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
    let mut big = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
    big.extend(vec![b'a'; 20_000]);
    assert!(http(&addr, &big).starts_with("HTTP/1.1 431"));

    ok(&client, &sock, "shutdown");
    let st = common::wait_exit(child, Duration::from_secs(30));
    assert!(st.success(), "exit status {st:?}");
}

/// One request on a fresh connection (handshake first); the reply.
fn request(sock: &Path, cmd: &str) -> Value {
    let mut w = UnixStream::connect(sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    ask(&mut w, &mut r, r#"{"version": "0.2"}"#);
    ask(&mut w, &mut r, &format!("{{\"command\": \"{cmd}\"}}\n"))
}

#[test]
fn dump_counters_is_live_while_a_file_runs() {
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let out = common::tempdir("socket-live-counters");
    let sock = out.join("osprey.sock");
    let child = start(&sock, &out, &[]);
    let dir = out.join("run");
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = UnixStream::connect(&sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    ask(&mut w, &mut r, r#"{"version": "0.2"}"#);
    let msg = serde_json::json!({"command": "pcap-file",
        "arguments": {"filename": pcap, "output-dir": dir}});
    let v = ask(&mut w, &mut r, &format!("{msg}\n"));
    assert_eq!(v["return"], "OK", "{v}");
    // Counters sampled while the file is processed.
    let mut samples = Vec::new();
    let t = Instant::now();
    while !dir.join("stats.json").exists() {
        assert!(t.elapsed() < Duration::from_secs(120), "file not processed");
        let running = request(&sock, "pcap-current")["message"] != "None";
        let v = request(&sock, "dump-counters");
        assert_eq!(v["return"], "OK");
        if running && dir.join("eve.json").exists() && !dir.join("stats.json").exists() {
            samples.push(v["message"]["decoder"]["pkts"].as_u64().unwrap_or(0));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let total = common::stats(&dir)["decoder"]["pkts"].as_u64().unwrap();
    eprintln!(
        "{} live samples of {total} packets: {samples:?}",
        samples.len()
    );
    assert!(
        samples.iter().any(|&n| n > 0 && n < total),
        "a live snapshot between 0 and {total} packets: {samples:?}"
    );
    assert!(samples.windows(2).all(|w| w[0] <= w[1]), "{samples:?}");

    // pcap-interrupt ends the file being processed; its outputs are still written.
    let dir = out.join("interrupted");
    std::fs::create_dir_all(&dir).unwrap();
    let msg = serde_json::json!({"command": "pcap-file",
        "arguments": {"filename": pcap, "output-dir": dir}});
    assert_eq!(ask(&mut w, &mut r, &format!("{msg}\n"))["return"], "OK");
    while request(&sock, "pcap-current")["message"] == "None" {
        assert!(!dir.join("stats.json").exists(), "too fast to interrupt");
        std::thread::sleep(Duration::from_millis(1));
    }
    let v = request(&sock, "pcap-interrupt");
    assert_eq!(v["message"], "Interrupted", "{v}");
    let t = Instant::now();
    while !dir.join("stats.json").exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "interrupted file not finished"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let part = common::stats(&dir)["decoder"]["pkts"].as_u64().unwrap();
    assert!(part < total, "interrupted after {part} of {total} packets");
    assert_eq!(request(&sock, "shutdown")["return"], "OK");
    assert!(common::wait_exit(child, Duration::from_secs(30)).success());
}

#[test]
fn a_directory_is_one_run_and_continuous_picks_up_new_files() {
    let out = common::tempdir("socket-dir");
    let sock = out.join("osprey.sock");
    let child = start(&sock, &out, &[]);
    let (input, dir) = (out.join("in"), out.join("run"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = common::repo("samples/sample.pcap");
    std::fs::copy(&pcap, input.join("a.pcap")).unwrap();
    std::fs::write(input.join("notes.txt"), "not a capture").unwrap();

    let mut w = UnixStream::connect(&sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    ask(&mut w, &mut r, r#"{"version": "0.2"}"#);
    let msg = serde_json::json!({"command": "pcap-file-continuous",
        "arguments": {"filename": input, "output-dir": dir, "delete-when-done": true}});
    assert_eq!(ask(&mut w, &mut r, &format!("{msg}\n"))["return"], "OK");
    let gone = |name: &str| {
        let t = Instant::now();
        while input.join(name).exists() {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "{name} not processed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    gone("a.pcap");
    // A new file is picked up (moved in whole, as a capture rotation does).
    std::fs::copy(&pcap, out.join("b.pcap")).unwrap();
    std::fs::rename(out.join("b.pcap"), input.join("b.pcap")).unwrap();
    gone("b.pcap");
    assert_eq!(request(&sock, "pcap-interrupt")["message"], "Interrupted");
    let t = Instant::now();
    while !dir.join("stats.json").exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "run not finished");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Both files in one run; the file that is not a capture is skipped and kept.
    assert_eq!(common::stats(&dir)["decoder"]["pkts"], 156);
    assert!(input.join("notes.txt").exists());
    assert_eq!(request(&sock, "shutdown")["return"], "OK");
    assert!(common::wait_exit(child, Duration::from_secs(30)).success());
}

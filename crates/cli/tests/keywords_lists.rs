//! `dataset`, `datarep` and `iprep` rules on a capture of 120 DNS packets cut from
//! sv-ether.pcap (tests/data/lists-dns.pcap), with the lists, reputation files and
//! configuration written here: the alerts (sid, pcap_cnt) are those Suricata 7.0.10
//! gives (hard-coded, and compared with a live run when `suricata` is installed), with
//! one worker and with four (the sets are shared by the workers); the `state` file
//! (relative to the working directory, as Suricata opens it) is read at start and
//! written at shutdown; the socket's `dataset-*` commands act on the running sets.

mod common;

use common::{repo, tempdir};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RULES: &str = "\
alert dns any any -> any any (msg:\"bl\"; dns.query; dataset:isset,bl,type string,load bl.lst; sid:1;)
alert dns any any -> any any (msg:\"seen\"; dns.query; dataset:set,seen,type string,state seen.lst; sid:2;)
alert dns any any -> any any (msg:\"rep\"; dns.query; datarep:rep,>,5,type string,load rep.csv; sid:3;)
alert dns any any -> any any (msg:\"conf\"; dns.query; dataset:isset,conf-set; sid:4;)
alert dns any any -> any any (msg:\"not bl\"; dns.query; content:\"google\"; dataset:isnotset,bl; sid:5;)
alert ip any any -> any any (msg:\"google dst\"; iprep:dst,Google,>,50; sid:11;)
alert ip any any -> any any (msg:\"bad src\"; iprep:src,BadHosts,>,30; sid:12;)
alert ip any any -> any any (msg:\"bad any\"; iprep:any,BadHosts,=,20; sid:13;)
alert udp any any -> any any (msg:\"bad both\"; iprep:both,BadHosts,<,60; sid:14;)
alert dns any any -> any any (msg:\"iprep dns\"; dns.query; content:\"google\"; iprep:dst,BadHosts,<,30; sid:15;)
";

fn b64(s: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// The rules, lists and configuration in `dir`; the configuration's path.
fn setup(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("lists.rules"), RULES).unwrap();
    std::fs::write(
        dir.join("bl.lst"),
        format!("{}\n{}\n", b64("softupdates.info"), b64("www.google.com")),
    )
    .unwrap();
    std::fs::write(
        dir.join("rep.csv"),
        format!("{},10\n{},3\n", b64("example.com"), b64("google.com")),
    )
    .unwrap();
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("conf.lst"),
        format!("{}\n", b64("test7.example.com")),
    )
    .unwrap();
    std::fs::write(
        dir.join("categories.txt"),
        "1,BadHosts,Known bad hosts\n2,Google,Google hosts\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("rep.list"),
        "8.8.8.8,2,90\n192.168.100.0/24,1,50\n192.168.100.2,1,20\n1.2.3.4,1,100\n",
    )
    .unwrap();
    let yaml = dir.join("lists.yaml");
    std::fs::write(
        &yaml,
        format!(
            "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
             filetype: regular\n      filename: eve.json\n      types:\n        - alert\n\
             datasets:\n  conf-set:\n    type: string\n    load: {data}/conf.lst\n\
             reputation-categories-file: {dir}/categories.txt\n\
             default-reputation-path: {dir}\nreputation-files:\n  - rep.list\n",
            data = data.display(),
            dir = dir.display()
        ),
    )
    .unwrap();
    yaml
}

/// (sid, pcap_cnt) of each alert, sorted.
fn alerts(eve: &Path) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = std::fs::read_to_string(eve)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["pcap_cnt"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    v.sort();
    v
}

fn count(a: &[(u64, u64)], sid: u64) -> usize {
    a.iter().filter(|x| x.0 == sid).count()
}

/// Runs `cmd` (osprey or suricata) with `extra` arguments; the log directory.
fn run(dir: &Path, name: &str, cmd: &str, yaml: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    let pcap = repo("crates/cli/tests/data/lists-dns.pcap");
    let rules = dir.join("lists.rules");
    let mut args = vec![
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    // Run from `dir`: `state` files are relative to the working directory.
    let exe = if cmd == "osprey" {
        env!("CARGO_BIN_EXE_osprey")
    } else {
        cmd
    };
    let r = Command::new(exe)
        .env("TZ", "UTC")
        .current_dir(dir)
        .args(&args)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

/// The values of a saved string set, decoded and sorted.
fn saved(path: &Path) -> Vec<String> {
    use base64::Engine as _;
    let mut v: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let b = base64::engine::general_purpose::STANDARD.decode(l).unwrap();
            String::from_utf8(b).unwrap()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn list_rules_alert_as_suricata_with_one_and_four_workers() {
    let dir = tempdir("keywords-lists");
    let yaml = setup(&dir);
    let one = alerts(&run(&dir, "one", "osprey", &yaml, &["--runmode", "single"]).join("eve.json"));
    let state = dir.join("seen.lst");
    let seen = saved(&state);
    // What Suricata 7.0.10 gives on this capture.
    assert_eq!(
        one.iter().filter(|a| a.0 == 1).collect::<Vec<_>>(),
        vec![&(1, 19), &(1, 31)]
    );
    assert_eq!(count(&one, 2), 92, "one alert per distinct query name");
    assert_eq!(seen.len(), 92);
    assert!(seen.contains(&"test65.example.com".to_string()));
    assert_eq!(
        one.iter().filter(|a| a.0 == 3).collect::<Vec<_>>(),
        vec![&(3, 51), &(3, 52), &(3, 53), &(3, 54)]
    );
    assert_eq!(
        one.iter().filter(|a| a.0 == 4).collect::<Vec<_>>(),
        vec![&(4, 62)]
    );
    assert_eq!(count(&one, 5), 6);
    let ip: Vec<usize> = [11, 12, 13, 14, 15]
        .iter()
        .map(|s| count(&one, *s))
        .collect();
    assert_eq!(ip, vec![3, 13, 26, 26, 6]);

    // A second run starts from the saved state: every name is already in the set.
    let again =
        alerts(&run(&dir, "again", "osprey", &yaml, &["--runmode", "single"]).join("eve.json"));
    assert_eq!(count(&again, 2), 0, "state loaded at start");
    std::fs::remove_file(&state).unwrap();

    // Four workers share the sets: the same alerts (a `set` alerts once per value, on
    // whichever worker sees it first).
    let four = alerts(&run(&dir, "four", "osprey", &yaml, &["--threads", "4"]).join("eve.json"));
    let no_set = |a: &[(u64, u64)]| a.iter().filter(|x| x.0 != 2).copied().collect::<Vec<_>>();
    assert_eq!(no_set(&four), no_set(&one));
    assert_eq!(count(&four, 2), 92);
    assert_eq!(saved(&state), seen);
    std::fs::remove_file(&state).unwrap();

    if common::suricata().is_none() {
        return;
    }
    let s = run(
        &dir,
        "suricata",
        "suricata",
        &yaml,
        &["--runmode", "single"],
    );
    assert_eq!(
        alerts(&s.join("eve.json")),
        one,
        "alerts differ from Suricata's"
    );
    assert_eq!(saved(&state), seen, "saved state differs from Suricata's");
}

fn ask(w: &mut UnixStream, r: &mut BufReader<UnixStream>, msg: &str) -> Value {
    w.write_all(msg.as_bytes()).unwrap();
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    serde_json::from_str(&line).expect("JSON reply")
}

/// One command with arguments on a fresh connection; (ok, message).
fn command(sock: &Path, cmd: &str, args: Value) -> (bool, Value) {
    let mut w = UnixStream::connect(sock).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    ask(&mut w, &mut r, r#"{"version": "0.2"}"#);
    let msg = serde_json::json!({"command": cmd, "arguments": args});
    let v = ask(&mut w, &mut r, &format!("{msg}\n"));
    (v["return"] == "OK", v["message"].clone())
}

#[test]
fn socket_dataset_commands_act_on_the_running_sets() {
    let dir = tempdir("keywords-lists-socket");
    let yaml = setup(&dir);
    let sock = dir.join("osprey.sock");
    let log = dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    let rules = dir.join("lists.rules");
    let mut child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(["-c", yaml.to_str().unwrap(), "-S", rules.to_str().unwrap()])
        .arg("-l")
        .arg(&log)
        .arg(format!("--unix-socket={}", sock.display()))
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("osprey starts");
    let t = Instant::now();
    while UnixStream::connect(&sock).is_err() {
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("no socket at {}", sock.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let v =
        |s: &str| serde_json::json!({"setname": "bl", "settype": "string", "datavalue": b64(s)});
    let c = |cmd: &str, a: Value| command(&sock, cmd, a);
    assert_eq!(
        c("dataset-lookup", v("softupdates.info")),
        (true, "item found in set".into())
    );
    assert_eq!(c("dataset-add", v("x.test")), (true, "data added".into()));
    assert_eq!(
        c("dataset-add", v("x.test")),
        (true, "data already in set".into())
    );
    assert_eq!(
        c("dataset-remove", v("x.test")),
        (true, "data removed".into())
    );
    assert_eq!(
        c("dataset-remove", v("x.test")),
        (false, "failed to remove data".into())
    );
    assert_eq!(
        c("dataset-lookup", v("x.test")),
        (false, "item not found in set".into())
    );
    let wrong = serde_json::json!({"setname": "bl", "settype": "md5", "datavalue": "00"});
    assert_eq!(
        c("dataset-add", wrong),
        (false, "set not found or wrong type".into())
    );
    // Added through the socket, matched by the workers on the next file.
    assert!(c("dataset-add", v("test9.example.com")).0);
    let seen =
        serde_json::json!({"setname": "seen", "settype": "string", "datavalue": b64("q.test")});
    assert_eq!(c("dataset-add", seen), (true, "data added".into()));
    assert_eq!(
        c("dataset-dump", Value::Null),
        (true, "datasets dump done".into())
    );
    assert_eq!(saved(&dir.join("seen.lst")), vec!["q.test".to_string()]);
    let out = dir.join("run");
    std::fs::create_dir_all(&out).unwrap();
    let pcap = repo("crates/cli/tests/data/lists-dns.pcap");
    let add = serde_json::json!({"filename": pcap, "output-dir": out});
    assert!(c("pcap-file", add).0);
    let t = Instant::now();
    loop {
        let n = c("pcap-file-number", Value::Null).1;
        let cur = c("pcap-current", Value::Null).1;
        if n == 0 && cur == "None" && out.join("eve.json").exists() {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "pcap not processed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let a = alerts(&out.join("eve.json"));
    assert_eq!(
        a.iter().filter(|x| x.0 == 1).collect::<Vec<_>>(),
        vec![&(1, 19), &(1, 31), &(1, 64)]
    );
    assert_eq!(
        c(
            "dataset-clear",
            serde_json::json!({"setname": "bl", "settype": "string"})
        ),
        (true, "dataset cleared".into())
    );
    assert!(!c("dataset-lookup", v("softupdates.info")).0);
    assert!(c("shutdown", Value::Null).0);
    let st = common::wait_exit(child, Duration::from_secs(30));
    assert!(st.success());
}

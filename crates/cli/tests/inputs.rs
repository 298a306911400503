//! File inputs as Suricata's pcap-file runmode: a capture filter after the options or
//! in `-F FILE` (compiled in-process by libpcap), `-r DIRECTORY` read as one run, with
//! `--pcap-file-continuous` and `--pcap-file-delete`; figures checked against Suricata
//! 7.0.10 (run here when installed).
#![cfg(unix)]

mod common;

use common::{osprey, repo, stats, tempdir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

fn sample() -> PathBuf {
    repo("samples/sample.pcap")
}

fn counter(v: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(v, |v, k| &v[k])
        .as_u64()
        .unwrap_or_else(|| panic!("counter {path} missing in {v}"))
}

fn run(out: &Path, extra: &[&str]) -> Output {
    // `-l` names an existing directory (as in Suricata).
    std::fs::create_dir_all(out).expect("log dir");
    let mut args = vec!["-S", "/dev/null", "-k", "none", "--no-progress", "-l"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    osprey(&args)
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "osprey failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `pcap_cnt` of the DNS records of eve.json, in order.
fn dns_pcap_cnts(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("eve.json")).unwrap_or_default();
    let mut cnts: Vec<u64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event_type"] == "dns")
        .filter_map(|e| e["pcap_cnt"].as_u64())
        .collect();
    cnts.sort_unstable();
    cnts
}

/// The sample capture cut in two pcap files at frame `at` (header repeated).
fn halves(at: usize) -> (Vec<u8>, Vec<u8>) {
    let bytes = std::fs::read(sample()).unwrap();
    let (header, mut rest) = bytes.split_at(24);
    let (mut first, mut second) = (header.to_vec(), header.to_vec());
    let mut i = 0;
    while rest.len() >= 16 {
        let caplen = u32::from_le_bytes(rest[8..12].try_into().unwrap()) as usize;
        let (rec, tail) = rest.split_at(16 + caplen);
        if i < at { &mut first } else { &mut second }.extend_from_slice(rec);
        rest = tail;
        i += 1;
    }
    assert_eq!(i, 78);
    (first, second)
}

fn write_at(path: &Path, bytes: &[u8], mtime_secs: u64) {
    std::fs::write(path, bytes).unwrap();
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(mtime_secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn trailing_filter_reads_what_suricata_reads() {
    let out = tempdir("inputs-filter");
    let o = run(
        &out,
        &[
            "--eve-types",
            "dns",
            "-r",
            sample().to_str().unwrap(),
            "udp",
        ],
    );
    ok(&o);
    let s = stats(&out);
    // Suricata 7.0.10 `-r samples/sample.pcap udp`: decoder.pkts 45 of the 78 frames.
    assert_eq!(counter(&s, "decoder.pkts"), 45);
    assert_eq!(counter(&s, "decoder.tcp"), 0);
    assert_eq!(counter(&s, "osprey.capture.filtered"), 33);
    // pcap_cnt numbers only the packets that passed, as Suricata's DNS records show.
    assert_eq!(
        dns_pcap_cnts(&out),
        vec![4, 5, 6, 7, 39, 40, 41, 42, 43, 44]
    );
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(
        summary.contains("left out by the capture filter: 33"),
        "{summary}"
    );

    // The same expression from a file (comments allowed), and a file given with a
    // command-line expression, which takes precedence as in Suricata.
    let f = out.join("filter.bpf");
    std::fs::write(&f, "# DNS and the rest of UDP\nudp\n").unwrap();
    let o = run(
        &out,
        &["-r", sample().to_str().unwrap(), "-F", f.to_str().unwrap()],
    );
    ok(&o);
    assert_eq!(counter(&stats(&out), "decoder.pkts"), 45);
    let pcap = sample();
    let args = [
        "-r",
        pcap.to_str().unwrap(),
        "-F",
        f.to_str().unwrap(),
        "tcp",
    ];
    let o = run(&out, &args);
    ok(&o);
    assert_eq!(counter(&stats(&out), "decoder.pkts"), 33);
    assert!(String::from_utf8_lossy(&o.stderr).contains("takes precedence"));
}

#[test]
fn bad_filter_is_an_error_with_libpcap_message() {
    let out = tempdir("inputs-bad-filter");
    let o = run(
        &out,
        &["-r", sample().to_str().unwrap(), "udp", "and", "and"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`udp and and`"), "{err}");
    assert!(err.contains("syntax error"), "{err}");
    assert!(!out.join("stats.json").exists());
    // --bpf (tcpdump -ddd text) is for live capture: with -r it names the alternative.
    let o = run(&out, &["-r", sample().to_str().unwrap(), "--bpf", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-F FILE"));
}

/// Suricata itself on the sample with the filter `udp`: decoder.pkts 45.
#[test]
fn suricata_reads_45_with_the_filter() {
    if common::suricata().is_none() {
        return;
    }
    let out = tempdir("inputs-suricata");
    let st = Command::new("suricata")
        .args([
            "-r",
            sample().to_str().unwrap(),
            "-S",
            "/dev/null",
            "-k",
            "none",
        ])
        .args(["-l", out.to_str().unwrap()])
        .arg("udp")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("suricata runs");
    assert!(st.success());
    let text = std::fs::read_to_string(out.join("eve.json")).expect("suricata wrote eve.json");
    let pkts = text
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event_type"] == "stats")
        .find_map(|e| e["stats"]["decoder"]["pkts"].as_u64());
    assert_eq!(pkts, Some(45));
}

#[test]
fn directory_equals_the_concatenation() {
    let out = tempdir("inputs-dir");
    let dir = out.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    // Cut inside flows: they must carry over from one file to the next.
    let (first, second) = halves(39);
    // Names in the opposite order of the modification times: the times decide.
    write_at(&dir.join("b.pcap"), &first, 1_000_000);
    write_at(&dir.join("a.pcap"), &second, 2_000_000);
    let rules = repo("samples/sample.rules");
    let whole = out.join("whole");
    let joined = out.join("joined");
    for (log, input) in [(&whole, sample()), (&joined, dir.clone())] {
        std::fs::create_dir_all(log).unwrap();
        let o = osprey(&[
            "-r",
            input.to_str().unwrap(),
            "-S",
            rules.to_str().unwrap(),
            "-k",
            "none",
            "--no-progress",
            "-l",
            log.to_str().unwrap(),
        ]);
        ok(&o);
    }
    let (a, b) = (stats(&whole), stats(&joined));
    for key in [
        "decoder.pkts",
        "decoder.bytes",
        "decoder.tcp",
        "decoder.udp",
        "flow.total",
        "flow.tcp",
        "detect.alert",
        "app_layer.flow.dns_udp",
    ] {
        assert_eq!(counter(&a, key), counter(&b, key), "{key}");
    }
    assert_eq!(counter(&b, "osprey.capture.files"), 2);
    // The same alerts (workers may write them in another order).
    let fast = |d: &Path| {
        let text = std::fs::read_to_string(d.join("fast.log")).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.sort();
        lines
    };
    assert_eq!(fast(&whole), fast(&joined));
    assert!(!fast(&whole).is_empty());
}

#[test]
fn directory_reports_unreadable_files_and_deletes_read_ones() {
    let out = tempdir("inputs-delete");
    let dir = out.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let (first, second) = halves(20);
    write_at(&dir.join("1.pcap"), &first, 1_000);
    write_at(&dir.join("2.txt"), b"hello, not a capture", 2_000);
    write_at(&dir.join("3.pcap"), &second, 3_000);
    let o = run(&out, &["-r", dir.to_str().unwrap(), "--pcap-file-delete"]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2.txt: not a pcap or pcapng file") && err.contains("next file"),
        "{err}"
    );
    let s = stats(&out);
    assert_eq!(counter(&s, "decoder.pkts"), 78);
    assert_eq!(counter(&s, "osprey.capture.files"), 2);
    assert_eq!(counter(&s, "osprey.capture.file_errors"), 1);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec!["2.txt"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("files: 2 read, 1 unreadable"));

    // Directory options need a directory.
    let o = run(
        &out,
        &["-r", sample().to_str().unwrap(), "--pcap-file-continuous"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("need a directory"));
}

#[test]
fn continuous_picks_up_new_files_and_stops_on_sigterm() {
    let out = tempdir("inputs-continuous");
    let dir = out.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let (first, second) = halves(39);
    write_at(&dir.join("1.pcap"), &first, 1_000);
    let child = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(["-r", dir.to_str().unwrap(), "--pcap-file-continuous"])
        .args([
            "--set",
            "pcap-file.delay=5",
            "--set",
            "pcap-file.poll-interval=1",
        ])
        .args([
            "-S",
            "/dev/null",
            "-k",
            "none",
            "--no-progress",
            "--threads",
            "2",
        ])
        .args(["--stats-interval", "0.2", "-l", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("osprey starts");
    let pkts = |want: u64| {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            let got = std::fs::read_to_string(out.join("stats.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .and_then(|s| s["decoder"]["pkts"].as_u64());
            if got == Some(want) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("decoder.pkts never reached {want}");
    };
    // The first file is read (its last, short batch is not held back)...
    pkts(39);
    // ... a file still being written (modified less than `delay` ago) is not ...
    std::fs::write(dir.join("2.pcap"), &second[..100]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // ... and once complete and quiet, it is.
    write_at(&dir.join("2.pcap"), &second, 2_000);
    pkts(78);
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // The pcap-file keys given are used, not reported as ignored.
    assert!(!err.contains("pcap-file"), "{err}");
    let s = stats(&out);
    assert_eq!(counter(&s, "decoder.pkts"), 78);
    assert_eq!(counter(&s, "osprey.capture.files"), 2);
    assert_eq!(counter(&s, "osprey.capture.file_errors"), 0);
}

#[test]
fn pcap_flag_is_taken_as_an_interface() {
    let out = tempdir("inputs-pcap-flag");
    let o = run(&out, &["--pcap=osprey-none0"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("as -i osprey-none0"), "{err}");
    assert!(err.contains("live capture on osprey-none0"), "{err}");
    let o = run(&out, &["--pcap"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--pcap=IFACE"));
}

//! The EVE outputs' delivery counters in a run's stats: `osprey.output.eve.dropped` (records
//! a socket destination lost) and `osprey.output.eve.reconnects`, next to Suricata's counters
//! (Suricata has none for this). A run writing files drops nothing.
#![cfg(unix)]

mod common;

use common::{osprey, repo, stats, tempdir};

#[test]
fn a_run_reports_the_eve_delivery_counters() {
    let out = tempdir("eve-sinks-counters");
    let pcap = repo("samples/sample.pcap");
    let o = osprey(&[
        "-S",
        "/dev/null",
        "-k",
        "none",
        "--no-progress",
        "-l",
        out.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
    ]);
    assert!(
        o.status.success(),
        "osprey failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s = stats(&out);
    let eve = &s["osprey"]["output"]["eve"];
    assert_eq!(eve["dropped"].as_u64(), Some(0), "{s}");
    assert_eq!(eve["reconnects"].as_u64(), Some(0), "{s}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// Receives datagrams on `path` (bound now) until the returned sender is dropped.
fn listen(
    path: &std::path::Path,
) -> (
    std::sync::mpsc::Receiver<String>,
    std::sync::mpsc::Sender<()>,
) {
    use std::sync::mpsc::{channel, TryRecvError};
    let sock = std::os::unix::net::UnixDatagram::bind(path).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_millis(20)))
        .unwrap();
    let (tx, rx) = channel();
    let (stop_tx, stop) = channel::<()>();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 20];
        while matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
            if let Ok(n) = sock.recv(&mut buf) {
                let _ = tx.send(String::from_utf8(buf[..n].to_vec()).unwrap());
            }
        }
    });
    (rx, stop_tx)
}

#[test]
fn unix_dgram_and_syslog_outputs_carry_what_the_file_output_gets() {
    let dir = tempdir("eve-sinks-e2e");
    let log = dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    let (dgram, stop_dgram) = listen(&log.join("eve.sock"));
    let (syslog, stop_syslog) = listen(&dir.join("log.sock"));
    let yaml = "outputs:\n\
        - eve-log:\n    enabled: yes\n    filename: eve.json\n    types: [alert, dns]\n\
        - eve-log:\n    enabled: yes\n    filetype: unix_dgram\n    filename: eve.sock\n    types: [alert, dns]\n\
        - eve-log:\n    enabled: yes\n    filetype: syslog\n    identity: ids\n    facility: local3\n    level: Notice\n    types: [alert, dns]\n";
    let rules = "alert dns any any -> any any (msg:\"dns\"; sid:1;)\n";
    let (c, r) = (dir.join("osprey.yaml"), dir.join("test.rules"));
    std::fs::write(&c, yaml).unwrap();
    std::fs::write(&r, rules).unwrap();
    let pcap = repo("samples/sample.pcap");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_osprey"))
        .env("OSPREY_SYSLOG_SOCKET", dir.join("log.sock"))
        .args([
            "-c",
            c.to_str().unwrap(),
            "-S",
            r.to_str().unwrap(),
            "-k",
            "none",
        ])
        .args([
            "--no-progress",
            "-l",
            log.to_str().unwrap(),
            "-r",
            pcap.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file: Vec<String> = std::fs::read_to_string(log.join("eve.json"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(file.len() > 10, "{}", file.len());
    let take = |rx: &std::sync::mpsc::Receiver<String>| -> Vec<String> {
        (0..file.len())
            .map(|_| rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap())
            .collect()
    };
    // unix_dgram: one datagram per record, newline-terminated, as Suricata's.
    let got: Vec<String> = take(&dgram)
        .into_iter()
        .map(|d| d.strip_suffix('\n').expect("newline-terminated").to_owned())
        .collect();
    assert_eq!(got, file);
    // syslog: local3.notice is 19 * 8 + 5; then `Mmm dd hh:mm:ss ids[PID]: `.
    for (m, want) in take(&syslog).iter().zip(&file) {
        let rest = m.strip_prefix("<157>").unwrap_or_else(|| panic!("{m:?}"));
        let (_, msg) = rest.split_once("]: ").unwrap_or_else(|| panic!("{m:?}"));
        assert!(rest[16..].starts_with("ids["), "{m:?}");
        assert_eq!(msg, want);
    }
    let s = stats(&log);
    assert_eq!(
        s["osprey"]["output"]["eve"]["dropped"].as_u64(),
        Some(0),
        "{s}"
    );
    drop((stop_dgram, stop_syslog));
    std::fs::remove_dir_all(&dir).unwrap();
}

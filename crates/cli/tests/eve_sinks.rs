//! The EVE outputs' delivery counters in a run's stats: `output.eve.dropped` (records
//! a socket destination lost) and `output.eve.reconnects`, next to Suricata's counters
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
    let eve = &s["output"]["eve"];
    assert_eq!(eve["dropped"].as_u64(), Some(0), "{s}");
    assert_eq!(eve["reconnects"].as_u64(), Some(0), "{s}");
    std::fs::remove_dir_all(&out).unwrap();
}

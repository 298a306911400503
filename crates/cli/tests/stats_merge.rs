//! Per-worker counters merge by meaning: with two workers `decoder.avg_pkt_size` and
//! `decoder.max_pkt_size` are those of one worker (and Suricata's on sv-ether), counts
//! add up, and `uptime` is there as in Suricata.

mod common;

use common::{osprey, repo, shared, stats, tempdir};
use serde_json::Value;
use std::path::Path;

fn run(pcap: &Path, threads: &str, out: &Path) -> Value {
    std::fs::create_dir_all(out).unwrap();
    let o = osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--threads",
        threads,
        "-l",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stats(out)
}

/// Runs `pcap` with one and with two workers; returns both stats trees after checking
/// that the merged counters agree.
fn one_and_two(pcap: &Path, name: &str) -> (Value, Value) {
    let dir = tempdir(name);
    let one = run(pcap, "1", &dir.join("t1"));
    let two = run(pcap, "2", &dir.join("t2"));
    for key in [
        "avg_pkt_size",
        "max_pkt_size",
        "pkts",
        "bytes",
        "ipv4",
        "tcp",
    ] {
        assert_eq!(one["decoder"][key], two["decoder"][key], "decoder.{key}");
        assert!(
            one["decoder"][key].is_u64(),
            "decoder.{key}: {}",
            one["decoder"][key]
        );
    }
    for s in [&one, &two] {
        let pkts = s["decoder"]["pkts"].as_u64().unwrap();
        let bytes = s["decoder"]["bytes"].as_u64().unwrap();
        assert_eq!(s["decoder"]["avg_pkt_size"].as_u64(), Some(bytes / pkts));
        assert!(
            s["uptime"].is_u64(),
            "uptime in stats.json: {}",
            s["uptime"]
        );
        assert!(s["uptime"].as_u64().unwrap() < 600);
    }
    assert_eq!(two["osprey"]["threads"], 2);
    (one, two)
}

#[test]
fn sample_merges_by_meaning() {
    let (one, _) = one_and_two(&repo("samples/sample.pcap"), "stats-merge-sample");
    assert!(one["decoder"]["max_pkt_size"].as_u64().unwrap() > 0);
}

/// sv-ether with two workers: Suricata's own avg 271 and max 43,365 (two workers used to
/// add theirs up to 627 and 59,844).
#[test]
fn sv_ether_two_workers_as_suricata() {
    let Some(pcap) = shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let Some(reference) = shared("pcaps/sv-ether.suricata-stats.json") else {
        return;
    };
    let suricata: Value =
        serde_json::from_str(&std::fs::read_to_string(reference).unwrap()).unwrap();
    let (_, two) = one_and_two(&pcap, "stats-merge-sv-ether");
    for key in ["avg_pkt_size", "max_pkt_size", "pkts", "bytes"] {
        assert_eq!(
            two["decoder"][key], suricata["decoder"][key],
            "decoder.{key}"
        );
    }
    assert_eq!(two["decoder"]["avg_pkt_size"], 271);
    assert_eq!(two["decoder"]["max_pkt_size"], 43_365);
}

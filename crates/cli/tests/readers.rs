//! Issue 29: several offline readers (`--readers`) change nothing but the speed. On a
//! generated capture of several thousand flows (pcap, and the same frames as pcapng),
//! every EVE record and every counter with N readers equals what one reader writes with
//! the same workers, and the alerts and EVE records are the same whatever the worker
//! count (1, 2 or 4).

mod common;

use common::{osprey, tempdir, GEN_ATTACK_RULES, GEN_BODY_RULE};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the runs load: the attacks' rules and two whose alerts depend on counts kept
/// across flows (thresholds shared by the workers).
const RULES: &str =
    "alert tcp any any -> any any (msg:\"syn\"; flags:S; threshold:type limit, track by_dst, \
    count 1, seconds 60; sid:1000004; rev:1;)\n\
    alert http any any -> any any (msg:\"host\"; http.host; content:\".\"; \
    detection_filter:track by_src, count 3, seconds 60; sid:1000005; rev:1;)\n";

/// Counters that measure the run rather than the traffic: its time, the reader's waits
/// for a full queue, and the highest pressure on the memory budgets the workers share
/// (sampled as the workers interleave: it differs between two runs of one reader too).
const RUN_COUNTERS: [&str; 3] = [
    "uptime",
    "osprey.dispatch.queue_full_waits",
    "memcap_pressure_max",
];

/// Runs osprey on `pcap` with `threads` workers and `readers` readers into a folder of
/// its own; returns the EVE lines (sorted, without `stats` records) and the counters.
fn run(dir: &Path, pcap: &Path, rules: &Path, threads: u32, readers: u32) -> Run {
    let log = dir.join(format!(
        "{}-t{threads}-r{readers}",
        pcap.file_name().unwrap().to_string_lossy()
    ));
    let (t, r) = (threads.to_string(), readers.to_string());
    common::run_into(&log, pcap, rules, &t, &["--readers", &r]);
    let eve = std::fs::read_to_string(log.join("eve.json")).unwrap();
    let mut records: Vec<String> = eve
        .lines()
        .filter(|l| !l.contains("\"event_type\":\"stats\""))
        .map(str::to_string)
        .collect();
    records.sort();
    let mut counters = BTreeMap::new();
    flatten("", &common::stats(&log), &mut counters);
    for k in RUN_COUNTERS {
        counters.remove(k);
    }
    Run { records, counters }
}

struct Run {
    records: Vec<String>,
    counters: BTreeMap<String, Value>,
}

impl Run {
    fn alerts(&self) -> usize {
        self.records
            .iter()
            .filter(|l| l.contains("\"event_type\":\"alert\""))
            .count()
    }
}

fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => {
            out.insert(prefix.to_string(), v.clone());
        }
    }
}

/// The frames of the pcap `src` (Ethernet, microseconds) as a pcapng file: a section
/// header, one interface, one enhanced packet block per frame.
fn to_pcapng(src: &Path, dst: &Path) {
    let b = std::fs::read(src).unwrap();
    assert_eq!(
        &b[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "little-endian microsecond pcap"
    );
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let link = u32_at(20) as u16;
    let mut out = Vec::with_capacity(b.len() + b.len() / 8);
    let block = |out: &mut Vec<u8>, kind: u32, body: &[u8]| {
        let pad = (4 - body.len() % 4) % 4;
        let len = (12 + body.len() + pad) as u32;
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(0u8, pad));
        out.extend_from_slice(&len.to_le_bytes());
    };
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
    shb.extend_from_slice(&1u16.to_le_bytes());
    shb.extend_from_slice(&0u16.to_le_bytes());
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut out, 0x0a0d_0d0a, &shb);
    let mut idb = Vec::new();
    idb.extend_from_slice(&link.to_le_bytes());
    idb.extend_from_slice(&0u16.to_le_bytes());
    idb.extend_from_slice(&0u32.to_le_bytes());
    block(&mut out, 1, &idb);
    let mut at = 24;
    while at + 16 <= b.len() {
        let (sec, usec, caplen, wire) = (
            u64::from(u32_at(at)),
            u64::from(u32_at(at + 4)),
            u32_at(at + 8),
            u32_at(at + 12),
        );
        let data = &b[at + 16..at + 16 + caplen as usize];
        let ts = sec * 1_000_000 + usec;
        let mut epb = Vec::with_capacity(20 + data.len());
        epb.extend_from_slice(&0u32.to_le_bytes());
        epb.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(ts as u32).to_le_bytes());
        epb.extend_from_slice(&caplen.to_le_bytes());
        epb.extend_from_slice(&wire.to_le_bytes());
        epb.extend_from_slice(data);
        block(&mut out, 6, &epb);
        at += 16 + caplen as usize;
    }
    std::fs::write(dst, out).unwrap();
}

fn generate(dir: &Path, rules: &Path) -> PathBuf {
    let pcap = dir.join("flows.pcap");
    let st = osprey(&[
        "gen",
        "-o",
        pcap.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--flows",
        "3000",
        "--packets",
        "40000",
        "--size",
        "imix",
        "--attack-fraction",
        "0.05",
        "--seed",
        "29",
    ]);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    pcap
}

#[test]
fn several_readers_write_what_one_reader_writes() {
    let dir = tempdir("readers");
    let attacks = dir.join("gen.rules");
    std::fs::write(&attacks, format!("{GEN_ATTACK_RULES}{GEN_BODY_RULE}")).unwrap();
    let rules = dir.join("t.rules");
    std::fs::write(&rules, format!("{GEN_ATTACK_RULES}{GEN_BODY_RULE}{RULES}")).unwrap();
    let pcap = generate(&dir, &attacks);
    let pcapng = dir.join("flows.pcapng");
    to_pcapng(&pcap, &pcapng);
    let mut reference: Option<Run> = None;
    for input in [&pcap, &pcapng] {
        for threads in [1, 2, 4] {
            let one = run(&dir, input, &rules, threads, 1);
            let name = input.file_name().unwrap().to_string_lossy();
            assert!(
                one.counters["decoder.pkts"].as_u64() > Some(39_000),
                "{name}: {:?} packets",
                one.counters["decoder.pkts"]
            );
            assert!(one.alerts() > 50, "{name}: {} alerts", one.alerts());
            assert!(
                one.counters["flow.tcp"].as_u64() > Some(2_000),
                "{name}: {:?} TCP flows",
                one.counters["flow.tcp"]
            );
            for readers in [2, 3].into_iter().filter(|&r| r <= threads) {
                let many = run(&dir, input, &rules, threads, readers);
                let what = format!("{name}, {threads} workers, {readers} readers");
                common::assert_same_records(&many.records, &one.records);
                for (k, v) in &one.counters {
                    assert_eq!(many.counters.get(k), Some(v), "{what}: counter {k}");
                }
                assert_eq!(many.counters.len(), one.counters.len(), "{what}");
            }
            match &reference {
                None => reference = Some(one),
                Some(r) => {
                    // Another worker count or input format: the same records.
                    let what = format!("{name}, {threads} workers vs pcap with 1");
                    assert_eq!(one.alerts(), r.alerts(), "{what}");
                    common::assert_same_records(&one.records, &r.records);
                }
            }
        }
    }
}

//! Overload and memory (issue 9, point 6): a flood of 1,000,000 TCP SYNs, each opening
//! a distinct flow, through two workers with a flow table capped at 16,384 entries.
//! The test checks that
//!
//! - memory stays bounded: the process's peak RSS grows by far less than a million
//!   flows would need (the table is preallocated at its cap, evicted entries are
//!   reused);
//! - the counters add up exactly: every SYN either opened a flow or was counted as not
//!   tracked (`osprey.flow.table_full`), each of those evicted exactly one flow
//!   (`osprey.flow.emergency_evicted`), and the flows evicted are the flows opened less
//!   the ones the full tables still held at the end;
//! - the counters that say where packets were lost are in `stats.json`
//!   (`osprey.dispatch.drops`, `osprey.dispatch.queue_full_waits`,
//!   `osprey.capture.packets`; the kernel ring's `capture.kernel_drops` is checked by the
//!   live-capture test, `crates/cli/tests/live_netns.rs`).
//!
//! The capture is generated while it is read (a pcap stream of minimal 54-byte frames,
//! never held in memory) and the engine runs without rules, so a million flows take a
//! few seconds even in a debug build.

use engine::{ChecksumMode, EngineConfig, RunOptions};
use std::io::Read;
use std::path::Path;

const FLOWS: u32 = 1_000_000;
const MAX_FLOWS: usize = 16_384;
const WORKERS: usize = 2;
const FRAME: usize = 54;

/// A pcap stream of `n` TCP SYNs from 10.0.0.0/8 (one source address and port per
/// flow) to 192.0.2.1:80, one microsecond apart.
struct SynFlood {
    next: u32,
    n: u32,
    buf: Vec<u8>,
    pos: usize,
}

impl SynFlood {
    fn new(n: u32) -> SynFlood {
        let mut buf = Vec::new();
        buf.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        buf.extend_from_slice(&2u16.to_le_bytes());
        buf.extend_from_slice(&4u16.to_le_bytes());
        buf.extend_from_slice(&[0; 8]);
        buf.extend_from_slice(&65535u32.to_le_bytes());
        buf.extend_from_slice(&1u32.to_le_bytes()); // Ethernet
        SynFlood {
            next: 0,
            n,
            buf,
            pos: 0,
        }
    }

    /// Appends the record of SYN number `i`.
    fn record(&mut self, i: u32) {
        let us = 1_700_000_000_000_000u64 + i as u64;
        let b = &mut self.buf;
        b.extend_from_slice(&((us / 1_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&((us % 1_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&(FRAME as u32).to_le_bytes());
        b.extend_from_slice(&(FRAME as u32).to_le_bytes());
        // Ethernet.
        b.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00]);
        // IPv4: 40 bytes, TTL 64, TCP; source 10.x.y.z from the flow number.
        let src = [10, (i >> 16) as u8, (i >> 8) as u8, i as u8];
        let mut ip = [
            0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, src[0], src[1], src[2], src[3], 192, 0, 2,
            1,
        ];
        let sum = ip
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
            .sum::<u32>();
        let sum = (sum & 0xffff) + (sum >> 16);
        let sum = !((sum & 0xffff) + (sum >> 16)) as u16;
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        b.extend_from_slice(&ip);
        // TCP SYN (checksums are not verified: `-k none`).
        let sport = 1024 + (i % 60_000) as u16;
        b.extend_from_slice(&sport.to_be_bytes());
        b.extend_from_slice(&80u16.to_be_bytes());
        b.extend_from_slice(&i.to_be_bytes());
        b.extend_from_slice(&[0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0]);
    }
}

impl Read for SynFlood {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            while self.next < self.n && self.buf.len() < 64 << 10 {
                self.record(self.next);
                self.next += 1;
            }
        }
        let k = out.len().min(self.buf.len() - self.pos);
        out[..k].copy_from_slice(&self.buf[self.pos..self.pos + k]);
        self.pos += k;
        Ok(k)
    }
}

/// `VmRSS` or `VmHWM` of this process in KiB (Linux), if readable.
fn proc_status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_million_flows_stay_under_the_flow_cap_and_every_eviction_is_counted() {
    let rss_before = proc_status_kib("VmRSS:");
    let mut config = EngineConfig {
        checksum: ChecksumMode::None,
        ..EngineConfig::default()
    };
    config.flow.max_flows = MAX_FLOWS;
    config.flow.hash_size = MAX_FLOWS;
    let mut source = capture::open_reader(Path::new("syn-flood"), Box::new(SynFlood::new(FLOWS)))
        .expect("pcap stream opens");
    let opts = RunOptions {
        threads: WORKERS,
        ..RunOptions::default()
    };
    let report = engine::run(source.as_mut(), &config, &opts, |_| {}).expect("run succeeds");
    let stat = |k: &str| {
        report
            .stats
            .get(k)
            .unwrap_or_else(|| panic!("counter {k} missing"))
    };
    let n = FLOWS as u64;
    assert_eq!(stat("decoder.pkts"), n);
    assert_eq!(stat("osprey.capture.packets"), n);
    let opened = stat("flow.total");
    let untracked = stat("osprey.flow.table_full");
    assert_eq!(stat("tcp.syn"), opened, "the tracked SYNs");
    let evicted = stat("osprey.flow.emergency_evicted");
    // The workers' tables draw from one engine-wide cap (`MAX_FLOWS`) and fill it: the
    // flows still held when the input ended are exactly the cap.
    assert_eq!(
        opened + untracked,
        n,
        "every SYN opened a flow or was counted"
    );
    assert_eq!(
        evicted, untracked,
        "each SYN finding the table full evicted one flow"
    );
    assert_eq!(
        evicted,
        opened - MAX_FLOWS as u64,
        "flows opened less flows held"
    );
    assert_eq!(
        stat("flow.mgr.flows_timeout"),
        0,
        "nothing idle long enough"
    );
    assert_eq!(stat("flow.emerg_mode_entered"), WORKERS as u64);
    assert_eq!(
        stat("flow.end.state.new"),
        opened,
        "every flow ended and was flushed"
    );
    // Offline nothing is lost between reader and workers: the reader waits instead.
    assert_eq!(stat("osprey.dispatch.drops"), 0);
    let waits = stat("osprey.dispatch.queue_full_waits");

    // The same counters in stats.json as the command line writes it.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-flood");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stats.json");
    report.stats.write_file(&path).expect("stats.json written");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("JSON");
    assert_eq!(json["osprey"]["dispatch"]["drops"], 0);
    assert_eq!(json["osprey"]["dispatch"]["queue_full_waits"], waits);
    assert_eq!(json["osprey"]["capture"]["packets"], n);
    assert_eq!(json["osprey"]["flow"]["emergency_evicted"], evicted);
    assert_eq!(json["osprey"]["flow"]["table_full"], untracked);

    // Memory: a million tracked flows would take hundreds of MiB; the capped tables
    // (preallocated) and everything else stay far below.
    match (rss_before, proc_status_kib("VmHWM:")) {
        (Some(before), Some(peak)) => {
            let grown = peak.saturating_sub(before);
            println!("RSS {before} KiB before, peak {peak} KiB (+{grown} KiB); {opened} flows opened, {evicted} evicted, {waits} queue-full waits");
            assert!(grown < 32 << 10, "peak RSS grew by {grown} KiB");
        }
        _ => println!("skipped the RSS check: /proc/self/status unreadable"),
    }
}

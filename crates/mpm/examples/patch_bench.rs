//! Throughput of AC-Full, DFC, S-PATCH and V-PATCH (each path) on ET Open patterns over the
//! TCP/UDP payloads of sv-ether.pcap and on 1 MB of random bytes.
//!
//! ```text
//! cargo run --release -p mpm --example patch_bench [-- --all] [--secs 1.0] [--threads]
//! ```
//!
//! `--all` adds the set of every content (not only one fast pattern per rule); `--threads`
//! adds the 1 -> 2 thread scaling of [`mpm::parallel::scan_parallel`] over all payloads
//! concatenated. Reads `/work/shared` relative to the crate; the pattern extraction and
//! packet decoding are deliberately minimal (not the rules or wire crates).

use mpm::parallel::scan_parallel;
use mpm::testutil::pseudo_random;
use mpm::{Kind, Matcher, Pattern};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

/// One content of a rule: bytes, nocase, whether it is the rule's `fast_pattern`.
struct Content {
    bytes: Vec<u8>,
    nocase: bool,
    fast: bool,
}

/// The positive contents of one rule line.
fn rule_contents(line: &str) -> Vec<Content> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("content:") {
        rest = &rest[at + "content:".len()..];
        let r = rest.trim_start();
        let negated = r.starts_with('!');
        let Some(body) = r.trim_start_matches('!').strip_prefix('"') else {
            continue;
        };
        let (bytes, after) = decode(body);
        rest = after;
        let scope = &rest[..rest.find("content:").unwrap_or(rest.len())];
        let opt = |name: &str| scope.split(';').any(|o| o.trim().starts_with(name));
        if !negated && !bytes.is_empty() {
            out.push(Content {
                bytes,
                nocase: opt("nocase"),
                fast: opt("fast_pattern"),
            });
        }
    }
    out
}

/// Decode a quoted content body up to its closing quote; returns the bytes and the rest.
fn decode(s: &str) -> (Vec<u8>, &str) {
    let b = s.as_bytes();
    let (mut out, mut i, mut hex, mut nibble) = (Vec::new(), 0, false, None::<u8>);
    while i < b.len() {
        let c = b[i];
        i += 1;
        match c {
            b'"' if !hex => return (out, &s[i..]),
            b'|' => hex = !hex,
            _ if hex => {
                if let Some(v) = (c as char).to_digit(16) {
                    match nibble.take() {
                        Some(h) => out.push(h << 4 | v as u8),
                        None => nibble = Some(v as u8),
                    }
                }
            }
            b'\\' if i < b.len() => {
                out.push(b[i]);
                i += 1;
            }
            _ => out.push(c),
        }
    }
    (out, "")
}

/// (fast patterns, all contents) of the enabled rules in `emerging-*.rules`.
fn et_patterns(dir: &Path) -> (Vec<Pattern>, Vec<Pattern>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("rules dir")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("emerging-") && name.ends_with(".rules")
        })
        .collect();
    files.sort();
    let (mut fast, mut all) = (Vec::new(), Vec::new());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cs = rule_contents(line);
            let pick = cs
                .iter()
                .find(|c| c.fast)
                .or_else(|| cs.iter().max_by_key(|c| c.bytes.len()));
            if let Some(c) = pick {
                let id = fast.len() as u32;
                fast.push(Pattern {
                    bytes: c.bytes.clone(),
                    id,
                    nocase: c.nocase,
                });
            }
            for c in cs {
                let id = all.len() as u32;
                all.push(Pattern {
                    bytes: c.bytes,
                    id,
                    nocase: c.nocase,
                });
            }
        }
    }
    (fast, all)
}

/// TCP and UDP payloads of an Ethernet pcap (Ethernet, 802.1Q, IPv4 first fragments,
/// IPv6 without extension headers).
fn payloads(pcap: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    if pcap.len() < 24 {
        return out;
    }
    let le = match pcap[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        _ => return out,
    };
    let u32at = |b: &[u8], i: usize| {
        let w = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let caplen = u32at(pcap, at + 8) as usize;
        let Some(frame) = pcap.get(at + 16..at + 16 + caplen) else {
            break;
        };
        at += 16 + caplen;
        if let Some(p) = l4_payload(frame) {
            if !p.is_empty() {
                out.push(p);
            }
        }
    }
    out
}

fn l4_payload(f: &[u8]) -> Option<&[u8]> {
    let be16 = |b: &[u8], i: usize| Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]));
    let mut off = 12;
    let mut ethertype = be16(f, off)?;
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        off += 4;
        ethertype = be16(f, off)?;
    }
    let ip = f.get(off + 2..)?;
    let (proto, l4) = match ethertype {
        0x0800 => {
            let ihl = (*ip.first()? as usize & 15) * 4;
            let total = be16(ip, 2)? as usize;
            if be16(ip, 6)? & 0x1fff != 0 || total < ihl {
                return None;
            }
            (ip[9], ip.get(ihl..total.min(ip.len()))?)
        }
        0x86dd => {
            let len = be16(ip, 4)? as usize;
            (*ip.get(6)?, ip.get(40..(40 + len).min(ip.len()))?)
        }
        _ => return None,
    };
    match proto {
        6 => l4.get((*l4.get(12)? as usize >> 4) * 4..),
        17 => l4.get(8..),
        _ => None,
    }
}

/// Best time of repeated scans of every haystack over about `secs` seconds; the match count.
fn measure(m: &Matcher, hays: &[&[u8]], secs: f64) -> (Duration, usize) {
    let pass = || {
        let mut n = 0usize;
        for h in hays {
            m.scan(h, &mut |_| n += 1);
        }
        n
    };
    let count = pass();
    let started = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < 3 || started.elapsed().as_secs_f64() < secs {
        let t = Instant::now();
        std::hint::black_box(pass());
        best = best.min(t.elapsed());
        runs += 1;
    }
    (best, count)
}

fn kinds() -> Vec<Kind> {
    [
        Kind::AcFull,
        Kind::Dfc,
        Kind::Spatch,
        Kind::VpatchAvx2,
        Kind::VpatchAvx512,
        Kind::Vpatch,
    ]
    .into_iter()
    .filter(|k| k.is_available())
    .collect()
}

fn run_set(name: &str, pats: &[Pattern], hays: &[&[u8]], secs: f64) {
    let bytes: usize = hays.iter().map(|h| h.len()).sum();
    println!(
        "\n{name}: {} patterns, {} haystacks, {:.1} MB",
        pats.len(),
        hays.len(),
        bytes as f64 / 1e6
    );
    let mut base = None;
    for kind in kinds() {
        let m = match Matcher::new(kind, pats) {
            Ok(m) => m,
            Err(e) => {
                println!("  {kind:<14} build failed: {e}");
                continue;
            }
        };
        let (t, count) = measure(&m, hays, secs);
        let mbs = bytes as f64 / t.as_secs_f64() / 1e6;
        let base = *base.get_or_insert(mbs);
        println!(
            "  {:<14} {:>9.1} MB/s  {:>5.2}x ac-full  {:>10} matches  build {:>6.1} ms  {:>8} KiB  {}",
            kind.name(),
            mbs,
            mbs / base,
            count,
            m.build_time().as_secs_f64() * 1e3,
            m.memory_usage() / 1024,
            m.describe()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let secs = args
        .iter()
        .position(|a| a == "--secs")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let rules = Path::new(SHARED).join("rules/et-open");
    let pcap = Path::new(SHARED).join("pcaps/sv-ether.pcap");
    if !rules.exists() || !pcap.exists() {
        eprintln!(
            "skipping: {} or {} missing",
            rules.display(),
            pcap.display()
        );
        return;
    }
    let (fast, all) = et_patterns(&rules);
    let bytes = std::fs::read(&pcap).unwrap();
    let hays = payloads(&bytes);
    let random = pseudo_random(42, 1 << 20);
    run_set(
        "ET Open fast patterns / sv-ether payloads",
        &fast,
        &hays,
        secs,
    );
    run_set(
        "ET Open fast patterns / 1 MB random",
        &fast,
        &[&random],
        secs,
    );
    if flag("--all") {
        run_set(
            "ET Open all contents / sv-ether payloads",
            &all,
            &hays,
            secs,
        );
        run_set("ET Open all contents / 1 MB random", &all, &[&random], secs);
    }
    if flag("--threads") {
        let joined: Vec<u8> = hays.concat();
        let max_len = fast.iter().map(|p| p.bytes.len()).max().unwrap_or(0);
        let m = Matcher::new(Kind::Vpatch, &fast).unwrap();
        println!(
            "\nscan_parallel, vpatch, fast patterns, {:.1} MB joined payloads",
            joined.len() as f64 / 1e6
        );
        let mut one = 0.0;
        for threads in [1, 2] {
            let mut best = f64::MAX;
            let mut count = 0;
            for _ in 0..5 {
                let t = Instant::now();
                count = scan_parallel(&m, max_len, &joined, threads).len();
                best = best.min(t.elapsed().as_secs_f64());
            }
            let mbs = joined.len() as f64 / best / 1e6;
            if threads == 1 {
                one = mbs;
            }
            println!(
                "  {threads} thread(s): {mbs:>8.1} MB/s ({:.2}x), {count} matches",
                mbs / one
            );
        }
    }
}

//! ET Open content patterns scanned over the TCP/UDP payloads of sv-ether.pcap: every
//! available backend against the naive matcher. Reads `/work/shared` (skipped when absent
//! unless `OSPREY_REQUIRE_DATA=1`). `OSPREY_MPM_PCAP_BYTES` sets how many payload bytes are
//! checked (default 500 kB, spread over the capture).

use mpm::testutil::sorted;
use mpm::{naive, Kind, Matcher, Pattern};
use std::path::{Path, PathBuf};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(SHARED).join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("OSPREY_REQUIRE_DATA").as_deref() == Ok("1") {
        panic!("{} missing and OSPREY_REQUIRE_DATA=1", p.display());
    }
    eprintln!("skipping: {} not found", p.display());
    None
}

/// A test-only extractor of `content:"..."` values (with `|hex|` and `\` escapes) and their
/// `nocase` flag from the enabled rules of a file. Not a rule parser: the `rules` crate is.
fn contents(text: &str) -> Vec<Pattern> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("content:") {
            rest = &rest[at + "content:".len()..];
            let r = rest.trim_start().trim_start_matches('!');
            let Some(body) = r.strip_prefix('"') else {
                continue;
            };
            let (bytes, after) = decode(body);
            rest = after;
            // Options up to the next content belong to this one.
            let scope = &rest[..rest.find("content:").unwrap_or(rest.len())];
            let nocase = scope.split(';').any(|o| o.trim() == "nocase");
            if !bytes.is_empty() {
                out.push(Pattern {
                    bytes,
                    id: out.len() as u32,
                    nocase,
                });
            }
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

fn et_contents() -> Option<Vec<Pattern>> {
    let dir = shared("rules/et-open")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        for mut p in contents(&std::fs::read_to_string(&f).unwrap()) {
            p.id = all.len() as u32;
            all.push(p);
        }
    }
    Some(all)
}

/// TCP and UDP payloads of an Ethernet pcap (test-only decoding: Ethernet, 802.1Q,
/// IPv4 first fragments, IPv6 without extension headers).
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

/// Payloads spread over the capture, about `budget` bytes in all.
fn sample<'a>(all: &[&'a [u8]], budget: usize) -> Vec<&'a [u8]> {
    let total: usize = all.iter().map(|p| p.len()).sum();
    let step = (total / budget.max(1)).max(1);
    all.iter().copied().step_by(step).collect()
}

fn budget() -> usize {
    std::env::var("OSPREY_MPM_PCAP_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500_000)
}

fn check(kind: Kind, pats: &[Pattern], hays: &[&[u8]]) {
    check_kinds(&[kind], pats, hays);
}

/// Every kind of `kinds` against naive (computed once per payload).
fn check_kinds(kinds: &[Kind], pats: &[Pattern], hays: &[&[u8]]) {
    let ms: Vec<Matcher> = kinds
        .iter()
        .map(|&k| Matcher::new(k, pats).unwrap())
        .collect();
    let mut total = 0;
    for h in hays {
        let want = sorted(naive::find_all(pats, h));
        for m in &ms {
            let got = sorted(m.find_all(h));
            assert_eq!(
                got.len(),
                want.len(),
                "{}: match count differs on a {}-byte payload",
                m.kind(),
                h.len()
            );
            assert!(
                got == want,
                "{}: matches differ on a {}-byte payload",
                m.kind(),
                h.len()
            );
        }
        total += want.len();
    }
    for m in &ms {
        eprintln!(
            "{}: {} patterns, {} payloads, {} matches agree with naive",
            m.describe(),
            pats.len(),
            hays.len(),
            total
        );
    }
    assert!(total > 0, "the sample should contain matches");
}

#[test]
fn extractor_decodes_hex_escapes_and_nocase() {
    let p = contents(
        r#"alert tcp any any -> any any (content:"a|0d 0A|b\"c"; nocase; content:!"x\;y"; depth:3; sid:1;)
# alert tcp any any -> any any (content:"commented"; sid:2;)"#,
    );
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].bytes, b"a\r\nb\"c");
    assert!(p[0].nocase);
    assert_eq!(p[1].bytes, b"x;y");
    assert!(!p[1].nocase);
}

#[test]
fn et_open_contents_over_sv_ether_payloads() {
    let Some(pats) = et_contents() else { return };
    let Some(pcap) = shared("pcaps/sv-ether.pcap") else {
        return;
    };
    assert!(
        pats.len() > 10_000,
        "only {} contents extracted",
        pats.len()
    );
    let bytes = std::fs::read(pcap).unwrap();
    let all = payloads(&bytes);
    assert!(all.len() > 1000, "only {} payloads", all.len());
    let hays = sample(&all, budget());
    // AC-Compact over every content; the full DFA over a quarter of them (the whole set's
    // 32-bit table is about a gigabyte, too much for a test) and 16-bit over a set that fits.
    check(Kind::AcCompact, &pats, &hays);
    let quarter: Vec<Pattern> = pats.iter().step_by(4).cloned().collect();
    check(Kind::AcFull32, &quarter, &hays);
    let small: Vec<Pattern> = pats.iter().step_by(40).cloned().collect();
    let m = Matcher::new(Kind::AcFull, &small).unwrap();
    assert!(m.describe().contains("16-bit"), "{}", m.describe());
    check(Kind::AcFull, &small, &hays);
    // The filter-then-verify matchers over every content, each V-PATCH path forced (the
    // scalar path is S-PATCH's round: `Kind::Spatch`).
    let kinds: Vec<Kind> = [
        Kind::Dfc,
        Kind::Spatch,
        Kind::Vpatch,
        Kind::VpatchAvx2,
        Kind::VpatchAvx512,
    ]
    .into_iter()
    .filter(|k| k.is_available())
    .collect();
    check_kinds(&kinds, &pats, &hays);
}

//! The checksum keywords (`ipv4-csum`, `tcpv4-csum`, `tcpv6-csum`, `udpv4-csum`,
//! `udpv6-csum`, `icmpv4-csum`, `icmpv6-csum`) on a capture written here: one packet of
//! each kind with a right checksum and one with a wrong one, an IPv4 header with a
//! wrong checksum, and UDP datagrams without a checksum (field 0) over IPv4 and IPv6.
//! The alerts are Suricata 7.0.10's on the same capture, the same with `-k none` and
//! `-k all` (the keywords compute the checksum themselves): hard-coded from its run and
//! compared with a live run when `suricata` is installed.
//!
//! Known difference left out: under `-k all` Osprey's pipeline drops a packet with a
//! wrong checksum before detection (`osprey.checksum.invalid`), where Suricata still
//! inspects it (only its TCP stream skips it), so only `-k none` is compared here.

mod common;

use gen::frame::PcapWriter;
use std::path::{Path, PathBuf};

const RULES: &str = r#"alert ip any any -> any any (msg:"ipv4 valid"; ipv4-csum:valid; sid:1;)
alert ip any any -> any any (msg:"ipv4 invalid"; ipv4-csum:invalid; sid:2;)
alert tcp any any -> any any (msg:"tcpv4 valid"; tcpv4-csum:valid; sid:3;)
alert tcp any any -> any any (msg:"tcpv4 invalid"; tcpv4-csum:invalid; sid:4;)
alert tcp any any -> any any (msg:"tcpv6 valid"; tcpv6-csum:valid; sid:5;)
alert tcp any any -> any any (msg:"tcpv6 invalid"; tcpv6-csum:invalid; sid:6;)
alert udp any any -> any any (msg:"udpv4 valid"; udpv4-csum:valid; sid:7;)
alert udp any any -> any any (msg:"udpv4 invalid"; udpv4-csum:invalid; sid:8;)
alert udp any any -> any any (msg:"udpv6 valid"; udpv6-csum:valid; sid:9;)
alert udp any any -> any any (msg:"udpv6 invalid"; udpv6-csum:invalid; sid:10;)
alert icmp any any -> any any (msg:"icmpv4 valid"; icmpv4-csum:valid; sid:11;)
alert icmp any any -> any any (msg:"icmpv4 invalid"; icmpv4-csum:invalid; sid:12;)
alert ip any any -> any any (msg:"icmpv6 valid"; icmpv6-csum:valid; sid:13;)
alert ip any any -> any any (msg:"icmpv6 invalid"; icmpv6-csum:invalid; sid:14;)
"#;

/// `(pcap_cnt, sids)` of Suricata 7.0.10's alerts, packet by packet (see [`capture`]).
const WANT: &[(u64, &[u64])] = &[
    (1, &[1, 3]),
    (2, &[2, 3]),
    (3, &[1, 4]),
    (4, &[1, 7]),
    (5, &[1, 8]),
    (6, &[1]),
    (7, &[1, 11]),
    (8, &[1, 12]),
    (9, &[5]),
    (10, &[6]),
    (11, &[9]),
    (12, &[10]),
    (13, &[13]),
    (14, &[14]),
    (15, &[10]),
];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

const S4: [u8; 4] = [10, 0, 0, 1];
const D4: [u8; 4] = [10, 0, 0, 2];
const PAYLOAD: &[u8] = b"CSUMTEST";

fn sum(data: &[u8], mut acc: u32) -> u16 {
    for c in data.chunks(2) {
        acc += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

fn v6(last: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    a[15] = last;
    a
}

/// The pseudo-header of an IPv4 (`ipv6` false) or IPv6 segment.
fn pseudo(ipv6: bool, proto: u8, len: usize) -> Vec<u8> {
    let mut p = Vec::new();
    if ipv6 {
        p.extend_from_slice(&v6(1));
        p.extend_from_slice(&v6(2));
        p.extend_from_slice(&(len as u32).to_be_bytes());
        p.extend_from_slice(&[0, 0, 0, proto]);
    } else {
        p.extend_from_slice(&S4);
        p.extend_from_slice(&D4);
        p.extend_from_slice(&[0, proto]);
        p.extend_from_slice(&(len as u16).to_be_bytes());
    }
    p
}

/// A transport segment: `hdr` (checksum field zero at `at`) and the payload, with its
/// checksum filled in (`pseudo` empty for ICMPv4), spoiled when `bad`, left 0 when
/// `zero`.
fn segment(hdr: &[u8], at: usize, pseudo: &[u8], bad: bool, zero: bool) -> Vec<u8> {
    let mut seg = [hdr, PAYLOAD].concat();
    if !zero {
        let mut all = pseudo.to_vec();
        all.extend_from_slice(&seg);
        let mut c = sum(&all, 0);
        if bad {
            c ^= 0x2222;
        }
        seg[at..at + 2].copy_from_slice(&c.to_be_bytes());
    }
    seg
}

fn ipv4(proto: u8, payload: &[u8], bad: bool) -> Vec<u8> {
    let mut f = vec![2u8; 6];
    f.extend_from_slice(&[4; 6]);
    f.extend_from_slice(&[8, 0, 0x45, 0]);
    f.extend_from_slice(&(20 + payload.len() as u16).to_be_bytes());
    f.extend_from_slice(&[0, 1, 0, 0, 64, proto, 0, 0]);
    f.extend_from_slice(&S4);
    f.extend_from_slice(&D4);
    let mut c = sum(&f[14..34], 0);
    if bad {
        c ^= 0x1111;
    }
    f[24..26].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![2u8; 6];
    f.extend_from_slice(&[4; 6]);
    f.extend_from_slice(&[0x86, 0xdd, 0x60, 0, 0, 0]);
    f.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    f.extend_from_slice(&[next, 64]);
    f.extend_from_slice(&v6(1));
    f.extend_from_slice(&v6(2));
    f.extend_from_slice(payload);
    f
}

fn tcp(ipv6: bool, bad: bool) -> Vec<u8> {
    let h = [
        4, 210, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 4, 0, 0, 0, 0, 0,
    ];
    segment(&h, 16, &pseudo(ipv6, 6, 28), bad, false)
}

fn udp(ipv6: bool, bad: bool, zero: bool) -> Vec<u8> {
    let h = [4, 210, 0, 53, 0, 16, 0, 0];
    segment(&h, 6, &pseudo(ipv6, 17, 16), bad, zero)
}

/// The capture: 1 good TCP/IPv4, 2 wrong IPv4 header, 3 wrong TCP/IPv4, 4 good UDP,
/// 5 wrong UDP, 6 UDP without checksum, 7 good ICMPv4 echo, 8 wrong ICMPv4, then over
/// IPv6: 9 good TCP, 10 wrong TCP, 11 good UDP, 12 wrong UDP, 13 good ICMPv6 echo,
/// 14 wrong ICMPv6, 15 UDP without checksum.
fn capture(dir: &Path) -> PathBuf {
    let icmp = [8, 0, 0, 0, 0, 1, 0, 1];
    let icmp6 = [128, 0, 0, 0, 0, 1, 0, 1];
    let frames = [
        ipv4(6, &tcp(false, false), false),
        ipv4(6, &tcp(false, false), true),
        ipv4(6, &tcp(false, true), false),
        ipv4(17, &udp(false, false, false), false),
        ipv4(17, &udp(false, true, false), false),
        ipv4(17, &udp(false, false, true), false),
        ipv4(1, &segment(&icmp, 2, &[], false, false), false),
        ipv4(1, &segment(&icmp, 2, &[], true, false), false),
        ipv6(6, &tcp(true, false)),
        ipv6(6, &tcp(true, true)),
        ipv6(17, &udp(true, false, false)),
        ipv6(17, &udp(true, true, false)),
        ipv6(58, &segment(&icmp6, 2, &pseudo(true, 58, 16), false, false)),
        ipv6(58, &segment(&icmp6, 2, &pseudo(true, 58, 16), true, false)),
        ipv6(17, &udp(true, false, true)),
    ];
    let path = dir.join("csum.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(1_700_000_000_000_000 + i as u64 * 1_000_000, f)
            .unwrap();
    }
    w.finish().unwrap();
    path
}

/// `(pcap_cnt, sids)` of the alerts in `dir/eve.json`.
fn alerts(dir: &Path) -> Vec<(u64, Vec<u64>)> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut by: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
        if v["event_type"] == "alert" {
            by.entry(v["pcap_cnt"].as_u64().unwrap_or(0))
                .or_default()
                .push(v["alert"]["signature_id"].as_u64().unwrap());
        }
    }
    by.into_iter()
        .map(|(c, mut s)| {
            s.sort_unstable();
            (c, s)
        })
        .collect()
}

#[test]
fn checksum_keywords_alert_as_suricata() {
    let dir = common::tempdir("keywords-csum");
    let pcap = capture(&dir);
    let (yaml, rules) = (dir.join("osprey.yaml"), dir.join("csum.rules"));
    std::fs::write(&yaml, CONFIG).unwrap();
    std::fs::write(&rules, RULES).unwrap();
    let want: Vec<(u64, Vec<u64>)> = WANT.iter().map(|(c, s)| (*c, s.to_vec())).collect();
    let k = "none";
    let out = dir.join(format!("osprey-{k}"));
    let r = common::osprey_single_k(&yaml, &rules, &pcap, k, &out);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(
        stderr.contains("14 rules loaded, 0 failed, 0 unsupported"),
        "{stderr}"
    );
    assert_eq!(
        alerts(&out),
        want,
        "-k {k}: alerts differ from Suricata 7.0.10's"
    );

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(alerts(&sdir), want, "Suricata's alerts changed");
}

#[test]
fn checksum_keyword_values_are_checked() {
    let dir = common::tempdir("keywords-csum-bad");
    let rules = dir.join("bad.rules");
    std::fs::write(
        &rules,
        "alert ip any any -> any any (msg:\"x\"; ipv4-csum:maybe; sid:1;)\n",
    )
    .unwrap();
    let r = common::osprey(&["rules", "check", rules.to_str().unwrap()]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(all.contains("expected 'valid' or 'invalid'"), "{all}");
}

/// 7.0's `alert` keyword on the same capture: the last of `noalert`/`alert` wins, and
/// a pass rule with `alert` logs its match (`allowed`) and still passes the packet
/// (the other rules matching packet 2 stay silent). Suricata 7.0.10's alerts.
const ALERT_RULES: &str = r#"alert ip any any -> any any (msg:"noalert then alert"; ipv4-csum:invalid; noalert; alert; sid:1;)
alert ip any any -> any any (msg:"alert then noalert"; ipv4-csum:invalid; alert; noalert; sid:2;)
alert ip any any -> any any (msg:"alert alert"; ipv4-csum:invalid; alert; sid:5;)
pass udp any any -> any any (msg:"pass alert"; udpv4-csum:invalid; alert; sid:6;)
alert udp any any -> any any (msg:"after pass"; udpv4-csum:invalid; sid:7;)
pass udp any any -> any any (msg:"pass plain"; udpv6-csum:invalid; sid:8;)
alert udp any any -> any any (msg:"after plain pass"; udpv6-csum:invalid; sid:9;)
"#;

/// `(pcap_cnt, sids)` of Suricata 7.0.10's alerts with [`ALERT_RULES`].
const ALERT_WANT: &[(u64, &[u64])] = &[(2, &[1, 5]), (5, &[6])];

#[test]
fn alert_keyword_as_suricata() {
    let dir = common::tempdir("keywords-alert");
    let pcap = capture(&dir);
    let (yaml, rules) = (dir.join("osprey.yaml"), dir.join("alert.rules"));
    std::fs::write(&yaml, CONFIG).unwrap();
    std::fs::write(&rules, ALERT_RULES).unwrap();
    let want: Vec<(u64, Vec<u64>)> = ALERT_WANT.iter().map(|(c, s)| (*c, s.to_vec())).collect();
    let out = dir.join("osprey");
    let r = common::osprey_single(&yaml, &rules, &pcap, &out);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(
        stderr.contains("7 rules loaded, 0 failed, 0 unsupported"),
        "{stderr}"
    );
    assert_eq!(alerts(&out), want, "alerts differ from Suricata 7.0.10's");
    let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
    let pass = eve
        .lines()
        .find(|l| l.contains("\"signature_id\":6"))
        .expect("pass rule's alert");
    assert!(pass.contains("\"action\":\"allowed\""), "{pass}");
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(alerts(&sdir), want, "Suricata's alerts changed");
}

//! Event keywords end to end: `app-layer-event` (ET Open's DoubleQlik rule among them)
//! and `decode-event`/`engine-event` on a capture written here: HTTP requests with an
//! invalid `Transfer-Encoding` (libhtp's `invalid_transfer_encoding_value_in_request`),
//! one without `Host` (`missing_host_header`), two valid chunked ones, and a UDP
//! datagram cut short of its IPv4 length (`ipv4.trunc_pkt`, a packet whose IP header
//! does not decode), and one with an IPv4 option of unknown type (`ipv4.opt_invalid`).
//! The alerts (sid, pcap_cnt) are Suricata 7.0.10's on the same
//! capture (hard-coded from its run, and compared with a live run when `suricata` is
//! installed).
//!
//! The same capture (and one of ONC RPC calls) also checks the packet keywords of
//! issue 25 without an event: Suricata's `tcp.seq`/`tcp.ack`/`tcp.window` names,
//! `prefilter`, `nfq_set_mark`, `requires` and `rpc`.
//!
//! Known difference left out of the rules: libhtp stops parsing a connection whose
//! request has a `Transfer-Encoding` without `chunked`, so Suricata inspects that
//! flow's response side only when the flow ends; Osprey goes on parsing and inspects
//! it on the next to-client packet (hence `flow:to_server` on sid 2).

mod common;

use gen::frame::{flags, tcp_frame, udp_frame, Endpoint, PcapWriter, TcpSeg};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

const RULES: &str = r#"alert http 10.0.0.0/8 any -> !10.0.0.0/8 any (msg:"ET WEB_SPECIFIC_APPS Possible DoubleQlik RCE via HTTP Request Tunneling with Malformed Transfer-Encoding (CVE-2023-41265)"; flow:established,to_server; app-layer-event:http.invalid_transfer_encoding_value_in_request; http.cookie; content:"X-Qlik-Session="; fast_pattern; reference:cve,2023-41265; classtype:web-application-attack; sid:2048367; rev:1;)
alert http any any -> any any (msg:"te"; flow:to_server; app-layer-event:http.invalid_transfer_encoding_value_in_request; sid:2;)
alert pkthdr any any -> any any (msg:"trunc pkthdr"; decode-event:ipv4.trunc_pkt; sid:3;)
alert ip any any -> any any (msg:"trunc ip"; decode-event:ipv4.trunc_pkt; sid:4;)
alert http any any -> any any (msg:"no host"; app-layer-event:http.missing_host_header; sid:5;)
alert tcp any any -> any any (msg:"no host tcp"; app-layer-event:http.missing_host_header; sid:6;)
alert http any any -> any any (msg:"no host response"; app-layer-event:http.missing_host_header; content:"HTTP/1.1 200"; sid:7;)
alert udp any any -> any any (msg:"udp trunc"; decode-event:ipv4.trunc_pkt; sid:8;)
alert ip any any -> any any (msg:"engine trunc"; engine-event:decoder.ipv4.trunc_pkt; sid:9;)
alert udp any any -> any any (msg:"bad option"; decode-event:ipv4.opt_invalid; sid:10;)
alert pkthdr any any -> any any (msg:"engine bad option"; engine-event:decoder.ipv4.opt_invalid; sid:11;)
"#;

/// `(sid, pcap_cnt)` of each alert Suricata 7.0.10 raises on the capture (0: the
/// end-of-flow pseudo-packet). Each `app-layer-event` rule alerts once per
/// transaction and direction it inspects: sid 5 on the request's side (27) and the
/// response's (29). The truncated datagram is no UDP packet: sid 8 stays silent, and
/// `engine-event` (sid 9) does not match a packet whose IP header did not decode.
const WANT: &[(u64, u64)] = &[
    (2, 7),
    (2, 17),
    (3, 51),
    (4, 51),
    (5, 27),
    (5, 29),
    (6, 27),
    (6, 29),
    (7, 29),
    (10, 52),
    (11, 52),
    (2048367, 7),
];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// One TCP session on port 80: handshake, request, response, FIN both ways.
fn session(w: &mut PcapWriter<std::fs::File>, ts: &mut u64, port: u16, req: &[u8], res: &[u8]) {
    let c = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 1),
        port,
    };
    let s = Endpoint {
        ip: Ipv4Addr::new(198, 51, 100, 2),
        port: 80,
    };
    let (mut cs, mut ss) = (1000u32, 5000u32);
    let mut frame = Vec::new();
    let mut put = |w: &mut PcapWriter<_>, src, dst, seq, ack, flags, payload| {
        let seg = TcpSeg {
            src,
            dst,
            seq,
            ack,
            flags,
            payload,
        };
        tcp_frame(&mut frame, &seg, 1);
        *ts += 1_000_000;
        w.write(*ts, &frame).unwrap();
    };
    put(w, c, s, cs, 0, flags::SYN, b"");
    put(w, s, c, ss, cs + 1, flags::SYN | flags::ACK, b"");
    cs += 1;
    ss += 1;
    put(w, c, s, cs, ss, flags::ACK, b"");
    put(w, c, s, cs, ss, flags::ACK | flags::PSH, req);
    cs += req.len() as u32;
    put(w, s, c, ss, cs, flags::ACK, b"");
    put(w, s, c, ss, cs, flags::ACK | flags::PSH, res);
    ss += res.len() as u32;
    put(w, c, s, cs, ss, flags::ACK, b"");
    put(w, c, s, cs, ss, flags::FIN | flags::ACK, b"");
    put(w, s, c, ss, cs + 1, flags::FIN | flags::ACK, b"");
    put(w, c, s, cs + 1, ss + 1, flags::ACK, b"");
}

/// Writes the capture (52 packets).
fn capture(dir: &Path) -> PathBuf {
    let path = dir.join("events.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut ts = 1_600_000_000_000_000u64;
    let res = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let reqs: [&[u8]; 5] = [
        b"POST /a HTTP/1.1\r\nHost: x\r\nCookie: X-Qlik-Session=1\r\n\
          Transfer-Encoding: identity\r\n\r\n",
        b"POST /b HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
        b"GET /c HTTP/1.1\r\nUser-Agent: t\r\n\r\n",
        b"POST /d HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n\
          2\r\nab\r\n0\r\n\r\n",
        b"POST /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
    ];
    for (i, req) in reqs.iter().enumerate() {
        session(&mut w, &mut ts, 40000 + i as u16, req, res);
    }
    let mut frame = Vec::new();
    let a = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 3),
        port: 5000,
    };
    let b = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 4),
        port: 6000,
    };
    udp_frame(&mut frame, a, b, &[7u8; 40], 9);
    frame.truncate(frame.len() - 10);
    ts += 1_000_000;
    w.write(ts, &frame).unwrap();
    // An IPv4 header with an option of unknown type 0x99 (`ipv4.opt_invalid`).
    udp_frame(&mut frame, a, b, b"hi", 10);
    frame.splice(34..34, [0x99, 4, 0, 0]);
    frame[14] = 0x46;
    frame[17] += 4;
    ts += 1_000_000;
    w.write(ts, &frame).unwrap();
    w.finish().unwrap();
    path
}

/// `(sid, pcap_cnt)` of every alert in `dir/eve.json`, sorted; fails on an alert record
/// of the truncated packet that carries addresses (Suricata's has none).
fn alerts(dir: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut got = Vec::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
        if v["event_type"] != "alert" {
            continue;
        }
        let cnt = v["pcap_cnt"].as_u64().unwrap_or(0);
        if cnt == 51 {
            assert!(v.get("src_ip").is_none() && v.get("proto").is_none(), "{v}");
        }
        got.push((v["alert"]["signature_id"].as_u64().unwrap(), cnt));
    }
    got.sort_unstable();
    got
}

/// Writes the test's configuration and the rules `text` (as `name`) into `dir`, then
/// runs Osprey on `pcap`: (yaml, rules file, log directory). The run must succeed and,
/// when `loaded` is given, report that load summary.
fn run(
    dir: &Path,
    pcap: &Path,
    name: &str,
    text: &str,
    loaded: Option<&str>,
) -> (PathBuf, PathBuf, PathBuf) {
    let (yaml, rules) = (dir.join("osprey.yaml"), dir.join(name));
    std::fs::write(&yaml, CONFIG).unwrap();
    std::fs::write(&rules, text).unwrap();
    let out = dir.join("osprey");
    let r = common::osprey_single(&yaml, &rules, pcap, &out);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    if let Some(loaded) = loaded {
        assert!(stderr.contains(loaded), "{stderr}");
    }
    (yaml, rules, out)
}

#[test]
fn event_keywords_alert_as_suricata() {
    let dir = common::tempdir("keywords-events");
    let pcap = capture(&dir);
    let (yaml, rules, out) = run(
        &dir,
        &pcap,
        "events.rules",
        RULES,
        Some("11 rules loaded, 0 failed, 0 unsupported"),
    );
    let got = alerts(&out);
    assert_eq!(got, WANT, "alerts differ from Suricata 7.0.10's");

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    let by_sid = |v: &[(u64, u64)]| {
        let mut m: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        v.iter()
            .for_each(|(s, c)| m.entry(*s).or_default().push(*c));
        m
    };
    assert_eq!(
        by_sid(&got),
        by_sid(&alerts(&sdir)),
        "alerts differ from Suricata's"
    );
}

/// Suricata 7.0.10's names of the TCP header keywords (`tcp.seq`, `tcp.ack`,
/// `tcp.window`) match as `seq`, `ack` and `window` do.
const ALIASES: &str = r#"alert tcp any any -> any any (msg:"w"; tcp.window:64240; sid:1;)
alert tcp any any -> any any (msg:"w old"; window:64240; sid:2;)
alert tcp any any -> any any (msg:"s"; tcp.seq:1000; sid:3;)
alert tcp any any -> any any (msg:"s old"; seq:1000; sid:4;)
alert tcp any any -> any any (msg:"a"; tcp.ack:1001; sid:5;)
alert tcp any any -> any any (msg:"a old"; ack:1001; sid:6;)
alert tcp any any -> any any (msg:"w not"; tcp.window:!64240; sid:7;)
"#;

/// Alerts per sid as Suricata 7.0.10 raises them on the capture.
const ALIASES_WANT: &[(u64, usize)] = &[(1, 50), (2, 50), (3, 5), (4, 5), (5, 5), (6, 5)];

#[test]
fn tcp_header_aliases_alert_as_suricata() {
    let dir = common::tempdir("keywords-tcp-aliases");
    let pcap = capture(&dir);
    let (yaml, rules, out) = run(&dir, &pcap, "aliases.rules", ALIASES, None);
    let got = alerts(&out);
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    got.iter()
        .for_each(|(s, _)| *counts.entry(*s).or_default() += 1);
    let want: BTreeMap<u64, usize> = ALIASES_WANT.iter().copied().collect();
    assert_eq!(counts, want);
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(got, alerts(&sdir), "alerts differ from Suricata's");
}

/// Keywords that add no packet condition: `prefilter`, `nfq_set_mark` (ignored outside
/// IPS with NFQUEUE, as in Suricata) and `requires` (a rule needing a newer version, a
/// version range without 7.0.10 or any feature is skipped, as Suricata 7.0.10 skips
/// it: there in `rules_skipped`, here counted unsupported).
const META: &str = r#"alert tcp any any -> any any (msg:"pf"; flags:S; prefilter; sid:1;)
alert tcp any any -> any any (msg:"nfq"; flags:S; nfq_set_mark:0x10/0xff; sid:2;)
alert tcp any any -> any any (msg:"req ok"; requires:version >= 7.0.0; flags:S; sid:3;)
alert tcp any any -> any any (msg:"req high"; requires:version >= 8.0.0; flags:S; sid:4;)
alert tcp any any -> any any (msg:"req feature"; requires:feature nosuchfeature; flags:S; sid:5;)
alert tcp any any -> any any (msg:"req both"; requires:feature output::file-store, version >= 7.0.3 < 8; flags:S; sid:6;)
alert tcp any any -> any any (msg:"req range"; requires:version >= 7.0.3 < 7.0.5; flags:S; sid:7;)
"#;

#[test]
fn meta_keywords_alert_as_suricata() {
    let dir = common::tempdir("keywords-meta");
    let pcap = capture(&dir);
    let (yaml, rules, out) = run(
        &dir,
        &pcap,
        "meta.rules",
        META,
        Some("3 rules loaded, 0 failed, 4 unsupported"),
    );
    let got = alerts(&out);
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    got.iter()
        .for_each(|(s, _)| *counts.entry(*s).or_default() += 1);
    // The five SYNs, for each rule Suricata 7.0.10 loads.
    assert_eq!(counts, BTreeMap::from([(1, 5), (2, 5), (3, 5)]));
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(got, alerts(&sdir), "alerts differ from Suricata's");
}

/// `rpc` on ONC RPC calls: a portmap GETPORT call (program 100000, version 2,
/// procedure 3) over UDP and over TCP (after its record mark), each answered by a
/// reply, which no `rpc` rule matches.
const RPC: &str = r#"alert ip any any -> any any (msg:"portmap any"; rpc:100000,*,*; sid:1;)
alert ip any any -> any any (msg:"getport"; rpc:100000,2,3; sid:2;)
alert ip any any -> any any (msg:"portmap v3"; rpc:100000,3,*; sid:3;)
alert ip any any -> any any (msg:"nfs"; rpc:100003; sid:4;)
alert udp any any -> any any (msg:"portmap v2"; rpc:100000,2; sid:5;)
"#;

/// An ONC RPC message: `xid`, `kind` (0 call, 1 reply), then for a call RPC version 2,
/// program 100000, version 2, procedure 3 and empty credentials.
fn rpc_msg(kind: u32) -> Vec<u8> {
    let words: &[u32] = if kind == 0 {
        &[7, 0, 2, 100000, 2, 3, 0, 0, 0, 0, 100003, 2, 17, 0]
    } else {
        &[7, 1, 0, 0, 0, 0, 2049]
    };
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

#[test]
fn rpc_alerts_as_suricata() {
    let dir = common::tempdir("keywords-rpc");
    let pcap = dir.join("rpc.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&pcap).unwrap()).unwrap();
    let mut ts = 1_600_000_000_000_000u64;
    let (call, reply) = (rpc_msg(0), rpc_msg(1));
    let mark = |m: &[u8]| {
        let mut v = (0x8000_0000u32 | m.len() as u32).to_be_bytes().to_vec();
        v.extend_from_slice(m);
        v
    };
    session(&mut w, &mut ts, 41000, &mark(&call), &mark(&reply));
    let (a, b) = (
        Endpoint {
            ip: Ipv4Addr::new(10, 0, 0, 3),
            port: 900,
        },
        Endpoint {
            ip: Ipv4Addr::new(10, 0, 0, 4),
            port: 111,
        },
    );
    let mut frame = Vec::new();
    for (src, dst, m) in [(a, b, &call), (b, a, &reply)] {
        udp_frame(&mut frame, src, dst, m, 3);
        ts += 1_000_000;
        w.write(ts, &frame).unwrap();
    }
    w.finish().unwrap();
    let (yaml, rules, out) = run(
        &dir,
        &pcap,
        "rpc.rules",
        RPC,
        Some("5 rules loaded, 0 failed, 0 unsupported"),
    );
    let got = alerts(&out);
    // The TCP call is packet 4, the UDP call packet 11.
    assert_eq!(got, [(1, 4), (1, 11), (2, 4), (2, 11), (5, 11)]);
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(got, alerts(&sdir), "alerts differ from Suricata's");
}

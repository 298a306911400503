//! When an `app-layer-event` rule alerts, as Suricata 7.0.10 decides it: once per
//! transaction and direction, on a packet of that direction, once that side of the
//! transaction has begun. The capture (written here) holds three HTTP sessions whose
//! request lacks `Host` (`http.missing_host_header`, raised when the request is parsed,
//! on the server's ACK) and whose response starts with a whole status line, with part
//! of one, or with the line and a header but not the end of the headers: the to-client
//! alert comes on the first to-client packet after any response byte was parsed, not
//! after the line or the headers are complete. The alerts (sid, pcap_cnt) are
//! Suricata 7.0.10's (hard-coded from its run, compared with a live run when
//! `suricata` is installed).

mod common;

use gen::frame::{flags, tcp_frame, Endpoint, PcapWriter, TcpSeg};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

const RULES: &str = "alert http any any -> any any (msg:\"no host\"; \
    app-layer-event:http.missing_host_header; sid:1;)\n";

/// `pcap_cnt` of each alert Suricata 7.0.10 raises: per session (14 packets) the
/// client's ACK of the first response segment (to the server) and the next response
/// segment (to the client).
const WANT: &[u64] = &[7, 8, 21, 22, 35, 36];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// One session: handshake, request, the response in three segments (each ACKed), FIN
/// both ways.
fn session(w: &mut PcapWriter<std::fs::File>, ts: &mut u64, port: u16, first: &[u8], rest: &[u8]) {
    let c = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 1),
        port,
    };
    let s = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 2),
        port: 80,
    };
    let req: &[u8] = b"GET /x HTTP/1.1\r\nUser-Agent: t\r\n\r\n";
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
        *ts += 10_000;
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
    for part in [first, rest, b"ok".as_slice()] {
        put(w, s, c, ss, cs, flags::ACK | flags::PSH, part);
        ss += part.len() as u32;
        put(w, c, s, cs, ss, flags::ACK, b"");
    }
    put(w, c, s, cs, ss, flags::FIN | flags::ACK, b"");
    put(w, s, c, ss, cs + 1, flags::FIN | flags::ACK, b"");
    put(w, c, s, cs + 1, ss + 1, flags::ACK, b"");
}

/// Writes the capture (42 packets).
fn capture(dir: &Path) -> PathBuf {
    let path = dir.join("timing.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut ts = 1_700_000_000_000_000u64;
    session(
        &mut w,
        &mut ts,
        40001,
        b"HTTP/1.1 200 OK\r\n",
        b"Content-Length: 2\r\n\r\n",
    );
    session(
        &mut w,
        &mut ts,
        40002,
        b"HTTP/1.1 2",
        b"00 OK\r\nContent-Length: 2\r\n\r\n",
    );
    session(
        &mut w,
        &mut ts,
        40003,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
        b"\r\n",
    );
    w.finish().unwrap();
    path
}

/// `pcap_cnt` of every alert in `dir/eve.json`, sorted.
fn alerts(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut got: Vec<u64> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert")
        .map(|v| v["pcap_cnt"].as_u64().unwrap_or(0))
        .collect();
    got.sort_unstable();
    got
}

#[test]
fn event_rules_alert_once_the_response_has_begun() {
    let dir = common::tempdir("app-layer-event-timing");
    let pcap = capture(&dir);
    let (yaml, rules) = (dir.join("osprey.yaml"), dir.join("timing.rules"));
    std::fs::write(&yaml, CONFIG).unwrap();
    std::fs::write(&rules, RULES).unwrap();
    let out = dir.join("osprey");
    let r = common::osprey_single(&yaml, &rules, &pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(alerts(&out), WANT, "alerts differ from Suricata 7.0.10's");

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    assert_eq!(alerts(&sdir), WANT, "WANT is what Suricata logs");
}

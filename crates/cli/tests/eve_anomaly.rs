//! EVE `anomaly` records on a capture written here: an HTTP flow whose response
//! carries libhtp's warnings, a flow whose server does not answer in the protocol its
//! client spoke, and a truncated IPv4 packet. With the anomaly type on (stock config:
//! `applayer: yes`, `decode: no`) the app-layer records are written one per occurrence
//! with Suricata's names, `layer` and `tx_id`; `applayer: no` turns them off and
//! `decode: yes` adds the decoder's.

mod common;

use common::{osprey, tempdir};
use gen::frame::{flags, tcp_frame, udp_frame, Endpoint, PcapWriter, TcpSeg};
use serde_json::Value;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// One TCP session: handshake, the request, the response, FIN both ways.
fn session(
    w: &mut PcapWriter<std::fs::File>,
    ts: &mut u64,
    ports: (u16, u16),
    req: &[u8],
    res: &[u8],
) {
    let c = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 1),
        port: ports.0,
    };
    let s = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 2),
        port: ports.1,
    };
    let (mut cs, mut ss) = (1000u32, 5000u32);
    let mut frame = Vec::new();
    let mut put = |w: &mut PcapWriter<_>, seg: TcpSeg<'_>| {
        tcp_frame(&mut frame, &seg, 1);
        *ts += 1000;
        w.write(*ts, &frame).unwrap();
    };
    let seg = |src, dst, seq, ack, flags, payload| TcpSeg {
        src,
        dst,
        seq,
        ack,
        flags,
        payload,
    };
    put(w, seg(c, s, cs, 0, flags::SYN, b""));
    put(w, seg(s, c, ss, cs + 1, flags::SYN | flags::ACK, b""));
    cs += 1;
    ss += 1;
    put(w, seg(c, s, cs, ss, flags::ACK, b""));
    put(w, seg(c, s, cs, ss, flags::ACK | flags::PSH, req));
    cs += req.len() as u32;
    put(w, seg(s, c, ss, cs, flags::ACK, b""));
    put(w, seg(s, c, ss, cs, flags::ACK | flags::PSH, res));
    ss += res.len() as u32;
    put(w, seg(c, s, cs, ss, flags::ACK, b""));
    put(w, seg(c, s, cs, ss, flags::FIN | flags::ACK, b""));
    put(w, seg(s, c, ss, cs + 1, flags::FIN | flags::ACK, b""));
    put(w, seg(c, s, cs + 1, ss + 1, flags::ACK, b""));
}

/// Writes the capture: the HTTP flow, the one-sided flow, a truncated packet.
fn capture(dir: &Path) -> PathBuf {
    let path = dir.join("anomalies.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut ts = 1_600_000_000_000_000u64;
    // HTTP/1.0 with chunking (old protocol), a header name with a space (invalid), a
    // body announced as gzip that is not (each of libhtp's four tries fails), and a
    // chunk extension on the request.
    session(
        &mut w,
        &mut ts,
        (40000, 80),
        b"POST /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n\
          3;ext=1\r\nabc\r\n0\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\
          Bad Name: x\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    );
    // An HTTP request answered by something that is not HTTP.
    session(
        &mut w,
        &mut ts,
        (40001, 80),
        b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
        b"SSH-2.0-OpenSSH_8.9\r\n",
    );
    // A UDP datagram cut short of its IPv4 total length.
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
    ts += 1000;
    w.write(ts, &frame).unwrap();
    w.finish().unwrap();
    path
}

/// The configuration: EVE with the anomaly type and its `kinds`.
fn config(dir: &Path, kinds: &str) -> PathBuf {
    let path = dir.join(format!(
        "osprey-{}.yaml",
        kinds.replace([' ', ':', ','], "_")
    ));
    let yaml = format!(
        "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
         filename: eve.json\n      types:\n        - anomaly:\n            enabled: yes\n            \
         types:\n              {kinds}\n        - http\n"
    );
    std::fs::write(&path, yaml).unwrap();
    path
}

/// Runs Osprey on the capture with the anomaly `kinds`; returns the anomaly records.
fn run(name: &str, kinds: &str) -> Vec<Value> {
    let dir = tempdir(name);
    let pcap = capture(&dir);
    let yaml = config(&dir, kinds);
    let out = dir.join("log");
    std::fs::create_dir_all(&out).unwrap();
    let r = osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        "/dev/null",
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("eve.json"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "anomaly")
        .collect()
}

/// `(type, layer, event, app_proto, tx_id, src_port)` of each record, in file order.
fn summary(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .map(|r| {
            let a = &r["anomaly"];
            format!(
                "{} {} {} {} tx={} sport={}",
                a["type"].as_str().unwrap_or("-"),
                a["layer"].as_str().unwrap_or("-"),
                a["event"].as_str().unwrap_or("-"),
                a["app_proto"].as_str().unwrap_or("-"),
                r["tx_id"],
                r["src_port"]
            )
        })
        .collect()
}

#[test]
fn applayer_anomalies_are_written_per_occurrence() {
    let recs = run("anomaly-applayer", "applayer: yes");
    let got = summary(&recs);
    // Each record is the packet's that handed the bytes to the app layer (as in
    // Suricata): the server's ACK for the request, the client's for the response.
    let want = [
        "applayer proto_parser REQUEST_CHUNK_EXTENSION http tx=0 sport=80",
        "applayer proto_parser RESPONSE_HEADER_INVALID http tx=0 sport=40000",
        "applayer proto_parser RESPONSE_CHUNKED_OLD_PROTO http tx=0 sport=40000",
        "applayer proto_parser GZIP_DECOMPRESSION_FAILED http tx=0 sport=40000",
        "applayer proto_parser GZIP_DECOMPRESSION_FAILED http tx=0 sport=40000",
        "applayer proto_parser GZIP_DECOMPRESSION_FAILED http tx=0 sport=40000",
        "applayer proto_parser GZIP_DECOMPRESSION_FAILED http tx=0 sport=40000",
        // The server answers with an SSH banner: Suricata 7.0.10 detects SSH there and
        // raises the mismatch (Osprey said ONLY_ONE_DIRECTION before it parsed SSH).
        "applayer proto_detect APPLAYER_MISMATCH_PROTOCOL_BOTH_DIRECTIONS http tx=null sport=40001",
    ];
    assert_eq!(got, want, "{recs:#?}");
    for r in &recs {
        assert_eq!(r["pkt_src"], "wire/pcap");
        assert!(r["pcap_cnt"].is_u64() && r["flow_id"].is_u64(), "{r}");
        assert_eq!(r["proto"], "TCP");
    }
    // Detection events are the packet's, not a transaction's.
    assert!(recs.last().unwrap().get("tx_id").is_none());
}

#[test]
fn applayer_no_turns_them_off_and_decode_yes_adds_the_decoders() {
    assert!(run("anomaly-off", "applayer: no").is_empty());
    let recs = run("anomaly-decode", "decode: yes");
    let decode: Vec<&Value> = recs
        .iter()
        .filter(|r| r["anomaly"]["type"] == "decode")
        .collect();
    assert_eq!(decode.len(), 1, "{recs:#?}");
    assert_eq!(decode[0]["anomaly"]["event"], "decoder.ipv4.trunc_pkt");
    // As Suricata's: a packet whose IP header did not decode has no addresses.
    assert!(decode[0].get("src_ip").is_none() && decode[0].get("proto").is_none());
    assert!(decode[0]["pcap_cnt"].is_u64());
    assert!(decode[0]["anomaly"].get("layer").is_none());
    // applayer stays on by default.
    assert_eq!(recs.len(), 9, "{recs:#?}");
}

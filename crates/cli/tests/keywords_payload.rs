//! Payload keywords, transforms and HTTP buffers end to end: `osprey` runs rules with
//! `base64_decode`/`base64_data`, `asn1`, `http.start`, `header_lowercase`,
//! `pcrexform`, `to_md5`/`to_sha1`/`to_sha256` and `strip_pseudo_headers` on a capture
//! written here, and its alerts (sid, pcap_cnt) are the ones Suricata 7.0.10 raised on
//! the same capture with the same rules and configuration (hard-coded below, and
//! compared with a live run when `suricata` is installed; required under
//! `OSPREY_REQUIRE_SURICATA=1`).

mod common;

use common::{osprey, tempdir};
use gen::frame::{flags, tcp_frame, Endpoint, PcapWriter, TcpSeg};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// One TCP session to `dport`: handshake, each turn acknowledged, FIN both ways.
/// `true` turns are the client's.
fn session(
    w: &mut PcapWriter<std::fs::File>,
    ts: &mut u64,
    port: u16,
    dport: u16,
    turns: &[(bool, &[u8])],
) {
    let c = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 1),
        port,
    };
    let s = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 2),
        port: dport,
    };
    let (mut cs, mut ss) = (1000u32, 5000u32);
    let mut frame = Vec::new();
    let mut put = |w: &mut PcapWriter<_>, src, dst, seq, ack, fl, payload| {
        let seg = TcpSeg {
            src,
            dst,
            seq,
            ack,
            flags: fl,
            payload,
        };
        tcp_frame(&mut frame, &seg, 1);
        *ts += 1000;
        w.write(*ts, &frame).unwrap();
    };
    put(w, c, s, cs, 0, flags::SYN, b"");
    put(w, s, c, ss, cs + 1, flags::SYN | flags::ACK, b"");
    cs += 1;
    ss += 1;
    put(w, c, s, cs, ss, flags::ACK, b"");
    for &(client, data) in turns {
        let n = data.len() as u32;
        if client {
            put(w, c, s, cs, ss, flags::ACK | flags::PSH, data);
            cs += n;
            put(w, s, c, ss, cs, flags::ACK, b"");
        } else {
            put(w, s, c, ss, cs, flags::ACK | flags::PSH, data);
            ss += n;
            put(w, c, s, cs, ss, flags::ACK, b"");
        }
    }
    put(w, c, s, cs, ss, flags::FIN | flags::ACK, b"");
    put(w, s, c, ss, cs + 1, flags::FIN | flags::ACK, b"");
    put(w, c, s, cs + 1, ss + 1, flags::ACK, b"");
}

/// The client payloads of the base64 sessions (port 9000).
const B64: &[&[u8]] = &[
    b"T1 X=aGVsbG8gd29ybGQ=\n",
    b"T2 X=aGVs bG8gd29ybGQ=\n",
    b"T3 X=aGVsbG",
    b"T4 X=aGVsbG8gd29ybGQ=\n",
    b"T5 X=!!!!",
    b"T6 X=aGVsbG8gd29ybGQ=\n",
    b"T7 X=aGVsbG8=d29ybGQ=\n",
    b"T8 X=aGVsb\r\nG8gd29ybGQ=\n",
];

/// The client payloads of the asn1 sessions (port 9001): a 3-byte tag, then BER.
fn asn1_payloads() -> Vec<Vec<u8>> {
    let cat = |tag: &[u8], parts: &[&[u8]]| {
        let mut v = tag.to_vec();
        for p in parts {
            v.extend_from_slice(p);
        }
        v
    };
    let real = |first: u8, n: usize| {
        let mut b = vec![0x09, 0x82, (n >> 8) as u8, n as u8, first];
        b.extend(std::iter::repeat_n(b'1', n - 1));
        b
    };
    vec![
        cat(b"A1 ", &[b"\x04\x82\x10\x00", &[b'x'; 20]]),
        cat(b"A2 ", &[b"\x04\x82\x04\x10", &[b'x'; 0x410]]),
        cat(b"A3 ", &[b"\x30\x06\x04\x01a\x04\x01b"]),
        cat(b"A4 ", &[b"\x03\x02\x11\xff"]),
        cat(b"A5 ", &[b"\x03\x02\x10\xff"]),
        cat(b"A6 ", &[&real(0x01, 257)]),
        cat(b"A7 ", &[&real(0x01, 256)]),
        cat(b"A8 ", &[&real(0x80, 257)]),
        cat(b"A9 ", &[b"\x04\x05xxxxx\xff"]),
        cat(b"AA ", &[b"\x03\x00\x04\x05xxxxx"]),
        cat(b"AB ", &[b"\x30\x80\x04\x01a\x00\x00"]),
    ]
}

const HTTP_REQ: &[u8] = b"GET /a/../b/%41?x=%41&a=foo HTTP/1.1\r\nHost: WWW.Example.com:8080\r\n\
    User-Agent: curl/8\r\nCookie: k=v\r\nAccept: */*\r\nX-A: 1\r\nX-A: 2\r\nX-C:   d  \r\n\r\n";
const HTTP_RES: &[u8] = b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\n\
    Set-Cookie: s=1\r\nContent-Length: 5\r\n\r\nhello";

fn capture(dir: &Path) -> PathBuf {
    let path = dir.join("payload.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut ts = 1_700_000_000_000_000u64;
    for (i, p) in B64.iter().enumerate() {
        session(&mut w, &mut ts, 41000 + i as u16, 9000, &[(true, p)]);
    }
    for (i, p) in asn1_payloads().iter().enumerate() {
        session(&mut w, &mut ts, 42000 + i as u16, 9001, &[(true, p)]);
    }
    session(
        &mut w,
        &mut ts,
        43000,
        80,
        &[(true, HTTP_REQ), (false, HTTP_RES)],
    );
    w.finish().unwrap();
    path
}

fn rules() -> String {
    let mut r = String::new();
    let b64 = [
        (
            1,
            r#"content:"T1 X="; base64_decode:relative; base64_data; content:"hello world";"#,
        ),
        (
            21,
            r#"content:"T2 X="; base64_decode:relative; base64_data; content:"hello";"#,
        ),
        (
            22,
            r#"content:"T2 X="; base64_decode:relative; base64_data; content:"hel";"#,
        ),
        (
            31,
            r#"content:"T3 X="; base64_decode:relative; base64_data; content:"hell";"#,
        ),
        (
            41,
            r#"content:"T4 X="; base64_decode:relative; content:"ZZZ"; distance:0; base64_data; content:"hello";"#,
        ),
        (42, r#"content:"T4 X="; base64_decode:relative;"#),
        (
            51,
            r#"content:"T5 X="; base64_decode:relative; base64_data; content:!"zzz";"#,
        ),
        (
            61,
            r#"content:"T6 X="; base64_decode:bytes 4, offset 5; base64_data; content:"hel";"#,
        ),
        (
            62,
            r#"content:"T6 X="; base64_decode:bytes 4, offset 5; base64_data; content:"hell";"#,
        ),
        (
            63,
            r#"content:"T6 X="; base64_decode:bytes 6, offset 5; base64_data; content:"hell";"#,
        ),
        (
            71,
            r#"content:"T7 X="; base64_decode:relative; base64_data; content:"world";"#,
        ),
        (
            81,
            r#"content:"T8 X="; base64_decode:relative; base64_data; content:"hello world";"#,
        ),
        (
            82,
            r#"content:"T8 X="; base64_decode:relative; base64_data; content:"hel";"#,
        ),
        (
            91,
            r#"content:"T1 X="; base64_decode:relative; base64_data; content:"hello"; depth:5; content:"world"; distance:1;"#,
        ),
        (
            92,
            r#"content:"T1 X="; base64_decode:relative; base64_data; content:"world"; isdataat:!1,relative;"#,
        ),
        (
            93,
            r#"content:"T1 X="; base64_decode:relative; base64_data; content:"world"; isdataat:1,relative;"#,
        ),
        (
            94,
            r#"content:"T1 X="; base64_decode; base64_data; content:"hello";"#,
        ),
        (
            95,
            r#"content:"T1 X="; base64_decode:offset 5; base64_data; content:"hello world"; startswith;"#,
        ),
    ];
    for (sid, opts) in b64 {
        r += &format!("alert tcp any any -> any 9000 ({opts} sid:{sid};)\n");
    }
    let tags = [
        "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "AA", "AB",
    ];
    let opts = [
        "oversize_length 1024, relative_offset 0",
        "bitstring_overflow, relative_offset 0",
        "double_overflow, relative_offset 0",
        "oversize_length 3, relative_offset 0",
        "oversize_length 3, absolute_offset 3",
    ];
    for (i, t) in tags.iter().enumerate() {
        for (j, o) in opts.iter().enumerate() {
            let sid = 1000 + i * 10 + j;
            r += &format!(
                "alert tcp any any -> any 9001 (content:\"{t} \"; depth:3; asn1:{o}; sid:{sid};)\n"
            );
        }
    }
    // md5("curl/8"), sha1("GET"), sha256("curl/8"). (Not the URI or the host: with
    // no libhtp settings in its configuration Suricata 7.0.10 normalizes them unlike
    // the stock suricata.yaml, which Osprey follows.)
    let md5 = "80 4b 21 31 7f 0e 65 17 41 b6 16 84 b0 ac 36 9d";
    let sha1 = "f0 30 bb bd 32 96 6c de 41 03 7b 98 a8 84 9c 46 b7 6e 4b c1";
    let sha256 = "d2 6c 06 50 ab b4 8c ff 3c 03 7b 13 7b 03 71 3f 2f b0 6f 18 76 92 3c a5 50 3f 51 5d 06 04 b0 96";
    let http = [
        (2001, r#"flow:to_server; http.start; content:"GET /a/../b/%41?x=%41&a=foo HTTP/1.1|0d 0a|Host: WWW.Example.com:8080|0d 0a|User-Agent: curl/8|0d 0a|Cookie: k=v|0d 0a|Accept: */*|0d 0a|X-A: 1, 2|0d 0a|X-C: d|0d 0a 0d 0a|"; startswith; endswith;"#.to_string()),
        (2002, r#"flow:to_client; http.start; content:"HTTP/1.1 200 OK|0d 0a|Server: nginx|0d 0a|Content-Type: text/html|0d 0a|Set-Cookie: s=1|0d 0a|Content-Length: 5|0d 0a 0d 0a|"; startswith; endswith;"#.to_string()),
        (2003, r#"flow:to_server; http.start; content:"X-C:   d"; "#.to_string()),
        (2004, r#"flow:to_server; http.start; header_lowercase; content:"get /a/"; content:"x-a: 1, 2"; content:"host: WWW"; "#.to_string()),
        (2005, r#"flow:to_server; http.header; header_lowercase; content:"user-agent: curl"; "#.to_string()),
        (2006, r#"flow:to_server; http.header; header_lowercase; content:"user-agent: CURL"; "#.to_string()),
        (2007, r#"flow:to_server; http.uri; pcrexform:"a=([^&]+)"; content:"foo"; bsize:3;"#.to_string()),
        (2008, r#"flow:to_server; http.uri; pcrexform:"zzz(.)"; content:"/b/A"; startswith;"#.to_string()),
        (2009, format!(r#"flow:to_server; http.user_agent; to_md5; content:"|{md5}|"; bsize:16;"#)),
        (2010, format!(r#"flow:to_server; http.method; to_sha1; content:"|{sha1}|";"#)),
        (2011, format!(r#"flow:to_server; http.user_agent; to_sha256; content:"|{sha256}|";"#)),
        (2012, r#"flow:to_server; http.header; strip_pseudo_headers; content:"Host: "; startswith;"#.to_string()),
        (2013, r#"flow:to_server; http.uri; to_uppercase; to_md5; bsize:16;"#.to_string()),
        (2014, r#"flow:to_server; http.start; bsize:>150;"#.to_string()),
        (2015, r#"flow:to_server; http.start; bsize:<150;"#.to_string()),
    ];
    for (sid, opts) in http {
        r += &format!("alert http any any -> any any ({opts} sid:{sid};)\n");
    }
    r
}

/// What Suricata 7.0.10 raised on this capture with these rules: (sid, pcap_cnt).
const EXPECTED: &[(u64, u64)] = &[
    (1, 6),
    (22, 14),
    (31, 22),
    (41, 30),
    (61, 46),
    (63, 46),
    (71, 54),
    (82, 62),
    (91, 6),
    (92, 6),
    (95, 6),
    (1010, 76),
    (1013, 76),
    (1014, 76),
    (1023, 84),
    (1024, 84),
    (1031, 92),
    (1052, 108),
    (1053, 108),
    (1054, 108),
    (1063, 116),
    (1064, 116),
    (1073, 124),
    (1074, 124),
    (1083, 132),
    (1084, 132),
    (2001, 159),
    (2002, 161),
    (2004, 159),
    (2005, 159),
    (2007, 159),
    (2008, 159),
    (2009, 159),
    (2010, 159),
    (2011, 159),
    (2012, 159),
    (2013, 159),
    (2015, 159),
];

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

fn alerts(eve: &Path) -> BTreeSet<(u64, u64)> {
    std::fs::read_to_string(eve)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["pcap_cnt"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn payload_keywords_alert_as_suricata() {
    let dir = tempdir("keywords_payload");
    let pcap = capture(&dir);
    let rules_path = dir.join("payload.rules");
    std::fs::write(&rules_path, rules()).unwrap();
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let out_dir = dir.join("osprey");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        rules_path.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        out_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = alerts(&out_dir.join("eve.json"));
    let want: BTreeSet<(u64, u64)> = EXPECTED.iter().copied().collect();
    if common::suricata().is_some() {
        let s_dir = dir.join("suricata");
        std::fs::create_dir_all(&s_dir).unwrap();
        assert!(common::run_suricata(&yaml, &pcap, &rules_path, &s_dir));
        let live = alerts(&s_dir.join("eve.json"));
        assert_eq!(live, want, "Suricata's alerts changed: update EXPECTED");
    }
    assert_eq!(got, want);
}

//! EVE `smtp` records and SMTP app-layer anomalies on a capture written here: a
//! session as in sv-ether.pcap (greeting, `EHLO`, a pipelined envelope with `DATA`, a
//! message, `QUIT`), and a session with no greeting whose `DATA` is rejected and whose
//! client sends a second `MAIL FROM`; and the `email` objects (attachments, URLs, MIME
//! events) of six MIME mails cut from sv-ether.pcap (tests/data/smtp-mime.pcap). The
//! records are checked against what Suricata 7.0.10 writes for the same capture
//! (hard-coded here, and compared with a live run when `suricata` is installed).

mod common;

use common::{osprey, tempdir};
use gen::frame::{flags, tcp_frame, Endpoint, PcapWriter, TcpSeg};
use serde_json::Value;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// Who sends a turn of the conversation.
#[derive(Clone, Copy)]
enum Side {
    Client,
    Server,
}

/// One TCP session on port 25: handshake, each turn acknowledged by the other side,
/// FIN both ways.
fn session(w: &mut PcapWriter<std::fs::File>, ts: &mut u64, port: u16, turns: &[(Side, &[u8])]) {
    let c = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 1),
        port,
    };
    let s = Endpoint {
        ip: Ipv4Addr::new(10, 0, 0, 2),
        port: 25,
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
    for &(side, data) in turns {
        let n = data.len() as u32;
        match side {
            Side::Client => {
                put(w, c, s, cs, ss, flags::ACK | flags::PSH, data);
                cs += n;
                put(w, s, c, ss, cs, flags::ACK, b"");
            }
            Side::Server => {
                put(w, s, c, ss, cs, flags::ACK | flags::PSH, data);
                ss += n;
                put(w, c, s, cs, ss, flags::ACK, b"");
            }
        }
    }
    put(w, c, s, cs, ss, flags::FIN | flags::ACK, b"");
    put(w, s, c, ss, cs + 1, flags::FIN | flags::ACK, b"");
    put(w, c, s, cs + 1, ss + 1, flags::ACK, b"");
}

/// Writes the capture.
fn capture(dir: &Path) -> PathBuf {
    use Side::{Client as C, Server as S};
    let path = dir.join("smtp.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut ts = 1_600_000_000_000_000u64;
    // The bytes of sv-ether.pcap's flow 88.191.140.111:51906 -> 188.125.69.79:25,
    // the message shortened.
    session(
        &mut w,
        &mut ts,
        51906,
        &[
            (
                S,
                b"220 mta1125.mail.ir2.yahoo.com ESMTP YSmtpProxy service ready\r\n",
            ),
            (C, b"EHLO sd-26634.localdomain\r\n"),
            (
                S,
                b"250-mta1125.mail.ir2.yahoo.com\r\n250-8BITMIME\r\n250-SIZE 41943040\r\n\
                  250 PIPELINING\r\n",
            ),
            (
                C,
                b"MAIL FROM:<rmkml@yahoo.fr> SIZE=525\r\nRCPT TO:<rmkml@yahoo.fr>\r\nDATA\r\n",
            ),
            (S, b"250 sender <rmkml@yahoo.fr> ok\r\n"),
            (S, b"250 recipient <rmkml@yahoo.fr> ok\r\n354 go ahead\r\n"),
            (
                C,
                b"Received: from localhost (localhost [127.0.0.1])\r\n\tby sd-26634.localdomain \
                  (Postfix) with ESMTP id B76D721092\r\nDate: Tue, 26 Nov 2013 16:30:19 +0100 \
                  (CET)\r\nFrom: rmkml <rmkml@yahoo.fr>\r\nTo: rmkml@yahoo.fr\r\n\
                  Cc: a <a@example.com>, b@example.com\r\nSubject: test\r\n\r\nhello\r\n\
                  ..dot\r\n.\r\n",
            ),
            (S, b"250 ok dirdel\r\n"),
            (C, b"QUIT\r\n"),
            (S, b"221 mta1125.mail.ir2.yahoo.com\r\n"),
        ],
    );
    // No greeting; a second MAIL FROM; DATA rejected; a reply nobody asked for.
    session(
        &mut w,
        &mut ts,
        51907,
        &[
            (C, b"EHLO client.example.com\r\n"),
            (S, b"250 mail.example.com\r\n"),
            (C, b"MAIL FROM:<a@example.com>\r\n"),
            (S, b"250 ok\r\n"),
            (C, b"MAIL FROM:<b@example.com>\r\n"),
            (S, b"503 nested MAIL command\r\n"),
            (C, b"DATA\r\n"),
            (S, b"554 no valid recipients\r\n"),
            (C, b"RSET\r\n"),
            (S, b"250 ok\r\n"),
            (C, b"QUIT\r\n"),
            (S, b"221 bye\r\n"),
        ],
    );
    w.finish().unwrap();
    path
}

/// EVE with the smtp and anomaly types (app-layer anomalies).
const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - anomaly:\n            \
    enabled: yes\n            types:\n              applayer: yes\n        - smtp\n";

/// `(src_port, tx_id, smtp, email)` of each smtp record and `(src_port, tx_id, event)`
/// of each SMTP anomaly, sorted.
type Summary = (Vec<(u64, u64, Value, Value)>, Vec<(u64, Value, String)>);

fn summary(eve: &Path) -> Summary {
    let recs: Vec<Value> = std::fs::read_to_string(eve)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("EVE lines are JSON"))
        .collect();
    let port = |r: &Value| {
        let (s, d) = (
            r["src_port"].as_u64().unwrap(),
            r["dest_port"].as_u64().unwrap(),
        );
        if s == 25 {
            d
        } else {
            s
        }
    };
    let mut smtp: Vec<_> = recs
        .iter()
        .filter(|r| r["event_type"] == "smtp")
        .map(|r| {
            (
                port(r),
                r["tx_id"].as_u64().unwrap(),
                r["smtp"].clone(),
                r["email"].clone(),
            )
        })
        .collect();
    smtp.sort_by_key(|x| (x.0, x.1));
    let mut anomalies: Vec<_> = recs
        .iter()
        .filter(|r| r["event_type"] == "anomaly" && r["anomaly"]["app_proto"] == "smtp")
        .filter(|r| r["anomaly"]["layer"] == "proto_parser")
        .map(|r| {
            let e = r["anomaly"]["event"].as_str().unwrap().to_string();
            (port(r), r["tx_id"].clone(), e)
        })
        .collect();
    anomalies.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
    (smtp, anomalies)
}

fn run_osprey(dir: &Path, pcap: &Path, yaml: &Path) -> PathBuf {
    let out = dir.join("osprey");
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
    out.join("eve.json")
}

#[test]
fn smtp_records_and_events_are_suricatas() {
    let dir = tempdir("eve-smtp");
    let pcap = capture(&dir);
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let (smtp, anomalies) = summary(&run_osprey(&dir, &pcap, &yaml));
    let j = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    // As Suricata 7.0.10 writes them for this capture.
    let want_smtp = vec![
        (
            51906,
            0,
            j(
                r#"{"helo":"sd-26634.localdomain","mail_from":"<rmkml@yahoo.fr>","rcpt_to":["<rmkml@yahoo.fr>"]}"#,
            ),
            j(
                r#"{"status":"PARSE_DONE","from":"rmkml <rmkml@yahoo.fr>","to":["rmkml@yahoo.fr"],"cc":["a <a@example.com>","b@example.com"]}"#,
            ),
        ),
        (
            51906,
            1,
            j(r#"{"helo":"sd-26634.localdomain"}"#),
            Value::Null,
        ),
        (
            51907,
            0,
            j(r#"{"helo":"client.example.com","mail_from":"<a@example.com>"}"#),
            j(r#"{"status":"HEADER_READY"}"#),
        ),
        (51907, 1, j(r#"{"helo":"client.example.com"}"#), Value::Null),
    ];
    let want_anomalies = vec![
        (51907, j("0"), "DATA_COMMAND_REJECTED".to_string()),
        (51907, j("0"), "DUPLICATE_FIELDS".to_string()),
        // Every reply until a greeting that never comes.
        (51907, j("0"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
        (51907, j("0"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
        (51907, j("0"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
        (51907, j("0"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
        (51907, j("0"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
        (51907, j("1"), "NO_SERVER_WELCOME_MESSAGE".to_string()),
    ];
    assert_eq!(smtp, want_smtp);
    assert_eq!(anomalies, want_anomalies);

    if common::suricata().is_none() {
        return;
    }
    let (s_smtp, s_anomalies) = summary(&run_suricata(&dir, &pcap, ""));
    assert_eq!(smtp, s_smtp, "smtp records differ from Suricata's");
    assert_eq!(
        anomalies, s_anomalies,
        "SMTP anomalies differ from Suricata's"
    );
}

/// The stock suricata.yaml's `app-layer.protocols.smtp.mime` (URL extraction is off
/// without it).
const MIME: &str = "app-layer:\n  protocols:\n    smtp:\n      enabled: yes\n      mime:\n        \
    decode-mime: yes\n        decode-base64: yes\n        decode-quoted-printable: yes\n        \
    header-value-depth: 2000\n        extract-urls: yes\n        body-md5: no\n";

/// Suricata on `pcap` with [`CONFIG`] and `extra`; its EVE file.
fn run_suricata(dir: &Path, pcap: &Path, extra: &str) -> PathBuf {
    let syaml = dir.join("suricata.yaml");
    std::fs::write(&syaml, format!("{CONFIG}{extra}\n")).unwrap();
    let sdir = dir.join("suricata");
    common::suricata_eve(&syaml, pcap, &sdir);
    sdir.join("eve.json")
}

/// Six mails of sv-ether.pcap: quoted-printable `NEWS.txt` beside a nested
/// multipart/alternative whose HTML URLs Suricata does not list (10.10.1.4:1470); a
/// plain EICAR attachment after a text part (192.168.92.1:39202); an attachment as the
/// message itself (10.0.0.1:40001, a file but not listed); a `message/rfc822` wrapper
/// (10.0.0.1:40004); a 300-byte boundary (192.168.111.128:49601); URLs in a plain
/// body (97.71.82.89:54009).
#[test]
fn mime_email_fields_are_suricatas() {
    let dir = tempdir("eve-smtp-mime");
    let pcap = common::repo("crates/cli/tests/data/smtp-mime.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, format!("{CONFIG}{MIME}")).unwrap();
    let (smtp, anomalies) = summary(&run_osprey(&dir, &pcap, &yaml));
    let j = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    // As Suricata 7.0.10 writes them for this capture (and for sv-ether.pcap).
    let want_smtp = vec![
        (
            1470,
            0,
            j(
                r#"{"helo":"GP","mail_from":"<gurpartap@patriots.in>","rcpt_to":["<raj_deol2002in@yahoo.co.in>"]}"#,
            ),
            j(
                r#"{"status":"PARSE_DONE","from":"\"Gurpartap Singh\" <gurpartap@patriots.in>","to":["<raj_deol2002in@yahoo.co.in>"],"attachment":["NEWS.txt"]}"#,
            ),
        ),
        (1470, 1, j(r#"{"helo":"GP"}"#), Value::Null),
        (
            39202,
            0,
            j(
                r#"{"helo":"linuxbox","mail_from":"<gavin.shrubbery@gmail.com>","rcpt_to":["<172.16.92.2@linuxbox>"]}"#,
            ),
            j(
                r#"{"status":"PARSE_DONE","from":"Gavin Shrubbery <gavin.shrubbery@gmail.com>","to":["172.16.92.2@linuxbox"],"attachment":["EICAR-Test-File"]}"#,
            ),
        ),
        (39202, 1, j(r#"{"helo":"linuxbox"}"#), Value::Null),
        (
            40001,
            0,
            j(
                r#"{"helo":"attacker.com","mail_from":"<attacker@evil.com>","rcpt_to":["<victim@target.com>"]}"#,
            ),
            j(r#"{"status":"PARSE_DONE","from":"attacker@evil.com","to":["victim@target.com"]}"#),
        ),
        (40001, 1, j(r#"{"helo":"attacker.com"}"#), Value::Null),
        (
            40004,
            0,
            j(
                r#"{"helo":"attacker.com","mail_from":"<attacker@evil.com>","rcpt_to":["<victim@target.com>"]}"#,
            ),
            j(
                r#"{"status":"PARSE_DONE","from":"attacker@evil.com","to":["victim@target.com"],"attachment":["malware.exe"]}"#,
            ),
        ),
        (40004, 1, j(r#"{"helo":"attacker.com"}"#), Value::Null),
        (
            49601,
            0,
            j(r#"{"helo":"bug.client"}"#),
            j(r#"{"status":"PARSE_ERROR"}"#),
        ),
        (49601, 1, j(r#"{"helo":"bug.client"}"#), Value::Null),
        (
            54009,
            0,
            j(
                r#"{"helo":"hRkscBv0ATXN","mail_from":"<GcmRThQUtI@2CUFsLIxE.com>","rcpt_to":["<qx6sQ@AR4LsVX.com>"]}"#,
            ),
            j(
                r#"{"status":"PARSE_DONE","from":"kKOEWPYxSvc@ajMvlQs1O4UA.com","to":["q7mp@Ku6FXfnLmo.com"],"has_ipv6_url":false,"has_ipv4_url":false,"has_exe_url":false,"url":["test-site.org/blah/123/","google.com"]}"#,
            ),
        ),
        (54009, 1, j(r#"{"helo":"hRkscBv0ATXN"}"#), Value::Null),
    ];
    assert_eq!(smtp, want_smtp);
    let ev = |e: &str| (49601, j("0"), e.to_string());
    let want_anomalies = vec![
        ev("MIME_LONG_BOUNDARY"),
        ev("MIME_LONG_BOUNDARY"),
        ev("MIME_PARSE_FAILED"),
        ev("MIME_PARSE_FAILED"),
    ];
    assert_eq!(anomalies, want_anomalies);
    if common::suricata().is_none() {
        return;
    }
    let (mut s_smtp, s_anomalies) = summary(&run_suricata(&dir, &pcap, MIME));
    // Flow 1470's packets are stamped five years before the capture's first packet and
    // the next flow's eleven years after its FINs. Whether Suricata's flow manager
    // thread times the flow out before the packet path ends it depends on thread
    // timing, and only one of the two logs its closing HELO-only transaction: CI's
    // 2-core machine saw it missing once. Osprey's record is held to the fixed list
    // above; the live comparison leaves that one record out on both sides.
    let racy = (1470, 1, j(r#"{"helo":"GP"}"#), Value::Null);
    let mut smtp = smtp;
    smtp.retain(|r| *r != racy);
    s_smtp.retain(|r| *r != racy);
    assert_eq!(smtp, s_smtp, "smtp records differ from Suricata's");
    assert_eq!(
        anomalies, s_anomalies,
        "SMTP anomalies differ from Suricata's"
    );
}

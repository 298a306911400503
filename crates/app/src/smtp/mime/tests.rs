//! Tests of the MIME parser on messages cut from sv-ether.pcap and crafted ones.

use super::*;
use crate::smtp::email::addresses;

/// Runs `msg` (lines separated by `\n`) through a message; returns it, its files
/// and the events raised.
fn parse_with(cfg: &MimeConfig, msg: &[u8]) -> (Email, Files, Vec<usize>) {
    let fcfg = FileConfig {
        md5: true,
        ..FileConfig::default()
    };
    let mut files = Files::default();
    let mut events = Vec::new();
    let mut e = Email::default();
    let mut sink = Sink {
        cfg,
        files_cfg: &fcfg,
        files: &mut files,
        events: &mut events,
    };
    for l in msg.split(|&c| c == b'\n') {
        e.line(l, false, &mut sink);
    }
    e.done(&mut sink);
    (e, files, events)
}

/// The stock suricata.yaml's settings.
fn stock() -> MimeConfig {
    MimeConfig {
        extract_urls: true,
        ..MimeConfig::default()
    }
}

fn parse(msg: &[u8]) -> (Email, Files, Vec<usize>) {
    parse_with(&stock(), msg)
}

fn strs(v: &[Vec<u8>]) -> Vec<&str> {
    v.iter().map(|s| std::str::from_utf8(s).unwrap()).collect()
}

#[test]
fn headers_with_folding_then_body() {
    let (e, files, ev) = parse(
        b"Received: from x\n\
          From: \"Gurpartap Singh\" <gurpartap@patriots.in>\n\
          To: <raj_deol2002in@yahoo.co.in>,\n\
          \t<b@c>\n\
          Subject: hi\n\
          \n\
          From: not a header",
    );
    assert_eq!(e.status.name(), "PARSE_DONE");
    assert_eq!(
        e.from.as_deref(),
        Some(&b"\"Gurpartap Singh\" <gurpartap@patriots.in>"[..])
    );
    let to: Vec<_> = addresses(e.to.as_deref().unwrap()).collect();
    assert_eq!(to, [&b"<raj_deol2002in@yahoo.co.in>"[..], b"<b@c>"]);
    assert_eq!(e.subject.as_deref(), Some(&b"hi"[..]));
    assert!(files.is_empty() && ev.is_empty() && e.urls.is_empty());
}

#[test]
fn status_follows_the_structure() {
    let mut e = Email::default();
    let (cfg, fcfg) = (MimeConfig::default(), FileConfig::default());
    let (mut files, mut events) = (Files::default(), Vec::new());
    let mut sink = Sink {
        cfg: &cfg,
        files_cfg: &fcfg,
        files: &mut files,
        events: &mut events,
    };
    let mut step = |e: &mut Email, l: &[u8], want: &str| {
        e.line(l, false, &mut sink);
        assert_eq!(
            e.status.name(),
            want,
            "after {:?}",
            String::from_utf8_lossy(l)
        );
    };
    step(
        &mut e,
        b"Content-Type: multipart/mixed; boundary=B",
        "HEADER_STARTED",
    );
    step(&mut e, b"", "BODY_STARTED");
    step(&mut e, b"--B", "HEADER_READY");
    step(
        &mut e,
        b"Content-Disposition: attachment; filename=a.bin",
        "HEADER_STARTED",
    );
    step(&mut e, b"", "BODY_STARTED");
    step(&mut e, b"abc", "BODY_STARTED");
    step(&mut e, b"--B--", "BODY_END_BOUND");
    step(&mut e, b"epilogue", "BODY_END_BOUND");
    let f = files.get(0).unwrap();
    assert_eq!(
        (f.name(), f.size(), f.state()),
        (&b"a.bin"[..], 3, FileState::Closed)
    );
}

/// sv-ether.pcap flow 192.168.1.4:1470 -> 217.12.11.66:587, shortened: two
/// quoted-printable attachments after a text part.
const TWO_QP_ATTACHMENTS: &[u8] = b"From: \"WShark User\" <xxxxxx@xxxxx.co.uk>\n\
To: <xxxxxx.xxxx@xxxxx.com>\n\
MIME-Version: 1.0\n\
Content-Type: multipart/mixed;\n\
\tboundary=\"----=_NextPart_000_0012_01C7B64E.426C8120\"\n\
\n\
This is a multi-part message in MIME format.\n\
\n\
------=_NextPart_000_0012_01C7B64E.426C8120\n\
Content-Type: text/plain;\n\
\tcharset=\"us-ascii\"\n\
Content-Transfer-Encoding: 7bit\n\
\n\
Some text http://www.wireshark.org/ here\n\
\n\
------=_NextPart_000_0012_01C7B64E.426C8120\n\
Content-Type: text/plain;\n\
\tname=\"words.txt\"\n\
Content-Transfer-Encoding: quoted-printable\n\
Content-Disposition: attachment;\n\
\tfilename=\"words.txt\"\n\
\n\
-T=20\n\
:: UserWarning: The same field names for different types. Explicit field =\n\
renaming is recommended.\n\
\n\
------=_NextPart_000_0012_01C7B64E.426C8120\n\
Content-Type: application/octet-stream;\n\
\tname=\"related.patch\"\n\
Content-Transfer-Encoding: quoted-printable\n\
Content-Disposition: attachment;\n\
\tfilename=\"related.patch\"\n\
\n\
Index: asn1/ldap/Lightweight-Directory-Access-Protocol-V3.asn=0A=\n\
=3D=3D=3D=\n\
\n\
------=_NextPart_000_0012_01C7B64E.426C8120--\n";

#[test]
fn quoted_printable_attachments_become_files() {
    let (e, files, ev) = parse(TWO_QP_ATTACHMENTS);
    assert_eq!(e.status.name(), "PARSE_DONE");
    assert_eq!(strs(&e.attachments), ["words.txt", "related.patch"]);
    assert_eq!(strs(&e.urls), ["www.wireshark.org/"]);
    assert!(
        e.url_flags.is_none(),
        "flags only for the message's own body"
    );
    assert_eq!(files.len(), 2);
    let f = files.get(0).unwrap();
    assert_eq!(f.name(), b"words.txt");
    // Every hard line end is content, the one before the boundary too (Suricata's
    // size of this file is 1,060 bytes).
    assert_eq!(
        f.head(),
        b"-T \r\n:: UserWarning: The same field names for different types. Explicit field \
          renaming is recommended.\r\n\r\n"
    );
    assert_eq!(f.state(), FileState::Closed);
    let f = files.get(1).unwrap();
    assert_eq!(
        f.head(),
        b"Index: asn1/ldap/Lightweight-Directory-Access-Protocol-V3.asn\n===\r\n"
    );
    assert!(f.digests().md5.is_some());
    assert!(ev.is_empty());
}

#[test]
fn base64_attachment_and_nested_multipart() {
    let (e, files, ev) = parse(
        b"From: a@b\n\
          Content-Type: multipart/mixed; boundary=BB\n\
          \n\
          --BB\n\
          Content-Type: multipart/alternative; boundary=CC\n\
          \n\
          --CC\n\
          Content-Type: text/plain\n\
          \n\
          deep http://deep.com/x\n\
          --CC\n\
          Content-Type: text/plain; name=deep.txt\n\
          \n\
          deepfile\n\
          --CC--\n\
          --BB\n\
          Content-Type: text/plain\n\
          Content-Transfer-Encoding: quoted-printable\n\
          \n\
          qp http://qp.com/a=3Db=\n\
          c end\n\
          --BB\n\
          Content-Type: application/octet-stream; name=\"x.exe\"\n\
          Content-Transfer-Encoding: base64\n\
          \n\
          TVqQAAMAAAAEAAAA\n\
          //8AALgAAAAA\n\
          --BB\n\
          Content-Type: text/plain\n\
          Content-Transfer-Encoding: base64\n\
          \n\
          aHR0cDovL2I2NC5jb20vIHg=\n\
          --BB--\n",
    );
    // As Suricata 7.0.10 reports the same message: only the direct children count.
    assert_eq!(strs(&e.attachments), ["x.exe"]);
    assert_eq!(strs(&e.urls), ["qp.com/a=bc", "b64.com/"]);
    assert_eq!(files.len(), 2);
    assert_eq!(files.get(0).unwrap().head(), b"deepfile");
    let exe = files.get(1).unwrap();
    assert_eq!(
        exe.head(),
        b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00\xb8\x00\x00\x00\x00"
    );
    assert!(ev.is_empty());
}

#[test]
fn urls_of_the_message_body_set_the_flags() {
    // sv-ether.pcap flow 97.71.82.89:54009.
    let (e, _, _) = parse(
        b"Content-Type: text/plain; charset=\"us-ascii\"\n\
          Content-Transfer-Encoding: 7bit\n\
          \n\
          This is the body of the message. http://google.com is a link. \
          http://test-site.org/blah/123/ is another one. https://facebook.com is also a link.",
    );
    assert_eq!(strs(&e.urls), ["test-site.org/blah/123/", "google.com"]);
    assert_eq!(e.url_flags, Some(url::UrlFlags::default()));
    let (e, _, _) = parse_with(&MimeConfig::default(), b"\nhttp://a.com");
    assert!(e.urls.is_empty() && e.url_flags.is_none());
}

#[test]
fn a_message_rfc822_entity_is_opened() {
    // sv-ether.pcap flow 10.0.0.1:40004: the encapsulated message's attachment is
    // the file (its own encoding does not apply); the outer name is not a file.
    let (e, files, _) = parse(
        b"From: attacker@evil.com\n\
          Content-Type: message/rfc822\n\
          Content-Transfer-Encoding: base64\n\
          Content-Disposition: attachment; filename=\"innocent.txt\"\n\
          \n\
          From: attacker@evil.com\n\
          Content-Type: application/octet-stream\n\
          Content-Disposition: attachment; filename=\"malware.exe\"\n\
          \n\
          EICAR-MIME-BYPASS-TEST-PAYLOAD",
    );
    assert_eq!(strs(&e.attachments), ["malware.exe"]);
    assert_eq!(files.len(), 1);
    assert_eq!(files.get(0).unwrap().size(), 30);
    // sv-ether.pcap flow 10.0.0.1:40001: an attachment as the message itself is a
    // file, not listed.
    let (e, files, _) = parse(
        b"Content-Type: application/octet-stream\n\
          Content-Disposition: attachment; filename=\"malware.exe\"\n\
          \n\
          EICAR-MIME-BYPASS-TEST-PAYLOAD",
    );
    assert!(e.attachments.is_empty());
    assert_eq!(files.get(0).unwrap().name(), b"malware.exe");
}

#[test]
fn limits_raise_their_events() {
    // sv-ether.pcap flow 192.168.111.128:49601: a boundary of 400 bytes.
    let mut msg = b"Content-Type: multipart/mixed; boundary=\"".to_vec();
    msg.extend(std::iter::repeat_n(b'A', 400));
    msg.extend_from_slice(b"\"\n\npreamble\n--boundary\n\ntext\n");
    let (e, files, ev) = parse(&msg);
    assert_eq!(
        ev,
        [
            ev::MIME_LONG_BOUNDARY,
            ev::MIME_PARSE_FAILED,
            ev::MIME_PARSE_FAILED,
            ev::MIME_LONG_BOUNDARY
        ]
    );
    assert_eq!(e.status.name(), "PARSE_ERROR");
    assert!(files.is_empty());
    // Long lines, long encoded lines, bad base64 and quoted-printable: once each.
    let mut msg = b"Content-Type: multipart/mixed; boundary=B\n\n--B\n\
        Content-Disposition: attachment; filename=a\n\
        Content-Transfer-Encoding: base64\n\n"
        .to_vec();
    msg.extend(std::iter::repeat_n(b'Q', 1200));
    msg.extend_from_slice(
        b"\nQUJD*\n--B\nContent-Transfer-Encoding: quoted-printable\n\na=zz\n=\n--B--\n",
    );
    let (_, files, ev) = parse(&msg);
    assert_eq!(
        ev,
        [
            ev::MIME_LONG_LINE,
            ev::MIME_LONG_ENC_LINE,
            ev::MIME_INVALID_BASE64,
            ev::MIME_INVALID_QP
        ]
    );
    assert_eq!(files.get(0).unwrap().size(), 900 + 3);
    // A long line of a plain attachment is no event (sv-ether.pcap flow
    // 1.1.205.22:4053: a 16,384-byte line of `J.txt`).
    let mut msg = b"Content-Type: multipart/mixed; boundary=B\n\n--B\n\
        Content-Disposition: attachment; filename=J.txt\n\n"
        .to_vec();
    msg.extend(std::iter::repeat_n(b'x', 16384));
    msg.extend_from_slice(b"\n--B--\n");
    let (_, files, ev) = parse(&msg);
    assert!(ev.is_empty());
    assert_eq!(files.get(0).unwrap().size(), 16384);
    // A long name is cut.
    let mut msg =
        b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: a/b; name=".to_vec();
    msg.extend(std::iter::repeat_n(b'n', 300));
    msg.extend_from_slice(b"\n\nx\n--B--");
    let (e, files, ev) = parse(&msg);
    assert_eq!(ev, [ev::MIME_LONG_FILENAME]);
    assert_eq!(e.attachments[0].len(), MAX_FILENAME);
    assert_eq!(files.get(0).unwrap().name().len(), MAX_FILENAME);
}

#[test]
fn header_values_are_bounded() {
    let cfg = MimeConfig {
        header_value_depth: 10,
        ..stock()
    };
    let (e, _, _) = parse_with(&cfg, b"Subject: 0123456789abcdef\n\tmore\n\nbody");
    assert_eq!(e.subject.as_deref(), Some(&b"012345678"[..]));
}

#[test]
fn a_cut_message_truncates_its_file_and_body_md5_is_computed() {
    let (cfg, fcfg) = (
        MimeConfig {
            body_md5: true,
            ..MimeConfig::default()
        },
        FileConfig::default(),
    );
    let (mut files, mut events) = (Files::default(), Vec::new());
    let mut sink = Sink {
        cfg: &cfg,
        files_cfg: &fcfg,
        files: &mut files,
        events: &mut events,
    };
    let mut e = Email::default();
    for l in [
        &b"Content-Type: multipart/mixed; boundary=B"[..],
        b"",
        b"--B",
        b"Content-Type: a/b; name=f",
        b"",
        b"abc",
    ] {
        e.line(l, false, &mut sink);
    }
    e.cut(&mut sink);
    assert_eq!(e.status.name(), "BODY_STARTED");
    assert_eq!(files.get(0).unwrap().state(), FileState::Truncated);
    let (e, _, _) = parse_with(&cfg, b"Subject: x\n\nabc");
    // MD5 of "abc\r\n".
    let hex: String = e
        .body_md5
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hex, "c13b6afecf97ea6b38d21a8f5167fa1e");
}

#[test]
fn without_decode_mime_only_the_header_is_read() {
    let cfg = MimeConfig {
        decode_mime: false,
        ..stock()
    };
    let (e, files, _) = parse_with(&cfg, TWO_QP_ATTACHMENTS);
    assert!(files.is_empty() && e.attachments.is_empty() && e.urls.is_empty());
    assert!(e.from.is_some());
}

proptest::proptest! {
    #[test]
    fn arbitrary_lines_never_panic(lines in proptest::collection::vec(
        proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120), 0..40)) {
        let mut msg = b"Content-Type: multipart/mixed; boundary=B\n\n".to_vec();
        for l in &lines {
            msg.extend_from_slice(l);
            msg.push(b'\n');
        }
        let (e, files, _) = parse(&msg);
        proptest::prop_assert!(files.len() <= Files::MAX);
        proptest::prop_assert!(e.urls.len() <= MAX_LIST);
    }
}

#[test]
fn an_unclosed_multipart_lists_nothing_and_is_malformed() {
    // As Suricata 7.0.10 on the same message: the file exists, the lists are not
    // reported, `smtp.mime_malformed_msg` is raised.
    let (e, files, ev) = parse(
        b"Content-Type: multipart/mixed; boundary=BB\n\n--BB\n\nhttp://x.com/a\n--BB\n\
          Content-Type: application/octet-stream; name=f.bin\n\nq\n--BB",
    );
    assert!(e.in_multipart());
    assert_eq!(ev, [ev::MIME_MALFORMED_MSG]);
    assert_eq!(files.get(0).unwrap().state(), FileState::Closed);
    assert_eq!(e.status.name(), "PARSE_DONE");
}

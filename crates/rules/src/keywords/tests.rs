use super::*;
use crate::ast::AppProto;
use std::collections::HashSet;

/// The keywords the parser kept verbatim before the registry (`id` and `bsize` were
/// parsed by their own arms first).
const OLD_VERBATIM: &[&str] = &[
    "dns.opcode",
    "tls.cert_expired",
    "tls.cert_valid",
    "tls_cert_expired",
    "tls_cert_valid",
    "tls.cert_notbefore",
    "tls.cert_notafter",
    "tls_cert_notbefore",
    "tls_cert_notafter",
    "tls.store",
    // Canonical since issue 24 (Suricata's name; `tls.store` is its alias).
    "tls_store",
    "tls.subject",
    "tls.issuerdn",
    "tls.fingerprint",
    "ssh.protoversion",
    "ssh.softwareversion",
    "filemd5",
    "filesha1",
    "filesha256",
    "filesize",
    "filestore",
    "filemagic",
    "fileext",
    "filename",
    "iprep",
    "datarep",
    "dataset",
    "decode-event",
    "stream-event",
    "engine-event",
    "prefilter",
    "requires",
    "config",
    "ftpbounce",
    "ftpdata_command",
    "geoip",
    "bypass",
    "rpc",
    "hostbits",
    "flowvar",
    "pktvar",
    "flow.age",
    "flow.pkts",
    "flow.bytes",
    "tcp.mss",
    "icmpv6.mtu",
    "dce_iface",
    "dce_opnum",
    "dcerpc.iface",
    "dcerpc.opnum",
    "dnp3_func",
    "dnp3_ind",
    "dnp3_obj",
    "dnp3.func",
    "dnp3.ind",
    "dnp3.obj",
    "modbus",
    "enip_command",
    "cip_service",
    "krb5_err_code",
    "krb5_msg_type",
    "krb5.err_code",
    "krb5.msg_type",
    "snmp.version",
    "snmp.pdu_type",
    "nfs_procedure",
    "nfs.procedure",
    "nfs.version",
    "ike.exchtype",
    "ike.chosen_sa_attribute",
    "ike.nonce_payload_length",
    "ike.key_exchange_payload_length",
    "rfb.secresult",
    "rfb.sectype",
    "mqtt.type",
    "mqtt.flags",
    "mqtt.qos",
    "mqtt.reason_code",
    "mqtt.protocol_version",
    "mqtt.connack.session_present",
    "mqtt.connect.flags",
    "http2.frametype",
    "http2.errorcode",
    "http2.priority",
    "http2.window",
    "http2.size_update",
    "http2.settings",
    "smb.version",
    "template2",
    "tls.cert_chain_len",
    "ja4.hash",
    "frame",
    "id",
    "transform",
    "l3_proto",
    "icmpv4.hdr",
    "bsize",
    "absent",
    "tcp.window",
    "http.response_header",
    "quic.version",
    "snmp.version",
    "sip.method",
    "logto",
    "session",
    "resp",
    "react",
    "activates",
    "activated_by",
    "count",
    "http_encode",
    "cvs",
    "sd_pattern",
    "file_type",
    "file_group",
    "sip_method",
    "sip_stat_code",
    "sip_header",
    "sip_body",
    "gtp_type",
    "gtp_info",
    "gtp_version",
    "modbus_func",
    "modbus_unit",
    "modbus_data",
    "stream_reassemble",
    "protected_content",
    "hash",
    "length",
    "nfq_set_mark",
    "ipv4-csum",
    "tcpv4-csum",
    "tcpv6-csum",
    "udpv4-csum",
    "udpv6-csum",
    "icmpv4-csum",
    "icmpv6-csum",
    "alert",
];

#[test]
fn names_are_unique() {
    let mut seen = HashSet::new();
    for k in all() {
        for n in k.names() {
            assert!(seen.insert(n), "{n} defined twice");
            assert_eq!(find(n).map(|d| d.name), Some(k.name), "{n}");
        }
    }
    assert!(seen.len() > 250);
    assert!(find("no_such_keyword").is_none());
}

#[test]
fn verbatim_keywords_kept() {
    for &n in OLD_VERBATIM {
        let k = find(n).unwrap_or_else(|| panic!("{n} missing"));
        match k.kind {
            Kind::Verbatim => assert_eq!(k.value, Value::Optional, "{n}"),
            Kind::StickyBuffer(_) => assert!(STICKY_OR_VERBATIM.contains(&n), "{n}"),
            // Typed since: a transaction option (`Opt::App`).
            Kind::Option => {}
            _ => assert!(matches!(n, "id" | "bsize" | "dataset" | "datarep"), "{n}"),
        }
    }
    let verbatim = all().filter(|k| k.kind == Kind::Verbatim);
    for k in verbatim {
        assert!(OLD_VERBATIM.contains(&k.name), "{} is new", k.name);
    }
}

#[test]
fn every_buffer_is_a_sticky_keyword() {
    for &b in Buffer::ALL {
        for n in std::iter::once(b.name()).chain(b.aliases().iter().copied()) {
            assert_eq!(find(n).map(|k| k.kind), Some(Kind::StickyBuffer(b)), "{n}");
            assert_eq!(Buffer::from_sticky(n), Some(b));
        }
        if let Some(m) = b.content_modifier() {
            assert_eq!(
                find(m).map(|k| k.kind),
                Some(Kind::BufferModifier(b)),
                "{m}"
            );
        }
    }
    assert_eq!(
        find("http_raw_cookie").map(|k| k.kind),
        Some(Kind::BufferModifier(Buffer::HttpCookie))
    );
    for k in all() {
        if let Kind::BufferModifier(b) = k.kind {
            assert_eq!(Buffer::from_content_modifier(k.name), Some(b));
        }
        if k.kind == Kind::Transform && k.value == Value::None {
            assert!(
                crate::buffers::Transform::simple(k.name).is_some(),
                "{}",
                k.name
            );
        }
    }
}

/// The protocols of a buffer, as the parser derived them from its name before the
/// registry.
fn old_buffer_proto(b: Buffer) -> Option<&'static [AppProto]> {
    use AppProto::*;
    const HTTP: &[AppProto] = &[Http, Http1, Http2];
    let n = b.name();
    Some(if n.starts_with("http.") {
        if matches!(b, Buffer::HttpRequestHeader | Buffer::HttpResponseHeader) {
            &[Http2, Http, Http1]
        } else {
            HTTP
        }
    } else if n.starts_with("http2.") {
        &[Http2, Http]
    } else if n.starts_with("dns.") {
        &[Dns]
    } else if n.starts_with("tls.") {
        &[Tls]
    } else if n.starts_with("ssh.") {
        &[Ssh]
    } else if n.starts_with("sip.") {
        &[Sip]
    } else if n.starts_with("mqtt.") {
        &[Mqtt]
    } else if n.starts_with("krb5.") {
        &[Krb5]
    } else if n.starts_with("snmp.") {
        &[Snmp]
    } else if n.starts_with("quic.") {
        &[Quic]
    } else if n.starts_with("ike.") {
        &[Ike]
    } else if n.starts_with("ja3") || n.starts_with("ja4") {
        &[Tls, Quic]
    } else {
        return None;
    })
}

#[test]
fn buffer_protocols_unchanged() {
    for &b in Buffer::ALL {
        assert_eq!(buffer_protos(b), old_buffer_proto(b), "{b:?}");
        assert_eq!(
            find(b.name()).map(|k| k.protos).filter(|p| !p.is_empty()),
            old_buffer_proto(b),
            "{b:?}"
        );
    }
}

#[test]
fn once_keywords_refuse_a_second_use() {
    let cases = [
        ("msg", "msg:\"a\"; msg:\"b\";"),
        ("sid", "sid:2;"),
        ("rev", "rev:1; rev:2;"),
        ("gid", "gid:1; gid:2;"),
        ("classtype", "classtype:a; classtype:b;"),
        ("flow", "flow:established; flow:to_server;"),
        ("dsize", "dsize:1; dsize:2;"),
        ("threshold", "threshold:type limit,track by_src,count 1,seconds 1; detection_filter:track by_src,count 1,seconds 1;"),
        ("nocase", "content:\"a\"; nocase; nocase;"),
        ("depth", "content:\"a\"; depth:3; depth:4;"),
        ("fast_pattern", "content:\"a\"; fast_pattern; fast_pattern;"),
    ];
    for (kw, opts) in cases {
        assert!(find(kw).unwrap().once, "{kw}");
        let text = format!("alert tcp any any -> any any ({opts} sid:1;)");
        assert!(crate::parse_rule(&text).is_err(), "{text}");
    }
}

#[test]
fn kinds_and_grammars() {
    let k = find("tcp.flags").unwrap();
    assert_eq!(
        (k.name, k.kind, k.value),
        ("flags", Kind::Option, Value::Required)
    );
    assert_eq!(find("msg").unwrap().value, Value::Quoted);
    assert_eq!(find("nocase").unwrap().kind, Kind::ContentModifier);
    assert_eq!(find("xor").unwrap().kind, Kind::Transform);
    assert_eq!(
        find("dns_query").unwrap().kind,
        Kind::StickyBuffer(Buffer::DnsQuery)
    );
    assert_eq!(find("ssl_state").unwrap().protos, &[AppProto::Tls]);
    assert_eq!(
        find("http_uri").unwrap().protos,
        &[AppProto::Http, AppProto::Http1, AppProto::Http2]
    );
}

#[test]
fn every_keyword_is_described_and_documented() {
    for k in all() {
        assert!(!k.description.is_empty(), "{} has no description", k.name);
        assert!(
            !k.description.contains(';') && !k.description.contains('\n'),
            "{}: the description must fit a CSV field",
            k.name
        );
        assert!(
            k.doc.starts_with("rules/") && k.doc.contains(".html"),
            "{}: doc page {:?}",
            k.name,
            k.doc
        );
        assert!(k.doc_url().starts_with(DOCS_BASE));
    }
    let uri = find("http.uri").unwrap();
    assert_eq!(uri.features(), ["No option", "sticky buffer"]);
    assert_eq!(
        find("nocase").unwrap().features(),
        ["No option", "content modifier"]
    );
    assert!(find("content").unwrap().features().is_empty());
}

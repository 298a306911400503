//! Grammar corners of the rule parser.

use super::*;
use crate::buffers::Transform;

fn ok(text: &str) -> Rule {
    parse_rule(text).unwrap_or_else(|d| panic!("{text}\n{d:#?}"))
}

fn err(text: &str) -> Vec<Diagnostic> {
    match parse_rule(text) {
        Ok(r) => panic!("should fail: {text}\n{r:?}"),
        Err(d) => d,
    }
}

fn err_kw(text: &str, kw: &str) {
    let d = err(text);
    assert!(
        d.iter().any(|d| d.keyword.as_deref() == Some(kw)),
        "{text}: {d:#?}"
    );
}

fn r(opts: &str) -> String {
    format!("alert tcp any any -> any any ({opts} sid:1;)")
}

fn contents(rule: &Rule) -> Vec<(Buffer, Content)> {
    rule.contents().map(|(b, c)| (b, c.clone())).collect()
}

#[test]
fn header_fields() {
    let x = ok("drop udp [10.0.0.0/8,!10.1.0.0/16] [1:1024,!80] <> $HOME_NET any (sid:1;)");
    assert_eq!(x.action, Action::Drop);
    assert_eq!(x.header.protocol, Protocol::Udp);
    assert_eq!(x.header.direction, Direction::Both);
    assert!(matches!(x.header.src, AddrExpr::List(ref l) if l.len() == 2));
    for p in [
        "http",
        "http2",
        "ftp-data",
        "dns",
        "tls",
        "smb",
        "dcerpc",
        "krb5",
        "quic",
        "IP",
        "tcp-pkt",
        "pkthdr",
        "bittorrent-dht",
    ] {
        ok(&format!("alert {p} any any -> any any (sid:1;)"));
    }
    for a in [
        "alert",
        "pass",
        "drop",
        "reject",
        "rejectsrc",
        "rejectdst",
        "rejectboth",
        "log",
    ] {
        ok(&format!("{a} tcp any any -> any any (sid:1;)"));
    }
    err_kw("alert foo any any -> any any (sid:1;)", "protocol");
    err_kw("hello tcp any any -> any any (sid:1;)", "action");
    err_kw("alert tcp any any <- any any (sid:1;)", "direction");
    err_kw(
        "alert tcp 1.2.3.999 any -> any any (sid:1;)",
        "source address",
    );
    err_kw("alert tcp any 70000 -> any any (sid:1;)", "source port");
}

#[test]
fn diagnostics_have_position_keyword_reason() {
    let d = err("alert tcp any any -> any any (msg:\"x\"; content:\"abc\"; depth:2; sid:5;)");
    assert_eq!(d[0].keyword.as_deref(), Some("depth"));
    assert_eq!(d[0].reason, Reason::Semantic);
    assert_eq!(d[0].sid, Some(5));
    let d = err("alert tcp any any -> any any (msg:\"x\"; foo:bar; sid:5;)");
    assert_eq!((d[0].line, d[0].column), (1, 40));
    assert_eq!(d[0].reason, Reason::UnsupportedKeyword);
    assert_eq!(d[0].keyword.as_deref(), Some("foo"));
    let d = err("alert tcp any any -> any any (msg:\"x\";)");
    assert_eq!(d[0].reason, Reason::MissingSid);
}

#[test]
fn escapes_in_msg_and_content() {
    let x = ok(&r(
        r#"msg:"a\;b \"q\" c\\d\:e"; content:"x\;y|3B 3b|\"\\";"#,
    ));
    assert_eq!(x.meta.msg.as_deref(), Some("a;b \"q\" c\\d:e"));
    assert_eq!(contents(&x)[0].1.pattern, b"x;y;;\"\\");
    err_kw(&r(r#"content:"a\x";"#), "content");
    err_kw(&r(r#"content:"|4|";"#), "content");
    err_kw(&r(r#"content:"";"#), "content");
}

#[test]
fn content_modifiers_attach_to_last_content() {
    let x = ok(&r(
        r#"content:"abc"; nocase; offset:1; depth:10; content:"def"; distance:0; within:10; fast_pattern; content:!"zz"; rawbytes;"#,
    ));
    let c = contents(&x);
    assert!(
        c[0].1.nocase && c[0].1.offset == Some(Num::Lit(1)) && c[0].1.depth == Some(Num::Lit(10))
    );
    assert_eq!(c[1].1.distance, Some(Num::Lit(0)));
    assert_eq!(c[1].1.fast_pattern, Some(FastPattern::Yes));
    assert!(c[2].1.negated && c[2].1.rawbytes);
    let x = ok(&r(
        r#"content:"abcdef"; fast_pattern:2,3; content:"x"; startswith; content:"y"; endswith;"#,
    ));
    let c = contents(&x);
    assert_eq!(
        c[0].1.fast_pattern,
        Some(FastPattern::Chop {
            offset: 2,
            length: 3
        })
    );
    assert!(c[1].1.startswith && c[2].1.endswith);
    assert_eq!(
        contents(&ok(&r(r#"content:"ab"; fast_pattern:only;"#)))[0]
            .1
            .fast_pattern,
        Some(FastPattern::Only)
    );
}

#[test]
fn content_validation() {
    err_kw(&r("nocase;"), "nocase");
    err_kw(&r("depth:3;"), "depth");
    err_kw(&r(r#"content:"abcd"; depth:3;"#), "depth");
    err_kw(&r(r#"content:"a"; content:"abcd"; within:3;"#), "within");
    err_kw(
        &r(r#"content:"a"; content:"b"; distance:1; depth:4;"#),
        "distance",
    );
    err_kw(&r(r#"content:"a"; nocase; nocase;"#), "nocase");
    err_kw(&r(r#"content:"a"; depth:4; depth:5;"#), "depth");
    err_kw(
        &r(r#"content:"a"; fast_pattern; content:"b"; fast_pattern;"#),
        "fast_pattern",
    );
    err_kw(&r(r#"content:"abc"; fast_pattern:2,5;"#), "fast_pattern");
    err_kw(
        &r(r#"content:"ab"; fast_pattern:only; distance:2;"#),
        "fast_pattern",
    );
    err_kw(&r(r#"content:"ab"; startswith; offset:3;"#), "startswith");
    err_kw(&r(r#"content:"abcdef"; dsize:<4;"#), "dsize");
    ok(&r(r#"content:!"abcdef"; dsize:<4;"#));
    err_kw(&r(r#"http.uri; content:"abcdef"; bsize:3;"#), "bsize");
    // Suricata 7.0.10 compares with the number written: `<4` and `1<>4` take a
    // 4-byte content, `<3` and `1<>3` do not.
    ok(&r(r#"tls.sni; content:"abcd"; bsize:<4;"#));
    ok(&r(r#"tls.sni; content:"abcd"; bsize:1<>4;"#));
    err_kw(&r(r#"tls.sni; content:"abcd"; bsize:<3;"#), "bsize");
    err_kw(&r(r#"tls.sni; content:"abcd"; bsize:1<>3;"#), "bsize");
    err_kw(&r(r#"content:"a"; offset:x;"#), "offset");
    ok(&r(
        r#"content:"a"; byte_extract:1,0,x; content:"b"; offset:x;"#,
    ));
}

#[test]
fn snort_modifiers_and_sticky_buffers_map_to_one_model() {
    let snort = ok("alert tcp any any -> any any (content:\"GET\"; http_method; content:\"/x\"; nocase; http_uri; content:\"a\"; sid:1;)");
    let suri = ok("alert tcp any any -> any any (http.method; content:\"GET\"; http.uri; content:\"/x\"; nocase; pkt_data; content:\"a\"; sid:1;)");
    assert_eq!(snort.matches_in(Buffer::HttpMethod).count(), 1);
    assert_eq!(snort.matches_in(Buffer::HttpUri).count(), 1);
    assert_eq!(snort.matches_in(Buffer::Payload).count(), 1);
    let norm = |mut x: Rule| {
        x.buffers.sort_by_key(|b| b.buffer);
        x
    };
    assert_eq!(norm(snort), norm(suri));
    let u = ok(&r(r#"uricontent:"/a";"#));
    assert_eq!(u.matches_in(Buffer::HttpUri).count(), 1);
    let f = ok(&r(
        r#"file_data; content:"x"; http.response_body; content:"y";"#,
    ));
    assert_eq!(f.matches_in(Buffer::FileData).count(), 1);
    assert_eq!(f.matches_in(Buffer::HttpResponseBody).count(), 1);
    let legacy = ok(&r(r#"dns_query; content:"x"; tls_sni; content:"y";"#
        .replace("tls_sni; ", "")
        .as_str()));
    assert_eq!(legacy.matches_in(Buffer::DnsQuery).count(), 2);
    err_kw(&r(r#"http.uri; content:"x"; http_header;"#), "http_header");
    err_kw(&r("http_uri;"), "http_uri");
    err_kw(&r(r#"content:"a"; rawbytes; http_uri;"#), "http_uri");
    // Same sticky buffer twice: one ordered list.
    let x = ok(&r(
        r#"http.uri; content:"a"; http.host; content:"b"; http.uri; content:"c"; distance:0;"#,
    ));
    assert_eq!(x.matches_in(Buffer::HttpUri).count(), 2);
    assert_eq!(x.buffers.len(), 2);
    // A multi-buffer whose every keyword starts its own list (each may match another
    // header): three lists, the transformed one too.
    let x = ok(&r(
        r#"http.request_header; content:"a"; http.uri; content:"u"; http.request_header; content:"b"; http.request_header; to_lowercase; content:"c";"#,
    ));
    let lists: Vec<_> = x
        .buffers
        .iter()
        .filter(|b| b.buffer == Buffer::HttpRequestHeader)
        .map(|b| (b.matches.len(), b.transforms.len()))
        .collect();
    assert_eq!(lists, [(1, 0), (1, 0), (1, 1)]);
    // `tls.certs` too (Suricata 7.0.10: difftest case dt-1956495344-2641, each list
    // may match another certificate of the chain).
    let x = ok(&r(
        r#"flow:to_client; tls.certs; isdataat:351; tls.certs; content:"0|82 01|[0|82|"; offset:0; depth:6;"#,
    ));
    let lists: Vec<_> = x
        .buffers
        .iter()
        .map(|b| (b.buffer, b.matches.len()))
        .collect();
    assert_eq!(lists, [(Buffer::TlsCerts, 1), (Buffer::TlsCerts, 1)]);
}

#[test]
fn transforms() {
    let x = ok("alert dns any any -> any any (dns.query; dotprefix; content:\".evil.com\"; endswith; sid:1;)");
    assert_eq!(x.buffers[0].transforms, vec![Transform::DotPrefix]);
    let x = ok(&r(
        r#"http.uri; to_lowercase; strip_whitespace; xor:"0d0a"; content:"x";"#,
    ));
    assert_eq!(x.buffers[0].transforms.len(), 3);
    err_kw(&r("dotprefix;"), "dotprefix");
    let p = parse_record(&Record::from_text(&r(
        r#"http.uri; content:"a"; to_lowercase;"#,
    )));
    let rule = p.rule.unwrap();
    assert_eq!(rule.buffers[0].transforms, vec![Transform::ToLowercase]);
    assert!(p.diagnostics.iter().any(|d| !d.is_error()));
}

#[test]
fn pcre_flags_and_buffers() {
    let x = ok(&r(
        r#"content:"a"; pcre:"/b[0-9]+/Ri"; pcre:!"/c/U"; pcre:"/d/smx";"#,
    ));
    let p: Vec<&Match> = x.matches_in(Buffer::Payload).collect();
    assert!(
        matches!(p[1], Match::Pcre(p) if p.flags == PcreFlags::parse("Ri").unwrap() && p.is_relative())
    );
    assert!(
        matches!(x.matches_in(Buffer::HttpUri).next(), Some(Match::Pcre(p)) if p.negated && p.flags.is_empty())
    );
    err_kw(&r(r#"pcre:"/a(/";"#), "pcre");
    err_kw(&r(r#"pcre:"/a/Z9";"#), "pcre");
    err_kw(&r(r#"pcre:"a";"#), "pcre");
    err_kw(&r(r#"pcre:"/a/R";"#), "pcre");
    err_kw(&r(r#"pcre:"/a/UH";"#), "pcre");
    err_kw(&r(r#"http.uri; pcre:"/a/H";"#), "pcre");
    ok(&r(r#"file.data; pcre:"/a/Q";"#));
    ok(&r("pcre:/blah/U;"));
    let x = ok(&r(r#"pcre:"/uid=(\d+)/, pkt:uid";"#));
    assert!(matches!(x.matches_in(Buffer::HttpUri).count(), 0));
    assert!(
        matches!(x.matches_in(Buffer::Payload).next(), Some(Match::Pcre(p)) if p.captures == ["pkt:uid"])
    );
    err_kw(&r(r#"pcre:"/a/, bogus";"#), "pcre");
    // `;` escaped inside a pcre stays in the pattern.
    let x = ok(&r(r#"pcre:"/a\;b/";"#));
    assert!(
        matches!(x.matches_in(Buffer::Payload).next(), Some(Match::Pcre(p)) if p.pattern == "a\\;b")
    );
}

#[test]
fn byte_keywords_and_relative_placement() {
    let x = ok(&r(
        r#"content:"x"; http_uri; byte_test:1,>,3,0,relative; isdataat:!2,relative; byte_jump:2,0; byte_math:bytes 1,offset 0,oper +,rvalue 1,result r; byte_test:1,=,r,0;"#,
    ));
    assert_eq!(x.matches_in(Buffer::HttpUri).count(), 3);
    assert_eq!(x.matches_in(Buffer::Payload).count(), 3);
    err_kw(&r("byte_test:1,~,3,0;"), "byte_test");
    err_kw(&r("byte_test:12,=,3,0;"), "byte_test");
    err_kw(&r("byte_test:1,=,nope,0;"), "byte_test");
    err_kw(&r("byte_jump:4;"), "byte_jump");
}

#[test]
fn non_payload_options() {
    let x = ok("alert tcp any any -> any any (flow:established,to_server; flowbits:set,a; flowbits:noalert; dsize:>10; flags:S,12; ttl:<5; \
        threshold:type limit, track by_src, count 1, seconds 60; app-layer-protocol:!http; metadata:a b, c d; classtype:trojan-activity; \
        priority:2; reference:url,example.com/x; target:dest_ip; tag:session,10,packets; noalert; stream_size:server,>,10; ip_proto:!tcp; \
        window:!512; ack:5; seq:6; id:7; tos:8; icmp_id:1; icmp_seq:2; itype:8; icode:0; sameip; fragbits:M+; ipopts:rr; sid:9; rev:3; gid:2;)");
    assert_eq!(x.meta.sid, 9);
    assert_eq!(x.meta.rev, 3);
    assert_eq!(x.meta.gid, 2);
    assert_eq!(x.meta.metadata, ["a b", "c d"]);
    assert_eq!(x.meta.references[0].system, "url");
    assert_eq!(x.meta.target, Some(Target::DestIp));
    assert!(x.flow().unwrap().established);
    assert_eq!(x.options.len(), 24);
    assert!(x.options.contains(&Opt::IpProto {
        op: IpProtoOp::Ne,
        proto: 6
    }));
    err_kw(&r("flow:to_server,to_client;"), "flow");
    err_kw(&r("flow:established; flow:to_server;"), "flow");
    err_kw(&r("threshold:type limit, track by_src, count 1, seconds 60; detection_filter:track by_src, count 1, seconds 1;"), "detection_filter");
    // Suricata 7.0.10 refuses detection_filter by_rule and by_both.
    err_kw(
        &r("detection_filter:track by_rule, count 1, seconds 1;"),
        "detection_filter",
    );
    err_kw(
        &r("detection_filter:track by_both, count 1, seconds 1;"),
        "detection_filter",
    );
    err_kw(&r("target:foo;"), "target");
    err_kw(&r("app-layer-protocol:nope;"), "app-layer-protocol");
    err_kw("alert tcp any any -> any any (sid:1; sid:2;)", "sid");
    err_kw("alert tcp any any -> any any (sid:0;)", "sid");
    err_kw(&r("ttl:300;"), "ttl");
}

#[test]
fn app_protocol_conflicts() {
    err_kw(
        "alert dns any any -> any any (http.uri; content:\"x\"; sid:1;)",
        "http.uri",
    );
    err_kw(
        &r(r#"http.uri; content:"x"; dns.query; content:"y";"#),
        "dns.query",
    );
    ok("alert http2 any any -> any any (http.uri; content:\"x\"; sid:1;)");
    ok("alert tls any any -> any any (ja3.hash; content:\"x\"; tls.sni; content:\"y\"; sid:1;)");
}

#[test]
fn snort_only_options_are_accepted() {
    ok(&r(
        "logto:x.log; session:printable; resp:rst_all; activates:1;",
    ));
    ok(&r(
        r#"content:"a"; http_raw_cookie; file_data:mime; content:"b";"#,
    ));
    // No trailing semicolon: accepted with a warning.
    let p = parse_record(&Record::from_text(
        "alert tcp any any -> any any (msg:\"x\"; sid:1)",
    ));
    assert!(p.rule.is_some());
    assert!(!p.diagnostics.is_empty());
}

#[test]
fn keywords_are_reported_in_order() {
    let p = parse_record(&Record::from_text(&r(r#"content:"a"; NoCase;"#)));
    assert_eq!(p.keywords, ["content", "nocase", "sid"]);
    assert!(p.rule.is_some());
}

#[test]
fn round_trip_corners() {
    for t in [
        r(
            r#"msg:"a\;b\"c\\"; content:"|00 01|ab|3B|"; nocase; http_uri; content:"x"; distance:-3; within:5;"#,
        ),
        r(r#"http.uri; dotprefix; content:"a"; bsize:<>; pkt_data; content:"b";"#)
            .replace("bsize:<>; ", ""),
        r(
            r#"file_data; content:"a"; byte_jump:4,0,relative,little,string,hex,align,post_offset 2; pkt_data; content:"z"; byte_extract:2,0,v,relative; isdataat:v,relative; urilen:<5,raw;"#,
        ),
        r(
            r#"flowbits:isset,a&b; xbits:set,x,track ip_src,expire 30; flowint:c,+,1; detection_filter:track by_dst, count 5, seconds 6;"#,
        ),
        "alert tcp [1.1.1.1-1.1.1.3,::1] [80,!81] -> !$HOME_NET :1000 (sid:1;)".to_string(),
    ] {
        let a = ok(&t);
        let text = a.to_string();
        let b = ok(&text);
        assert_eq!(a, b, "\n{t}\n{text}");
    }
}

#[test]
fn snort_29_style_rules_load() {
    let rules = [
        r#"alert tcp $EXTERNAL_NET any -> $HOME_NET 445 (msg:"OS-WINDOWS SMB NTLM attempt"; flow:to_server,established; content:"|FF|SMB"; depth:5; offset:4; byte_test:1,&,128,6,relative; byte_jump:2,0,little,relative; content:"NTLMSSP"; distance:0; metadata:policy balanced-ips drop, service netbios-ssn; reference:cve,2008-4037; classtype:attempted-admin; sid:15000; rev:9;)"#,
        r#"alert tcp $EXTERNAL_NET $HTTP_PORTS -> $HOME_NET any (msg:"BROWSER-IE object access"; flow:to_client,established; file_data; content:"CreateObject"; fast_pattern:only; content:"clsid"; nocase; pcre:"/<object\s+[^>]*clsid/smi"; metadata:service http; sid:15001; rev:2;)"#,
        r#"alert tcp $EXTERNAL_NET any -> $HOME_NET $HTTP_PORTS (msg:"SERVER-WEBAPP cmd injection"; flow:to_server,established; content:"/cgi-bin/"; fast_pattern; http_uri; content:"cmd="; nocase; http_uri; pcre:"/cmd=[^&]*[\;|`]/Ui"; urilen:>20; http_encode:uri,utf8; sid:15002; rev:1;)"#,
        r#"alert udp $EXTERNAL_NET any -> $HOME_NET 53 (msg:"PROTOCOL-DNS overflow"; flow:to_server; byte_extract:1,12,len; content:"|00 01|"; distance:len; isdataat:!1,relative; detection_filter:track by_src, count 5, seconds 60; sid:15003; rev:1;)"#,
        r#"alert tcp $HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS (msg:"MALWARE-CNC beacon"; flow:to_server,established; content:"POST"; http_method; content:"User-Agent|3A| Mozilla/4.0|0D 0A|"; http_header; content:"/gate.php"; http_uri; flowbits:set,cnc.beacon; flowbits:noalert; sid:15004; rev:3;)"#,
        r#"alert tcp $EXTERNAL_NET any -> $HOME_NET 135 (msg:"NETBIOS DCERPC ISystemActivator"; flow:to_server,established; dce_iface:4d9f4ab8-7d1c-11cf-861e-0020af6e7c57; dce_opnum:0-3; dce_stub_data; byte_test:4,>,256,0,relative,dce; sid:15005; rev:1;)"#,
        r#"alert tcp $EXTERNAL_NET 443 -> $HOME_NET any (msg:"SERVER-OTHER SSLv3 record"; flow:to_client,established; ssl_state:server_hello; ssl_version:sslv3; content:"|16 03 00|"; depth:3; stream_size:client,<,6; sid:15006; rev:1;)"#,
        r#"alert tcp $EXTERNAL_NET any -> $SMTP_SERVERS 25 (msg:"SERVER-MAIL base64 attachment"; flow:to_server,established; content:"Content-Transfer-Encoding|3A| base64"; nocase; base64_decode:bytes 20, offset 0, relative; base64_data; content:"MZ"; depth:2; sid:15007; rev:1;)"#,
        r#"alert icmp $EXTERNAL_NET any -> $HOME_NET any (msg:"PROTOCOL-ICMP large echo"; itype:8; icode:0; dsize:>800; icmp_seq:0; threshold:type both, track by_dst, count 1, seconds 60; sid:15008; rev:1;)"#,
        r#"alert tcp any any -> any 21 (msg:"PROTOCOL-FTP bounce"; flow:to_server,established; content:"PORT"; nocase; ftpbounce; pcre:"/^PORT/smi"; sid:15009; rev:1;)"#,
        r#"alert tcp $EXTERNAL_NET any -> $HOME_NET 80 (msg:"SERVER-IIS raw uri"; flow:to_server,established; content:"%c0%af"; http_raw_uri; content:"Host|3A|"; http_raw_header; sid:15010; rev:1;)"#,
        r#"alert tcp $EXTERNAL_NET any -> $HOME_NET 80 (msg:"rawbytes telnet"; content:"|FF F1|"; rawbytes; flags:A+; window:!0; sid:15011; rev:1;)"#,
    ];
    for t in rules {
        let x = ok(t);
        assert_eq!(ok(&x.to_string()), x, "{t}");
    }
    let x = ok(rules[2]);
    assert_eq!(x.matches_in(Buffer::HttpUri).count(), 4); // 2 contents, pcre, urilen
    let x = ok(rules[7]);
    assert_eq!(x.matches_in(Buffer::Base64Data).count(), 1);
}

/// `bsize` against a content's offset and length, across two mentions of the buffer
/// (Suricata 7.0.10: "required content length 21 exceeds bsize value: 18").
#[test]
fn bsize_counts_the_offset_and_both_mentions() {
    let r = |o: &str| parse_rule(&format!("alert ssh any any -> any any ({o} sid:1;)")).is_ok();
    assert!(!r("ssh.software; content:\"abcde\"; offset:16; bsize:18;"));
    assert!(!r(
        "ssh.software; content:\"abcde\"; offset:16; ssh.software; bsize:18;"
    ));
    assert!(r("ssh.software; content:\"abcde\"; offset:13; bsize:18;"));
    assert!(r("ssh.software; content:!\"abcde\"; offset:16; bsize:18;"));
    // A chain of relative contents: 3 + (-2 + 3) = 4 bytes needed.
    assert!(!r(
        "ssh.proto; bsize:3; ssh.proto; content:\"2.0\"; content:\"2.0\"; distance:-2;"
    ));
    assert!(r(
        "ssh.proto; bsize:4; content:\"2.0\"; content:\"2.0\"; distance:-2;"
    ));
    assert!(r(
        "ssh.proto; bsize:3; content:\"2.0\"; content:!\"2.0\"; distance:-2;"
    ));
    // Only the content the chain starts with is checked with its offset (Suricata
    // 7.0.10 loads the first, refuses the others; found by the `dnp3` family).
    assert!(r(
        "ssh.proto; content:\"ab\"; bsize:<3; ssh.proto; content:\"ab\"; offset:2;"
    ));
    assert!(r("ssh.proto; content:\"a\"; bsize:<3; content:\"abcd\";"));
    assert!(!r("ssh.proto; bsize:<3; content:\"ab\"; offset:2;"));
    assert!(!r(
        "ssh.proto; content:\"a\"; offset:5; content:\"b\"; bsize:<3;"
    ));
    assert!(!r(
        "ssh.proto; content:\"ab\"; bsize:<3; content:\"ab\"; distance:0;"
    ));
}

#[test]
fn prefilter_needs_a_match_before_it_and_template2_is_a_ttl() {
    // Suricata 7.0.10: "prefilter needs preceding match".
    err_kw(&r("prefilter; content:\"a\";"), "prefilter");
    ok(&r("content:\"a\"; prefilter;"));
    // `template2` compares the TTL as `ttl` does (Suricata's example packet keyword).
    let rule = ok(&r("template2:>63;"));
    assert!(rule
        .options
        .iter()
        .any(|o| matches!(o, Opt::Ttl(IntCmp::Gt(63)))));
    err_kw(&r("template2:256;"), "template2");
}

/// Each mention of a per-keyword multi-buffer is its own list for the `bsize` check
/// (found by the differential harness's `h2frame` family).
#[test]
fn bsize_is_checked_per_list_of_a_per_keyword_multi_buffer() {
    ok(&r(
        "http2.header_name; content:\"x-o\"; content:\"xwxu\"; distance:6; http2.header_name; content:\":path\"; bsize:<6;",
    ));
    err_kw(
        &r("http2.header_name; content:\"x-long-name\"; bsize:<6;"),
        "bsize",
    );
}

/// `rawbytes` as Suricata 7.0.10 loads it (difftest `appkw/uricontent-raw`,
/// tests/parity/difftest/fixed/dt-52-appkw-50).
#[test]
fn rawbytes_needs_a_payload_content_and_no_sticky_buffer() {
    for bad in [
        r#"uricontent:"x"; rawbytes;"#,
        r#"content:"x"; http_uri; rawbytes;"#,
        r#"http.uri; content:"x"; rawbytes;"#,
        r#"http.uri; content:"x"; pkt_data; rawbytes;"#,
        r#"content:"a"; http.uri; rawbytes;"#,
        r#"file.data; content:"x"; rawbytes;"#,
        r#"byte_test:1,>,0,0; rawbytes;"#,
        "rawbytes;",
        r#"content:"a"; rawbytes; rawbytes;"#,
    ] {
        err_kw(&r(bad), "rawbytes");
    }
    let x = ok(&r(r#"content:"a"; uricontent:"x"; rawbytes;"#));
    let c = contents(&x);
    assert!(c.iter().any(|(b, c)| *b == Buffer::Payload && c.rawbytes));
    assert!(c.iter().all(|(b, c)| *b == Buffer::Payload || !c.rawbytes));
    for good in [
        r#"content:"a"; content:"x"; http_uri; rawbytes;"#,
        r#"content:"a"; isdataat:1,relative; rawbytes;"#,
        r#"content:"y"; rawbytes; uricontent:"x";"#,
        r#"http.uri; content:"x"; pkt_data; content:"y"; rawbytes;"#,
    ] {
        ok(&r(good));
    }
}

/// `replace` as Suricata 7.0.10 loads it outside IPS mode: with its content's length
/// it is kept; another length or no content loads the rule without it; an empty value
/// fails (difftest `replace` family).
#[test]
fn replace_kept_ignored_or_refused() {
    let k = ok(&r("content:\"abc\"; replace:\"xyz\";"));
    assert_eq!(contents(&k)[0].1.replace.as_deref(), Some(&b"xyz"[..]));
    let longer = ok(&r("content:\"abc\"; replace:\"wxyz\";"));
    assert_eq!(contents(&longer)[0].1.replace, None);
    ok(&r("replace:\"xyz\";"));
    err_kw(&r("content:\"abc\"; replace:\"\";"), "replace");
    // Each `replace` warns once, as Suricata 7.0.10 outside NFQ mode ("Can't use
    // 'replace' keyword in non IPS mode"), whether it is kept or not.
    let warned = |opts: &str| {
        let p = parse_record(&lexer::Record::from_text(&r(opts)));
        assert!(p.rule.is_some(), "{opts}");
        p.diagnostics
            .iter()
            .filter(|d| !d.is_error() && d.keyword.as_deref() == Some("replace"))
            .inspect(|d| assert!(d.message.contains("non IPS mode"), "{d:?}"))
            .count()
    };
    assert_eq!(warned("content:\"abc\"; replace:\"xyz\";"), 1);
    assert_eq!(warned("content:\"abc\"; replace:\"wxyz\";"), 1);
    assert_eq!(warned("replace:\"xyz\";"), 1);
    assert_eq!(
        warned("content:\"ab\"; replace:\"xy\"; content:\"cd\"; replace:\"zw\";"),
        2
    );
}

#[test]
fn mqtt_type_takes_the_names_of_types_1_to_15() {
    for v in ["CONNECT", "auth", "Disconnect"] {
        ok(&r(&format!("mqtt.type:{v};")));
    }
    // As Suricata 7.0.10: type 0's name and numbers are refused.
    for v in ["UNASSIGNED", "unassigned", "0", "15"] {
        err_kw(&r(&format!("mqtt.type:{v};")), "mqtt.type");
    }
}

//! Keyword acceptance: a content rule on a TCP or UDP payload with one option that
//! Suricata 7.0.10 refuses (Snort-only keywords: `logto`, `session`, `resp`, `react`,
//! `activates`, `activated_by`, `count`, `cvs`, `sd_pattern`, `protected_content` with
//! `hash`/`length`, `stream_reassemble`, the Snort 2 preprocessor keywords ...),
//! accepts with no effect on the alert (`nfq_set_mark`, `bypass`, `prefilter`, `tag`,
//! `alert`), or accepts or skips by its value (`requires`, `config`, `asn1`, `geoip`,
//! `template2`, `transform`), each in valid and invalid forms (no value, empty value,
//! unknown names, values past their type). A rule Suricata refuses leaves the alert
//! comparison and Osprey must refuse it too (the acceptance check of
//! `compare::Kind::OspreyAccepts`/`OspreyRejects`); a rule both load must alert alike.

use super::{base, content_text, Family, Gen};
use crate::case::Intent;

/// Keywords Suricata refuses, ignores, or accepts by their value.
pub const ACCEPT: Family = Family {
    name: "accept",
    keywords: &[
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
        "template2",
        "transform",
        "alert",
        "asn1",
        "config",
        "requires",
        "prefilter",
        "bypass",
        "tag",
        "geoip",
        "content",
    ],
    weight: 3,
    make: accept,
};

/// One option per row: (keyword, form name, the option's text). The form names say
/// what the value is (`none`: no value; `bad`: a value the keyword's syntax refuses).
const FORMS: &[(&str, &str, &str)] = &[
    ("logto", "file", "logto:\"dt.log\";"),
    ("logto", "none", "logto;"),
    ("session", "printable", "session:printable;"),
    ("session", "all", "session:all;"),
    ("resp", "rst", "resp:rst_all;"),
    ("react", "block", "react:block;"),
    ("activates", "n", "activates:1;"),
    ("activated_by", "n", "activated_by:1;"),
    ("count", "n", "count:50;"),
    ("http_encode", "uri", "http_encode:uri,utf8;"),
    ("http_encode", "neg", "http_encode:header,!ascii;"),
    ("cvs", "entry", "cvs:invalid-entry;"),
    ("sd_pattern", "cc", "sd_pattern:2,credit_card;"),
    ("file_type", "pdf", "file_type:PDF;"),
    ("file_group", "office", "file_group:office;"),
    ("sip_method", "invite", "sip_method:invite;"),
    ("sip_stat_code", "200", "sip_stat_code:200;"),
    ("sip_header", "none", "sip_header;"),
    ("sip_body", "none", "sip_body;"),
    ("gtp_type", "n", "gtp_type:1;"),
    ("gtp_info", "n", "gtp_info:0;"),
    ("gtp_version", "n", "gtp_version:1;"),
    ("modbus_func", "n", "modbus_func:1;"),
    ("modbus_unit", "n", "modbus_unit:1;"),
    ("modbus_data", "none", "modbus_data;"),
    (
        "stream_reassemble",
        "off",
        "stream_reassemble:disable,server;",
    ),
    (
        "protected_content",
        "md5",
        "protected_content:\"0123456789abcdef0123456789abcdef\"; hash:md5; length:4;",
    ),
    ("hash", "md5", "hash:md5;"),
    ("length", "n", "length:4;"),
    ("nfq_set_mark", "mask", "nfq_set_mark:0x10/0xff;"),
    ("nfq_set_mark", "nomask", "nfq_set_mark:0x10;"),
    ("nfq_set_mark", "bad", "nfq_set_mark:zz/0xff;"),
    ("nfq_set_mark", "none", "nfq_set_mark;"),
    ("template2", "n", "template2:1;"),
    ("transform", "none", "transform;"),
    ("transform", "name", "transform:to_lowercase;"),
    ("alert", "none", "alert;"),
    ("alert", "value", "alert:1;"),
    ("asn1", "oversize", "asn1:oversize_length 100;"),
    (
        "asn1",
        "bitstring",
        "asn1:bitstring_overflow, absolute_offset 0;",
    ),
    (
        "asn1",
        "relative",
        "asn1:double_overflow, relative_offset 0;",
    ),
    ("asn1", "bad", "asn1:nosuch_option;"),
    ("asn1", "empty", "asn1:;"),
    (
        "config",
        "disable",
        "config:logging disable, type tx, scope tx;",
    ),
    (
        "config",
        "flow",
        "config:logging disable, type tx, scope flow;",
    ),
    ("config", "bad", "config:logging enable;"),
    ("config", "half", "config:logging disable;"),
    ("requires", "v7", "requires:version >= 7;"),
    ("requires", "v8", "requires:version >= 8;"),
    ("requires", "v7010", "requires:version >= 7.0.10;"),
    ("requires", "v7011", "requires:version >= 7.0.11;"),
    ("requires", "lt7", "requires:version < 7;"),
    ("requires", "range", "requires:version >= 7 < 8;"),
    ("requires", "geoip", "requires:feature geoip;"),
    (
        "requires",
        "nofeature",
        "requires:feature dt_no_such_feature;",
    ),
    ("requires", "both", "requires:feature geoip, version >= 7;"),
    ("requires", "bad", "requires:nosuch 7;"),
    ("requires", "empty", "requires:;"),
    ("prefilter", "none", "prefilter;"),
    ("prefilter", "value", "prefilter:1;"),
    ("bypass", "none", "bypass;"),
    ("bypass", "value", "bypass:1;"),
    ("tag", "session", "tag:session,10,packets;"),
    ("tag", "host", "tag:host,60,seconds,src;"),
    ("tag", "hostdst", "tag:host,3,packets,dst;"),
    ("tag", "sessionbytes", "tag:session,100,bytes;"),
    ("tag", "bare", "tag:session;"),
    ("tag", "bad", "tag:flow,10,packets;"),
    ("tag", "badunit", "tag:session,10,minutes;"),
    ("tag", "zero", "tag:session,0,packets;"),
    ("geoip", "src", "geoip:src,US;"),
    ("geoip", "any", "geoip:any,NL,DE;"),
    ("geoip", "bad", "geoip:nowhere,US;"),
];

fn accept(g: &mut Gen<'_>) -> super::Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    let n = g.size(3, 8);
    let needle = g.needle(n);
    let len = g.size(n + 4, 80);
    let mut payload = g.filler(len);
    let at = g.size(0, len - n);
    payload[at..at + n].copy_from_slice(&needle);
    let c = if intent == Intent::Hit {
        needle
    } else {
        crate::flows::spoil(&needle)
    };
    let (kw, form, text) = g.pick(FORMS);
    let content = format!("content:\"{}\";", content_text(&c));
    // The option before or after the content (`prefilter` and `transform` must follow
    // a content or a buffer to mean anything; written first they are refused).
    let first = g.chance(0.25);
    let opts = if first {
        format!("{text} {content}")
    } else {
        format!("{content} {text}")
    };
    let place = if first { "-first" } else { "" };
    let mut s = base(&format!("{kw}-{form}{place}"), intent, v6, l4, proto);
    s.opts = opts;
    s.payload = payload;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn every_acceptance_keyword_is_written_in_the_registry() {
        for (kw, _, text) in FORMS {
            assert!(rules::keywords::find(kw).is_some(), "{kw}: not registered");
            assert!(text.starts_with(kw), "{kw}: {text}");
            assert!(ACCEPT.keywords.contains(kw), "{kw} not listed");
        }
        let mut rng = Rng::new(5);
        let mut seen = std::collections::HashSet::new();
        for index in 0..2000 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = accept(&mut g);
            seen.insert(s.template.split('-').next().unwrap().to_string());
            assert!(s.opts.contains("content:\""));
        }
        for k in ACCEPT.keywords.iter().filter(|k| **k != "content") {
            assert!(seen.contains(*k), "{k} never drawn");
        }
    }

    #[test]
    fn keywords_judged_by_value_have_valid_and_invalid_forms() {
        let mut names = std::collections::HashSet::new();
        for (kw, form, _) in FORMS {
            assert!(names.insert((kw, form)), "{kw}-{form} twice");
        }
        // Each keyword Suricata loads or refuses by its value is drawn with a form it
        // refuses and one it loads.
        for kw in ["requires", "tag", "asn1", "config", "nfq_set_mark", "geoip"] {
            assert!(names.contains(&(&kw, &"bad")), "{kw}: no invalid form");
            assert!(
                FORMS.iter().any(|(k, f, _)| *k == kw && *f != "bad"),
                "{kw}: no valid form"
            );
        }
    }
}

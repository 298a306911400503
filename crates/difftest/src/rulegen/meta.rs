//! Meta keywords: a content rule on a TCP or UDP payload with one to three of `gid`,
//! `classtype`, `priority`, `reference`, `metadata`, `target` and `noalert`, each with
//! edge values (type limits and one past them, names the stock `classification.config`
//! and `reference.config` know and names they do not, empty and odd lists), so that
//! Osprey loads and refuses the same rules as Suricata and `noalert` silences the same
//! alerts. `msg`, `sid` and `rev` are in every generated rule (`case::Case::rule`).

use super::{base, content_text, Family, Gen};
use crate::case::Intent;

/// The meta keywords with edge values.
pub const META: Family = Family {
    name: "meta",
    keywords: &[
        "gid",
        "classtype",
        "priority",
        "reference",
        "metadata",
        "target",
        "noalert",
        "msg",
        "sid",
        "rev",
        "content",
    ],
    weight: 3,
    make: meta,
};

/// One meta option: (its name for the template, its text).
fn option(g: &mut Gen<'_>) -> (&'static str, String) {
    match g.size(0, 6) {
        0 => (
            "gid",
            format!(
                "gid:{};",
                g.pick(&["1", "2", "0", "4294967295", "4294967296", "-1", "0x10"])
            ),
        ),
        1 => (
            "classtype",
            format!(
                "classtype:{};",
                g.pick(&[
                    "trojan-activity",
                    "bad-unknown",
                    "not-suspicious",
                    "policy-violation",
                    "attempted-admin",
                    "Trojan-Activity",
                    "dt-no-such-class",
                    "trojan activity",
                ])
            ),
        ),
        2 => (
            "priority",
            format!(
                "priority:{};",
                g.pick(&["1", "2", "3", "4", "255", "256", "0", "-1", "10"])
            ),
        ),
        3 => (
            "reference",
            format!(
                "reference:{};",
                g.pick(&[
                    "url,example.com/dt",
                    "cve,2021-44228",
                    "bugtraq,1234",
                    "md5,0123456789abcdef0123456789abcdef",
                    "url, example.com/a b",
                    "dtnosuchref,abc",
                    "url",
                    "cve,",
                ])
            ),
        ),
        4 => (
            "metadata",
            format!(
                "metadata:{};",
                g.pick(&[
                    "created_at 2023_11_14",
                    "former_category MALWARE, updated_at 2024_01_01",
                    "dt",
                    "a b c",
                    "key value,",
                    "signature_severity Major, deployment Perimeter",
                ])
            ),
        ),
        5 => (
            "target",
            format!(
                "target:{};",
                g.pick(&["src_ip", "dest_ip", "src", "client"])
            ),
        ),
        _ => ("noalert", "noalert;".to_string()),
    }
}

fn meta(g: &mut Gen<'_>) -> super::Spec {
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
    let mut opts = vec![format!("content:\"{}\";", content_text(&c))];
    let mut names = Vec::new();
    for _ in 0..g.size(1, 3) {
        let (name, text) = option(g);
        names.push(name);
        opts.push(text);
    }
    // Meta options before or after the content.
    if g.chance(0.4) {
        opts.rotate_left(1);
    }
    let mut s = base(&names.join("-"), intent, v6, l4, proto);
    s.opts = opts.join(" ");
    s.payload = payload;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn every_meta_keyword_is_written_and_most_rules_parse() {
        let mut rng = Rng::new(12);
        let mut seen = std::collections::HashSet::new();
        let mut ok = 0;
        for index in 0..400 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = meta(&mut g);
            for k in s.template.split('-') {
                seen.insert(k.to_string());
            }
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        for k in [
            "gid",
            "classtype",
            "priority",
            "reference",
            "metadata",
            "target",
        ] {
            assert!(seen.contains(k), "{k} never written");
        }
        assert!(ok > 150, "{ok} of 400 parse");
    }
}

//! `replace` after a content, compared in IDS runs and in IPS runs (`difftest
//! --simulate-ips`, alerts with their payloads): Suricata 7.0.10 rewrites packets only
//! in NFQ mode; offline, in IPS mode as in IDS mode, it warns, loads the rule and alerts
//! as on the content alone, the payload unchanged:
//! replacements of the content's length in text and hex, with `offset`/`depth`/
//! `distance`/`within`, `nocase`, several contents each replaced, and the forms Suricata
//! refuses (another length, no content before it, a negated content, a sticky buffer,
//! an empty value). Traffic: the client's payload over TCP or UDP.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, Spec};

/// `replace` with its content.
pub const REPLACE: Family = Family {
    name: "replace",
    keywords: &[
        "replace", "content", "nocase", "offset", "depth", "distance", "within",
    ],
    weight: 2,
    make: replace,
};

fn replace(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    let n = g.size(1, 10);
    let needle = g.needle(n);
    let before = g.size(0, 10);
    let after = g.size(0, 10);
    let carried = if hit {
        needle.clone()
    } else {
        crate::flows::spoil(&needle)
    };
    let payload = [g.filler(before), carried, g.filler(after)].concat();
    let same = |g: &mut Gen<'_>, k: usize| {
        let r = g.filler(k);
        if g.chance(0.3) {
            let hex: Vec<String> = r.iter().map(|b| format!("{b:02X}")).collect();
            format!("|{}|", hex.join(" "))
        } else {
            content_text(&r)
        }
    };
    let variant = g.pick(&[
        "plain",
        "plain",
        "positioned",
        "nocase",
        "two",
        "length",
        "nocontent",
        "negated",
        "sticky",
        "empty",
    ]);
    let c = content_text(&needle);
    let opts = match variant {
        "positioned" => {
            let r = same(g, n);
            let pos = match g.size(0, 2) {
                0 => format!("offset:{before}; depth:{};", n + g.size(0, 2)),
                1 => format!("depth:{};", before + n + g.size(0, 1)),
                _ => format!("offset:{};", before.saturating_sub(g.size(0, 1))),
            };
            format!("content:\"{c}\"; {pos} replace:\"{r}\";")
        }
        "nocase" => {
            let r = same(g, n);
            let upper = String::from_utf8_lossy(&needle.to_ascii_uppercase()).into_owned();
            format!(
                "content:\"{}\"; nocase; replace:\"{r}\";",
                content_text(upper.as_bytes())
            )
        }
        "two" => {
            // The first bytes of the payload, then the needle relative to them.
            let head = &payload[..before.min(payload.len())];
            if head.is_empty() {
                let r = same(g, n);
                format!("content:\"{c}\"; replace:\"{r}\";")
            } else {
                let (r1, r2) = (same(g, head.len()), same(g, n));
                format!(
                    "content:\"{}\"; replace:\"{r1}\"; content:\"{c}\"; distance:0; within:{}; replace:\"{r2}\";",
                    content_text(head),
                    n + g.size(0, 1)
                )
            }
        }
        "length" => {
            let k = if g.chance(0.5) { n + 1 } else { n.max(2) - 1 };
            let r = same(g, k);
            format!("content:\"{c}\"; replace:\"{r}\";")
        }
        "nocontent" => format!("replace:\"{}\";", same(g, n)),
        "negated" => format!("content:!\"{c}\"; replace:\"{}\";", same(g, n)),
        "sticky" => format!("pkt_data; content:\"{c}\"; replace:\"{}\";", same(g, n)),
        "empty" => format!("content:\"{c}\"; replace:\"\";"),
        _ => format!("content:\"{c}\"; replace:\"{}\";", same(g, n)),
    };
    let mut s = base(variant, intent, v6, l4, proto);
    s.opts = opts;
    s.payload = payload;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_drawn_and_valid_ones_parse() {
        let mut rng = gen::rng::Rng::new(17);
        let mut kinds = std::collections::BTreeSet::new();
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = replace(&mut g);
            kinds.insert(s.template.clone());
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            if c.spec.template == "plain" {
                assert!(rules::parse_rule(&c.rule()).is_ok(), "{}", c.rule());
            }
        }
        assert_eq!(kinds.len(), 9, "{kinds:?}");
    }
}

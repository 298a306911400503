//! Flow-level keywords on a plain TCP conversation (handshake, the client's data, the
//! server's acknowledgement, the FIN exchange): `stream_size` (each side name and
//! operator, values around the client's byte count: 0, one below, at, one above),
//! `flow.age` (0 and 1 second, with each operator), `app-layer-protocol` (`http`,
//! `!http`, `failed`, `unknown`, `tls`) on an HTTP request or on filler, and
//! `flow.pkts`/`flow.bytes` (Suricata 8 keywords a 7.0.10 rule set refuses), each alone
//! or with a content of the data.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, L4};

/// Flow-level keywords.
pub const FLOWKW: Family = Family {
    name: "flowkw",
    keywords: &[
        "stream_size",
        "flow.age",
        "flow.pkts",
        "flow.bytes",
        "app-layer-protocol",
        "content",
    ],
    weight: 3,
    make: flowkw,
};

fn flowkw(g: &mut Gen<'_>) -> super::Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let http = g.chance(0.4);
    let needle = g.needle(5);
    let payload = if http {
        format!(
            "GET /{} HTTP/1.1\r\nHost: dt.test\r\n\r\n",
            String::from_utf8_lossy(&needle)
        )
        .into_bytes()
    } else {
        let n = g.size(0, 40);
        [needle.clone(), g.filler(n)].concat()
    };
    let n = payload.len() as u64;
    let variant = g.pick(&["stream_size", "flow.age", "app-layer-protocol", "flow.pkts"]);
    let opt = match variant {
        "stream_size" => {
            let side = g.pick(&["server", "client", "both", "either"]);
            let op = g.pick(&["<", ">", "=", "!=", "<=", ">="]);
            let v = match g.size(0, 4) {
                0 => 0,
                1 => n.saturating_sub(1),
                2 => n,
                3 => n + 1,
                _ => n + 2,
            };
            format!("stream_size:{side},{op},{v};")
        }
        "flow.age" => {
            let (op, v) = (g.pick(&["", "<", ">", "<=", ">="]), g.num(0, 1));
            format!("flow.age:{op}{v};")
        }
        "app-layer-protocol" => {
            let p = g.pick(&["http", "!http", "failed", "unknown", "tls", "!tls"]);
            let hit = match p {
                "http" => http,
                "!http" => !http,
                "failed" => !http,
                "!tls" => true,
                _ => false,
            };
            // The other value when the case must miss and this one would hit.
            let p = match (intent == Intent::Hit, hit) {
                (false, true) | (true, false) => match p {
                    "http" => "!http",
                    "!http" | "failed" => "http",
                    "!tls" => "tls",
                    _ => p,
                },
                _ => p,
            };
            format!("app-layer-protocol:{p};")
        }
        _ => {
            let kw = g.pick(&["flow.pkts", "flow.bytes"]);
            let dir = g.pick(&["toserver", "toclient", "either"]);
            format!("{kw}:{dir},>{};", g.num(0, 3))
        }
    };
    let content = if g.chance(0.5) {
        format!("content:\"{}\"; ", content_text(&needle))
    } else {
        String::new()
    };
    let name = format!(
        "{variant}-{}{}",
        if content.is_empty() {
            "alone"
        } else {
            "content"
        },
        if http { "-http" } else { "" }
    );
    let mut s = base(&name, intent, v6, L4::Tcp, "tcp");
    s.opts = format!("{content}{opt}");
    s.payload = payload;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn every_variant_is_written_and_its_rules_parse_mostly() {
        let mut rng = Rng::new(21);
        let mut seen = std::collections::HashSet::new();
        let mut ok = 0;
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = flowkw(&mut g);
            seen.insert(s.template.split('-').next().unwrap_or("").to_string());
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
        assert!(ok > 200, "{ok} of 300 parse");
    }
}

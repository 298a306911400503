//! Variables and bits kept across packets, one rule a case over a TCP connection or a
//! run of UDP datagrams whose client messages carry `key=VALUE` pairs (the value from
//! the needle letters, so the filler never makes one):
//!
//! - `flowvar`/`pktvar` set by a `pcre` named capture (`(?P<flow_v>..)`,
//!   `(?P<pkt_v>..)`) or by the `,flow:v`/`,pkt:v` suffix of a helper rule
//!   ([`crate::case::Spec::setup`], whose pattern may match a later message without the
//!   capture: an alternation), and matched by the case's rule with the value itself,
//!   one byte off or with a `|..|` hex block; or set and matched in the case's rule
//!   (before or after the `pcre`);
//! - `xbits` (`set`, `unset`, `toggle`, `isset`, `isnotset`, with `track ip_src`,
//!   `ip_dst`, `ip_pair` and `expire`) and `hostbits` (the same commands with `src`,
//!   `dst`, `both` or no direction, `expire`): a test and a command on the same bit in
//!   one rule, so whether the first packet's command is seen by the later packets (of
//!   either direction, the header naming both hosts) decides the alerts; forms Suricata
//!   refuses (no `track`, an unknown track or command, `expire` on a test or on
//!   hostbits, hostbits `both`) now and then.

use super::session;
use super::Flow;
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};

/// Flow and packet variables, xbits and hostbits.
pub const VARS: Family = Family {
    name: "vars",
    keywords: &[
        "flowvar", "pktvar", "pcre", "xbits", "hostbits", "content", "dsize", "flow",
    ],
    weight: 2,
    make: vars,
};

/// The client's messages: each `filler key=VALUE; filler` or, for the later ones, the
/// marker word alone now and then.
fn messages(g: &mut Gen<'_>, value: &[u8], n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let head = g.size(1, 12);
            let mut m = g.filler(head);
            if i == 0 || g.chance(0.4) {
                m.extend_from_slice(b" key=");
                m.extend_from_slice(value);
                m.push(b';');
            } else {
                m.extend_from_slice(b" marker ");
            }
            let tail = g.size(0, 8);
            m.extend(g.filler(tail));
            m
        })
        .collect()
}

/// The `flowvar`/`pktvar` value text: plain, or with its first byte as a hex block.
fn value_text(g: &mut Gen<'_>, v: &[u8]) -> String {
    if g.chance(0.2) && !v.is_empty() {
        format!("|{:02X}|{}", v[0], content_text(&v[1..]))
    } else {
        content_text(v)
    }
}

/// Options of a `flowvar`/`pktvar` case: (variant, rule options, helper rule options).
/// The variable is set by a pcre capture of a helper rule (`Spec::setup`) and read by
/// the case's rule, or both in the case's rule (where the variable keyword is checked
/// before the pcre: the rule can never see its own capture).
fn var_opts(g: &mut Gen<'_>, hit: bool, value: &[u8]) -> (String, String, Option<String>) {
    let flow = g.chance(0.6);
    let (kw, prefix) = if flow {
        ("flowvar", "flow")
    } else {
        ("pktvar", "pkt")
    };
    let name = format!("v{}", g.num(0, 99));
    let wanted = if hit {
        value.to_vec()
    } else {
        super::bufcond::spoil(value)
    };
    let test = format!("{kw}:{name},\"{}\";", value_text(g, &wanted));
    let form = g.pick(&[
        "capture",
        "capture",
        "suffix",
        "alternation",
        "same",
        "before",
    ]);
    let pcre = match form {
        "suffix" => format!("pcre:\"/key=([m-z]+)/,{prefix}:{name}\";"),
        "alternation" => format!("pcre:\"/key=(?P<{prefix}_{name}>[m-z]+)|marker/\";"),
        _ => format!("pcre:\"/key=(?P<{prefix}_{name}>[m-z]+)/\";"),
    };
    let (opts, setup) = match form {
        "before" => (format!("{test} {pcre}"), None),
        "same" => (format!("{pcre} {test}"), None),
        _ => {
            let extra = g.pick(&["", "dsize:>0; ", "content:\"key=\"; "]);
            (format!("{extra}{test}"), Some(pcre))
        }
    };
    (format!("{kw}-{form}"), opts, setup)
}

/// Options of an `xbits` or `hostbits` case: (variant, rule options).
fn bits_opts(g: &mut Gen<'_>, hit: bool) -> (String, String) {
    let xbits = g.chance(0.55);
    let name = format!("b{}", g.num(0, 99));
    let track = |g: &mut Gen<'_>| -> String {
        if xbits {
            match g.size(0, 15) {
                0 => String::new(),
                1 => ",track ip_both".into(),
                _ => format!(",track {}", g.pick(&["ip_src", "ip_dst", "ip_pair"])),
            }
        } else {
            match g.size(0, 9) {
                0 => String::new(),
                // `both` is refused by Suricata 7.0.10.
                1..=8 => format!(",{}", g.pick(&["src", "dst"])),
                _ => ",both".into(),
            }
        }
    };
    let kw = if xbits { "xbits" } else { "hostbits" };
    let t = track(g);
    // The same track for the test and the command most of the time.
    let t2 = if g.chance(0.85) { t.clone() } else { track(g) };
    // Suricata 7.0.10 takes `expire` on xbits only: one hostbits case in ten keeps it.
    let expire = match g.size(0, if xbits { 5 } else { 19 }) {
        0 => ",expire 60".to_string(),
        1 => ",expire 1".to_string(),
        _ => String::new(),
    };
    // A test, then a command; a miss case tests the opposite.
    let (test, cmd) = match g.size(0, 4) {
        0 => ("isnotset", "set"),
        1 => ("isset", "set"),
        2 => ("isnotset", "toggle"),
        3 => ("isset", "unset"),
        _ => ("isnotset", "unset"),
    };
    let test = if hit {
        test
    } else if test == "isset" {
        "isnotset"
    } else {
        "isset"
    };
    let odd = g.size(0, 7) == 0;
    let (test_t, cmd_t) = if odd {
        match g.size(0, 2) {
            0 => (
                format!("{kw}:{test},{name}{t}{expire}"),
                format!("{kw}:{cmd},{name}{t2}"),
            ),
            1 => (
                format!("{kw}:{test},{name}{t}"),
                format!("{kw}:clear,{name}{t2}"),
            ),
            _ => (
                format!("{kw}:{test},{name}{t}"),
                format!("{kw}:{cmd},{name},track"),
            ),
        }
    } else {
        (
            format!("{kw}:{test},{name}{t}"),
            format!("{kw}:{cmd},{name}{t2}{expire}"),
        )
    };
    let opts = if g.chance(0.5) {
        format!("{test_t}; {cmd_t};")
    } else {
        format!("{cmd_t}; {test_t};")
    };
    // What the packets must carry: any payload, or the key.
    let extra = g.pick(&["dsize:>0;", "content:\"key=\";", ""]);
    (format!("{kw}-{test}-{cmd}"), format!("{opts} {extra}"))
}

fn vars(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let udp = g.chance(0.35);
    let (l4, proto) = if udp {
        (L4::Udp, "udp")
    } else {
        (L4::Tcp, "tcp")
    };
    let dport = 7000 + (g.index % 1000) as u16;
    let nv = g.size(3, 10);
    let value = g.needle(nv);
    let n = g.size(1, 4);
    let msgs = messages(g, &value, n);
    let (variant, mut opts, setup) = if g.chance(0.45) {
        var_opts(g, hit, &value)
    } else {
        let (v, o) = bits_opts(g, hit);
        (v, o, None)
    };
    let bits = !variant.starts_with("flowvar") && !variant.starts_with("pktvar");
    let mut s = base(&variant, intent, v6, l4, proto);
    s.tweaks.dport = Some(dport);
    let mut f = Flow::new(g.index, v6, dport);
    // The server answers each message now and then.
    let mut conv: Vec<(bool, Vec<u8>)> = Vec::new();
    for m in &msgs {
        conv.push((true, m.clone()));
        if g.chance(0.4) {
            conv.push((
                false,
                b"ok key=".iter().copied().chain(value.clone()).collect(),
            ));
        }
    }
    if udp {
        session::udp(&mut f, &conv);
    } else {
        session::tcp(g, &mut f, &conv);
    }
    // Bits rules name both hosts on both sides, so the server's packets are tested too.
    if bits && g.chance(0.5) {
        let both = format!("[{},{}]", f.client, f.server);
        s.header = Some([both.clone(), "any".into(), both, "any".into()]);
    } else if g.chance(0.3) {
        opts = format!("flow:to_server; {opts}");
    }
    s.opts = opts;
    s.setup = setup;
    s.payload = msgs[0].clone();
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_written_and_most_rules_parse() {
        let (cases, ok) = super::super::sample_cases(400, vars);
        let kinds: std::collections::BTreeSet<&str> = cases
            .iter()
            .map(|c| c.spec.template.split('-').next().unwrap_or(""))
            .collect();
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            ["flowvar", "hostbits", "pktvar", "xbits"]
        );
        assert!(ok > 300, "only {ok} of 400 rules parse");
        let captures = cases
            .iter()
            .filter(|c| c.rule().contains("(?P<flow_"))
            .count();
        assert!(captures > 20, "{captures}");
    }
}

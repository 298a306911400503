//! Datasets and reputation lists: `dataset` (`set`, `isset`, `isnotset`) and `datarep`
//! (`>`, `<`, `>=`, `<=`, `==` against a value at or next to the listed one) on a DNS
//! query name over UDP (`dns.query`, as it is or through `to_md5`/`to_sha256` for the
//! `md5`/`sha256` types) and on the addresses (`ip.src`/`ip.dst` for the `ipv4` and
//! `ip` types). Each case's set has a name of its own and its `load` file is written next
//! to the rule file (`case::Spec::files`; both engines resolve it against the rule
//! file's directory): the case's value in it or not, among decoys, base64 for strings,
//! hex for hashes, one line a value (`value,reputation` for `datarep`). Edge forms: the
//! options in another order, `memcap`/`hashsize`, reputations at 0 and 65535 and past
//! them, an uppercase operation or type, `=` for `==`, a missing type or file, a line
//! that is not base64 (what Suricata refuses is compared as an acceptance check).
//! `state` and `save` are not drawn: Suricata writes those files at exit, which would
//! change what the next run (Suricata twice, Osprey once) reads.

use md5::Digest as _;

use super::b64::encode;
use super::{base, Family, Gen};
use crate::case::{Addrs, Intent, Spec, L4};
use crate::flows::{dns, Flow};

/// Datasets and `datarep` on DNS names and addresses.
pub const LISTS: Family = Family {
    name: "lists",
    keywords: &[
        "dataset",
        "datarep",
        "dns.query",
        "to_md5",
        "to_sha256",
        "ip.src",
        "ip.dst",
    ],
    weight: 1,
    make: lists,
};

/// What the list holds values of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Str,
    Md5,
    Sha256,
    Ipv4,
    Ip,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Md5 => "md5",
            Ty::Sha256 => "sha256",
            Ty::Ipv4 => "ipv4",
            Ty::Ip => "ip",
        }
    }

    /// A list line for `value` (the buffer's bytes, or an address's text).
    fn line(self, value: &[u8]) -> String {
        match self {
            Ty::Str => String::from_utf8_lossy(&encode(value)).into_owned(),
            Ty::Md5 => hex(&md5::Md5::digest(value)),
            Ty::Sha256 => hex(&sha2::Sha256::digest(value)),
            Ty::Ipv4 | Ty::Ip => String::from_utf8_lossy(value).into_owned(),
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A DNS name of `n` labels from letters the other families' fillers do not use.
fn name(g: &mut Gen<'_>) -> Vec<Vec<u8>> {
    let n = g.size(1, 3);
    let mut v: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let k = g.size(1, 12);
            g.needle(k)
        })
        .collect();
    v.push(g.pick(&[&b"com"[..], b"net", b"org"]).to_vec());
    v
}

fn dotted(labels: &[Vec<u8>]) -> Vec<u8> {
    labels.join(&b"."[..])
}

fn lists(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let a = Addrs::of(g.index, v6);
    let rep = g.chance(0.4);
    let ty = if rep {
        g.pick(&[Ty::Str, Ty::Str, Ty::Md5, Ty::Sha256, Ty::Ipv4, Ty::Ip])
    } else {
        g.pick(&[
            Ty::Str,
            Ty::Str,
            Ty::Str,
            Ty::Md5,
            Ty::Sha256,
            Ty::Ipv4,
            Ty::Ip,
        ])
    };
    // IPv4 lists on IPv6 traffic never match (an edge of its own).
    let labels = name(g);
    let query = dotted(&labels);
    let src_side = g.chance(0.5);
    let (buffer, value): (&str, Vec<u8>) = match ty {
        Ty::Str => ("dns.query;", query.clone()),
        Ty::Md5 => ("dns.query; to_md5;", query.clone()),
        Ty::Sha256 => ("dns.query; to_sha256;", query.clone()),
        Ty::Ipv4 | Ty::Ip => {
            let addr = if src_side { a.client } else { a.server };
            (
                if src_side { "ip.src;" } else { "ip.dst;" },
                addr.to_string().into_bytes(),
            )
        }
    };
    // The decoys: other names, other hosts of the case's network.
    let mut values: Vec<Vec<u8>> = (0..g.size(0, 4))
        .map(|i| match ty {
            Ty::Ipv4 | Ty::Ip => a.host(10 + i as u8).to_string().into_bytes(),
            _ => {
                let mut d = query.clone();
                d.insert(0, b"abcdefghijkl"[i]);
                d
            }
        })
        .collect();
    let set = format!("dt{}", g.index);
    let file = format!("dt{}.lst", g.index);
    let mut mods = Vec::new();
    if g.chance(0.15) {
        mods.push(format!("memcap {}", g.pick(&["1mb", "100kb", "65536"])));
    }
    if g.chance(0.15) {
        mods.push(format!("hashsize {}", g.pick(&[16u32, 1024, 4096])));
    }
    let typ = match g.size(0, 19) {
        0 => None,
        1 => Some(ty.name().to_ascii_uppercase()),
        _ => Some(ty.name().to_string()),
    };
    let load = if g.chance(0.04) {
        format!("load missing-{file}")
    } else {
        format!("load {file}")
    };
    let (opt, body) = if rep {
        // The case's value with a reputation; the rule compares it with `want`.
        let r: u32 = g.pick(&[0, 1, 5, 100, 65534, 65535]);
        let op = g.pick(&[">", "<", ">=", "<=", "==", "=", "!="]);
        let holds = |want: u64| match op {
            ">" => u64::from(r) > want,
            "<" => (u64::from(r)) < want,
            ">=" => u64::from(r) >= want,
            "<=" => u64::from(r) <= want,
            _ => u64::from(r) == want,
        };
        // A value at the reputation or one off, chosen to hold or not as the intent
        // asks when one of them does.
        let cands: Vec<u64> = [
            u64::from(r),
            u64::from(r) + 1,
            u64::from(r).saturating_sub(1),
            if g.chance(0.05) { 65536 } else { u64::from(r) },
        ]
        .into_iter()
        .collect();
        let pick: Vec<u64> = cands.iter().copied().filter(|&w| holds(w) == hit).collect();
        let want = if pick.is_empty() {
            g.pick(&cands)
        } else {
            g.pick(&pick)
        };
        let in_list = hit || g.chance(0.5);
        if in_list {
            values.insert(g.size(0, values.len()), value.clone());
        }
        let body: String = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let rr = if *v == value { r } else { (i as u32 * 7) % 50 };
                format!("{},{rr}\n", ty.line(v))
            })
            .collect();
        let mut parts = vec![set.clone(), op.to_string(), want.to_string()];
        if let Some(t) = typ {
            parts.push(format!("type {t}"));
        }
        parts.push(load);
        parts.extend(mods);
        (format!("datarep:{};", parts.join(",")), body)
    } else {
        let op = match g.size(0, 29) {
            0 => "ISSET",
            1 => "unset",
            n if n < 13 => "isset",
            n if n < 22 => "isnotset",
            _ => "set",
        };
        // `isset` hits with the value listed; `isnotset` and `set` without it.
        let listed = match op {
            "isset" | "ISSET" | "unset" => hit,
            _ => !hit,
        };
        if listed {
            values.insert(g.size(0, values.len()), value.clone());
        }
        let mut body: String = values.iter().map(|v| format!("{}\n", ty.line(v))).collect();
        if ty == Ty::Str && g.chance(0.04) {
            body.push_str("not base64!\n");
        }
        let mut parts = vec![op.to_string(), set.clone()];
        if let Some(t) = typ {
            parts.push(format!("type {t}"));
        }
        parts.push(load);
        parts.extend(mods);
        if g.chance(0.2) {
            // The options after the name in another order.
            let tail = parts.split_off(2);
            let mut tail = tail;
            tail.reverse();
            parts.extend(tail);
        }
        (format!("dataset:{};", parts.join(",")), body)
    };
    let mut f = Flow::new(g.index, v6, 53);
    let id = 0x1000 + (g.index & 0xfff) as u16;
    f.udp(true, &dns::message(id, &labels, 1, false));
    f.udp(false, &dns::message(id, &labels, 1, true));
    let proto = match ty {
        Ty::Ipv4 | Ty::Ip => g.pick(&["udp", "ip", "dns"]),
        _ => "dns",
    };
    let mut s = base(
        &format!("{}-{}", if rep { "datarep" } else { "dataset" }, ty.name()),
        intent,
        v6,
        L4::Udp,
        proto,
    );
    s.opts = format!("{buffer} {opt}");
    s.files = vec![(file, body.into_bytes())];
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_written_and_rules_parse() {
        let mut rng = gen::rng::Rng::new(5);
        let mut ok = 0;
        let mut kinds = std::collections::BTreeSet::new();
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = lists(&mut g);
            assert_eq!(s.files.len(), 1);
            assert!(s.files[0].0.starts_with(&format!("dt{index}")));
            assert!(s.opts.contains(&format!("dt{index}")));
            kinds.insert(s.template.clone());
            let c = crate::case::Case {
                index,
                addrs: Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
        }
        assert_eq!(kinds.len(), 10, "{kinds:?}");
        // Edge forms Suricata refuses are written on purpose (operators, values, types).
        assert!(ok > 150, "{ok}");
    }

    #[test]
    fn list_lines_by_type() {
        assert_eq!(Ty::Str.line(b"a.com"), "YS5jb20=");
        assert_eq!(Ty::Md5.line(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(Ty::Ip.line(b"fd00::1"), "fd00::1");
    }
}

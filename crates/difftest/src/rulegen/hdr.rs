//! Header sticky buffers: `ipv4.hdr`, `ipv6.hdr`, `tcp.hdr`, `udp.hdr`, `icmpv4.hdr`,
//! `icmpv6.hdr`, `ip.src`, `ip.dst` with `content` (`offset`/`depth` on the field, at the
//! header's end and past it, `startswith`/`endswith`), `bsize` (every operator around the
//! header's length) and `byte_test` (big and little endian) on a field only the client's
//! data packet carries (its IP identification or TTL, hop limit, TCP window, UDP length,
//! ICMP type), or the case's addresses.

use super::{base, content_text, Family, Gen};
use crate::case::{Intent, Spec, L4};

/// Header buffers with content, bsize and byte_test.
pub const HDR: Family = Family {
    name: "hdr",
    keywords: &[
        "ipv4.hdr",
        "ipv6.hdr",
        "tcp.hdr",
        "udp.hdr",
        "icmpv4.hdr",
        "icmpv6.hdr",
        "ip.src",
        "ip.dst",
        "content",
        "offset",
        "depth",
        "bsize",
        "byte_test",
        "startswith",
        "endswith",
    ],
    weight: 6,
    make: hdr,
};

/// The buffer a case inspects: its keyword, its length in the data packet, and the field
/// the rule looks at (offset, bytes).
struct Target {
    kw: &'static str,
    len: usize,
    at: usize,
    field: Vec<u8>,
}

/// Picks the buffer and sets the data packet's fields so that the field is its own.
fn target(g: &mut Gen<'_>, s: &mut Spec, addrs: &crate::case::Addrs) -> Target {
    let v6 = s.v6;
    let kind = g.pick(&["ip", "ip", "l4", "l4", "addr"]);
    match (kind, s.l4) {
        ("ip", _) if v6 => {
            let ttl = g.num(100, 250) as u8;
            s.tweaks.ip.ttl = ttl;
            Target {
                kw: "ipv6.hdr",
                len: 40,
                at: 7,
                field: vec![ttl],
            }
        }
        ("ip", _) => {
            if g.chance(0.5) {
                let id = g.num(1000, 60000) as u16;
                s.tweaks.ip.id = id;
                Target {
                    kw: "ipv4.hdr",
                    len: 20,
                    at: 4,
                    field: id.to_be_bytes().to_vec(),
                }
            } else {
                let ttl = g.num(100, 250) as u8;
                s.tweaks.ip.ttl = ttl;
                Target {
                    kw: "ipv4.hdr",
                    len: 20,
                    at: 8,
                    field: vec![ttl],
                }
            }
        }
        ("l4", L4::Tcp) => {
            let w = g.num(1000, 60000) as u16;
            s.tweaks.window = Some(w);
            Target {
                kw: "tcp.hdr",
                len: 20,
                at: 14,
                field: w.to_be_bytes().to_vec(),
            }
        }
        ("l4", L4::Udp) => Target {
            kw: "udp.hdr",
            len: 8,
            at: 4,
            field: ((8 + s.payload.len()) as u16).to_be_bytes().to_vec(),
        },
        ("l4", L4::Icmp) => Target {
            kw: if v6 { "icmpv6.hdr" } else { "icmpv4.hdr" },
            len: 8,
            at: 0,
            field: vec![if v6 { 128 } else { 8 }],
        },
        _ => {
            let src = g.chance(0.5);
            let a = if src { addrs.client } else { addrs.server };
            let field = match a {
                std::net::IpAddr::V4(x) => x.octets().to_vec(),
                std::net::IpAddr::V6(x) => x.octets().to_vec(),
            };
            Target {
                kw: if src { "ip.src" } else { "ip.dst" },
                len: field.len(),
                at: 0,
                field,
            }
        }
    }
}

/// The field with its last byte moved by two (never another packet's value: the ranges
/// drawn above keep clear of the defaults).
fn spoil(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    if let Some(l) = v.last_mut() {
        *l = l.wrapping_add(2);
    }
    v
}

fn hdr(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let h = intent == Intent::Hit;
    let v6 = g.v6();
    let (l4, proto) = match g.size(0, 4) {
        0 | 1 => (L4::Tcp, "tcp"),
        2 | 3 => (L4::Udp, "udp"),
        _ => (L4::Icmp, "icmp"),
    };
    let op = g.pick(&["content", "content", "depth", "edge", "bsize", "byte_test"]);
    let mut s = base(op, intent, v6, l4, proto);
    let n = g.size(4, 60);
    s.payload = g.filler(n);
    let addrs = crate::case::Addrs::of(g.index, v6);
    let t = target(g, &mut s, &addrs);
    s.template = format!("{}/{op}", t.kw);
    if g.chance(0.25) {
        s.proto = "ip";
    }
    let (at, fl) = (t.at, t.field.len());
    let val = |hit: bool| {
        content_text(&if hit {
            t.field.clone()
        } else {
            spoil(&t.field)
        })
    };
    let body = match op {
        "content" => {
            // The field at its offset; a miss moves the offset or spoils the value.
            let move_off = !h && g.chance(0.5);
            let off = if move_off { at + 1 } else { at };
            let c = val(h || move_off);
            match g.size(0, 2) {
                0 => format!("content:\"{c}\"; offset:{off}; depth:{fl};"),
                1 => format!("content:\"{c}\"; offset:{off};"),
                _ if at == 0 && !move_off => format!("content:\"{c}\"; startswith;"),
                _ if at + fl == t.len && !move_off => format!("content:\"{c}\"; endswith;"),
                _ => format!("content:\"{c}\"; offset:{off}; depth:{};", fl + 1),
            }
        }
        "depth" => {
            // The field's end as the depth: a miss stops one byte short.
            let d = if h { at + fl } else { at + fl - 1 };
            if d < fl {
                // A depth shorter than the content is refused: miss by the offset.
                format!("content:\"{}\"; offset:{}; depth:{fl};", val(true), at + 1)
            } else {
                format!("content:\"{}\"; depth:{d};", val(true))
            }
        }
        "edge" => {
            // Offsets at the end of the header and past it, with the header's last bytes.
            let last = t.len.min(4);
            let whole = data_header(&s, &t, g.index);
            let bytes = &whole[t.len - last..];
            let off = t.len - last + usize::from(!h) * g.size(1, 3);
            format!("content:\"{}\"; offset:{off};", content_text(bytes))
        }
        "bsize" => {
            let len = t.len as i64;
            let d = i64::from(!h);
            let bop = g.pick(&["eq", "lt", "gt", "le", "ge", "range"]);
            let b = match bop {
                "eq" => format!("bsize:{};", len + d),
                "lt" => format!("bsize:<{};", len + 1 - d),
                "gt" => format!("bsize:>{};", len - 1 + d),
                "le" => format!("bsize:<={};", len - d),
                "ge" => format!("bsize:>={};", len + d),
                _ => format!("bsize:{}<>{};", len - 1 + d, len + 1 + d),
            };
            if (h || matches!(bop, "eq" | "gt" | "ge")) && g.chance(0.5) {
                // After a content on the field: both must hold (a size below the
                // content's length would be refused, as in Suricata).
                format!("content:\"{}\"; offset:{at}; {b}", val(true))
            } else {
                b
            }
        }
        _ => {
            // At most the field's last four bytes (an IPv6 address's low half).
            let (at, field) = if fl > 4 {
                (at + fl - 4, t.field[fl - 4..].to_vec())
            } else {
                (at, t.field.clone())
            };
            let fl = field.len();
            let little = fl > 1 && g.chance(0.3);
            let v = field.iter().fold(0u64, |a, &b| a << 8 | u64::from(b));
            let v = if little {
                field.iter().rev().fold(0u64, |a, &b| a << 8 | u64::from(b))
            } else {
                v
            };
            let max = (1u64 << (8 * fl)) - 1;
            let bop = g.pick(&["=", "<", ">", "<=", ">=", "!=", "&"]);
            let cmp = match (bop, h) {
                ("=", true) | ("<=", true) | (">=", true) | ("!=", false) => v,
                ("=", false) | ("!=", true) => v + 1,
                ("<", true) | (">=", false) => v + 1,
                ("<", false) | (">", false) => v,
                (">", true) | ("<=", false) => v - 1,
                (_, true) => v,
                _ => !v & max,
            };
            let end = if little { ",little" } else { "" };
            format!("byte_test:{fl},{bop},{cmp},{at}{end};")
        }
    };
    s.opts = format!("{}; {body}", t.kw);
    s
}

/// The data packet's header bytes the buffer `t` holds, taken from the case's frames
/// (the client's packet with the payload: the fourth of a TCP flow, the first else).
fn data_header(s: &Spec, t: &Target, index: u32) -> Vec<u8> {
    let c = crate::case::Case {
        index,
        addrs: crate::case::Addrs::of(index, s.v6),
        spec: s.clone(),
    };
    let frames = c.frames(0);
    let k = if s.l4 == L4::Tcp { 3 } else { 0 };
    let f = &frames[k].1;
    let (l3, ip_len) = (14, if s.v6 { 40 } else { 20 });
    let start = match t.kw {
        "ipv4.hdr" | "ipv6.hdr" => l3,
        "ip.src" => l3 + if s.v6 { 8 } else { 12 },
        "ip.dst" => l3 + if s.v6 { 24 } else { 16 },
        _ => l3 + ip_len,
    };
    f[start..start + t.len].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn the_field_is_in_the_data_packet_and_rules_parse() {
        let mut rng = Rng::new(5);
        let mut kws = std::collections::HashSet::new();
        for index in 0..600 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let v6 = g.v6();
            let l4 = g.pick(&[L4::Tcp, L4::Udp, L4::Icmp]);
            let mut s = base("t", Intent::Hit, v6, l4, "ip");
            s.payload = g.filler(9);
            let t = target(&mut g, &mut s, &crate::case::Addrs::of(index, v6));
            let h = data_header(&s, &t, index);
            assert_eq!(h[t.at..t.at + t.field.len()], t.field[..], "{}", t.kw);
            kws.insert(t.kw);
            let s = hdr(&mut g);
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            assert!(rules::parse_rule(&c.rule()).is_ok(), "{}", c.rule());
        }
        assert_eq!(kws.len(), 8, "{kws:?}");
    }
}

//! DNS edge cases beyond [`super::dns`]: several messages in one TCP segment, the TCP
//! length prefix alone in a segment (split inside it), a TCP prefix announcing more than
//! the connection carries, UDP messages cut inside the header, the question or the
//! answer, compression pointers that loop (to themselves, to each other, forward), every
//! opcode (query, iquery, status, notify, update, unassigned) with `dns.opcode` and its
//! negation, and `dns.query` contents with `nocase` and `fast_pattern` (plain, `only`,
//! offset and length) next to a second content.

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// DNS edge cases.
pub const DNSEDGE: Family = Family {
    name: "dnsedge",
    keywords: &[
        "dns.query",
        "dns_query",
        "dns.opcode",
        "content",
        "nocase",
        "fast_pattern",
        "depth",
        "offset",
        "distance",
        "within",
        "isdataat",
        "flow",
    ],
    weight: 4,
    make: dnsedge,
};

/// Encodes `labels` as a DNS name (length-prefixed labels and the root).
fn name(labels: &[Vec<u8>]) -> Vec<u8> {
    let mut n = Vec::new();
    for l in labels {
        n.push(l.len() as u8);
        n.extend_from_slice(l);
    }
    n.push(0);
    n
}

/// A message: `id`, flags word, one question `qname` (already encoded), `answers`
/// A records whose owner is a pointer to the question, `tail` appended as is.
fn message(id: u16, flags: u16, qname: &[u8], qtype: u16, answers: u16) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&id.to_be_bytes());
    m.extend_from_slice(&flags.to_be_bytes());
    m.extend_from_slice(&[0, 1]);
    m.extend_from_slice(&answers.to_be_bytes());
    m.extend_from_slice(&[0, 0, 0, 0]);
    m.extend_from_slice(qname);
    m.extend_from_slice(&qtype.to_be_bytes());
    m.extend_from_slice(&[0, 1]);
    for i in 0..answers {
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2]);
        m.push(1 + i as u8);
    }
    m
}

/// The flags word of a query with `opcode` (RD set).
fn query_flags(opcode: u8) -> u16 {
    (u16::from(opcode & 0xf) << 11) | 0x0100
}

/// The flags word of the answer to a query with `opcode`.
fn answer_flags(opcode: u8) -> u16 {
    0x8000 | (u16::from(opcode & 0xf) << 11) | 0x0180
}

/// `m` with TCP's two-byte length prefix.
fn prefixed(m: &[u8]) -> Vec<u8> {
    let mut v = (m.len() as u16).to_be_bytes().to_vec();
    v.extend_from_slice(m);
    v
}

/// The labels of a random name of one to three labels from needle letters.
fn labels(g: &mut Gen<'_>) -> Vec<Vec<u8>> {
    (0..g.size(1, 3))
        .map(|_| {
            let n = g.size(3, 10);
            g.needle(n)
        })
        .collect()
}

/// The dotted text of `labels`.
fn dotted(labels: &[Vec<u8>]) -> Vec<u8> {
    labels.join(&b'.')
}

/// A TCP DNS conversation: the client's byte runs (one segment each), then the server's,
/// then the FIN exchange.
fn tcp_conv(f: &mut Flow, client: &[Vec<u8>], server: &[Vec<u8>]) {
    let (ci, si) = (17_000u32, 23_000u32);
    f.handshake(ci, si);
    let (mut c, mut s) = (ci + 1, si + 1);
    for p in client.iter().filter(|p| !p.is_empty()) {
        f.tcp(true, c, s, PSH | ACK, &[], p);
        c += p.len() as u32;
    }
    for p in server.iter().filter(|p| !p.is_empty()) {
        f.tcp(false, s, c, PSH | ACK, &[], p);
        s += p.len() as u32;
    }
    f.tcp(true, c, s, ACK, &[], &[]);
    f.close(c, s);
}

/// A `dns.query` condition on `q` (the dotted name the query carries): a content of the
/// whole name or a piece, with `nocase` (on an uppercased content) and a `fast_pattern`
/// form, sometimes with a second content after it.
fn query_cond(g: &mut Gen<'_>, q: &[u8], hit: bool) -> String {
    let kw = g.pick(&["dns.query", "dns.query", "dns_query"]);
    let n = q.len();
    let (a, b) = match g.size(0, 2) {
        0 => (0, n),
        1 => (0, n.min(4)),
        _ => {
            let a = g.size(0, n.saturating_sub(3));
            (a, (a + 3).min(n))
        }
    };
    let nocase = g.chance(0.5);
    let mut piece = q[a..b].to_vec();
    if nocase {
        piece = piece.to_ascii_uppercase();
    }
    let two = n - b >= 3 && g.chance(0.4);
    let spoil_first = !hit && (!two || g.chance(0.5));
    let first = if spoil_first { spoil(&piece) } else { piece };
    let fp = match g.size(0, 4) {
        0 => "",
        1 => " fast_pattern;",
        2 if !two => " fast_pattern:only;",
        3 if first.len() >= 2 => " fast_pattern:0,2;",
        _ => " fast_pattern;",
    };
    let nc = if nocase { " nocase;" } else { "" };
    let mut text = format!("{kw}; content:\"{}\";{nc}{fp}", content_text(&first));
    if a == 0 && b == n && g.chance(0.3) {
        text.push_str(" isdataat:!1,relative;");
    }
    if two {
        let tail = &q[n - 3..];
        let t = if !hit && !spoil_first {
            spoil(tail)
        } else {
            tail.to_vec()
        };
        let gap = n - 3 - b;
        let rel = match g.size(0, 2) {
            0 => format!(" distance:{gap};"),
            1 => format!(" distance:0; within:{};", gap + 3),
            _ => String::new(),
        };
        text.push_str(&format!(" content:\"{}\";{rel}", content_text(&t)));
    }
    text
}

fn dnsedge(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "tcp-multi",
        "tcp-prefix-split",
        "tcp-short",
        "udp-cut",
        "ptr-loop",
        "opcode",
        "query-nocase-fp",
    ]);
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let tcp = match variant {
        "tcp-multi" | "tcp-prefix-split" | "tcp-short" => true,
        "udp-cut" => false,
        _ => g.chance(0.4),
    };
    let (l4, proto) = if tcp {
        (L4::Tcp, "tcp")
    } else {
        (L4::Udp, "udp")
    };
    let mut s = base(variant, intent, v6, l4, proto);
    if !variant.starts_with("tcp") && !variant.starts_with("udp") {
        s.template = format!("{}-{variant}", if tcp { "tcp" } else { "udp" });
    }
    s.tweaks.dport = Some(53);
    s.proto = if g.chance(0.6) { "dns" } else { proto };
    let mut f = Flow::new(g.index, v6, 53);
    let id = g.num(1, 0xfff0) as u16;
    let qtype = g.pick(&[1u16, 28, 16, 15, 255]);
    let ls = labels(g);
    let q = dotted(&ls);
    let flow = match g.size(0, 2) {
        0 => "",
        1 => "flow:to_server; ",
        _ => "flow:established,to_server; ",
    };
    let mut opts = query_cond(g, &q, hit);
    match variant {
        "tcp-multi" => {
            // Two or three queries (distinct ids and names) in one segment, the rule's
            // name at a random place; the answers also together.
            let k = g.size(2, 3);
            let at = g.size(0, k - 1);
            let mut seg = Vec::new();
            let mut resp = Vec::new();
            for i in 0..k {
                let other = labels(g);
                let l = if i == at { &ls } else { &other };
                let n = name(l);
                seg.extend(prefixed(&message(
                    id.wrapping_add(i as u16),
                    query_flags(0),
                    &n,
                    qtype,
                    0,
                )));
                resp.extend(prefixed(&message(
                    id.wrapping_add(i as u16),
                    answer_flags(0),
                    &n,
                    qtype,
                    1,
                )));
            }
            // Sometimes the last message spills into a second segment.
            let parts = if g.chance(0.3) {
                let cut = g.size(seg.len() - 8, seg.len() - 1);
                vec![seg[..cut].to_vec(), seg[cut..].to_vec()]
            } else {
                vec![seg.clone()]
            };
            tcp_conv(&mut f, &parts, &[resp]);
            s.payload = seg;
        }
        "tcp-prefix-split" => {
            let n = name(&ls);
            let m = message(id, query_flags(0), &n, qtype, 0);
            let p = prefixed(&m);
            let parts = match g.size(0, 2) {
                0 => vec![p[..1].to_vec(), p[1..].to_vec()],
                1 => vec![p[..1].to_vec(), p[1..2].to_vec(), p[2..].to_vec()],
                _ => vec![p[..2].to_vec(), p[2..].to_vec()],
            };
            let r = prefixed(&message(id, answer_flags(0), &n, qtype, 1));
            tcp_conv(&mut f, &parts, &[r]);
            s.payload = p;
        }
        "tcp-short" => {
            // The prefix announces 1 to 20 bytes more than the client sends.
            let n = name(&ls);
            let m = message(id, query_flags(0), &n, qtype, 0);
            let extra = g.size(1, 20);
            let mut p = ((m.len() + extra) as u16).to_be_bytes().to_vec();
            p.extend_from_slice(&m);
            let answered = g.chance(0.3);
            let server = if answered {
                vec![prefixed(&message(id, answer_flags(0), &n, qtype, 1))]
            } else {
                Vec::new()
            };
            tcp_conv(&mut f, &[p.clone()], &server);
            s.payload = p;
        }
        "udp-cut" => {
            // The query cut in its header or question, or whole with the answer cut.
            let n = name(&ls);
            let m = message(id, query_flags(0), &n, qtype, 0);
            let a = message(id, answer_flags(0), &n, qtype, 1);
            if g.chance(0.5) {
                // Then nothing, the whole query again, or the answer.
                let keep = g.size(0, m.len() - 1);
                f.udp(true, &m[..keep]);
                match g.size(0, 2) {
                    0 => {}
                    1 => f.udp(true, &m),
                    _ => f.udp(false, &a),
                }
                s.payload = m[..keep].to_vec();
            } else {
                f.udp(true, &m);
                let keep = g.size(1, a.len() - 1);
                f.udp(false, &a[..keep]);
                s.payload = m;
            }
        }
        "ptr-loop" => {
            // A question whose name ends in a pointer: to itself, to the start of the
            // name (a loop through the labels), forward past the message, or (the
            // control) a valid pointer-free name.
            let mut n = Vec::new();
            for l in &ls {
                n.push(l.len() as u8);
                n.extend_from_slice(l);
            }
            let kind = g.size(0, 3);
            let here = 12 + n.len();
            match kind {
                0 => n.extend_from_slice(&[0xc0 | (here >> 8) as u8, here as u8]),
                1 => n.extend_from_slice(&[0xc0, 12]),
                2 => n.extend_from_slice(&[0xc0, 0xff]),
                _ => n.push(0),
            }
            s.template
                .push_str(["-self", "-start", "-forward", "-none"][kind]);
            let m = message(id, query_flags(0), &n, qtype, 0);
            if tcp {
                tcp_conv(&mut f, &[prefixed(&m)], &[]);
            } else {
                f.udp(true, &m);
            }
            s.payload = m;
            // Raw content on the first label too, so a rule can match what the
            // parser refuses.
            if g.chance(0.4) {
                let l = &ls[0];
                let c = if hit { l.clone() } else { spoil(l) };
                opts = format!("content:\"{}\";", content_text(&c));
            }
        }
        "opcode" => {
            let op = g.num(0, 15) as u8;
            let n = name(&ls);
            let m = message(id, query_flags(op), &n, qtype, 0);
            let answered = g.chance(0.6);
            let a = message(id, answer_flags(op), &n, qtype, u16::from(op == 0));
            if tcp {
                let server = if answered { vec![prefixed(&a)] } else { vec![] };
                tcp_conv(&mut f, &[prefixed(&m)], &server);
            } else {
                f.udp(true, &m);
                if answered {
                    f.udp(false, &a);
                }
            }
            s.payload = m;
            let val = if hit {
                op
            } else {
                g.pick(&[(op + 1) % 16, op.wrapping_sub(1) & 0xf])
            };
            opts = match g.size(0, 2) {
                0 => format!("dns.opcode:{val};"),
                1 => {
                    let other = if hit { (op + 3) % 16 } else { op };
                    format!("dns.opcode:!{other};")
                }
                _ => format!("dns.opcode:{val}; {opts}"),
            };
            if !hit && opts.contains("dns.query") {
                // Keep the miss a miss: the query condition as it matches, the opcode off.
                opts = format!("dns.opcode:{val};");
            }
            s.template.push_str(&format!("-{op}"));
        }
        _ => {
            // query-nocase-fp: the query name in mixed case on the wire.
            let mixed: Vec<Vec<u8>> = ls
                .iter()
                .map(|l| {
                    l.iter()
                        .map(|&c| {
                            if g.chance(0.5) {
                                c.to_ascii_uppercase()
                            } else {
                                c
                            }
                        })
                        .collect()
                })
                .collect();
            let n = name(&mixed);
            let m = message(id, query_flags(0), &n, qtype, 0);
            let a = message(id, answer_flags(0), &n, qtype, 1);
            if tcp {
                tcp_conv(&mut f, &[prefixed(&m)], &[prefixed(&a)]);
            } else {
                f.udp(true, &m);
                f.udp(false, &a);
            }
            s.payload = m;
            let mq = dotted(&mixed);
            opts = query_cond(g, &mq, hit);
        }
    }
    s.opts = format!("{flow}{opts}");
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_sit_in_the_flags_and_answers_point_at_the_question() {
        assert_eq!(query_flags(5) >> 11 & 0xf, 5);
        assert_eq!(answer_flags(4) & 0x8000, 0x8000);
        let n = name(&[b"ab".to_vec(), b"c".to_vec()]);
        assert_eq!(n, b"\x02ab\x01c\x00");
        let m = message(9, query_flags(0), &n, 1, 2);
        assert_eq!(&m[6..8], &[0, 2]);
        assert_eq!(m.len(), 12 + n.len() + 4 + 2 * 16);
        assert_eq!(prefixed(&m)[..2], (m.len() as u16).to_be_bytes());
    }

    #[test]
    fn every_variant_is_drawn_and_its_rule_parses() {
        let mut rng = gen::rng::Rng::new(5);
        let mut seen = std::collections::BTreeSet::new();
        for index in 0..400 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = dnsedge(&mut g);
            let v: Vec<&str> = s.template.splitn(3, '-').collect();
            seen.insert(v[..2].join("-"));
            let rule = format!("alert {} any any -> any any ({} sid:1;)", s.proto, s.opts);
            assert!(rules::parse_rule(&rule).is_ok(), "{rule}");
            assert!(!s.script.unwrap().is_empty());
        }
        assert!(seen.len() >= 10, "{seen:?}");
    }
}

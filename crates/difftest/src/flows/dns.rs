//! DNS over UDP and TCP, cut at any byte: a query (and, when it is whole, the answer)
//! over UDP port 53 or over TCP (two-byte length prefix, the message in one or two
//! segments) where the client's message stops at a random byte of the prefix or the
//! message. Rules: `dns.query` with content modifiers, a raw-packet content on the name,
//! `dns.opcode`, or two sticky-buffer conditions mixed with a raw content.

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// DNS messages cut at every byte.
pub const DNS: Family = Family {
    name: "dns",
    keywords: &[
        "dns.query",
        "dns_query",
        "dns.opcode",
        "content",
        "nocase",
        "startswith",
        "endswith",
        "depth",
        "offset",
        "pkt_data",
    ],
    weight: 4,
    make: dns,
};

/// A DNS message: header, one question for `labels`, and (`answer`) one A record.
pub fn message(id: u16, labels: &[Vec<u8>], qtype: u16, answer: bool) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&id.to_be_bytes());
    m.extend_from_slice(if answer { &[0x81, 0x80] } else { &[0x01, 0x00] });
    m.extend_from_slice(&[0, 1, 0, u8::from(answer), 0, 0, 0, 0]);
    for l in labels {
        m.push(l.len() as u8);
        m.extend_from_slice(l);
    }
    m.push(0);
    m.extend_from_slice(&qtype.to_be_bytes());
    m.extend_from_slice(&[0, 1]);
    if answer {
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
    }
    m
}

fn dns(g: &mut Gen<'_>) -> Spec {
    let tcp = g.chance(0.4);
    let variant = g.pick(&["query", "raw", "opcode", "mixed", "query-nocase"]);
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let (l4, proto) = if tcp {
        (L4::Tcp, "tcp")
    } else {
        (L4::Udp, "udp")
    };
    let cut_kind = g.pick(&["whole", "whole", "cut"]);
    let name = format!("{}-{}/{variant}", if tcp { "tcp" } else { "udp" }, cut_kind);
    let mut s = base(&name, intent, v6, l4, proto);
    s.tweaks.dport = Some(53);
    let mut f = Flow::new(g.index, v6, 53);
    let mut labels: Vec<Vec<u8>> = Vec::new();
    for _ in 0..g.size(1, 3) {
        let n = g.size(3, 12);
        labels.push(g.needle(n));
    }
    let qname = labels
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect::<Vec<_>>()
        .join(".");
    let id = g.num(1, 0xfffe) as u16;
    let qtype = g.pick(&[1u16, 28, 16, 15]);
    let q = message(id, &labels, qtype, false);
    // The client's bytes (with TCP's length prefix) and where they stop.
    let mut wire_q = Vec::new();
    if tcp {
        wire_q.extend_from_slice(&(q.len() as u16).to_be_bytes());
    }
    wire_q.extend_from_slice(&q);
    let whole = cut_kind == "whole";
    let keep = if whole {
        wire_q.len()
    } else {
        g.size(0, wire_q.len() - 1)
    };
    let sent = &wire_q[..keep];
    let answer = message(id, &labels, qtype, true);
    if tcp {
        let (ci, si) = (7000u32, 11000u32);
        f.handshake(ci, si);
        let (c0, s0) = (ci + 1, si + 1);
        let mut c = c0;
        if !sent.is_empty() {
            let split = if sent.len() > 2 && g.chance(0.4) {
                g.size(1, sent.len() - 1)
            } else {
                sent.len()
            };
            for part in [&sent[..split], &sent[split..]] {
                if !part.is_empty() {
                    f.tcp(true, c, s0, PSH | ACK, &[], part);
                    c += part.len() as u32;
                }
            }
        }
        let mut sv = s0;
        if whole {
            let mut r = (answer.len() as u16).to_be_bytes().to_vec();
            r.extend_from_slice(&answer);
            f.tcp(false, s0, c, PSH | ACK, &[], &r);
            sv += r.len() as u32;
        }
        f.tcp(false, sv, c, ACK, &[], &[]);
        f.close(c, sv);
    } else {
        f.udp(true, sent);
        if whole {
            f.udp(false, &answer);
        }
    }
    let qn = qname.as_bytes();
    s.proto = if g.chance(0.5) { "dns" } else { proto };
    s.opts = match variant {
        "query" => {
            let (buf, m) = match g.size(0, 3) {
                0 => (qn.to_vec(), " startswith; endswith;"),
                1 => (qn[..qn.len().min(4)].to_vec(), " startswith;"),
                2 => (qn[qn.len().saturating_sub(3)..].to_vec(), " endswith;"),
                _ => (qn.to_vec(), ""),
            };
            let c = if hit { buf } else { spoil(&buf) };
            let kw = g.pick(&["dns.query", "dns_query"]);
            format!("{kw}; content:\"{}\";{m}", content_text(&c))
        }
        "query-nocase" => {
            let up = qn.to_ascii_uppercase();
            let c = if hit { up } else { spoil(&up) };
            format!("dns.query; content:\"{}\"; nocase;", content_text(&c))
        }
        "raw" => {
            let l = &labels[0];
            let c = if hit { l.clone() } else { spoil(l) };
            let off = if tcp { 15 } else { 13 };
            format!("content:\"{}\"; offset:{off};", content_text(&c))
        }
        "opcode" => format!("dns.opcode:{};", if hit { 0 } else { 1 }),
        _ => {
            // Two conditions in either order: the query's last label and a raw byte run.
            let last = labels.last().cloned().unwrap_or_default();
            let q = format!("dns.query; content:\"{}\"; endswith;", content_text(&last));
            let first = &labels[0];
            let raw_c = if hit { first.clone() } else { spoil(first) };
            let raw = format!("pkt_data; content:\"{}\";", content_text(&raw_c));
            if g.chance(0.5) {
                format!("{q} {raw}")
            } else {
                format!("{} {q}", raw.trim_start_matches("pkt_data; "))
            }
        }
    };
    s.payload = sent.to_vec();
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_one_question_and_the_answer_points_at_it() {
        let q = message(7, &[b"abc".to_vec(), b"de".to_vec()], 1, false);
        assert_eq!(&q[..6], &[0, 7, 1, 0, 0, 1]);
        assert_eq!(&q[12..20], b"\x03abc\x02de\x00");
        assert_eq!(q.len(), 12 + 8 + 4);
        let a = message(7, &[b"abc".to_vec()], 1, true);
        assert_eq!(a[7], 1);
        assert_eq!(&a[a.len() - 16..a.len() - 14], &[0xc0, 12]);
    }
}

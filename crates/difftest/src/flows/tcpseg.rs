//! TCP stream shapes: a client payload split over segments (the needle across a cut),
//! retransmitted with the same or other bytes, overlapping, out of order; RST and FIN in
//! several orders (data after a RST or after the FIN); midstream flows (no handshake),
//! one-sided flows (the server never seen); TCP Fast Open (data on the SYN, with the TFO
//! option or without, acknowledged by the SYN/ACK or not). The rule is a content with or
//! without a `flow` condition; it hits the payload or just misses it (last byte), and
//! over overlapping bytes it is the first copy (hit) or the second (miss).

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, FIN, PSH, RST, SYN};

/// TCP segmentation and stream shapes.
pub const TCPSEG: Family = Family {
    name: "tcpseg",
    keywords: &["content", "flow"],
    weight: 5,
    make: tcpseg,
};

const VARIANTS: &[&str] = &[
    "split",
    "retrans-same",
    "retrans-other",
    "overlap",
    "overlap-before",
    "out-of-order",
    "rst-then-data",
    "data-then-rst",
    "data-after-fin",
    "server-fin-first",
    "midstream",
    "one-sided",
    "tfo-acked",
    "tfo-unacked",
    "syn-data-no-option",
];

fn tcpseg(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(VARIANTS);
    let intent = g.intent();
    let v6 = g.v6();
    let mut s = base(variant, intent, v6, L4::Tcp, "tcp");
    let dport = 7000 + (g.index % 1000) as u16;
    s.tweaks.dport = Some(dport);
    let mut f = Flow::new(g.index, v6, dport);
    let len = g.size(24, 120);
    let mut payload = g.filler(len);
    let n = g.size(4, 10);
    let needle = g.needle(n);
    let cut = g.size(n, len - n);
    let at = cut - g.size(1, n - 1);
    payload[at..at + n].copy_from_slice(&needle);
    // Other bytes over the needle (for retransmissions and overlaps with other data).
    let other: Vec<u8> = needle.iter().rev().map(|c| c ^ 0x20).collect();
    let hit = intent == Intent::Hit;
    let other_data = matches!(variant, "retrans-other" | "overlap");
    // overlap-before: the later segment first, then one from the start with other bytes
    // up to the needle's end: the needle's part before the cut is other bytes either
    // way, its part after the cut is the old segment's (hit) or the new one's (miss).
    let before: Vec<u8> = other[..cut - at]
        .iter()
        .chain(if hit {
            &needle[cut - at..]
        } else {
            &other[cut - at..]
        })
        .copied()
        .collect();
    let content = match (other_data, hit) {
        _ if variant == "overlap-before" => before,
        (true, true) => needle.clone(),
        (true, false) => other.clone(),
        (false, true) => needle.clone(),
        (false, false) => spoil(&needle),
    };
    let (ci, si) = (1000u32 + g.index % 7, 5000u32);
    let total = len as u32;
    let (c0, s0) = (ci + 1, si + 1);
    let c_end = c0 + total;
    let (a, b) = (&payload[..cut], &payload[cut..]);
    let mut with_other = payload.clone();
    with_other[at..at + n].copy_from_slice(&other);
    let data = PSH | ACK;
    match variant {
        "split" | "retrans-same" | "retrans-other" | "overlap" | "out-of-order"
        | "overlap-before" => {
            f.handshake(ci, si);
            match variant {
                "overlap-before" => {
                    f.tcp(true, c0 + cut as u32, s0, data, &[], b);
                    f.tcp(true, c0, s0, data, &[], &with_other[..at + n]);
                }
                "out-of-order" => {
                    f.tcp(true, c0 + cut as u32, s0, data, &[], b);
                    f.tcp(true, c0, s0, data, &[], a);
                }
                "overlap" => {
                    // The second segment starts at the needle with other bytes there.
                    f.tcp(true, c0, s0, data, &[], a);
                    f.tcp(true, c0 + at as u32, s0, data, &[], &with_other[at..]);
                }
                _ => {
                    f.tcp(true, c0, s0, data, &[], a);
                    f.tcp(true, c0 + cut as u32, s0, data, &[], b);
                    if variant == "retrans-same" {
                        f.tcp(true, c0, s0, data, &[], a);
                    } else if variant == "retrans-other" {
                        f.tcp(true, c0, s0, data, &[], &with_other[..cut]);
                    }
                }
            }
            f.tcp(false, s0, c_end, ACK, &[], &[]);
            f.close(c_end, s0);
        }
        "rst-then-data" => {
            f.handshake(ci, si);
            f.tcp(false, s0, c0, RST | ACK, &[], &[]);
            f.tcp(true, c0, s0, data, &[], &payload);
            f.tcp(false, s0, c_end, ACK, &[], &[]);
        }
        "data-then-rst" => {
            f.handshake(ci, si);
            f.tcp(true, c0, s0, data, &[], a);
            f.tcp(true, c0 + cut as u32, s0, data, &[], b);
            f.tcp(true, c_end, s0, RST | ACK, &[], &[]);
        }
        "data-after-fin" => {
            f.handshake(ci, si);
            f.tcp(true, c0, s0, data, &[], a);
            f.tcp(true, c0 + cut as u32, s0, FIN | ACK, &[], &[]);
            f.tcp(true, c0 + cut as u32 + 1, s0, data, &[], b);
            f.tcp(false, s0, c0 + cut as u32 + 1, FIN | ACK, &[], &[]);
            f.tcp(true, c0 + cut as u32 + 1, s0 + 1, ACK, &[], &[]);
        }
        "server-fin-first" => {
            f.handshake(ci, si);
            f.tcp(true, c0, s0, data, &[], a);
            f.tcp(false, s0, c0 + cut as u32, FIN | ACK, &[], &[]);
            f.tcp(true, c0 + cut as u32, s0 + 1, data, &[], b);
            f.tcp(false, s0 + 1, c_end, ACK, &[], &[]);
            f.tcp(true, c_end, s0 + 1, FIN | ACK, &[], &[]);
            f.tcp(false, s0 + 1, c_end + 1, ACK, &[], &[]);
        }
        "midstream" => {
            let (c, sv) = (0x1234_0000u32 + g.index, 0x5678_0000u32);
            f.tcp(true, c, sv, data, &[], a);
            f.tcp(false, sv, c + cut as u32, ACK, &[], &[]);
            f.tcp(true, c + cut as u32, sv, data, &[], b);
            f.tcp(false, sv, c + total, ACK, &[], &[]);
            f.close(c + total, sv);
        }
        "one-sided" => {
            f.tcp(true, ci, 0, SYN, &[], &[]);
            f.tcp(true, c0, s0, ACK, &[], &[]);
            f.tcp(true, c0, s0, data, &[], a);
            f.tcp(true, c0 + cut as u32, s0, data, &[], b);
            f.tcp(true, c_end, s0, FIN | ACK, &[], &[]);
        }
        _ => {
            // TCP Fast Open: the SYN carries the payload.
            let tfo = if variant == "syn-data-no-option" {
                Vec::new()
            } else {
                vec![34, 10, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 1, 1]
            };
            f.tcp(true, ci, 0, SYN, &tfo, &payload);
            if variant == "tfo-unacked" {
                // The server takes the SYN but not its data; the client sends it again.
                f.tcp(false, si, c0, SYN | ACK, &[], &[]);
                f.tcp(true, c0, s0, ACK, &[], &[]);
                f.tcp(true, c0, s0, data, &[], &payload);
            } else {
                f.tcp(false, si, c_end, SYN | ACK, &[], &[]);
                f.tcp(true, c_end, s0, ACK, &[], &[]);
            }
            f.tcp(false, s0, c_end, ACK, &[], &[]);
            f.close(c_end, s0);
        }
    }
    let flow = g.pick(&[
        "",
        "",
        "flow:established;",
        "flow:to_server;",
        "flow:established,to_server;",
        "flow:stateless;",
        "flow:not_established;",
    ]);
    s.opts = format!("{flow}content:\"{}\";", content_text(&content)).replacen(
        ";content",
        "; content",
        1,
    );
    s.payload = payload;
    s.script = Some(f.frames);
    s
}

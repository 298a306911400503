//! IP fragments (IPv4 and IPv6): a UDP datagram, or the data segment of a TCP flow, cut
//! into fragments sent in order, in reverse, shuffled, tiny (8 bytes each), or with an
//! overlapping fragment carrying other bytes (a duplicate sent after or before the
//! original, or the next fragment starting 8 bytes early). The rule's content spans a
//! fragment boundary (hit) or differs in its last byte (miss); over an overlap it is the
//! original bytes (hit) or the overlapping fragment's (miss), so either reassembly
//! policy shows. The overlapping bytes are the original 16-bit words rotated, which keeps
//! the transport checksum right whichever copy wins.

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};

/// IP fragments.
pub const FRAG: Family = Family {
    name: "frag",
    keywords: &["content"],
    weight: 4,
    make: frag,
};

/// One fragment to send: byte offset in the fragmented part, its bytes, more-fragments.
struct Piece {
    offset: usize,
    data: Vec<u8>,
    more: bool,
}

fn pieces(l4: &[u8], size: usize) -> Vec<Piece> {
    let mut v = Vec::new();
    let mut off = 0;
    while off < l4.len() {
        let end = (off + size).min(l4.len());
        v.push(Piece {
            offset: off,
            data: l4[off..end].to_vec(),
            more: end < l4.len(),
        });
        off = end;
    }
    v
}

/// The 8 bytes at `at` with their 16-bit words rotated by one.
fn rotated(b: &[u8]) -> Vec<u8> {
    let mut v = b[2..].to_vec();
    v.extend_from_slice(&b[..2]);
    v
}

fn frag(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "inorder",
        "reverse",
        "shuffle",
        "tiny",
        "dup-after",
        "dup-before",
        "overlap-next",
    ]);
    let intent = g.intent();
    let v6 = g.v6();
    let udp = g.chance(0.6);
    let (l4, proto) = if udp {
        (L4::Udp, "udp")
    } else {
        (L4::Tcp, "tcp")
    };
    let mut s = base(variant, intent, v6, l4, proto);
    let dport = 7000 + (g.index % 1000) as u16;
    s.tweaks.dport = Some(dport);
    let mut f = Flow::new(g.index, v6, dport);
    let hdr = if udp { 8 } else { 20 };
    let size = if variant == "tiny" {
        8
    } else {
        8 * g.size(1, 4)
    };
    let len = g.size(40, 140);
    let mut payload = g.filler(len);
    // The needle: spanning a piece boundary, or exactly over an 8-byte overlap region.
    let overlap = variant.starts_with("dup") || variant == "overlap-next";
    let region = 8 * g.size((hdr + 8) / 8, (hdr + len - 8) / 8);
    let needle = g.needle(8);
    let content = if overlap {
        let at = region - hdr;
        payload[at..at + 8].copy_from_slice(&needle);
        if intent == Intent::Hit {
            needle.clone()
        } else {
            rotated(&needle)
        }
    } else {
        let boundary = size * g.size(1, (hdr + len - 4) / size).max(1);
        let n = g.size(2, 8);
        let at = boundary.saturating_sub(hdr + n / 2).min(len - n);
        payload[at..at + n].copy_from_slice(&needle[..n]);
        if intent == Intent::Hit {
            needle[..n].to_vec()
        } else {
            spoil(&needle[..n])
        }
    };
    let (ci, si) = (1000u32, 5000u32);
    if !udp {
        f.handshake(ci, si);
    }
    let bytes = f.l4(true, udp, ci + 1, si + 1, &payload);
    let mut ps = pieces(&bytes, size);
    let proto_num = if udp { 17 } else { 6 };
    let id = f.next_id();
    match variant {
        "reverse" => ps.reverse(),
        "shuffle" => {
            for i in (1..ps.len()).rev() {
                let j = g.size(0, i);
                ps.swap(i, j);
            }
        }
        "dup-after" | "dup-before" => {
            let alt = Piece {
                offset: region,
                data: rotated(&bytes[region..region + 8]),
                more: true,
            };
            // The original piece holding the region.
            let k = ps
                .iter()
                .position(|p| p.offset <= region && region < p.offset + p.data.len())
                .unwrap_or(0);
            let last = ps.len() - 1;
            let at = if variant == "dup-after" { k + 1 } else { k };
            // Never after the last piece: the datagram completes on the last one.
            ps.insert(at.min(last), alt);
        }
        _ => {
            // overlap-next: the piece after the region starts 8 bytes early with other bytes.
            let k = ps
                .iter()
                .position(|p| p.offset > region)
                .unwrap_or(ps.len());
            if k < ps.len() && k > 0 {
                let start = ps[k].offset - 8;
                let mut d = rotated(&bytes[start..start + 8]);
                d.extend_from_slice(&ps[k].data);
                ps[k].offset = start;
                ps[k].data = d;
            }
        }
    }
    for p in &ps {
        f.fragment(true, proto_num, id, p.offset, p.more, &p.data);
    }
    let n = payload.len() as u32;
    if udp {
        f.udp(false, b"ok");
    } else {
        f.tcp(false, si + 1, ci + 1 + n, wire::tcp_flags::ACK, &[], &[]);
        f.close(ci + 1 + n, si + 1);
    }
    s.opts = format!("content:\"{}\";", content_text(&content));
    s.payload = payload;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_datagram_and_only_the_last_is_final() {
        let b: Vec<u8> = (0..50).collect();
        let ps = pieces(&b, 16);
        assert_eq!(ps.len(), 4);
        assert!(ps[..3].iter().all(|p| p.more) && !ps[3].more);
        let joined: Vec<u8> = ps.iter().flat_map(|p| p.data.clone()).collect();
        assert_eq!(joined, b);
        let r = rotated(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(r, vec![3, 4, 5, 6, 7, 8, 1, 2]);
        assert_eq!(
            wire::checksum::checksum(&r),
            wire::checksum::checksum(&[1, 2, 3, 4, 5, 6, 7, 8])
        );
    }
}

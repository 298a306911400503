//! Encapsulations around a plain flow: 802.1Q, QinQ (outer TPID 0x88a8 or 0x8100),
//! IPv4/IPv6 in IPv4, GRE and Teredo (IPv6 in UDP 3544). The flow is a TCP conversation
//! (handshake, data, FIN exchange) or a UDP exchange; the rule names the inner addresses
//! (or, in `outer-*` variants, the tunnel's outer ones) with a content that hits or just
//! misses the payload.

use super::{outer_addrs, spoil, Encap, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// VLAN tags and tunnels.
pub const ENCAP: Family = Family {
    name: "encap",
    keywords: &["content"],
    weight: 3,
    make: encap,
};

fn encap(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&[
        "vlan",
        "qinq-88a8",
        "qinq-8100",
        "ipip",
        "gre",
        "teredo",
        "outer-gre",
        "outer-ipip",
    ]);
    let intent = g.intent();
    let v6 = variant == "teredo" || g.v6();
    let (l4, proto) = g.tcp_or_udp();
    let mut s = base(variant, intent, v6, l4, proto);
    let dport = 7000 + (g.index % 1000) as u16;
    s.tweaks.dport = Some(dport);
    let mut f = Flow::new(g.index, v6, dport);
    let vid = g.num(1, 4094) as u16;
    f.encap = match variant {
        "vlan" => Encap::Vlan(vid),
        "qinq-88a8" => Encap::QinQ(0x88a8, vid, g.num(1, 4094) as u16),
        "qinq-8100" => Encap::QinQ(0x8100, vid, g.num(1, 4094) as u16),
        "gre" | "outer-gre" => Encap::Gre,
        "teredo" => Encap::Teredo,
        _ => Encap::IpIp,
    };
    let len = g.size(8, 100);
    let n = g.size(3, 8);
    let needle = g.needle(n);
    let at = g.size(0, len - n);
    let mut payload = g.filler(len);
    payload[at..at + n].copy_from_slice(&needle);
    let content = if intent == Intent::Hit {
        needle
    } else {
        spoil(&needle)
    };
    if l4 == L4::Tcp {
        let (ci, si) = (3000u32, 9000u32);
        f.handshake(ci, si);
        f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], &payload);
        let end = ci + 1 + len as u32;
        f.tcp(false, si + 1, end, ACK, &[], &[]);
        f.close(end, si + 1);
    } else {
        f.udp(true, &payload);
        f.udp(false, b"ok");
    }
    if variant.starts_with("outer") {
        let (oc, os) = outer_addrs(g.index);
        s.proto = "ip";
        s.header = Some([oc.to_string(), "any".into(), os.to_string(), "any".into()]);
    }
    s.opts = format!("content:\"{}\";", content_text(&content));
    s.payload = payload;
    s.script = Some(f.frames);
    s
}

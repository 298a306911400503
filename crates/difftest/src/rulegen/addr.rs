//! Rule-header templates: IPv4 and IPv6 addresses as single hosts, CIDR blocks, lists,
//! nested lists and negations; ports as single values, ranges (open-ended and at the type
//! limits), lists and negations. Every header stays inside the case's own network, so a
//! rule can only match its own flow.

use std::net::IpAddr;

use super::{base, Family, Gen};
use crate::case::{Addrs, Intent, Spec};

fn start(g: &mut Gen<'_>, name: &str) -> (Spec, Addrs, bool) {
    let intent = g.intent();
    let v6 = g.v6();
    let (l4, proto) = g.tcp_or_udp();
    let mut s = base(name, intent, v6, l4, proto);
    s.payload = {
        let n = g.size(1, 20);
        g.filler(n)
    };
    if g.chance(0.3) {
        s.proto = "ip";
    }
    (s, Addrs::of(g.index, v6), intent == Intent::Hit)
}

fn cidr(a: IpAddr, bits: u8) -> String {
    format!("{a}/{bits}")
}

/// An address expression that contains `me` (hit) or not (miss), within `a`'s network.
fn address(g: &mut Gen<'_>, a: &Addrs, me: IpAddr, hit: bool) -> (&'static str, String) {
    let other = a.host(g.num(3, 250) as u8);
    let bits = a.net_bits();
    let host_bits = if a.net.is_ipv6() { 128 } else { 32 };
    let form = g.pick(&[
        "host",
        "cidr",
        "narrow",
        "list",
        "negated-in-list",
        "nested",
        "negated-list",
    ]);
    let text = match (form, hit) {
        ("host", true) => me.to_string(),
        ("host", false) => other.to_string(),
        ("cidr", true) => cidr(a.net, bits),
        ("cidr", false) => cidr(other, host_bits),
        // A /30 (/126) holding hosts .0-.3: the client (.1) and server (.2) are in it.
        ("narrow", true) => cidr(a.net, host_bits - 2),
        ("narrow", false) => cidr(a.host(4), host_bits - 2),
        ("list", true) => format!("[{other},{me}]"),
        ("list", false) => format!("[{other},{}]", a.host(251)),
        ("negated-in-list", true) => format!("[{},!{other}]", cidr(a.net, bits)),
        ("negated-in-list", false) => format!("[{},!{me}]", cidr(a.net, bits)),
        ("nested", true) => format!("[[{other},{me}],{}]", a.host(252)),
        ("nested", false) => format!("[[{other},{}],{}]", a.host(253), a.host(252)),
        ("negated-list", true) => format!("[{},![{other},{}]]", cidr(a.net, bits), a.host(254)),
        (_, _) => format!("[{},![{other},{me}]]", cidr(a.net, bits)),
    };
    (form, text)
}

/// Source and destination address expressions.
pub const ADDRESSES: Family = Family {
    name: "addr",
    keywords: &[],
    weight: 5,
    make: addresses,
};

fn addresses(g: &mut Gen<'_>) -> Spec {
    let (mut s, a, h) = start(g, "");
    let src_side = g.chance(0.5);
    let (form, text) = address(g, &a, if src_side { a.client } else { a.server }, h);
    s.template = format!("{}-{form}", if src_side { "src" } else { "dst" });
    s.header = Some(if src_side {
        [text, "any".into(), a.server.to_string(), "any".into()]
    } else {
        [a.client.to_string(), "any".into(), text, "any".into()]
    });
    s
}

/// Source and destination port expressions.
pub const PORTS: Family = Family {
    name: "port",
    keywords: &[],
    weight: 4,
    make: ports,
};

fn ports(g: &mut Gen<'_>) -> Spec {
    let (mut s, a, h) = start(g, "");
    if s.proto == "ip" {
        s.proto = if s.l4 == crate::case::L4::Tcp {
            "tcp"
        } else {
            "udp"
        };
    }
    let dport = match g.num(0, 4) {
        0 => 1,
        1 => 65535,
        _ => g.num(2, 65534) as u16,
    };
    s.tweaks.dport = Some(dport);
    let src_side = g.chance(0.3);
    let p = if src_side { a.sport } else { dport };
    let form = g.pick(&[
        "single",
        "range",
        "open-low",
        "open-high",
        "list",
        "negated",
        "negated-in-range",
        "full",
    ]);
    let lo = p.saturating_sub(g.num(0, 5) as u16);
    let hi = p.saturating_add(g.num(0, 5) as u16);
    let text = match (form, h) {
        ("single", true) => p.to_string(),
        ("single", false) => (if p == 65535 { p - 1 } else { p + 1 }).to_string(),
        ("range", true) => format!("{lo}:{hi}"),
        ("range", false) if p < 65535 => format!("{}:{}", p + 1, p.saturating_add(9).max(p + 1)),
        ("range", false) => format!("0:{}", p - 1),
        ("open-low", true) => format!(":{hi}"),
        ("open-low", false) if p > 0 => format!(":{}", p - 1),
        ("open-high", true) => format!("{lo}:"),
        ("open-high", false) if p < 65535 => format!("{}:", p + 1),
        ("list", true) => format!("[{},{p}]", p ^ 0x100),
        ("list", false) => format!("[{},{}]", p ^ 0x100, p ^ 0x200),
        ("negated", true) => format!("!{}", p ^ 1),
        ("negated", false) => format!("!{p}"),
        ("negated-in-range", true) => format!("[0:65535,!{}]", p ^ 1),
        ("negated-in-range", false) => format!("[0:65535,!{p}]"),
        ("full", true) => "0:65535".into(),
        _ => format!("!{p}"),
    };
    s.template = format!("{}-{form}", if src_side { "src" } else { "dst" });
    let (sp, dp) = if src_side {
        (text, "any".to_string())
    } else {
        ("any".to_string(), text)
    };
    s.header = Some([a.client.to_string(), sp, a.server.to_string(), dp]);
    s
}

//! Checksums: a TCP conversation (handshake, one data segment each way, the FIN
//! exchange), a UDP request and reply, or an ICMP/ICMPv6 echo and its reply, where the
//! client's data packet has its IPv4 header checksum or its transport checksum broken
//! (one bit off) or left correct. Rules: `ipv4-csum`, `tcpv4-csum`, `tcpv6-csum`,
//! `udpv4-csum`, `udpv6-csum`, `icmpv4-csum`, `icmpv6-csum` with `valid` or `invalid`
//! (and a few values in other cases or quoted), alone or after a content of the data
//! packet's payload; some on the other IP family's keyword (never matching there).

use super::Flow;
use crate::case::{Addrs, Intent, Spec, L4};
use crate::packet::{frame, IpFields, Transport};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// Broken and correct checksums of every layer.
pub const CSUM: Family = Family {
    name: "csum",
    keywords: &[
        "ipv4-csum",
        "tcpv4-csum",
        "tcpv6-csum",
        "udpv4-csum",
        "udpv6-csum",
        "icmpv4-csum",
        "icmpv6-csum",
        "content",
    ],
    weight: 3,
    make: csum,
};

/// Which checksum of a frame: the IPv4 header's or the transport's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    Ip,
    L4,
}

/// Flips one bit of the checksum of `layer` in Ethernet frame `f` (no VLAN tag; the IP
/// header without options or extension headers); a UDP/IPv4 checksum that would become
/// 0 (no checksum) gets another bit flipped instead.
fn spoil(f: &mut [u8], layer: Layer) {
    let v6 = f[12..14] == [0x86, 0xdd];
    let (l3, hlen, proto) = if v6 {
        (14, 40, f[14 + 6])
    } else {
        (14, usize::from(f[14] & 0x0f) * 4, f[14 + 9])
    };
    let at = match (layer, proto) {
        (Layer::Ip, _) => l3 + 10,
        (Layer::L4, 6) => l3 + hlen + 16,
        (Layer::L4, 17) => l3 + hlen + 6,
        (Layer::L4, _) => l3 + hlen + 2,
    };
    f[at + 1] ^= 0x01;
    if proto == 17 && f[at] == 0 && f[at + 1] == 0 {
        f[at + 1] = 0x01;
        f[at] = 0x01;
    }
}

fn csum(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let kw = g.pick(&[
        "ipv4-csum",
        "tcpv4-csum",
        "tcpv6-csum",
        "udpv4-csum",
        "udpv6-csum",
        "icmpv4-csum",
        "icmpv6-csum",
    ]);
    // The traffic of the keyword's family and protocol, or (one case in eight) of the
    // other family, which the keyword never matches.
    let cross = g.chance(0.125);
    let v6 = kw.ends_with("v6-csum") != cross;
    let l4 = match kw {
        "ipv4-csum" => g.pick(&[L4::Tcp, L4::Udp, L4::Icmp]),
        k if k.starts_with("tcp") => L4::Tcp,
        k if k.starts_with("udp") => L4::Udp,
        _ => L4::Icmp,
    };
    let layer = if kw == "ipv4-csum" {
        Layer::Ip
    } else {
        Layer::L4
    };
    let broken = g.chance(0.5);
    // The value that holds for the data packet, spelled in a few ways.
    let holds = if broken { "invalid" } else { "valid" };
    let other = if broken { "valid" } else { "invalid" };
    let value = if intent == Intent::Hit { holds } else { other };
    let spelled = match g.size(0, 9) {
        0 => value.to_ascii_uppercase(),
        1 => format!("\"{value}\""),
        2 => format!(" {value}"),
        _ => value.to_string(),
    };
    let n = g.size(4, 24);
    let payload = [g.needle(4), g.filler(n)].concat();
    let with_content = g.chance(0.5);
    let a = Addrs::of(g.index, v6);
    let mut f = Flow::new(g.index, v6, 7000 + (g.index % 1000) as u16);
    let proto = match l4 {
        L4::Tcp => "tcp",
        L4::Udp => "udp",
        L4::Icmp => "icmp",
    };
    let data_at;
    match l4 {
        L4::Tcp => {
            let (ci, si) = (5_000u32, 9_000u32);
            f.handshake(ci, si);
            data_at = f.frames.len();
            f.tcp(true, ci + 1, si + 1, PSH | ACK, &[], &payload);
            let c = ci + 1 + payload.len() as u32;
            f.tcp(false, si + 1, c, PSH | ACK, &[], b"ok");
            f.tcp(true, c, si + 3, ACK, &[], &[]);
            f.close(c, si + 3);
        }
        L4::Udp => {
            data_at = 0;
            f.udp(true, &payload);
            f.udp(false, b"ok");
        }
        L4::Icmp => {
            data_at = 0;
            let (req, rep) = if v6 { (128, 129) } else { (8, 0) };
            for (i, (src, dst, ty)) in [(a.client, a.server, req), (a.server, a.client, rep)]
                .into_iter()
                .enumerate()
            {
                let mut out = Vec::new();
                let ip = IpFields {
                    id: 300 + i as u16,
                    ..IpFields::default()
                };
                let t = Transport::Icmp {
                    ty,
                    code: 0,
                    rest: [0x12, 0x34, 0, 1],
                    payload: &payload,
                };
                frame(&mut out, src, dst, &ip, &t);
                f.frames.push(out);
            }
        }
    }
    if broken {
        spoil(&mut f.frames[data_at], layer);
    }
    let content = if with_content {
        format!("content:\"{}\"; ", content_text(&payload[..4]))
    } else {
        String::new()
    };
    let name = format!(
        "{kw}-{}{}{}",
        if broken { "broken" } else { "correct" },
        if with_content { "-content" } else { "" },
        if cross { "-cross" } else { "" }
    );
    let mut s = base(&name, intent, v6, l4, proto);
    s.opts = format!("{content}{kw}:{spelled};");
    s.payload = payload;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn spoiled_checksums_fail_and_others_stay_right() {
        let mut dec = wire::Decoder::new(wire::DecoderConfig {
            verify_checksums: true,
            ..wire::DecoderConfig::default()
        });
        let mut out = wire::Decoded::new();
        let mut rng = Rng::new(6);
        let mut seen_bad = 0;
        for index in 0..200 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = csum(&mut g);
            let broken = s.template.contains("broken");
            let frames = s.script.clone().unwrap();
            let mut bad = 0;
            for fr in &frames {
                dec.decode(
                    wire::LinkType::ETHERNET,
                    fr,
                    wire::Timestamp(1),
                    fr.len() as u32,
                    &mut out,
                );
                let flags = wire::flags::IP_CSUM_BAD | wire::flags::L4_CSUM_BAD;
                bad += out.packets().iter().filter(|p| p.has(flags)).count();
            }
            assert_eq!(bad, usize::from(broken), "case {index}: {}", s.template);
            seen_bad += bad;
            let c = crate::case::Case {
                index,
                addrs: Addrs::of(index, s.v6),
                spec: s,
            };
            assert!(rules::parse_rule(&c.rule()).is_ok(), "{}", c.rule());
        }
        assert!(seen_bad > 50);
    }
}

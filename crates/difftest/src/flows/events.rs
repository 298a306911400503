//! Decoder and stream anomalies for `decode-event`, `engine-event` and `stream-event`:
//! one flow of the case carries a packet built to raise an event (IPv4 and IPv6 headers
//! cut or inconsistent, bad IPv4 options and IPv6 extension headers, TCP/UDP/ICMP
//! headers too short or with bad lengths and options, unknown ICMP types and codes,
//! three VLAN tags, GRE versions and flags; TCP sessions with handshake anomalies,
//! data out of the window, overlaps with different data, RSTs and FINs with bad
//! numbers, data after the close). The rule names an event of the layer the packet
//! breaks (the one the packet is built for, or a neighbour), in each keyword's forms:
//! `decode-event:<layer>.<event>`, `engine-event:decoder.<layer>.<event>`,
//! `stream-event:<event>`, `engine-event:stream.<event>`, and forms Suricata refuses (a
//! bare name to `engine-event`, a stream event to `decode-event`, unknown names).
//!
//! Rules are on the case's own network (`/24` or `/64`, both directions), on the
//! tunnel's outer addresses for GRE, and (for packets whose IP header does not decode)
//! sometimes `pkthdr any any -> any any`, which also sees the other cases' events of the
//! same name: both engines get the same batch, so that is compared too.

use std::net::IpAddr;

use super::build::{self, ether, Seg};
use super::{Encap, Flow};
use crate::case::{Addrs, Intent, Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::checksum;
use wire::tcp_flags::{ACK, FIN, PSH, RST, SYN};

mod link;
mod stream;
use link::{gre, link};
use stream::{stream, stream_names};

/// Decoder and stream anomalies with the event keywords.
pub const EVENTS: Family = Family {
    name: "events",
    keywords: &["decode-event", "engine-event", "stream-event"],
    weight: 2,
    make: events,
};

/// What a variant wrote: its name, the events it is built to raise, the neighbours a
/// rule that just misses names, whether the event's packet has no decodable IP header,
/// and whether the rule should use the tunnel's outer addresses.
struct Made {
    name: &'static str,
    raises: &'static [&'static str],
    near: &'static [&'static str],
    undecoded: bool,
    outer: bool,
    stream: bool,
}

fn made(
    name: &'static str,
    raises: &'static [&'static str],
    near: &'static [&'static str],
) -> Made {
    Made {
        name,
        raises,
        near,
        undecoded: false,
        outer: false,
        stream: false,
    }
}

/// Recomputes an IPv4 header's checksum (header of `hlen` bytes at the start of `ip`).
fn v4_sum(ip: &mut [u8], hlen: usize) {
    ip[10] = 0;
    ip[11] = 0;
    let hlen = hlen.min(ip.len());
    let s = checksum::checksum(&ip[..hlen]);
    ip[10..12].copy_from_slice(&s.to_be_bytes());
}

/// An IPv4 header with `options` (padded to four bytes by the caller) and `body`.
fn v4_opts(f: &Flow, proto: u8, options: &[u8], body: &[u8]) -> Vec<u8> {
    let (IpAddr::V4(s), IpAddr::V4(d)) = (f.client, f.server) else {
        return Vec::new();
    };
    let hlen = 20 + options.len();
    let mut b = vec![0x40 | (hlen / 4) as u8, 0];
    b.extend_from_slice(&((hlen + body.len()) as u16).to_be_bytes());
    b.extend_from_slice(&[0x12, 0x34, 0x40, 0, 64, proto, 0, 0]);
    b.extend_from_slice(&s.octets());
    b.extend_from_slice(&d.octets());
    b.extend_from_slice(options);
    v4_sum(&mut b, hlen);
    b.extend_from_slice(body);
    b
}

/// The client's UDP datagram to the server, transport bytes only.
fn udp_body(f: &Flow, payload: &[u8]) -> Vec<u8> {
    build::udp(f.client, f.server, (f.sport, f.dport), payload)
}

/// A transport checksum recomputed over `l4` (`at`: the checksum's offset).
fn l4_sum(f: &Flow, proto: u8, l4: &mut [u8], at: usize) {
    if l4.len() < at + 2 {
        return;
    }
    l4[at] = 0;
    l4[at + 1] = 0;
    let p = match (f.client, f.server) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            checksum::pseudo_header_v4(&s.octets(), &d.octets(), proto, l4.len() as u32)
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            checksum::pseudo_header_v6(&s.octets(), &d.octets(), proto, l4.len() as u32)
        }
        _ => 0,
    };
    let s = if proto == 1 {
        checksum::checksum(l4)
    } else {
        checksum::compute_with_pseudo(p, l4)
    };
    l4[at..at + 2].copy_from_slice(&s.to_be_bytes());
}

/// An IPv6 packet from client to server whose payload is `body` after next header `nh`.
fn v6_raw(f: &Flow, nh: u8, body: &[u8]) -> Vec<u8> {
    let (IpAddr::V6(s), IpAddr::V6(d)) = (f.client, f.server) else {
        return Vec::new();
    };
    build::ipv6(s, d, nh, None, body)
}

/// IPv4 option sets, each with the events it is built for.
const V4_OPTS: &[(&[u8], &[&str])] = &[
    (&[0x99, 4, 0, 0], &["ipv4.opt_unknown"]),
    (&[0x07, 1, 0, 0], &["ipv4.opt_invalid_len"]),
    (&[0x07, 40, 4, 0], &["ipv4.opt_invalid_len"]),
    (&[0x94, 4, 0, 0, 0x94, 4, 0, 0], &["ipv4.opt_duplicate"]),
    (&[0x07, 7, 4, 0, 0, 0, 0, 0], &[]),
    (&[0x07, 7, 2, 0, 0, 0, 0, 0], &["ipv4.opt_malformed"]),
    (&[0x44, 12, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[]),
    (
        &[0x44, 12, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        &["ipv4.opt_malformed"],
    ),
    (&[0x44, 3, 5, 0], &["ipv4.opt_invalid_len"]),
    (&[0x83, 7, 4, 1, 2, 3, 4, 0], &[]),
    (&[0x89, 3, 4, 0], &["ipv4.opt_invalid_len"]),
    (&[0x82, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[]),
    (&[0x82, 5, 0, 0], &["ipv4.opt_malformed"]),
    (&[0x88, 4, 0, 1], &[]),
    (&[0x88, 3, 0, 1], &["ipv4.opt_invalid_len"]),
    (&[0x01, 0x01, 0x01, 0x01], &[]),
    (&[0x00, 0x99, 4, 0], &[]),
    (&[0x01, 0x02], &["ipv4.opt_invalid_len"]),
    (&[0x86, 8, 0, 0, 0, 0, 0, 0], &[]),
    (&[0x85, 4, 0, 0], &[]),
    (&[0x94, 0], &["ipv4.opt_invalid_len"]),
    (&[0x82, 2, 0, 0, 0, 0, 0, 0], &["ipv4.opt_invalid_len"]),
    (&[0x94, 5, 0, 0, 0, 0, 0, 0], &["ipv4.opt_invalid_len"]),
    (&[0x07, 7, 5, 0, 0, 0, 0, 0], &["ipv4.opt_malformed"]),
    (
        &[0x44, 12, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        &["ipv4.opt_malformed"],
    ),
    (
        &[0x94, 4, 0, 0, 0x94, 5, 0, 0, 0, 0, 0, 0],
        &["ipv4.opt_duplicate"],
    ),
    (&[0x86, 10, 0, 0, 0, 1, 1, 4, 0, 0], &[]),
    (&[0x86, 10, 0, 0, 0, 1, 3, 4, 0, 0], &["ipv4.opt_malformed"]),
    (
        &[0x86, 14, 0, 0, 0, 1, 7, 4, 1, 0, 1, 4, 1, 0],
        &["ipv4.opt_malformed"],
    ),
];

const V4_OPT_NAMES: &[&str] = &[
    "ipv4.opt_invalid",
    "ipv4.opt_invalid_len",
    "ipv4.opt_malformed",
    "ipv4.opt_pad_required",
    "ipv4.opt_eol_required",
    "ipv4.opt_duplicate",
    "ipv4.opt_unknown",
];

fn ipv4_options(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let i = g.size(0, V4_OPTS.len() - 1);
    let (opts, mut raises) = V4_OPTS[i];
    let mut o = opts.to_vec();
    while !o.len().is_multiple_of(4) {
        o.push(0);
    }
    // An option area of 4, 12 ... bytes also raises `opt_pad_required` (Suricata wants
    // 8-byte padding): some rules that hit name it.
    if !o.len().is_multiple_of(8) && (raises.is_empty() || g.chance(0.3)) {
        raises = &["ipv4.opt_pad_required"];
    }
    let body = udp_body(f, b"opts");
    let ip = v4_opts(f, 17, &o, &body);
    f.push_ip(true, ip);
    f.udp(false, b"ok");
    Made {
        name: "ipv4opt",
        raises,
        near: V4_OPT_NAMES,
        ..made("", &[], &[])
    }
}

const V4_HDR_NAMES: &[&str] = &[
    "ipv4.pkt_too_small",
    "ipv4.hlen_too_small",
    "ipv4.iplen_smaller_than_hlen",
    "ipv4.trunc_pkt",
    "ipv4.wrong_ip_version",
    "ipv4.icmpv6",
];

fn ipv4_header(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let body = udp_body(f, b"hdr-data");
    let mut ip = v4_opts(f, 17, &[], &body);
    let which = g.size(0, 6);
    let (raises, undecoded): (&'static [&'static str], bool) = match which {
        0 => {
            let n = g.size(1, 19);
            ip.truncate(n);
            (&["ipv4.pkt_too_small"], true)
        }
        1 => {
            ip[0] = 0x40 | g.pick(&[0u8, 1, 4]);
            v4_sum(&mut ip, 20);
            (&["ipv4.hlen_too_small"], true)
        }
        2 => {
            let l = g.num(0, 19) as u16;
            ip[2..4].copy_from_slice(&l.to_be_bytes());
            v4_sum(&mut ip, 20);
            (&["ipv4.iplen_smaller_than_hlen"], true)
        }
        3 => {
            let extra = g.num(1, 400) as u16;
            let l = ip.len() as u16 + extra;
            ip[2..4].copy_from_slice(&l.to_be_bytes());
            v4_sum(&mut ip, 20);
            (&["ipv4.trunc_pkt"], true)
        }
        4 => {
            ip[0] = (g.pick(&[5u8, 6, 0, 15]) << 4) | 5;
            v4_sum(&mut ip, 20);
            (&["ipv4.wrong_ip_version"], true)
        }
        5 => {
            ip[9] = 58;
            v4_sum(&mut ip, 20);
            (&["ipv4.icmpv6"], false)
        }
        _ => {
            // A datagram shorter than its header says, padded by the link layer: the
            // total length is right, the frame longer.
            ip.extend_from_slice(&[0; 6]);
            (&[], false)
        }
    };
    f.push_ip(true, ip);
    f.udp(false, b"ok");
    Made {
        name: "ipv4hdr",
        raises,
        near: V4_HDR_NAMES,
        undecoded,
        ..made("", &[], &[])
    }
}

const V6_NAMES: &[&str] = &[
    "ipv6.pkt_too_small",
    "ipv6.trunc_pkt",
    "ipv6.trunc_exthdr",
    "ipv6.exthdr_dupl_fh",
    "ipv6.exthdr_useless_fh",
    "ipv6.exthdr_dupl_rh",
    "ipv6.exthdr_dupl_hh",
    "ipv6.exthdr_dupl_dh",
    "ipv6.exthdr_invalid_optlen",
    "ipv6.wrong_ip_version",
    "ipv6.hopopts_unknown_opt",
    "ipv6.hopopts_only_padding",
    "ipv6.dstopts_unknown_opt",
    "ipv6.dstopts_only_padding",
    "ipv6.rh_type_0",
    "ipv6.zero_len_padn",
    "ipv6.fh_non_zero_reserved_field",
    "ipv6.data_after_none_header",
    "ipv6.unknown_next_header",
    "ipv6.icmpv4",
];

/// An IPv6 extension header of type-length-value options: next header `nh`, `opts`
/// padded with PadN to a multiple of eight bytes.
fn ext_opts(nh: u8, opts: &[u8]) -> Vec<u8> {
    let mut b = vec![nh, 0];
    b.extend_from_slice(opts);
    let pad = (8 - b.len() % 8) % 8;
    match pad {
        0 => {}
        1 => b.push(0),
        n => {
            b.push(1);
            b.push((n - 2) as u8);
            b.extend(std::iter::repeat_n(0, n - 2));
        }
    }
    b[1] = (b.len() / 8 - 1) as u8;
    b
}

fn ipv6_header(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let udp = udp_body(f, b"v6-data");
    let which = g.size(0, 15);
    let mut undecoded = false;
    let (raises, ip): (&'static [&'static str], Vec<u8>) = match which {
        0 => {
            let mut ip = v6_raw(f, 17, &udp);
            ip.truncate(g.size(1, 39));
            undecoded = true;
            (&["ipv6.pkt_too_small"], ip)
        }
        1 => {
            let mut ip = v6_raw(f, 17, &udp);
            let l = (udp.len() + g.size(1, 300)) as u16;
            ip[4..6].copy_from_slice(&l.to_be_bytes());
            undecoded = true;
            (&["ipv6.trunc_pkt"], ip)
        }
        2 => {
            let mut ip = v6_raw(f, 17, &udp);
            ip[0] = (g.pick(&[4u8, 5, 7]) << 4) | (ip[0] & 0x0f);
            undecoded = true;
            (&["ipv6.wrong_ip_version"], ip)
        }
        3 => {
            // ICMPv4 echo inside IPv6.
            let mut icmp = vec![8, 0, 0, 0, 0, 1, 0, 1, b'x'];
            l4_sum(f, 1, &mut icmp, 2);
            (&["ipv6.icmpv4"], v6_raw(f, 1, &icmp))
        }
        4 => {
            let mut b = ext_opts(17, &[0x3e, 2, 0, 0]);
            b.extend_from_slice(&udp);
            (&["ipv6.hopopts_unknown_opt"], v6_raw(f, 0, &b))
        }
        5 => {
            let mut b = ext_opts(17, &[]);
            b.extend_from_slice(&udp);
            (&["ipv6.hopopts_only_padding"], v6_raw(f, 0, &b))
        }
        6 => {
            let mut b = ext_opts(17, &[0x3e, 2, 0, 0]);
            b.extend_from_slice(&udp);
            (&["ipv6.dstopts_unknown_opt"], v6_raw(f, 60, &b))
        }
        7 => {
            let mut b = ext_opts(17, &[1, 0, 1, 0]);
            b.extend_from_slice(&udp);
            (
                &["ipv6.zero_len_padn", "ipv6.dstopts_only_padding"],
                v6_raw(f, 60, &b),
            )
        }
        8 => {
            let mut b = ext_opts(0, &[]);
            b.extend_from_slice(&ext_opts(17, &[]));
            b.extend_from_slice(&udp);
            (&["ipv6.exthdr_dupl_hh"], v6_raw(f, 0, &b))
        }
        9 => {
            // Routing header type 0, one address, segments left 1.
            let mut b = vec![17, 2, 0, 1, 0, 0, 0, 0];
            b.extend_from_slice(&[0xfd; 16]);
            b.extend_from_slice(&udp);
            (&["ipv6.rh_type_0"], v6_raw(f, 43, &b))
        }
        10 => {
            // A fragment header of a whole datagram (offset 0, no more fragments).
            let mut b = vec![17, 0, 0, 0, 0, 0, 0, 9];
            if g.chance(0.5) {
                b[1] = 0x55;
            }
            b.extend_from_slice(&udp);
            (
                &["ipv6.exthdr_useless_fh", "ipv6.fh_non_zero_reserved_field"],
                v6_raw(f, 44, &b),
            )
        }
        11 => (
            &["ipv6.data_after_none_header"],
            v6_raw(f, 59, b"after-none"),
        ),
        12 => (
            &["ipv6.unknown_next_header"],
            v6_raw(f, 143, b"unknown-next-hdr"),
        ),
        13 => {
            // An option whose length runs past its header.
            let mut b = vec![17, 0, 0x3e, 9, 0, 0, 0, 0];
            b.extend_from_slice(&udp);
            (&["ipv6.exthdr_invalid_optlen"], v6_raw(f, 60, &b))
        }
        14 if g.chance(0.5) => {
            // An extension header cut by the end of the packet.
            let b = vec![17, 4, 1, 4, 0, 0, 0, 0];
            (&["ipv6.trunc_exthdr"], v6_raw(f, 60, &b))
        }
        14 => {
            // Under two bytes after a whole extension header (destination options or a
            // fragment header of a whole datagram).
            let nh = g.pick(&[17u8, 6, 58, 99, 59]);
            let (first, mut b) = if g.chance(0.5) {
                (60, ext_opts(nh, &[]))
            } else {
                (44, vec![nh, 0, 0, 0, 0, 0, 0, 7])
            };
            b.resize(b.len() + g.size(0, 2), 0);
            (&["ipv6.trunc_exthdr"], v6_raw(f, first, &b))
        }
        _ => {
            let mut b = ext_opts(60, &[]);
            b.extend_from_slice(&ext_opts(60, &[]));
            b.extend_from_slice(&ext_opts(17, &[]));
            b.extend_from_slice(&udp);
            (&["ipv6.exthdr_dupl_dh"], v6_raw(f, 60, &b))
        }
    };
    f.push_ip(true, ip);
    f.udp(false, b"ok");
    Made {
        name: "ipv6hdr",
        raises,
        near: V6_NAMES,
        undecoded,
        ..made("", &[], &[])
    }
}

const TCP_NAMES: &[&str] = &[
    "tcp.pkt_too_small",
    "tcp.hlen_too_small",
    "tcp.invalid_optlen",
    "tcp.opt_invalid_len",
    "tcp.opt_duplicate",
];

fn tcp_header(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let (ci, si) = (3_000u32, 7_000u32);
    f.handshake(ci, si);
    let seg = |opts: &[u8]| {
        build::tcp(
            f.client,
            f.server,
            &Seg {
                ports: (f.sport, f.dport),
                seq: ci + 1,
                ack: si + 1,
                flags: PSH | ACK,
                options: opts,
                payload: b"tcp-data",
            },
        )
    };
    let which = g.size(0, 6);
    let (raises, l4): (&'static [&'static str], Vec<u8>) = match which {
        0 => {
            let mut t = seg(&[]);
            t.truncate(g.size(1, 19));
            (&["tcp.pkt_too_small"], t)
        }
        1 => {
            let mut t = seg(&[]);
            t[12] = g.pick(&[0u8, 1, 4]) << 4;
            l4_sum(f, 6, &mut t, 16);
            (&["tcp.hlen_too_small"], t)
        }
        2 => {
            let mut t = seg(&[]);
            t[12] = 15 << 4;
            l4_sum(f, 6, &mut t, 16);
            (&["tcp.invalid_optlen"], t)
        }
        3 => (&["tcp.opt_invalid_len"], seg(&[2, 1, 1, 1])),
        4 => (&["tcp.opt_invalid_len"], seg(&[8, 12, 0, 0])),
        5 => (&["tcp.opt_duplicate"], seg(&[2, 4, 5, 0xb4, 2, 4, 5, 0xb4])),
        _ => (&[], seg(&[1, 1, 1, 0])),
    };
    let ip = build::ip(f.client, f.server, 77, 6, &l4);
    f.push_ip(true, ip);
    f.tcp(false, si + 1, ci + 9, ACK, &[], &[]);
    Made {
        name: "tcphdr",
        raises,
        near: TCP_NAMES,
        ..made("", &[], &[])
    }
}

const UDP_NAMES: &[&str] = &[
    "udp.pkt_too_small",
    "udp.hlen_too_small",
    "udp.hlen_invalid",
    "udp.len_invalid",
];

fn udp_header(g: &mut Gen<'_>, f: &mut Flow) -> Made {
    let mut u = udp_body(f, b"udp-data");
    let which = g.size(0, 3);
    let raises: &'static [&'static str] = match which {
        0 => {
            u.truncate(g.size(1, 7));
            &["udp.pkt_too_small"]
        }
        1 => {
            let l = g.num(0, 7) as u16;
            u[4..6].copy_from_slice(&l.to_be_bytes());
            l4_sum(f, 17, &mut u, 6);
            &["udp.hlen_too_small", "udp.hlen_invalid"]
        }
        2 => {
            let l = (u.len() + g.size(1, 50)) as u16;
            u[4..6].copy_from_slice(&l.to_be_bytes());
            l4_sum(f, 17, &mut u, 6);
            &["udp.hlen_invalid", "udp.len_invalid"]
        }
        _ => {
            let l = (u.len() - g.size(1, 7)) as u16;
            u[4..6].copy_from_slice(&l.to_be_bytes());
            l4_sum(f, 17, &mut u, 6);
            &["udp.hlen_invalid", "udp.len_invalid"]
        }
    };
    let ip = build::ip(f.client, f.server, 55, 17, &u);
    f.push_ip(true, ip);
    f.udp(false, b"ok");
    Made {
        name: "udphdr",
        raises,
        near: UDP_NAMES,
        ..made("", &[], &[])
    }
}

const ICMP4_NAMES: &[&str] = &[
    "icmpv4.pkt_too_small",
    "icmpv4.unknown_type",
    "icmpv4.unknown_code",
    "icmpv4.ipv4_trunc_pkt",
    "icmpv4.ipv4_unknown_ver",
];

const ICMP6_NAMES: &[&str] = &[
    "icmpv6.unknown_type",
    "icmpv6.unknown_code",
    "icmpv6.pkt_too_small",
    "icmpv6.ipv6_unknown_version",
    "icmpv6.ipv6_trunc_pkt",
    "icmpv6.mld_message_with_invalid_hl",
    "icmpv6.unassigned_type",
    "icmpv6.experimentation_type",
];

fn icmp(g: &mut Gen<'_>, f: &mut Flow, v6: bool) -> Made {
    let proto = if v6 { 58 } else { 1 };
    let (ty, code, raises, body): (u8, u8, &'static [&'static str], Vec<u8>) = if v6 {
        match g.size(0, 7) {
            0 => (
                g.pick(&[100u8, 101, 200, 201]),
                0,
                &["icmpv6.experimentation_type"],
                vec![],
            ),
            1 => (
                g.pick(&[5u8, 42, 99, 127, 160, 250]),
                0,
                &["icmpv6.unassigned_type", "icmpv6.unknown_type"],
                vec![],
            ),
            2 => (
                128,
                g.pick(&[1u8, 9, 255]),
                &["icmpv6.unknown_code"],
                b"echo".to_vec(),
            ),
            3 => (
                g.pick(&[1u8, 4, 138, 143, 151]),
                g.pick(&[3u8, 7, 8, 30, 255]),
                &["icmpv6.unknown_code"],
                vec![0; 8],
            ),
            4 => (130, 0, &["icmpv6.mld_message_with_invalid_hl"], vec![0; 20]),
            5 => (
                1,
                0,
                &["icmpv6.ipv6_trunc_pkt"],
                vec![0x60, 0, 0, 0, 0, 8, 17],
            ),
            6 => {
                let mut inner = vec![0x40u8; 40];
                inner[0] = 0x45;
                (1, 4, &["icmpv6.ipv6_unknown_version"], inner)
            }
            _ => (2, 0, &[], vec![0, 0, 5, 0xdc]),
        }
    } else {
        match g.size(0, 6) {
            0 => (
                g.pick(&[1u8, 2, 7, 99, 44, 255]),
                0,
                &["icmpv4.unknown_type"],
                vec![],
            ),
            1 => (
                8,
                g.pick(&[1u8, 7, 255]),
                &["icmpv4.unknown_code"],
                b"echo".to_vec(),
            ),
            2 => (
                3,
                g.pick(&[16u8, 20, 99]),
                &["icmpv4.unknown_code"],
                vec![0; 28],
            ),
            3 => (3, 1, &["icmpv4.ipv4_trunc_pkt"], vec![0x45, 0, 0, 40, 0, 0]),
            4 => {
                let mut inner = vec![0u8; 28];
                inner[0] = 0x65;
                (3, 1, &["icmpv4.ipv4_unknown_ver"], inner)
            }
            5 => (
                g.pick(&[9u8, 10, 11, 12, 13]),
                g.pick(&[0u8, 1, 2, 16]),
                &["icmpv4.unknown_code"],
                vec![0; g.pick(&[28usize, 28, 8, 0])],
            ),
            _ => (
                5,
                g.pick(&[0u8, 3, 4]),
                &["icmpv4.unknown_code"],
                vec![0; 28],
            ),
        }
    };
    let mut m = vec![ty, code, 0, 0, 0x12, 0x34, 0, 1];
    m.extend_from_slice(&body);
    let small = g.chance(0.12);
    if small {
        m.truncate(g.size(1, 3));
    }
    l4_sum(f, proto, &mut m, 2);
    let mut ip = build::ip(f.client, f.server, 66, proto, &m);
    if v6 && ty == 130 {
        ip[7] = g.pick(&[1u8, 64, 255]);
    }
    f.push_ip(true, ip);
    Made {
        name: if v6 { "icmpv6" } else { "icmpv4" },
        raises: if small {
            if v6 {
                &["icmpv6.pkt_too_small"]
            } else {
                &["icmpv4.pkt_too_small"]
            }
        } else {
            raises
        },
        near: if v6 { ICMP6_NAMES } else { ICMP4_NAMES },
        ..made("", &[], &[])
    }
}

/// How the rule spells its event: the keyword, and a value derived from the name.
fn spelled(g: &mut Gen<'_>, name: &str, stream: bool) -> String {
    if stream {
        match g.size(0, 9) {
            0 => format!("engine-event:stream.{name};"),
            1 => format!("decode-event:stream.{name};"),
            2 => format!("stream-event:stream.{name};"),
            3 => format!("stream-event:{};", name.to_ascii_uppercase()),
            4 => format!("stream-event: {name};"),
            5 => format!("stream-event:\"{name}\";"),
            _ => format!("stream-event:{name};"),
        }
    } else {
        match g.size(0, 11) {
            0 | 1 => format!("engine-event:decoder.{name};"),
            2 => format!("engine-event:{name};"),
            3 => format!("decode-event:decoder.{name};"),
            4 => format!("decode-event:{};", name.to_ascii_uppercase()),
            5 => format!("decode-event: {name};"),
            6 => format!("decode-event:{name}x;"),
            7 => format!("decode-event:\"{name}\";"),
            _ => format!("decode-event:{name};"),
        }
    }
}

fn events(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let kind = g.size(0, 10);
    let v6 = match kind {
        2 => true,
        0 | 1 | 6 => false,
        _ => g.v6(),
    };
    let a = Addrs::of(g.index, v6);
    let mut f = Flow::new(g.index, v6, 7000 + (g.index % 1000) as u16);
    let m = match kind {
        0 => ipv4_options(g, &mut f),
        1 => ipv4_header(g, &mut f),
        2 => ipv6_header(g, &mut f),
        3 => tcp_header(g, &mut f),
        4 => udp_header(g, &mut f),
        5 => icmp(g, &mut f, v6),
        6 => gre(g, &mut f),
        7 => link(g, &mut f),
        _ => stream(g, &mut f),
    };
    let streams = stream_names();
    let near: Vec<&str> = if m.stream {
        streams.clone()
    } else {
        m.near.to_vec()
    };
    let raises: Vec<&str> = m
        .raises
        .iter()
        .copied()
        .filter(|n| !m.stream || streams.contains(n))
        .collect();
    let name = match (intent, raises.is_empty()) {
        (Intent::Hit, false) => g.pick(&raises),
        _ => {
            let others: Vec<&str> = near
                .iter()
                .copied()
                .filter(|n| !raises.contains(n))
                .collect();
            if others.is_empty() || g.chance(0.1) {
                g.pick(&near)
            } else {
                g.pick(&others)
            }
        }
    };
    let opts = spelled(g, name, m.stream);
    let net = format!("{}/{}", a.net, a.net_bits());
    let (proto, header) = if m.outer {
        let (oc, os) = f.outer;
        (
            "ip",
            [oc.to_string(), "any".into(), os.to_string(), "any".into()],
        )
    } else if m.undecoded && g.chance(0.5) {
        (
            "pkthdr",
            ["any".into(), "any".into(), "any".into(), "any".into()],
        )
    } else {
        let proto = if m.stream {
            "tcp"
        } else {
            g.pick(&["ip", "pkthdr", "ip"])
        };
        (proto, [net.clone(), "any".into(), net, "any".into()])
    };
    let l4 = if m.stream { L4::Tcp } else { L4::Udp };
    let mut s = base(m.name, intent, v6, l4, proto);
    s.header = Some(header);
    s.opts = opts;
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_writes_frames_and_most_rules_parse() {
        let (cases, ok) = super::super::sample_cases(400, events);
        let mut kinds = std::collections::BTreeSet::new();
        for c in &cases {
            assert!(!c.frames(0).is_empty(), "case {}", c.index);
            kinds.insert(c.spec.template.clone());
        }
        assert_eq!(kinds.len(), 10, "{kinds:?}");
        assert!(ok > 250, "only {ok} of 400 rules parse");
    }

    #[test]
    fn extension_headers_are_padded_to_eight_bytes() {
        for n in 0..12 {
            let b = ext_opts(17, &vec![1u8; n]);
            assert_eq!(b.len() % 8, 0);
            assert_eq!(usize::from(b[1]) * 8 + 8, b.len());
        }
    }
}

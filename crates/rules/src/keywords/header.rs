//! IP, TCP and ICMP header options (`dsize`, `ttl`, `flags`, `ip_proto` ...) and the
//! header sticky buffers (`tcp.hdr` ...).

use super::{verbatim, Ctx, Keyword, Kind, Stickies, Value};
use crate::ast::{IpProtoOp, Opt};
use crate::buffers::Buffer;
use crate::diag::Reason;
use crate::parser::state::State;
use crate::values as v;

/// Header keywords.
pub(super) const KEYWORDS: &[Keyword] = &[
    Keyword::new("dsize", Value::Required, Kind::Option, int_cmp_option)
        .once()
        .about(
            "compare the payload size of the packet",
            "rules/payload-keywords.html#dsize",
        ),
    Keyword::new("ttl", Value::Required, Kind::Option, int_cmp_option).about(
        "compare the IP time-to-live",
        "rules/header-keywords.html#ttl",
    ),
    // Suricata 7.0.10's `template2` (the example packet keyword of its sources) compares
    // the IPv4 TTL or IPv6 hop limit as `ttl` does (checked against Suricata: `template2:64`
    // and `template2:>63` match a TTL of 64, `template2:65` does not).
    Keyword::new("template2", Value::Required, Kind::Option, int_cmp_option).about(
        "compare the IP time-to-live (Suricata's example packet keyword)",
        "rules/header-keywords.html#ttl",
    ),
    Keyword::new("itype", Value::Required, Kind::Option, int_cmp_option)
        .about("compare the ICMP type", "rules/header-keywords.html#itype"),
    Keyword::new("icode", Value::Required, Kind::Option, int_cmp_option)
        .about("compare the ICMP code", "rules/header-keywords.html#icode"),
    Keyword::new("flags", Value::Required, Kind::Option, flags)
        .aliases(&["tcp.flags"])
        .about("match TCP flags", "rules/header-keywords.html#tcp-flags"),
    Keyword::new("icmp_id", Value::Required, Kind::Option, u16_option)
        .about("match the ICMP id", "rules/header-keywords.html#icmp-id"),
    Keyword::new("icmp_seq", Value::Required, Kind::Option, u16_option).about(
        "match the ICMP sequence number",
        "rules/header-keywords.html#icmp-seq",
    ),
    Keyword::new("id", Value::Required, Kind::Option, u16_option).about(
        "match the IPv4 identification field",
        "rules/header-keywords.html#id",
    ),
    Keyword::new("seq", Value::Required, Kind::Option, u32_option)
        .aliases(&["tcp.seq"])
        .about(
            "match the TCP sequence number",
            "rules/header-keywords.html#seq",
        ),
    Keyword::new("ack", Value::Required, Kind::Option, u32_option)
        .aliases(&["tcp.ack"])
        .about(
            "match the TCP acknowledgement number",
            "rules/header-keywords.html#ack",
        ),
    Keyword::new("window", Value::Required, Kind::Option, window)
        .aliases(&["tcp.window"])
        .about(
            "match the TCP window size",
            "rules/header-keywords.html#window",
        ),
    Keyword::new("tos", Value::Required, Kind::Option, tos).about(
        "match the IP type-of-service byte",
        "rules/header-keywords.html#tos",
    ),
    Keyword::new("ip_proto", Value::Required, Kind::Option, ip_proto).about(
        "match the IP protocol number or name",
        "rules/header-keywords.html#ip-proto",
    ),
    Keyword::new("ipopts", Value::Required, Kind::Option, ipopts)
        .about("match an IPv4 option", "rules/header-keywords.html#ipopts"),
    Keyword::new("fragbits", Value::Required, Kind::Option, fragbits).about(
        "match the IP fragmentation bits (M, D, R)",
        "rules/header-keywords.html#fragbits-ip-fragmentation",
    ),
    Keyword::new("fragoffset", Value::Required, Kind::Option, fragoffset).about(
        "compare the IP fragment offset",
        "rules/header-keywords.html#fragoffset",
    ),
    Keyword::new("sameip", Value::None, Kind::Option, sameip).about(
        "source and destination address are the same",
        "rules/header-keywords.html#sameip",
    ),
    verbatim("tcp.mss").about(
        "compare the TCP MSS option",
        "rules/header-keywords.html#tcpmss",
    ),
    verbatim("icmpv6.mtu").about(
        "compare the MTU of an ICMPv6 packet-too-big message",
        "rules/header-keywords.html#icmpv6mtu",
    ),
    verbatim("l3_proto").about(
        "match the layer 3 protocol (ipv4, ipv6)",
        "rules/header-keywords.html",
    ),
    verbatim("decode-event").about(
        "match an event raised by the packet decoder",
        "rules/intro.html",
    ),
    verbatim("stream-event").about(
        "match an event raised by TCP stream tracking",
        "rules/intro.html",
    ),
    verbatim("engine-event").about("match an event raised by the engine", "rules/intro.html"),
    verbatim("ipv4-csum").about(
        "check the IPv4 header checksum (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("tcpv4-csum").about(
        "check the TCP checksum of an IPv4 packet (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("tcpv6-csum").about(
        "check the TCP checksum of an IPv6 packet (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("udpv4-csum").about(
        "check the UDP checksum of an IPv4 packet (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("udpv6-csum").about(
        "check the UDP checksum of an IPv6 packet (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("icmpv4-csum").about(
        "check the ICMPv4 checksum (valid or invalid)",
        "rules/header-keywords.html",
    ),
    verbatim("icmpv6-csum").about(
        "check the ICMPv6 checksum (valid or invalid)",
        "rules/header-keywords.html",
    ),
];

/// Header buffers.
pub(super) const STICKY: Stickies = &[(
    &[
        Buffer::TcpHdr,
        Buffer::UdpHdr,
        Buffer::Ipv4Hdr,
        Buffer::Ipv6Hdr,
        Buffer::Icmpv4Hdr,
        Buffer::Icmpv6Hdr,
        Buffer::IpSrc,
        Buffer::IpDst,
    ],
    &[],
)];

fn int_cmp_option(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let max = if kw == "dsize" { 65535 } else { 255 };
    let c = tryv!(st, o, kw, v::int_cmp(val, max));
    tryv!(st, o, kw, v::uint_edges(c, max));
    if kw == "dsize" && st.options.iter().any(|x| matches!(x, Opt::Dsize(_))) {
        st.err(o.name_off, Reason::Semantic, kw, "dsize given twice");
        return;
    }
    st.options.push(match kw {
        "dsize" => Opt::Dsize(c),
        "ttl" | "template2" => Opt::Ttl(c),
        "itype" => Opt::Itype(c),
        _ => Opt::Icode(c),
    });
}

fn flags(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let f = tryv!(st, o, kw, v::tcp_flags(val));
    st.options.push(Opt::Flags(f));
}

fn u16_option(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let n = tryv!(st, o, kw, v::uint(val, 65535)) as u16;
    st.options.push(match kw {
        "icmp_id" => Opt::IcmpId(n),
        "icmp_seq" => Opt::IcmpSeq(n),
        _ => Opt::IpId(n),
    });
}

fn u32_option(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let n = tryv!(st, o, kw, v::uint(val, u32::MAX as u64)) as u32;
    st.options.push(if matches!(kw, "seq" | "tcp.seq") {
        Opt::Seq(n)
    } else {
        Opt::Ack(n)
    });
}

fn window(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let (negated, r) = v::negation(val);
    let size = tryv!(st, o, kw, v::uint(r, 65535)) as u16;
    st.options.push(Opt::Window { negated, size });
}

fn tos(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let (negated, r) = v::negation(val);
    let value = tryv!(st, o, kw, tos_value(r));
    st.options.push(Opt::Tos { negated, value });
}

/// A `tos` value as Suricata 7.0.10 reads it: decimal, or hex after `x`/`X` (`0x` is
/// refused), 0 to 255.
fn tos_value(s: &str) -> Result<u8, String> {
    let t = s.trim();
    let n = match t.strip_prefix(['x', 'X']) {
        Some(h) if !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()) => {
            u64::from_str_radix(h, 16).map_err(|_| format!("'{t}' is not a number"))?
        }
        _ if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) => t
            .parse::<u64>()
            .map_err(|_| format!("'{t}' is not a number"))?,
        _ => return Err(format!("'{t}' is not a decimal or x-prefixed hex number")),
    };
    u8::try_from(n).map_err(|_| format!("'{t}' out of range 0..=255"))
}

fn ip_proto(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let (op, r) = match val.chars().next().and_then(IpProtoOp::from_char) {
        Some(op) => (op, val[1..].trim()),
        None => (IpProtoOp::Eq, val),
    };
    let proto = match v::uint(r, 255) {
        Ok(n) => n as u8,
        Err(_) => match v::ip_proto_number(r) {
            Some(n) => n,
            None => {
                st.err(
                    off,
                    Reason::InvalidValue,
                    kw,
                    format!("unknown IP protocol '{r}'"),
                );
                return;
            }
        },
    };
    st.options.push(Opt::IpProto { op, proto });
}

fn ipopts(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    let ok = [
        "rr", "eol", "nop", "ts", "sec", "esec", "lsrr", "ssrr", "satid", "any",
    ];
    if !ok.contains(&val) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("unknown ip option '{val}'"),
        );
        return;
    }
    st.options.push(Opt::IpOpts(val.to_owned()));
}

fn fragbits(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let val = c.val;
    let off = c.o.value_off;
    if !val.chars().all(|c| "MDRmdr+*!".contains(c)) || !val.chars().any(|c| "MDRmdr".contains(c)) {
        st.err(
            off,
            Reason::InvalidValue,
            kw,
            format!("invalid fragbits '{val}'"),
        );
        return;
    }
    st.options.push(Opt::Fragbits(val.to_owned()));
}

fn fragoffset(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    // Suricata 7.0.10 refuses a negated offset (`!N`).
    if val.trim_start().starts_with('!') {
        st.err(
            o.value_off,
            Reason::InvalidValue,
            kw,
            "a negated fragoffset is refused",
        );
        return;
    }
    let r = val.trim_start_matches(['<', '>']);
    tryv!(st, o, kw, v::uint(r, 8191));
    st.options.push(Opt::Fragoffset(val.to_owned()));
}

fn sameip(st: &mut State, _: &Ctx<'_>) {
    st.options.push(Opt::SameIp);
}

#[cfg(test)]
mod tests {
    /// Whether the rule with `opt` loads.
    fn loads(opt: &str) -> bool {
        crate::parse_rule(&format!("alert ip any any -> any any ({opt} sid:1;)")).is_ok()
    }

    // What Suricata 7.0.10 loads and refuses (`suricata -T`), found by the differential
    // harness (crates/difftest; tests/parity/KNOWN_DIFFERENCES.md).
    #[test]
    fn integer_comparisons_refused_as_suricata_does() {
        for ok in [
            "ttl:>=255;",
            "ttl:<=0;",
            "ttl:>254;",
            "ttl:<1;",
            "ttl:1<>3;",
            "ttl:1-3;",
            "ttl:0-255;",
            "dsize:<1;",
            "icode:0<>2;",
        ] {
            assert!(loads(ok), "{ok} refused");
        }
        for bad in [
            "ttl:>=0;",
            "ttl:<=255;",
            "ttl:<0;",
            "ttl:>255;",
            "ttl:1<>2;",
            "ttl:1-2;",
            "itype:254-255;",
            "icode:0<>1;",
            "dsize:>=0;",
            "dsize:<=65535;",
            "dsize:>65535;",
            "dsize:1<>2;",
        ] {
            assert!(!loads(bad), "{bad} loaded");
        }
    }

    #[test]
    fn tos_reads_decimal_and_x_hex_only() {
        for ok in [
            "tos:8;",
            "tos:x1f;",
            "tos:X1f;",
            "tos:!xff;",
            "tos:!8;",
            "tos:255;",
        ] {
            assert!(loads(ok), "{ok} refused");
        }
        for bad in ["tos:0x1f;", "tos:!0x8;", "tos:256;", "tos:x100;", "tos:x;"] {
            assert!(!loads(bad), "{bad} loaded");
        }
    }

    #[test]
    fn negated_fragoffset_is_refused() {
        assert!(loads("fragoffset:0;") && loads("fragoffset:>0;") && loads("fragoffset:<5;"));
        assert!(!loads("fragoffset:!0;") && !loads("fragoffset:!5;"));
    }
}

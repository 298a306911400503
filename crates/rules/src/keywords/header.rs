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
    Keyword::new("dsize", Value::Required, Kind::Option, int_cmp_option).once(),
    Keyword::new("ttl", Value::Required, Kind::Option, int_cmp_option),
    Keyword::new("itype", Value::Required, Kind::Option, int_cmp_option),
    Keyword::new("icode", Value::Required, Kind::Option, int_cmp_option),
    Keyword::new("flags", Value::Required, Kind::Option, flags).aliases(&["tcp.flags"]),
    Keyword::new("icmp_id", Value::Required, Kind::Option, u16_option),
    Keyword::new("icmp_seq", Value::Required, Kind::Option, u16_option),
    Keyword::new("id", Value::Required, Kind::Option, u16_option),
    Keyword::new("seq", Value::Required, Kind::Option, u32_option),
    Keyword::new("ack", Value::Required, Kind::Option, u32_option),
    Keyword::new("window", Value::Required, Kind::Option, window),
    Keyword::new("tos", Value::Required, Kind::Option, tos),
    Keyword::new("ip_proto", Value::Required, Kind::Option, ip_proto),
    Keyword::new("ipopts", Value::Required, Kind::Option, ipopts),
    Keyword::new("fragbits", Value::Required, Kind::Option, fragbits),
    Keyword::new("fragoffset", Value::Required, Kind::Option, fragoffset),
    Keyword::new("sameip", Value::None, Kind::Option, sameip),
    verbatim("tcp.mss"),
    verbatim("tcp.window"),
    verbatim("icmpv6.mtu"),
    verbatim("l3_proto"),
    verbatim("decode-event"),
    verbatim("stream-event"),
    verbatim("engine-event"),
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
    ],
    &[],
)];

fn int_cmp_option(st: &mut State, c: &Ctx<'_>) {
    let kw = c.kw;
    let o = c.o;
    let val = c.val;
    let max = if kw == "dsize" { 65535 } else { 255 };
    let c = tryv!(st, o, kw, v::int_cmp(val, max));
    if kw == "dsize" && st.options.iter().any(|x| matches!(x, Opt::Dsize(_))) {
        st.err(o.name_off, Reason::Semantic, kw, "dsize given twice");
        return;
    }
    st.options.push(match kw {
        "dsize" => Opt::Dsize(c),
        "ttl" => Opt::Ttl(c),
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
    st.options.push(if kw == "seq" {
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
    let value = tryv!(st, o, kw, v::uint(r, 255)) as u8;
    st.options.push(Opt::Tos { negated, value });
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
        "rr", "eol", "nop", "ts", "sec", "esec", "lsrr", "lsrre", "ssrr", "satid", "any",
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
    let r = val.trim_start_matches(['!', '<', '>']);
    tryv!(st, o, kw, v::uint(r, 8191));
    st.options.push(Opt::Fragoffset(val.to_owned()));
}

fn sameip(st: &mut State, _: &Ctx<'_>) {
    st.options.push(Opt::SameIp);
}

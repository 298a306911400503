//! IP header options of a rule that Suricata evaluates on the raw header: `ipopts`,
//! `fragbits` and `fragoffset` (compiled from the rule's text, checked against the
//! packet's IPv4 header bytes).

use rules::IntCmp;

use crate::sig::Refusal;

/// An IP header condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HdrOpt {
    /// `ipopts:<name>`: the option (a `crate::ipopts` bit) is in the IPv4 header
    /// (`any`: all bits, see `crate::ipopts`).
    IpOpts(u16),
    /// `fragbits`: the packet's RF/DF/MF bits (`FB_*`) against `bits` with `modifier`.
    Fragbits { bits: u8, modifier: FragMod },
    /// `fragoffset`: the fragment offset field (8-byte units).
    Fragoffset(IntCmp),
    /// `tcp.mss`: the TCP MSS option's value (no option: no match).
    TcpMss(IntCmp),
    /// `icmpv6.mtu`: the MTU of an ICMPv6 packet-too-big message.
    Icmpv6Mtu(IntCmp),
    /// `l3_proto`: the IP version (4 or 6).
    L3Proto(u8),
    /// `decode-event`: the decoder recorded the event on the packet.
    Event(wire::Event),
    /// `engine-event:decoder.<event>`: the same on a packet whose IP header decoded.
    EngineEvent(wire::Event),
    /// `rpc`: an ONC RPC call in the packet's payload.
    Rpc(crate::rpc_opt::RpcC),
    /// A checksum keyword (`ipv4-csum` ...).
    Csum(crate::csum_opt::CsumC),
    /// `stream-event`: the TCP tracker raised the event on the packet (evaluated with
    /// the flow context, `crate::stream_event::holds`).
    Stream(wire::StreamEvent),
}

/// How `fragbits` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FragMod {
    /// No modifier: exactly these bits among R, D, M.
    Exact,
    /// `+`: these bits, others allowed.
    Plus,
    /// `*`: any of these bits.
    Any,
    /// `!`: not all of these bits.
    Not,
}

/// Reserved bit.
const FB_R: u8 = 4;
/// Don't fragment.
const FB_D: u8 = 2;
/// More fragments.
const FB_M: u8 = 1;

fn bad(kw: &str, msg: String) -> Refusal {
    Refusal {
        unsupported: false,
        keyword: kw.to_owned(),
        message: msg,
    }
}

/// `ipopts:<name>`.
pub(crate) fn ipopts(val: &str) -> Result<HdrOpt, Refusal> {
    let v = val.trim();
    crate::ipopts::bit(v)
        .map(HdrOpt::IpOpts)
        .ok_or_else(|| bad("ipopts", format!("unknown ip option '{v}'")))
}

/// `fragbits:[+*!]<MDR...>` (the modifier may also follow the bits).
pub(crate) fn fragbits(val: &str) -> Result<HdrOpt, Refusal> {
    let (mut bits, mut modifier) = (0u8, FragMod::Exact);
    for c in val.trim().chars() {
        match c.to_ascii_uppercase() {
            'M' => bits |= FB_M,
            'D' => bits |= FB_D,
            'R' => bits |= FB_R,
            '+' => modifier = FragMod::Plus,
            '*' => modifier = FragMod::Any,
            '!' => modifier = FragMod::Not,
            ' ' => {}
            _ => return Err(bad("fragbits", format!("invalid fragbits '{val}'"))),
        }
    }
    if bits == 0 {
        return Err(bad("fragbits", format!("fragbits '{val}' names no bit")));
    }
    Ok(HdrOpt::Fragbits { bits, modifier })
}

/// `fragoffset:[!|<|>]<n>`.
pub(crate) fn fragoffset(val: &str) -> Result<HdrOpt, Refusal> {
    let v = val.trim();
    let num = |s: &str| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n <= 8191)
            .ok_or_else(|| bad("fragoffset", format!("invalid fragoffset '{val}'")))
    };
    Ok(HdrOpt::Fragoffset(if let Some(r) = v.strip_prefix('!') {
        IntCmp::Ne(num(r)?)
    } else if let Some(r) = v.strip_prefix('<') {
        IntCmp::Lt(num(r)?)
    } else if let Some(r) = v.strip_prefix('>') {
        IntCmp::Gt(num(r)?)
    } else {
        IntCmp::Eq(num(v)?)
    }))
}

/// `tcp.mss`, `icmpv6.mtu` and `l3_proto` from their value.
pub(crate) fn keyword(name: &str, val: Option<&str>) -> Result<HdrOpt, Refusal> {
    let v = val.map(str::trim).unwrap_or("");
    let cmp =
        |max: u64| rules::values::int_cmp(v, max).map_err(|e| bad(name, format!("{name}: {e}")));
    Ok(match name {
        "tcp.mss" => HdrOpt::TcpMss(cmp(u16::MAX as u64)?),
        "icmpv6.mtu" => HdrOpt::Icmpv6Mtu(cmp(u32::MAX as u64)?),
        // Names in any case, as Suricata 7.0.10 (`l3_proto:IPV4` loads).
        _ => match v.to_ascii_lowercase().as_str() {
            "ipv4" | "ip4" => HdrOpt::L3Proto(4),
            "ipv6" | "ip6" => HdrOpt::L3Proto(6),
            _ => return Err(bad(name, format!("l3_proto: unknown protocol '{v}'"))),
        },
    })
}

/// The MSS option of a TCP header.
fn tcp_mss(p: &wire::Packet, frame: &[u8]) -> Option<u16> {
    if !p.is_tcp() || p.l4_off == 0 {
        return None;
    }
    let h = frame.get(p.l4_off as usize..)?;
    let doff = (*h.get(12)? >> 4) as usize * 4;
    let mut o = h.get(20..doff)?;
    while let Some(&k) = o.first() {
        match k {
            0 => return None,
            1 => o = &o[1..],
            _ => {
                let len = *o.get(1)? as usize;
                if len < 2 || len > o.len() {
                    return None;
                }
                if k == 2 && len == 4 {
                    return Some(u16::from_be_bytes([o[2], o[3]]));
                }
                o = &o[len..];
            }
        }
    }
    None
}

/// The MTU of an ICMPv6 packet-too-big (type 2, code 0) message.
fn icmpv6_mtu(p: &wire::Packet, frame: &[u8]) -> Option<u32> {
    if p.proto != 58 || p.l4_off == 0 || p.icmp_type != 2 || p.icmp_code != 0 {
        return None;
    }
    let at = p.l4_off as usize + 4;
    let b = frame.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// The IPv4 header of the packet (`None` for IPv6 and undecoded packets).
fn ipv4_header<'a>(p: &wire::Packet, frame: &'a [u8]) -> Option<&'a [u8]> {
    if p.ip_version != 4 {
        return None;
    }
    let h = frame.get(p.l3_off as usize..)?;
    let ihl = (*h.first()? & 0x0f) as usize * 4;
    h.get(..ihl).filter(|h| h.len() >= 20)
}

impl HdrOpt {
    /// Whether the packet (decoded from `frame`) satisfies the condition. All three
    /// are IPv4 header fields: an IPv6 packet never matches, like Suricata.
    pub(crate) fn matches(&self, p: &wire::Packet, frame: &[u8]) -> bool {
        match *self {
            HdrOpt::IpOpts(want) => ipv4_header(p, frame)
                .is_some_and(|h| crate::ipopts::has(crate::ipopts::flags(h), want)),
            HdrOpt::Fragbits { bits, modifier } => ipv4_header(p, frame).is_some_and(|h| {
                let have = h[6] >> 5;
                match modifier {
                    FragMod::Exact => have == bits,
                    FragMod::Plus => have & bits == bits,
                    FragMod::Any => have & bits != 0,
                    FragMod::Not => have & bits != bits,
                }
            }),
            HdrOpt::Fragoffset(c) => ipv4_header(p, frame).is_some_and(|h| {
                let off = u16::from_be_bytes([h[6], h[7]]) & 0x1fff;
                c.matches(off as u64)
            }),
            HdrOpt::TcpMss(c) => tcp_mss(p, frame).is_some_and(|m| c.matches(m as u64)),
            HdrOpt::Icmpv6Mtu(c) => icmpv6_mtu(p, frame).is_some_and(|m| c.matches(m as u64)),
            HdrOpt::L3Proto(v) => p.ip_version == v,
            HdrOpt::Event(e) => p.has_event(e),
            // Suricata 7.0.10 matches `engine-event` only on packets with an IP header
            // and a protocol (not 0: IPv6 with no next header or ICMPv4 inside).
            HdrOpt::EngineEvent(e) => {
                p.ip_version != 0
                    && p.proto != 0
                    && !p.has(wire::flags::IP_HDR_BROKEN)
                    && p.has_event(e)
            }
            HdrOpt::Rpc(c) => c.matches(p, frame),
            HdrOpt::Csum(c) => c.matches(p, frame),
            HdrOpt::Stream(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(header: &[u8]) -> (wire::Packet, Vec<u8>) {
        let p = wire::Packet {
            ip_version: 4,
            l3_off: 0,
            ..Default::default()
        };
        (p, header.to_vec())
    }

    fn hdr(flags_off: u16, opts: &[u8]) -> Vec<u8> {
        let ihl = (20 + opts.len()).div_ceil(4);
        let mut h = vec![0x40 | ihl as u8, 0, 0, 0, 0, 0];
        h.extend_from_slice(&flags_off.to_be_bytes());
        h.extend_from_slice(&[64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        h.extend_from_slice(opts);
        h.resize(ihl * 4, 0);
        h
    }

    #[test]
    fn ipopts_names_their_option() {
        // Record route (7, len 7) then NOP, then EOL padding.
        let (p, f) = v4(&hdr(0, &[7, 7, 4, 0, 0, 0, 0, 1, 0]));
        assert!(ipopts("rr").unwrap().matches(&p, &f));
        assert!(ipopts("nop").unwrap().matches(&p, &f));
        assert!(ipopts("eol").unwrap().matches(&p, &f));
        assert!(!ipopts("any").unwrap().matches(&p, &f));
        assert!(!ipopts("ts").unwrap().matches(&p, &f));
        assert!(!ipopts("lsrr").unwrap().matches(&p, &f));
        assert!(ipopts("bogus").is_err() && ipopts("lsrre").is_err());
        // A malformed length voids the options.
        let (p, f) = v4(&hdr(0, &[68, 40, 0, 0]));
        assert!(!ipopts("ts").unwrap().matches(&p, &f));
        let six = wire::Packet {
            ip_version: 6,
            ..Default::default()
        };
        assert!(!ipopts("nop").unwrap().matches(&six, &[0u8; 60]));
    }

    #[test]
    fn fragbits_modifiers() {
        let (p, df) = v4(&hdr(0x4000, &[]));
        let (_, mf) = v4(&hdr(0x2000 | 5, &[]));
        let (_, rdf) = v4(&hdr(0xc000, &[]));
        let m = |s: &str, f: &Vec<u8>| fragbits(s).unwrap().matches(&p, f);
        assert!(m("D", &df) && !m("D", &rdf) && !m("M", &df));
        assert!(m("D+", &rdf) && m("+D", &df) && !m("+M", &rdf));
        assert!(m("*MD", &df) && m("*MR", &rdf) && !m("*M", &df));
        assert!(m("!M", &df) && !m("!M", &mf) && m("!DR", &df));
        assert!(fragbits("X").is_err() && fragbits("+").is_err());
    }

    #[test]
    fn fragoffset_compares_the_offset() {
        let (p, f) = v4(&hdr(0x2000 | 185, &[]));
        let m = |s: &str| fragoffset(s).unwrap().matches(&p, &f);
        assert!(m("185") && m("!0") && m(">100") && m("<200") && !m("0") && !m("<185"));
        let six = wire::Packet {
            ip_version: 6,
            ..Default::default()
        };
        assert!(!fragoffset("!0").unwrap().matches(&six, &f));
        assert!(fragoffset("9000").is_err());
    }

    #[test]
    fn tcp_mss_reads_the_option() {
        // IPv4 header, then a TCP header with NOP, MSS 1460, EOL.
        let mut f = hdr(0, &[]);
        let l4 = f.len();
        f.extend_from_slice(&[
            0, 80, 0, 81, 0, 0, 0, 0, 0, 0, 0, 0, 0x70, 2, 0, 0, 0, 0, 0, 0,
        ]);
        f.extend_from_slice(&[1, 2, 4, 0x05, 0xb4, 0, 0, 0]);
        let p = wire::Packet {
            ip_version: 4,
            proto: 6,
            l4_off: l4 as u32,
            ..Default::default()
        };
        let m = |s: &str, f: &[u8]| keyword("tcp.mss", Some(s)).unwrap().matches(&p, f);
        assert!(m("1460", &f) && m(">1000", &f) && !m("<1460", &f) && m("!536", &f));
        f[l4 + 12] = 0x50;
        assert!(!m("1460", &f) && !m("!536", &f));
        assert!(keyword("tcp.mss", Some("70000")).is_err());
    }

    #[test]
    fn icmpv6_mtu_and_l3_proto() {
        let mut f = vec![0u8; 40];
        f.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0x05, 0xdc]);
        let mut p = wire::Packet {
            ip_version: 6,
            proto: 58,
            l4_off: 40,
            icmp_type: 2,
            ..Default::default()
        };
        let m = |s: &str, p: &wire::Packet| keyword("icmpv6.mtu", Some(s)).unwrap().matches(p, &f);
        assert!(m("1500", &p) && m("<1501", &p) && !m("1280", &p));
        p.icmp_type = 1;
        assert!(!m("1500", &p));
        let v6 = keyword("l3_proto", Some("ipv6")).unwrap();
        assert!(v6.matches(&p, &f));
        assert!(!keyword("l3_proto", Some("ipv4")).unwrap().matches(&p, &f));
        assert!(keyword("l3_proto", Some("ipx")).is_err());
    }
}

//! Packet conditions of a rule: header (protocol, addresses, ports, app-layer
//! protocol), flow, packet options (`dsize`, `flags`, `ttl`, ICMP fields, ...) and which
//! payloads a payload program may inspect.

use crate::input::{FlowInfo, Input};
use crate::sig::{proto_matches, PayloadMode, PktOpt, ProtoM, Sig};
use crate::state::FlowDetect;
use wire::ip_proto;

/// Which payloads a payload program may inspect in this call: (stream chunk, packet).
pub(super) fn payload_targets(mode: PayloadMode, input: &Input<'_>) -> (bool, bool) {
    let in_stream = input.flow.is_some_and(|f| f.payload_in_stream);
    match mode {
        PayloadMode::Packet => (false, input.packet_rules),
        PayloadMode::Stream => (true, false),
        PayloadMode::Both => (true, input.packet_rules && !in_stream),
        PayloadMode::BothAndPacket => (true, input.packet_rules),
    }
}

/// The app-layer protocol a rule's header sees on this packet. As in Suricata, a packet
/// rule on a TCP packet knows its flow's protocol only when the stream was established
/// before the packet (not on the packet a session is picked up on, nor on a handshake
/// packet or a Fast Open SYN); transaction rules always do.
fn packet_app_proto(
    s: &Sig,
    p: &wire::Packet,
    flow: Option<FlowInfo>,
    cur: app::AppProto,
) -> app::AppProto {
    match flow {
        Some(f) if p.proto == ip_proto::TCP && !f.established && !s.is_tx() => {
            app::AppProto::Unknown
        }
        _ => cur,
    }
}

pub(super) fn header_ok(
    s: &Sig,
    p: &wire::Packet,
    flow: Option<FlowInfo>,
    ends: &mut crate::state::EndsMemo,
) -> bool {
    let proto_ok = match s.proto {
        ProtoM::Ip(None) => true,
        ProtoM::Ip(Some(v)) => p.ip_version == v,
        // Like Suricata, a TCP/UDP rule needs the transport header decoded (a UDP
        // length that disagrees with the IP payload leaves it undecoded); pseudo-packets
        // (no frame offsets) stand for a decoded flow. An IP fragment is matched on its
        // IP protocol, with ports 0 (the first fragment too: dt-28-1857,
        // tests/parity/cases/frag-first-mf).
        ProtoM::L4(x) => {
            p.proto == x
                && (!matches!(x, ip_proto::TCP | ip_proto::UDP)
                    || p.l4_off != 0
                    || p.l3_off == 0
                    || p.has(wire::flags::FRAGMENT)
                    || port_free(s))
        }
        ProtoM::AnyIcmp => wire::is_icmp(p.proto),
    };
    if !proto_ok {
        return false;
    }
    let cur = flow.map_or(app::AppProto::Unknown, |f| f.app_proto);
    if let Some(ap) = s.app_proto {
        if flow.is_none() || !proto_matches(ap, s.http_only, packet_app_proto(s, p, flow, cur)) {
            return false;
        }
    }
    for c in &s.alp {
        // A negated name holds only once the flow's protocol is known (Suricata 7.0.10:
        // `app-layer-protocol:!http` never matches before detection; found by the
        // differential harness's `flowkw` family).
        if proto_matches(c.proto, c.only, cur) == c.negated
            || (c.negated && cur == app::AppProto::Unknown)
        {
            return false;
        }
    }
    // A packet whose IP header did not decode (only decoder-event rules get here, see
    // `events::undecoded_ok`) has no addresses or ports: as in Suricata 7.0.10, the
    // rule's are not checked (`alert ip 10.0.0.0/24 any -> ... (decode-event:
    // ethernet.pkt_too_small;)` alerts on every such frame; difftest `events/link`).
    if p.ip_version == 0 || p.has(wire::flags::IP_HDR_BROKEN) {
        return true;
    }
    // The same outcome for every rule with the same addresses, ports and `<>`.
    ends.get(s.ends, || {
        ends_ok(s, p, false) || (s.bidir && ends_ok(s, p, true))
    })
}

/// Whether a TCP/UDP rule asks nothing of the transport header: any port either way
/// and no payload. Suricata 7.0.10 matches such a rule on a packet of its protocol
/// whose header did not decode (no header at all, a truncated one, a UDP length below
/// 8), with ports 0 and its other conditions (`ttl`, addresses) checked: sv-ether's
/// frames 8297, 10643-10649, 21270, 36569/36570 and 183282 alert `alert tcp any any ->
/// any any` and `alert udp ...`, `alert udp any any -> any 53` and a `content` rule do
/// not.
fn port_free(s: &Sig) -> bool {
    s.sports.is_any() && s.dports.is_any() && s.payload.is_none() && s.app.is_empty()
}

/// Whether the packet matches a rule's addresses and ports as written, or read
/// `backwards` (the other direction of a `<>` rule).
pub(crate) fn ends_ok(s: &Sig, p: &wire::Packet, backwards: bool) -> bool {
    let v4 = p.ip_version == 4;
    let (mut src, mut dst) = (wire::ip_addr(v4, &p.src), wire::ip_addr(v4, &p.dst));
    let (mut sport, mut dport) = (p.sport, p.dport);
    if backwards {
        std::mem::swap(&mut src, &mut dst);
        std::mem::swap(&mut sport, &mut dport);
    }
    let ports = wire::has_ports(p.proto);
    let port_ok = |set: &rules::PortSet, port: u16| {
        if ports {
            set.contains(port)
        } else {
            set.is_any()
        }
    };
    s.src.contains(src)
        && s.dst.contains(dst)
        && port_ok(&s.sports, sport)
        && port_ok(&s.dports, dport)
}

pub(super) fn flow_ok(s: &Sig, flow: Option<FlowInfo>) -> bool {
    let f = &s.flow;
    if !f.needs_flow {
        return true;
    }
    let Some(fi) = flow else { return false };
    (!f.to_server || fi.to_server)
        && (!f.to_client || !fi.to_server)
        && (!f.established || fi.established)
        && (!f.not_established || !fi.established)
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn icmp_has_id_seq(p: &wire::Packet) -> bool {
    match p.proto {
        1 => matches!(p.icmp_type, 0 | 8 | 13 | 14 | 15 | 16 | 17 | 18),
        58 => matches!(p.icmp_type, 128 | 129),
        _ => false,
    }
}

/// `dsize` as Suricata evaluates it: a negated non-zero size (`dsize:!N`) makes the
/// rule require a payload (Suricata's signature mask), so it never matches an empty
/// packet; `<N` and `<=N` do match empty packets.
pub(crate) fn dsize_ok(c: &rules::IntCmp, len: u64) -> bool {
    if len == 0 && matches!(c, rules::IntCmp::Ne(n) if *n > 0) {
        return false;
    }
    c.matches(len)
}

/// Whether option `o` holds on packet `p` of flow `flow`; `real` is false on an end-of-flow
/// pseudo-packet, where Suricata 7.0.10 does not match `iprep` (checked on sv-ether's
/// DNS flows).
pub(super) fn pkt_opt_ok(o: &PktOpt, input: &Input<'_>, fd: &FlowDetect) -> bool {
    let (p, frame, real, flow) = (input.packet, input.frame, input.packet_rules, input.flow);
    let tcp = p.is_tcp();
    let icmp = wire::is_icmp(p.proto) && p.l4_off != 0;
    match o {
        PktOpt::Dsize(c) => dsize_ok(c, p.payload_len as u64),
        PktOpt::Flags(f) => tcp && f.matches(p.tcp_flags),
        PktOpt::Ttl(c) => c.matches(p.ttl as u64),
        PktOpt::Itype(c) => icmp && c.matches(p.icmp_type as u64),
        PktOpt::Icode(c) => icmp && c.matches(p.icmp_code as u64),
        PktOpt::IcmpId(v) => {
            icmp && icmp_has_id_seq(p) && be16(frame, p.l4_off as usize + 4) == Some(*v)
        }
        PktOpt::IcmpSeq(v) => {
            icmp && icmp_has_id_seq(p) && be16(frame, p.l4_off as usize + 6) == Some(*v)
        }
        PktOpt::Seq(v) => tcp && p.seq == *v,
        PktOpt::Ack(v) => tcp && p.ack == *v,
        PktOpt::Window { negated, size } => tcp && (p.window == *size) != *negated,
        PktOpt::IpId(v) => p.ip_version == 4 && p.ip_id as u16 == *v,
        PktOpt::Tos { negated, value } => p.ip_version == 4 && (p.tos == *value) != *negated,
        PktOpt::IpProto { op, proto } => op.matches(p.proto, *proto),
        PktOpt::SameIp => p.src == p.dst,
        PktOpt::Intel(i) => real && i.matches(p),
        PktOpt::Hdr(crate::packet_opts::HdrOpt::Stream(e)) => crate::stream_event::holds(*e, flow),
        PktOpt::Hdr(h) => h.matches(p, frame),
        PktOpt::State(c) => c.matches(flow, p.ts.secs()),
        PktOpt::Lua(l) => real && l.matches(p, frame, flow, fd),
        PktOpt::HdrBuf(h) => h.matches(p, frame),
    }
}

#[cfg(test)]
mod dsize_tests {
    use super::dsize_ok;
    use rules::IntCmp;

    #[test]
    fn negated_dsize_needs_a_payload() {
        assert!(!dsize_ok(&IntCmp::Ne(9), 0));
        assert!(dsize_ok(&IntCmp::Ne(9), 10));
        assert!(!dsize_ok(&IntCmp::Ne(9), 9));
        assert!(dsize_ok(&IntCmp::Lt(10), 0));
        assert!(dsize_ok(&IntCmp::Le(10), 0));
        assert!(dsize_ok(&IntCmp::Eq(0), 0));
    }
}

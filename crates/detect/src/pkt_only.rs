//! Which payloads a rule with packet-header keywords inspects, as Suricata 7.0.10 does:
//! a header keyword (`ttl`, `tos`, `id`, `flags`, `window`, `seq`, `ack`, `fragbits`,
//! `fragoffset`, `ip_proto`) or a header buffer (`ipv4.hdr`, `ipv6.hdr`, `tcp.hdr`,
//! `udp.hdr`, `icmpv4.hdr`, `icmpv6.hdr`) makes the rule's payload contents match the
//! packet's payload only, never the reassembled stream; `stream_size` has them match
//! the packet as well as the stream. Measured with Suricata on one TCP flow whose
//! client data packet (4) holds the content and whose FIN (6) flushes the stream:
//! `ttl:64; content:...` alerts on packet 4 only, `content:...` alone on 6, with
//! `stream_size` on 4 and 6, with `flow`, `flowbits` or `l3_proto` on 6. Found by the
//! differential harness (tests/parity/difftest/fixed/dt-1-6). `flow.age` binds the rule
//! to the packet as the header keywords do (the `flowkw` family, dt-1-flowkw-16).

use rules::{Buffer, Opt, Rule};

use crate::sig::PayloadMode;

/// A header keyword or buffer that binds the rule to the packet.
fn binds_packet(r: &Rule) -> bool {
    r.options.iter().any(|o| {
        matches!(
            o,
            Opt::Ttl(_)
                | Opt::Tos { .. }
                | Opt::IpId(_)
                | Opt::Flags(_)
                | Opt::Window { .. }
                | Opt::Seq(_)
                | Opt::Ack(_)
                | Opt::Fragbits(_)
                | Opt::Fragoffset(_)
                | Opt::IpProto { .. }
        ) || matches!(
            o,
            Opt::Keyword {
                name: "flow.age",
                ..
            }
        )
    }) || r.buffers.iter().any(|b| {
        matches!(
            b.buffer,
            Buffer::Ipv4Hdr
                | Buffer::Ipv6Hdr
                | Buffer::TcpHdr
                | Buffer::UdpHdr
                | Buffer::Icmpv4Hdr
                | Buffer::Icmpv6Hdr
        )
    })
}

/// The payload mode of rule `r` after its header keywords are taken into account.
pub(crate) fn settle(mode: PayloadMode, r: &Rule) -> PayloadMode {
    match mode {
        PayloadMode::Both | PayloadMode::BothAndPacket if binds_packet(r) => PayloadMode::Packet,
        PayloadMode::Both
            if r.options
                .iter()
                .any(|o| matches!(o, Opt::StreamSize { .. })) =>
        {
            PayloadMode::BothAndPacket
        }
        m => m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(opts: &str) -> PayloadMode {
        let vars = rules::Vars::suricata_default();
        let rule = format!("alert tcp any any -> any any ({opts} sid:1;)");
        let (set, _) = rules::RuleSet::load_str(&rule, None, &vars, &Default::default());
        settle(PayloadMode::Both, &set.rules[0].rule)
    }

    #[test]
    fn header_keywords_bind_contents_to_the_packet() {
        for k in [
            "ttl:64;",
            "tos:0;",
            "id:1;",
            "flags:PA;",
            "window:5;",
            "seq:1;",
            "ack:1;",
            "fragbits:D;",
            "fragoffset:0;",
            "tcp.hdr; content:\"|00|\"; pkt_data;",
        ] {
            assert_eq!(
                mode(&format!("{k} content:\"x\";")),
                PayloadMode::Packet,
                "{k}"
            );
        }
        for k in [
            "flow:established;",
            "flowbits:isnotset,x;",
            "l3_proto:ipv4;",
            "",
        ] {
            assert_eq!(
                mode(&format!("{k} content:\"x\";")),
                PayloadMode::Both,
                "{k}"
            );
        }
        assert_eq!(
            mode("stream_size:client,>,0; content:\"x\";"),
            PayloadMode::BothAndPacket
        );
    }
}

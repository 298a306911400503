//! The protocol of a rule's header: which packets it can match (IP version, transport)
//! and, for an application-layer protocol name, the protocol the app layer must detect.

use rules::Protocol;
use wire::ip_proto;

use crate::sig::{unsupported, ProtoM, Refusal};

/// The packet matcher and the app-layer protocol of header protocol `p`; a protocol the
/// app layer does not detect is an unsupported rule.
pub(crate) fn compile(p: Protocol) -> Result<(ProtoM, Option<app::AppProto>), Refusal> {
    Ok(match p {
        Protocol::Ip => (ProtoM::Ip(None), None),
        Protocol::Ipv4 => (ProtoM::Ip(Some(4)), None),
        Protocol::Ipv6 => (ProtoM::Ip(Some(6)), None),
        Protocol::Tcp | Protocol::TcpPkt | Protocol::TcpStream => (ProtoM::L4(ip_proto::TCP), None),
        Protocol::Udp => (ProtoM::L4(ip_proto::UDP), None),
        Protocol::Icmp => (ProtoM::AnyIcmp, None),
        Protocol::Icmpv4 => (ProtoM::L4(1), None),
        Protocol::Icmpv6 => (ProtoM::L4(58), None),
        Protocol::Sctp => (ProtoM::L4(132), None),
        Protocol::Pkthdr => (ProtoM::Ip(None), None),
        Protocol::App(a) => match app::registry::rule_name(a.name()) {
            Some((n, true)) => (ProtoM::L4(ip_proto::TCP), Some(n.proto)),
            Some((n, false)) => (ProtoM::Ip(None), Some(n.proto)),
            None => {
                return Err(unsupported(
                    a.name(),
                    format!("protocol {}: not detected by the app layer", a.name()),
                ))
            }
        },
    })
}

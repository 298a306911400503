//! `ip_proto` is an option of `ip` rules only (`alert ip`, `ipv4`, `ipv6`): Suricata
//! 7.0.10 refuses it in a rule of any other protocol ("Signature can use ip_proto keyword
//! only when we use alert ip"), `tcp-pkt` and application protocols included. Found by
//! the differential harness (tests/parity/difftest/fixed/dt-1-1319).

use rules::{IpProtoOp, Protocol};

use crate::sig::{failed, PktOpt, Refusal};

/// The packet option of `ip_proto` in a rule of protocol `p`, or its refusal.
pub(crate) fn compile(p: Protocol, op: IpProtoOp, proto: u8) -> Result<PktOpt, Refusal> {
    if !matches!(p, Protocol::Ip | Protocol::Ipv4 | Protocol::Ipv6) {
        return Err(failed(
            "ip_proto",
            "ip_proto is only allowed in an ip rule (alert ip, ipv4, ipv6)",
        ));
    }
    Ok(PktOpt::IpProto { op, proto })
}

#[cfg(test)]
mod tests {
    use crate::testutil::refused;

    /// The answers of `suricata -T` (7.0.10).
    #[test]
    fn ip_proto_only_in_ip_rules() {
        for (proto, no) in [
            ("ip", false),
            ("ipv4", false),
            ("ipv6", false),
            ("tcp", true),
            ("tcp-pkt", true),
            ("udp", true),
            ("http", true),
        ] {
            let r = format!("alert {proto} any any -> any any (ip_proto:6; sid:1;)");
            assert_eq!(refused(&r), no, "{r}");
        }
    }
}

//! SNMP messages (v1 RFC 1157, v2c RFC 1901/3416, v3 RFC 3412/3414) through
//! rusticata's `snmp-parser`, reduced to the fields Suricata logs and matches
//! ([`SnmpInfo`]).

use snmp_parser::snmp::{NetworkAddress, SnmpPdu, TrapType};
use snmp_parser::snmpv3::{ScopedPduData, SecurityParameters};
use snmp_parser::{parse_snmp_generic_message, SnmpGenericMessage};

/// The fields of one message Suricata logs and matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnmpInfo {
    /// The message's version field, as Suricata gives it (1 for v1, 2 for v2c, 3).
    pub version: u32,
    /// The PDU's tag (0 get_request ... 8 report), `None` for an encrypted v3 PDU.
    pub pdu_type: Option<u32>,
    /// v1 traps: the generic trap type, enterprise OID and agent address.
    pub trap: Option<(String, String, String)>,
    /// Each variable binding's OID, dotted.
    pub vars: Vec<String>,
    /// v1/v2c: the community string.
    pub community: Option<Vec<u8>>,
    /// v3: the USM user name.
    pub usm: Option<Vec<u8>>,
}

/// Suricata's name of a PDU type (`get_request`, `trap_v1`, ...).
pub fn pdu_type_name(t: Option<u32>) -> String {
    match t {
        None => "encrypted".into(),
        Some(0) => "get_request".into(),
        Some(1) => "get_next_request".into(),
        Some(2) => "response".into(),
        Some(3) => "set_request".into(),
        Some(4) => "trap_v1".into(),
        Some(5) => "get_bulk_request".into(),
        Some(6) => "inform_request".into(),
        Some(7) => "trap_v2".into(),
        Some(8) => "report".into(),
        Some(n) => format!("{n}"),
    }
}

fn trap_name(t: TrapType) -> String {
    match t.0 {
        0 => "coldStart".into(),
        1 => "warmStart".into(),
        2 => "linkDown".into(),
        3 => "linkUp".into(),
        4 => "authenticationFailure".into(),
        5 => "egpNeighborLoss".into(),
        6 => "enterpriseSpecific".into(),
        n => format!("{n}"),
    }
}

fn pdu_info(pdu: &SnmpPdu, out: &mut SnmpInfo) {
    out.pdu_type = Some(pdu.pdu_type().0);
    if let SnmpPdu::TrapV1(t) = pdu {
        out.trap = Some((
            trap_name(t.generic_trap),
            t.enterprise.to_id_string(),
            match t.agent_addr {
                NetworkAddress::IPv4(a) => a.to_string(),
            },
        ));
    }
    out.vars = pdu.vars_iter().map(|v| v.oid.to_id_string()).collect();
}

/// Parses one SNMP message; `None` when it does not parse.
pub fn parse_message(data: &[u8]) -> Option<SnmpInfo> {
    let (_, m) = parse_snmp_generic_message(data).ok()?;
    let mut out = SnmpInfo::default();
    match m {
        SnmpGenericMessage::V1(m) | SnmpGenericMessage::V2(m) => {
            out.version = m.version + 1;
            out.community = Some(m.community.as_bytes().to_vec());
            pdu_info(&m.pdu, &mut out);
        }
        SnmpGenericMessage::V3(m) => {
            out.version = m.version;
            if let SecurityParameters::USM(u) = &m.security_params {
                out.usm = Some(u.msg_user_name.as_bytes().to_vec());
            }
            if let ScopedPduData::Plaintext(p) = &m.data {
                pdu_info(&p.data, &mut out);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut m = vec![0x30];
            m.extend_from_slice(&data);
            let _ = parse_message(&m);
            let _ = parse_message(&data);
        }
    }
}

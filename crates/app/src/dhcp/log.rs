//! The EVE `dhcp` object as Suricata writes it with `extended: no`: only for DHCPACK
//! messages (enough to map a MAC address to an IP address): `type`, `id`,
//! `client_mac`, `assigned_ip`, then in option order `dhcp_type`, `renewal_time` and
//! `hostname`.

use serde_json::{Map, Value};

use super::parser::{self, OPT_HOSTNAME, OPT_MSG_TYPE, OPT_RENEWAL_TIME};
use super::state::DhcpTx;

/// The DHCPACK message type.
const ACK: u8 = 5;

/// The `dhcp` object of a message, `None` for messages other than DHCPACK.
pub fn dhcp_object(tx: &DhcpTx) -> Option<Value> {
    let m = &tx.msg;
    if m.msg_type() != Some(ACK) {
        return None;
    }
    let mut o = Map::new();
    let kind = if m.op == 1 { "request" } else { "reply" };
    o.insert("type".into(), kind.into());
    o.insert("id".into(), m.xid.into());
    let mac: Vec<String> = m
        .chaddr
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    o.insert("client_mac".into(), mac.join(":").into());
    o.insert("assigned_ip".into(), m.yiaddr.to_string().into());
    for (code, v) in &m.options {
        match *code {
            OPT_MSG_TYPE => {
                let t = v.first().copied().unwrap_or(0);
                o.insert("dhcp_type".into(), parser::msg_type_name(t).into());
            }
            OPT_RENEWAL_TIME => {
                if let Some(t) = m.time(OPT_RENEWAL_TIME) {
                    o.insert("renewal_time".into(), t.into());
                }
            }
            OPT_HOSTNAME => {
                o.insert(
                    "hostname".into(),
                    String::from_utf8_lossy(v).into_owned().into(),
                );
            }
            _ => {}
        }
    }
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_ack_as_suricata_logs_it() {
        let msg = parser::parse_message(parser::tests::ACK).unwrap();
        let o = dhcp_object(&DhcpTx { id: 0, msg }).unwrap();
        assert_eq!(
            o.to_string(),
            r#"{"type":"reply","id":4016330564,"client_mac":"00:11:32:17:49:f0","assigned_ip":"10.16.1.4","dhcp_type":"ack","renewal_time":1681,"hostname":"nas1\u0000"}"#
        );
        let mut msg = parser::parse_message(parser::tests::ACK).unwrap();
        msg.options[0].1 = vec![3];
        assert!(dhcp_object(&DhcpTx { id: 0, msg }).is_none());
    }
}

//! The EVE `ike` object, in Suricata's key order: `version_major`, `version_minor`,
//! `init_spi`, `resp_spi`, `message_id`, `exchange_type`; for IKEv1 the attributes of
//! the responder's chosen transform (`alg_enc`, `alg_enc_raw`, ...), for IKEv2 the
//! `role` and, in a responder's message, the chosen `alg_*`; then `payload` (the
//! payload types) and an `ikev1` object (`doi`, `encrypted_payloads`, and when not
//! encrypted each side's key exchange and nonce, the initiator's `proposals`,
//! `vendor_ids`) or an `ikev2` one (`errors`, `notify`).

use serde_json::{Map, Value};

use super::parser::{attr_key, attr_value_name, AttrValue, Transform};
use super::state::{IkeTx, Side};
use crate::tls::ja3::hex_lower as hex;
use crate::Direction;

/// Each attribute as `<key>` (its value's name) and `<key>_raw` (the number, or the
/// bytes as hex); a repeated attribute takes its last value.
fn attributes(t: &Transform, o: &mut Map<String, Value>) {
    for a in t {
        let key = attr_key(a.kind);
        o.insert(key.into(), attr_value_name(a.kind, a.num()).into());
        let raw = match &a.value {
            AttrValue::Num(n) => Value::from(*n),
            AttrValue::Bytes(b) => hex(b).into(),
        };
        o.insert(format!("{key}_raw"), raw);
    }
}

fn side(s: &Side, o: &mut Map<String, Value>) {
    if let Some(k) = &s.key_exchange {
        o.insert("key_exchange_payload".into(), hex(k).into());
        o.insert("key_exchange_payload_length".into(), k.len().into());
    }
    if let Some(n) = &s.nonce {
        o.insert("nonce_payload".into(), hex(n).into());
        o.insert("nonce_payload_length".into(), n.len().into());
    }
}

fn ikev1(tx: &IkeTx) -> Value {
    let mut o = Map::new();
    if let Some(doi) = tx.known.doi {
        o.insert("doi".into(), doi.into());
    }
    o.insert("encrypted_payloads".into(), tx.encrypted.into());
    if tx.encrypted {
        return Value::Object(o);
    }
    let mut client = Map::new();
    side(&tx.known.client, &mut client);
    if tx.dir == Direction::ToServer && !tx.proposals.is_empty() {
        let p = tx.proposals.iter().map(|t| {
            let mut m = Map::new();
            attributes(t, &mut m);
            Value::Object(m)
        });
        client.insert("proposals".into(), p.collect());
    }
    o.insert("client".into(), Value::Object(client));
    let mut server = Map::new();
    side(&tx.known.server, &mut server);
    o.insert("server".into(), Value::Object(server));
    if !tx.vendor_ids.is_empty() {
        let v = tx.vendor_ids.iter().map(|v| Value::from(hex(v)));
        o.insert("vendor_ids".into(), v.collect());
    }
    Value::Object(o)
}

/// The `ike` object of a message.
pub fn ike_object(tx: &IkeTx) -> Value {
    let h = &tx.hdr;
    let mut o = Map::new();
    o.insert("version_major".into(), h.major.into());
    o.insert("version_minor".into(), h.minor.into());
    o.insert("init_spi".into(), hex(&h.init_spi).into());
    o.insert("resp_spi".into(), hex(&h.resp_spi).into());
    o.insert("message_id".into(), h.message_id.into());
    o.insert("exchange_type".into(), h.exchange_type.into());
    if h.major == 1 {
        if let Some(t) = &tx.known.chosen {
            attributes(t, &mut o);
        }
    } else if h.flags & 0x08 != 0 {
        o.insert("role".into(), "initiator".into());
    } else {
        o.insert("role".into(), "responder".into());
        for (k, v) in tx.known.v2_chosen.names() {
            o.insert(k.into(), v.into());
        }
    }
    o.insert(
        "payload".into(),
        tx.payload_types
            .iter()
            .map(|t| Value::from(t.as_str()))
            .collect(),
    );
    match &tx.v2 {
        None => {
            o.insert("ikev1".into(), ikev1(tx));
        }
        Some(v2) => {
            let mut m = Map::new();
            m.insert("errors".into(), v2.errors.into());
            m.insert(
                "notify".into(),
                v2.notify.iter().map(|t| Value::from(t.as_str())).collect(),
            );
            o.insert("ikev2".into(), Value::Object(m));
        }
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::super::state::IkeState;
    use super::*;
    use crate::AppCtx;

    const SA_INIT: &[u8] = include_bytes!("testdata/v1_sa_init.bin");
    const SA_RESP: &[u8] = include_bytes!("testdata/v1_sa_resp.bin");
    const KE_INIT: &[u8] = include_bytes!("testdata/v1_ke_init.bin");
    const ENC: &[u8] = include_bytes!("testdata/v1_enc.bin");

    #[test]
    fn records_as_suricata_writes_them() {
        let mut ctx = AppCtx::default();
        let mut s = IkeState::default();
        s.message(&mut ctx, Direction::ToServer, SA_INIT);
        s.message(&mut ctx, Direction::ToClient, SA_RESP);
        s.message(&mut ctx, Direction::ToServer, KE_INIT);
        s.message(&mut ctx, Direction::ToServer, ENC);
        let o: Vec<_> = s.txs().map(|t| ike_object(t).to_string()).collect();
        // Suricata 7.0.10 on sv-ether.pcap (its `payload` lists come in hash order,
        // and it writes the repeated `sa_life_duration` twice: JSON keeps the last).
        assert_eq!(
            o[0],
            r#"{"version_major":1,"version_minor":0,"init_spi":"e47a591fd057587f","resp_spi":"0000000000000000","message_id":0,"exchange_type":2,"payload":["SecurityAssociation","VendorID","Proposal","Transform"],"ikev1":{"doi":1,"encrypted_payloads":false,"client":{"proposals":[{"alg_enc":"EncAesCbc","alg_enc_raw":7,"sa_key_length":"Unknown","sa_key_length_raw":128,"alg_hash":"HashSha","alg_hash_raw":2,"sa_life_duration":"Unknown","sa_life_duration_raw":65535,"alg_dh":"GroupAlternate1024BitModpGroup","alg_dh_raw":2,"alg_auth":"AuthPreSharedKey","alg_auth_raw":1,"sa_life_type":"LifeTypeSeconds","sa_life_type_raw":1}]},"server":{},"vendor_ids":["4a131c81070358455c5728f20e95452f","439b59f8ba676c4c7737ae22eab8f582","7d9419a65310ca6f2c179d9215529d56","90cb80913ebb696e086381b5ec427b1f"]}}"#
        );
        assert_eq!(
            o[1],
            r#"{"version_major":1,"version_minor":0,"init_spi":"e47a591fd057587f","resp_spi":"a00b8ef0902bb8ec","message_id":0,"exchange_type":2,"alg_enc":"EncAesCbc","alg_enc_raw":7,"sa_key_length":"Unknown","sa_key_length_raw":128,"alg_hash":"HashSha","alg_hash_raw":2,"alg_dh":"GroupAlternate1024BitModpGroup","alg_dh_raw":2,"alg_auth":"AuthPreSharedKey","alg_auth_raw":1,"sa_life_type":"LifeTypeSeconds","sa_life_type_raw":1,"sa_life_duration":"Unknown","sa_life_duration_raw":86400,"payload":["SecurityAssociation","VendorID","Proposal","Transform"],"ikev1":{"doi":1,"encrypted_payloads":false,"client":{},"server":{},"vendor_ids":["4a131c81070358455c5728f20e95452f"]}}"#
        );
        assert!(o[2].contains(r#""client":{"key_exchange_payload":"3504d3d2"#));
        assert!(o[2].contains(r#""nonce_payload":"89d7c8fbf94b515b521d5d9589c2602021e1a709","nonce_payload_length":20},"server":{}"#));
        assert!(o[3].ends_with(
            r#""payload":["Identification"],"ikev1":{"doi":1,"encrypted_payloads":true}}"#
        ));
    }
}

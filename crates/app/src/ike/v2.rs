//! IKEv2 (RFC 7296) payloads, read with rusticata's `ipsec-parser`: the payload types
//! of a message, its notifications, and the checks Suricata makes on proposed
//! transforms (weak or missing algorithms, raised as `ike.*` events).

use ipsec_parser::{
    parse_ikev2_payload_list, IkePayloadType, IkeTransformAuthType, IkeTransformDHType,
    IkeTransformEncType, IkeTransformPRFType, IkeV2PayloadContent, IkeV2Transform, ProtocolID,
};

/// The algorithms a responder chose (the last of each kind in its SA payload), by
/// transform ID; zero until it answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chosen {
    /// Encryption.
    pub enc: u16,
    /// Integrity.
    pub auth: u16,
    /// Pseudo-random function.
    pub prf: u16,
    /// Diffie-Hellman group.
    pub dh: u16,
    /// Extended sequence numbers.
    pub esn: u16,
}

impl Chosen {
    /// The EVE names, in Suricata's order: `alg_enc`, `alg_auth`, `alg_prf`, `alg_dh`,
    /// `alg_esn` (the transform names of `ipsec-parser`).
    pub fn names(&self) -> [(&'static str, String); 5] {
        [
            ("alg_enc", format!("{:?}", IkeTransformEncType(self.enc))),
            ("alg_auth", format!("{:?}", IkeTransformAuthType(self.auth))),
            ("alg_prf", format!("{:?}", IkeTransformPRFType(self.prf))),
            ("alg_dh", format!("{:?}", IkeTransformDHType(self.dh))),
            (
                "alg_esn",
                format!("{:?}", ipsec_parser::IkeTransformESNType(self.esn)),
            ),
        ]
    }
}

/// What one IKEv2 message carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct V2Payloads {
    /// The payload types, as Suricata lists them: each payload's type, then the last
    /// one's "next" (`NoNextPayload`).
    pub types: Vec<String>,
    /// The notify types, in order.
    pub notify: Vec<String>,
    /// How many notifications are errors (types below 16384).
    pub errors: u32,
    /// The transforms of the last proposal of an SA payload, as the chosen set when a
    /// responder sends it.
    pub chosen: Option<Chosen>,
    /// Key exchange data.
    pub key_exchange: Option<Vec<u8>>,
    /// Nonce data.
    pub nonce: Option<Vec<u8>>,
    /// Vendor IDs.
    pub vendor_ids: Vec<Vec<u8>>,
    /// Events raised by the proposals (indexes into [`super::EVENTS`]).
    pub events: Vec<usize>,
}

/// The payloads of an IKEv2 message after its header, starting with type `first`;
/// `None` when they do not parse.
pub fn payloads(data: &[u8], first: u8) -> Option<V2Payloads> {
    let (_, list) = parse_ikev2_payload_list(data, IkePayloadType(first)).ok()?;
    let list = list.ok()?;
    let mut out = V2Payloads::default();
    for p in &list {
        out.types.push(format!("{:?}", p.hdr.next_payload_type));
        match &p.content {
            IkeV2PayloadContent::SA(props) => {
                for prop in props {
                    let t: Vec<IkeV2Transform> = prop.transforms.iter().map(Into::into).collect();
                    check(&t, prop.protocol_id, &mut out.events);
                    let mut c = out.chosen.unwrap_or_default();
                    for x in &t {
                        match x {
                            IkeV2Transform::Encryption(e) => c.enc = e.0,
                            IkeV2Transform::Auth(a) => c.auth = a.0,
                            IkeV2Transform::PRF(p) => c.prf = p.0,
                            IkeV2Transform::DH(d) => c.dh = d.0,
                            IkeV2Transform::ESN(e) => c.esn = e.0,
                            IkeV2Transform::Unknown(..) => {}
                        }
                    }
                    out.chosen = Some(c);
                }
            }
            IkeV2PayloadContent::KE(k) => out.key_exchange = Some(k.kex_data.to_vec()),
            IkeV2PayloadContent::Nonce(n) => out.nonce = Some(n.nonce_data.to_vec()),
            IkeV2PayloadContent::VendorID(v) => out.vendor_ids.push(v.vendor_id.to_vec()),
            IkeV2PayloadContent::Notify(n) => {
                if n.notify_type.is_error() {
                    out.errors += 1;
                }
                out.notify.push(format!("{:?}", n.notify_type));
            }
            _ => {}
        }
    }
    Some(out)
}

fn raise(events: &mut Vec<usize>, e: usize) {
    if !events.contains(&e) {
        events.push(e)
    }
}

/// Suricata's checks of one proposal's transforms.
fn check(t: &[IkeV2Transform], proto: ProtocolID, ev: &mut Vec<usize>) {
    use super::proto::{
        INVALID_PROPOSAL, NO_ENCRYPTION, UNKNOWN_PROPOSAL, WEAK_CRYPTO_AUTH, WEAK_CRYPTO_DH,
        WEAK_CRYPTO_ENC, WEAK_CRYPTO_NO_AUTH, WEAK_CRYPTO_NO_DH, WEAK_CRYPTO_PRF,
    };
    for x in t {
        match x {
            // DES, 3DES, RC5, IDEA, CAST, Blowfish, 3IDEA, DES_IV32, NULL.
            IkeV2Transform::Encryption(e) if (1..=9).contains(&e.0) || e.0 == 11 => {
                raise(ev, WEAK_CRYPTO_ENC)
            }
            IkeV2Transform::PRF(p) if p.0 == 0 => raise(ev, INVALID_PROPOSAL),
            // HMAC-MD5, HMAC-SHA1.
            IkeV2Transform::PRF(p) if p.0 == 1 || p.0 == 2 => raise(ev, WEAK_CRYPTO_PRF),
            // HMAC-MD5-96, HMAC-SHA1-96, DES-MAC, KPDK-MD5, AES-XCBC-96, HMAC-MD5-128,
            // HMAC-SHA1-160.
            IkeV2Transform::Auth(a) if (1..=7).contains(&a.0) => raise(ev, WEAK_CRYPTO_AUTH),
            IkeV2Transform::DH(d) if d.0 == 0 => raise(ev, INVALID_PROPOSAL),
            // MODP 768, 1024, 1536 and 1024 with a 160-bit subgroup.
            IkeV2Transform::DH(d) if matches!(d.0, 1 | 2 | 5 | 22) => raise(ev, WEAK_CRYPTO_DH),
            IkeV2Transform::Unknown(..) => raise(ev, UNKNOWN_PROPOSAL),
            _ => {}
        }
    }
    if !t.iter().any(|x| matches!(x, IkeV2Transform::DH(_))) {
        raise(ev, WEAK_CRYPTO_NO_DH);
    }
    if proto == ProtocolID::AH {
        raise(ev, NO_ENCRYPTION);
    }
    let auth = t
        .iter()
        .any(|x| matches!(x, IkeV2Transform::Auth(a) if a.0 != 0));
    let aead = t
        .iter()
        .any(|x| matches!(x, IkeV2Transform::Encryption(e) if e.is_aead()));
    if !auth && !aead {
        raise(ev, WEAK_CRYPTO_NO_AUTH);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An IKE_SA_INIT request's payloads as strongSwan sends them: SA (one proposal:
    /// AES-CBC-128, HMAC-SHA1-96, PRF-HMAC-SHA1, MODP-2048), KE (group 14) and a nonce.
    fn sa_init() -> Vec<u8> {
        let mut t = Vec::new();
        // Transforms: type, reserved, id, (attribute for the key length).
        let xf = |last: bool, ty: u8, id: u16, attrs: &[u8]| {
            let mut v = vec![if last { 0 } else { 3 }, 0];
            v.extend_from_slice(&((8 + attrs.len()) as u16).to_be_bytes());
            v.extend_from_slice(&[ty, 0]);
            v.extend_from_slice(&id.to_be_bytes());
            v.extend_from_slice(attrs);
            v
        };
        t.extend(xf(false, 1, 12, &[0x80, 0x0e, 0, 128]));
        t.extend(xf(false, 3, 2, &[]));
        t.extend(xf(false, 2, 2, &[]));
        t.extend(xf(true, 4, 14, &[]));
        let mut prop = vec![0, 0];
        prop.extend_from_slice(&((8 + t.len()) as u16).to_be_bytes());
        prop.extend_from_slice(&[1, 1, 0, 4]);
        prop.extend(t);
        let mut msg = vec![34, 0];
        msg.extend_from_slice(&((4 + prop.len()) as u16).to_be_bytes());
        msg.extend(prop);
        // KE: group 14, 8 bytes of data.
        msg.extend_from_slice(&[40, 0, 0, 16, 0, 14, 0, 0]);
        msg.extend_from_slice(&[7; 8]);
        // Nonce: 16 bytes.
        msg.extend_from_slice(&[0, 0, 0, 20]);
        msg.extend_from_slice(&[9; 16]);
        msg
    }

    #[test]
    fn an_sa_init_request() {
        let p = payloads(&sa_init(), 33).unwrap();
        assert_eq!(
            p.types,
            [
                "SecurityAssociation",
                "KeyExchange",
                "Nonce",
                "NoNextPayload"
            ]
        );
        assert_eq!(p.key_exchange.as_deref(), Some(&[7u8; 8][..]));
        assert_eq!(p.nonce.as_deref(), Some(&[9u8; 16][..]));
        let c = p.chosen.unwrap();
        assert_eq!((c.enc, c.auth, c.prf, c.dh), (12, 2, 2, 14));
        assert_eq!(c.names()[0].1, "ENCR_AES_CBC");
        // SHA1 as PRF and for integrity is weak.
        use super::super::proto::{WEAK_CRYPTO_AUTH, WEAK_CRYPTO_PRF};
        assert_eq!(p.events, [WEAK_CRYPTO_AUTH, WEAK_CRYPTO_PRF]);
        assert!(payloads(&sa_init()[..30], 33).is_none());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400), first in 30u8..50) {
            let _ = payloads(&data, first);
        }
    }
}

//! The ISAKMP header (RFC 2408 3.1, shared by IKEv1 and IKEv2) and the IKEv1 payload
//! chain (RFC 2408 3.2-3.16, RFC 2409 appendix A): security associations with their
//! proposals, transforms and attributes, key exchange, nonce and vendor ID payloads.
//! IKEv2 payloads are read by [`super::v2`] with rusticata's `ipsec-parser`.

/// The fixed header's length.
pub const HEADER_LEN: usize = 28;

/// The ISAKMP header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Initiator's SPI.
    pub init_spi: [u8; 8],
    /// Responder's SPI (zero in the first message).
    pub resp_spi: [u8; 8],
    /// Type of the first payload.
    pub next_payload: u8,
    /// Major version (1 or 2).
    pub major: u8,
    /// Minor version.
    pub minor: u8,
    /// Exchange type.
    pub exchange_type: u8,
    /// Flags (IKEv1: bit 0 encryption; IKEv2: bit 3 initiator, bit 5 response).
    pub flags: u8,
    /// Message ID.
    pub message_id: u32,
    /// Length of the whole message, header included.
    pub length: u32,
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The header at the start of `data`, if there are [`HEADER_LEN`] bytes.
pub fn header(data: &[u8]) -> Option<Header> {
    let h = data.get(..HEADER_LEN)?;
    Some(Header {
        init_spi: h[0..8].try_into().ok()?,
        resp_spi: h[8..16].try_into().ok()?,
        next_payload: h[16],
        major: h[17] >> 4,
        minor: h[17] & 0x0f,
        exchange_type: h[18],
        flags: h[19],
        message_id: be32(&h[20..24]),
        length: be32(&h[24..28]),
    })
}

/// IKEv1 payload types (RFC 2408 3.1, RFC 3947 for NAT discovery).
pub mod v1_type {
    /// Security association.
    pub const SA: u8 = 1;
    /// Proposal (inside an SA).
    pub const PROPOSAL: u8 = 2;
    /// Transform (inside a proposal).
    pub const TRANSFORM: u8 = 3;
    /// Key exchange.
    pub const KEY_EXCHANGE: u8 = 4;
    /// Nonce.
    pub const NONCE: u8 = 10;
    /// Vendor ID.
    pub const VENDOR_ID: u8 = 13;
}

/// The value of an SA attribute: basic (a 16-bit value, or a variable one of at most
/// 8 bytes, read as an integer) or longer bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// An integer value.
    Num(u64),
    /// A variable value over 8 bytes.
    Bytes(Vec<u8>),
}

/// One attribute of an IKEv1 transform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// Attribute type (RFC 2409 appendix A: 1 encryption, 2 hash, ...).
    pub kind: u16,
    /// Its value.
    pub value: AttrValue,
}

impl Attribute {
    /// The value as an integer, if it is one.
    pub fn num(&self) -> Option<u64> {
        match self.value {
            AttrValue::Num(n) => Some(n),
            AttrValue::Bytes(_) => None,
        }
    }
}

/// The transforms of one IKEv1 transform payload: its attributes, in order.
pub type Transform = Vec<Attribute>;

/// What one unencrypted IKEv1 message carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct V1Payloads {
    /// The payload types met, each once, in order (proposals and transforms count).
    pub types: Vec<u8>,
    /// The domain of interpretation of the first SA payload.
    pub doi: Option<u32>,
    /// The transforms of every proposal of the SA payloads, in order.
    pub transforms: Vec<Transform>,
    /// The key exchange data.
    pub key_exchange: Option<Vec<u8>>,
    /// The nonce.
    pub nonce: Option<Vec<u8>>,
    /// The vendor IDs.
    pub vendor_ids: Vec<Vec<u8>>,
}

/// The most payloads read from one message (a longer chain is malformed).
const MAX_PAYLOADS: usize = 256;

/// Walks a chain of generic payloads (next type, reserved, length, body) starting with
/// type `first`; calls `f(type, body)` for each. `None` when a length is bad.
fn chain<'a>(
    mut data: &'a [u8],
    first: u8,
    mut f: impl FnMut(u8, &'a [u8]) -> Option<()>,
) -> Option<()> {
    let mut kind = first;
    let mut n = 0;
    while kind != 0 {
        n += 1;
        if data.len() < 4 || n > MAX_PAYLOADS {
            return None;
        }
        let len = usize::from(be16(&data[2..4]));
        if len < 4 || len > data.len() {
            return None;
        }
        let next = data[0];
        f(kind, &data[4..len])?;
        data = &data[len..];
        kind = next;
    }
    Some(())
}

fn push_type(types: &mut Vec<u8>, t: u8) {
    if !types.contains(&t) {
        types.push(t)
    }
}

/// The attributes of a transform body's tail.
fn attributes(mut data: &[u8]) -> Option<Transform> {
    let mut out = Vec::new();
    while !data.is_empty() {
        if data.len() < 4 {
            return None;
        }
        let t = be16(data);
        if t & 0x8000 != 0 {
            out.push(Attribute {
                kind: t & 0x7fff,
                value: AttrValue::Num(u64::from(be16(&data[2..4]))),
            });
            data = &data[4..];
            continue;
        }
        let len = usize::from(be16(&data[2..4]));
        let v = data.get(4..4 + len)?;
        let value = if len <= 8 {
            AttrValue::Num(v.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b)))
        } else {
            AttrValue::Bytes(v.to_vec())
        };
        out.push(Attribute { kind: t, value });
        data = &data[4 + len..];
    }
    Some(out)
}

/// An SA payload's body: DOI, situation, then proposals of transforms.
fn sa(body: &[u8], out: &mut V1Payloads) -> Option<()> {
    if body.len() < 8 {
        return None;
    }
    out.doi.get_or_insert(be32(body));
    let types = &mut out.types;
    let transforms = &mut out.transforms;
    chain(&body[8..], v1_type::PROPOSAL, |kind, p| {
        if kind != v1_type::PROPOSAL || p.len() < 4 {
            return None;
        }
        push_type(types, kind);
        let spi_len = usize::from(p[2]);
        let rest = p.get(4 + spi_len..)?;
        let first = if p[3] == 0 { 0 } else { v1_type::TRANSFORM };
        chain(rest, first, |kind, t| {
            if kind != v1_type::TRANSFORM || t.len() < 4 {
                return None;
            }
            push_type(types, kind);
            transforms.push(attributes(&t[4..])?);
            Some(())
        })
    })
}

/// The payloads of an unencrypted IKEv1 message after its header; `None` when
/// malformed.
pub fn v1_payloads(data: &[u8], first: u8) -> Option<V1Payloads> {
    let mut out = V1Payloads::default();
    let mut sas = Vec::new();
    chain(data, first, |kind, body| {
        push_type(&mut out.types, kind);
        match kind {
            v1_type::SA => sas.push(body),
            v1_type::KEY_EXCHANGE => out.key_exchange = Some(body.to_vec()),
            v1_type::NONCE => out.nonce = Some(body.to_vec()),
            v1_type::VENDOR_ID => out.vendor_ids.push(body.to_vec()),
            _ => {}
        }
        Some(())
    })?;
    for body in sas {
        sa(body, &mut out)?;
    }
    Some(out)
}

/// Suricata's name of an IKEv1 payload type; `None` for a type it does not know.
pub fn v1_type_name(t: u8) -> Option<&'static str> {
    Some(match t {
        1 => "SecurityAssociation",
        2 => "Proposal",
        3 => "Transform",
        4 => "KeyExchange",
        5 => "Identification",
        6 => "Certificate",
        7 => "CertificateRequest",
        8 => "Hash",
        9 => "Signature",
        10 => "Nonce",
        11 => "Notification",
        12 => "Delete",
        13 => "VendorID",
        15 => "SaKekPayload",
        16 => "SaTekPayload",
        17 => "KeyDownload",
        18 => "SequenceNumber",
        19 => "ProofOfPossession",
        20 => "NatDiscovery",
        21 => "NatOriginalAddress",
        22 => "GroupAssociatedPolicy",
        _ => return None,
    })
}

/// The EVE key of an IKEv1 attribute type (RFC 2409 appendix A).
pub fn attr_key(kind: u16) -> &'static str {
    match kind {
        1 => "alg_enc",
        2 => "alg_hash",
        3 => "alg_auth",
        4 => "alg_dh",
        5 => "sa_group_type",
        6 => "sa_group_prime",
        7 => "sa_group_generator_one",
        8 => "sa_group_generator_two",
        9 => "sa_group_curve_a",
        10 => "sa_group_curve_b",
        11 => "sa_life_type",
        12 => "sa_life_duration",
        13 => "alg_prf",
        14 => "sa_key_length",
        15 => "sa_field_size",
        16 => "sa_group_order",
        _ => "unknown",
    }
}

/// The name of an attribute's value, as Suricata writes it (`Unknown` for attributes
/// without named values and for values it does not name).
pub fn attr_value_name(kind: u16, v: Option<u64>) -> &'static str {
    let Some(v) = v else { return "Unknown" };
    let names: &[&str] = match kind {
        1 => &[
            "EncDesCbc",
            "EncIdeaCbc",
            "EncBlowfishCbc",
            "EncRc5R16B64Cbc",
            "EncTripleDesCbc",
            "EncCastCbc",
            "EncAesCbc",
            "EncCamelliaCbc",
        ],
        2 => &[
            "HashMd5",
            "HashSha",
            "HashTiger",
            "HashSha2_256",
            "HashSha2_384",
            "HashSha2_512",
        ],
        3 => &[
            "AuthPreSharedKey",
            "AuthDssSignatures",
            "AuthRsaSignatures",
            "AuthEncryptionWithRsa",
            "AuthRevisedEncryptionWithRsa",
            "AuthReserved",
            "AuthReserved",
            "AuthEcdsaSha256",
            "AuthEcdsaSha384",
            "AuthEcdsaSha512",
        ],
        4 => return dh_name(v),
        11 => &["LifeTypeSeconds", "LifeTypeKilobytes"],
        _ => &[],
    };
    usize::try_from(v)
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| names.get(i))
        .copied()
        .unwrap_or("Unknown")
}

fn dh_name(v: u64) -> &'static str {
    match v {
        1 => "GroupDefault768BitModp",
        2 => "GroupAlternate1024BitModpGroup",
        3 => "GroupEc2nOnGp2p155",
        4 => "GroupEc2nOnGp2p185",
        5 => "GroupModp1536Bit",
        14 => "GroupModp2048Bit",
        15 => "GroupModp3072Bit",
        16 => "GroupModp4096Bit",
        17 => "GroupModp6144Bit",
        18 => "GroupModp8192Bit",
        19 => "GroupRandomEcp256",
        20 => "GroupRandomEcp384",
        21 => "GroupRandomEcp521",
        22 => "GroupModp1024With160BitPrime",
        23 => "GroupModp2048With224BitPrime",
        24 => "GroupModp2048With256BitPrime",
        25 => "GroupRandomEcp192",
        26 => "GroupRandomEcp224",
        27 => "GroupBrainpoolEcp224",
        28 => "GroupBrainpoolEcp256",
        29 => "GroupBrainpoolEcp384",
        30 => "GroupBrainpoolEcp512",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// sv-ether.pcap, 192.168.12.1:500 -> 192.168.12.2:500: the first main-mode
    /// message (one proposal, one transform whose life duration comes twice).
    const SA_INIT: &[u8] = include_bytes!("testdata/v1_sa_init.bin");

    #[test]
    fn a_real_main_mode_sa() {
        let h = header(SA_INIT).unwrap();
        assert_eq!((h.major, h.minor, h.exchange_type), (1, 0, 2));
        assert_eq!(h.length as usize, SA_INIT.len());
        let p = v1_payloads(&SA_INIT[HEADER_LEN..], h.next_payload).unwrap();
        assert_eq!(p.types, [1, 13, 2, 3]);
        assert_eq!(p.doi, Some(1));
        assert_eq!(p.vendor_ids.len(), 4);
        let t = &p.transforms[0];
        let kinds: Vec<_> = t.iter().map(|a| (a.kind, a.num().unwrap())).collect();
        assert_eq!(
            kinds,
            [
                (1, 7),
                (14, 128),
                (2, 2),
                (12, 86400),
                (4, 2),
                (3, 1),
                (11, 1),
                (12, 65535)
            ]
        );
        assert_eq!(attr_value_name(1, Some(7)), "EncAesCbc");
        assert_eq!(attr_value_name(14, Some(128)), "Unknown");
        // Cut anywhere, the chain is malformed, never a panic.
        for n in HEADER_LEN..SA_INIT.len() {
            assert_eq!(v1_payloads(&SA_INIT[HEADER_LEN..n], h.next_payload), None);
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600), first in 0u8..30) {
            let _ = header(&data);
            let _ = v1_payloads(&data, first);
            let _ = attributes(&data);
        }
    }
}

//! IKE on UDP port 500: IKEv1 Main Mode (the initiator's SA with one to three
//! transforms and its vendor IDs, the responder's SA with the chosen transform, then
//! both sides' key exchange and nonce payloads), IKEv1 Aggressive Mode (SA, KE, nonce,
//! identification and vendor IDs in the first message) or an IKEv2 IKE_SA_INIT
//! exchange. Edge values: key exchange data and nonces of 0, 1, 8 to 256 bytes, SA
//! attributes in TV and TLV form, a life duration at 0 or the 32-bit limit, SPIs of zeros.
//! The rule takes one or two of `ike.init_spi`/`ike.resp_spi` (hex text),
//! `ike.vendor` (a vendor ID the client sent, one not sent, two in one rule),
//! `ike.key_exchange_payload`/`ike.nonce_payload` (bytes, in the forms of the HTTP
//! buffer family), `ike.key_exchange_payload_length`/`ike.nonce_payload_length`/
//! `ike.exchtype` (integer syntax with edge values) or `ike.chosen_sa_attribute`.

use super::appval::uint_cond;
use super::bufcond::{cond, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::Spec;
use crate::rulegen::{Family, Gen};

/// IKE exchanges: SPIs, vendor IDs, SA attributes, key exchange and nonce payloads.
pub const IKE: Family = Family {
    name: "ike",
    keywords: &[
        "ike.init_spi",
        "ike.resp_spi",
        "ike.chosen_sa_attribute",
        "ike.exchtype",
        "ike.vendor",
        "ike.key_exchange_payload",
        "ike.key_exchange_payload_length",
        "ike.nonce_payload",
        "ike.nonce_payload_length",
        "content",
        "nocase",
        "offset",
        "depth",
        "startswith",
        "endswith",
        "bsize",
        "isdataat",
        "distance",
        "within",
        "pcre",
        "flow",
    ],
    weight: 4,
    make: ike,
};

/// Real vendor IDs (RFC 3947 NAT-T, DPD, XAUTH, a strongSwan one).
const VENDORS: &[&str] = &[
    "4a131c81070358455c5728f20e95452f",
    "afcad71368a1f1c96b8696fc77570100",
    "09002689dfd6b712",
    "882fe56d6fd20dbc2251613b2ebe5beb",
    "12f5f28c457168a9702d9fe274cc0100",
];

/// A payload: its generic header (next payload, length) and body.
fn payload(next: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![next, 0];
    p.extend_from_slice(&((body.len() + 4) as u16).to_be_bytes());
    p.extend_from_slice(body);
    p
}

/// A message: header and payloads (each `(type, body)`), the next-payload chain filled.
fn message(
    spis: ([u8; 8], [u8; 8]),
    version: u8,
    exch: u8,
    flags: u8,
    pls: &[(u8, Vec<u8>)],
) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (_, b)) in pls.iter().enumerate() {
        let next = pls.get(i + 1).map_or(0, |p| p.0);
        body.extend_from_slice(&payload(next, b));
    }
    let mut m = spis.0.to_vec();
    m.extend_from_slice(&spis.1);
    m.push(pls.first().map_or(0, |p| p.0));
    m.push(version);
    m.push(exch);
    m.push(flags);
    m.extend_from_slice(&[0, 0, 0, 0]);
    m.extend_from_slice(&((28 + body.len()) as u32).to_be_bytes());
    m.extend_from_slice(&body);
    m
}

/// An IKEv1 transform's attributes: (name for the rule, type, value).
type Attrs = Vec<(&'static str, u16, u32)>;

fn v1_attrs(g: &mut Gen<'_>) -> Attrs {
    let mut a: Attrs = vec![
        ("alg_enc", 1, g.pick(&[7u32, 5, 1])),
        ("alg_hash", 2, g.pick(&[1u32, 2, 4])),
        ("alg_auth", 3, g.pick(&[1u32, 3])),
        ("alg_dh", 4, g.pick(&[2u32, 14, 5])),
        ("sa_life_type", 11, 1),
        (
            "sa_life_duration",
            12,
            g.pick(&[28_800u32, 86_400, 0, u32::MAX, 3600]),
        ),
    ];
    if a[0].2 == 7 {
        a.push(("sa_key_length", 14, g.pick(&[128u32, 256])));
    }
    a
}

/// An IKEv1 transform payload body: number, KEY_IKE, attributes (a value above 16 bits
/// or, now and then, any value in TLV form).
fn transform(num: u8, attrs: &Attrs, tlv_life: bool) -> Vec<u8> {
    let mut b = vec![num, 1, 0, 0];
    for &(_, ty, v) in attrs {
        if v > 0xffff || (ty == 12 && tlv_life) {
            b.extend_from_slice(&ty.to_be_bytes());
            b.extend_from_slice(&4u16.to_be_bytes());
            b.extend_from_slice(&v.to_be_bytes());
        } else {
            b.extend_from_slice(&(0x8000 | ty).to_be_bytes());
            b.extend_from_slice(&(v as u16).to_be_bytes());
        }
    }
    b
}

/// An IKEv1 SA payload body: DOI, situation, one proposal with the transforms.
fn v1_sa(transforms: &[Vec<u8>]) -> Vec<u8> {
    let mut ts = Vec::new();
    for (i, t) in transforms.iter().enumerate() {
        let next = if i + 1 < transforms.len() { 3 } else { 0 };
        ts.extend_from_slice(&payload(next, t));
    }
    let mut prop = vec![1, 1, 0, transforms.len() as u8];
    prop.extend_from_slice(&ts);
    let mut b = vec![0, 0, 0, 1, 0, 0, 0, 1];
    b.extend_from_slice(&payload(0, &prop));
    b
}

/// An IKEv2 SA payload body: one IKE proposal with four transforms.
fn v2_sa() -> Vec<u8> {
    let tr = |last: bool, ty: u8, id: u16, keylen: Option<u16>| {
        let mut b = vec![ty, 0];
        b.extend_from_slice(&id.to_be_bytes());
        if let Some(k) = keylen {
            b.extend_from_slice(&[0x80, 14]);
            b.extend_from_slice(&k.to_be_bytes());
        }
        payload(if last { 0 } else { 3 }, &b)
    };
    let mut prop = vec![1, 1, 0, 4];
    prop.extend(tr(false, 1, 12, Some(256)));
    prop.extend(tr(false, 2, 5, None));
    prop.extend(tr(false, 3, 12, None));
    prop.extend(tr(true, 4, 14, None));
    payload(0, &prop)
}

/// Bytes for a KE or nonce: 0, 1, or 8 to 256 bytes of needle letters.
fn blob(g: &mut Gen<'_>) -> Vec<u8> {
    let n = match g.size(0, 9) {
        0 => 0,
        1 => 1,
        2 => 256,
        _ => g.size(8, 64),
    };
    g.needle(n)
}

/// What the rule may ask about: per side (client, server) the KE data and nonce, the
/// SPIs, the vendor IDs the client sent, the exchange type, the chosen attributes.
struct Seen {
    ke: [Option<Vec<u8>>; 2],
    nonce: [Option<Vec<u8>>; 2],
    spis: ([u8; 8], [u8; 8]),
    vendors: Vec<&'static str>,
    exch: u8,
    chosen: Attrs,
}

fn exchange(g: &mut Gen<'_>, f: &mut Flow) -> (Seen, Vec<u8>, &'static str) {
    let mut ispi = [0u8; 8];
    ispi.iter_mut().for_each(|b| *b = g.num(0, 255) as u8);
    let mut rspi = [0u8; 8];
    rspi.iter_mut().for_each(|b| *b = g.num(0, 255) as u8);
    if g.chance(0.05) {
        ispi = [0; 8];
    }
    let vendors: Vec<&'static str> = VENDORS.iter().copied().filter(|_| g.chance(0.4)).collect();
    let vid = |v: &str| -> (u8, Vec<u8>) {
        let b = (0..v.len() / 2)
            .map(|i| u8::from_str_radix(&v[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        (13, b)
    };
    let (cke, cn, ske, sn) = (blob(g), blob(g), blob(g), blob(g));
    let kind = g.pick(&["main", "main", "aggressive", "v2"]);
    let mut seen = Seen {
        ke: [Some(cke.clone()), Some(ske.clone())],
        nonce: [Some(cn.clone()), Some(sn.clone())],
        spis: (ispi, rspi),
        vendors: vendors.clone(),
        exch: 2,
        chosen: Vec::new(),
    };
    let first;
    if kind == "v2" {
        seen.exch = 34;
        let mut ke = vec![0, 14, 0, 0];
        ke.extend_from_slice(&cke);
        let mut pls = vec![(33u8, v2_sa()), (34, ke), (40, cn.clone())];
        pls.extend(vendors.iter().map(|v| {
            let (_, b) = vid(v);
            (43u8, b)
        }));
        first = message((ispi, [0; 8]), 0x20, 34, 0x08, &pls);
        f.udp(true, &first);
        let mut ke = vec![0, 14, 0, 0];
        ke.extend_from_slice(&ske);
        let pls = vec![(33u8, v2_sa()), (34, ke), (40, sn.clone())];
        f.udp(false, &message((ispi, rspi), 0x20, 34, 0x20, &pls));
        return (seen, first, kind);
    }
    let n = g.size(1, 3);
    let offers: Vec<Attrs> = (0..n).map(|_| v1_attrs(g)).collect();
    let pick = g.size(0, n - 1);
    let tlv_life = g.chance(0.3);
    let ts: Vec<Vec<u8>> = offers
        .iter()
        .enumerate()
        .map(|(i, a)| transform(i as u8 + 1, a, tlv_life))
        .collect();
    seen.chosen = offers[pick].clone();
    let chosen_t = transform(pick as u8 + 1, &offers[pick], tlv_life);
    let vids: Vec<(u8, Vec<u8>)> = vendors.iter().map(|v| vid(v)).collect();
    if kind == "aggressive" {
        seen.exch = 4;
        let id = (5u8, vec![1, 17, 1, 244, 10, 0, 0, 1]);
        let mut pls = vec![
            (1u8, v1_sa(&ts)),
            (4, cke.clone()),
            (10, cn.clone()),
            id.clone(),
        ];
        pls.extend(vids);
        first = message((ispi, [0; 8]), 0x10, 4, 0, &pls);
        f.udp(true, &first);
        let pls = vec![
            (1u8, v1_sa(&[chosen_t])),
            (4, ske.clone()),
            (10, sn.clone()),
            id,
            (8, vec![0x5a; 20]),
        ];
        f.udp(false, &message((ispi, rspi), 0x10, 4, 0, &pls));
        return (seen, first, kind);
    }
    let mut pls = vec![(1u8, v1_sa(&ts))];
    pls.extend(vids);
    first = message((ispi, [0; 8]), 0x10, 2, 0, &pls);
    f.udp(true, &first);
    f.udp(
        false,
        &message((ispi, rspi), 0x10, 2, 0, &[(1u8, v1_sa(&[chosen_t]))]),
    );
    // Message 3 and 4: KE and nonce, a side's now and then left out.
    let send3 = g.chance(0.9);
    if send3 {
        f.udp(
            true,
            &message((ispi, rspi), 0x10, 2, 0, &[(4, cke), (10, cn)]),
        );
    } else {
        seen.ke[0] = None;
        seen.nonce[0] = None;
    }
    if send3 && g.chance(0.9) {
        f.udp(
            false,
            &message((ispi, rspi), 0x10, 2, 0, &[(4, ske), (10, sn)]),
        );
    } else {
        seen.ke[1] = None;
        seen.nonce[1] = None;
    }
    (seen, first, kind)
}

fn ike(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let mut f = Flow::new(g.index, v6, 500);
    if g.chance(0.5) {
        f.sport = 500;
    }
    let (seen, first, kind) = exchange(g, &mut f);
    let side_client = g.chance(0.5);
    let side = usize::from(!side_client);
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let c = match g.size(0, 7) {
            0 => {
                let (kw, v) = if g.chance(0.5) {
                    ("ike.init_spi", hex(&seen.spis.0))
                } else {
                    ("ike.resp_spi", hex(&seen.spis.1))
                };
                let b = buf(kw, None, None, Some(v.into_bytes()));
                let (form, c) = cond(g, &b);
                (format!("{kw}-{form}"), c)
            }
            1 => {
                let sent = seen.vendors.clone();
                let not_sent: Vec<&str> = VENDORS
                    .iter()
                    .copied()
                    .filter(|v| !sent.contains(v))
                    .collect();
                let pick = |g: &mut Gen<'_>, l: &[&str]| l[g.size(0, l.len() - 1)].to_string();
                match (sent.is_empty(), not_sent.is_empty()) {
                    (false, false) => {
                        let h = pick(g, &sent);
                        let m = pick(g, &not_sent);
                        (
                            "ike.vendor".to_string(),
                            Cond {
                                hit: format!("ike.vendor:{h};"),
                                miss: format!("ike.vendor:{m};"),
                            },
                        )
                    }
                    (true, _) => {
                        let m = pick(g, &not_sent);
                        let c = format!("ike.vendor:{m};");
                        (
                            "ike.vendor-none".to_string(),
                            Cond {
                                hit: c.clone(),
                                miss: c,
                            },
                        )
                    }
                    (false, true) => {
                        let h = pick(g, &sent);
                        (
                            "ike.vendor-all".to_string(),
                            Cond {
                                hit: format!("ike.vendor:{h};"),
                                miss: format!("ike.vendor:{};", &h[..h.len() - 2]),
                            },
                        )
                    }
                }
            }
            2 | 3 => {
                let (kw, v) = if g.chance(0.5) {
                    ("ike.key_exchange_payload", seen.ke[side].clone())
                } else {
                    ("ike.nonce_payload", seen.nonce[side].clone())
                };
                let b = buf(kw, None, None, v);
                let (form, c) = cond(g, &b);
                (format!("{kw}-{form}"), c)
            }
            4 => {
                let (kw, v) = if g.chance(0.5) {
                    ("ike.key_exchange_payload_length", seen.ke[side].as_ref())
                } else {
                    ("ike.nonce_payload_length", seen.nonce[side].as_ref())
                };
                match v {
                    Some(v) => {
                        let (form, c) = uint_cond(g, kw, v.len() as u64, u64::from(u32::MAX));
                        (format!("{kw}-{form}"), c)
                    }
                    None => {
                        let c = format!("{kw}:<100000;");
                        (
                            format!("{kw}-absent"),
                            Cond {
                                hit: c.clone(),
                                miss: c,
                            },
                        )
                    }
                }
            }
            5 => {
                let (form, c) = uint_cond(g, "ike.exchtype", u64::from(seen.exch), 255);
                (format!("ike.exchtype-{form}"), c)
            }
            _ => {
                if seen.chosen.is_empty() {
                    // IKEv2: the responder's transforms of `v2_sa`.
                    let (n, v) = g.pick(&[
                        ("alg_enc", 12u32),
                        ("alg_prf", 5),
                        ("alg_auth", 12),
                        ("alg_dh", 14),
                    ]);
                    (
                        format!("ike.chosen_sa_attribute-v2-{n}"),
                        Cond {
                            hit: format!("ike.chosen_sa_attribute:{n}={v};"),
                            miss: format!("ike.chosen_sa_attribute:{n}={};", v + 1),
                        },
                    )
                } else {
                    let (n, _, v) = seen.chosen[g.size(0, seen.chosen.len() - 1)];
                    let m = if v == u32::MAX { v - 1 } else { v + 1 };
                    (
                        format!("ike.chosen_sa_attribute-{n}"),
                        Cond {
                            hit: format!("ike.chosen_sa_attribute:{n}={v};"),
                            miss: format!("ike.chosen_sa_attribute:{n}={m};"),
                        },
                    )
                }
            }
        };
        conds.push(c);
    }
    super::appval::udp_rule_case(
        g,
        intent,
        v6,
        &conds,
        side_client,
        &format!("-{kind}"),
        "ike",
        f,
        500,
        first,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_chain_payloads_and_count_the_length() {
        let m = message(
            ([1; 8], [0; 8]),
            0x10,
            2,
            0,
            &[(1, vec![9; 4]), (13, vec![7; 8])],
        );
        assert_eq!(m[16], 1);
        assert_eq!(
            u32::from_be_bytes([m[24], m[25], m[26], m[27]]) as usize,
            m.len()
        );
        assert_eq!(&m[28..32], &[13, 0, 0, 8]);
        assert_eq!(&m[36..40], &[0, 0, 0, 12]);
    }

    #[test]
    fn rules_parse_and_exchanges_have_two_to_four_datagrams() {
        let (cases, ok) = crate::flows::sample_cases(300, ike);
        for c in &cases {
            assert!((2..=4).contains(&c.frames(0).len()));
        }
        assert!(ok >= 200, "{ok} of 300 parse");
    }
}

//! Kerberos 5 on port 88 over UDP and over TCP (a 4-byte record mark, the message in
//! one or two segments): an AS-REQ or TGS-REQ (client name, realm, service name with one
//! to three components, requested encryption types) answered by an AS-REP/TGS-REP (the
//! ticket and the reply's encrypted part each with an encryption type, weak or strong)
//! or a KRB-ERROR (error codes from 0 to the usual ones and 999, the largest a rule takes). The rule takes
//! one or two of `krb5_msg_type`, `krb5_err_code` (exact, one off, and forms Suricata
//! refuses), `krb5.ticket_encryption` (`weak`, `!weak`, names and numbers, lists),
//! `app-layer-event:krb5.weak_encryption`, or a condition on the multi-buffers
//! `krb5.cname` and `krb5.sname` (one component of the name, the whole name joined,
//! two components in one rule) in the forms of the HTTP buffer family.

use super::appval::{ctx, int, seq, tlv};
use super::bufcond::{cond, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// Kerberos 5 requests, replies and errors.
pub const KRB5: Family = Family {
    name: "krb5",
    keywords: &[
        "krb5_msg_type",
        "krb5_err_code",
        "krb5.cname",
        "krb5.sname",
        "krb5.ticket_encryption",
        "app-layer-event",
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
    make: krb5,
};

/// Encryption types: (number, name as Suricata writes it, weak: all but AES and
/// Camellia, as Suricata counts them).
const ETYPES: &[(i32, &str, bool)] = &[
    (1, "des-cbc-crc", true),
    (3, "des-cbc-md5", true),
    (16, "des3-cbc-sha1-kd", true),
    (17, "aes128-cts-hmac-sha1-96", false),
    (18, "aes256-cts-hmac-sha1-96", false),
    (23, "rc4-hmac", true),
    (24, "rc4-hmac-exp", true),
];

/// A GeneralString.
fn gstr(s: &[u8]) -> Vec<u8> {
    tlv(0x1b, s)
}

/// A DER INTEGER of a signed 32-bit value.
fn int32(v: i32) -> Vec<u8> {
    if v >= 0 {
        return int(v as u64);
    }
    let b = v.to_be_bytes();
    let skip = b
        .windows(2)
        .take_while(|w| w[0] == 0xff && w[1] & 0x80 != 0)
        .count();
    tlv(0x02, &b[skip..])
}

/// PrincipalName: a name type and its components.
fn principal(ty: u64, parts: &[Vec<u8>]) -> Vec<u8> {
    let comps: Vec<Vec<u8>> = parts.iter().map(|p| gstr(p)).collect();
    seq(&[ctx(0, int(ty)), ctx(1, seq(&comps))])
}

/// EncryptedData of type `etype` with `n` bytes of cipher text.
fn enc(etype: i32, n: usize) -> Vec<u8> {
    seq(&[
        ctx(0, int32(etype)),
        ctx(1, int(2)),
        ctx(2, tlv(0x04, &vec![0xa5; n])),
    ])
}

const TIME: &[u8] = b"20370913024805Z";

/// An AS-REQ (`tgs` false) or TGS-REQ.
fn request(
    tgs: bool,
    cname: &[Vec<u8>],
    realm: &[u8],
    sname: &[Vec<u8>],
    etypes: &[i32],
) -> Vec<u8> {
    let et: Vec<Vec<u8>> = etypes.iter().map(|&e| int32(e)).collect();
    let mut body = vec![ctx(0, tlv(0x03, &[0, 0x40, 0x81, 0, 0x10]))];
    if !tgs {
        body.push(ctx(1, principal(1, cname)));
    }
    body.push(ctx(2, gstr(realm)));
    body.push(ctx(3, principal(2, sname)));
    body.push(ctx(5, tlv(0x18, TIME)));
    body.push(ctx(7, int(0x1234_5678)));
    body.push(ctx(8, seq(&et)));
    let msg_type = if tgs { 12 } else { 10 };
    let inner = seq(&[ctx(1, int(5)), ctx(2, int(msg_type)), ctx(4, seq(&body))]);
    tlv(if tgs { 0x6c } else { 0x6a }, &inner)
}

/// An AS-REP or TGS-REP: the ticket's and the encrypted part's encryption types.
fn reply(
    tgs: bool,
    cname: &[Vec<u8>],
    realm: &[u8],
    sname: &[Vec<u8>],
    tkt: i32,
    part: i32,
) -> Vec<u8> {
    let ticket = tlv(
        0x61,
        &seq(&[
            ctx(0, int(5)),
            ctx(1, gstr(realm)),
            ctx(2, principal(2, sname)),
            ctx(3, enc(tkt, 40)),
        ]),
    );
    let msg_type = if tgs { 13 } else { 11 };
    let inner = seq(&[
        ctx(0, int(5)),
        ctx(1, int(msg_type)),
        ctx(3, gstr(realm)),
        ctx(4, principal(1, cname)),
        ctx(5, ticket),
        ctx(6, enc(part, 32)),
    ]);
    tlv(if tgs { 0x6d } else { 0x6b }, &inner)
}

/// A KRB-ERROR with `code`.
fn error(code: i32, realm: &[u8], sname: &[Vec<u8>]) -> Vec<u8> {
    let inner = seq(&[
        ctx(0, int(5)),
        ctx(1, int(30)),
        ctx(4, tlv(0x18, TIME)),
        ctx(5, int(12345)),
        ctx(6, int32(code)),
        ctx(9, gstr(realm)),
        ctx(10, principal(2, sname)),
    ]);
    tlv(0x7e, &inner)
}

/// A name component of 3 to 10 needle letters.
fn comp(g: &mut Gen<'_>) -> Vec<u8> {
    let n = g.size(3, 10);
    g.needle(n)
}

fn krb5(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let tcp = g.chance(0.4);
    let tgs = g.chance(0.35);
    let realm = b"DT.TEST".to_vec();
    let cname = vec![comp(g)];
    let sname: Vec<Vec<u8>> = match g.size(0, 3) {
        0 => vec![b"krbtgt".to_vec(), realm.clone()],
        1 => vec![b"host".to_vec(), [comp(g), b".dt.test".to_vec()].concat()],
        2 => vec![comp(g)],
        _ => vec![b"cifs".to_vec(), comp(g), b"dt.test".to_vec()],
    };
    let etypes: Vec<i32> = ETYPES
        .iter()
        .filter(|_| g.chance(0.5))
        .map(|e| e.0)
        .chain([18])
        .collect();
    let req = request(tgs, &cname, &realm, &sname, &etypes);
    let is_error = g.chance(0.35);
    let code: i32 = match g.size(0, 6) {
        0 => 0,
        1 => 6,
        2 => 24,
        3 => 25,
        4 => 68,
        5 => 999,
        _ => 7,
    };
    let tkt = ETYPES[g.size(0, ETYPES.len() - 1)];
    let part = ETYPES[g.size(0, ETYPES.len() - 1)];
    let resp = if is_error {
        error(code, &realm, &sname)
    } else {
        reply(tgs, &cname, &realm, &sname, tkt.0, part.0)
    };
    let mut f = Flow::new(g.index, v6, 88);
    if tcp {
        let (ci, si) = (11_000u32, 22_000u32);
        f.handshake(ci, si);
        let (mut c, mut s) = (ci + 1, si + 1);
        for (client, m) in [(true, &req), (false, &resp)] {
            let mut rec = ((m.len() as u32) & 0x7fff_ffff).to_be_bytes().to_vec();
            rec.extend_from_slice(m);
            let cut = if g.chance(0.3) {
                g.size(1, rec.len() - 1)
            } else {
                rec.len()
            };
            for part in [&rec[..cut], &rec[cut..]] {
                if part.is_empty() {
                    continue;
                }
                let (seq, ack) = if client { (&mut c, s) } else { (&mut s, c) };
                f.tcp(client, *seq, ack, PSH | ACK, &[], part);
                *seq += part.len() as u32;
            }
        }
        f.tcp(true, c, s, ACK, &[], &[]);
        f.close(c, s);
    } else {
        f.udp(true, &req);
        f.udp(false, &resp);
    }
    let side_client = g.chance(0.35);
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let c = match g.size(0, 6) {
            0 => {
                let t = if side_client {
                    if tgs {
                        12
                    } else {
                        10
                    }
                } else if is_error {
                    30
                } else if tgs {
                    13
                } else {
                    11
                };
                let other = g.pick(&[10u32, 11, 12, 13, 30, 14]);
                let other = if other == t { t + 1 } else { other };
                let form = if g.chance(0.15) { "<" } else { "" };
                (
                    format!("krb5_msg_type{form}"),
                    Cond {
                        hit: format!("krb5_msg_type:{form}{};", t + u32::from(!form.is_empty())),
                        miss: format!("krb5_msg_type:{form}{other};"),
                    },
                )
            }
            1 => {
                let c = if is_error { code } else { 0 };
                let miss = if c == 999 { c - 1 } else { c + 1 };
                // Suricata takes plain numbers of up to three characters: `>N`,
                // `1000` and `0NN` are refused (a check of acceptance).
                let (h, m) = match g.size(0, 6) {
                    0 => (format!(">{}", c.max(1) - 1), format!(">{c}")),
                    1 => (format!("{c}"), "1000".to_string()),
                    2 => (format!("{c}"), format!("0{miss}")),
                    _ => (format!("{c}"), format!("{miss}")),
                };
                (
                    format!("krb5_err_code-{}", if is_error { "error" } else { "reply" }),
                    Cond {
                        hit: format!("krb5_err_code:{h};"),
                        miss: format!("krb5_err_code:{m};"),
                    },
                )
            }
            2 => {
                let weak = tkt.2;
                let other = ETYPES
                    .iter()
                    .find(|e| e.0 != tkt.0)
                    .copied()
                    .unwrap_or(ETYPES[0]);
                let (form, h, m) = match g.size(0, 3) {
                    0 => (
                        "weak",
                        if weak { "weak" } else { "!weak" }.to_string(),
                        if weak { "!weak" } else { "weak" }.to_string(),
                    ),
                    1 => ("name", tkt.1.to_string(), other.1.to_string()),
                    2 => ("number", tkt.0.to_string(), other.0.to_string()),
                    _ => (
                        "list",
                        format!("{},{}", other.1, tkt.0),
                        format!("{},{}", other.1, other.0),
                    ),
                };
                (
                    format!("krb5.ticket_encryption-{form}"),
                    Cond {
                        hit: format!("krb5.ticket_encryption:{h};"),
                        miss: format!("krb5.ticket_encryption:{m};"),
                    },
                )
            }
            3 => {
                let c = "app-layer-event:krb5.weak_encryption;".to_string();
                (
                    format!(
                        "weak_encryption-{}",
                        if !is_error && part.2 {
                            "weak"
                        } else {
                            "strong"
                        }
                    ),
                    Cond {
                        hit: c.clone(),
                        miss: c,
                    },
                )
            }
            _ => {
                let (kw, name) = if g.chance(0.5) {
                    ("krb5.cname", &cname)
                } else {
                    ("krb5.sname", &sname)
                };
                let (form, value) = match g.size(0, 5) {
                    0 if name.len() > 1 => ("joined", name.join(&b"/"[..])),
                    1 if name.len() > 1 => ("last", name[name.len() - 1].clone()),
                    _ => ("first", name[0].clone()),
                };
                // KRB-ERROR carries no client name.
                let value = (!(is_error && kw == "krb5.cname")).then_some(value);
                let b = buf(kw, None, None, value);
                let (bform, c) = cond(g, &b);
                (format!("{kw}-{form}-{bform}"), c)
            }
        };
        conds.push(c);
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    let name = format!(
        "{}-{}-{}-{}",
        conds[0].0,
        if side_client { "client" } else { "server" },
        if tcp { "tcp" } else { "udp" },
        if is_error {
            "error"
        } else if tgs {
            "tgs"
        } else {
            "as"
        }
    );
    let rproto = g.pick(&["krb5", "krb5", if tcp { "tcp" } else { "udp" }]);
    let l4 = if tcp { L4::Tcp } else { L4::Udp };
    let sp = base(&name, intent, v6, l4, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(sp, f, 88, opts, !side_client, req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_integers_are_minimal() {
        assert_eq!(int32(-128), [2, 1, 0x80]);
        assert_eq!(int32(-129), [2, 2, 0xff, 0x7f]);
        assert_eq!(int32(18), [2, 1, 18]);
    }

    #[test]
    fn messages_parse_with_kerberos_parser_s_outer_tags() {
        let r = request(
            false,
            &[b"bob".to_vec()],
            b"DT.TEST",
            &[b"krbtgt".to_vec()],
            &[18, 23],
        );
        assert_eq!(r[0], 0x6a);
        let e = error(25, b"DT.TEST", &[b"krbtgt".to_vec()]);
        assert_eq!(e[0], 0x7e);
        let p = reply(
            true,
            &[b"bob".to_vec()],
            b"DT.TEST",
            &[b"host".to_vec()],
            23,
            18,
        );
        assert_eq!(p[0], 0x6d);
    }

    #[test]
    fn rules_parse() {
        let (cases, ok) = crate::flows::sample_cases(300, krb5);
        for c in &cases {
            assert!(c.frames(0).len() >= 2);
        }
        assert!(ok >= 200, "{ok} of 300 parse");
    }
}

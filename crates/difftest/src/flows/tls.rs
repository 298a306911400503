//! TLS 1.2 handshakes on TCP port 443 with a certificate built here: the client's
//! ClientHello (SNI, supported groups, point formats, ALPN, signature algorithms; GREASE
//! values in the cipher and extension lists of some cases, which JA3 leaves out), the
//! server's ServerHello, Certificate (one or two certificates: a DER X.509 v3 with a
//! subject and issuer of C, O and CN, a serial whose first byte may have its top bit set,
//! and a validity around the capture's date), ServerHelloDone, then both sides'
//! ChangeCipherSpec and an encrypted Finished, each flight in one or two segments. The
//! rule takes one or two conditions of one side: the sticky buffers `tls.sni`,
//! `tls.cert_subject`, `tls.cert_issuer`, `tls.cert_serial`, `tls.cert_fingerprint`,
//! `tls.certs`, `tls.random`, `tls.random_time`, `tls.random_bytes`, `ja3.hash`,
//! `ja3.string`, `ja3s.hash`, `ja3s.string` in the forms of the HTTP buffer family
//! (content anywhere, offsets at 0, at the end and past it, anchors, `bsize`, `isdataat`,
//! `distance`/`within`, negation, `pcre`, `nocase`), or the value keywords
//! `tls.version`, `ssl_version`, `ssl_state`, `tls.subject`, `tls.issuerdn`,
//! `tls.fingerprint`, `tls_cert_notbefore`/`tls_cert_notafter` (every operator and a
//! range, at the date and one day off), `tls_cert_expired`, `tls_cert_valid`,
//! `tls.cert_chain_len`; `tls.alpn` (not a Suricata 7.0.10 keyword) in a few.

use md5::Digest as _;

use super::bufcond::{cond, spoil, Buf, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// TLS handshakes, certificate and fingerprint keywords.
pub const TLS: Family = Family {
    name: "tls",
    keywords: &[
        "tls.sni",
        "tls.cert_subject",
        "tls.cert_issuer",
        "tls.cert_serial",
        "tls.cert_fingerprint",
        "tls.certs",
        "tls.cert_chain_len",
        "tls.random",
        "tls.random_time",
        "tls.random_bytes",
        "tls.alpn",
        "ja3.hash",
        "ja3.string",
        "ja3s.hash",
        "ja3s.string",
        "tls.version",
        "ssl_version",
        "ssl_state",
        "tls.subject",
        "tls.issuerdn",
        "tls.fingerprint",
        "tls_cert_notbefore",
        "tls_cert_notafter",
        "tls_cert_expired",
        "tls_cert_valid",
        "content",
        "nocase",
        "offset",
        "depth",
        "distance",
        "within",
        "startswith",
        "endswith",
        "bsize",
        "isdataat",
        "pcre",
    ],
    weight: 4,
    make: tls,
};

/// The capture's time: 2023-11-14 (see `crate::batch::T0_US`), as a day number.
const CAPTURE_DAY: i64 = 19_675;

/// Days since 1970-01-01 of a civil date (the inverse of [`civil`], for the tests).
#[cfg(test)]
fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day number.
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn date(day: i64) -> String {
    let (y, m, d) = civil(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A DER element: tag, length, contents.
fn der(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    let n = body.len();
    if n < 0x80 {
        v.push(n as u8);
    } else if n < 0x100 {
        v.extend_from_slice(&[0x81, n as u8]);
    } else {
        v.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]);
    }
    v.extend_from_slice(body);
    v
}

/// A distinguished name of C, O and CN; returns the DER and the text Suricata shows.
fn name(c: &str, o: &str, cn: &str) -> (Vec<u8>, String) {
    let mut rdns = Vec::new();
    for (oid, v) in [(6u8, c), (10, o), (3, cn)] {
        let atv = [der(0x06, &[0x55, 0x04, oid]), der(0x13, v.as_bytes())].concat();
        rdns.extend(der(0x31, &der(0x30, &atv)));
    }
    (der(0x30, &rdns), format!("C={c}, O={o}, CN={cn}"))
}

/// UTCTime of a day at midnight.
fn utc_time(day: i64) -> Vec<u8> {
    let (y, m, d) = civil(day);
    der(
        0x17,
        format!("{:02}{m:02}{d:02}000000Z", y % 100).as_bytes(),
    )
}

/// A certificate and what the keywords see of it.
struct Cert {
    der: Vec<u8>,
    subject: String,
    issuer: String,
    serial: String,
    fingerprint: String,
    not_before: i64,
    not_after: i64,
}

fn cert(g: &mut Gen<'_>, subject_cn: &str, issuer_cn: &str) -> Cert {
    let sha256_rsa = der(
        0x30,
        &[
            der(
                0x06,
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b],
            ),
            vec![0x05, 0x00],
        ]
        .concat(),
    );
    let mut serial: Vec<u8> = (0..g.size(4, 12)).map(|_| g.num(0, 255) as u8).collect();
    serial[0] = if g.chance(0.5) {
        serial[0] | 0x80
    } else {
        (serial[0] & 0x7f).max(1)
    };
    // DER integers are signed: a leading zero keeps a high first byte positive.
    let serial_int = if serial[0] & 0x80 != 0 {
        [&[0u8][..], &serial].concat()
    } else {
        serial.clone()
    };
    let org = |g: &mut Gen<'_>| format!("Org{}", String::from_utf8_lossy(&g.needle(4)));
    let (subj_der, subject) = name("US", &org(g), subject_cn);
    let (iss_der, issuer) = name("DE", &org(g), issuer_cn);
    // Valid from 0 to 2,000 days before the capture, for 30 to 3,000 days.
    let not_before = CAPTURE_DAY - g.num(0, 2000) as i64;
    let not_after = not_before + g.num(30, 3000) as i64;
    let validity = der(0x30, &[utc_time(not_before), utc_time(not_after)].concat());
    let modulus: Vec<u8> = [&[0u8, 0xc1][..], &g.filler(62)].concat();
    let rsa_key = der(0x30, &[der(0x02, &modulus), der(0x02, &[1, 0, 1])].concat());
    let spki = der(
        0x30,
        &[
            der(
                0x30,
                &[
                    der(
                        0x06,
                        &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
                    ),
                    vec![0x05, 0x00],
                ]
                .concat(),
            ),
            der(0x03, &[&[0u8][..], &rsa_key].concat()),
        ]
        .concat(),
    );
    let tbs = der(
        0x30,
        &[
            der(0xa0, &der(0x02, &[2])),
            der(0x02, &serial_int),
            sha256_rsa.clone(),
            iss_der,
            validity,
            subj_der,
            spki,
        ]
        .concat(),
    );
    let sig: Vec<u8> = [&[0u8][..], &g.filler(64)].concat();
    let der_cert = der(0x30, &[tbs, sha256_rsa, der(0x03, &sig)].concat());
    let hex = |b: &[u8], upper: bool| {
        b.iter()
            .map(|x| {
                if upper {
                    format!("{x:02X}")
                } else {
                    format!("{x:02x}")
                }
            })
            .collect::<Vec<_>>()
            .join(":")
    };
    let fingerprint = hex(&sha1::Sha1::digest(&der_cert), false);
    Cert {
        serial: hex(&serial, true),
        fingerprint,
        der: der_cert,
        subject,
        issuer,
        not_before,
        not_after,
    }
}

/// A handshake message in a record.
fn record(ty: u8, body: &[u8]) -> Vec<u8> {
    let mut r = vec![ty, 3, 3];
    r.extend_from_slice(&(body.len() as u16).to_be_bytes());
    r.extend_from_slice(body);
    r
}

fn handshake(ty: u8, body: &[u8]) -> Vec<u8> {
    let n = body.len() as u32;
    let mut h = vec![ty, (n >> 16) as u8, (n >> 8) as u8, n as u8];
    h.extend_from_slice(body);
    h
}

fn ext(ty: u16, body: &[u8]) -> Vec<u8> {
    let mut e = ty.to_be_bytes().to_vec();
    e.extend_from_slice(&(body.len() as u16).to_be_bytes());
    e.extend_from_slice(body);
    e
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_be_bytes()).collect()
}

fn dashed(v: &[u16]) -> String {
    v.iter()
        .filter(|x| !is_grease(**x))
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

fn is_grease(x: u16) -> bool {
    x & 0x0f0f == 0x0a0a && x >> 8 == x & 0xff
}

pub(super) fn md5_hex(s: &str) -> String {
    md5::Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The client's ClientHello: (message, random, JA3 string).
fn client_hello(g: &mut Gen<'_>, sni: &str) -> (Vec<u8>, Vec<u8>, String) {
    let grease = g.chance(0.3);
    let mut ciphers: Vec<u16> = vec![0xc02f, 0xc030, 0xc02b, 0x009c, 0x002f, 0x0035];
    ciphers.truncate(g.size(2, 6));
    if grease {
        ciphers.insert(0, 0x3a3a);
    }
    let groups: Vec<u16> = vec![0x001d, 0x0017, 0x0018];
    let random: Vec<u8> = (0..32).map(|_| g.num(0, 255) as u8).collect();
    let mut exts: Vec<(u16, Vec<u8>)> = Vec::new();
    if grease {
        exts.push((0x1a1a, Vec::new()));
    }
    let mut sni_list = vec![0u8];
    sni_list.extend_from_slice(&(sni.len() as u16).to_be_bytes());
    sni_list.extend_from_slice(sni.as_bytes());
    let mut sn = (sni_list.len() as u16).to_be_bytes().to_vec();
    sn.extend_from_slice(&sni_list);
    exts.push((0x0000, sn));
    let gl = u16s(&groups);
    exts.push((
        0x000a,
        [(gl.len() as u16).to_be_bytes().to_vec(), gl].concat(),
    ));
    exts.push((0x000b, vec![1, 0]));
    let sa = u16s(&[0x0403, 0x0804, 0x0401]);
    exts.push((
        0x000d,
        [(sa.len() as u16).to_be_bytes().to_vec(), sa].concat(),
    ));
    if g.chance(0.5) {
        let mut l = Vec::new();
        for p in ["h2", "http/1.1"] {
            l.push(p.len() as u8);
            l.extend_from_slice(p.as_bytes());
        }
        exts.push((
            0x0010,
            [(l.len() as u16).to_be_bytes().to_vec(), l].concat(),
        ));
    }
    let mut body = vec![3, 3];
    body.extend_from_slice(&random);
    body.push(0);
    let cl = u16s(&ciphers);
    body.extend_from_slice(&(cl.len() as u16).to_be_bytes());
    body.extend_from_slice(&cl);
    body.extend_from_slice(&[1, 0]);
    let el: Vec<u8> = exts.iter().flat_map(|(t, b)| ext(*t, b)).collect();
    body.extend_from_slice(&(el.len() as u16).to_be_bytes());
    body.extend_from_slice(&el);
    let ext_ids: Vec<u16> = exts.iter().map(|e| e.0).collect();
    let ja3 = format!(
        "771,{},{},{},0",
        dashed(&ciphers),
        dashed(&ext_ids),
        dashed(&groups)
    );
    (handshake(1, &body), random, ja3)
}

/// The server's ServerHello: (message, random, JA3S string).
fn server_hello(g: &mut Gen<'_>) -> (Vec<u8>, Vec<u8>, String) {
    let random: Vec<u8> = (0..32).map(|_| g.num(0, 255) as u8).collect();
    let cipher = g.pick(&[0xc02fu16, 0xc030, 0x009c]);
    let mut exts: Vec<(u16, Vec<u8>)> = vec![(0xff01, vec![0])];
    if g.chance(0.5) {
        exts.push((0x000b, vec![1, 0]));
    }
    let mut body = vec![3, 3];
    body.extend_from_slice(&random);
    body.push(0);
    body.extend_from_slice(&cipher.to_be_bytes());
    body.push(0);
    let el: Vec<u8> = exts.iter().flat_map(|(t, b)| ext(*t, b)).collect();
    body.extend_from_slice(&(el.len() as u16).to_be_bytes());
    body.extend_from_slice(&el);
    let ids: Vec<u16> = exts.iter().map(|e| e.0).collect();
    let ja3s = format!("771,{cipher},{}", dashed(&ids));
    (handshake(2, &body), random, ja3s)
}

/// A date condition: (hit, miss) around `day` with one of the operators.
fn date_cond(g: &mut Gen<'_>, kw: &str, day: i64) -> Cond {
    let (h, m) = match g.size(0, 4) {
        0 => (format!(">{}", date(day - 1)), format!(">{}", date(day))),
        1 => (format!("<{}", date(day + 1)), format!("<{}", date(day))),
        2 => (format!(">={}", date(day)), format!(">={}", date(day + 1))),
        3 => (format!("<={}", date(day)), format!("<={}", date(day - 1))),
        _ => (
            format!("{}<>{}", date(day - 1), date(day + 1)),
            format!("{}<>{}", date(day + 1), date(day + 3)),
        ),
    };
    Cond {
        hit: format!("{kw}:{h};"),
        miss: format!("{kw}:{m};"),
    }
}

/// A value keyword matched as a substring (`tls.subject:"..."`).
fn text_cond(g: &mut Gen<'_>, kw: &str, v: &str) -> Cond {
    let b = v.as_bytes();
    let l = g.size(3, b.len().min(12));
    let at = g.size(0, b.len() - l);
    let p = &b[at..at + l];
    let neg = if g.chance(0.2) { "!" } else { "" };
    let (h, m) = if neg.is_empty() {
        (p.to_vec(), spoil(p))
    } else {
        (spoil(p), p.to_vec())
    };
    let t = |x: &[u8]| String::from_utf8_lossy(x).replace('"', "");
    Cond {
        hit: format!("{kw}:{neg}\"{}\";", t(&h)),
        miss: format!("{kw}:{neg}\"{}\";", t(&m)),
    }
}

fn tls(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let sni = format!(
        "{}.{}.test",
        String::from_utf8_lossy(&g.needle(5)),
        String::from_utf8_lossy(&g.needle(3))
    );
    let (ch, c_random, ja3) = client_hello(g, &sni);
    let (sh, s_random, ja3s) = server_hello(g);
    let leaf = cert(g, &sni, "dt issuing ca");
    let chain2 = g.chance(0.4);
    let ca = cert(g, "dt issuing ca", "dt root");
    let mut certs = vec![&leaf];
    if chain2 {
        certs.push(&ca);
    }
    let mut list = Vec::new();
    for c in &certs {
        let n = c.der.len() as u32;
        list.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
        list.extend_from_slice(&c.der);
    }
    let n = list.len() as u32;
    let cert_msg = handshake(
        11,
        &[&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..], &list].concat(),
    );
    let server_flight = [
        record(22, &[sh, cert_msg, handshake(14, &[])].concat()),
        record(20, &[1]),
        record(22, &g.filler(40)),
    ];
    let ckx = handshake(16, &[&[32u8][..], &g.filler(32)].concat());
    let client_fin = [
        record(22, &ckx),
        record(20, &[1]),
        record(22, &g.filler(40)),
    ]
    .concat();
    let client_hello = record(22, &ch);
    // Flow: ClientHello; ServerHello..Done; client's key exchange, CCS, Finished; the
    // server's CCS and Finished; the FIN exchange.
    let mut f = Flow::new(g.index, v6, 443);
    let (ci, si) = (90_000u32, 120_000u32);
    f.handshake(ci, si);
    let (mut c, mut s) = (ci + 1, si + 1);
    let send = |f: &mut Flow, g: &mut Gen<'_>, client: bool, seq: &mut u32, ack: u32, m: &[u8]| {
        let cut = if m.len() > 2 && g.chance(0.3) {
            g.size(1, m.len() - 1)
        } else {
            m.len()
        };
        for part in [&m[..cut], &m[cut..]] {
            if !part.is_empty() {
                f.tcp(client, *seq, ack, PSH | ACK, &[], part);
                *seq += part.len() as u32;
            }
        }
    };
    send(&mut f, g, true, &mut c, s, &client_hello);
    send(&mut f, g, false, &mut s, c, &server_flight[0]);
    send(&mut f, g, true, &mut c, s, &client_fin);
    send(
        &mut f,
        g,
        false,
        &mut s,
        c,
        &[server_flight[1].clone(), server_flight[2].clone()].concat(),
    );
    f.tcp(true, c, s, ACK, &[], &[]);
    f.close(c, s);
    // The rule's side and conditions.
    let side_client = g.chance(0.45);
    let mut conds: Vec<(String, Cond)> = Vec::new();
    let sticky: Vec<Buf> = if side_client {
        vec![
            buf("tls.sni", None, None, Some(sni.clone().into_bytes())),
            buf("ja3.hash", None, None, Some(md5_hex(&ja3).into_bytes())),
            buf("ja3.string", None, None, Some(ja3.clone().into_bytes())),
            buf("tls.random", None, None, Some(c_random.clone())),
            buf("tls.random_time", None, None, Some(c_random[..4].to_vec())),
            buf("tls.random_bytes", None, None, Some(c_random[4..].to_vec())),
        ]
    } else {
        vec![
            buf(
                "tls.cert_subject",
                None,
                None,
                Some(leaf.subject.clone().into()),
            ),
            buf(
                "tls.cert_issuer",
                None,
                None,
                Some(leaf.issuer.clone().into()),
            ),
            buf(
                "tls.cert_serial",
                None,
                None,
                Some(leaf.serial.clone().into()),
            ),
            buf(
                "tls.cert_fingerprint",
                None,
                None,
                Some(leaf.fingerprint.clone().into()),
            ),
            buf(
                "tls.certs",
                None,
                None,
                Some(certs[certs.len() - 1].der.clone()),
            ),
            buf("ja3s.hash", None, None, Some(md5_hex(&ja3s).into_bytes())),
            buf("ja3s.string", None, None, Some(ja3s.clone().into_bytes())),
            buf("tls.random", None, None, Some(s_random.clone())),
            buf("tls.random_time", None, None, Some(s_random[..4].to_vec())),
            buf("tls.random_bytes", None, None, Some(s_random[4..].to_vec())),
        ]
    };
    for _ in 0..g.size(1, 2) {
        let value_kw = g.chance(0.35);
        if value_kw {
            let c = if side_client {
                match g.size(0, 3) {
                    0 => (
                        "tls.version".to_string(),
                        Cond {
                            hit: "tls.version:1.2;".into(),
                            miss: "tls.version:1.1;".into(),
                        },
                    ),
                    1 => (
                        "ssl_version".into(),
                        Cond {
                            hit: "ssl_version:tls1.2;".into(),
                            miss: "ssl_version:tls1.0;".into(),
                        },
                    ),
                    2 => (
                        "ssl_state".into(),
                        Cond {
                            hit: "ssl_state:client_hello;".into(),
                            miss: "ssl_state:!client_hello;".into(),
                        },
                    ),
                    _ => (
                        "tls.alpn".into(),
                        Cond {
                            hit: "tls.alpn; content:\"h2\";".into(),
                            miss: "tls.alpn; content:\"h3\";".into(),
                        },
                    ),
                }
            } else {
                let cert_day = |b: bool| if b { leaf.not_before } else { leaf.not_after };
                match g.size(0, 8) {
                    0 => (
                        "tls.subject".into(),
                        text_cond(g, "tls.subject", &leaf.subject),
                    ),
                    1 => (
                        "tls.issuerdn".into(),
                        text_cond(g, "tls.issuerdn", &leaf.issuer),
                    ),
                    2 => (
                        "tls.fingerprint".into(),
                        Cond {
                            hit: format!("tls.fingerprint:\"{}\";", leaf.fingerprint),
                            miss: format!(
                                "tls.fingerprint:\"{}\";",
                                String::from_utf8_lossy(&spoil(leaf.fingerprint.as_bytes()))
                            ),
                        },
                    ),
                    3 => (
                        "tls_cert_notbefore".into(),
                        date_cond(g, "tls_cert_notbefore", cert_day(true)),
                    ),
                    4 => (
                        "tls_cert_notafter".into(),
                        date_cond(g, "tls_cert_notafter", cert_day(false)),
                    ),
                    5 | 6 => {
                        // The one that holds for this certificate, and the other one.
                        let expired = leaf.not_after < CAPTURE_DAY;
                        let (h, m) = if expired {
                            ("tls_cert_expired", "tls_cert_valid")
                        } else {
                            ("tls_cert_valid", "tls_cert_expired")
                        };
                        (
                            h.into(),
                            Cond {
                                hit: format!("{h};"),
                                miss: format!("{m};"),
                            },
                        )
                    }
                    7 => {
                        let n = certs.len();
                        (
                            "tls.cert_chain_len".into(),
                            Cond {
                                hit: format!("tls.cert_chain_len:{n};"),
                                miss: format!("tls.cert_chain_len:>{n};"),
                            },
                        )
                    }
                    _ => (
                        "ssl_state".into(),
                        Cond {
                            hit: "ssl_state:server_hello;".into(),
                            miss: "ssl_state:client_keyx;".into(),
                        },
                    ),
                }
            };
            conds.push(c);
        } else {
            let b = &sticky[g.size(0, sticky.len() - 1)];
            let (form, c) = cond(g, b);
            conds.push((format!("{}-{form}", b.kw), c));
        }
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    // Named by the first condition, or by `ssl_state` wherever it is (its timing is
    // a class of its own).
    let first = if conds.iter().any(|c| c.0 == "ssl_state") {
        "ssl_state"
    } else {
        conds[0].0.as_str()
    };
    let name = format!("{}-{first}", if side_client { "client" } else { "server" });
    let proto = g.pick(&["tls", "tls", "tcp"]);
    let s = base(&name, intent, v6, L4::Tcp, proto);
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(s, f, 443, opts, !side_client, client_hello)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn dates_round_trip_and_the_capture_day_is_right() {
        assert_eq!(days(1970, 1, 1), 0);
        assert_eq!(days(2023, 11, 14), CAPTURE_DAY);
        assert_eq!(civil(CAPTURE_DAY), (2023, 11, 14));
        assert_eq!(date(days(2000, 2, 29) + 1), "2000-03-01");
        assert_eq!(
            utc_time(CAPTURE_DAY),
            [&[0x17u8, 13][..], b"231114000000Z"].concat()
        );
    }

    #[test]
    fn certificates_parse_as_x509_and_ja3_leaves_grease_out() {
        let mut rng = Rng::new(11);
        let mut g = Gen {
            rng: &mut rng,
            index: 4,
        };
        for _ in 0..20 {
            let c = cert(&mut g, "a.test", "ca");
            assert_eq!(c.der[0], 0x30);
            // Outer length covers the whole certificate.
            let n = usize::from(c.der[2]) << 8 | usize::from(c.der[3]);
            assert_eq!((c.der[1], n + 4), (0x82, c.der.len()));
            assert!(c.subject.ends_with("CN=a.test"));
            assert_eq!(c.fingerprint.len(), 59);
        }
        assert!(is_grease(0x3a3a) && is_grease(0x1a1a) && !is_grease(0x0a0b));
        assert_eq!(dashed(&[0x3a3a, 0xc02f, 47]), "49199-47");
    }

    #[test]
    fn rules_parse_and_flows_decode() {
        let mut rng = Rng::new(2);
        let mut ok = 0;
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = tls(&mut g);
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
            assert!(c.frames(0).len() >= 10);
        }
        // Edge values Suricata refuses (dates with `>=`, short hashes, `tls.alpn`) are
        // written on purpose.
        assert!(ok >= 240, "{ok} of 300 parse");
    }
}

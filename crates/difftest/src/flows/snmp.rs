//! SNMP over UDP port 161 (traps to 162): a request and its response in version 1, 2c
//! or 3. Versions 1 and 2c carry a community string (drawn empty now and then, or long);
//! version 3 a USM security parameters block with a user name (empty now and then) and a
//! plain scoped PDU. PDU types: get, get-next, set, get-bulk (2c/3), the response, traps
//! (v1 trap, v2 trap, inform) and report. The rule takes one or two of `snmp.version`,
//! `snmp.pdu_type` (integer syntax with edge values) or the sticky buffers
//! `snmp.community` and `snmp.usm` in the forms of the HTTP buffer family.

use super::appval::{int, seq, tlv, uint_cond};
use super::bufcond::{cond, Cond};
use super::httpbuf::buf;
use super::Flow;
use crate::case::Spec;
use crate::rulegen::{Family, Gen};

/// SNMP versions, PDU types, communities and USM user names.
pub const SNMP: Family = Family {
    name: "snmp",
    keywords: &[
        "snmp.version",
        "snmp.pdu_type",
        "snmp.community",
        "snmp.usm",
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
    weight: 3,
    make: snmp,
};

/// The OID 1.3.6.1.2.1.1.5.0 (sysName.0).
const SYSNAME: &[u8] = &[0x2b, 6, 1, 2, 1, 1, 5, 0];

/// A PDU of type `ty` (0..=8) with one variable binding.
fn pdu(ty: u8, id: u32, value: Option<&[u8]>) -> Vec<u8> {
    let v = match value {
        Some(s) => tlv(0x04, s),
        None => vec![0x05, 0],
    };
    let binds = seq(&[seq(&[tlv(0x06, SYSNAME), v])]);
    if ty == 4 {
        // The v1 trap: enterprise, agent address, generic and specific trap, time.
        let body = [
            tlv(0x06, &[0x2b, 6, 1, 4, 1, 0xbf, 0x08]),
            tlv(0x40, &[10, 0, 0, 2]),
            int(6),
            int(1),
            tlv(0x43, &[0x01, 0x00]),
            binds,
        ]
        .concat();
        return tlv(0xa4, &body);
    }
    tlv(
        0xa0 | ty,
        &[int(u64::from(id)), int(0), int(0), binds].concat(),
    )
}

/// A whole message of `version` (0, 1 or 3) with `community` (v1/v2c) or USM `user`.
fn message(version: u8, secret: &[u8], ty: u8, id: u32, value: Option<&[u8]>) -> Vec<u8> {
    let p = pdu(ty, id, value);
    if version < 3 {
        return seq(&[int(u64::from(version)), tlv(0x04, secret), p]);
    }
    let global = seq(&[int(u64::from(id)), int(65507), tlv(0x04, &[0x04]), int(3)]);
    let usm = seq(&[
        tlv(0x04, &[0x80, 0, 0x1f, 0x88, 0x80, 0x12, 0x34]),
        int(3),
        int(1234),
        tlv(0x04, secret),
        tlv(0x04, &[]),
        tlv(0x04, &[]),
    ]);
    let scoped = seq(&[tlv(0x04, &[]), tlv(0x04, &[]), p]);
    seq(&[int(3), global, tlv(0x04, &usm), scoped])
}

fn snmp(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let version = g.pick(&[0u8, 1, 1, 3]);
    let n = match g.size(0, 5) {
        0 => 0,
        1 => g.size(100, 140),
        _ => g.size(3, 12),
    };
    let secret = if n > 0 && g.chance(0.4) {
        [b"pub".to_vec(), g.needle(n)].concat()
    } else {
        g.needle(n)
    };
    let trap = g.chance(0.2);
    let (req_ty, resp_ty) = if trap {
        match version {
            0 => (4u8, None),
            _ => (g.pick(&[7u8, 6]), Some(2u8)),
        }
    } else {
        let mut tys = vec![0u8, 1, 3];
        if version > 0 {
            tys.push(5);
        }
        (
            g.pick(&tys),
            Some(if version == 3 && g.chance(0.3) { 8 } else { 2 }),
        )
    };
    // A trap answered by nobody (v1) or an inform/trap2 answered with a response.
    let dport = if trap { 162 } else { 161 };
    let mut f = Flow::new(g.index, v6, dport);
    let id = g.num(0, u64::from(u32::MAX >> 1)) as u32;
    let name = g.needle(6);
    let req = message(version, &secret, req_ty, id, None);
    f.udp(true, &req);
    if let Some(t) = resp_ty {
        f.udp(false, &message(version, &secret, t, id, Some(&name)));
    }
    let side_client = resp_ty.is_none() || g.chance(0.6);
    let ty = if side_client {
        req_ty
    } else {
        resp_ty.unwrap_or(2)
    };
    let version_no = if version == 3 {
        3u64
    } else {
        u64::from(version) + 1
    };
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        let c = match g.size(0, 5) {
            0 => {
                let (form, c) = uint_cond(g, "snmp.version", version_no, u64::from(u32::MAX));
                (format!("snmp.version-{form}"), c)
            }
            1 => {
                let (form, c) = uint_cond(g, "snmp.pdu_type", u64::from(ty), u64::from(u32::MAX));
                (format!("snmp.pdu_type-{form}"), c)
            }
            _ => {
                let (kw, v) = if version == 3 {
                    ("snmp.usm", secret.clone())
                } else {
                    ("snmp.community", secret.clone())
                };
                // The other buffer now and then: absent in this version.
                let b = if g.chance(0.15) {
                    let other = if kw == "snmp.usm" {
                        "snmp.community"
                    } else {
                        "snmp.usm"
                    };
                    buf(other, None, None, None)
                } else {
                    buf(kw, None, None, Some(v))
                };
                let (form, c) = cond(g, &b);
                (format!("{}-{form}", b.kw), c)
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
        &format!("-v{version_no}"),
        "snmp",
        f,
        dport,
        req,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2c_get_is_laid_out_as_ber() {
        let m = message(1, b"public", 0, 1, None);
        assert_eq!(&m[..5], &[0x30, m.len() as u8 - 2, 2, 1, 1]);
        assert_eq!(&m[5..13], b"\x04\x06public");
        assert_eq!(m[13], 0xa0);
        let v3 = message(3, b"user", 5, 9, None);
        assert!(v3.windows(6).any(|w| w == b"\x04\x04user"));
    }

    #[test]
    fn rules_parse() {
        let (cases, ok) = crate::flows::sample_cases(200, snmp);
        for c in &cases {
            assert!(!c.frames(0).is_empty());
        }
        assert!(ok >= 150, "{ok} of 200 parse");
    }
}

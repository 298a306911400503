//! DCERPC for the SMB family: interface UUIDs as text and on the wire, connection-oriented
//! PDUs, a case's exchange (bind, bind_ack, request fragments, response) and the rule
//! conditions on it (`dcerpc.iface`, `dcerpc.opnum`, `dcerpc.stub_data`).

use super::super::spoil;
use crate::rulegen::content_text;
use crate::rulegen::Gen;

/// A UUID as text and as DCERPC writes it (first three fields in the data
/// representation's byte order).
#[derive(Clone)]
pub(super) struct Uuid {
    pub(super) bytes: [u8; 16],
}

impl Uuid {
    pub(super) fn text(&self) -> String {
        let b = &self.bytes;
        format!(
            "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        )
    }

    pub(super) fn wire(&self, le: bool) -> Vec<u8> {
        let b = &self.bytes;
        let mut v = Vec::with_capacity(16);
        if le {
            v.extend_from_slice(&[b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6]]);
        } else {
            v.extend_from_slice(&b[..8]);
        }
        v.extend_from_slice(&b[8..]);
        v
    }
}

/// Real interfaces: LSA, SRVSVC, SAMR, EPM, DRSUAPI.
pub(super) const IFACES: &[([u8; 16], u16)] = &[
    (
        [
            0x12, 0x34, 0x57, 0x78, 0x12, 0x34, 0xab, 0xcd, 0xef, 0x00, 0x01, 0x23, 0x45, 0x67,
            0x89, 0xab,
        ],
        0,
    ),
    (
        [
            0x4b, 0x32, 0x4f, 0xc8, 0x16, 0x70, 0x01, 0xd3, 0x12, 0x78, 0x5a, 0x47, 0xbf, 0x6e,
            0xe1, 0x88,
        ],
        3,
    ),
    (
        [
            0x12, 0x34, 0x57, 0x78, 0x12, 0x34, 0xab, 0xcd, 0xef, 0x00, 0x01, 0x23, 0x45, 0x67,
            0x89, 0xac,
        ],
        1,
    ),
    (
        [
            0xe1, 0xaf, 0x83, 0x08, 0x5d, 0x1f, 0x11, 0xc9, 0x91, 0xa4, 0x08, 0x00, 0x2b, 0x14,
            0xa0, 0xfa,
        ],
        3,
    ),
    (
        [
            0xe3, 0x51, 0x42, 0x35, 0x4b, 0x06, 0x11, 0xd1, 0xab, 0x04, 0x00, 0xc0, 0x4f, 0xc2,
            0xdc, 0xd2,
        ],
        4,
    ),
];

pub(super) const NDR: [u8; 16] = [
    0x8a, 0x88, 0x5d, 0x04, 0x1c, 0xeb, 0x11, 0xc9, 0x9f, 0xe8, 0x08, 0x00, 0x2b, 0x10, 0x48, 0x60,
];

/// A DCERPC connection-oriented PDU.
pub(super) fn pdu(ptype: u8, flags: u8, le: bool, call_id: u32, body: &[u8]) -> Vec<u8> {
    let n = (16 + body.len()) as u16;
    let mut v = vec![5, 0, ptype, flags, if le { 0x10 } else { 0 }, 0, 0, 0];
    let w16 = |x: u16| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    let w32 = |x: u32| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    v.extend_from_slice(&w16(n));
    v.extend_from_slice(&w16(0));
    v.extend_from_slice(&w32(call_id));
    v.extend_from_slice(body);
    v
}

/// The DCERPC exchange of a case: bind, bind_ack, the request (one or two fragments) and
/// the response; and what the rule may look for.
pub(super) struct Rpc {
    pub(super) bind: Vec<u8>,
    pub(super) bind_ack: Vec<u8>,
    pub(super) requests: Vec<Vec<u8>>,
    pub(super) response: Vec<u8>,
    pub(super) iface: Uuid,
    pub(super) version: u16,
    pub(super) opnum: u16,
    pub(super) stub: Vec<u8>,
    pub(super) accepted: bool,
    /// Big-endian data representation.
    pub(super) be: bool,
}

pub(super) fn rpc(g: &mut Gen<'_>, sec_addr: &[u8]) -> Rpc {
    let le = g.chance(0.8);
    let w16 = |v: &mut Vec<u8>, x: u16| {
        v.extend_from_slice(&if le { x.to_le_bytes() } else { x.to_be_bytes() })
    };
    let w32 = |v: &mut Vec<u8>, x: u32| {
        v.extend_from_slice(&if le { x.to_le_bytes() } else { x.to_be_bytes() })
    };
    let (ib, version) = IFACES[g.size(0, IFACES.len() - 1)];
    let iface = Uuid { bytes: ib };
    let ndr = Uuid { bytes: NDR };
    // Bind: one context (or two, the case's interface second).
    let two = g.chance(0.3);
    let mut b = Vec::new();
    w16(&mut b, 4280);
    w16(&mut b, 4280);
    w32(&mut b, 0);
    b.extend_from_slice(&[if two { 2 } else { 1 }, 0, 0, 0]);
    let ctx = |b: &mut Vec<u8>, id: u16, u: &Uuid, ver: u16| {
        w16(b, id);
        b.extend_from_slice(&[1, 0]);
        b.extend_from_slice(&u.wire(le));
        w16(b, ver);
        w16(b, 0);
        b.extend_from_slice(&ndr.wire(le));
        w32(b, 2);
    };
    if two {
        let (ob, ov) = IFACES[(IFACES.iter().position(|x| x.0 == ib).unwrap_or(0) + 1) % 5];
        ctx(&mut b, 0, &Uuid { bytes: ob }, ov);
        ctx(&mut b, 1, &iface, version);
    } else {
        ctx(&mut b, 0, &iface, version);
    }
    let ctx_id = u16::from(two);
    let bind = pdu(11, 3, le, 1, &b);
    // Bind ack: accepted, or rejected (provider rejection) in some cases.
    let accepted = g.chance(0.85);
    let mut a = Vec::new();
    w16(&mut a, 4280);
    w16(&mut a, 4280);
    w32(&mut a, 0x1234);
    w16(&mut a, sec_addr.len() as u16);
    a.extend_from_slice(sec_addr);
    while !(a.len() + 16).is_multiple_of(4) {
        a.push(0);
    }
    a.extend_from_slice(&[if two { 2 } else { 1 }, 0, 0, 0]);
    for i in 0..(1 + u16::from(two)) {
        let ok = accepted || i != ctx_id;
        w16(&mut a, if ok { 0 } else { 2 });
        w16(&mut a, if ok { 0 } else { 1 });
        a.extend_from_slice(&if ok { ndr.wire(le) } else { vec![0; 16] });
        w32(&mut a, if ok { 2 } else { 0 });
    }
    let bind_ack = pdu(12, 3, le, 1, &a);
    // Request with a stub holding a needle; in two fragments sometimes.
    let opnum = g.pick(&[0u16, 1, 2, 15, 31, 44, 255]);
    let nl = g.size(5, 10);
    let needle = g.needle(nl);
    let sl = g.size(0, 12);
    let mut stub = g.filler(sl);
    stub.extend_from_slice(&needle);
    let fl = g.size(0, 16);
    stub.extend(g.filler(fl));
    let req = |flags: u8, part: &[u8]| {
        let mut r = Vec::new();
        w32(&mut r, stub.len() as u32);
        w16(&mut r, ctx_id);
        w16(&mut r, opnum);
        r.extend_from_slice(part);
        pdu(0, flags, le, 2, &r)
    };
    let requests = if g.chance(0.3) && stub.len() > 4 {
        let cut = g.size(1, stub.len() - 1);
        vec![req(1, &stub[..cut]), req(2, &stub[cut..])]
    } else {
        vec![req(3, &stub)]
    };
    let mut r = Vec::new();
    w32(&mut r, 8);
    w16(&mut r, ctx_id);
    r.extend_from_slice(&[0, 0]);
    r.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    let response = pdu(2, 3, le, 2, &r);
    Rpc {
        bind,
        bind_ack,
        requests,
        response,
        iface,
        version,
        opnum,
        stub: needle,
        accepted,
        be: !le,
    }
}

/// The template part of an exchange's shape: big-endian, request in fragments.
pub(super) fn rpc_shape(r: &Rpc) -> String {
    format!(
        "{}{}",
        if r.be { "-be" } else { "" },
        if r.requests.len() > 1 { "-frag" } else { "" }
    )
}

/// A DCERPC condition on the exchange: `dcerpc.iface`, `dcerpc.opnum` or
/// `dcerpc.stub_data`; (hit, miss) texts.
pub(super) fn rpc_cond(g: &mut Gen<'_>, r: &Rpc) -> (String, String, &'static str) {
    match g.size(0, 2) {
        0 => {
            let u = r.iface.text();
            let other = Uuid {
                bytes: {
                    let mut b = r.iface.bytes;
                    b[15] ^= 1;
                    b
                },
            }
            .text();
            let upper = if g.chance(0.2) { u.to_uppercase() } else { u };
            let v = r.version;
            let (ver_hit, ver_miss) = match g.size(0, 4) {
                0 => (String::new(), String::new()),
                1 => (format!(",={v}"), format!(",={}", v + 1)),
                2 => (format!(",<{}", v + 1), format!(",<{v}")),
                3 if v > 0 => (format!(",>{}", v - 1), format!(",>{v}")),
                _ => (format!(",!{}", v + 1), format!(",!{v}")),
            };
            let frag = if g.chance(0.3) { ",any_frag" } else { "" };
            if g.chance(0.5) || ver_hit.is_empty() {
                (
                    format!("dcerpc.iface:{upper}{ver_hit}{frag};"),
                    format!("dcerpc.iface:{other}{ver_hit}{frag};"),
                    "iface",
                )
            } else {
                (
                    format!("dcerpc.iface:{upper}{ver_hit}{frag};"),
                    format!("dcerpc.iface:{upper}{ver_miss}{frag};"),
                    "iface-version",
                )
            }
        }
        1 => {
            let o = r.opnum;
            let kw = g.pick(&["dcerpc.opnum", "dcerpc.opnum", "dce_opnum"]);
            let (h, m) = match g.size(0, 2) {
                0 => (format!("{o}"), format!("{}", o + 1)),
                1 => (
                    format!("{}-{}", o.saturating_sub(2), o + 3),
                    format!("{}-{}", o + 1, o + 4),
                ),
                _ => (
                    format!("{},{o},{}", o + 7, o + 9),
                    format!("{},{}", o + 1, o + 7),
                ),
            };
            (format!("{kw}:{h};"), format!("{kw}:{m};"), "opnum")
        }
        _ => {
            let kw = g.pick(&["dcerpc.stub_data", "dcerpc.stub_data", "dce_stub_data"]);
            let n = r.stub.len();
            let piece = r.stub[..n.min(g.size(3, n))].to_vec();
            let t = |c: &[u8]| format!("{kw}; content:\"{}\";", content_text(c));
            (t(&piece), t(&spoil(&piece)), "stub")
        }
    }
}

//! NFS over ONC RPC on port 2049, TCP (each message behind its record mark) or UDP:
//! calls of NFSv3 (NULL, GETATTR, LOOKUP, ACCESS, READ, WRITE, COMMIT), NFSv2 (NULL,
//! GETATTR) and NFSv4 (NULL, COMPOUND with PUTROOTFH, or PUTFH and REMOVE answered OK
//! or NOENT, a transaction whose `nfs_procedure` is 28), with AUTH_NULL or AUTH_UNIX
//! credentials, xids at 0 and at the top, and their accepted replies. The rule takes
//! `nfs_procedure` or `nfs.version` in Suricata's integer syntax with edge values (see
//! `appval::uint_cond`), or the payload keyword `rpc` (program, version and procedure,
//! each of the last two a `*` now and then, one of them off by one for a miss), on the
//! calls; and now and then `nfs.procedure`, which Suricata 7.0.10 does not know.

use super::appval::uint_cond;
use super::bufcond::Cond;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};

/// NFS calls and replies.
pub const NFS: Family = Family {
    name: "nfs",
    keywords: &[
        "nfs_procedure",
        "nfs.procedure",
        "nfs.version",
        "rpc",
        "flow",
    ],
    weight: 1,
    make: nfs,
};

/// The NFS program number.
const NFS_PROGRAM: u32 = 100_003;

fn w(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_be_bytes());
}

/// XDR opaque or string: length, bytes, padding to four.
fn opaque(v: &mut Vec<u8>, b: &[u8]) {
    w(v, b.len() as u32);
    v.extend_from_slice(b);
    v.resize(v.len() + (4 - b.len() % 4) % 4, 0);
}

/// An RPC call header: xid, CALL, RPC version 2, program, version, procedure,
/// credentials (AUTH_UNIX or AUTH_NULL), a null verifier.
fn call(g: &mut Gen<'_>, xid: u32, vers: u32, proc_: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for x in [xid, 0, 2, NFS_PROGRAM, vers, proc_] {
        w(&mut v, x);
    }
    if g.chance(0.7) {
        let mut body = Vec::new();
        w(&mut body, 0x6550_0000);
        opaque(&mut body, b"dtclient");
        for x in [1000, 1000, 1, 1000] {
            w(&mut body, x);
        }
        w(&mut v, 1);
        opaque(&mut v, &body);
    } else {
        w(&mut v, 0);
        w(&mut v, 0);
    }
    w(&mut v, 0);
    w(&mut v, 0);
    v
}

/// An accepted reply header: xid, REPLY, MSG_ACCEPTED, null verifier, SUCCESS.
fn reply(xid: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for x in [xid, 1, 0, 0, 0, 0] {
        w(&mut v, x);
    }
    v
}

/// A file handle of `n` bytes.
fn handle(g: &mut Gen<'_>, n: usize) -> Vec<u8> {
    (0..n).map(|_| g.num(0, 255) as u8).collect()
}

/// One call and its reply: (version, procedure, call, reply).
/// One call and its reply: version, RPC procedure, the transaction's procedure (a v4
/// REMOVE's is 28), call, reply.
fn exchange(g: &mut Gen<'_>, xid: u32) -> (u32, u32, u32, Vec<u8>, Vec<u8>) {
    let vers = g.pick(&[3u32, 3, 3, 2, 4]);
    let fh_len = g.pick(&[8usize, 28, 64]);
    let fh3 = handle(g, fh_len);
    let procs: &[u32] = match vers {
        2 => &[0, 1],
        4 => &[0, 1],
        _ => &[0, 1, 3, 4, 6, 7, 21],
    };
    let p = g.pick(procs);
    let mut txp = p;
    let mut c = call(g, xid, vers, p);
    let mut r = reply(xid);
    match (vers, p) {
        (_, 0) => {}
        (2, 1) => {
            c.extend(handle(g, 32));
            w(&mut r, 0);
            r.extend_from_slice(&[0; 68]);
        }
        (4, _) if g.chance(0.5) => {
            // COMPOUND: PUTFH and REMOVE of a name, answered OK or NOENT.
            txp = 28;
            opaque(&mut c, b"");
            w(&mut c, 0);
            w(&mut c, 2);
            w(&mut c, 22);
            opaque(&mut c, &fh3);
            w(&mut c, 28);
            let n = g.size(1, 12);
            let name = g.needle(n);
            opaque(&mut c, &name);
            let status = g.pick(&[0u32, 0, 2]);
            w(&mut r, status);
            opaque(&mut r, b"");
            w(&mut r, 2);
            w(&mut r, 22);
            w(&mut r, 0);
            w(&mut r, 28);
            w(&mut r, status);
            if status == 0 {
                // change_info4: atomic, before, after.
                w(&mut r, 1);
                r.extend_from_slice(&1u64.to_be_bytes());
                r.extend_from_slice(&2u64.to_be_bytes());
            }
        }
        (4, _) => {
            // COMPOUND: tag, minor version 0, one operation PUTROOTFH.
            opaque(&mut c, b"");
            w(&mut c, 0);
            w(&mut c, 1);
            w(&mut c, 24);
            w(&mut r, 0);
            opaque(&mut r, b"");
            w(&mut r, 1);
            w(&mut r, 24);
            w(&mut r, 0);
        }
        (_, 1) => {
            opaque(&mut c, &fh3);
            w(&mut r, 0);
            r.extend_from_slice(&[0; 84]);
        }
        (_, 3) => {
            opaque(&mut c, &fh3);
            let n = g.size(1, 12);
            let name = g.needle(n);
            opaque(&mut c, &name);
            w(&mut r, 0);
            opaque(&mut r, &handle(g, 32));
            w(&mut r, 0);
            w(&mut r, 0);
        }
        (_, 4) => {
            opaque(&mut c, &fh3);
            w(&mut c, 0x1F);
            for x in [0, 0, 0x1F] {
                w(&mut r, x);
            }
        }
        (_, 6) => {
            opaque(&mut c, &fh3);
            c.extend_from_slice(&0u64.to_be_bytes());
            w(&mut c, 16);
            for x in [0, 0, 16, 1] {
                w(&mut r, x);
            }
            let data = g.filler(16);
            opaque(&mut r, &data);
        }
        (_, 7) => {
            let n = g.size(1, 40);
            let data = g.filler(n);
            opaque(&mut c, &fh3);
            c.extend_from_slice(&0u64.to_be_bytes());
            w(&mut c, data.len() as u32);
            w(&mut c, 2);
            opaque(&mut c, &data);
            for x in [0, 0, 0, data.len() as u32, 2, 1, 2] {
                w(&mut r, x);
            }
        }
        _ => {
            // COMMIT.
            opaque(&mut c, &fh3);
            c.extend_from_slice(&0u64.to_be_bytes());
            w(&mut c, 0);
            for x in [0, 0, 0, 1, 2] {
                w(&mut r, x);
            }
        }
    }
    (vers, p, txp, c, r)
}

/// An `rpc` condition on a call of version `vers` and procedure `p`: wildcards now and
/// then, the miss off by one in one field.
fn rpc_cond(g: &mut Gen<'_>, vers: u32, p: u32) -> (&'static str, Cond) {
    let star_v = g.chance(0.3);
    let star_p = g.chance(0.3);
    let v = if star_v {
        "*".to_string()
    } else {
        vers.to_string()
    };
    let pr = if star_p {
        "*".to_string()
    } else {
        p.to_string()
    };
    let hit = match g.size(0, 3) {
        0 if !star_v && !star_p => format!("rpc:{NFS_PROGRAM},{v};"),
        1 if !star_v && !star_p => format!("rpc:{NFS_PROGRAM};"),
        _ => format!("rpc:{NFS_PROGRAM},{v},{pr};"),
    };
    let miss = match g.size(0, 2) {
        0 => format!("rpc:{},{v},{pr};", NFS_PROGRAM + 1),
        1 if !star_v => format!("rpc:{NFS_PROGRAM},{},{pr};", vers + 1),
        _ if !star_p => format!("rpc:{NFS_PROGRAM},{v},{};", p + 1),
        _ => format!("rpc:{},{v},{pr};", NFS_PROGRAM - 1),
    };
    ("rpc", Cond { hit, miss })
}

fn nfs(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let udp = g.chance(0.35);
    let mut f = Flow::new(g.index, v6, 2049);
    let n = g.size(1, 3);
    let mut msgs = Vec::new();
    let mut seen = Vec::new();
    let base_xid = g.pick(&[0u32, 1, 0x1234_5678, u32::MAX - 3]);
    for i in 0..n {
        let (vers, p, txp, c, r) = exchange(g, base_xid.wrapping_add(i as u32));
        let mark = |m: Vec<u8>| -> Vec<u8> {
            if udp {
                m
            } else {
                let mut v = (0x8000_0000u32 | m.len() as u32).to_be_bytes().to_vec();
                v.extend(m);
                v
            }
        };
        msgs.push((true, mark(c)));
        if g.chance(0.9) {
            msgs.push((false, mark(r)));
        }
        seen.push((vers, p, txp));
    }
    let first = msgs[0].1.clone();
    if udp {
        super::session::udp(&mut f, &msgs);
    } else {
        super::session::tcp(g, &mut f, &msgs);
    }
    let (vers, p, txp) = seen[g.size(0, seen.len() - 1)];
    let (name, cond) = match g.size(0, 9) {
        0..=3 => {
            let (form, c) = uint_cond(g, "nfs_procedure", u64::from(txp), u64::from(u32::MAX));
            (format!("procedure-{form}"), c)
        }
        4..=6 => {
            let (form, c) = uint_cond(g, "nfs.version", u64::from(vers), u64::from(u32::MAX));
            (format!("version-{form}"), c)
        }
        7 if g.chance(0.3) => {
            let c = format!("nfs.procedure:{p};");
            (
                "dotted".to_string(),
                Cond {
                    hit: c.clone(),
                    miss: c,
                },
            )
        }
        _ => {
            let (form, c) = rpc_cond(g, vers, p);
            (form.to_string(), c)
        }
    };
    let texts = super::bufcond::texts(g, intent, std::iter::once(&cond));
    let (l4, transport) = if udp {
        (L4::Udp, "udp")
    } else {
        (L4::Tcp, "tcp")
    };
    let flow = super::bufcond::flow_opt(g, true);
    let rproto = if name == "rpc" {
        transport
    } else {
        g.pick(&["nfs", "nfs", transport])
    };
    let name = format!("{name}-{transport}");
    let s = base(&name, intent, v6, l4, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    if udp {
        super::appval::udp_case(s, f, 2049, opts, false, first)
    } else {
        super::bufcond::tcp_case(s, f, 2049, opts, false, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_whole_xdr_words() {
        let mut rng = gen::rng::Rng::new(8);
        let mut g = Gen {
            rng: &mut rng,
            index: 0,
        };
        let mut removes = 0;
        for i in 0..200 {
            let (vers, p, txp, c, r) = exchange(&mut g, i);
            removes += usize::from(txp == 28);
            assert!(txp == p || (vers, p, txp) == (4, 1, 28));
            assert_eq!(c.len() % 4, 0);
            assert_eq!(r.len() % 4, 0);
            assert_eq!(&c[12..16], &NFS_PROGRAM.to_be_bytes());
            assert_eq!(&c[16..20], &vers.to_be_bytes());
            assert_eq!(&c[20..24], &p.to_be_bytes());
            assert_eq!(&r[..4], &c[..4]);
        }
        assert!(removes > 0);
    }

    #[test]
    fn rules_parse_mostly_and_flows_are_written() {
        let (cases, ok) = crate::flows::sample_cases(200, nfs);
        assert!(ok >= 170, "{ok} of 200 parse");
        assert!(cases.iter().all(|c| !c.frames(0).is_empty()));
    }
}

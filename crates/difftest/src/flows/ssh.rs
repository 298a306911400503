//! SSH on TCP port 22: both identification lines (`SSH-2.0-` or `SSH-1.99-`, a software
//! version with or without a comment after a space, CRLF or a bare LF), each in one or
//! two segments, then both sides' `SSH_MSG_KEXINIT` binary packets (algorithm name lists
//! drawn from real ones, a random cookie and padding). The rule takes one or two
//! conditions of one side: the sticky buffers `ssh.proto`/`ssh_proto`,
//! `ssh.software`/`ssh_software`, `ssh.hassh`, `ssh.hassh.string` (client),
//! `ssh.hassh.server`, `ssh.hassh.server.string` (server) in the forms of the HTTP buffer
//! family (content anywhere, offsets at 0, at the end and past it, anchors, `bsize`,
//! `isdataat`, `distance`/`within`, negation, `pcre`, `nocase`), or the value keywords
//! `ssh.protoversion` (`2_compat`, the version itself, one off) and
//! `ssh.softwareversion` (the whole version, a prefix, one byte off).

use super::bufcond::{cond, spoil, Buf, Cond};
use super::httpbuf::buf;
use super::tls::md5_hex;
use super::Flow;
use crate::case::{Spec, L4};
use crate::rulegen::{base, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

/// SSH identification lines and key exchange fingerprints.
pub const SSH: Family = Family {
    name: "ssh",
    keywords: &[
        "ssh.proto",
        "ssh_proto",
        "ssh.software",
        "ssh_software",
        "ssh.hassh",
        "ssh.hassh.string",
        "ssh.hassh.server",
        "ssh.hassh.server.string",
        "ssh.protoversion",
        "ssh.softwareversion",
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
    make: ssh,
};

/// Key exchange methods offered (a random non-empty subset, in this order).
const KEX: &[&str] = &[
    "curve25519-sha256",
    "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256",
    "diffie-hellman-group14-sha256",
    "diffie-hellman-group-exchange-sha256",
];
/// Ciphers.
const ENC: &[&str] = &[
    "chacha20-poly1305@openssh.com",
    "aes128-ctr",
    "aes256-ctr",
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
];
/// MACs.
const MAC: &[&str] = &[
    "umac-64-etm@openssh.com",
    "hmac-sha2-256-etm@openssh.com",
    "hmac-sha2-256",
    "hmac-sha1",
];
/// Compression methods.
const COMP: &[&str] = &["none", "zlib@openssh.com", "zlib"];
/// Host key types.
const HOSTKEY: &[&str] = &["ssh-ed25519", "rsa-sha2-512", "ecdsa-sha2-nistp256"];

/// A comma-joined non-empty subset of `all`, in its order.
fn subset(g: &mut Gen<'_>, all: &[&str]) -> String {
    let mut v: Vec<&str> = all.iter().copied().filter(|_| g.chance(0.6)).collect();
    if v.is_empty() {
        v.push(all[g.size(0, all.len() - 1)]);
    }
    v.join(",")
}

/// One side's KEXINIT: its binary packet and its hassh string (kex;enc;mac;comp of the
/// direction that side sends).
fn kexinit(g: &mut Gen<'_>) -> (Vec<u8>, String) {
    let kex = subset(g, KEX);
    let hostkey = subset(g, HOSTKEY);
    let (enc, mac, comp) = (subset(g, ENC), subset(g, MAC), subset(g, COMP));
    let mut p = vec![20u8];
    p.extend((0..16).map(|_| g.num(0, 255) as u8));
    for l in [&kex, &hostkey, &enc, &enc, &mac, &mac, &comp, &comp, "", ""] {
        p.extend_from_slice(&(l.len() as u32).to_be_bytes());
        p.extend_from_slice(l.as_bytes());
    }
    p.extend_from_slice(&[0, 0, 0, 0, 0]);
    (packet(g, &p), format!("{kex};{enc};{mac};{comp}"))
}

/// A binary packet (RFC 4253 section 6, no MAC yet): length, padding length, payload,
/// 4 to 11 bytes of padding so the whole is a multiple of 8.
pub fn packet(g: &mut Gen<'_>, payload: &[u8]) -> Vec<u8> {
    let mut pad = 8 - (payload.len() + 5) % 8;
    if pad < 4 {
        pad += 8;
    }
    let mut v = ((payload.len() + pad + 1) as u32).to_be_bytes().to_vec();
    v.push(pad as u8);
    v.extend_from_slice(payload);
    v.extend((0..pad).map(|_| g.num(0, 255) as u8));
    v
}

/// An identification line: (line with its end, protocol version, software version).
fn banner(g: &mut Gen<'_>, client: bool) -> (Vec<u8>, String, String) {
    let proto = if g.chance(0.8) { "2.0" } else { "1.99" };
    let soft = match g.size(0, 3) {
        0 if client => "OpenSSH_8.9p1".to_string(),
        0 => "OpenSSH_9.6".to_string(),
        1 => "PuTTY_Release_0.78".to_string(),
        2 => format!(
            "dt-{}_1.{}",
            String::from_utf8_lossy(&g.needle(5)),
            g.num(0, 9)
        ),
        _ => format!("{}_{}", String::from_utf8_lossy(&g.needle(4)), g.num(1, 99)),
    };
    let comment = if g.chance(0.4) {
        format!(
            " {}",
            g.pick(&["Ubuntu-3ubuntu0.1", "FreeBSD-20240104", "dt comment"])
        )
    } else {
        String::new()
    };
    let end = if g.chance(0.85) { "\r\n" } else { "\n" };
    let line = format!("SSH-{proto}-{soft}{comment}{end}");
    (line.into_bytes(), proto.to_string(), soft)
}

/// `ssh.protoversion`: the version itself or `2_compat` (which 1.99 and any 2.x meet),
/// and a value one off.
fn protoversion(g: &mut Gen<'_>, proto: &str) -> Cond {
    if g.chance(0.5) {
        Cond {
            hit: "ssh.protoversion:2_compat;".into(),
            miss: "ssh.protoversion:1.5;".into(),
        }
    } else {
        let other = if proto == "2.0" { "1.99" } else { "2.0" };
        Cond {
            hit: format!("ssh.protoversion:{proto};"),
            miss: format!("ssh.protoversion:{other};"),
        }
    }
}

/// `ssh.softwareversion`: the whole software version or a prefix of it, and the same
/// with its last byte changed.
fn softwareversion(g: &mut Gen<'_>, soft: &str) -> Cond {
    let v = if g.chance(0.6) {
        soft.to_string()
    } else {
        soft[..g.size(3, soft.len())].to_string()
    };
    let m = String::from_utf8_lossy(&spoil(v.as_bytes())).into_owned();
    Cond {
        hit: format!("ssh.softwareversion:{v};"),
        miss: format!("ssh.softwareversion:{m};"),
    }
}

/// Sends `m` in one or two segments.
fn send(f: &mut Flow, g: &mut Gen<'_>, client: bool, seq: &mut u32, ack: u32, m: &[u8]) {
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
}

fn ssh(g: &mut Gen<'_>) -> Spec {
    let intent = g.intent();
    let v6 = g.v6();
    let (cb, cproto, csoft) = banner(g, true);
    let (sb, sproto, ssoft) = banner(g, false);
    let (ck, chassh) = kexinit(g);
    let (sk, shassh) = kexinit(g);
    let mut f = Flow::new(g.index, v6, 22);
    let (ci, si) = (40_000u32, 70_000u32);
    f.handshake(ci, si);
    let (mut c, mut s) = (ci + 1, si + 1);
    // The server speaks first in most captures, the client in some.
    if g.chance(0.7) {
        send(&mut f, g, false, &mut s, c, &sb);
        send(&mut f, g, true, &mut c, s, &cb);
    } else {
        send(&mut f, g, true, &mut c, s, &cb);
        send(&mut f, g, false, &mut s, c, &sb);
    }
    send(&mut f, g, true, &mut c, s, &ck);
    send(&mut f, g, false, &mut s, c, &sk);
    f.tcp(true, c, s, ACK, &[], &[]);
    f.close(c, s);
    let side_client = g.chance(0.5);
    let (proto, soft, hkw, hs) = if side_client {
        (&cproto, &csoft, "ssh.hassh", &chassh)
    } else {
        (&sproto, &ssoft, "ssh.hassh.server", &shassh)
    };
    let skw = if side_client {
        "ssh.hassh.string"
    } else {
        "ssh.hassh.server.string"
    };
    let sticky: Vec<Buf> = vec![
        buf(
            g.pick(&["ssh.proto", "ssh_proto"]),
            None,
            None,
            Some(proto.clone().into_bytes()),
        ),
        buf(
            g.pick(&["ssh.software", "ssh_software"]),
            None,
            None,
            Some(soft.clone().into_bytes()),
        ),
        buf(hkw, None, None, Some(md5_hex(hs).into_bytes())),
        buf(skw, None, None, Some(hs.clone().into_bytes())),
    ];
    let mut conds: Vec<(String, Cond)> = Vec::new();
    for _ in 0..g.size(1, 2) {
        if g.chance(0.3) {
            if g.chance(0.5) {
                conds.push(("ssh.protoversion".into(), protoversion(g, proto)));
            } else {
                conds.push(("ssh.softwareversion".into(), softwareversion(g, soft)));
            }
        } else {
            let b = &sticky[g.size(0, sticky.len() - 1)];
            let (form, c) = cond(g, b);
            conds.push((format!("{}-{form}", b.kw), c));
        }
    }
    let texts = super::bufcond::texts(g, intent, conds.iter().map(|(_, c)| c));
    let flow = super::bufcond::flow_opt(g, side_client);
    let name = format!(
        "{}-{}",
        if side_client { "client" } else { "server" },
        conds[0].0
    );
    let rproto = g.pick(&["ssh", "ssh", "tcp"]);
    let s = base(&name, intent, v6, L4::Tcp, rproto);
    let opts = format!("{flow}{}", texts.join(" "));
    super::bufcond::tcp_case(s, f, 22, opts, !side_client, cb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen::rng::Rng;

    #[test]
    fn kexinit_packets_are_padded_and_hassh_strings_have_four_fields() {
        let mut rng = Rng::new(5);
        let mut g = Gen {
            rng: &mut rng,
            index: 1,
        };
        for _ in 0..50 {
            let (p, h) = kexinit(&mut g);
            let len = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) as usize;
            assert_eq!(len + 4, p.len());
            assert_eq!(p.len() % 8, 0);
            assert!((4..12).contains(&usize::from(p[4])));
            assert_eq!(p[5], 20);
            assert_eq!(h.split(';').count(), 4);
            assert!(h.split(';').all(|x| !x.is_empty()));
        }
    }

    #[test]
    fn rules_parse_and_flows_have_both_banners() {
        let mut rng = Rng::new(3);
        let mut ok = 0;
        for index in 0..200 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = ssh(&mut g);
            assert!(s.payload.starts_with(b"SSH-"));
            let c = crate::case::Case {
                index,
                addrs: crate::case::Addrs::of(index, s.v6),
                spec: s,
            };
            ok += usize::from(rules::parse_rule(&c.rule()).is_ok());
            assert!(c.frames(0).len() >= 10);
        }
        assert!(ok >= 180, "{ok} of 200 parse");
    }
}

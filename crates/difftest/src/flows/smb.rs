//! SMB2 over TCP port 445 (NetBIOS session framing) and DCERPC over TCP: an SMB2
//! session (NEGOTIATE, two SESSION_SETUP rounds carrying NTLMSSP NEGOTIATE, CHALLENGE
//! and AUTHENTICATE inside SPNEGO, TREE_CONNECT, CREATE, WRITE, READ) to a disk share or
//! to `IPC$` with a named pipe carrying DCERPC (bind, bind_ack, request, response); or
//! DCERPC straight over TCP (port 135 or another), its request in one or two fragments,
//! little- or big-endian. Rules: `smb.named_pipe`, `smb.share`, `smb.ntlmssp_user`,
//! `smb.ntlmssp_domain` contents, `smb.version`, `dcerpc.iface` (with a version
//! comparison and `any_frag`), `dcerpc.opnum` (one, a range, a list) and
//! `dcerpc.stub_data` contents, alone or two together.

use super::{spoil, Flow};
use crate::case::{Intent, Spec, L4};
use crate::rulegen::{base, content_text, Family, Gen};
use wire::tcp_flags::{ACK, PSH};

mod dcerpc;
use dcerpc::{rpc, rpc_cond, rpc_shape};

/// SMB2 sessions and DCERPC over SMB and TCP.
pub const SMB: Family = Family {
    name: "smb",
    keywords: &[
        "smb.named_pipe",
        "smb.share",
        "smb.ntlmssp_user",
        "smb.ntlmssp_domain",
        "smb.version",
        "dcerpc.iface",
        "dcerpc.opnum",
        "dcerpc.stub_data",
        "content",
        "nocase",
        "startswith",
        "endswith",
        "flow",
    ],
    weight: 4,
    make: smb,
};

/// SMB2 commands used here.
mod cmd {
    pub const NEGOTIATE: u16 = 0;
    pub const SESSION_SETUP: u16 = 1;
    pub const TREE_CONNECT: u16 = 3;
    pub const CREATE: u16 = 5;
    pub const READ: u16 = 8;
    pub const WRITE: u16 = 9;
}

/// A DER element with a definite length.
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

/// UTF-16LE of ASCII text.
fn utf16(s: &[u8]) -> Vec<u8> {
    s.iter().flat_map(|&c| [c, 0]).collect()
}

const NTLMSSP_OID: &[u8] = &[0x2b, 6, 1, 4, 1, 0x82, 0x37, 2, 2, 10];
const SPNEGO_OID: &[u8] = &[0x2b, 6, 1, 5, 5, 2];

/// NTLMSSP NEGOTIATE in a SPNEGO negTokenInit.
fn ntlm_negotiate() -> Vec<u8> {
    let mut n = b"NTLMSSP\0".to_vec();
    n.extend_from_slice(&1u32.to_le_bytes());
    n.extend_from_slice(&0xe208_8297u32.to_le_bytes());
    n.extend_from_slice(&[0; 16]);
    let mech = der(0xa0, &der(0x30, &der(0x06, NTLMSSP_OID)));
    let tok = der(0xa2, &der(0x04, &n));
    der(
        0x60,
        &[
            der(0x06, SPNEGO_OID),
            der(0xa0, &der(0x30, &[mech, tok].concat())),
        ]
        .concat(),
    )
}

/// NTLMSSP CHALLENGE in a SPNEGO negTokenResp (accept-incomplete).
fn ntlm_challenge(g: &mut Gen<'_>) -> Vec<u8> {
    let mut n = b"NTLMSSP\0".to_vec();
    n.extend_from_slice(&2u32.to_le_bytes());
    n.extend_from_slice(&[0, 0, 0, 0, 48, 0, 0, 0]);
    n.extend_from_slice(&0xe288_8215u32.to_le_bytes());
    n.extend((0..8).map(|_| g.num(0, 255) as u8));
    n.extend_from_slice(&[0; 8]);
    n.extend_from_slice(&[0, 0, 0, 0, 48, 0, 0, 0]);
    der(
        0xa1,
        &der(
            0x30,
            &[
                der(0xa0, &der(0x0a, &[1])),
                der(0xa1, &der(0x06, NTLMSSP_OID)),
                der(0xa2, &der(0x04, &n)),
            ]
            .concat(),
        ),
    )
}

/// NTLMSSP AUTHENTICATE (UTF-16 names, no version field) in a SPNEGO negTokenResp.
fn ntlm_auth(domain: &[u8], user: &[u8], host: &[u8]) -> Vec<u8> {
    let (d, u, h) = (utf16(domain), utf16(user), utf16(host));
    let lm = [0x11u8; 24];
    let nt = [0x22u8; 24];
    let key = [0x33u8; 16];
    let mut payload = Vec::new();
    let mut fields = Vec::new();
    // Payload order: domain, user, host, lm, nt, key (offsets from the message start).
    let mut at = 64u32;
    let mut place = |b: &[u8], fields: &mut Vec<u8>| {
        fields.extend_from_slice(&(b.len() as u16).to_le_bytes());
        fields.extend_from_slice(&(b.len() as u16).to_le_bytes());
        fields.extend_from_slice(&at.to_le_bytes());
        payload.extend_from_slice(b);
        at += b.len() as u32;
    };
    let mut f_lm = Vec::new();
    let mut f_nt = Vec::new();
    let mut f_d = Vec::new();
    let mut f_u = Vec::new();
    let mut f_h = Vec::new();
    let mut f_k = Vec::new();
    place(&d, &mut f_d);
    place(&u, &mut f_u);
    place(&h, &mut f_h);
    place(&lm, &mut f_lm);
    place(&nt, &mut f_nt);
    place(&key, &mut f_k);
    for f in [f_lm, f_nt, f_d, f_u, f_h, f_k] {
        fields.extend(f);
    }
    let mut n = b"NTLMSSP\0".to_vec();
    n.extend_from_slice(&3u32.to_le_bytes());
    n.extend(fields);
    n.extend_from_slice(&0xe288_8215u32.to_le_bytes());
    n.extend(payload);
    der(0xa1, &der(0x30, &der(0xa2, &der(0x04, &n))))
}

/// An SMB2 message (header and body) in its NetBIOS session header.
struct Smb2 {
    msg_id: u64,
    session: u64,
    tree: u32,
}

impl Smb2 {
    fn msg(&self, command: u16, response: bool, status: u32, body: &[u8]) -> Vec<u8> {
        let mut h = vec![0xfe, b'S', b'M', b'B', 64, 0, 1, 0];
        h.extend_from_slice(&status.to_le_bytes());
        h.extend_from_slice(&command.to_le_bytes());
        h.extend_from_slice(&1u16.to_le_bytes());
        h.extend_from_slice(&u32::from(response).to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&self.msg_id.to_le_bytes());
        h.extend_from_slice(&0xfeffu32.to_le_bytes());
        h.extend_from_slice(&self.tree.to_le_bytes());
        h.extend_from_slice(&self.session.to_le_bytes());
        h.extend_from_slice(&[0; 16]);
        h.extend_from_slice(body);
        nbss(&h)
    }
}

/// A NetBIOS session message around `m`.
fn nbss(m: &[u8]) -> Vec<u8> {
    let n = m.len() as u32;
    let mut v = vec![0, (n >> 16) as u8, (n >> 8) as u8, n as u8];
    v.extend_from_slice(m);
    v
}

fn u16le(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn u32le(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// A content condition on a sticky buffer whose value is `v`: whole, start, end or a
/// piece, with `nocase` on an uppercased content sometimes.
fn buf_cond(g: &mut Gen<'_>, kw: &str, v: &[u8]) -> (String, String) {
    let n = v.len();
    let (piece, m) = match g.size(0, 3) {
        0 => (v.to_vec(), " startswith; endswith;"),
        1 => (v[..n.min(4)].to_vec(), " startswith;"),
        2 => (v[n.saturating_sub(4)..].to_vec(), " endswith;"),
        _ => {
            let a = g.size(0, n.saturating_sub(3));
            (v[a..(a + 3).min(n)].to_vec(), "")
        }
    };
    let nocase = g.chance(0.25);
    let piece = if nocase {
        piece.to_ascii_uppercase()
    } else {
        piece
    };
    let nc = if nocase { " nocase;" } else { "" };
    let t = |c: &[u8]| format!("{kw}; content:\"{}\";{nc}{m}", content_text(c));
    (t(&piece), t(&spoil(&piece)))
}

/// A TCP conversation of alternating messages (`true`: the client's), each in one
/// segment (or cut in two), then the FIN exchange; with `acked`, the other side
/// acknowledges each message at once (so the application layer gets messages one by
/// one, not two client messages together).
fn conv(g: &mut Gen<'_>, f: &mut Flow, msgs: &[(bool, Vec<u8>)], acked: bool) {
    let (ci, si) = (31_000u32, 61_000u32);
    f.handshake(ci, si);
    let (mut c, mut s) = (ci + 1, si + 1);
    for (client, m) in msgs {
        let parts = if m.len() > 8 && g.chance(0.15) {
            let cut = g.size(1, m.len() - 1);
            vec![&m[..cut], &m[cut..]]
        } else {
            vec![&m[..]]
        };
        for p in parts {
            if *client {
                f.tcp(true, c, s, PSH | ACK, &[], p);
                c += p.len() as u32;
            } else {
                f.tcp(false, s, c, PSH | ACK, &[], p);
                s += p.len() as u32;
            }
        }
        if acked {
            f.tcp(
                !client,
                if *client { s } else { c },
                if *client { c } else { s },
                ACK,
                &[],
                &[],
            );
        }
    }
    f.tcp(true, c, s, ACK, &[], &[]);
    f.close(c, s);
}

/// A tree connect's share (`IPC$` for a pipe, else a drawn name) and its UNC path
/// `\\\\SERVER\\share` on a drawn server name.
fn tree_path(g: &mut Gen<'_>, pipe: bool) -> (Vec<u8>, Vec<u8>) {
    let server_l = g.size(3, 8);
    let server = g.needle(server_l).to_ascii_uppercase();
    let share = if pipe {
        b"IPC$".to_vec()
    } else {
        let l = g.size(3, 8);
        g.needle(l)
    };
    let path = [&b"\\\\"[..], &server, b"\\", &share].concat();
    (share, path)
}

fn smb(g: &mut Gen<'_>) -> Spec {
    let variant = g.pick(&["smb2-disk", "smb2-pipe", "smb2-pipe", "dcerpc-tcp", "smb1"]);
    let intent = g.intent();
    let hit = intent == Intent::Hit;
    let v6 = g.v6();
    let mut s = base(variant, intent, v6, L4::Tcp, "tcp");
    if variant == "dcerpc-tcp" {
        let port = if g.chance(0.7) {
            135
        } else {
            g.num(1030, 60_000) as u16
        };
        s.tweaks.dport = Some(port);
        let mut f = Flow::new(g.index, v6, port);
        let r = rpc(g, b"135\0");
        let mut msgs = vec![(true, r.bind.clone()), (false, r.bind_ack.clone())];
        for q in &r.requests {
            msgs.push((true, q.clone()));
        }
        msgs.push((false, r.response.clone()));
        let acked = g.chance(0.3);
        conv(g, &mut f, &msgs, acked);
        let (h, m, what) = rpc_cond(g, &r);
        s.template = format!(
            "dcerpc-tcp{}{}-{what}{}",
            rpc_shape(&r),
            if acked { "-acked" } else { "" },
            if r.accepted { "" } else { "-rejected" }
        );
        s.proto = g.pick(&["tcp", "dcerpc", "dcerpc"]);
        s.opts = if hit { h } else { m };
        s.payload = r.bind;
        s.script = Some(f.frames);
        return s;
    }
    s.tweaks.dport = Some(445);
    if variant == "smb1" {
        return smb1(g, s, hit);
    }
    let mut f = Flow::new(g.index, v6, 445);
    let mut sm = Smb2 {
        msg_id: 0,
        session: 0,
        tree: 0,
    };
    let mut msgs: Vec<(bool, Vec<u8>)> = Vec::new();
    // NEGOTIATE.
    let dialect = g.pick(&[0x0202u16, 0x0210, 0x0210]);
    let mut b = Vec::new();
    u16le(&mut b, 36);
    u16le(&mut b, 2);
    u16le(&mut b, 1);
    u16le(&mut b, 0);
    u32le(&mut b, 0x7f);
    b.extend((0..16).map(|_| g.num(0, 255) as u8));
    b.extend_from_slice(&[0; 8]);
    u16le(&mut b, 0x0202);
    u16le(&mut b, 0x0210);
    msgs.push((true, sm.msg(cmd::NEGOTIATE, false, 0, &b)));
    let mut b = Vec::new();
    u16le(&mut b, 65);
    u16le(&mut b, 1);
    u16le(&mut b, dialect);
    u16le(&mut b, 0);
    b.extend((0..16).map(|_| g.num(0, 255) as u8));
    u32le(&mut b, 0x7);
    for _ in 0..3 {
        u32le(&mut b, 8_388_608);
    }
    b.extend_from_slice(&[0; 16]);
    u16le(&mut b, 128);
    u16le(&mut b, 0);
    u32le(&mut b, 0);
    msgs.push((false, sm.msg(cmd::NEGOTIATE, true, 0, &b)));
    // SESSION_SETUP: NTLMSSP NEGOTIATE / CHALLENGE, then AUTHENTICATE / success.
    let setup_req = |blob: &[u8]| {
        let mut b = Vec::new();
        u16le(&mut b, 25);
        b.extend_from_slice(&[0, 1]);
        u32le(&mut b, 1);
        u32le(&mut b, 0);
        u16le(&mut b, 88);
        u16le(&mut b, blob.len() as u16);
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(blob);
        b
    };
    let setup_resp = |blob: &[u8]| {
        let mut b = Vec::new();
        u16le(&mut b, 9);
        u16le(&mut b, 0);
        u16le(&mut b, 72);
        u16le(&mut b, blob.len() as u16);
        b.extend_from_slice(blob);
        b
    };
    let domain_l = g.size(4, 9);
    let domain = g.needle(domain_l).to_ascii_uppercase();
    let user_l = g.size(4, 10);
    let user = g.needle(user_l);
    let host_l = g.size(4, 8);
    let host = g.needle(host_l).to_ascii_uppercase();
    sm.msg_id = 1;
    msgs.push((
        true,
        sm.msg(cmd::SESSION_SETUP, false, 0, &setup_req(&ntlm_negotiate())),
    ));
    sm.session = 0x0000_1000_0000_0041 + u64::from(g.index);
    let ch = ntlm_challenge(g);
    msgs.push((
        false,
        sm.msg(cmd::SESSION_SETUP, true, 0xc000_0016, &setup_resp(&ch)),
    ));
    sm.msg_id = 2;
    let auth = ntlm_auth(&domain, &user, &host);
    msgs.push((
        true,
        sm.msg(cmd::SESSION_SETUP, false, 0, &setup_req(&auth)),
    ));
    msgs.push((false, sm.msg(cmd::SESSION_SETUP, true, 0, &setup_resp(&[]))));
    // TREE_CONNECT.
    let pipe = variant == "smb2-pipe";
    let (share, path) = tree_path(g, pipe);
    sm.msg_id = 3;
    let p16 = utf16(&path);
    let mut b = Vec::new();
    u16le(&mut b, 9);
    u16le(&mut b, 0);
    u16le(&mut b, 72);
    u16le(&mut b, p16.len() as u16);
    b.extend_from_slice(&p16);
    msgs.push((true, sm.msg(cmd::TREE_CONNECT, false, 0, &b)));
    sm.tree = 1 + g.num(0, 7) as u32;
    let mut b = Vec::new();
    u16le(&mut b, 16);
    b.extend_from_slice(&[if pipe { 2 } else { 1 }, 0]);
    u32le(&mut b, 0);
    u32le(&mut b, 0);
    u32le(&mut b, 0x001f_01ff);
    msgs.push((false, sm.msg(cmd::TREE_CONNECT, true, 0, &b)));
    // CREATE.
    let pipe_name = g.pick(&[
        &b"lsarpc"[..],
        b"srvsvc",
        b"samr",
        b"winreg",
        b"svcctl",
        b"atsvc",
        b"spoolss",
        b"netlogon",
        b"PSEXESVC",
        b"LSARPC",
        b"epmapper",
        b"wkssvc",
    ]);
    let file = if pipe {
        pipe_name.to_vec()
    } else {
        let l = g.size(3, 8);
        [&g.needle(l)[..], b".txt"].concat()
    };
    let f16 = utf16(&file);
    sm.msg_id = 4;
    let mut b = Vec::new();
    u16le(&mut b, 57);
    b.extend_from_slice(&[0, 0]);
    u32le(&mut b, 2);
    b.extend_from_slice(&[0; 16]);
    u32le(&mut b, 0x0012_019f);
    u32le(&mut b, 0);
    u32le(&mut b, 7);
    u32le(&mut b, 1);
    u32le(&mut b, 0x40);
    u16le(&mut b, 120);
    u16le(&mut b, f16.len() as u16);
    u32le(&mut b, 0);
    u32le(&mut b, 0);
    b.extend_from_slice(&f16);
    msgs.push((true, sm.msg(cmd::CREATE, false, 0, &b)));
    let fid: Vec<u8> = (0..16).map(|_| g.num(0, 255) as u8).collect();
    let mut b = Vec::new();
    u16le(&mut b, 89);
    b.extend_from_slice(&[0, 0]);
    u32le(&mut b, 1);
    b.extend_from_slice(&[0; 32]);
    b.extend_from_slice(&[0; 16]);
    u32le(&mut b, 0x80);
    u32le(&mut b, 0);
    b.extend_from_slice(&fid);
    u32le(&mut b, 0);
    u32le(&mut b, 0);
    msgs.push((false, sm.msg(cmd::CREATE, true, 0, &b)));
    // WRITE / READ pairs: DCERPC over the pipe, or file data.
    let write = |sm: &Smb2, data: &[u8]| {
        let mut b = Vec::new();
        u16le(&mut b, 49);
        u16le(&mut b, 112);
        u32le(&mut b, data.len() as u32);
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&fid);
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(data);
        sm.msg(cmd::WRITE, false, 0, &b)
    };
    let write_resp = |sm: &Smb2, n: usize| {
        let mut b = Vec::new();
        u16le(&mut b, 17);
        u16le(&mut b, 0);
        u32le(&mut b, n as u32);
        b.extend_from_slice(&[0; 8]);
        sm.msg(cmd::WRITE, true, 0, &b)
    };
    let read = |sm: &Smb2, n: usize| {
        let mut b = Vec::new();
        u16le(&mut b, 49);
        b.extend_from_slice(&[0x50, 0]);
        u32le(&mut b, n as u32);
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&fid);
        b.extend_from_slice(&[0; 16]);
        b.push(0);
        sm.msg(cmd::READ, false, 0, &b)
    };
    let read_resp = |sm: &Smb2, data: &[u8]| {
        let mut b = Vec::new();
        u16le(&mut b, 17);
        b.extend_from_slice(&[80, 0]);
        u32le(&mut b, data.len() as u32);
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(data);
        sm.msg(cmd::READ, true, 0, &b)
    };
    let sec = [&b"\\PIPE\\"[..], pipe_name, b"\0"].concat();
    let mut file_data = Vec::new();
    let r = rpc(g, &sec);
    let mut id = 5;
    if pipe {
        let mut pairs = vec![(r.bind.clone(), r.bind_ack.clone())];
        for (i, q) in r.requests.iter().enumerate() {
            let last = i + 1 == r.requests.len();
            pairs.push((q.clone(), if last { r.response.clone() } else { vec![] }));
        }
        for (w, rd) in pairs {
            sm.msg_id = id;
            msgs.push((true, write(&sm, &w)));
            msgs.push((false, write_resp(&sm, w.len())));
            id += 1;
            if !rd.is_empty() {
                sm.msg_id = id;
                msgs.push((true, read(&sm, 1024)));
                msgs.push((false, read_resp(&sm, &rd)));
                id += 1;
            }
        }
    } else {
        let data = [&g.filler(20)[..], &r.stub].concat();
        file_data = data.clone();
        sm.msg_id = id;
        msgs.push((true, write(&sm, &data)));
        msgs.push((false, write_resp(&sm, data.len())));
        sm.msg_id = id + 1;
        msgs.push((true, read(&sm, data.len())));
        msgs.push((false, read_resp(&sm, &data)));
    }
    conv(g, &mut f, &msgs, false);
    // The rule.
    let which = if pipe {
        g.pick(&[
            "named_pipe",
            "share",
            "user",
            "domain",
            "version",
            "rpc",
            "rpc",
        ])
    } else {
        g.pick(&[
            "named_pipe",
            "share",
            "user",
            "domain",
            "version",
            "file",
            "file",
        ])
    };
    let (h, m) = match which {
        "named_pipe" | "share" => {
            let kw = if which == "named_pipe" {
                "smb.named_pipe"
            } else {
                "smb.share"
            };
            let v = match g.size(0, 2) {
                0 => path.clone(),
                1 => share.clone(),
                _ => file.clone(),
            };
            buf_cond(g, kw, &v)
        }
        "file" => {
            // The file written then read back: its name, extension, size or bytes.
            let n = file_data.len();
            match g.size(0, 3) {
                0 => {
                    let v = String::from_utf8_lossy(&file[..file.len().min(5)]).into_owned();
                    let sp = String::from_utf8_lossy(&spoil(v.as_bytes())).into_owned();
                    (format!("filename:\"{v}\";"), format!("filename:\"{sp}\";"))
                }
                1 => (
                    "fileext:\"txt\";".to_string(),
                    "fileext:\"exe\";".to_string(),
                ),
                2 => (format!("filesize:{n};"), format!("filesize:{};", n + 1)),
                _ => {
                    let piece = r.stub[..r.stub.len().min(5)].to_vec();
                    let t = |c: &[u8]| format!("file.data; content:\"{}\";", content_text(c));
                    (t(&piece), t(&spoil(&piece)))
                }
            }
        }
        "user" => buf_cond(g, "smb.ntlmssp_user", &user),
        "domain" => buf_cond(g, "smb.ntlmssp_domain", &domain),
        "version" => {
            let v = g.pick(&["1", "2", "2", "3", "!1", "!2"]);
            let other = match v {
                "1" => "2",
                "2" => "1",
                "!1" => "!2",
                "!2" => "!1",
                x => x,
            };
            (format!("smb.version:{v};"), format!("smb.version:{other};"))
        }
        _ => {
            let (h, m, what) = rpc_cond(g, &r);
            s.template = format!(
                "{variant}-{}{}-{what}",
                pipe_name.escape_ascii(),
                rpc_shape(&r)
            );
            (h, m)
        }
    };
    if which != "rpc" {
        s.template = format!("{variant}-{which}");
    }
    s.proto = if which == "rpc" {
        g.pick(&["tcp", "smb", "dcerpc"])
    } else {
        g.pick(&["tcp", "smb", "smb"])
    };
    let flow = if g.chance(0.3) {
        "flow:established,to_server; "
    } else {
        ""
    };
    s.opts = format!("{flow}{}", if hit { h } else { m });
    s.payload = msgs[0].1.clone();
    s.script = Some(f.frames);
    s
}

/// An SMB1 message (header, words, bytes) in its NetBIOS session header; `uid`/`tid`
/// as the session has them.
fn smb1_msg(
    command: u8,
    response: bool,
    ids: (u16, u16, u16),
    words: &[u8],
    bytes: &[u8],
) -> Vec<u8> {
    let (tid, uid, mid) = ids;
    let mut h = vec![0xff, b'S', b'M', b'B', command, 0, 0, 0, 0];
    h.push(if response { 0x98 } else { 0x18 });
    u16le(&mut h, 0xc807);
    u16le(&mut h, 0);
    h.extend_from_slice(&[0; 8]);
    u16le(&mut h, 0);
    u16le(&mut h, tid);
    u16le(&mut h, 0xfeff);
    u16le(&mut h, uid);
    u16le(&mut h, mid);
    h.push((words.len() / 2) as u8);
    h.extend_from_slice(words);
    u16le(&mut h, bytes.len() as u16);
    h.extend_from_slice(bytes);
    nbss(&h)
}

/// An SMB1 session: NEGOTIATE (NT LM 0.12, extended security), two SESSION_SETUP_ANDX
/// rounds with NTLMSSP, TREE_CONNECT_ANDX to a disk share or `IPC$`. Rules on the share,
/// the NTLMSSP user and domain, `smb.version`.
fn smb1(g: &mut Gen<'_>, mut s: Spec, hit: bool) -> Spec {
    let mut f = Flow::new(g.index, s.v6, 445);
    let mut msgs: Vec<(bool, Vec<u8>)> = Vec::new();
    let uid = 0x0800 + g.num(0, 255) as u16;
    let tid = 0x0100 + g.num(0, 255) as u16;
    msgs.push((
        true,
        smb1_msg(0x72, false, (0, 0, 1), &[], b"\x02NT LM 0.12\0"),
    ));
    let mut w = Vec::new();
    u16le(&mut w, 0);
    w.push(3);
    u16le(&mut w, 50);
    u16le(&mut w, 1);
    u32le(&mut w, 16644);
    u32le(&mut w, 65536);
    u32le(&mut w, 0);
    u32le(&mut w, 0x8000_e3fd);
    w.extend_from_slice(&[0; 8]);
    u16le(&mut w, 0);
    w.push(0);
    let guid: Vec<u8> = (0..16).map(|_| g.num(0, 255) as u8).collect();
    msgs.push((false, smb1_msg(0x72, true, (0, 0, 1), &w, &guid)));
    let setup = |blob: &[u8]| {
        let mut w = vec![0xff, 0];
        u16le(&mut w, 0);
        u16le(&mut w, 16644);
        u16le(&mut w, 50);
        u16le(&mut w, 0);
        u32le(&mut w, 0);
        u16le(&mut w, blob.len() as u16);
        u32le(&mut w, 0);
        u32le(&mut w, 0x8000_00d4);
        let mut b = blob.to_vec();
        // Native OS and LAN manager, Unicode, aligned on two bytes from the header.
        if !(32 + 1 + w.len() + 2 + b.len()).is_multiple_of(2) {
            b.push(0);
        }
        b.extend(utf16(b"Unix\0Samba\0"));
        (w, b)
    };
    let setup_resp = |blob: &[u8]| {
        let mut w = vec![0xff, 0];
        u16le(&mut w, 0);
        u16le(&mut w, 0);
        u16le(&mut w, blob.len() as u16);
        (w, blob.to_vec())
    };
    let (w, b) = setup(&ntlm_negotiate());
    msgs.push((true, smb1_msg(0x73, false, (0, 0, 2), &w, &b)));
    let ch = ntlm_challenge(g);
    let (w, b) = setup_resp(&ch);
    let mut m = smb1_msg(0x73, true, (0, uid, 2), &w, &b);
    // STATUS_MORE_PROCESSING_REQUIRED.
    m[4 + 5..4 + 9].copy_from_slice(&0xc000_0016u32.to_le_bytes());
    msgs.push((false, m));
    let domain_l = g.size(4, 9);
    let domain = g.needle(domain_l).to_ascii_uppercase();
    let user_l = g.size(4, 10);
    let user = g.needle(user_l);
    let (w, b) = setup(&ntlm_auth(&domain, &user, b"HOST"));
    msgs.push((true, smb1_msg(0x73, false, (0, uid, 3), &w, &b)));
    let (w, b) = setup_resp(&[]);
    msgs.push((false, smb1_msg(0x73, true, (0, uid, 3), &w, &b)));
    // TREE_CONNECT_ANDX.
    let pipe = g.chance(0.5);
    let (share, path) = tree_path(g, pipe);
    let mut w = vec![0xff, 0];
    u16le(&mut w, 0);
    u16le(&mut w, 0x0008);
    u16le(&mut w, 1);
    let mut b = vec![0];
    if !(32 + 1 + w.len() + 2 + b.len()).is_multiple_of(2) {
        b.push(0);
    }
    b.extend(utf16(&path));
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(b"?????\0");
    msgs.push((true, smb1_msg(0x75, false, (0, uid, 4), &w, &b)));
    let mut w = vec![0xff, 0];
    u16le(&mut w, 0);
    u16le(&mut w, 1);
    u32le(&mut w, 0x001f_01ff);
    u32le(&mut w, 0);
    let service: &[u8] = if pipe { b"IPC\0" } else { b"A:\0" };
    let mut b = service.to_vec();
    // The native file system (empty for a pipe).
    b.extend(utf16(if pipe { b"\0" } else { b"NTFS\0" }));
    msgs.push((false, smb1_msg(0x75, true, (tid, uid, 4), &w, &b)));
    conv(g, &mut f, &msgs, false);
    let which = g.pick(&["named_pipe", "share", "share", "user", "domain", "version"]);
    let (h, m) = match which {
        "named_pipe" | "share" => {
            let kw = if which == "named_pipe" {
                "smb.named_pipe"
            } else {
                "smb.share"
            };
            let v = if g.chance(0.5) {
                path.clone()
            } else {
                share.clone()
            };
            buf_cond(g, kw, &v)
        }
        "user" => buf_cond(g, "smb.ntlmssp_user", &user),
        "domain" => buf_cond(g, "smb.ntlmssp_domain", &domain),
        _ => ("smb.version:1;".to_string(), "smb.version:2;".to_string()),
    };
    s.template = format!("smb1-{}-{which}", if pipe { "ipc" } else { "disk" });
    s.proto = g.pick(&["tcp", "smb", "smb"]);
    s.opts = if hit { h } else { m };
    s.payload = msgs[0].1.clone();
    s.script = Some(f.frames);
    s
}

#[cfg(test)]
mod tests {
    use super::dcerpc::{Uuid, IFACES};
    use super::*;

    #[test]
    fn der_lengths_and_utf16() {
        assert_eq!(der(4, &[1, 2]), vec![4, 2, 1, 2]);
        assert_eq!(der(4, &[0; 200])[..3], [4, 0x81, 200]);
        assert_eq!(der(4, &[0; 300])[..4], [4, 0x82, 1, 44]);
        assert_eq!(utf16(b"ab"), b"a\0b\0");
    }

    #[test]
    fn uuids_print_and_swap_as_dcerpc_writes_them() {
        let u = Uuid { bytes: IFACES[1].0 };
        assert_eq!(u.text(), "4b324fc8-1670-01d3-1278-5a47bf6ee188");
        assert_eq!(u.wire(true)[..4], [0xc8, 0x4f, 0x32, 0x4b]);
        assert_eq!(u.wire(false)[..4], [0x4b, 0x32, 0x4f, 0xc8]);
    }

    #[test]
    fn ntlm_auth_places_the_names() {
        let a = ntlm_auth(b"DOM", b"usr", b"HST");
        let at = a.windows(8).position(|w| w == b"NTLMSSP\0").unwrap();
        let n = &a[at..];
        assert_eq!(n[8], 3);
        let off = u32::from_le_bytes([n[40], n[41], n[42], n[43]]) as usize;
        assert_eq!(&n[off..off + 6], b"u\0s\0r\0");
    }

    #[test]
    fn every_variant_is_drawn_and_its_rule_parses() {
        let mut rng = gen::rng::Rng::new(11);
        let mut seen = std::collections::BTreeSet::new();
        for index in 0..300 {
            let mut g = Gen {
                rng: &mut rng,
                index,
            };
            let s = smb(&mut g);
            seen.insert(s.template.clone());
            let rule = format!("alert {} any any -> any any ({} sid:1;)", s.proto, s.opts);
            let _ = rules::parse_rule(&rule);
            assert!(s.script.unwrap().len() > 10);
        }
        assert!(seen.len() >= 12, "{seen:?}");
    }
}

//! ONC RPC messages (RFC 5531 section 9): a call (program, version, procedure and
//! credentials) or a reply (accepted or denied, with its accept status), each with the
//! procedure's XDR body left for the program's parser.

use super::Xdr;

/// Longest credential or verifier body RFC 5531 allows.
const MAX_AUTH: usize = 400;

/// An authentication flavour (RFC 5531 section 8.2 and its registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthFlavor(pub u32);

impl AuthFlavor {
    /// `AUTH_NONE`.
    pub const NULL: AuthFlavor = AuthFlavor(0);
    /// `AUTH_SYS` (formerly `AUTH_UNIX`).
    pub const UNIX: AuthFlavor = AuthFlavor(1);

    /// The name Suricata writes (`rpc.auth_type`).
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "NULL",
            1 => "UNIX",
            2 => "SHORT",
            3 => "DH",
            6 => "RPCSEC_GSS",
            _ => "UNKNOWN",
        }
    }
}

/// `AUTH_SYS` credentials (RFC 5531 appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnixCred<'a> {
    /// Time stamp the client chose.
    pub stamp: u32,
    /// The client's host name.
    pub machine_name: &'a [u8],
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

/// A call message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call<'a> {
    /// Transaction id, echoed by the reply.
    pub xid: u32,
    /// RPC version (2).
    pub rpcvers: u32,
    /// Program number (100003 is NFS).
    pub prog: u32,
    /// Program version.
    pub vers: u32,
    /// Procedure number.
    pub procedure: u32,
    /// The credential's flavour.
    pub flavor: AuthFlavor,
    /// The credential, when it is `AUTH_SYS` and parses.
    pub unix: Option<UnixCred<'a>>,
    /// The procedure's arguments.
    pub body: &'a [u8],
}

/// A reply message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply<'a> {
    /// The call's transaction id.
    pub xid: u32,
    /// `MSG_ACCEPTED` (`true`) or `MSG_DENIED`.
    pub accepted: bool,
    /// For an accepted reply, its accept status (0 is `SUCCESS`); for a denied one its
    /// reject status.
    pub stat: u32,
    /// The procedure's results (empty unless accepted with `SUCCESS`).
    pub body: &'a [u8],
}

impl Reply<'_> {
    /// Whether the procedure ran (`MSG_ACCEPTED` with `SUCCESS`): its body holds results.
    pub fn success(&self) -> bool {
        self.accepted && self.stat == 0
    }

    /// The name Suricata writes for the reply state (`rpc.status`).
    pub fn status_name(&self) -> &'static str {
        if self.accepted {
            "ACCEPTED"
        } else {
            "DENIED"
        }
    }
}

/// One RPC message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message<'a> {
    /// A call.
    Call(Call<'a>),
    /// A reply.
    Reply(Reply<'a>),
}

impl Message<'_> {
    /// The message's transaction id.
    pub fn xid(&self) -> u32 {
        match self {
            Message::Call(c) => c.xid,
            Message::Reply(r) => r.xid,
        }
    }
}

/// An `AUTH_SYS` credential body, read as Suricata 7.0.10 reads it: uid and gid right
/// after the machine name's bytes, its XDR padding not skipped (sv-ether.pcap's
/// `werrmsche` calls, uid 0 gid 1 on the wire, are logged with gid 0).
fn unix_cred(body: &[u8]) -> Option<UnixCred<'_>> {
    let mut x = Xdr::new(body);
    let stamp = x.u32()?;
    let n = x.u32()? as usize;
    if n > 255 {
        return None;
    }
    let rest = x.rest();
    let machine_name = rest.get(..n)?;
    let mut x = Xdr::new(&rest[n..]);
    let uid = x.u32()?;
    let gid = x.u32()?;
    Some(UnixCred {
        stamp,
        machine_name,
        uid,
        gid,
    })
}

/// Parses one whole RPC message (a UDP payload, or a TCP record without its marks);
/// `None` when it is not one.
pub fn parse_message(buf: &[u8]) -> Option<Message<'_>> {
    let mut x = Xdr::new(buf);
    let xid = x.u32()?;
    match x.u32()? {
        0 => {
            let rpcvers = x.u32()?;
            let prog = x.u32()?;
            let vers = x.u32()?;
            let procedure = x.u32()?;
            let flavor = AuthFlavor(x.u32()?);
            let cred = x.opaque_max(MAX_AUTH)?;
            let _verf_flavor = x.u32()?;
            let _verf = x.opaque_max(MAX_AUTH)?;
            if rpcvers != 2 {
                return None;
            }
            let unix = (flavor == AuthFlavor::UNIX)
                .then(|| unix_cred(cred))
                .flatten();
            Some(Message::Call(Call {
                xid,
                rpcvers,
                prog,
                vers,
                procedure,
                flavor,
                unix,
                body: x.rest(),
            }))
        }
        1 => {
            let (accepted, stat) = match x.u32()? {
                0 => {
                    let _verf_flavor = x.u32()?;
                    let _verf = x.opaque_max(MAX_AUTH)?;
                    (true, x.u32()?)
                }
                1 => (false, x.u32()?),
                _ => return None,
            };
            let body = if accepted && stat == 0 { x.rest() } else { &[] };
            Some(Message::Reply(Reply {
                xid,
                accepted,
                stat,
                body,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// sv-ether.pcap frame 33,434 (frame 13 of its NFS flows): an NFSv2 call (procedure
    /// 4) from `werrmsche`, uid 0, gid 0.
    pub(crate) const V2_CALL: &str = "5e1d0b960000000000000002000186a300000002000000040000000100000034384775d000000009776572726d736368650000000000000000000001000000050000000100000000000000020000000300000011000000000000000000101085000003e7000a00000000b25a00000029000a00000000b25a000000290000000161000000";
    /// Its reply: accepted, `SUCCESS`, NFS status 2 (`NFSERR_NOENT`).
    pub(crate) const V2_REPLY: &str = "5e1d0b96000000010000000000000000000000000000000000000002";

    pub(crate) fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn a_real_call_with_unix_credentials() {
        let b = hex(V2_CALL);
        let Some(Message::Call(c)) = parse_message(&b) else {
            panic!("not a call")
        };
        assert_eq!(c.xid, 1578961814);
        assert_eq!((c.prog, c.vers, c.procedure), (100003, 2, 4));
        assert_eq!(c.flavor.name(), "UNIX");
        let u = c.unix.unwrap();
        assert_eq!((u.machine_name, u.uid, u.gid), (&b"werrmsche"[..], 0, 0));
        assert_eq!(c.body.len(), 32 + 8);
    }

    #[test]
    fn replies_accepted_and_denied() {
        let b = hex(V2_REPLY);
        let Some(Message::Reply(r)) = parse_message(&b) else {
            panic!("not a reply")
        };
        assert!(r.success());
        assert_eq!((r.xid, r.status_name()), (1578961814, "ACCEPTED"));
        assert_eq!(r.body, &[0, 0, 0, 2]);
        let b = hex("0000000100000001000000010000000000000002");
        let Some(Message::Reply(r)) = parse_message(&b) else {
            panic!("not a reply")
        };
        assert!(!r.accepted && !r.success());
        assert_eq!(r.status_name(), "DENIED");
        assert_eq!(parse_message(&b[..6]), None);
        assert_eq!(parse_message(&hex("0000000100000002")), None);
    }
}

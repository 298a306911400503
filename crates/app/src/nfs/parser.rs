//! NFS procedure arguments and results (v2: RFC 1094, v3: RFC 1813, v4 COMPOUND: RFC
//! 7530/8881), decoded only as far as the `nfs` records and file tracking need: file
//! handles, names, READ/WRITE/COMMIT ranges and data, status and the handles replies
//! give names to.

use crate::rpc::Xdr;

/// NFSv2 file handles are 32 bytes; v3 handles at most 64, v4 at most 128.
const FH2: usize = 32;
const FH3_MAX: usize = 64;
const FH4_MAX: usize = 128;
/// Longest name kept from a request or reply.
const NAME_MAX: usize = 1024;

/// Procedure numbers (NFSv3's; Suricata names v2 procedures with the same table).
pub mod procs {
    /// `GETATTR`.
    pub const GETATTR: u32 = 1;
    /// `LOOKUP`.
    pub const LOOKUP: u32 = 3;
    /// `ACCESS`.
    pub const ACCESS: u32 = 4;
    /// `READ`.
    pub const READ: u32 = 6;
    /// `WRITE`.
    pub const WRITE: u32 = 7;
    /// `CREATE`.
    pub const CREATE: u32 = 8;
    /// `MKDIR`.
    pub const MKDIR: u32 = 9;
    /// `REMOVE`.
    pub const REMOVE: u32 = 12;
    /// `RMDIR`.
    pub const RMDIR: u32 = 13;
    /// `RENAME`.
    pub const RENAME: u32 = 14;
    /// `READDIRPLUS`.
    pub const READDIRPLUS: u32 = 17;
    /// `COMMIT`.
    pub const COMMIT: u32 = 21;
    /// NFSv2's `READ`.
    pub const V2_READ: u32 = 6;
    /// NFSv2's `RENAME`.
    pub const V2_RENAME: u32 = 11;
    /// NFSv4's `COMPOUND`.
    pub const COMPOUND: u32 = 1;
}

/// NFSv3's procedure names, by number (Suricata uses them for v2 too).
const PROC3: [&str; 22] = [
    "NULL",
    "GETATTR",
    "SETATTR",
    "LOOKUP",
    "ACCESS",
    "READLINK",
    "READ",
    "WRITE",
    "CREATE",
    "MKDIR",
    "SYMLINK",
    "MKNOD",
    "REMOVE",
    "RMDIR",
    "RENAME",
    "LINK",
    "READDIR",
    "READDIRPLUS",
    "FSSTAT",
    "FSINFO",
    "PATHCONF",
    "COMMIT",
];

/// The name of procedure `p` as Suricata writes it (`nfs.procedure`), or its number.
pub fn procedure_name(p: u32) -> std::borrow::Cow<'static, str> {
    match PROC3.get(p as usize) {
        Some(n) => (*n).into(),
        None => p.to_string().into(),
    }
}

/// The name of NFS status `s` as Suricata writes it (`nfs.status`).
pub fn status_name(s: u32) -> std::borrow::Cow<'static, str> {
    let n = match s {
        0 => "OK",
        1 => "ERR_PERM",
        2 => "ERR_NOENT",
        5 => "ERR_IO",
        6 => "ERR_NXIO",
        13 => "ERR_ACCES",
        17 => "ERR_EXIST",
        18 => "ERR_XDEV",
        19 => "ERR_NODEV",
        20 => "ERR_NOTDIR",
        21 => "ERR_ISDIR",
        22 => "ERR_INVAL",
        27 => "ERR_FBIG",
        28 => "ERR_NOSPC",
        30 => "ERR_ROFS",
        31 => "ERR_MLINK",
        63 => "ERR_NAMETOOLONG",
        66 => "ERR_NOTEMPTY",
        69 => "ERR_DQUOT",
        70 => "ERR_STALE",
        71 => "ERR_REMOTE",
        10001 => "ERR_BADHANDLE",
        10002 => "ERR_NOT_SYNC",
        10003 => "ERR_BAD_COOKIE",
        10004 => "ERR_NOTSUPP",
        10005 => "ERR_TOOSMALL",
        10006 => "ERR_SERVERFAULT",
        10007 => "ERR_BADTYPE",
        10008 => "ERR_JUKEBOX",
        _ => return s.to_string().into(),
    };
    n.into()
}

/// What a v2/v3 request names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The file handle the procedure acts on (the directory for name operations).
    pub handle: Option<&'a [u8]>,
    /// The name the procedure acts on (LOOKUP, CREATE, MKDIR, REMOVE, RMDIR, the
    /// source of RENAME).
    pub name: Option<&'a [u8]>,
    /// RENAME's new name.
    pub to: Option<&'a [u8]>,
    /// READ, WRITE, COMMIT: offset and count.
    pub range: Option<(u64, u32)>,
    /// WRITE: how stable the data must be (2 is `FILE_SYNC`).
    pub stable: u32,
    /// WRITE: its data.
    pub data: &'a [u8],
}

fn handle3<'a>(x: &mut Xdr<'a>) -> Option<&'a [u8]> {
    x.opaque_max(FH3_MAX)
}

fn name<'a>(x: &mut Xdr<'a>) -> Option<&'a [u8]> {
    x.opaque_max(NAME_MAX)
}

/// Parses the arguments of NFSv3 procedure `p` (`None`: they do not parse).
pub fn request_v3(p: u32, body: &[u8]) -> Option<Request<'_>> {
    use procs::*;
    let mut x = Xdr::new(body);
    let mut r = Request {
        handle: Some(handle3(&mut x)?),
        ..Request::default()
    };
    match p {
        LOOKUP | CREATE | MKDIR | REMOVE | RMDIR => r.name = Some(name(&mut x)?),
        RENAME => {
            r.name = Some(name(&mut x)?);
            let _to_dir = handle3(&mut x)?;
            r.to = Some(name(&mut x)?);
        }
        READ | COMMIT => r.range = Some((x.u64()?, x.u32()?)),
        WRITE => {
            r.range = Some((x.u64()?, x.u32()?));
            r.stable = x.u32()?;
            r.data = x.opaque()?;
        }
        _ => {}
    }
    Some(r)
}

/// Parses the arguments of NFSv2 procedure `p`: only READ's handle and range are
/// used (Suricata writes no names for v2).
pub fn request_v2(p: u32, body: &[u8]) -> Option<Request<'_>> {
    let mut x = Xdr::new(body);
    let mut r = Request::default();
    if p == procs::V2_READ {
        r.handle = Some(x.fixed(FH2)?);
        let offset = x.u32()?;
        let count = x.u32()?;
        r.range = Some((u64::from(offset), count));
    }
    Some(r)
}

/// Skips an optional v3 `post_op_attr` (a flag, then 84 bytes of `fattr3`).
fn post_op_attr(x: &mut Xdr<'_>) -> Option<()> {
    if x.bool()? {
        x.skip(84)?;
    }
    Some(())
}

/// An optional v3 `post_op_fh3`.
fn post_op_fh<'a>(x: &mut Xdr<'a>) -> Option<Option<&'a [u8]>> {
    Some(if x.bool()? { Some(handle3(x)?) } else { None })
}

/// What a v2/v3 reply says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplyInfo<'a> {
    /// The NFS status.
    pub status: u32,
    /// LOOKUP, CREATE: the handle of the object (for the handle-to-name map).
    pub handle: Option<&'a [u8]>,
    /// READ: the data, and whether it ends the file (v3 `eof`).
    pub data: ReadData<'a>,
    /// READDIRPLUS: each entry's name and handle.
    pub entries: Vec<(&'a [u8], &'a [u8])>,
}

/// Most READDIRPLUS entries taken from one reply.
const MAX_ENTRIES: usize = 512;

/// Parses the results of NFSv3 procedure `p` (`None`: not even a status).
pub fn reply_v3(p: u32, body: &[u8]) -> Option<ReplyInfo<'_>> {
    use procs::*;
    let mut x = Xdr::new(body);
    let mut r = ReplyInfo {
        status: x.u32()?,
        ..ReplyInfo::default()
    };
    if r.status != 0 {
        return Some(r);
    }
    match p {
        LOOKUP => r.handle = handle3(&mut x),
        CREATE => r.handle = post_op_fh(&mut x).flatten(),
        READ => {
            let data = (|| {
                post_op_attr(&mut x)?;
                let _count = x.u32()?;
                let eof = x.bool()?;
                Some((x.opaque()?, eof))
            })();
            r.data = data;
        }
        READDIRPLUS => {
            let _ = (|| {
                post_op_attr(&mut x)?;
                x.skip(8)?;
                while x.bool()? && r.entries.len() < MAX_ENTRIES {
                    let _fileid = x.u64()?;
                    let n = name(&mut x)?;
                    let _cookie = x.u64()?;
                    post_op_attr(&mut x)?;
                    if let Some(h) = post_op_fh(&mut x)? {
                        r.entries.push((n, h));
                    }
                }
                Some(())
            })();
        }
        _ => {}
    }
    Some(r)
}

/// Parses the results of NFSv2 procedure `p`: the status, and READ's data (after the
/// 68-byte `fattr`).
pub fn reply_v2(p: u32, body: &[u8]) -> Option<ReplyInfo<'_>> {
    let mut x = Xdr::new(body);
    let mut r = ReplyInfo {
        status: x.u32()?,
        ..ReplyInfo::default()
    };
    if r.status == 0 && p == procs::V2_READ {
        r.data = (|| {
            x.skip(68)?;
            Some((x.opaque()?, false))
        })();
    }
    Some(r)
}

/// NFSv4 operation numbers used here.
mod ops {
    pub const ACCESS: u32 = 3;
    pub const CLOSE: u32 = 4;
    pub const COMMIT: u32 = 5;
    pub const GETATTR: u32 = 9;
    pub const GETFH: u32 = 10;
    pub const PUTFH: u32 = 22;
    pub const PUTPUBFH: u32 = 23;
    pub const PUTROOTFH: u32 = 24;
    pub const READ: u32 = 25;
    pub const REMOVE: u32 = 28;
    pub const RESTOREFH: u32 = 31;
    pub const SAVEFH: u32 = 32;
    pub const WRITE: u32 = 38;
    pub const SEQUENCE: u32 = 53;
}

/// A READ or WRITE inside an NFSv4 COMPOUND.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V4Io<'a> {
    /// Whether it is a WRITE (else a READ).
    pub write: bool,
    /// The current file handle (set by the PUTFH before it).
    pub handle: &'a [u8],
    /// Offset in the file.
    pub offset: u64,
    /// WRITE: `stable_how` (2 is `FILE_SYNC`); READ: 0.
    pub stable: u32,
    /// WRITE: its data; READ: empty.
    pub data: &'a [u8],
}

/// NFSv4's REMOVE operation number: the `procedure` of the transaction a COMPOUND
/// with a REMOVE makes (`nfs_procedure:28`, as Suricata 7.0.10).
pub const V4_REMOVE: u32 = ops::REMOVE;

/// The name Suricata writes for NFSv4 operation `op` of a transaction (`REMOVE`).
pub fn procedure_name_v4(op: u32) -> std::borrow::Cow<'static, str> {
    match op {
        ops::REMOVE => "REMOVE".into(),
        _ => op.to_string().into(),
    }
}

/// The NFSv4 operation of a COMPOUND request that makes a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V4Op<'a> {
    /// A READ or WRITE: a file transaction.
    Io(V4Io<'a>),
    /// A REMOVE of this name (in the directory of the current handle): a transaction
    /// of its own (Suricata 7.0.10; PUTFH with ACCESS, GETATTR, GETFH or LOOKUP
    /// makes none).
    Remove(&'a [u8]),
}

/// The first READ or WRITE of an NFSv4 COMPOUND request, as far as its operations
/// before it can be skipped (an operation whose arguments are not known here ends the
/// walk).
pub fn compound_io(body: &[u8]) -> Option<V4Io<'_>> {
    match compound_op(body)? {
        V4Op::Io(io) => Some(io),
        V4Op::Remove(_) => None,
    }
}

/// The first operation of an NFSv4 COMPOUND request that makes a transaction (READ,
/// WRITE or REMOVE), as far as its operations before it can be skipped.
pub fn compound_op(body: &[u8]) -> Option<V4Op<'_>> {
    let mut x = Xdr::new(body);
    let _tag = x.opaque_max(NAME_MAX)?;
    let _minor = x.u32()?;
    let n = x.u32()?;
    let mut fh: &[u8] = &[];
    for _ in 0..n.min(64) {
        match x.u32()? {
            ops::SEQUENCE => x.skip(16 + 16)?,
            ops::PUTFH => fh = x.opaque_max(FH4_MAX)?,
            ops::PUTROOTFH | ops::PUTPUBFH | ops::GETFH | ops::SAVEFH | ops::RESTOREFH => {}
            ops::GETATTR => {
                let words = x.u32()? as usize;
                x.skip(words.checked_mul(4)?)?;
            }
            ops::ACCESS => x.skip(4)?,
            ops::CLOSE => x.skip(4 + 16)?,
            ops::COMMIT => x.skip(12)?,
            ops::REMOVE => return Some(V4Op::Remove(x.opaque_max(NAME_MAX)?)),
            op @ (ops::READ | ops::WRITE) => {
                x.skip(16)?;
                let offset = x.u64()?;
                let write = op == ops::WRITE;
                let (stable, data) = if write {
                    (x.u32()?, x.opaque()?)
                } else {
                    let _count = x.u32()?;
                    (0, &[][..])
                };
                return Some(V4Op::Io(V4Io {
                    write,
                    handle: fh,
                    offset,
                    stable,
                    data,
                }));
            }
            _ => return None,
        }
    }
    None
}

/// READ data and its `eof` flag.
pub type ReadData<'a> = Option<(&'a [u8], bool)>;

/// The status of an NFSv4 COMPOUND reply, and the data and `eof` of its READ result
/// when the results before it can be skipped.
pub fn compound_reply(body: &[u8]) -> Option<(u32, ReadData<'_>)> {
    let mut x = Xdr::new(body);
    let status = x.u32()?;
    let read = (|| {
        let _tag = x.opaque_max(NAME_MAX)?;
        let n = x.u32()?;
        for _ in 0..n.min(64) {
            let op = x.u32()?;
            let st = x.u32()?;
            if st != 0 {
                return None;
            }
            match op {
                ops::SEQUENCE => x.skip(16 + 20)?,
                ops::PUTFH | ops::PUTROOTFH | ops::PUTPUBFH | ops::SAVEFH | ops::RESTOREFH => {}
                ops::GETFH => {
                    x.opaque_max(FH4_MAX)?;
                }
                ops::GETATTR => {
                    let words = x.u32()? as usize;
                    x.skip(words.checked_mul(4)?)?;
                    x.opaque()?;
                }
                ops::READ => {
                    let eof = x.bool()?;
                    return Some((x.opaque()?, eof));
                }
                _ => return None,
            }
        }
        None
    })();
    Some((status, read))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rpc::message::tests::hex;
    use crate::rpc::{parse_message, Message};

    /// sv-ether.pcap, the NFSv3 flow's frames 399 and 400: READ of `bln` and its
    /// 11-byte reply with `eof`.
    pub(crate) const V3_READ_CALL: &str = "5e1d0c020000000000000002000186a3000000030000000600000001000000343847760b00000009776572726d73636865000000000000000000000100000005000000010000000000000002000000030000001100000000000000000000002000101085000003e7000a00000000b25d0000002a000a00000000b25a00000029000000000000000000004000";
    pub(crate) const V3_READ_REPLY: &str = "5e1d0c020000000100000000000000000000000000000000000000000000000100000001000081a4000000020000000000000001000000000000000b000000000000800000000000000000000000000000101085000000000000b25d3847762523c34600384771c421f98280384776251e65fb810000000b000000010000000b74686520622066696c650a00";

    #[test]
    fn a_real_v3_read_and_its_reply() {
        let b = hex(V3_READ_CALL);
        let Some(Message::Call(c)) = parse_message(&b) else {
            panic!()
        };
        let r = request_v3(c.procedure, c.body).unwrap();
        assert_eq!(crc32fast::hash(r.handle.unwrap()), 0xa5fcf973);
        assert_eq!(r.range, Some((0, 0x4000)));
        let b = hex(V3_READ_REPLY);
        let Some(Message::Reply(rep)) = parse_message(&b) else {
            panic!()
        };
        let info = reply_v3(procs::READ, rep.body).unwrap();
        assert_eq!(info.status, 0);
        assert_eq!(info.data, Some((&b"the b file\n"[..], true)));
    }

    #[test]
    fn a_real_v2_lookup_is_not_named() {
        use crate::rpc::message::tests::{V2_CALL, V2_REPLY};
        let b = hex(V2_CALL);
        let Some(Message::Call(c)) = parse_message(&b) else {
            panic!()
        };
        assert_eq!(procedure_name(c.procedure), "ACCESS");
        assert_eq!(request_v2(c.procedure, c.body), Some(Request::default()));
        let b = hex(V2_REPLY);
        let Some(Message::Reply(rep)) = parse_message(&b) else {
            panic!()
        };
        assert_eq!(
            status_name(reply_v2(4, rep.body).unwrap().status),
            "ERR_NOENT"
        );
    }

    #[test]
    fn names_and_numbers() {
        assert_eq!(procedure_name(17), "READDIRPLUS");
        assert_eq!(procedure_name(99), "99");
        assert_eq!(status_name(10008), "ERR_JUKEBOX");
        assert_eq!(status_name(12345), "12345");
    }

    #[test]
    fn v4_remove_after_putfh() {
        let w = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_be_bytes());
        let mut b = Vec::new();
        w(&mut b, 0); // tag
        w(&mut b, 0); // minor version
        w(&mut b, 2);
        w(&mut b, ops::PUTFH);
        w(&mut b, 8);
        b.extend_from_slice(&[7; 8]);
        w(&mut b, ops::REMOVE);
        w(&mut b, 10);
        b.extend_from_slice(b"victim.txt\0\0");
        assert_eq!(compound_op(&b), Some(V4Op::Remove(b"victim.txt")));
        assert_eq!(compound_io(&b), None);
        // The name cut short: nothing.
        assert_eq!(compound_op(&b[..b.len() - 6]), None);
        assert_eq!(procedure_name_v4(V4_REMOVE), "REMOVE");
    }

    #[test]
    fn v4_write_after_sequence_and_putfh() {
        let mut b = Vec::new();
        let w = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_be_bytes());
        w(&mut b, 0); // tag
        w(&mut b, 1); // minor version
        w(&mut b, 3);
        w(&mut b, ops::SEQUENCE);
        b.extend_from_slice(&[0; 32]);
        w(&mut b, ops::PUTFH);
        w(&mut b, 4);
        b.extend_from_slice(b"fh01");
        w(&mut b, ops::WRITE);
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&7u64.to_be_bytes());
        w(&mut b, 2);
        w(&mut b, 5);
        b.extend_from_slice(b"hello\0\0\0");
        let io = compound_io(&b).unwrap();
        assert_eq!((io.write, io.handle, io.offset), (true, &b"fh01"[..], 7));
        assert_eq!((io.stable, io.data), (2, &b"hello"[..]));
        assert_eq!(compound_io(&b[..b.len() - 12]), None);
    }

    proptest::proptest! {
        /// Every decoder of this module and of RPC takes arbitrary bytes without
        /// panicking, whatever the procedure.
        #[test]
        fn arbitrary_bytes_never_panic(
            b in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
            p in 0u32..24,
        ) {
            let _ = (request_v3(p, &b), request_v2(p, &b), reply_v3(p, &b), reply_v2(p, &b));
            let _ = (compound_io(&b), compound_reply(&b), parse_message(&b));
            let mut r = crate::rpc::Records::default();
            for c in b.chunks(7) {
                let _ = r.feed(c, 256, &mut |m| {
                    let _ = parse_message(m);
                });
            }
        }
    }
}

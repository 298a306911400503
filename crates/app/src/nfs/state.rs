//! Per-flow NFS state: RPC calls become transactions, matched with their replies by
//! xid; file handles get names from LOOKUP, CREATE and READDIRPLUS replies; READ and
//! WRITE data goes into a file transaction per handle (`file_tx`), as Suricata keeps
//! it.

use std::collections::{HashMap, VecDeque};

use super::parser::{self, procs, Request};
use crate::files::{FileId, FileState, Files};
use crate::rpc::{parse_message, AuthFlavor, Call, Message, Records, Reply};
use crate::{AppCtx, AppProto, Counter, Direction, Events, Transport};

/// NFS's RPC program number.
pub const PROGRAM: u32 = 100_003;
/// Longest RPC record reassembled over TCP (a 1 MiB READ or WRITE and its header).
pub const MAX_RECORD: usize = (1 << 20) + 4096;
/// Calls waiting for their reply, at most.
const MAX_PENDING: usize = 1024;
/// Handle-to-name entries kept, at most.
const MAX_NAMES: usize = 4096;

/// `AUTH_SYS` credentials kept from a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Creds {
    /// The client's host name.
    pub machine_name: Vec<u8>,
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

/// READ or WRITE progress of a file transaction (`nfs.read` / `nfs.write`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileIo {
    /// A WRITE (data to the server), else a READ.
    pub write: bool,
    /// The transaction started with the file's first chunk.
    pub first: bool,
    /// The last chunk was seen (READ `eof`, a short READ, `FILE_SYNC` or COMMIT).
    pub last: bool,
    /// The xid that carried the last chunk (0 until then).
    pub last_xid: u32,
    /// Data chunks taken (Suricata counts none for NFSv2).
    pub chunks: u32,
    /// Bytes of the file so far (the offset the next chunk must have).
    pub size: u64,
}

/// One NFS transaction: a call and its reply, or a file's READ/WRITE transfer.
#[derive(Clone, Debug)]
pub struct NfsTx {
    /// Transaction id within the flow (0-based; EVE's `nfs.id` is one more).
    pub id: u64,
    /// The call's xid (the first one, for a file transaction).
    pub xid: u32,
    /// NFS version (2, 3 or 4).
    pub version: u32,
    /// Procedure number (v3 numbering; a v4 file transaction says READ or WRITE).
    pub procedure: u32,
    /// Procedures a file transaction took after its first (a COMMIT of the written
    /// file: `nfs_procedure` matches any of them, as Suricata's file transactions
    /// list them), each once.
    pub more_procs: Vec<u32>,
    /// Whether this is a file transaction.
    pub file_tx: bool,
    /// The call's credential flavour (`NULL` for file transactions but v3 READs).
    pub flavor: AuthFlavor,
    /// `AUTH_SYS` credentials of the call.
    pub creds: Option<Creds>,
    /// The name the call acts on, or the name its handle was given.
    pub filename: Vec<u8>,
    /// CRC-32 of the handle Suricata shows for the call (`hhash`).
    pub hhash: Option<u32>,
    /// RENAME's old and new names.
    pub rename: Option<(Vec<u8>, Vec<u8>)>,
    /// The reply: RPC accepted, and the NFS status when the procedure ran.
    pub response: Option<(bool, Option<u32>)>,
    /// READ/WRITE progress of a file transaction.
    pub io: Option<FileIo>,
    handle: Vec<u8>,
    files: Files,
    file: Option<FileId>,
    /// The events raised on it (indices into [`super::EVENTS`]).
    pub(crate) events: Events,
}

impl NfsTx {
    /// The transaction's files (a file transaction's one file).
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// Whether the file of a file transaction is no longer open.
    pub fn file_done(&self) -> bool {
        self.file
            .and_then(|f| self.files.get(f))
            .is_none_or(|f| f.state() != FileState::Open)
    }

    /// Whether the record is written at all: not NULL and GETATTR (v2/v3), not a
    /// file transaction whose last chunk was never seen.
    pub fn logged(&self) -> bool {
        if self.file_tx {
            self.io.as_ref().is_some_and(|io| io.last)
        } else {
            !(self.version <= 3 && self.procedure == procs::GETATTR)
        }
    }

    fn append(&mut self, xid: u32, offset: u64, data: &[u8], last: bool) {
        let (Some(io), Some(f)) = (self.io.as_mut(), self.file) else {
            return;
        };
        if self
            .files
            .get(f)
            .is_none_or(|f| f.state() != FileState::Open)
        {
            return;
        }
        if offset != io.size {
            // Out of order or rewritten data: the file cannot be followed.
            self.files.close(f, FileState::Truncated);
            return;
        }
        self.files.append(f, data);
        io.size += data.len() as u64;
        if self.version >= 3 {
            io.chunks += 1;
        }
        if last {
            io.last = true;
            io.last_xid = xid;
            self.files.close(f, FileState::Closed);
        }
    }
}

/// A call waiting for its reply.
#[derive(Clone, Debug)]
struct Pending {
    tx: u64,
    version: u32,
    procedure: u32,
    name: Option<Vec<u8>>,
    /// READ: offset and count asked for.
    read: Option<(u64, u32)>,
}

/// NFS state of one flow.
#[derive(Debug)]
pub struct NfsState {
    transport: Transport,
    txs: VecDeque<NfsTx>,
    next_id: u64,
    pending: HashMap<u32, Pending>,
    names: HashMap<Vec<u8>, Vec<u8>>,
    records: [Records; 2],
    events: Events,
    error: bool,
}

impl NfsState {
    /// A fresh state for NFS over `transport`.
    pub fn new(transport: Transport) -> Self {
        NfsState {
            transport,
            txs: VecDeque::new(),
            next_id: 0,
            pending: HashMap::new(),
            names: HashMap::new(),
            records: Default::default(),
            events: Events::default(),
            error: false,
        }
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &NfsTx> {
        self.txs.iter()
    }

    /// The application-layer events raised (indices into [`super::EVENTS`]).
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the TCP parser failed (a record over [`MAX_RECORD`]).
    pub fn errored(&self) -> bool {
        self.error
    }

    /// Raises event `e` in the flow's set and on the newest transaction, which
    /// `app-layer-event` rules inspect (Suricata 7.0.10 keeps NFS's events per
    /// transaction).
    fn raise(&mut self, ctx: &mut AppCtx, e: usize) {
        self.events.raise(e);
        if let Some(t) = self.txs.back_mut() {
            t.events.raise(e);
        }
        ctx.anomalies
            .parser(AppProto::Nfs, super::EVENTS[e], Some(self.next_id));
    }

    /// Stream bytes of NFS over TCP (record marking).
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let mut records = std::mem::take(&mut self.records[d]);
        let r = records.feed(data, MAX_RECORD, &mut |m| {
            if !reversed(dir, m) {
                self.message(ctx, dir, m);
            }
        });
        self.records[d] = records;
        if r.is_err() && !self.error {
            self.error = true;
            ctx.counters.incr(Counter::ErrorNfsTcp);
            self.raise(ctx, super::MALFORMED_DATA);
        }
    }

    /// A hole in one TCP direction: its record marks are lost, so the direction stops
    /// and the files it was carrying are truncated.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.records[dir.index()].lose_sync();
        for tx in self.txs.iter_mut().filter(|t| t.file_tx) {
            tx.files.close_all(FileState::Truncated);
        }
    }

    /// The flow ended: files still open are truncated.
    pub fn close(&mut self) {
        for tx in &mut self.txs {
            tx.files.close_all(FileState::Truncated);
        }
    }

    /// One RPC message (a UDP payload or a TCP record); `false` when it is not one.
    pub fn message(&mut self, ctx: &mut AppCtx, dir: Direction, m: &[u8]) -> bool {
        match parse_message(m) {
            Some(Message::Call(c)) if dir == Direction::ToServer => self.call(ctx, &c),
            Some(Message::Reply(r)) if dir == Direction::ToClient => self.reply(ctx, &r),
            _ => {
                self.raise(ctx, super::MALFORMED_DATA);
                return false;
            }
        }
        true
    }

    fn new_tx(&mut self, ctx: &mut AppCtx, c: &Call<'_>, procedure: u32) -> &mut NfsTx {
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(match self.transport {
            Transport::Tcp => Counter::TxNfsTcp,
            Transport::Udp => Counter::TxNfsUdp,
        });
        let full = self.txs.len() >= ctx.config.max_tx.max(1);
        if full {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.push_back(NfsTx {
            id,
            xid: c.xid,
            version: c.vers,
            procedure,
            more_procs: Vec::new(),
            file_tx: false,
            flavor: c.flavor,
            creds: c.unix.map(|u| Creds {
                machine_name: u.machine_name.to_vec(),
                uid: u.uid,
                gid: u.gid,
            }),
            filename: Vec::new(),
            hhash: None,
            rename: None,
            response: None,
            io: None,
            handle: Vec::new(),
            files: Files::default(),
            file: None,
            events: Events::default(),
        });
        if full {
            self.raise(ctx, super::TOO_MANY_TRANSACTIONS);
        }
        self.txs.back_mut().expect("just pushed")
    }

    fn expect_reply(&mut self, ctx: &mut AppCtx, xid: u32, p: Pending) {
        if self.pending.len() >= MAX_PENDING {
            ctx.counters.incr(Counter::NfsDropped);
            self.pending.clear();
        }
        self.pending.insert(xid, p);
    }

    fn name_of(&self, handle: &[u8]) -> Vec<u8> {
        self.names.get(handle).cloned().unwrap_or_default()
    }

    fn set_name(&mut self, ctx: &mut AppCtx, handle: &[u8], name: &[u8]) {
        if self.names.len() >= MAX_NAMES && !self.names.contains_key(handle) {
            ctx.counters.incr(Counter::NfsDropped);
            self.names.clear();
        }
        self.names.insert(handle.to_vec(), name.to_vec());
    }

    /// The live file transaction of `handle` in direction `write`, or a new one.
    fn file_tx(&mut self, ctx: &mut AppCtx, c: &Call<'_>, write: bool, handle: &[u8]) -> u64 {
        let found = self.txs.iter().find(|t| {
            t.file_tx
                && t.handle == handle
                && t.io.as_ref().is_some_and(|io| io.write == write)
                && !t.io.as_ref().is_some_and(|io| io.last)
        });
        if let Some(t) = found {
            return t.id;
        }
        let name = if c.vers >= 3 {
            self.name_of(handle)
        } else {
            Vec::new()
        };
        let cfg = ctx.config.files.clone();
        let tx = self.new_tx(ctx, c, if write { procs::WRITE } else { procs::READ });
        tx.file_tx = true;
        // Suricata keeps the caller's credentials on v3 READs only.
        if write || c.vers != 3 {
            tx.flavor = AuthFlavor::NULL;
            tx.creds = None;
        }
        tx.hhash = Some(crc32fast::hash(handle));
        tx.handle = handle.to_vec();
        tx.io = Some(FileIo {
            write,
            first: true,
            ..FileIo::default()
        });
        let dir = if write {
            Direction::ToServer
        } else {
            Direction::ToClient
        };
        tx.file = tx.files.open(&cfg, &name, dir);
        tx.filename = name;
        tx.id
    }

    fn tx_mut(&mut self, id: u64) -> Option<&mut NfsTx> {
        self.txs.iter_mut().rev().find(|t| t.id == id)
    }

    fn call(&mut self, ctx: &mut AppCtx, c: &Call<'_>) {
        if c.prog != PROGRAM {
            return;
        }
        match c.vers {
            // NULL is a transaction of v2 and v3 (not of v4), as Suricata 7.0.10 has it.
            2 | 3 if c.procedure == 0 => {
                let id = self.new_tx(ctx, c, 0).id;
                let p = Pending {
                    tx: id,
                    version: c.vers,
                    procedure: 0,
                    name: None,
                    read: None,
                };
                self.expect_reply(ctx, c.xid, p);
            }
            2 | 3 => self.call_v23(ctx, c),
            // NFSv4 over UDP is not parsed (Suricata 7.0.10 makes no transaction of a
            // COMPOUND there: difftest `nfs`, seed 312 cases 1082 and 1433).
            4 if c.procedure == procs::COMPOUND && self.transport == Transport::Tcp => {
                self.call_v4(ctx, c)
            }
            _ => {}
        }
    }

    fn call_v23(&mut self, ctx: &mut AppCtx, c: &Call<'_>) {
        let (p, v3) = (c.procedure, c.vers == 3);
        let parsed = if v3 {
            parser::request_v3(p, c.body)
        } else {
            parser::request_v2(p, c.body)
        };
        let pending = |tx, name: Option<&[u8]>, read| Pending {
            tx,
            version: c.vers,
            procedure: p,
            name: name.map(<[u8]>::to_vec),
            read,
        };
        let Some(req) = parsed else {
            self.raise(ctx, super::MALFORMED_DATA);
            // Arguments cut short still make a v3 call a transaction, without a
            // name, but for WRITE and COMMIT (Suricata 7.0.10: a READ too, not a file
            // transaction then).
            if v3 && !matches!(p, procs::WRITE | procs::COMMIT) {
                let id = self.request_tx(ctx, c, &Request::default());
                self.expect_reply(ctx, c.xid, pending(id, None, None));
            }
            return;
        };
        match (p, req.handle) {
            (procs::READ, Some(h)) => {
                let id = self.file_tx(ctx, c, false, h);
                self.expect_reply(ctx, c.xid, pending(id, None, req.range));
            }
            (procs::WRITE, Some(h)) if v3 => {
                let id = self.file_tx(ctx, c, true, h);
                let (offset, _) = req.range.unwrap_or_default();
                let last = req.stable == 2;
                if let Some(tx) = self.tx_mut(id) {
                    tx.append(c.xid, offset, req.data, last);
                }
                self.expect_reply(ctx, c.xid, pending(id, None, None));
            }
            // COMMIT is no transaction of its own: it ends the WRITE transaction of
            // its handle, if one is open (Suricata 7.0.10, checked on hand-made flows).
            (procs::COMMIT, h) if v3 => self.commit(c.xid, h.unwrap_or_default()),
            _ => {
                let id = self.request_tx(ctx, c, &req);
                let name = matches!(p, procs::LOOKUP | procs::CREATE).then_some(req.name);
                self.expect_reply(ctx, c.xid, pending(id, name.flatten(), None));
            }
        }
    }

    /// A COMMIT ends the WRITE file transaction of its handle, which takes COMMIT as
    /// one more procedure.
    fn commit(&mut self, xid: u32, handle: &[u8]) {
        let tx = self.txs.iter_mut().find(|t| {
            t.file_tx && t.handle == handle && t.io.as_ref().is_some_and(|io| io.write && !io.last)
        });
        if let Some(tx) = tx {
            if !tx.more_procs.contains(&procs::COMMIT) {
                tx.more_procs.push(procs::COMMIT);
            }
            if let (Some(io), Some(f)) = (tx.io.as_mut(), tx.file) {
                io.last = true;
                io.last_xid = xid;
                tx.files.close(f, FileState::Closed);
            }
        }
    }

    /// A v2/v3 transaction with the name and handle hash Suricata shows for it.
    fn request_tx(&mut self, ctx: &mut AppCtx, c: &Call<'_>, req: &Request<'_>) -> u64 {
        use procs::*;
        let p = c.procedure;
        let named = match (c.vers, p, req.handle) {
            (3, ACCESS, Some(h)) => Some((self.name_of(h), Some(crc32fast::hash(h)))),
            (3, LOOKUP, _) => Some((req.name.unwrap_or_default().to_vec(), None)),
            (3, CREATE | MKDIR | REMOVE | RMDIR | RENAME, Some(h)) => Some((
                req.name.unwrap_or_default().to_vec(),
                Some(crc32fast::hash(h)),
            )),
            _ => None,
        };
        let tx = self.new_tx(ctx, c, p);
        if let Some((name, hhash)) = named {
            tx.filename = name;
            tx.hhash = hhash;
        }
        if p == RENAME {
            let s = |n: Option<&[u8]>| n.unwrap_or_default().to_vec();
            tx.rename = Some((s(req.name), s(req.to)));
        }
        tx.id
    }

    fn call_v4(&mut self, ctx: &mut AppCtx, c: &Call<'_>) {
        let io = match parser::compound_op(c.body) {
            Some(parser::V4Op::Io(io)) => io,
            Some(parser::V4Op::Remove(name)) => {
                // A transaction of its own, named by the removed name, its procedure
                // the v4 operation (Suricata 7.0.10: `nfs_procedure:28`).
                let tx = self.new_tx(ctx, c, parser::V4_REMOVE);
                tx.filename = name.to_vec();
                let p = Pending {
                    tx: tx.id,
                    version: 4,
                    procedure: procs::COMPOUND,
                    name: None,
                    read: None,
                };
                self.expect_reply(ctx, c.xid, p);
                return;
            }
            None => return,
        };
        let id = self.file_tx(ctx, c, io.write, io.handle);
        if io.write {
            if let Some(tx) = self.tx_mut(id) {
                tx.append(c.xid, io.offset, io.data, io.stable == 2);
            }
        }
        let p = Pending {
            tx: id,
            version: 4,
            procedure: procs::COMPOUND,
            name: None,
            read: (!io.write).then_some((io.offset, 0)),
        };
        self.expect_reply(ctx, c.xid, p);
    }

    fn reply(&mut self, ctx: &mut AppCtx, r: &Reply<'_>) {
        let Some(p) = self.pending.remove(&r.xid) else {
            return;
        };
        if !r.success() {
            if let Some(tx) = self.tx_mut(p.tx) {
                tx.response = Some((r.accepted, None));
            }
            return;
        }
        let info = match p.version {
            // NULL answers nothing: Suricata logs its status as OK.
            2 | 3 if p.procedure == 0 => Some(parser::ReplyInfo::default()),
            2 => parser::reply_v2(p.procedure, r.body),
            3 => parser::reply_v3(p.procedure, r.body),
            _ => parser::compound_reply(r.body).map(|(status, data)| parser::ReplyInfo {
                status,
                data,
                ..Default::default()
            }),
        };
        let Some(info) = info else {
            self.raise(ctx, super::MALFORMED_DATA);
            return;
        };
        if let (Some(h), Some(name)) = (info.handle, p.name.as_deref()) {
            self.set_name(ctx, h, name);
        }
        for (name, h) in &info.entries {
            self.set_name(ctx, h, name);
        }
        let Some(tx) = self.tx_mut(p.tx) else {
            return;
        };
        tx.response = Some((true, Some(info.status)));
        if p.procedure == procs::LOOKUP && p.version == 3 {
            tx.hhash = info.handle.map(crc32fast::hash);
        }
        if let (Some((data, eof)), Some((offset, count))) = (info.data, p.read) {
            let short = p.version < 4 && (data.len() as u64) < u64::from(count);
            tx.append(r.xid, offset, data, eof || short);
        }
    }
}

/// Whether record `m` of an NFS TCP stream is an RPC message of the other direction: a
/// call to the client (an NFSv4 callback, `nfs_tftp.pcap` packet 307) or a reply to
/// the server (its answer, packet 310). Suricata 7.0.10 parses neither and raises no
/// event for them.
fn reversed(dir: Direction, m: &[u8]) -> bool {
    matches!(
        (parse_message(m), dir),
        (Some(Message::Call(_)), Direction::ToClient)
            | (Some(Message::Reply(_)), Direction::ToServer)
    )
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::nfs::parser::tests::{V3_READ_CALL, V3_READ_REPLY};
    use crate::rpc::message::tests::hex;

    /// An NFSv4 COMPOUND call (xid 7, AUTH_NULL) of PUTFH and REMOVE `victim.txt`,
    /// and its reply with `status`.
    fn v4_remove(status: u32) -> (Vec<u8>, Vec<u8>) {
        let w = |v: &mut Vec<u8>, xs: &[u32]| xs.iter().for_each(|x| v.extend(x.to_be_bytes()));
        let mut c = Vec::new();
        w(&mut c, &[7, 0, 2, 100_003, 4, 1, 0, 0, 0, 0]);
        w(&mut c, &[0, 0, 2, 22, 4, 0x0102_0304, 28, 10]);
        c.extend_from_slice(b"victim.txt\0\0");
        let mut r = Vec::new();
        w(&mut r, &[7, 1, 0, 0, 0, 0, status, 0, 2, 22, 0, 28, status]);
        (c, r)
    }

    #[test]
    fn a_v4_remove_is_a_transaction_over_tcp_only() {
        let (c, r) = v4_remove(2);
        let mut ctx = AppCtx::default();
        let mut s = NfsState::new(Transport::Tcp);
        assert!(s.message(&mut ctx, Direction::ToServer, &c));
        assert!(s.message(&mut ctx, Direction::ToClient, &r));
        let tx = s.txs().next().expect("a REMOVE transaction");
        assert_eq!((tx.version, tx.procedure), (4, 28));
        assert_eq!(
            (tx.filename.as_slice(), tx.response),
            (&b"victim.txt"[..], Some((true, Some(2))))
        );
        assert_eq!(crate::nfs::log::nfs_object(tx)["procedure"], "REMOVE");
        // Over UDP Suricata 7.0.10 parses no v4 COMPOUND.
        let mut s = NfsState::new(Transport::Udp);
        s.message(&mut ctx, Direction::ToServer, &c);
        s.message(&mut ctx, Direction::ToClient, &r);
        assert_eq!(s.txs().count(), 0);
    }

    #[test]
    fn a_real_v3_read_is_a_file_transaction_closed_at_eof() {
        let mut ctx = AppCtx::default();
        let mut s = NfsState::new(Transport::Udp);
        assert!(s.message(&mut ctx, Direction::ToServer, &hex(V3_READ_CALL)));
        let tx = s.txs().next().unwrap();
        assert!(tx.file_tx && !tx.file_done() && !tx.logged());
        assert!(s.message(&mut ctx, Direction::ToClient, &hex(V3_READ_REPLY)));
        let tx = s.txs().next().unwrap();
        let f = tx.files().iter().next().unwrap();
        assert_eq!(
            (f.state(), f.size(), f.head()),
            (FileState::Closed, 11, &b"the b file\n"[..])
        );
        assert!(tx.logged());
        // As Suricata 7.0.10 writes it (the tx id aside: `id` is one more than it).
        assert_eq!(
            crate::nfs::log::nfs_object(tx).to_string(),
            r#"{"version":3,"procedure":"READ","filename":"","hhash":"a5fcf973","id":1,"file_tx":true,"type":"response","status":"OK","read":{"first":true,"last":true,"last_xid":1578961922,"chunks":1}}"#
        );
        assert_eq!(
            crate::nfs::log::rpc_object(tx).to_string(),
            r#"{"xid":1578961922,"status":"ACCEPTED","auth_type":"UNIX","creds":{"machine_name":"werrmsche","uid":0,"gid":0}}"#
        );
        assert_eq!(ctx.counters.get(Counter::TxNfsUdp), 1);
        // The same reply again answers nothing; a call sent to the client is malformed.
        assert!(s.message(&mut ctx, Direction::ToClient, &hex(V3_READ_REPLY)));
        assert!(!s.events().has(crate::nfs::MALFORMED_DATA));
        assert!(!s.message(&mut ctx, Direction::ToClient, &hex(V3_READ_CALL)));
        assert!(s.events().has(crate::nfs::MALFORMED_DATA));
        assert_eq!(s.txs().count(), 1);
    }

    #[test]
    fn tcp_records_split_anywhere_and_files_truncated_at_the_end() {
        let call = hex(V3_READ_CALL);
        let mut stream = (0x8000_0000u32 | call.len() as u32).to_be_bytes().to_vec();
        stream.extend_from_slice(&call);
        let mut ctx = AppCtx::default();
        let mut s = NfsState::new(Transport::Tcp);
        for b in stream.chunks(5) {
            s.parse(&mut ctx, Direction::ToServer, b);
        }
        assert_eq!(ctx.counters.get(Counter::TxNfsTcp), 1);
        s.close();
        let f = s.txs().next().unwrap().files().iter().next().unwrap();
        assert_eq!(f.state(), FileState::Truncated);
        // A call sent to the client (an NFSv4 callback) is no event over TCP.
        s.parse(&mut ctx, Direction::ToClient, &stream);
        assert!(s.events().is_empty());
        // A record over the limit is a parser error, kept by the newest transaction.
        s.parse(&mut ctx, Direction::ToClient, &[0xff, 0xff, 0xff, 0xff]);
        assert!(s.errored());
        assert_eq!(ctx.counters.get(Counter::ErrorNfsTcp), 1);
        use crate::Transaction;
        let tx = s.txs().next().unwrap();
        for dir in [Direction::ToServer, Direction::ToClient] {
            let mut v = Vec::new();
            assert!(tx.tx_events(dir, &mut |e| v.push(e)));
            assert_eq!(v, ["nfs.malformed_data"]);
            assert!(tx.started(dir));
        }
    }
}

//! SMB's per-flow state: NBSS records ([`super::record`]) are split into SMB1 and
//! SMB2/3 messages, requests open transactions, responses are matched with them by
//! message id (SMB2: command and message id; SMB1: command, multiplex and process id),
//! and the trees, opened files and pending reads the later messages refer to are
//! remembered (each table bounded). The SMB1 and SMB2 commands are handled in
//! [`super::handle1`] and [`super::handle2`].
//!
//! Transactions are created as Suricata 7 creates them: one per request (except reads
//! and writes, and `TRANS`/`TRANS2` other than the set-info ones), one per file read
//! or written. A request never answered is logged once [`STALE_AFTER`] newer
//! transactions exist, or at the end of the flow.

use std::collections::VecDeque;

use super::events::{self as ev, raise};
use super::record::{Framer, Item};
use super::tx::{SmbTx, TxKind};
use crate::{AppCtx, Counter, Direction, Events, FileState, Files};

/// A transaction still waiting for its answer when this many newer ones exist is
/// logged as it is.
pub const STALE_AFTER: u64 = 64;
/// Requests remembered while waiting for their answer at most.
pub const MAX_PENDING: usize = 256;
/// Trees and opened files remembered at most (the oldest are forgotten).
pub const MAX_HANDLES: usize = 1024;

/// What an answer is awaited for.
#[derive(Clone, Debug)]
pub(crate) enum Wait {
    /// The answer of transaction `id`.
    Tx(u64),
    /// Data read from file `fid` at `offset` (with the request's session and tree).
    Read {
        fid: Vec<u8>,
        offset: u64,
        ids: (u64, u32),
    },
    /// The status of a write that went to file transaction `id`.
    Write(u64),
    /// Data read from named pipe `fid` (the answer of a read, `TRANS` or IOCTL).
    Pipe { fid: Vec<u8>, ids: (u64, u32) },
}

/// A request waiting for its answer: (SMB version, command, message id) and what.
pub(crate) type Pending = ((u8, u16, u64), Wait);

/// A tree: its id, share path and whether it is a pipe share.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub id: u32,
    pub path: Vec<u8>,
    pub pipe: bool,
}

/// An opened file: its id, name, share and whether it is a named pipe.
#[derive(Clone, Debug)]
pub(crate) struct Fid {
    pub fid: Vec<u8>,
    pub name: Vec<u8>,
    pub share: Vec<u8>,
    pub pipe: bool,
}

/// SMB's per-flow state.
#[derive(Clone, Debug, Default)]
pub struct SmbState {
    framers: [Framer; 2],
    pub(crate) txs: VecDeque<SmbTx>,
    next_id: u64,
    /// The dialect in force (`None`: not negotiated on this flow).
    pub(crate) dialect: Option<String>,
    /// The dialects the last SMB1 negotiation offered (the answer picks one).
    pub(crate) smb1_dialects: Vec<Vec<u8>>,
    pub(crate) pending: VecDeque<Pending>,
    pub(crate) trees: VecDeque<Tree>,
    pub(crate) fids: VecDeque<Fid>,
    pub(crate) events: Events,
    completed: [bool; 2],
    /// The DCERPC connection of each named pipe followed.
    pub(crate) pipes: VecDeque<(Vec<u8>, crate::dcerpc::DcerpcConn)>,
}

impl SmbState {
    /// Parses in-order bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let mut items = Vec::new();
        self.framers[dir.index()].feed(data, &mut |i| items.push(i));
        for item in items {
            match item {
                Item::Message(m) => {
                    self.message(ctx, dir, &m);
                    self.completed[dir.index()] = true;
                }
                Item::TooLarge(head) => self.too_large(ctx, dir, &head[4..]),
                Item::Lost => raise(self, ctx, ev::MALFORMED_DATA, None),
            }
        }
    }

    /// A hole in one direction: the record in progress is dropped.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.framers[dir.index()].gap();
    }

    /// The flow ended: files still open are truncated.
    pub fn close(&mut self) {
        for tx in self.txs.iter_mut() {
            if let TxKind::File { files, .. } = &mut tx.kind {
                files.close_all(FileState::Truncated);
                tx.done = true;
            }
        }
    }

    /// The flow's events.
    pub fn events(&self) -> Events {
        self.events
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &SmbTx> {
        self.txs.iter()
    }

    /// Whether a record of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()])
    }

    /// One SMB message (the payload of a session message).
    fn message(&mut self, ctx: &mut AppCtx, dir: Direction, m: &[u8]) {
        match m.get(..4) {
            Some(b"\xfeSMB") => super::handle2::message(self, ctx, dir, m),
            Some(b"\xffSMB") => super::handle1::message(self, ctx, dir, m),
            // Encrypted (transform) and compressed SMB3 messages are not readable.
            Some(b"\xfdSMB") | Some(b"\xfcSMB") => {}
            _ => raise(self, ctx, ev::MALFORMED_DATA, None),
        }
    }

    /// A record too large to keep: a read or write is reported as such.
    fn too_large(&mut self, ctx: &mut AppCtx, dir: Direction, head: &[u8]) {
        let cmd = match head.get(..4) {
            Some(b"\xfeSMB") => head.get(12).map(|&c| u16::from(c)),
            Some(b"\xffSMB") => head.get(4).map(|&c| match c {
                0x2e => 8,
                0x2f => 9,
                _ => 0xff,
            }),
            _ => None,
        };
        let e = match (cmd, dir) {
            (Some(8), Direction::ToClient) => ev::READ_RESPONSE_TOO_LARGE,
            (Some(9), Direction::ToServer) => ev::WRITE_REQUEST_TOO_LARGE,
            _ => ev::MALFORMED_DATA,
        };
        raise(self, ctx, e, None);
    }

    /// The dialect name transactions show now.
    pub(crate) fn dialect_name(&self) -> String {
        self.dialect.clone().unwrap_or_else(|| "unknown".into())
    }

    /// Opens a transaction for `command` with the request's ids.
    pub(crate) fn new_tx(
        &mut self,
        ctx: &mut AppCtx,
        command: &'static str,
        ids: (u64, u32),
        kind: TxKind,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        ctx.counters.incr(Counter::TxSmb);
        for t in self.txs.iter_mut() {
            if t.id + STALE_AFTER > id {
                break;
            }
            if !matches!(t.kind, TxKind::File { .. }) {
                t.stale = true;
            }
        }
        self.txs.push_back(SmbTx {
            id,
            dialect: self.dialect_name(),
            command,
            status: None,
            session_id: ids.0,
            tree_id: ids.1,
            kind,
            done: false,
            stale: false,
            events: Events::default(),
        });
        while self.txs.len() > ctx.config.max_tx.max(1) {
            if let Some(old) = self.txs.pop_front() {
                if !old.done && !old.stale {
                    ctx.counters.incr(Counter::TxLimit);
                    raise(self, ctx, ev::TOO_MANY_TRANSACTIONS, Some(old.id));
                }
            }
        }
        id
    }

    /// Transaction `id`, if it is still live.
    pub(crate) fn tx_mut(&mut self, id: u64) -> Option<&mut SmbTx> {
        let first = self.txs.front()?.id;
        let i = usize::try_from(id.checked_sub(first)?).ok()?;
        self.txs.get_mut(i)
    }

    /// Remembers that `key` awaits an answer.
    pub(crate) fn wait(&mut self, key: (u8, u16, u64), w: Wait) {
        if self.pending.len() >= MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((key, w));
    }

    /// Takes what `key` awaited.
    pub(crate) fn answer(&mut self, key: (u8, u16, u64)) -> Option<Wait> {
        let i = self.pending.iter().position(|(k, _)| *k == key)?;
        self.pending.remove(i).map(|(_, w)| w)
    }

    /// Remembers tree `t`.
    pub(crate) fn add_tree(&mut self, t: Tree) {
        self.trees.retain(|x| x.id != t.id);
        if self.trees.len() >= MAX_HANDLES {
            self.trees.pop_front();
        }
        self.trees.push_back(t);
    }

    /// Tree `id`.
    pub(crate) fn tree(&self, id: u32) -> Option<&Tree> {
        self.trees.iter().rev().find(|t| t.id == id)
    }

    /// Remembers the file `fid` opened as `name` in tree `tree_id` (its share and
    /// whether it is a named pipe come from the tree).
    pub(crate) fn add_fid(&mut self, fid: Vec<u8>, name: Vec<u8>, tree_id: u32) {
        let (share, pipe) = self
            .tree(tree_id)
            .map(|t| (t.path.clone(), t.pipe))
            .unwrap_or_default();
        let f = Fid {
            fid,
            name,
            share,
            pipe,
        };
        self.fids.retain(|x| x.fid != f.fid);
        if self.fids.len() >= MAX_HANDLES {
            self.fids.pop_front();
        }
        self.fids.push_back(f);
    }

    /// Opened file `fid`.
    pub(crate) fn fid(&self, fid: &[u8]) -> Option<&Fid> {
        self.fids.iter().rev().find(|f| f.fid == fid)
    }

    /// File `fid` was closed: its file transactions end.
    pub(crate) fn close_fid(&mut self, fid: &[u8]) {
        for tx in self.txs.iter_mut() {
            if let TxKind::File { fid: f, files, .. } = &mut tx.kind {
                if f == fid && !tx.done {
                    files.close_all(FileState::Closed);
                    tx.done = true;
                }
            }
        }
    }

    /// Data of file `fid` at `offset` travelling `dir`: added to the file transaction
    /// of that file and direction (opened with `command` and `ids` if there is none).
    /// Returns the transaction's id.
    pub(crate) fn file_data(
        &mut self,
        ctx: &mut AppCtx,
        dir: Direction,
        (fid, offset, data): (&[u8], u64, &[u8]),
        command: &'static str,
        ids: (u64, u32),
    ) -> u64 {
        let found = self.txs.iter().rev().find(|t| {
            !t.done
                && matches!(&t.kind, TxKind::File { fid: f, files, .. }
                    if f == fid && files.get(0).is_some_and(|x| x.direction() == dir))
        });
        let id = match found {
            Some(t) => t.id,
            None => {
                let (name, share) = self
                    .fid(fid)
                    .map(|f| (f.name.clone(), f.share.clone()))
                    .unwrap_or_default();
                let mut files = Files::default();
                files.open(&ctx.config.files, &name, dir);
                let kind = TxKind::File {
                    name,
                    share,
                    fid: fid.to_vec(),
                    files,
                    next: offset,
                };
                self.new_tx(ctx, command, ids, kind)
            }
        };
        let mut overlap = false;
        if let Some(TxKind::File { files, next, .. }) = self.tx_mut(id).map(|t| &mut t.kind) {
            let end = offset.saturating_add(data.len() as u64);
            if offset > *next {
                files.gap(0, offset - *next);
                files.append(0, data);
                *next = end;
            } else if end > *next {
                let skip = usize::try_from(*next - offset).unwrap_or(usize::MAX);
                overlap = skip > 0;
                files.append(0, &data[skip.min(data.len())..]);
                *next = end;
            } else {
                overlap = !data.is_empty();
            }
        }
        if overlap {
            raise(self, ctx, ev::FILE_OVERLAP, Some(id));
        }
        id
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;

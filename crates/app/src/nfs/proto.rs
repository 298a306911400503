//! NFS on the protocol contract: each call is a transaction, logged once answered;
//! a file transaction once its last chunk was seen (NFSv4's at the end of the flow,
//! as Suricata logs them).

use serde_json::Value;

use super::{NfsState, NfsTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Files, Transport};

/// NFS's inspection buffers: the content of the files read and written.
pub(crate) const BUFFERS: &[BufferDef] = &[BufferDef::new("file.data", None).file()];

/// The state of a new NFS flow (TCP or UDP).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    let counter = match t {
        Transport::Tcp => Counter::FlowNfsTcp,
        Transport::Udp => Counter::FlowNfsUdp,
    };
    Some((AppState::Nfs(Box::new(NfsState::new(t))), counter))
}

impl Protocol for NfsState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        NfsState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    /// A datagram that is not an RPC message of its direction is a parser error
    /// (counted); the next one is parsed as usual.
    fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) -> ParseResult {
        if self.message(ctx, dir, payload) {
            ParseResult::Ok
        } else {
            ctx.counters.incr(Counter::ErrorNfsUdp);
            ParseResult::Error
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        NfsState::gap(self, ctx, dir)
    }

    fn close(&mut self, _ctx: &mut AppCtx) {
        NfsState::close(self)
    }

    fn errored(&self) -> bool {
        NfsState::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        NfsState::events(self).each(super::EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

impl Transaction for NfsTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Nfs
    }

    /// The call is complete as it arrives; the reply side once answered (a file
    /// transaction once its file is no longer open).
    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => !self.file_tx || self.file_done(),
            Direction::ToClient => self.response.is_some() && (!self.file_tx || self.file_done()),
        }
    }

    /// Both sides are inspected from the start (the transaction exists once its call
    /// was parsed), as Suricata 7.0.10 inspects SMB's and SMTP's.
    fn started(&self, _dir: Direction) -> bool {
        true
    }

    /// The events raised on this transaction (both directions see them).
    fn tx_events(&self, _dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        self.events.each(super::EVENTS, f);
        true
    }

    fn log_ready(&self, at_end: bool) -> bool {
        if at_end {
            return true;
        }
        match (self.file_tx, self.version) {
            (true, 4) => false,
            (true, _) => self.file_done(),
            (false, _) => self.response.is_some(),
        }
    }

    fn fingerprint(&self) -> (u64, u64) {
        let status = self
            .response
            .map_or(u64::MAX, |(_, s)| s.map_or(1 << 40, u64::from));
        let size = self.io.as_ref().map_or(0, |io| io.size);
        let files = if self.file_tx {
            self.files().progress()
        } else {
            0
        };
        (mix(mix(status, size), self.more_procs.len() as u64), files)
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.def().file && self.file_tx {
            self.files().each_data(dir, f);
        }
    }

    /// `nfs_procedure` (the transaction's procedure or one a file transaction took
    /// later, a COMMIT) and `nfs.version`.
    fn check(&self, opt: &rules::AppOpt, _dir: Direction) -> bool {
        let rules::AppValue::Ints(c) = &opt.value else {
            return false;
        };
        let hit = |v: u32| c.iter().any(|c| c.matches(u64::from(v)));
        let any = match opt.name {
            "nfs_procedure" => hit(self.procedure) || self.more_procs.iter().any(|&p| hit(p)),
            "nfs.version" => hit(self.version),
            _ => return false,
        };
        any != opt.negated
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        if self.logged() {
            out(None, super::log::nfs_object(self));
        }
    }

    fn log_siblings(&self, _extended: bool) -> Vec<(&'static str, Value)> {
        vec![("rpc", super::log::rpc_object(self))]
    }

    fn alert_object(&self) -> Value {
        super::log::nfs_object(self)
    }

    fn files(&self) -> Option<&Files> {
        self.file_tx.then(|| NfsTx::files(self))
    }
}

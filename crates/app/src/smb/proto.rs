//! SMB on the protocol contract: transactions logged once answered (a file once
//! closed, a request never answered once stale, everything at the end of the flow),
//! the `smb.*` sticky buffers and the files of file transactions.

use serde_json::Value;

use super::auth::Auth;
use super::tx::{SmbTx, TxKind};
use super::SmbState;
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Files, Transport};

/// SMB's inspection buffers, in the order [`Transaction::buffers`] indexes them.
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("smb.named_pipe", Some(Direction::ToServer)),
    BufferDef::new("smb.share", Some(Direction::ToServer)),
    BufferDef::new("smb.ntlmssp_user", Some(Direction::ToServer)),
    BufferDef::new("smb.ntlmssp_domain", Some(Direction::ToServer)),
    BufferDef::new("file.data", None).file(),
];

/// The state of a new SMB flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Smb(Box::default()), Counter::FlowSmb))
}

impl Protocol for SmbState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        SmbState::parse(self, ctx, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        SmbState::gap(self, ctx, dir)
    }

    fn close(&mut self, _ctx: &mut AppCtx) {
        SmbState::close(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        SmbState::events(self).each(super::EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn each_tx_from(&self, from: u64, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().filter(|t| t.id >= from).for_each(|t| f(t))
    }

    fn each_tx_while(&self, f: &mut dyn FnMut(&dyn Transaction) -> bool) {
        for t in self.txs() {
            if !f(t) {
                break;
            }
        }
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }
}

impl Transaction for SmbTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Smb
    }

    /// The request side is complete once seen; the response side once answered (a
    /// file transaction once its file is closed).
    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => true,
            Direction::ToClient => self.done,
        }
    }

    /// Both sides are inspected from the start: Suricata 7.0.10 alerts an SMB
    /// transaction's event on the next packet of each direction (sv-ether, port 49453:
    /// a malformed response's event alerts on its own packet to the client and on the
    /// next one to the server).
    fn started(&self, _dir: Direction) -> bool {
        true
    }

    fn is_final(&self) -> bool {
        self.done || self.stale
    }

    /// The events raised on this transaction (both directions see them).
    fn tx_events(&self, _dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        self.events.each(super::EVENTS, f);
        true
    }

    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.done || self.stale
    }

    fn fingerprint(&self) -> (u64, u64) {
        let h = mix(self.id, u64::from(self.done) | u64::from(self.stale) << 1);
        let h = mix(h, self.status.as_ref().map_or(0, |s| s.1.len() as u64 + 1));
        // A DCERPC call over a pipe progresses fragment by fragment (its stub grows):
        // inspected again then, as Suricata does (smb/smb2-pipe-*-frag-stub).
        let h = match &self.kind {
            TxKind::Dcerpc { call, .. } => {
                let (ch, cb) = Transaction::fingerprint(call.as_ref());
                mix(mix(h, ch), cb)
            }
            _ => h,
        };
        let body = self.files().map_or(0, |f| {
            f.iter().fold(0, |h, x| mix(h, x.size() ^ x.state() as u64))
        });
        (h, body)
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.def().file {
            if let Some(files) = SmbTx::files(self) {
                files.each_data(dir, f);
            }
            return;
        }
        // `dcerpc.stub_data` on a call over a named pipe (Suricata's DCERPC buffers
        // also inspect SMB).
        if b.proto() == AppProto::Dcerpc {
            if let TxKind::Dcerpc { call, .. } = &self.kind {
                call.buffers(b, dir, f);
            }
            return;
        }
        match (&self.kind, b.local()) {
            (TxKind::TreeConnect { path, pipe, .. }, 0) if *pipe => f(path),
            (TxKind::TreeConnect { path, pipe, .. }, 1) if !*pipe => f(path),
            (
                TxKind::SessionSetup {
                    auth: Some(Auth::Ntlmssp(n)),
                    ..
                },
                i @ (2 | 3),
            ) => f(if i == 2 { &n.user } else { &n.domain }),
            _ => {}
        }
    }

    /// The DCERPC keywords on a call over a named pipe.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        match &self.kind {
            TxKind::Dcerpc { call, .. } => crate::dcerpc::keywords::check(call, opt, dir),
            _ => false,
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(None, super::log::smb_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::smb_object(self)
    }

    fn files(&self) -> Option<&Files> {
        SmbTx::files(self)
    }
}

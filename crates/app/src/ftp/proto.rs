//! FTP and ftp-data on the protocol contract: each command (or unsolicited reply) is
//! a transaction, logged once its final reply came (or at the end of the flow); a data
//! connection is one transaction, logged when it ends. The keywords `ftpbounce`
//! (control flow) and `ftpdata_command` (data connection) are evaluated here.

use serde_json::Value;

use super::data::FtpDataState;
use super::{FtpState, FtpTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Files, Transport};

/// ftp-data's inspection buffers: the content of the file transferred.
pub(crate) const DATA_BUFFERS: &[BufferDef] = &[BufferDef::new("file.data", None).file()];

/// The state of a new FTP control flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Ftp(Box::default()), Counter::FlowFtp))
}

/// ftp-data is never detected by probing: an expectation makes one (see
/// [`crate::AppFlow::set_peers`]). A flow forced to ftp-data (fuzzing, tests) gets a
/// data connection no control flow names (no parent, transfer never known).
pub(crate) fn new_data_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| {
        let s = FtpDataState::new(0, crate::expect::Link::default());
        (AppState::FtpData(Box::new(s)), Counter::FlowFtpData)
    })
}

impl Protocol for FtpState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        FtpState::parse(self, ctx, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        FtpState::gap(self, ctx, dir)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        FtpState::close(self, ctx)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        FtpState::take_completed(self, dir)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        FtpState::events(self).each(super::EVENTS, f)
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

impl Transaction for FtpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Ftp
    }

    /// The command side is complete once its line ended; the reply side once its
    /// final (not `1yz`) reply came.
    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => true,
            Direction::ToClient => self.done,
        }
    }

    fn fingerprint(&self) -> (u64, u64) {
        let h = mix(self.replies.len() as u64, u64::from(self.done));
        (mix(h, self.dynamic_port.map_or(u64::MAX, u64::from)), 0)
    }

    fn buffers(&self, _b: BufferId, _dir: Direction, _f: &mut dyn FnMut(&[u8])) {}

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(Some(self.id), super::log::ftp_object(self));
    }

    fn alert_object(&self) -> Value {
        super::log::ftp_object(self)
    }

    /// `ftpbounce`: a `PORT`/`EPRT` naming an address other than the client's, seen
    /// on a packet to the server (Suricata inspects the keyword in that direction
    /// only, even for a rule whose addresses fit both).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        match (&opt.value, opt.name) {
            (rules::AppValue::Flag, "ftpbounce") if dir == Direction::ToServer => {
                self.bounce != opt.negated
            }
            _ => false,
        }
    }
}

impl Protocol for FtpDataState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        FtpDataState::parse(self, ctx, dir, data);
        ParseResult::Ok
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, len: u64) {
        FtpDataState::gap(self, ctx, dir, len)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        FtpDataState::close(self, ctx)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        f(self)
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        (id == 0).then_some(self as &dyn Transaction)
    }
}

impl Transaction for FtpDataState {
    fn id(&self) -> u64 {
        0
    }

    fn proto(&self) -> AppProto {
        AppProto::FtpData
    }

    fn complete(&self, _dir: Direction) -> bool {
        self.done()
    }

    /// The first byte parsed changes it (`ftpdata_command` can match from then on:
    /// Suricata inspects the transaction again at the next packet of its direction),
    /// the end of the connection too.
    fn fingerprint(&self) -> (u64, u64) {
        (
            mix(
                u64::from(self.done()) | u64::from(self.parsed()) << 1,
                self.transfer().command.map_or(0, |c| c.len() as u64),
            ),
            FtpDataState::files(self).progress(),
        )
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.def().file {
            FtpDataState::files(self).each_data(dir, f);
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        if let Some(o) = super::log::ftp_data_object(self) {
            out(Some(0), o);
        }
    }

    fn alert_object(&self) -> Value {
        super::log::ftp_data_object(self).unwrap_or_else(|| Value::Object(Default::default()))
    }

    /// `ftpdata_command:retr|stor`, once the connection carried data, on packets of the
    /// transaction's direction (to the server for `STOR`, to the client otherwise, as
    /// Suricata inspects it).
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        match (&opt.value, opt.name) {
            (rules::AppValue::Text(c), "ftpdata_command")
                if self.parsed() && dir == self.tx_dir() =>
            {
                let is = self
                    .transfer()
                    .command
                    .is_some_and(|x| x.eq_ignore_ascii_case(c));
                is != opt.negated
            }
            _ => false,
        }
    }

    fn files(&self) -> Option<&Files> {
        Some(FtpDataState::files(self))
    }
}

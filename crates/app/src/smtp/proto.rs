//! SMTP on the protocol contract: each mail is a transaction, logged once it is
//! finished (or at the end of the flow); its one inspection buffer is `file.data`, the
//! decoded attachments (Suricata 7.0 has no `smtp.*` sticky buffers).

use serde_json::Value;

use super::{SmtpState, SmtpTx};
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Files, Transport};

/// SMTP's inspection buffers: the attachments' content.
pub(crate) const BUFFERS: &[BufferDef] = &[BufferDef::new("file.data", None).file()];

/// The state of a new SMTP flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Smtp(Box::default()), Counter::FlowSmtp))
}

impl Protocol for SmtpState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        let was = self.errored();
        SmtpState::parse(self, ctx, dir, data);
        if self.errored() {
            if !was {
                ctx.counters.incr(Counter::ErrorSmtp);
            }
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn errored(&self) -> bool {
        SmtpState::errored(self)
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        SmtpState::gap(self, ctx, dir)
    }

    fn close(&mut self, ctx: &mut AppCtx) {
        SmtpState::close(self, ctx)
    }

    fn take_completed(&mut self, dir: Direction) -> bool {
        SmtpState::take_completed(self, dir)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        SmtpState::events(self).each(super::EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        self.txs().for_each(|t| f(t))
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        self.txs()
            .find(|t| t.id == id)
            .map(|t| t as &dyn Transaction)
    }

    /// TLS, once `STARTTLS` was answered 220.
    fn switch_to(&self) -> Option<AppProto> {
        self.tls_started().then_some(AppProto::Tls)
    }

    fn take_after_switch(&mut self, dir: Direction) -> Vec<u8> {
        self.take_after_tls(dir)
    }
}

impl Transaction for SmtpTx {
    fn id(&self) -> u64 {
        self.id
    }

    fn proto(&self) -> AppProto {
        AppProto::Smtp
    }

    /// The client's side is complete once its message ended, the server's once it
    /// answered it (the transaction is then logged).
    fn complete(&self, dir: Direction) -> bool {
        match dir {
            Direction::ToServer => self.done,
            Direction::ToClient => self.answered,
        }
    }

    /// The client's side from the start, the server's once a server line was parsed
    /// for it: Suricata 7.0.10 alerts an SMTP transaction's event on the next packet
    /// of each direction once so, not once the mail is over (sv-ether, port 49601: a
    /// boundary too long alerts on packets 1346 and 1347, the mail ends at 1349), and
    /// a mail opened by a command not yet answered alerts to the client only after the
    /// answer (sv-ether, port 5555: `EHLO` parsed on packet 10788, its event alerts on
    /// 10790 to the server, on 10792 to the client).
    fn started(&self, dir: Direction) -> bool {
        dir == Direction::ToServer || self.replied
    }

    /// Logged once its message ended (when the server acknowledged it, as Suricata
    /// logs it), not waiting for the reply.
    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.done
    }

    /// The events raised on this mail (both directions see them).
    fn tx_events(&self, _dir: Direction, f: &mut dyn FnMut(&'static str)) -> bool {
        self.events.each(super::EVENTS, f);
        true
    }

    fn fingerprint(&self) -> (u64, u64) {
        let len = |x: Option<&[u8]>| x.map_or(u64::MAX, |b| b.len() as u64);
        let h = mix(len(self.helo.as_deref()), len(self.mail_from.as_deref()));
        let h = mix(h, self.rcpt_to.len() as u64);
        let h = mix(h, self.email.as_ref().map_or(u64::MAX, |e| e.status as u64));
        let h = mix(h, self.files.len() as u64);
        (
            mix(h, u64::from(self.done) | u64::from(self.answered) << 1),
            self.files.progress(),
        )
    }

    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        if b.def().file {
            self.files.each_data(dir, f);
        }
    }

    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(Some(self.id), super::log::smtp_object(self));
    }

    fn log_siblings(&self, extended: bool) -> Vec<(&'static str, Value)> {
        super::log::email_object(self, extended)
            .map(|e| vec![("email", e)])
            .unwrap_or_default()
    }

    fn files(&self) -> Option<&Files> {
        Some(&self.files)
    }

    fn alert_object(&self) -> Value {
        super::log::smtp_object(self)
    }
}

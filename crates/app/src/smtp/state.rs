//! SMTP's per-flow state machine (RFC 5321): client commands and server replies are
//! read line by line ([`super::parser`]); replies are matched with the commands they
//! answer in order (pipelining: several commands may be in flight); `DATA` content
//! runs to the `.` line, `BDAT` content for its byte count; after `STARTTLS` is
//! answered 220 the rest of the flow is TLS: the state asks for the switch and keeps
//! the bytes that followed the reply for the TLS parser.
//!
//! One transaction per mail, as Suricata 7 counts them: the first command opens one,
//! and a command other than `RSET` after a finished one (the `.` ending a `DATA`
//! message, or a rejected `DATA`) opens the next; a transaction is logged once the server answered its message, or at the end
//! of the flow. `BDAT` content is skipped (Suricata 7 neither parses it nor ends the
//! transaction with it). `EHLO`'s name is carried into every later transaction.

use std::collections::VecDeque;

use super::email::{Email, Status};
use super::events::{self as ev, raise};
use super::mime::Sink;
use super::parser::{self, LineBuf, Verb};

use crate::{AppCtx, Counter, Direction, Events, Files};

/// Commands kept waiting for their reply at most; older ones are forgotten (their
/// replies then count as unmatched).
pub const MAX_PENDING: usize = 64;

/// Recipients kept per transaction at most (more are counted, not kept).
pub const MAX_RCPT: usize = 256;

/// One mail: the session's `EHLO` name, the envelope and the message headers.
#[derive(Clone, Debug, Default)]
pub struct SmtpTx {
    pub(crate) id: u64,
    /// The `EHLO`/`HELO` argument in force.
    pub helo: Option<Vec<u8>>,
    /// The `MAIL FROM` argument.
    pub mail_from: Option<Vec<u8>>,
    /// Each `RCPT TO` argument.
    pub rcpt_to: Vec<Vec<u8>>,
    /// The message, once `DATA` or `BDAT` started one.
    pub email: Option<Email>,
    /// Its attachments.
    pub files: Files,
    /// Finished: its `DATA` message ended.
    pub done: bool,
    /// The server answered the end of its message.
    pub answered: bool,
    /// The events raised on it (indices into [`super::EVENTS`]).
    pub(crate) events: Events,
    /// A server line was parsed while it was the newest transaction.
    pub(crate) replied: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    /// Client lines are commands.
    #[default]
    Command,
    /// Client lines are message content up to `.`.
    Data,
    /// The content of a `BDAT` chunk of `len` bytes follows.
    Bdat { len: u64 },
    /// `STARTTLS` was accepted: nothing more is parsed (the bytes are kept for TLS).
    Tls,
}

/// SMTP's per-flow state.
#[derive(Clone, Debug, Default)]
pub struct SmtpState {
    lines: [LineBuf; 2],
    /// `BDAT` content bytes read in the flow (as Suricata 7 counts them: not reset
    /// between chunks).
    bdat_seen: u64,
    /// The parser failed: nothing more is parsed.
    failed: bool,
    mode: Mode,
    /// Commands waiting for their reply, with the transaction each belongs to.
    pending: VecDeque<(Verb, u64)>,
    /// The server's first reply, one that answers no command (its welcome), was
    /// seen; until then every client line is `no_server_welcome_message`.
    greeted: bool,
    helo: Option<Vec<u8>>,
    txs: VecDeque<SmtpTx>,
    next_id: u64,
    events: Events,
    completed: [bool; 2],
    /// Bytes per direction that came after the accepted `STARTTLS` (TLS's), until
    /// the flow takes them ([`SmtpState::take_after_tls`]).
    after_tls: [Vec<u8>; 2],
}

impl SmtpState {
    /// Parses in-order bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, mut data: &[u8]) {
        while !data.is_empty() {
            if self.failed {
                return;
            }
            let d = dir.index();
            if self.mode == Mode::Tls {
                self.after_tls[d].extend_from_slice(data);
                return;
            }
            let max = match (dir, self.mode) {
                (Direction::ToServer, Mode::Data) => parser::MAX_DATA_LINE,
                _ => parser::MAX_LINE,
            };
            let (n, done) = self.lines[d].feed_max(data, max);
            data = &data[n..];
            if let (Direction::ToServer, Mode::Bdat { len }) = (dir, self.mode) {
                self.bdat_seen = self.bdat_seen.saturating_add(n as u64);
                if done {
                    self.lines[d].clear();
                    self.bdat_line(ctx, len);
                }
                continue;
            }
            if done {
                // The line buffer is lent out while its line is handled (the handlers
                // do not read lines), so the line is not copied.
                let mut buf = std::mem::take(&mut self.lines[d]);
                let line = buf.line_max(max);
                match dir {
                    Direction::ToServer => self.client_line(ctx, line.text, line.truncated),
                    Direction::ToClient => self.server_line(ctx, line.text, line.truncated),
                }
                buf.clear();
                self.lines[d] = buf;
            }
        }
    }

    /// A hole in one direction: partial lines are dropped and a message in progress
    /// is marked as not parsed.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.lines[dir.index()].clear();
        if dir == Direction::ToServer && matches!(self.mode, Mode::Data | Mode::Bdat { .. }) {
            self.mime(ctx, |e, sink| {
                e.cut(sink);
                e.status = Status::ParseError;
            });
        }
    }

    /// The flow ended: the attachments of a message in progress are truncated.
    pub fn close(&mut self, ctx: &mut AppCtx) {
        if self.mode == Mode::Data && !self.failed {
            self.mime(ctx, |e, sink| e.cut(sink));
        }
    }

    /// Runs `f` on the message of the newest transaction with what its MIME parser
    /// writes to, then raises the events it reported.
    fn mime(&mut self, ctx: &mut AppCtx, f: impl FnOnce(&mut Email, &mut Sink<'_>)) {
        let Some(tx) = self.txs.back_mut() else {
            return;
        };
        let id = tx.id;
        let Some(email) = tx.email.as_mut() else {
            return;
        };
        let mut raised = Vec::new();
        let mut sink = Sink {
            cfg: &ctx.config.smtp_mime,
            files_cfg: &ctx.config.files,
            files: &mut tx.files,
            events: &mut raised,
        };
        f(email, &mut sink);
        for i in raised {
            self.raise(ctx, i, Some(id));
        }
    }

    /// Whether `STARTTLS` was accepted: the rest of the flow is TLS.
    pub fn tls_started(&self) -> bool {
        self.mode == Mode::Tls
    }

    /// The bytes of `dir` parsed since `STARTTLS` was accepted (the start of TLS).
    pub fn take_after_tls(&mut self, dir: Direction) -> Vec<u8> {
        std::mem::take(&mut self.after_tls[dir.index()])
    }

    /// The flow's events.
    pub fn events(&self) -> Events {
        self.events
    }

    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &SmtpTx> {
        self.txs.iter()
    }

    /// Whether a message of `dir` completed since the last call.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        std::mem::take(&mut self.completed[dir.index()])
    }

    /// Raises event `i` on transaction `tx` (`None`: before the first one, an event
    /// no rule sees) and in the flow's set.
    fn raise(&mut self, ctx: &mut AppCtx, i: usize, tx: Option<u64>) {
        if let Some(t) = tx.and_then(|id| self.txs.iter_mut().rev().find(|t| t.id == id)) {
            t.events.raise(i);
        }
        raise(&mut self.events, ctx, i, tx);
    }

    fn current_id(&self) -> Option<u64> {
        self.txs.back().map(|t| t.id)
    }

    /// The transaction a command belongs to: the open one, or a new one.
    fn tx(&mut self, ctx: &mut AppCtx) -> &mut SmtpTx {
        if self.txs.back().is_none_or(|t| t.done) {
            let tx = SmtpTx {
                id: self.next_id,
                helo: self.helo.clone(),
                ..SmtpTx::default()
            };
            self.next_id += 1;
            ctx.counters.incr(Counter::TxSmtp);
            self.txs.push_back(tx);
            while self.txs.len() > ctx.config.max_tx.max(1) {
                self.txs.pop_front();
                ctx.counters.incr(Counter::TxLimit);
            }
        }
        self.txs.back_mut().expect("a transaction was just made")
    }

    /// A client line (`truncated`: cut at the line limit; a long message line is
    /// not reported, as Suricata leaves those to its MIME parser).
    fn client_line(&mut self, ctx: &mut AppCtx, text: &[u8], truncated: bool) {
        if self.mode == Mode::Data {
            if !self.greeted {
                let tx = self.current_id();
                self.raise(ctx, ev::NO_SERVER_WELCOME_MESSAGE, tx);
            }
            return self.data_line(ctx, text, truncated);
        }
        let cmd = parser::command(text);
        // `RSET` after a finished mail stays with it (as Suricata counts them).
        let tx = match self.txs.back_mut() {
            Some(t) if cmd.verb == Verb::Rset => t,
            _ => self.tx(ctx),
        };
        let id = tx.id;
        let mut duplicate = false;
        let mut verb = cmd.verb;
        match cmd.verb {
            // A name-less `EHLO` keeps the name in force.
            Verb::Helo if cmd.arg.is_empty() => {}
            Verb::Helo => {
                tx.helo = Some(cmd.arg.to_vec());
                self.helo = Some(cmd.arg.to_vec());
            }
            Verb::MailFrom if tx.mail_from.is_some() => duplicate = true,
            Verb::MailFrom => tx.mail_from = Some(parser::path(cmd.arg).to_vec()),
            Verb::RcptTo if tx.rcpt_to.len() < MAX_RCPT => {
                tx.rcpt_to.push(parser::path(cmd.arg).to_vec())
            }
            Verb::RcptTo => {}
            Verb::Data => {
                tx.email = Some(Email::default());
                self.mode = Mode::Data;
            }
            Verb::Bdat => match parser::bdat_arg(cmd.arg) {
                Some((len, _last)) if len > 0 => self.mode = Mode::Bdat { len },
                Some(_) => {}
                None => verb = Verb::Other,
            },
            Verb::Rset | Verb::Quit | Verb::StartTls | Verb::Other | Verb::DataEnd => {}
        }
        // Suricata reports each client line before the server's welcome.
        if !self.greeted {
            self.raise(ctx, ev::NO_SERVER_WELCOME_MESSAGE, Some(id));
        }
        if truncated {
            self.raise(ctx, ev::TRUNCATED_LINE, Some(id));
        }
        if duplicate {
            self.raise(ctx, ev::DUPLICATE_FIELDS, Some(id));
        }
        self.push_pending(verb, id);
    }

    fn push_pending(&mut self, verb: Verb, tx: u64) {
        if self.pending.len() == MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((verb, tx));
    }

    fn data_line(&mut self, ctx: &mut AppCtx, text: &[u8], truncated: bool) {
        if text == b"." {
            self.mode = Mode::Command;
            self.mime(ctx, |e, sink| e.done(sink));
            self.end_message();
            // The server answers the end of the message.
            if let Some(id) = self.current_id() {
                self.push_pending(Verb::DataEnd, id);
            }
            return;
        }
        let text = text.strip_prefix(b".").unwrap_or(text);
        self.mime(ctx, |e, sink| e.line(text, truncated, sink));
    }

    fn end_message(&mut self) {
        if let Some(tx) = self.txs.back_mut() {
            tx.done = true;
        }
        self.completed[0] = true;
    }

    /// A line of `BDAT` content (skipped). Suricata 7 reads chunks line by line and
    /// counts their bytes over the flow: the chunk is over when the count reaches its
    /// length; a count past it (a line across the chunk's end, or any later chunk
    /// after a first one) is `bdat_chunk_len_exceeded`, and its parser fails.
    fn bdat_line(&mut self, ctx: &mut AppCtx, len: u64) {
        if self.bdat_seen == len {
            self.mode = Mode::Command;
        } else if self.bdat_seen > len {
            let tx = self.current_id();
            self.raise(ctx, ev::BDAT_CHUNK_LEN_EXCEEDED, tx);
            self.fail();
        }
    }

    /// The parser fails: nothing more is parsed, and the transactions are over.
    fn fail(&mut self) {
        self.failed = true;
        for t in &mut self.txs {
            t.done = true;
            t.files.close_all(crate::FileState::Truncated);
        }
        self.completed = [true, true];
    }

    /// Whether the parser failed.
    pub fn errored(&self) -> bool {
        self.failed
    }

    fn server_line(&mut self, ctx: &mut AppCtx, text: &[u8], truncated: bool) {
        if let Some(t) = self.txs.back_mut() {
            t.replied = true;
        }
        let tx = self.current_id();
        if truncated {
            self.raise(ctx, ev::TRUNCATED_LINE, tx);
        }
        // A line that is not a reply, or a code no SMTP extension Suricata knows
        // defines, fails the parser.
        let Some(reply) = parser::reply(text).filter(|r| parser::known_code(r.code)) else {
            self.raise(ctx, ev::INVALID_REPLY, tx);
            self.fail();
            return;
        };
        if reply.more {
            return;
        }
        // A reply that answers no command: the first is the server's welcome (an
        // invalid reply unless its code is 220); a later one is ignored (Suricata 7
        // raises no event for it).
        let Some((verb, id)) = self.pending.pop_front() else {
            if !self.greeted {
                self.greeted = true;
                if reply.code != 220 {
                    self.raise(ctx, ev::INVALID_REPLY, tx);
                }
            }
            return;
        };
        match verb {
            Verb::Data if reply.code != 354 => {
                self.raise(ctx, ev::DATA_COMMAND_REJECTED, tx);
                if self.mode == Mode::Data {
                    self.mode = Mode::Command;
                }
                // The mail is over: the next command opens another transaction.
                if let Some(t) = self.txs.iter_mut().find(|t| t.id == id) {
                    t.done = true;
                    t.files.close_all(crate::FileState::Truncated);
                    self.completed[0] = true;
                }
            }
            Verb::StartTls if reply.code == 220 => self.mode = Mode::Tls,
            Verb::StartTls => self.raise(ctx, ev::TLS_REJECTED, tx),
            Verb::DataEnd => {
                if let Some(t) = self.txs.iter_mut().find(|t| t.id == id) {
                    t.answered = true;
                }
            }
            _ => {}
        }
        self.completed[1] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AppCtx;

    fn run(pairs: &[(Direction, &[u8])]) -> (SmtpState, AppCtx) {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = SmtpState::default();
        for (d, b) in pairs {
            s.parse(&mut ctx, *d, b);
        }
        (s, ctx)
    }

    const C: Direction = Direction::ToServer;
    const S: Direction = Direction::ToClient;

    #[test]
    fn a_mail_then_quit_is_two_transactions() {
        // The session of sv-ether.pcap's flow 88.191.140.111:51906 -> 188.125.69.79:25,
        // shortened.
        let (s, ctx) = run(&[
            (S, b"220 smtp.mail.yahoo.com ESMTP ready\r\n"),
            (C, b"EHLO sd-26634.localdomain\r\n"),
            (
                S,
                b"250-smtp.mail.yahoo.com\r\n250-PIPELINING\r\n250 8BITMIME\r\n",
            ),
            // Pipelined envelope.
            (
                C,
                b"MAIL FROM:<rmkml@yahoo.fr> SIZE=525\r\nRCPT TO:<rmkml@yahoo.fr>\r\nDATA\r\n",
            ),
            (S, b"250 OK\r\n250 OK\r\n354 go\r\n"),
            (
                C,
                b"From: rmkml <rmkml@yahoo.fr>\r\nTo: rmkml@yahoo.fr\r\n\r\nbody\r\n..x\r\n.\r\n",
            ),
            (S, b"250 queued\r\n"),
            (C, b"QUIT\r\n"),
            (S, b"221 bye\r\n"),
        ]);
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 2);
        assert_eq!(txs[0].helo.as_deref(), Some(&b"sd-26634.localdomain"[..]));
        assert_eq!(txs[0].mail_from.as_deref(), Some(&b"<rmkml@yahoo.fr>"[..]));
        assert_eq!(txs[0].rcpt_to, [b"<rmkml@yahoo.fr>".to_vec()]);
        let e = txs[0].email.as_ref().unwrap();
        assert_eq!(e.status.name(), "PARSE_DONE");
        assert_eq!(e.from.as_deref(), Some(&b"rmkml <rmkml@yahoo.fr>"[..]));
        // Ended and answered; the `QUIT` transaction waits for the end of the flow.
        assert!(txs[0].done && txs[0].answered);
        assert!(!txs[1].done);
        assert_eq!(txs[1].helo.as_deref(), Some(&b"sd-26634.localdomain"[..]));
        assert!(txs[1].mail_from.is_none());
        assert!(s.events().is_empty());
        assert!(ctx.anomalies.is_empty());
        assert_eq!(ctx.counters.get(Counter::TxSmtp), 2);
    }

    #[test]
    fn protocol_errors_raise_their_events() {
        let (s, mut ctx) = run(&[
            (C, b"EHLO x\r\n"),
            (S, b"250 hi\r\n"),
            (C, b"MAIL FROM:<a@b>\r\nMAIL FROM:<c@d>\r\nDATA\r\n"),
            (S, b"250 ok\r\n250 ok\r\n554 no valid recipients\r\n"),
            (C, b"RSET\r\n"),
            (S, b"250 ok\r\n251 extra\r\n"),
        ]);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        // Suricata 7.0.10 on this conversation (a capture of it): each client line
        // before a welcome is reported, the extra reply is the welcome it never got
        // (an invalid one: not 220).
        assert_eq!(
            got,
            [
                "smtp.no_server_welcome_message",
                "smtp.no_server_welcome_message",
                "smtp.no_server_welcome_message",
                "smtp.duplicate_fields",
                "smtp.no_server_welcome_message",
                "smtp.data_command_rejected",
                "smtp.no_server_welcome_message",
                "smtp.invalid_reply",
            ]
        );
        // After the rejected DATA, RSET is a command again, of the finished mail.
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 1);
        assert!(txs[0].done);
        assert_eq!(txs[0].mail_from.as_deref(), Some(&b"<a@b>"[..]));
        assert!(s.pending.is_empty() && !s.errored());
    }

    #[test]
    fn events_belong_to_their_mail() {
        use crate::Transaction;
        let (s, _) = run(&[
            (S, b"220 hi\r\n"),
            (C, b"MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n"),
            (S, b"250 ok\r\n250 ok\r\n354 go\r\n"),
            (C, b"x\r\n.\r\n"),
            (S, b"250 queued\r\n"),
            (C, b"MAIL FROM:<a@b>\r\nMAIL FROM:<c@d>\r\n"),
        ]);
        let events = |t: &SmtpTx, dir| {
            let mut v = Vec::new();
            assert!(t.tx_events(dir, &mut |e| v.push(e)));
            v
        };
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 2);
        // The second mail's duplicate MAIL FROM is its own: the first mail (done)
        // does not see it, and the second is inspected before it is over.
        for dir in [C, S] {
            assert!(events(txs[0], dir).is_empty());
            assert_eq!(events(txs[1], dir), ["smtp.duplicate_fields"]);
            assert!(!txs[1].complete(dir));
        }
        // The second mail's commands are not answered yet: rules inspecting the
        // server's side wait for a reply.
        assert!(txs[1].started(C) && !txs[1].started(S));
        assert!(txs[0].started(S));
        let mut flow = Vec::new();
        s.events().each(super::super::EVENTS, &mut |e| flow.push(e));
        assert_eq!(flow, ["smtp.duplicate_fields"]);
    }

    #[test]
    fn a_reply_code_smtp_does_not_define_fails_the_parser() {
        // sv-ether.pcap, flow 10.7.29.101:49740: `472` to MAIL FROM.
        let (s, mut ctx) = run(&[
            (S, b"220 mx01 ESMTP\r\n"),
            (
                C,
                b"EHLO a\r\nMAIL FROM: <u@d.com> \r\nRCPT TO:<s@f>\r\nDATA\r\n",
            ),
            (
                S,
                b"250 hi\r\n472 u@d.com DNS A-record is empty\r\n501 Unknown command\r\n",
            ),
            (C, b"QUIT\r\n"),
        ]);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        assert_eq!(got, ["smtp.invalid_reply"]);
        assert!(s.errored());
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 1);
        assert!(txs[0].done, "logged when the parser fails");
        assert_eq!(s.mode, Mode::Data, "nothing parsed after the failure");
    }

    #[test]
    fn bdat_chunks_are_skipped_and_starttls_ends_parsing() {
        // As sv-ether.pcap's flow 172.18.0.1:37298: a `BDAT` message neither ends the
        // transaction nor has an `email`.
        let (s, mut ctx) = run(&[
            (S, b"220 hi\r\n"),
            (
                C,
                b"EHLO x\r\nMAIL FROM:<a@b>\r\nBDAT 21 LAST\r\nSubject: one\r\nTo: ",
            ),
            (C, b"a\r\n"),
            (
                C,
                b"MAIL FROM:<c@d>\r\nRCPT TO:<e@f> NOTIFY=NEVER\r\nSTARTTLS\r\n",
            ),
            (
                S,
                b"250 a\r\n250 b\r\n250 c\r\n250 d\r\n250 e\r\n220 go ahead\r\n",
            ),
            (
                C,
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\nQUIT\r\n",
            ),
            (S, b"garbage\r\n"),
        ]);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        assert_eq!(got, ["smtp.duplicate_fields"]);
        assert_eq!(s.mode, Mode::Tls);
        assert!(s.tls_started());
        assert!(!s.errored());
        let mut s = s;
        let hello = s.take_after_tls(C);
        assert!(hello.starts_with(b"\x16\x03\x01") && hello.ends_with(b"QUIT\r\n"));
        assert_eq!(s.take_after_tls(S), b"garbage\r\n");
        assert!(s.take_after_tls(C).is_empty());
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 1);
        assert!(txs[0].email.is_none() && !txs[0].done);
        assert_eq!(txs[0].mail_from.as_deref(), Some(&b"<a@b>"[..]));
        assert_eq!(txs[0].rcpt_to, [b"<e@f>".to_vec()]);
        assert!(s.pending.is_empty());
    }

    #[test]
    fn a_second_bdat_chunk_exceeds_its_length_and_fails_the_parser() {
        // sv-ether.pcap, flow 10.0.0.1:40000: two exact chunks; Suricata 7 counts the
        // bytes over both, so the second exceeds its 44.
        let (s, mut ctx) = run(&[
            (S, b"220 hi\r\n"),
            (C, b"EHLO x\r\nMAIL FROM:<a@b>\r\n"),
            (C, b"BDAT 79\r\nSubject: first mail chunk one\r\nFrom: a@example.com\r\n\r\nbody-part-one-padding-1\r\n"),
            (C, b"BDAT 44 LAST\r\nbody-part-two GOODCHUNK padding-x\r\ntail-42\r\n"),
            (C, b"MAIL FROM:<evil@example.com>\r\n"),
        ]);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        assert_eq!(got, ["smtp.bdat_chunk_len_exceeded"]);
        assert!(s.errored());
        let txs: Vec<_> = s.txs().collect();
        assert_eq!(txs.len(), 1);
        assert!(txs[0].done);
        assert_eq!(txs[0].mail_from.as_deref(), Some(&b"<a@b>"[..]));
    }

    #[test]
    fn a_gap_in_a_message_is_a_parse_error() {
        let (mut s, mut ctx) = run(&[
            (S, b"220 hi\r\n"),
            (C, b"EHLO x\r\nMAIL FROM:<a@b>\r\nDATA\r\n"),
            (S, b"250 a\r\n250 b\r\n354 go\r\n"),
            (C, b"From: a@b\r\nSubj"),
        ]);
        s.gap(&mut ctx, C);
        s.parse(&mut ctx, C, b"more body\r\n.\r\n");
        let e = s.txs().next().unwrap().email.clone().unwrap();
        assert_eq!(e.status.name(), "PARSE_ERROR", "the end does not undo it");
        assert!(s.txs().next().unwrap().done);
        let (mut s, mut ctx) = run(&[(C, b"EHLO x\r\nDATA\r\nFrom: a@b\r\n")]);
        s.gap(&mut ctx, C);
        let e = s.txs().next().unwrap().email.clone().unwrap();
        assert_eq!(e.status.name(), "PARSE_ERROR");
        assert_eq!(ctx.counters.get(Counter::Gap), 1);
    }

    #[test]
    fn long_lines_are_cut_and_reported() {
        let mut long = b"EHLO ".to_vec();
        long.extend(std::iter::repeat_n(b'a', parser::MAX_LINE + 10));
        long.extend_from_slice(b"\r\n");
        let (s, mut ctx) = run(&[(S, b"220 x\r\n"), (C, &long)]);
        let got: Vec<_> = ctx.anomalies.drain().map(|a| a.event).collect();
        assert_eq!(got, ["smtp.truncated_line"]);
        let helo = s.txs().next().unwrap().helo.clone().unwrap();
        assert_eq!(helo.len(), parser::MAX_LINE - 5);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut ctx = AppCtx::default();
        let mut s = SmtpState::default();
        let mut x: u32 = 12345;
        for i in 0..2000 {
            let mut b = Vec::new();
            for _ in 0..(i % 97) {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                b.push(match x >> 28 {
                    0 => b'\n',
                    1 => b'.',
                    2..=4 => b"BDAT 3 DATA 354 220 RSET\r\n"[(x as usize >> 8) % 26],
                    _ => (x >> 16) as u8,
                });
            }
            let d = if i % 3 == 0 { S } else { C };
            s.parse(&mut ctx, d, &b);
        }
        assert!(s.txs().count() <= ctx.config.max_tx.max(1));
    }
}

//! FTP's control-channel state machine. Client lines that start with a known command
//! each open a transaction; server reply lines are handed out as Suricata 7 does: a
//! line goes to the oldest transaction still waiting for its reply (a `1yz` preliminary
//! reply leaves it waiting), else to the transaction the same chunk of server bytes
//! last went to, else (replies nobody asked for, the greeting) to a new transaction.
//! Blank reply lines are not kept.
//!
//! `PORT`/`EPRT` commands and `227`/`229` replies name the next data connection; the
//! next transfer command uses it, and a `RETR` or `STOR` announces it (with the file
//! name) in the shared [`Expectations`](crate::expect::Expectations) table, as
//! Suricata 7 does (a listing's connection is not an ftp-data flow). After `AUTH TLS`
//! (or `AUTH SSL`) is accepted with `234` the rest of the flow is encrypted and is not
//! parsed.

use std::collections::VecDeque;
use std::net::IpAddr;

use super::events::{self as ev, raise};
use super::parser;
use crate::expect::{Expectation, Key, Link, Transfer};
use crate::{AppCtx, Counter, Direction, Events};

/// Bytes kept of one line; the rest of a longer line is dropped (Suricata's default
/// `max-line-length`, 4 KiB) and the line marked truncated.
pub const MAX_LINE: usize = 4096;

/// Reply lines kept per transaction; more are counted and dropped.
pub const MAX_REPLIES: usize = 1024;

/// The commands that use the data connection.
const TRANSFERS: &[&str] = &["RETR", "STOR", "APPE", "STOU", "LIST", "NLST", "MLSD"];

/// One reply line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyLine {
    /// Its completion code.
    pub code: Option<[u8; 3]>,
    /// Its text (after the code).
    pub text: Vec<u8>,
}

/// One command (or unsolicited reply) with its replies.
#[derive(Clone, Debug, Default)]
pub struct FtpTx {
    pub(crate) id: u64,
    /// The command, if the transaction has one.
    pub command: Option<&'static str>,
    /// What follows the command.
    pub command_data: Option<Vec<u8>>,
    /// The command line was longer than [`MAX_LINE`].
    pub command_truncated: bool,
    /// The reply lines.
    pub replies: Vec<ReplyLine>,
    /// A reply line was longer than [`MAX_LINE`].
    pub reply_truncated: bool,
    /// The data port a `PORT`/`EPRT` command or a `227`/`229` reply announced.
    pub dynamic_port: Option<u16>,
    /// Active mode (`PORT`, `EPRT`).
    pub active: bool,
    /// A `PORT`/`EPRT` to an address other than the client's (an FTP bounce).
    pub bounce: bool,
    /// Its final reply came.
    pub done: bool,
}

/// The addresses of the flow and its EVE `flow_id`, given by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peers {
    /// The control flow's `flow_id`.
    pub flow_id: u64,
    /// The client's address.
    pub client: IpAddr,
    /// The server's address.
    pub server: IpAddr,
}

/// A line being read in one direction.
#[derive(Clone, Debug, Default)]
struct Line {
    buf: Vec<u8>,
    /// The line passed [`MAX_LINE`]: the rest up to its end is dropped.
    over: bool,
}

/// FTP's per-flow state.
#[derive(Clone, Debug, Default)]
pub struct FtpState {
    txs: VecDeque<FtpTx>,
    next_id: u64,
    lines: [Line; 2],
    events: Events,
    pub(crate) peers: Option<Peers>,
    /// The data connection named last (and whether passive), waiting for its transfer
    /// command.
    pending: Option<(Key, bool)>,
    /// `AUTH TLS` was accepted: the rest is encrypted.
    encrypted: bool,
    /// An `AUTH` command waits for its reply.
    auth_pending: bool,
}

impl FtpState {
    /// The live transactions, oldest first.
    pub fn txs(&self) -> impl Iterator<Item = &FtpTx> {
        self.txs.iter()
    }

    /// The events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the rest of the flow is encrypted (`AUTH TLS` accepted).
    pub fn encrypted(&self) -> bool {
        self.encrypted
    }

    /// Bytes this state holds (itself, its transactions, unfinished lines): its share
    /// of `ftp.memuse` (see [`crate::memcap`]).
    pub fn heap_bytes(&self) -> usize {
        let tx = |t: &FtpTx| {
            t.command_data.as_ref().map_or(0, Vec::capacity)
                + crate::memcap::vec_bytes(&t.replies)
                + t.replies.iter().map(|r| r.text.capacity()).sum::<usize>()
        };
        std::mem::size_of::<FtpState>()
            + self.txs.capacity() * std::mem::size_of::<FtpTx>()
            + self.txs.iter().map(tx).sum::<usize>()
            + self.lines.iter().map(|l| l.buf.capacity()).sum::<usize>()
    }

    /// Stream bytes of one direction: each complete line is handled; the server's
    /// lines of one call form one chunk (see the module docs).
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let mut last = None;
        let mut rest = data;
        while !rest.is_empty() && !self.encrypted {
            let (part, end) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            let line = &mut self.lines[dir.index()];
            let room = MAX_LINE.saturating_sub(line.buf.len());
            if part.len() > room && !line.over {
                line.over = true;
                let e = match dir {
                    Direction::ToServer => ev::REQUEST_COMMAND_TOO_LONG,
                    Direction::ToClient => ev::RESPONSE_COMMAND_TOO_LONG,
                };
                let tx = self.txs.back().map(|t| t.id);
                raise(&mut self.events, ctx, e, tx);
                if dir == Direction::ToServer {
                    ctx.counters.incr(Counter::ErrorFtp);
                }
            }
            let line = &mut self.lines[dir.index()];
            line.buf.extend_from_slice(&part[..part.len().min(room)]);
            let Some(end) = end else { break };
            rest = &rest[end..];
            let mut l = std::mem::take(line);
            if l.buf.last() == Some(&b'\r') {
                l.buf.pop();
            }
            match dir {
                Direction::ToServer => self.command(ctx, &l.buf, l.over),
                Direction::ToClient => last = self.reply(ctx, &l.buf, l.over, last),
            }
        }
    }

    /// A hole in one direction: its partial line is dropped.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        self.lines[dir.index()] = Line::default();
    }

    /// The flow ended: its announced data connections that never came are forgotten.
    pub fn close(&mut self, ctx: &mut AppCtx) {
        if let Some(p) = self.peers {
            ctx.config.expectations.forget(p.flow_id);
        }
    }

    /// Whether raw stream inspection of `dir` is due: never on a line, as Suricata's
    /// FTP parser does not ask for it (raw content rules see an FTP flow's bytes at
    /// chunk size or at its end: sv-ether's IRC session 1049 -> 6667, detected as FTP
    /// by its `USER` line, alerts at the end of the flow in Suricata 7.0.10).
    pub fn take_completed(&mut self, _dir: Direction) -> bool {
        false
    }

    fn push(&mut self, ctx: &mut AppCtx, tx: FtpTx) -> usize {
        self.next_id += 1;
        ctx.counters.incr(Counter::TxFtp);
        self.txs.push_back(tx);
        while self.txs.len() > ctx.config.max_tx.max(1) {
            self.txs.pop_front();
            ctx.counters.incr(Counter::TxLimit);
        }
        self.txs.len() - 1
    }

    fn command(&mut self, ctx: &mut AppCtx, line: &[u8], truncated: bool) {
        let Some(c) = parser::command(line) else {
            return;
        };
        let mut tx = FtpTx {
            id: self.next_id,
            command: Some(c.name),
            command_data: c.data.map(<[u8]>::to_vec),
            command_truncated: truncated,
            ..FtpTx::default()
        };
        let data = c.data.unwrap_or_default();
        match c.name {
            "PORT" => {
                // Suricata announces a data connection for `PORT` in capitals only, and
                // judges a bounce by the address even when the port is not valid.
                let expect = line.starts_with(b"PORT");
                if let Some((ip, port)) = parser::port_command(data) {
                    self.active(&mut tx, IpAddr::from(ip), port, expect);
                } else if let (Some(ip), Some(p)) = (parser::port_address(data), self.peers) {
                    tx.bounce = IpAddr::from(ip) != p.client;
                }
            }
            "EPRT" => {
                if let Some((ip, port)) = parser::eprt_command(data) {
                    self.active(&mut tx, ip, port, true);
                }
            }
            "AUTH" => self.auth_pending = true,
            name if TRANSFERS.contains(&name) => {
                let pending = self.pending.take();
                if let (Some((key, passive)), "RETR" | "STOR") = (pending, name) {
                    let t = Transfer {
                        command: Some(name),
                        filename: c.data.map(<[u8]>::to_vec),
                        passive,
                    };
                    self.announce(ctx, key, t);
                }
            }
            _ => {}
        }
        self.push(ctx, tx);
    }

    /// A `PORT`/`EPRT` to `ip`:`port`: the server will connect to the client there
    /// (announced when `expect`).
    fn active(&mut self, tx: &mut FtpTx, ip: IpAddr, port: u16, expect: bool) {
        tx.dynamic_port = Some(port);
        tx.active = true;
        if let Some(p) = self.peers {
            tx.bounce = ip != p.client;
            if !expect {
                return;
            }
            let key = Key {
                client: p.server,
                server: p.client,
                port,
            };
            self.pending = Some((key, false));
        }
    }

    fn announce(&mut self, ctx: &mut AppCtx, key: Key, t: Transfer) {
        let Some(p) = self.peers else { return };
        ctx.config.expectations.expect(Expectation {
            key,
            parent: p.flow_id,
            link: Link::new(std::sync::Mutex::new(t)),
        });
        for _ in 0..ctx.config.expectations.take_evicted() {
            ctx.counters.incr(Counter::FtpExpectDropped);
        }
    }

    /// A server line; `last`: the transaction this chunk's previous line went to.
    fn reply(
        &mut self,
        ctx: &mut AppCtx,
        line: &[u8],
        truncated: bool,
        last: Option<u64>,
    ) -> Option<u64> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return last;
        }
        let i = match self.txs.iter().position(|t| !t.done) {
            Some(i) => i,
            None => match last.and_then(|id| self.txs.iter().position(|t| t.id == id)) {
                Some(i) => i,
                None => {
                    let tx = FtpTx {
                        id: self.next_id,
                        ..FtpTx::default()
                    };
                    self.push(ctx, tx)
                }
            },
        };
        let r = parser::reply(line);
        let tx = &mut self.txs[i];
        let id = tx.id;
        if tx.replies.len() < MAX_REPLIES {
            tx.replies.push(ReplyLine {
                code: r.code,
                text: r.text.to_vec(),
            });
        } else {
            ctx.counters.incr(Counter::TxLimit);
        }
        tx.reply_truncated |= truncated;
        if !r.preliminary() {
            tx.done = true;
        }
        let port = match (tx.command, r.number()) {
            (Some("PASV"), Some(227)) => parser::pasv_reply(r.text),
            (Some("EPSV"), Some(229)) => parser::epsv_reply(r.text),
            _ => None,
        };
        let auth = tx.command == Some("AUTH");
        if let Some(port) = port {
            tx.dynamic_port = Some(port);
            if let Some(p) = self.peers {
                let key = Key {
                    client: p.client,
                    server: p.server,
                    port,
                };
                self.pending = Some((key, true));
            }
        }
        if auth && self.auth_pending {
            self.auth_pending = false;
            if r.number() == Some(234) {
                self.encrypted = true;
            }
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect;
    use crate::AppCtx;

    fn peers() -> Peers {
        Peers {
            flow_id: 42,
            client: "192.168.1.2".parse().unwrap(),
            server: "147.234.1.253".parse().unwrap(),
        }
    }

    fn codes(t: &FtpTx) -> Vec<Option<[u8; 3]>> {
        t.replies.iter().map(|r| r.code).collect()
    }

    #[test]
    fn proftpd_session_as_suricata_splits_it() {
        // sv-ether.pcap's flow 192.168.1.2:2720 -> 147.234.1.253:21 (ProFTPD), server
        // bytes in the chunks Suricata parses them in (each acknowledged at once).
        let mut ctx = AppCtx::default();
        let mut s = FtpState {
            peers: Some(peers()),
            ..FtpState::default()
        };
        use Direction::{ToClient as C, ToServer as S};
        let turns: &[(Direction, &[u8])] = &[
            (
                C,
                b"220 ProFTPD Server In ECI Telecom (ftp.ecitele.com) \r\n",
            ),
            (S, b"USER anonymous\r\n"),
            (
                C,
                b"331 Anonymous login ok, send your complete email address as your password.\r\n",
            ),
            (S, b"PASS d0xa!\r\n"),
            (C, b"230-Welcome To ECI FTP Server\r\n \r\n"),
            (C, b" \r\n /pub\t\t-> Public Folder. \r\n"),
            (
                C,
                b" \t\t   ECI users can do everything\r\n \t\t   Others can only read\r\n",
            ),
            (C, b"230 Guest access granted for anonymous.\r\n"),
            (S, b"TYPE I\r\n"),
            (C, b"200 Type set to I\r\n"),
            (S, b"PASV\r\n"),
            (C, b"227 Entering Passive Mode (147,234,1,253,230,119).\r\n"),
            (S, b"RETR SiteStat.xml\r\n"),
            (C, b"550 SiteStat.xml: No such file or directory\r\n"),
            (S, b"QUIT\r\n"),
            (C, b"221 Goodbye.\r\n"),
        ];
        for (d, b) in turns {
            s.parse(&mut ctx, *d, b);
        }
        let txs: Vec<&FtpTx> = s.txs().collect();
        assert_eq!(txs.len(), 10);
        assert_eq!((txs[0].command, codes(txs[0])), (None, vec![Some(*b"220")]));
        assert_eq!(
            txs[0].replies[0].text,
            b"ProFTPD Server In ECI Telecom (ftp.ecitele.com) "
        );
        assert_eq!(txs[1].command_data.as_deref(), Some(&b"anonymous"[..]));
        assert_eq!(txs[2].replies.len(), 1, "the blank line is not kept");
        assert_eq!(txs[3].replies[0].text, b" /pub\t\t-> Public Folder. ");
        assert_eq!(txs[4].replies.len(), 2, "one chunk, one transaction");
        assert_eq!(txs[5].command, None);
        assert_eq!(txs[7].command, Some("PASV"));
        assert_eq!(txs[7].dynamic_port, Some(58999));
        assert!(!txs[7].active);
        assert!(txs.iter().all(|t| t.done));
        assert_eq!(ctx.counters.get(Counter::TxFtp), 10);
        // The PASV announced 192.168.1.2 -> 147.234.1.253:58999; RETR named it.
        let e = ctx
            .config
            .expectations
            .take(peers().client, peers().server, 58999)
            .unwrap();
        assert_eq!(e.parent, 42);
        let t = expect::read(&e.link);
        assert_eq!(t.command, Some("RETR"));
        assert_eq!(t.filename.as_deref(), Some(&b"SiteStat.xml"[..]));
        assert!(t.passive);
    }

    #[test]
    fn active_mode_preliminary_replies_and_bounce() {
        // sv-ether.pcap's flow 192.168.0.13:59898 -> 192.168.0.10:21 (vsftpd).
        let mut ctx = AppCtx::default();
        let p = Peers {
            flow_id: 1,
            client: "192.168.0.13".parse().unwrap(),
            server: "192.168.0.10".parse().unwrap(),
        };
        let mut s = FtpState {
            peers: Some(p),
            ..FtpState::default()
        };
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"PORT 192,168,0,13,234,10\r\n",
        );
        s.parse(
            &mut ctx,
            Direction::ToClient,
            b"200 PORT command successful. Consider using PASV.\r\n",
        );
        s.parse(&mut ctx, Direction::ToServer, b"NLST\r\n");
        s.parse(
            &mut ctx,
            Direction::ToClient,
            b"150 Here comes the directory listing.\r\n",
        );
        assert!(!s.txs().last().unwrap().done, "150 is preliminary");
        s.parse(&mut ctx, Direction::ToClient, b"226 Directory send OK.\r\n");
        s.parse(&mut ctx, Direction::ToServer, b"PORT 10,0,0,9,0,21\r\n");
        let txs: Vec<&FtpTx> = s.txs().collect();
        assert_eq!(
            (txs[0].dynamic_port, txs[0].active, txs[0].bounce),
            (Some(59914), true, false)
        );
        assert_eq!(codes(txs[1]), vec![Some(*b"150"), Some(*b"226")]);
        assert!(txs[1].done);
        assert!(txs[2].bounce);
        // A listing's connection is not announced; a download's is (the server
        // connects from its address to the client's port).
        assert!(ctx.config.expectations.is_empty());
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"PORT 192,168,0,13,234,22\r\n",
        );
        s.parse(&mut ctx, Direction::ToServer, b"RETR temp.txt\r\n");
        let e = ctx
            .config
            .expectations
            .take(p.server, p.client, 59926)
            .unwrap();
        let t = expect::read(&e.link);
        assert_eq!((t.command, t.passive), (Some("RETR"), false));
        assert_eq!(t.filename.as_deref(), Some(&b"temp.txt"[..]));
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"PORT 192,168,0,13,234,23\r\nRETR x\r\n",
        );
        s.close(&mut ctx);
        assert!(
            ctx.config.expectations.is_empty(),
            "unused ones are forgotten"
        );
    }

    #[test]
    fn long_lines_unknown_commands_and_auth_tls() {
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut s = FtpState::default();
        s.parse(&mut ctx, Direction::ToServer, b"NICK x\r\nRETR ");
        assert_eq!(
            s.txs().count(),
            0,
            "NICK makes no transaction; RETR is not ended"
        );
        s.parse(&mut ctx, Direction::ToServer, &[b'A'; 5000]);
        s.parse(&mut ctx, Direction::ToServer, b"Z\r\n");
        let t = s.txs().last().unwrap();
        assert!(t.command_truncated);
        assert_eq!(t.command_data.as_ref().unwrap().len(), MAX_LINE - 5);
        assert!(s.events().has(ev::REQUEST_COMMAND_TOO_LONG));
        assert_eq!(ctx.counters.get(Counter::ErrorFtp), 1);
        assert_eq!(ctx.anomalies.drain().count(), 1);
        s.parse(&mut ctx, Direction::ToClient, b"550 no\r\n");
        s.parse(&mut ctx, Direction::ToServer, b"AUTH TLS\r\n");
        s.parse(
            &mut ctx,
            Direction::ToClient,
            b"234 Proceed with negotiation.\r\n",
        );
        assert!(s.encrypted());
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"\x16\x03\x01\x00\x05hello\r\nUSER x\r\n",
        );
        assert_eq!(s.txs().count(), 2, "nothing parsed after the hand-off");
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes(chunks in proptest::collection::vec(
            (proptest::bool::ANY, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)), 0..20)) {
            let mut ctx = AppCtx::default();
            let mut s = FtpState { peers: Some(peers()), ..FtpState::default() };
            for (to_server, b) in &chunks {
                let d = if *to_server { Direction::ToServer } else { Direction::ToClient };
                s.parse(&mut ctx, d, b);
            }
            proptest::prop_assert!(s.txs().count() <= ctx.config.max_tx);
            for t in s.txs() {
                proptest::prop_assert!(t.command_data.as_ref().is_none_or(|d| d.len() <= MAX_LINE));
            }
        }
    }
}

//! An FTP data connection (`ftp-data`): a TCP flow a control flow announced (see
//! [`crate::expect`]), taken without probing. It is one transaction: the transfer the
//! control flow named (`RETR`/`STOR` and the file name, possibly sent after the data
//! connection opened), whose bytes become one [`Files`] entry. Bytes that arrive before
//! the command is known are held (at most [`MAX_HELD`]; more are counted and dropped,
//! and the file then has a gap).

use crate::expect::{self, Link, Transfer};
use crate::{AppCtx, Counter, Direction, FileId, FileState, Files};

/// Bytes held while the transfer's command is not known yet.
pub const MAX_HELD: usize = 64 * 1024;

/// The state of a data connection.
#[derive(Debug)]
pub struct FtpDataState {
    /// The control flow's `flow_id` (0: none).
    pub(crate) parent: u64,
    link: Link,
    files: Files,
    file: Option<FileId>,
    held: Vec<u8>,
    /// Bytes dropped while holding.
    dropped: u64,
    done: bool,
    /// Whether any byte reached the parser (Suricata's ftp-data transaction exists
    /// from then on).
    parsed: bool,
}

impl FtpDataState {
    /// Bytes this state holds (itself, its file, data held before the command is
    /// known): its share of `ftp.memuse` (see [`crate::memcap`]).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<FtpDataState>() + self.files.heap_bytes() + self.held.capacity()
    }

    /// The data connection announced with `link` by the control flow `parent`.
    pub fn new(parent: u64, link: Link) -> Self {
        FtpDataState {
            parent,
            link,
            files: Files::default(),
            file: None,
            held: Vec::new(),
            dropped: 0,
            done: false,
            parsed: false,
        }
    }

    /// The control flow's `flow_id` (EVE `parent_id`).
    pub fn parent(&self) -> u64 {
        self.parent
    }

    /// What the control flow said the connection carries (so far).
    pub fn transfer(&self) -> Transfer {
        expect::read(&self.link)
    }

    /// The file the transfer carries.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// Whether any byte of the connection was parsed: before that there is no
    /// transaction for `ftpdata_command` to match, as in Suricata.
    pub fn parsed(&self) -> bool {
        self.parsed
    }

    /// The direction Suricata gives the connection's transaction: to the server for an
    /// upload (`STOR`), to the client otherwise (the data connection's own client and
    /// server, whichever FTP side opened it).
    pub fn tx_dir(&self) -> Direction {
        if self.transfer().command == Some("STOR") {
            Direction::ToServer
        } else {
            Direction::ToClient
        }
    }

    /// Whether the connection ended.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Whether bytes travelling `dir` are the file's: a download (`RETR`) comes from
    /// the FTP server, an upload from the client; the data connection's client is the
    /// FTP client in passive mode, the server in active mode.
    fn carries(t: &Transfer, dir: Direction) -> bool {
        let from_ftp_server = t.command == Some("RETR");
        (dir == Direction::ToClient) == (from_ftp_server == t.passive)
    }

    /// The file, opened once the transfer is known to be a `RETR`/`STOR`.
    fn open(&mut self, ctx: &AppCtx, t: &Transfer, dir: Direction) -> Option<FileId> {
        if self.file.is_none() && matches!(t.command, Some("RETR" | "STOR")) {
            let name = t.filename.clone().unwrap_or_default();
            self.file = self.files.open(&ctx.config.files, &name, dir);
        }
        self.file
    }

    /// Stream bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        self.parsed |= !data.is_empty();
        let t = self.transfer();
        if t.command.is_none() {
            let keep = data.len().min(MAX_HELD - self.held.len());
            self.held.extend_from_slice(&data[..keep]);
            self.drop_bytes(ctx, (data.len() - keep) as u64);
            return;
        }
        if !Self::carries(&t, dir) {
            return;
        }
        let Some(id) = self.open(ctx, &t, dir) else {
            return;
        };
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            self.files.append(id, &held);
        }
        if self.dropped > 0 {
            self.files.gap(id, std::mem::take(&mut self.dropped));
        }
        self.files.append(id, data);
    }

    fn drop_bytes(&mut self, ctx: &mut AppCtx, n: u64) {
        if n > 0 {
            self.dropped += n;
            ctx.counters.incr(Counter::FtpExpectDropped);
        }
    }

    /// A hole in one direction: the file has a gap.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, len: u64) {
        ctx.counters.incr(Counter::Gap);
        let t = self.transfer();
        if t.command.is_none() {
            self.drop_bytes(ctx, len);
        } else if let (true, Some(id)) = (Self::carries(&t, dir), self.file) {
            self.files.gap(id, len);
        }
    }

    /// The connection ended: held bytes go to the file, which is closed (truncated if
    /// the transfer was never named).
    pub fn close(&mut self, ctx: &mut AppCtx) {
        if self.done {
            return;
        }
        self.done = true;
        let t = self.transfer();
        if !self.held.is_empty() {
            // The bytes came from the side the transfer's direction says.
            let dir = if Self::carries(&t, Direction::ToClient) {
                Direction::ToClient
            } else {
                Direction::ToServer
            };
            if let Some(id) = self.open(ctx, &t, dir) {
                let held = std::mem::take(&mut self.held);
                self.files.append(id, &held);
            }
        }
        if let Some(id) = self.file {
            let state = if self.dropped > 0 {
                FileState::Truncated
            } else {
                FileState::Closed
            };
            self.files.close(id, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(t: Transfer) -> Link {
        Link::new(std::sync::Mutex::new(t))
    }

    #[test]
    fn download_in_active_mode_named_before_and_after() {
        let mut ctx = AppCtx::default();
        // Active RETR: the server opened the connection, the file travels to it.
        let l = link(Transfer {
            command: Some("RETR"),
            filename: Some(b"notepad.exe".to_vec()),
            passive: false,
        });
        let mut s = FtpDataState::new(9, l);
        // No transaction before the first byte (an empty call does not count).
        s.parse(&mut ctx, Direction::ToServer, b"");
        assert!(!s.parsed());
        s.parse(&mut ctx, Direction::ToServer, b"MZ\x90\0");
        assert!(s.parsed());
        s.parse(&mut ctx, Direction::ToClient, b"ignored");
        s.close(&mut ctx);
        let f = s.files().iter().next().unwrap();
        assert_eq!(
            (f.name(), f.size(), f.state()),
            (&b"notepad.exe"[..], 4, FileState::Closed)
        );
        // Passive STOR named after the first bytes came.
        let l = link(Transfer {
            passive: true,
            ..Transfer::default()
        });
        let mut s = FtpDataState::new(9, l.clone());
        s.parse(&mut ctx, Direction::ToServer, b"abc");
        expect::update(&l, |t| {
            t.command = Some("STOR");
            t.filename = Some(b"up.txt".to_vec());
        });
        s.parse(&mut ctx, Direction::ToServer, b"def");
        s.close(&mut ctx);
        let f = s.files().iter().next().unwrap();
        assert_eq!((f.name(), f.size()), (&b"up.txt"[..], 6));
        assert_eq!(f.direction(), Direction::ToServer);
    }

    #[test]
    fn the_first_byte_changes_the_transaction_fingerprint() {
        use crate::proto::Transaction;
        // Passive RETR: the file's bytes come to the client. `ftpdata_command` matches
        // from the first byte on, so the transaction is inspected again at the next
        // packet of its direction, not only at the end (Suricata 7.0.10:
        // tests/parity/difftest/fixed/dt-205-ftp-26).
        let mut ctx = AppCtx::default();
        let l = link(Transfer {
            command: Some("RETR"),
            filename: Some(b"f".to_vec()),
            passive: true,
        });
        let mut s = FtpDataState::new(3, l);
        let before = s.fingerprint().0;
        s.parse(&mut ctx, Direction::ToClient, b"x");
        let after = s.fingerprint().0;
        assert_ne!(before, after);
        s.close(&mut ctx);
        assert_ne!(s.fingerprint().0, after);
    }

    #[test]
    fn listing_makes_no_file_and_holding_is_bounded() {
        let mut ctx = AppCtx::default();
        let l = link(Transfer::default());
        let mut s = FtpDataState::new(1, l.clone());
        s.parse(&mut ctx, Direction::ToClient, &vec![0u8; MAX_HELD + 10]);
        assert_eq!(ctx.counters.get(Counter::FtpExpectDropped), 1);
        expect::update(&l, |t| t.command = Some("LIST"));
        s.close(&mut ctx);
        assert!(s.files().is_empty());
        assert!(super::super::log::ftp_data_object(&s).is_none());
    }
}

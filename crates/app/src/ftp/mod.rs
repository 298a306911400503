//! FTP (RFC 959, RFC 2428): the control channel and its data connections.
//! Suricata 7 takes a TCP flow for FTP (on any port) when the client's first bytes
//! start with `USER `, `PASS `, `PORT ` or `FEAT`, or the server's with `220 (`
//! (vsftpd's greeting); a data connection (`ftp-data`) is never probed: the control
//! flow announces it ([`crate::expect`]).
//!
//! - [`parser`]: commands, replies, `PORT`/`EPRT`/`227`/`229` addresses;
//! - [`state`]: the control flow ([`FtpState`]) and its transactions ([`FtpTx`]);
//! - [`data`]: a data connection ([`data::FtpDataState`]) and its file;
//! - `events`: the event table; `proto`: the protocol contract; [`log`]: EVE objects.

pub mod data;
mod events;
pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use events::EVENTS;
pub(crate) use proto::{new_data_state, new_state, DATA_BUFFERS};
pub use state::{FtpState, FtpTx, Peers};

use crate::detect::{AppProto, Probe};
use crate::Direction;

/// What a client's first bytes start with on an FTP control flow.
const CLIENT: [&[u8]; 4] = [b"USER ", b"PASS ", b"PORT ", b"FEAT"];

/// What vsftpd's greeting starts with.
const SERVER: &[u8] = b"220 (";

fn starts(data: &[u8], pats: &[&[u8]]) -> Probe {
    let mut more = false;
    for p in pats {
        let n = data.len().min(p.len());
        if p[..n].eq_ignore_ascii_case(&data[..n]) {
            if n == p.len() {
                return Probe::Match(AppProto::Ftp);
            }
            more = true;
        }
    }
    if more {
        Probe::NeedMore
    } else {
        Probe::NoMatch
    }
}

/// Probes the first bytes of a direction for FTP.
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    match dir {
        Direction::ToServer => starts(data, &CLIENT),
        Direction::ToClient => starts(data, &[SERVER]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes() {
        let s = Direction::ToServer;
        assert_eq!(
            probe_tcp(s, b"USER anonymous\r\n"),
            Probe::Match(AppProto::Ftp)
        );
        assert_eq!(probe_tcp(s, b"pass x\r\n"), Probe::Match(AppProto::Ftp));
        assert_eq!(probe_tcp(s, b"FEAT\r\n"), Probe::Match(AppProto::Ftp));
        assert_eq!(probe_tcp(s, b"US"), Probe::NeedMore);
        assert_eq!(probe_tcp(s, b"GET / HTTP/1.1"), Probe::NoMatch);
        assert_eq!(probe_tcp(s, b"NICK x"), Probe::NoMatch);
        let c = Direction::ToClient;
        assert_eq!(
            probe_tcp(c, b"220 (vsFTPd 2.3.5)\r\n"),
            Probe::Match(AppProto::Ftp)
        );
        assert_eq!(probe_tcp(c, b"220 ProFTPD Server\r\n"), Probe::NoMatch);
        assert_eq!(probe_tcp(c, b"220"), Probe::NeedMore);
    }
}

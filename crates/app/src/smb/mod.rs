//! SMB 1/2/3 over TCP (port 445 direct, or NetBIOS port 139): NBSS records, SMB1 and
//! SMB2/3 messages, one transaction per request/response pair and one per file
//! transferred, the `smb` EVE object, the `smb.*` sticky buffers, the files read and
//! written (for `fileinfo` and the file keywords) and Suricata's SMB app-layer events.
//!
//! - [`record`]: NBSS framing; [`smb1`] and [`smb2`]: message parsing; [`auth`]:
//!   NTLMSSP and Kerberos logon details; [`names`]: the names records use;
//! - [`state`]: the per-flow state ([`SmbState`]), with `handle1`/`handle2` for each
//!   version's commands; [`tx`]: transactions ([`SmbTx`]);
//! - `pipe`: DCERPC over named pipes (through [`crate::dcerpc`]);
//! - `events`: the event table; `proto`: the protocol contract; [`log`]: EVE objects.

pub mod auth;
pub mod bytes;
mod events;
mod handle1;
mod handle2;
pub mod log;
pub mod names;
mod pipe;
mod proto;
pub mod record;
pub mod smb1;
pub mod smb2;
pub mod state;
pub mod tx;

pub(crate) use events::EVENTS;
pub(crate) use proto::{new_state, BUFFERS};
pub use state::SmbState;
pub use tx::{SmbTx, TxKind};

use crate::detect::{AppProto, Probe};
use crate::Direction;
use record::{NBSS_HDR, NBSS_TYPES, SESSION_MESSAGE};

/// Probes the first bytes of a TCP direction for SMB: NBSS control records (session
/// request, keep-alive, ...) are skipped; the first session message must hold an SMB1,
/// SMB2 or SMB3 (transform) header (`\xffSMB`, `\xfeSMB`, `\xfdSMB`).
pub(crate) fn probe(data: &[u8]) -> Probe {
    let mut rest = data;
    loop {
        if rest.len() < NBSS_HDR {
            return if rest.is_empty() || NBSS_TYPES.contains(&rest[0]) {
                Probe::NeedMore
            } else {
                Probe::NoMatch
            };
        }
        if !NBSS_TYPES.contains(&rest[0]) {
            return Probe::NoMatch;
        }
        let len = NBSS_HDR
            + (usize::from(rest[1]) << 16 | usize::from(rest[2]) << 8 | usize::from(rest[3]));
        if rest[0] == SESSION_MESSAGE {
            let magic = &rest[NBSS_HDR..rest.len().min(NBSS_HDR + 4)];
            let full = [
                [0xff, b'S', b'M', b'B'],
                [0xfe, b'S', b'M', b'B'],
                [0xfd, b'S', b'M', b'B'],
            ];
            return if full.iter().any(|m| *m == magic) {
                Probe::Match(AppProto::Smb)
            } else if magic.len() < 4 && full.iter().any(|m| m.starts_with(magic)) {
                Probe::NeedMore
            } else {
                Probe::NoMatch
            };
        }
        // A control record: look behind it.
        match rest.get(len..) {
            Some(r) => rest = r,
            None => return Probe::NeedMore,
        }
    }
}

/// [`probe`] for the registry: SMB is recognised from either side.
pub(crate) fn probe_tcp(_dir: Direction, data: &[u8]) -> Probe {
    probe(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nbss(body: &[u8]) -> Vec<u8> {
        let l = body.len() as u32;
        let mut v = vec![0, (l >> 16) as u8, (l >> 8) as u8, l as u8];
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn smb_probe() {
        let smb2 = nbss(b"\xfeSMB\x40\x00\x00\x00");
        assert_eq!(probe(&smb2), Probe::Match(AppProto::Smb));
        assert_eq!(probe(&smb2[..6]), Probe::NeedMore);
        assert_eq!(probe(&smb2[..2]), Probe::NeedMore);
        assert_eq!(probe(&nbss(b"\xffSMB\x72")), Probe::Match(AppProto::Smb));
        assert_eq!(probe(&nbss(b"GET / HTTP/1.0")), Probe::NoMatch);
        assert_eq!(probe(b"GET / HTTP/1.0"), Probe::NoMatch);
        // A session request on port 139, then the first SMB record.
        let mut v = vec![0x81, 0, 0, 4, 1, 2, 3, 4];
        assert_eq!(probe(&v), Probe::NeedMore);
        v.extend_from_slice(&smb2);
        assert_eq!(probe(&v), Probe::Match(AppProto::Smb));
    }
}

//! NFS v2, v3 and v4 over ONC RPC ([`crate::rpc`]), on TCP (record marking) and UDP,
//! port 2049, as Suricata 7 sees it: each v2/v3 call is a transaction matched with its
//! reply by xid and logged once answered (NULL and GETATTR are not logged); READ and
//! WRITE data (v4: inside COMPOUNDs) goes into one file transaction per handle; file
//! handles get names from LOOKUP, CREATE and READDIRPLUS replies.
//!
//! - [`parser`]: procedure arguments and results, names of procedures and statuses;
//! - [`state`]: the per-flow state ([`NfsState`]) and transactions ([`NfsTx`]);
//! - `proto`: the protocol contract; [`log`]: the `nfs` and `rpc` EVE objects.

pub mod log;
pub mod parser;
mod proto;
pub mod state;

pub(crate) use proto::{new_state, BUFFERS};
pub use state::{NfsState, NfsTx};

use crate::detect::{AppProto, Probe};
use crate::rpc::{parse_message, Message};
use crate::Direction;

/// NFS's application-layer events (Suricata's `nfs-events.rules`).
pub(crate) static EVENTS: &[&str] = &["nfs.malformed_data", "nfs.too_many_transactions"];

/// The index in [`EVENTS`] of `nfs.malformed_data`.
pub(crate) const MALFORMED_DATA: usize = 0;
/// The index in [`EVENTS`] of `nfs.too_many_transactions`.
pub(crate) const TOO_MANY_TRANSACTIONS: usize = 1;

/// Whether `m` is an NFS call (program 100003, version 3 or 4: Suricata 7.0.10's TCP
/// probe does not take a v2 call, whose flow becomes NFS at its first reply) going to
/// the server, or an accepted reply going to the client.
fn probe_message(dir: Direction, m: &[u8]) -> bool {
    match (parse_message(m), dir) {
        (Some(Message::Call(c)), Direction::ToServer) => {
            c.prog == state::PROGRAM && (3..=4).contains(&c.vers)
        }
        (Some(Message::Reply(r)), Direction::ToClient) => r.accepted,
        _ => false,
    }
}

/// Probes the first bytes of a TCP direction: a record mark, then an RPC message (a
/// message longer than what arrived is judged by its first 40 bytes).
pub(crate) fn probe_tcp(dir: Direction, data: &[u8]) -> Probe {
    if dir == Direction::ToClient {
        return probe_tcp_reply(data);
    }
    if data.len() < 4 + 40 {
        return Probe::NeedMore;
    }
    let len = (u32::from_be_bytes([data[0], data[1], data[2], data[3]]) & 0x7fff_ffff) as usize;
    let m = &data[4..data.len().min(4 + len)];
    let whole = data.len() >= 4 + len;
    let ok = if whole {
        probe_message(dir, m)
    } else {
        // The call header up to the credential is enough to tell.
        dir == Direction::ToServer
            && m[4..8] == [0, 0, 0, 0]
            && m[8..12] == [0, 0, 0, 2]
            && m[12..16] == state::PROGRAM.to_be_bytes()
            && matches!(m[16..20], [0, 0, 0, 3 | 4])
    };
    if ok {
        Probe::Match(AppProto::Nfs)
    } else {
        Probe::NoMatch
    }
}

/// Longest record a reply deciding a TCP flow may announce (Suricata 7.0.10: 35,000
/// bytes do, 35,001 do not).
const MAX_PROBE_REPLY: usize = 35_000;

/// Probes the first bytes of a TCP flow's server side as Suricata 7.0.10 does: a
/// record mark and the reply's xid and message type decide (12 bytes), a record over
/// [`MAX_PROBE_REPLY`] does not; a denied reply, or one accepted with another status than
/// `SUCCESS`, does not where those words arrived (checked on hand-made flows: a v2
/// call, which the client side's probe does not take, then replies cut anywhere).
fn probe_tcp_reply(data: &[u8]) -> Probe {
    if data.len() < 12 {
        return Probe::NeedMore;
    }
    let len = (u32::from_be_bytes([data[0], data[1], data[2], data[3]]) & 0x7fff_ffff) as usize;
    let m = &data[4..data.len().min(4 + len)];
    let word = |i: usize| {
        m.get(i..i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if len > MAX_PROBE_REPLY || word(4) != Some(1) || word(8).is_some_and(|s| s != 0) {
        return Probe::NoMatch;
    }
    // The accept status follows the verifier (flavour, length, body padded to 4).
    let stat_at = word(16).map(|n| 20 + (n as usize).div_ceil(4) * 4);
    if stat_at.and_then(word).is_some_and(|s| s != 0) {
        return Probe::NoMatch;
    }
    Probe::Match(AppProto::Nfs)
}

/// Shortest call datagram that makes a UDP flow NFS (Suricata 7.0.10, checked on
/// hand-made flows: a 44-byte call does not, a 48-byte one does; a UDP flow holding only
/// the NULL procedure's 40-byte call and 24-byte reply stays undetected, sv-ether.pcap
/// has two).
const MIN_CALL_DATAGRAM: usize = 48;
/// Shortest reply datagram that makes a UDP flow NFS (28 bytes do not, 32 do).
const MIN_REPLY_DATAGRAM: usize = 32;

/// Probes a UDP payload as Suricata 7.0.10 does: a call of NFS version 2 or 3 (a v4
/// call does not make the flow NFS: its transactions come only once a reply did) of at
/// least [`MIN_CALL_DATAGRAM`] bytes to the server, or a reply accepted with `SUCCESS`
/// of at least [`MIN_REPLY_DATAGRAM`] bytes to the client.
pub(crate) fn probe_udp(dir: Direction, payload: &[u8]) -> Probe {
    let ok = match (parse_message(payload), dir) {
        (Some(Message::Call(c)), Direction::ToServer) => {
            payload.len() >= MIN_CALL_DATAGRAM
                && c.prog == state::PROGRAM
                && (2..=3).contains(&c.vers)
        }
        (Some(Message::Reply(r)), Direction::ToClient) => {
            payload.len() >= MIN_REPLY_DATAGRAM && r.success()
        }
        _ => false,
    };
    if ok {
        Probe::Match(AppProto::Nfs)
    } else {
        Probe::NoMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: &mut Vec<u8>, xs: &[u32]) {
        for x in xs {
            v.extend_from_slice(&x.to_be_bytes());
        }
    }

    #[test]
    fn udp_probe_sizes_and_versions_as_suricata() {
        // A call with AUTH_NULL credentials and `extra` argument bytes (40 + extra).
        let call = |vers: u32, extra: usize| {
            let mut v = Vec::new();
            w(&mut v, &[5, 0, 2, state::PROGRAM, vers, 1, 0, 0, 0, 0]);
            v.resize(v.len() + extra, 0);
            v
        };
        let ts = |m: &[u8]| probe_udp(Direction::ToServer, m) == Probe::Match(AppProto::Nfs);
        assert!(!ts(&call(3, 0)));
        assert!(!ts(&call(3, 4)));
        assert!(ts(&call(3, 8)));
        assert!(ts(&call(2, 8)));
        assert!(!ts(&call(4, 48)));
        // A reply: accepted, null verifier, `stat`, then `extra` bytes (24 + extra).
        let reply = |stat: u32, extra: usize| {
            let mut v = Vec::new();
            w(&mut v, &[5, 1, 0, 0, 0, stat]);
            v.resize(v.len() + extra, 0);
            v
        };
        let tc = |m: &[u8]| probe_udp(Direction::ToClient, m) == Probe::Match(AppProto::Nfs);
        assert!(!tc(&reply(0, 0)));
        assert!(!tc(&reply(0, 4)));
        assert!(tc(&reply(0, 8)));
        assert!(!tc(&reply(1, 12)));
        // Neither kind of message counts in the other direction.
        assert!(!tc(&call(3, 8)));
        assert!(!ts(&reply(0, 8)));
    }

    #[test]
    fn tcp_probe_takes_v3_and_v4_calls_not_v2() {
        let marked = |vers: u32, cut: bool| {
            let mut m = Vec::new();
            w(
                &mut m,
                &[5, 0, 2, state::PROGRAM, vers, 1, 0, 0, 0, 0, 0, 0],
            );
            let mut v = (0x8000_0000u32 | (m.len() as u32 + u32::from(cut) * 100))
                .to_be_bytes()
                .to_vec();
            v.extend(m);
            probe_tcp(Direction::ToServer, &v)
        };
        for cut in [false, true] {
            assert_eq!(marked(3, cut), Probe::Match(AppProto::Nfs));
            assert_eq!(marked(4, cut), Probe::Match(AppProto::Nfs));
            assert_eq!(marked(2, cut), Probe::NoMatch);
        }
    }

    #[test]
    fn tcp_reply_probe_decides_on_twelve_bytes() {
        let tc = |mark: u32, words: &[u32]| {
            let mut v = (0x8000_0000 | mark).to_be_bytes().to_vec();
            w(&mut v, words);
            probe_tcp(Direction::ToClient, &v)
        };
        let nfs = Probe::Match(AppProto::Nfs);
        assert_eq!(tc(64, &[5]), Probe::NeedMore);
        assert_eq!(tc(64, &[5, 1]), nfs);
        assert_eq!(tc(24, &[5, 1, 0, 0, 0, 0]), nfs);
        assert_eq!(tc(35_000, &[5, 1, 0, 0, 0, 0]), nfs);
        assert_eq!(tc(35_001, &[5, 1, 0, 0, 0, 0]), Probe::NoMatch);
        // A call, a denied reply, an accepted one that failed.
        assert_eq!(tc(64, &[5, 0]), Probe::NoMatch);
        assert_eq!(tc(64, &[5, 1, 1]), Probe::NoMatch);
        assert_eq!(tc(24, &[5, 1, 0, 0, 0, 1]), Probe::NoMatch);
        // A verifier longer than what arrived hides the status.
        assert_eq!(tc(64, &[5, 1, 0, 0, 400, 1]), nfs);
        assert_eq!(tc(32, &[5, 1, 0, 0, 4, 7, 0]), nfs);
        assert_eq!(tc(32, &[5, 1, 0, 0, 4, 7, 2]), Probe::NoMatch);
        // A record mark shorter than the header.
        assert_eq!(tc(4, &[5, 1, 0]), Probe::NoMatch);
    }
}

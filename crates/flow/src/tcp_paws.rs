//! TCP timestamps (RFC 7323 option kind 8) and the protection against wrapped
//! sequence numbers (PAWS) as Suricata 7.0.10 applies it, with the stream event
//! `pkt_invalid_timestamp` (learned by running it on crafted sessions, kept as 40016 to
//! 40023 and 40030 of `cli/tests/data/make-stream-window.py`, and on sv-ether.pcap):
//!
//! * **negotiation**: a session checks timestamps when its SYN and its SYN/ACK both
//!   carry the option. Each side starts from its handshake packet's value; a side
//!   whose value was 0 is not checked, except that the client's third packet of the
//!   handshake sets its value then. A SYN/ACK (or any server packet before the
//!   handshake completes) with the option and a non-zero echo reply, answering a SYN
//!   without it, is invalid (with a zero echo reply it is taken, without timestamps);
//! * **check**: a packet that carries the option with a value before its sender's last
//!   one (32-bit serial comparison: a value more than 2^31 ahead is before) is invalid,
//!   a RST included. A packet without the option is not checked, nor is a SYN (the
//!   handshake checks' or a new session's on the tuple);
//! * **update**: only a packet without payload that passed every check moves its
//!   sender's last value (a data packet's timestamp never does, whatever its order);
//! * an invalid packet raises `pkt_invalid_timestamp` and is refused, in IDS mode too:
//!   it changes no state and gives its stream no data (a payload its receiver had all
//!   acknowledged also raises `pkt_spurious_retransmission`, as Suricata does);
//! * a closed session is not checked (sv-ether's sessions replayed on their tuple).
//!
//! Suricata's exception for a sender idle for more than 24 days (RFC 7323's PAWS
//! timeout) is not modelled: the tracker does not keep each side's last packet time.

use wire::proto::tcp::TcpOption;
use wire::{flags as pf, Packet, StreamEvent as E, StreamEvents};

use crate::tcp::{flags, Direction, TcpHeader, TcpSession, TcpState, H_TS};

/// The timestamp option (value, echo reply) of `p`'s TCP header, when the decoder saw
/// one. Only such packets have their options walked again.
pub fn timestamps(p: &Packet, buf: &[u8]) -> Option<(u32, u32)> {
    if !p.has(pf::TCP_TS) {
        return None;
    }
    p.tcp(buf)?.options().find_map(|o| match o {
        TcpOption::Timestamps(v, e) => Some((v, e)),
        _ => None,
    })
}

/// Records the timestamp of the SYN that opens a session (sender `d`).
pub(crate) fn syn(s: &mut TcpSession, d: Direction, h: &TcpHeader) {
    if let Some((ts, _)) = h.ts {
        let half = &mut s.half[d.index()];
        half.flags |= H_TS;
        half.last_ts = ts;
    }
}

/// Records the timestamp of the SYN/ACK (sender `d`) that answered the SYN: the
/// session checks timestamps when both carried the option.
pub(crate) fn synack(s: &mut TcpSession, d: Direction, h: &TcpHeader) {
    if let Some((ts, _)) = h.ts {
        if s.half[d.reverse().index()].flags & H_TS != 0 {
            let half = &mut s.half[d.index()];
            half.flags |= H_TS;
            half.last_ts = ts;
        }
    }
}

/// Whether the session checks timestamps: both handshake packets carried them.
#[inline]
fn negotiated(s: &TcpSession) -> bool {
    s.half[0].flags & s.half[1].flags & H_TS != 0
}

/// Checks the timestamp of packet `h` (direction `d`, `len` bytes of payload) on session
/// `s` before the other checks; raises `pkt_invalid_timestamp` into `ev` (with
/// `pkt_spurious_retransmission` when its payload was all acknowledged) and returns true
/// when the session must refuse the packet.
pub(crate) fn check(
    s: &mut TcpSession,
    d: Direction,
    h: &TcpHeader,
    len: usize,
    ev: &mut StreamEvents,
) -> bool {
    let Some((ts, echo)) = h.ts else {
        return false;
    };
    match s.state {
        TcpState::None => false,
        // The server answers a SYN without timestamps with them, echoing a value.
        TcpState::SynSent => {
            let bad = d == Direction::ToClient
                && echo != 0
                && s.half[d.reverse().index()].flags & H_TS == 0;
            if bad {
                ev.set(E::PktInvalidTimestamp);
            }
            bad
        }
        // A SYN is the handshake checks' (a SYN again, or a new session on the tuple);
        // a closed session is not checked either (sv-ether's sessions replayed on their
        // tuple: Suricata sees spurious retransmissions there).
        TcpState::Closed => false,
        _ if !negotiated(s) || h.flags & flags::SYN != 0 => false,
        _ => {
            let half = &mut s.half[d.index()];
            if half.last_ts == 0 {
                // A client whose SYN said 0 takes its value from the handshake's ACK.
                if s.state == TcpState::SynRecv && d == Direction::ToServer {
                    half.last_ts = ts;
                }
                return false;
            }
            let bad = (ts.wrapping_sub(half.last_ts) as i32) < 0;
            if bad {
                ev.set(E::PktInvalidTimestamp);
                // Suricata tells a spurious retransmission before (sv-ether
                // 10.3.1.2:56746, a session replayed on its tuple).
                if crate::tcp_events::spurious_not_keepalive(*half, h, len) {
                    ev.set(E::PktSpuriousRetransmission);
                }
            }
            bad
        }
    }
}

/// After packet `h` (direction `d`, `len` bytes of payload) passed every check: a
/// packet without payload moves its sender's last timestamp.
pub(crate) fn update(s: &mut TcpSession, d: Direction, h: &TcpHeader, len: usize) {
    if len != 0 || s.state < TcpState::SynRecv || !negotiated(s) {
        return;
    }
    if let Some((ts, _)) = h.ts {
        let half = &mut s.half[d.index()];
        if half.last_ts != 0 && (ts.wrapping_sub(half.last_ts) as i32) > 0 {
            half.last_ts = ts;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::flags::*;
    use crate::tcp::TcpConfig;

    const TS: Direction = Direction::ToServer;
    const TC: Direction = Direction::ToClient;

    fn hdr(seq: u32, ack: u32, f: u8, tsval: Option<u32>) -> TcpHeader {
        TcpHeader {
            seq,
            ack,
            flags: f,
            window: 1024,
            tfo: false,
            wscale: None,
            ts: tsval.map(|v| (v, 7)),
        }
    }

    fn step(s: &mut TcpSession, d: Direction, h: TcpHeader, len: usize) -> crate::tcp::TcpStep {
        s.step(&TcpConfig::default(), d, &h, len)
    }

    fn invalid(st: crate::tcp::TcpStep) -> bool {
        st.events.has(E::PktInvalidTimestamp) && st.events.iter().count() == 1 && !st.accept_data
    }

    /// A session through its handshake with the given timestamps (None: no option).
    fn session(c: Option<u32>, sv: Option<u32>, ack: Option<u32>) -> TcpSession {
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(1000, 0, SYN, c), 0);
        step(&mut s, TC, hdr(5000, 1001, SYN | ACK, sv), 0);
        step(&mut s, TS, hdr(1001, 5001, ACK, ack), 0);
        s
    }

    #[test]
    fn older_timestamps_are_refused() {
        // make-stream-window.py 40016.
        let mut s = session(Some(100), Some(500), Some(101));
        assert_eq!(s.state, TcpState::Established);
        let st = step(&mut s, TS, hdr(1001, 5001, ACK | PSH, Some(102)), 10);
        assert!(st.events.is_empty() && st.accept_data);
        assert!(invalid(step(
            &mut s,
            TS,
            hdr(1011, 5001, ACK | PSH, Some(50)),
            10
        )));
        assert_eq!(s.half[0].next_seq, 1011);
        // Without the option: not checked.
        let st = step(&mut s, TS, hdr(1011, 5001, ACK | PSH, None), 10);
        assert!(st.events.is_empty() && st.accept_data);
        assert!(invalid(step(&mut s, TS, hdr(1021, 5001, ACK, Some(0)), 0)));
        // A RST is checked too, and refused.
        assert!(invalid(step(
            &mut s,
            TC,
            hdr(5001, 1021, ACK | RST, Some(400)),
            0
        )));
        assert_eq!(s.state, TcpState::Established);
        // A SYN is not checked: here it reuses nothing and is a SYN again.
        let st = step(&mut s, TS, hdr(1000, 0, SYN, Some(1)), 0);
        assert!(!st.events.has(E::PktInvalidTimestamp));
        // More than 2^31 ahead is before.
        assert!(invalid(step(
            &mut s,
            TS,
            hdr(1021, 5001, ACK, Some(101 + (1 << 31) + 10)),
            0
        )));
    }

    #[test]
    fn only_packets_without_payload_move_the_last_value() {
        // 40019, 40031, 40081.
        let mut s = session(Some(100), Some(500), Some(101));
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK | PSH, Some(200)), 10)
            .events
            .is_empty());
        assert!(step(&mut s, TS, hdr(1011, 5001, ACK | PSH, Some(150)), 10)
            .events
            .is_empty());
        assert!(step(&mut s, TS, hdr(1021, 5001, ACK, Some(150)), 0)
            .events
            .is_empty());
        assert_eq!(s.half[0].last_ts, 150);
        assert!(invalid(step(
            &mut s,
            TS,
            hdr(1021, 5001, ACK, Some(140)),
            0
        )));
        assert!(step(&mut s, TS, hdr(1021, 5001, ACK | FIN, Some(300)), 0)
            .events
            .is_empty());
        assert!(invalid(step(
            &mut s,
            TS,
            hdr(1022, 5001, ACK, Some(250)),
            0
        )));
    }

    #[test]
    fn a_refused_spurious_retransmission_is_told_too() {
        let mut s = session(Some(100), Some(500), Some(101));
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, Some(102)), 10);
        step(&mut s, TC, hdr(5001, 1011, ACK, Some(501)), 0);
        step(&mut s, TS, hdr(1011, 5001, ACK, Some(110)), 0);
        let st = step(&mut s, TS, hdr(1001, 5001, ACK | PSH, Some(90)), 10);
        assert!(st.events.has(E::PktInvalidTimestamp));
        assert!(st.events.has(E::PktSpuriousRetransmission));
        assert_eq!(st.events.iter().count(), 2);
    }

    #[test]
    fn closed_sessions_are_not_checked() {
        // sv-ether 10.20.0.14:38576, replayed on its closed session.
        let mut s = session(Some(100), Some(500), Some(101));
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, Some(102)), 10);
        step(&mut s, TC, hdr(5001, 1011, ACK, Some(501)), 0);
        step(&mut s, TS, hdr(1011, 5001, ACK | RST, Some(103)), 0);
        assert_eq!(s.state, TcpState::Closed);
        assert!(step(&mut s, TS, hdr(1011, 5001, ACK, Some(50)), 0)
            .events
            .is_empty());
    }

    #[test]
    fn negotiation_and_zero_values() {
        // 40017: the SYN/ACK without the option: nothing is checked.
        let mut s = session(Some(100), None, Some(101));
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK, Some(5)), 0)
            .events
            .is_empty());
        // 40080: the SYN said 0: the handshake's ACK sets the client's value.
        let mut s = session(Some(0), Some(500), Some(10));
        assert_eq!(s.half[0].last_ts, 10);
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK, Some(20)), 0)
            .events
            .is_empty());
        assert!(invalid(step(&mut s, TS, hdr(1001, 5001, ACK, Some(5)), 0)));
        // 40024, 40084: the SYN/ACK said 0: the server is not checked, the client is.
        let mut s = session(Some(100), Some(0), Some(101));
        assert!(step(&mut s, TC, hdr(5001, 1001, ACK, Some(5)), 0)
            .events
            .is_empty());
        assert!(step(&mut s, TC, hdr(5001, 1001, ACK, Some(4)), 0)
            .events
            .is_empty());
        assert!(invalid(step(&mut s, TS, hdr(1001, 5001, ACK, Some(99)), 0)));
        // 40021: the handshake's ACK before the SYN's value is refused: no handshake.
        let s = session(Some(100), Some(500), Some(50));
        assert_eq!(s.state, TcpState::SynRecv);
    }

    #[test]
    fn synack_with_timestamps_answering_a_syn_without() {
        // 40023 of make-stream-window.py: with an echo reply, refused.
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(1000, 0, SYN, None), 0);
        assert!(invalid(step(
            &mut s,
            TC,
            hdr(5000, 1001, SYN | ACK, Some(500)),
            0
        )));
        assert_eq!(s.state, TcpState::SynSent);
        assert!(step(&mut s, TC, hdr(5000, 1001, SYN | ACK, None), 0)
            .events
            .is_empty());
        assert_eq!(s.state, TcpState::SynRecv);
        // Without one (echo 0), taken, and the session has no timestamps.
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(1000, 0, SYN, None), 0);
        let sa = TcpHeader {
            ts: Some((500, 0)),
            ..hdr(5000, 1001, SYN | ACK, None)
        };
        assert!(step(&mut s, TC, sa, 0).events.is_empty());
        step(&mut s, TS, hdr(1001, 5001, ACK, Some(10)), 0);
        assert!(step(&mut s, TC, hdr(5001, 1001, ACK, Some(5)), 0)
            .events
            .is_empty());
        assert_eq!(s.state, TcpState::Established);
    }

    #[test]
    fn timestamps_reads_the_option() {
        let mut p = Packet::default();
        assert_eq!(timestamps(&p, &[]), None);
        p.flags |= pf::TCP_TS;
        // Flag set but no TCP header to read: no value, no panic.
        assert_eq!(timestamps(&p, &[]), None);
    }
}

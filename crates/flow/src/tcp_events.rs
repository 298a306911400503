//! The TCP stream events the session tracker raises ([`wire::StreamEvent`]), with
//! Suricata 7.0.10's meaning, learned from its documentation and by running it on
//! captures (`stream-event` rules, EVE `anomaly` records of type `stream`):
//!
//! * **no session**: a RST or FIN on a flow without a TCP session
//!   (`rst_but_no_session`, `fin_but_no_session`, the latter not with midstream
//!   pick-up, which starts a session on it);
//! * **any packet of a session**: an ACK number without the ACK flag
//!   (`pkt_broken_ack`), a RST with payload (`rst_with_data`);
//! * **handshake** (SYN_SENT, SYN_RECV): a SYN/ACK the wrong way or acknowledging
//!   something else than the SYN (`3whs_synack_in_wrong_direction`,
//!   `3whs_synack_with_wrong_ack`), SYN/ACK and SYN retransmissions that differ or go
//!   the wrong way (`3whs_synack_resend_with_diff_ack`/`_diff_seq`,
//!   `3whs_synack_toserver_on_syn_recv`, `3whs_syn_toclient_on_syn_recv`,
//!   `3whs_syn_resend_diff_seq_on_syn_recv`), a third packet that does not complete the
//!   handshake: the server's ACK inline (`3whs_ack_in_wrong_dir`; in IDS mode it
//!   completes the handshake, the client's ACK was missed), the client's with the right
//!   sequence number and a wrong acknowledgement (`3whs_right_seq_wrong_ack_evasion`)
//!   or both wrong (`3whs_wrong_seq_wrong_ack`), a one-sided client's ACK out of
//!   sequence (`3whs_async_wrong_seq`);
//! * **four-way handshake** (SYN, the server's SYN, the client's SYN/ACK, the server's
//!   ACK): a client SYN/ACK that does not acknowledge the server's SYN
//!   (`4whs_synack_with_wrong_ack`) or does not repeat the client's SYN
//!   (`4whs_synack_with_wrong_syn`), a server ACK whose sequence number does not follow
//!   its SYN (`4whs_wrong_seq`) or that acknowledges more than the client's SYN
//!   (`pkt_invalid_ack`, `4whs_invalid_ack`) (make-stream-window.py 40033-40036);
//! * **established**: a SYN or SYN/ACK again (`est_syn_resend`,
//!   `est_syn_resend_diff_seq`, `est_syn_toclient`, `est_synack_toserver`,
//!   `est_synack_resend`, `est_synack_resend_with_diff_ack`/`_diff_seq`);
//! * **closing** (FIN_WAIT1 to TIME_WAIT): the client's SYN that starts no new session
//!   or the server's SYN/ACK (`shutdown_syn_resend`; refused);
//! * **any state from SYN_RECV on**: a payload whose every byte its receiver had
//!   already acknowledged (`pkt_spurious_retransmission`; in SYN_RECV the packet is
//!   then ignored, as Suricata ignores it, elsewhere Osprey's tracker still takes its
//!   acknowledgement).
//!
//! Where Suricata's handler refuses the packet (its state function returns an error),
//! [`check`] says so and the tracker leaves the session as it was: the packet changes
//! no state and gives the stream no data. Each check is a comparison on fields the
//! session already holds: no allocation, one branch per condition.

use wire::{StreamEvent as E, StreamEvents};

use crate::tcp::{flags, seq_gt, Direction, TcpConfig, TcpHeader, TcpSession, TcpState};

const CLIENT: usize = 0;
const SERVER: usize = 1;

/// Raises the events packet `h` (direction `d`, `payload_len` bytes of payload) causes
/// on session `s` before the state machine takes it, into `ev`. Returns true when the
/// session must ignore the packet.
pub(crate) fn check(
    s: &TcpSession,
    cfg: &TcpConfig,
    d: Direction,
    h: &TcpHeader,
    payload_len: usize,
    ev: &mut StreamEvents,
) -> bool {
    let syn = h.flags & flags::SYN != 0;
    let ack = h.flags & flags::ACK != 0;
    let rst = h.flags & flags::RST != 0;
    let fin = h.flags & flags::FIN != 0;
    if s.state == TcpState::None {
        // The SYN that opens the session is checked like the session's packets.
        if syn && !ack && !rst && h.ack != 0 {
            ev.set(E::PktBrokenAck);
        }
        if rst {
            ev.set(E::RstButNoSession);
        } else if fin && !syn && !cfg.midstream {
            ev.set(E::FinButNoSession);
        }
        return false;
    }
    if !ack && h.ack != 0 {
        ev.set(E::PktBrokenAck);
    }
    if rst {
        if payload_len > 0 {
            ev.set(E::RstWithData);
        }
        return false;
    }
    let c = &s.half[CLIENT];
    let sv = &s.half[SERVER];
    let to_server = d == Direction::ToServer;
    match s.state {
        TcpState::SynSent => {
            if syn && ack {
                // After a SYN from the server (a four-way handshake), the client's
                // SYN/ACK must acknowledge it and repeat the client's SYN.
                if to_server && sv.flags & crate::tcp::H_SYN != 0 {
                    if h.ack != sv.isn.wrapping_add(1) {
                        ev.set(E::FourwhsSynackWithWrongAck);
                        return true;
                    }
                    if h.seq != c.isn {
                        ev.set(E::FourwhsSynackWithWrongSyn);
                        return true;
                    }
                    return false;
                }
                if to_server {
                    ev.set(E::ThreewhsSynackInWrongDirection);
                    return true;
                }
                // A Fast Open SYN/ACK may acknowledge the SYN's data too.
                if h.ack != c.isn.wrapping_add(1) && h.ack != c.next_seq {
                    ev.set(E::ThreewhsSynackWithWrongAck);
                    return true;
                }
            } else if ack && !syn && to_server && cfg.async_oneside && h.seq != c.next_seq {
                ev.set(E::ThreewhsAsyncWrongSeq);
                return true;
            } else if !syn && spurious(s.half[d.index()], h, payload_len) {
                ev.set(E::PktSpuriousRetransmission);
            }
            false
        }
        // Four-way handshake: the server's ACK of the client's SYN/ACK completes it. Its
        // sequence number must follow the server's SYN (the SYN's own is ignored) and
        // it may acknowledge nothing past the client's SYN.
        TcpState::SynRecv
            if !s.midstream
                && sv.flags & crate::tcp::H_SYN != 0
                && !to_server
                && ack
                && !syn
                && !fin =>
        {
            if h.seq != sv.isn.wrapping_add(1) {
                if h.seq != sv.isn {
                    ev.set(E::FourwhsWrongSeq);
                }
                return true;
            }
            if seq_gt(h.ack, c.next_seq) {
                ev.set(E::PktInvalidAck);
                ev.set(E::FourwhsInvalidAck);
                return true;
            }
            false
        }
        TcpState::SynRecv if !s.midstream => {
            if syn && ack {
                if to_server {
                    ev.set(E::ThreewhsSynackToserverOnSynRecv);
                } else if h.ack != c.isn.wrapping_add(1) && h.ack != c.next_seq {
                    ev.set(E::ThreewhsSynackResendWithDiffAck);
                } else if h.seq != sv.isn {
                    ev.set(E::ThreewhsSynackResendWithDiffSeq);
                } else {
                    return false;
                }
                return true;
            }
            if syn {
                if !to_server {
                    ev.set(E::ThreewhsSynToclientOnSynRecv);
                    return true;
                }
                if h.seq != c.isn {
                    ev.set(E::ThreewhsSynResendDiffSeqOnSynRecv);
                    return true;
                }
                return false;
            }
            if spurious(s.half[d.index()], h, payload_len) {
                ev.set(E::PktSpuriousRetransmission);
                return true;
            }
            // A FIN is Suricata's close handling, not the handshake's checks.
            if !ack || fin {
                return false;
            }
            if !to_server && cfg.inline && !cfg.async_oneside {
                ev.set(E::ThreewhsAckInWrongDir);
                return true;
            }
            if (h.seq == c.next_seq && h.ack == sv.next_seq)
                || (cfg.async_oneside && h.seq == sv.next_seq)
            {
                return false;
            }
            // IDS: a server ACK that follows its SYN/ACK says the client's ACK was
            // missed (or more was lost); the state machine completes the handshake.
            let server_goes_on = !to_server
                && ((h.ack == c.last_ack && h.seq == sv.next_seq)
                    || (h.seq != c.next_seq
                        && seq_gt(h.seq, c.next_seq)
                        && seq_gt(h.ack, c.last_ack)));
            if server_goes_on {
                return false;
            }
            ev.set(if h.seq == c.next_seq {
                E::ThreewhsRightSeqWrongAckEvasion
            } else {
                E::ThreewhsWrongSeqWrongAck
            });
            true
        }
        // Once a side closed: the client's SYN or the server's SYN/ACK again, unless the
        // SYN starts a new session on the tuple (make-stream-window.py 40037-40039).
        TcpState::FinWait1
        | TcpState::FinWait2
        | TcpState::CloseWait
        | TcpState::Closing
        | TcpState::LastAck
        | TcpState::TimeWait
            if syn && !fin =>
        {
            if (to_server && !ack && !s.syn_reuses(d, h.seq)) || (!to_server && ack) {
                ev.set(E::ShutdownSynResend);
                return true;
            }
            false
        }
        // A FIN with SYN is the FIN handling's (`tcp_window`).
        TcpState::Established if syn && !fin => {
            ev.set(match (ack, to_server) {
                (true, true) => E::EstSynackToserver,
                (true, false) if h.ack != c.last_ack => E::EstSynackResendWithDiffAck,
                (true, false) if h.seq != sv.isn => E::EstSynackResendWithDiffSeq,
                // Before the server sent anything else the client's ACK may have been
                // lost: the same SYN/ACK again is no anomaly (sv-ether 5.8.88.25:80).
                (true, false) if sv.flags & crate::tcp::H_CONFIRMED == 0 => return false,
                (true, false) => E::EstSynackResend,
                (false, false) => E::EstSynToclient,
                (false, true) if h.seq != c.isn => E::EstSynResendDiffSeq,
                (false, true) => E::EstSynResend,
            });
            true
        }
        _ => {
            if spurious_not_keepalive(s.half[d.index()], h, payload_len) {
                ev.set(E::PktSpuriousRetransmission);
            }
            false
        }
    }
}

/// [`spurious`], unless a keep-alive (one byte or none just before the next sequence
/// number: make-stream-window.py e2).
#[inline]
pub(crate) fn spurious_not_keepalive(
    sender: crate::tcp::Half,
    h: &TcpHeader,
    payload_len: usize,
) -> bool {
    let keepalive = payload_len <= 1 && h.seq == sender.next_seq.wrapping_sub(1);
    !keepalive && spurious(sender, h, payload_len)
}

/// A packet whose payload its receiver had all acknowledged already (Suricata's
/// spurious retransmission): `sender` is the sending side's half.
#[inline]
fn spurious(sender: crate::tcp::Half, h: &TcpHeader, payload_len: usize) -> bool {
    payload_len > 0
        && sender.flags & crate::tcp::H_ISN != 0
        && seq_leq(h.seq.wrapping_add(payload_len as u32), sender.last_ack)
}

fn seq_leq(a: u32, b: u32) -> bool {
    !seq_gt(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::flags::*;

    fn hdr(seq: u32, ack: u32, f: u8) -> TcpHeader {
        TcpHeader {
            seq,
            ack,
            flags: f,
            window: 1000,
            tfo: false,
            wscale: None,
            ts: None,
        }
    }

    const TS: Direction = Direction::ToServer;
    const TC: Direction = Direction::ToClient;

    /// Steps `s` with one packet and returns its events.
    fn step(s: &mut TcpSession, d: Direction, h: TcpHeader, len: usize) -> StreamEvents {
        s.step(&TcpConfig::default(), d, &h, len).events
    }

    fn only(ev: StreamEvents, e: E) -> bool {
        ev.has(e) && ev.iter().count() == 1
    }

    fn syn_recv() -> TcpSession {
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(100, 0, SYN), 0);
        step(&mut s, TC, hdr(500, 101, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynRecv);
        s
    }

    #[test]
    fn syn_resent_with_another_seq_keeps_the_first_isn() {
        // sv-ether 100.73.5.8:45511: SYNs with random sequence and acknowledgement
        // numbers before the real one; the SYN/ACK answers the last.
        let mut s = TcpSession::default();
        assert!(only(
            step(&mut s, TS, hdr(1317, 6974, SYN), 0),
            E::PktBrokenAck
        ));
        step(&mut s, TS, hdr(4291, 0, SYN), 0);
        let e = step(&mut s, TC, hdr(1611, 4292, SYN | ACK), 0);
        assert!(only(e, E::ThreewhsSynackWithWrongAck));
        assert_eq!(s.state, TcpState::SynSent);
    }

    #[test]
    fn no_session_rst_and_fin() {
        let mut s = TcpSession::default();
        assert!(only(
            step(&mut s, TS, hdr(1, 2, RST | ACK), 0),
            E::RstButNoSession
        ));
        assert!(only(
            step(&mut s, TS, hdr(1, 2, FIN | ACK), 0),
            E::FinButNoSession
        ));
        assert!(step(&mut s, TS, hdr(1, 2, ACK), 0).is_empty());
        let mid = TcpConfig {
            midstream: true,
            ..TcpConfig::default()
        };
        let mut s = TcpSession::default();
        assert!(s.step(&mid, TS, &hdr(1, 2, FIN | ACK), 0).events.is_empty());
    }

    #[test]
    fn handshake_synack_checks() {
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(100, 0, SYN), 0);
        let e = step(&mut s, TC, hdr(500, 999, SYN | ACK), 0);
        assert!(only(e, E::ThreewhsSynackWithWrongAck));
        let e = step(&mut s, TS, hdr(500, 101, SYN | ACK), 0);
        assert!(only(e, E::ThreewhsSynackInWrongDirection));
        assert_eq!(s.state, TcpState::SynSent);
        let mut s = syn_recv();
        assert!(only(
            step(&mut s, TC, hdr(500, 102, SYN | ACK), 0),
            E::ThreewhsSynackResendWithDiffAck
        ));
        assert!(only(
            step(&mut s, TC, hdr(501, 101, SYN | ACK), 0),
            E::ThreewhsSynackResendWithDiffSeq
        ));
        assert!(step(&mut s, TC, hdr(500, 101, SYN | ACK), 0).is_empty());
        assert!(only(
            step(&mut s, TS, hdr(500, 101, SYN | ACK), 0),
            E::ThreewhsSynackToserverOnSynRecv
        ));
        assert!(only(
            step(&mut s, TC, hdr(9, 0, SYN), 0),
            E::ThreewhsSynToclientOnSynRecv
        ));
        assert!(only(
            step(&mut s, TS, hdr(7, 0, SYN), 0),
            E::ThreewhsSynResendDiffSeqOnSynRecv
        ));
        assert_eq!(s.state, TcpState::SynRecv);
    }

    #[test]
    fn third_packet_must_complete_the_handshake() {
        let inline = TcpConfig {
            inline: true,
            ..TcpConfig::default()
        };
        let mut s = syn_recv();
        let st = s.step(&inline, TC, &hdr(501, 101, ACK), 0);
        assert!(only(st.events, E::ThreewhsAckInWrongDir));
        // IDS: the server's ACK says the client's was missed.
        let mut ids = syn_recv();
        let st = ids.step(&TcpConfig::default(), TC, &hdr(501, 101, ACK), 0);
        assert!(st.established && st.events.is_empty());
        assert!(only(
            step(&mut s, TS, hdr(101, 777, ACK), 0),
            E::ThreewhsRightSeqWrongAckEvasion
        ));
        let e = step(&mut s, TS, hdr(150, 777, ACK | PSH), 10);
        assert!(only(e, E::ThreewhsWrongSeqWrongAck));
        // The refused packets changed nothing: the right ACK still completes it.
        assert_eq!(s.state, TcpState::SynRecv);
        assert_eq!(s.half[0].next_seq, 101);
        let st = s.step(&TcpConfig::default(), TS, &hdr(101, 501, ACK), 0);
        assert!(st.established && st.events.is_empty());
    }

    #[test]
    fn established_syn_and_synack_again() {
        let mut s = syn_recv();
        step(&mut s, TS, hdr(101, 501, ACK), 0);
        step(&mut s, TS, hdr(101, 501, ACK | PSH), 10);
        step(&mut s, TC, hdr(501, 111, ACK), 0);
        assert!(only(step(&mut s, TS, hdr(100, 0, SYN), 0), E::EstSynResend));
        assert!(only(
            step(&mut s, TS, hdr(5, 0, SYN), 0),
            E::EstSynResendDiffSeq
        ));
        assert!(only(step(&mut s, TC, hdr(5, 0, SYN), 0), E::EstSynToclient));
        assert!(only(
            step(&mut s, TC, hdr(500, 101, SYN | ACK), 0),
            E::EstSynackResendWithDiffAck
        ));
        assert!(only(
            step(&mut s, TC, hdr(400, 111, SYN | ACK), 0),
            E::EstSynackResendWithDiffSeq
        ));
        assert!(only(
            step(&mut s, TC, hdr(500, 111, SYN | ACK), 0),
            E::EstSynackResend
        ));
        assert!(only(
            step(&mut s, TS, hdr(500, 111, SYN | ACK), 0),
            E::EstSynackToserver
        ));
        assert_eq!(s.state, TcpState::Established);
        assert_eq!(s.half[0].next_seq, 111);
        // Before the server's first packet after the handshake: no anomaly.
        let mut s = syn_recv();
        step(&mut s, TS, hdr(101, 501, ACK), 0);
        assert!(step(&mut s, TC, hdr(500, 101, SYN | ACK), 0).is_empty());
        assert_eq!(s.state, TcpState::Established);
    }

    #[test]
    fn syn_again_once_a_side_closed() {
        // make-stream-window.py 40037-40039.
        let closing = |fin_from: Direction| {
            let mut s = syn_recv();
            step(&mut s, TS, hdr(101, 501, ACK), 0);
            let h = if fin_from == TS {
                hdr(101, 501, ACK | FIN)
            } else {
                hdr(501, 101, ACK | FIN)
            };
            step(&mut s, fin_from, h, 0);
            s
        };
        let mut s = closing(TC);
        assert_eq!(s.state, TcpState::FinWait1);
        assert!(only(
            step(&mut s, TS, hdr(100, 0, SYN), 0),
            E::ShutdownSynResend
        ));
        assert!(only(
            step(&mut s, TS, hdr(7777, 0, SYN), 0),
            E::ShutdownSynResend
        ));
        let e = step(&mut s, TC, hdr(500, 101, SYN | ACK), 0);
        assert!(only(e, E::ShutdownSynResend));
        assert_eq!(s.state, TcpState::FinWait1);
        // CLOSE_WAIT: the same SYN again is one; another starts a new session.
        let mut s = closing(TS);
        assert_eq!(s.state, TcpState::CloseWait);
        assert!(only(
            step(&mut s, TS, hdr(100, 0, SYN), 0),
            E::ShutdownSynResend
        ));
        let st = s.step(&TcpConfig::default(), TS, &hdr(9000, 0, SYN), 0);
        assert!(st.reuse && st.events.is_empty());
    }

    #[test]
    fn any_state_broken_ack_and_rst_data() {
        let mut s = syn_recv();
        step(&mut s, TS, hdr(101, 501, ACK), 0);
        assert!(only(step(&mut s, TS, hdr(101, 9, PSH), 3), E::PktBrokenAck));
        let e = step(&mut s, TS, hdr(104, 501, RST | ACK), 4);
        assert!(only(e, E::RstWithData));
        assert_eq!(s.state, TcpState::Closed);
    }

    #[test]
    fn spurious_retransmission_and_missed_client_ack() {
        // sv-ether 10.10.10.2:53104: server data below what its SYN/ACK made
        // acknowledged is a spurious retransmission and completes nothing.
        let mut s = syn_recv();
        let e = step(&mut s, TC, hdr(400, 101, ACK), 50);
        assert!(only(e, E::PktSpuriousRetransmission));
        assert_eq!(s.state, TcpState::SynRecv);
        // A server ACK with a wrong sequence number does not either.
        let e = step(&mut s, TC, hdr(7000, 101, ACK), 0);
        assert!(only(e, E::ThreewhsWrongSeqWrongAck));
        // One that follows the SYN/ACK does: the client's ACK was missed.
        let st = s.step(&TcpConfig::default(), TC, &hdr(501, 101, ACK), 0);
        assert!(st.established && st.events.is_empty());
        step(&mut s, TS, hdr(101, 501, ACK | PSH), 10);
        step(&mut s, TC, hdr(501, 111, ACK), 0);
        let e = step(&mut s, TS, hdr(101, 501, ACK | PSH), 10);
        assert!(only(e, E::PktSpuriousRetransmission));
    }

    #[test]
    fn four_way_handshake_synack_from_the_client_is_no_anomaly() {
        // sv-ether 1.1.1.1:12345 -> 2.2.2.2:80 (packet 82565).
        let mut s = TcpSession::default();
        step(&mut s, TS, hdr(1000, 0, SYN), 0);
        assert!(step(&mut s, TC, hdr(3000, 0, SYN), 0).is_empty());
        assert!(step(&mut s, TS, hdr(1000, 3001, SYN | ACK), 0).is_empty());
        assert_eq!(s.state, TcpState::SynRecv);
        let st = s.step(&TcpConfig::default(), TC, &hdr(3001, 1001, ACK), 0);
        assert!(st.established && st.events.is_empty());
        let st = s.step(&TcpConfig::default(), TS, &hdr(1001, 3001, ACK | PSH), 5);
        assert!(st.accept_data && st.events.is_empty());
    }

    #[test]
    fn four_way_handshake_checks() {
        // make-stream-window.py 40033-40036.
        let four = || {
            let mut s = TcpSession::default();
            step(&mut s, TS, hdr(1000, 0, SYN), 0);
            step(&mut s, TC, hdr(3000, 0, SYN), 0);
            s
        };
        let mut s = four();
        let e = step(&mut s, TS, hdr(1000, 3005, SYN | ACK), 0);
        assert!(only(e, E::FourwhsSynackWithWrongAck));
        let e = step(&mut s, TS, hdr(1007, 3001, SYN | ACK), 0);
        assert!(only(e, E::FourwhsSynackWithWrongSyn));
        assert_eq!(s.state, TcpState::SynSent);
        assert!(step(&mut s, TS, hdr(1000, 3001, SYN | ACK), 0).is_empty());
        assert_eq!(s.state, TcpState::SynRecv);
        assert!(only(
            step(&mut s, TC, hdr(3002, 1001, ACK), 0),
            E::FourwhsWrongSeq
        ));
        assert!(only(
            step(&mut s, TC, hdr(2999, 1001, ACK), 0),
            E::FourwhsWrongSeq
        ));
        // The SYN's own sequence number: ignored without an event.
        assert!(step(&mut s, TC, hdr(3000, 1001, ACK), 0).is_empty());
        let e = step(&mut s, TC, hdr(3001, 1002, ACK), 0);
        assert!(e.has(E::PktInvalidAck) && e.has(E::FourwhsInvalidAck) && e.iter().count() == 2);
        assert_eq!(s.state, TcpState::SynRecv);
        // An older acknowledgement is taken, in inline mode too.
        let inline = TcpConfig {
            inline: true,
            ..TcpConfig::default()
        };
        let st = s.step(&inline, TC, &hdr(3001, 900, ACK), 0);
        assert!(st.established && st.events.is_empty());
    }
}

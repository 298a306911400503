//! TCP receive-window tracking and the checks Suricata 7.0.10 makes on the packets of
//! an established or closing session, with the stream events they raise (learned from
//! its documentation and by running it on crafted captures: `cli/tests/data/
//! make-stream-window.py`, and on sv-ether.pcap).
//!
//! **Windows.** Each [`Half`] keeps the window its sender last advertised (`win`) and
//! the highest sequence number it may send (`next_win`: what the other side
//! acknowledged plus the window the other side advertised; it only grows). The SYN and
//! the SYN/ACK advertise unscaled windows; when both carry the window-scale option,
//! every later window of a side is shifted by that side's own option (at most 14),
//! otherwise by nothing.
//!
//! **Acknowledgements** ([`ack_ok`]): an ACK number is valid when it is at or before
//! the last one seen for the acknowledged side, or after it up to that side's
//! `next_win`. Otherwise the packet raises `pkt_invalid_ack` and its state's
//! `*_invalid_ack`. A FIN's window does not move the other side's `next_win`.
//!
//! **Per state** (Suricata's orientation: the client's FIN moves an established
//! session to CLOSE_WAIT, the server's to FIN_WAIT1):
//!
//! * ESTABLISHED: a FIN before its sender's next sequence number or past its
//!   `next_win` (`fin_out_of_window`), with SYN (`fin_syn`), with an invalid ACK
//!   (`fin_invalid_ack`); an ACK with an invalid ACK number (`est_invalid_ack`), one
//!   that ends before what the other side acknowledged and is no keep-alive
//!   (`est_pkt_before_last_ack`), one that ends past `next_win` and is no zero-window
//!   probe (`est_packet_out_of_window`; its sender's next sequence number still moves,
//!   as Suricata's does);
//! * FIN_WAIT1/FIN_WAIT2: a FIN out of the window (`fin1_fin_wrong_seq`,
//!   `fin2_fin_wrong_seq`), an ACK past `next_win` (`fin1_ack_wrong_seq`,
//!   `fin2_ack_wrong_seq`), invalid ACK numbers (`fin1_invalid_ack`,
//!   `fin2_invalid_ack`);
//! * CLOSE_WAIT: a FIN out of the window (`closewait_fin_out_of_window`), the
//!   server's packets before what the client acknowledged
//!   (`closewait_pkt_before_last_ack`) or past `next_win`
//!   (`closewait_ack_out_of_window`), invalid ACK numbers (`closewait_invalid_ack`);
//! * CLOSING and TIME_WAIT: an ACK (without FIN) whose sequence number is not its
//!   sender's next (`closing_ack_wrong_seq`, `timewait_ack_wrong_seq`), invalid ACK
//!   numbers (`closing_invalid_ack`, `timewait_invalid_ack`); LAST_ACK: the same for
//!   the client's ACKs only (`lastack_ack_wrong_seq`, `lastack_invalid_ack`);
//! * from FIN_WAIT1 on (LAST_ACK: the client's packets): a payload that ends at or
//!   before its sender's next sequence number (`pkt_retransmission`, the packet is
//!   then checked as any other; make-stream-window.py 40031);
//! * any of these states: a RST with an invalid ACK number (`rst_invalid_ack`); an
//!   ACK (without FIN) ahead of its sender's next sequence number that acknowledges
//!   data the other side never sent and whose window ends before the other side's
//!   `next_win` (`pkt_bad_window_update`: the right edge would move back; make-stream-
//!   window.py 40040 to 40059).
//!
//! Every such packet is refused, as Suricata's state functions refuse it (in IDS mode
//! too): it changes no state and gives its stream no data. Sessions picked up
//! midstream or tracked one-sided are not checked (their windows are unknown).

use wire::{StreamEvent as E, StreamEvents};

use crate::tcp::{
    flags, seq_geq, seq_gt, Direction, Half, TcpConfig, TcpHeader, TcpSession, TcpState, H_FIN,
    H_ISN, H_SCALED, H_WSCALE,
};

/// The largest window-scale shift (RFC 7323); larger options count as 14.
const WSCALE_MAX: u8 = 14;

/// Records the window and the window-scale option of the SYN that opens a session
/// (sender `d`).
pub(crate) fn syn(s: &mut TcpSession, d: Direction, h: &TcpHeader) {
    let half = &mut s.half[d.index()];
    half.win = h.window;
    if let Some(ws) = h.wscale {
        half.flags |= H_WSCALE;
        half.wscale = ws.min(WSCALE_MAX);
    }
}

/// The SYN/ACK (sender `d`, the server) answered the SYN: both sides scale their
/// windows when both offered it; the first `next_win` of each side follows from the
/// handshake's unscaled windows.
pub(crate) fn synack(s: &mut TcpSession, d: Direction, h: &TcpHeader) {
    let (si, ci) = (d.index(), d.reverse().index());
    let both = s.half[ci].flags & H_WSCALE != 0 && h.wscale.is_some();
    s.half[si].win = h.window;
    if both {
        s.half[si].wscale = h.wscale.unwrap_or(0).min(WSCALE_MAX);
        s.half[si].flags |= H_WSCALE;
    } else {
        s.half[si].wscale = 0;
        s.half[ci].wscale = 0;
    }
    let (c, sv) = (s.half[ci], s.half[si]);
    s.half[ci].next_win = c.last_ack.wrapping_add(sv.window());
    s.half[si].next_win = sv.last_ack.wrapping_add(c.window());
}

/// After an accepted packet with ACK from sender `d` past the handshake: the sender's
/// advertised window (scaled) and the other side's `next_win`.
pub(crate) fn update(s: &mut TcpSession, d: Direction, h: &TcpHeader) {
    let (di, oi) = (d.index(), d.reverse().index());
    s.half[di].win = h.window;
    s.half[di].flags |= H_SCALED;
    let win = s.half[di].window();
    let o = &mut s.half[oi];
    let nw = o.last_ack.wrapping_add(win);
    if seq_gt(nw, o.next_win) {
        o.next_win = nw;
    }
}

/// Whether the ACK number of `h` is valid for `recv`, the side whose data it
/// acknowledges (Suricata's ACK validation; a packet without ACK is valid).
pub(crate) fn ack_ok(recv: &Half, h: &TcpHeader) -> bool {
    if h.flags & flags::ACK == 0 {
        return true;
    }
    // Suricata 7.0.10 takes any ACK number up to what was acknowledged before (sv-ether
    // and make-stream-window.py: even 100,000 bytes before it).
    !seq_gt(h.ack, recv.last_ack) || seq_geq(recv.next_win, h.ack)
}

/// Whether `check` applies to the session: its handshake was seen and both sides
/// are known.
fn tracked(s: &TcpSession, cfg: &TcpConfig) -> bool {
    !s.midstream
        && !cfg.async_oneside
        && s.half[0].flags & H_ISN != 0
        && s.half[1].flags & H_ISN != 0
        && s.state >= TcpState::Established
        && s.state != TcpState::Closed
}

/// Raises the events of packet `h` (direction `d`, `len` bytes of payload) on an
/// established or closing session into `ev`; returns true when the session must
/// refuse the packet. SYNs are [`crate::tcp_events`]' (a FIN with SYN is checked here).
///
/// `base` is where the sender's stream was consumed up to (its first sequence number
/// when `None`): a payload that ends there or before (a spurious retransmission of
/// bytes long gone, e.g. a replayed session) is refused with no event of its state, as
/// Suricata skips it before its state functions.
pub(crate) fn check(
    s: &mut TcpSession,
    cfg: &TcpConfig,
    d: Direction,
    h: &TcpHeader,
    len: usize,
    base: Option<u32>,
    ev: &mut StreamEvents,
) -> bool {
    if !tracked(s, cfg) {
        return false;
    }
    if released(s, d, h, len, base) {
        return true;
    }
    let end = h.seq.wrapping_add(len as u32);
    let (di, oi) = (d.index(), d.reverse().index());
    let to_server = d == Direction::ToServer;
    let ackf = h.flags & flags::ACK != 0;
    let fin = h.flags & flags::FIN != 0;
    let syn = h.flags & flags::SYN != 0;
    let (snd, rcv) = (s.half[di], s.half[oi]);
    if h.flags & flags::RST != 0 {
        return invalid(ackf && !ack_ok(&rcv, h), E::RstInvalidAck, ev);
    }
    if syn && !fin {
        return false;
    }
    // Ahead of its sender's next sequence number, acknowledging data the other side
    // never sent, and pulling the right edge of the sender's receive window back before
    // what the other side may already send (Suricata's bad window update).
    if ackf && !fin && seq_gt(h.seq, snd.next_seq) && seq_gt(h.ack, rcv.next_seq) {
        let edge = h.ack.wrapping_add(u32::from(h.window) << snd.wscale);
        if seq_gt(rcv.next_win, edge) {
            ev.set(E::PktBadWindowUpdate);
            return true;
        }
    }
    // A FIN before what its sender sent or past what it may send; its own FIN again
    // is no anomaly (sv-ether 127.0.0.1:33734, a capture with every packet twice).
    let floor = if snd.flags & H_FIN != 0 {
        snd.next_seq.wrapping_sub(1)
    } else {
        snd.next_seq
    };
    let fin_oow = seq_gt(floor, h.seq) || seq_gt(h.seq, snd.next_win);
    let bad_ack = !ack_ok(&rcv, h);
    let keepalive = len <= 1 && h.seq == snd.next_seq.wrapping_sub(1);
    let before_last_ack = !keepalive && seq_gt(snd.last_ack, end);
    let past_win = seq_gt(end, snd.next_win);
    let wrong_seq = h.seq != snd.next_seq;
    // Data its sender had all sent before, once a side closed (Suricata's retransmission
    // check of its closing states; the packet goes on to the state's checks). LAST_ACK
    // checks the client's packets only.
    let closing = matches!(
        s.state,
        TcpState::FinWait1
            | TcpState::FinWait2
            | TcpState::CloseWait
            | TcpState::Closing
            | TcpState::TimeWait
    ) || (s.state == TcpState::LastAck && to_server);
    if closing && len > 0 && !seq_gt(end, snd.next_seq) {
        ev.set(E::PktRetransmission);
    }
    match s.state {
        TcpState::Established if fin => {
            if fin_oow {
                ev.set(E::FinOutOfWindow);
                return true;
            }
            if syn {
                ev.set(E::FinSyn);
                return true;
            }
            invalid(bad_ack, E::FinInvalidAck, ev)
        }
        TcpState::Established if ackf => {
            if invalid(bad_ack, E::EstInvalidAck, ev) {
                return true;
            }
            if before_last_ack {
                ev.set(E::EstPktBeforeLastAck);
                return true;
            }
            let zwp = len == 1 && h.seq == snd.next_seq && rcv.win == 0;
            if seq_gt(end, snd.next_seq) {
                s.half[di].next_seq = end;
            }
            if !zwp && past_win {
                ev.set(E::EstPacketOutOfWindow);
                return true;
            }
            false
        }
        TcpState::FinWait1 | TcpState::FinWait2 => {
            let one = s.state == TcpState::FinWait1;
            let pick = |a, b| if one { a } else { b };
            if fin {
                if fin_oow {
                    ev.set(pick(E::Fin1FinWrongSeq, E::Fin2FinWrongSeq));
                    return true;
                }
                return invalid(bad_ack, pick(E::Fin1InvalidAck, E::Fin2InvalidAck), ev);
            }
            if !ackf {
                return false;
            }
            if invalid(bad_ack, pick(E::Fin1InvalidAck, E::Fin2InvalidAck), ev) {
                return true;
            }
            if past_win {
                ev.set(pick(E::Fin1AckWrongSeq, E::Fin2AckWrongSeq));
                return true;
            }
            false
        }
        TcpState::CloseWait => {
            if fin {
                if fin_oow {
                    ev.set(E::ClosewaitFinOutOfWindow);
                    return true;
                }
                return invalid(bad_ack, E::ClosewaitInvalidAck, ev);
            }
            if !ackf {
                return false;
            }
            if invalid(bad_ack, E::ClosewaitInvalidAck, ev) {
                return true;
            }
            // The client closed: its later packets are not checked further.
            if to_server {
                return false;
            }
            if before_last_ack {
                ev.set(E::ClosewaitPktBeforeLastAck);
                return true;
            }
            if past_win {
                ev.set(E::ClosewaitAckOutOfWindow);
                return true;
            }
            false
        }
        TcpState::Closing | TcpState::TimeWait | TcpState::LastAck if ackf && !fin => {
            let (inv, seq) = match s.state {
                TcpState::Closing => (E::ClosingInvalidAck, E::ClosingAckWrongSeq),
                TcpState::TimeWait => (E::TimewaitInvalidAck, E::TimewaitAckWrongSeq),
                // LAST_ACK waits for the client's last ACK only.
                _ if !to_server => return false,
                _ => (E::LastackInvalidAck, E::LastackAckWrongSeq),
            };
            if invalid(bad_ack, inv, ev) {
                return true;
            }
            if wrong_seq {
                ev.set(seq);
                return true;
            }
            false
        }
        _ => false,
    }
}

/// Whether the payload of `h` (direction `d`, `len` bytes) ends at or before `base`,
/// where its sender's stream was consumed up to (its first sequence number when
/// `None`): bytes long released, which Suricata skips before the checks of an
/// established or closing session.
fn released(s: &TcpSession, d: Direction, h: &TcpHeader, len: usize, base: Option<u32>) -> bool {
    let base = base.unwrap_or(s.half[d.index()].isn.wrapping_add(1));
    len > 0 && h.flags & flags::RST == 0 && !seq_gt(h.seq.wrapping_add(len as u32), base)
}

/// When `bad`, raises `pkt_invalid_ack` and `state_event`: the packet is refused.
fn invalid(bad: bool, state_event: E, ev: &mut StreamEvents) -> bool {
    if bad {
        ev.set(E::PktInvalidAck);
        ev.set(state_event);
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::flags::*;

    const TS: Direction = Direction::ToServer;
    const TC: Direction = Direction::ToClient;

    fn hdr(seq: u32, ack: u32, f: u8, window: u16) -> TcpHeader {
        TcpHeader {
            seq,
            ack,
            flags: f,
            window,
            tfo: false,
            wscale: None,
            ts: None,
        }
    }

    fn step(s: &mut TcpSession, d: Direction, h: TcpHeader, len: usize) -> StreamEvents {
        s.step(&TcpConfig::default(), d, &h, len).events
    }

    fn only(ev: StreamEvents, e: &[E]) -> bool {
        e.iter().all(|&x| ev.has(x)) && ev.iter().count() == e.len()
    }

    /// A session through its handshake with the given windows and scale options.
    fn session(cw: Option<u8>, sw: Option<u8>, cwin: u16, swin: u16) -> TcpSession {
        let mut s = TcpSession::default();
        step(
            &mut s,
            TS,
            TcpHeader {
                wscale: cw,
                ..hdr(1000, 0, SYN, cwin)
            },
            0,
        );
        let sa = TcpHeader {
            wscale: sw,
            ..hdr(5000, 1001, SYN | ACK, swin)
        };
        step(&mut s, TC, sa, 0);
        step(&mut s, TS, hdr(1001, 5001, ACK, cwin), 0);
        assert_eq!(s.state, TcpState::Established);
        s
    }

    #[test]
    fn unscaled_window_bounds_the_sender() {
        // make-stream-window.py session 40001: the server advertises 100 bytes.
        let mut s = session(None, None, 1024, 100);
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1024), 100).is_empty());
        assert!(step(&mut s, TC, hdr(5001, 1101, ACK, 100), 0).is_empty());
        let st = s.step(
            &TcpConfig::default(),
            TS,
            &hdr(1101, 5001, ACK | PSH, 1024),
            150,
        );
        assert!(only(st.events, &[E::EstPacketOutOfWindow]) && !st.accept_data);
        // Its sender's next sequence number moved all the same, as in Suricata.
        assert_eq!(s.half[0].next_seq, 1251);
        let st = s.step(
            &TcpConfig::default(),
            TS,
            &hdr(1101, 5001, ACK | PSH, 1024),
            100,
        );
        assert!(st.events.is_empty() && st.accept_data);
    }

    #[test]
    fn scaling_needs_both_options_and_uses_each_sides_own_shift() {
        let mut s = session(Some(7), Some(7), 1024, 100);
        step(&mut s, TC, hdr(5001, 1001, ACK, 100), 0);
        assert_eq!(s.half[1].window(), 12800);
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1024), 10000).is_empty());
        // Only the SYN/ACK offered it: no scaling.
        let mut s = session(None, Some(7), 1024, 100);
        step(&mut s, TC, hdr(5001, 1001, ACK, 100), 0);
        let e = step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1024), 1000);
        assert!(only(e, &[E::EstPacketOutOfWindow]));
        // Client 1, server 9 (session 40004): each side's windows by its own shift.
        let mut s = session(Some(1), Some(9), 100, 100);
        step(&mut s, TC, hdr(5001, 1001, ACK, 100), 0);
        step(&mut s, TS, hdr(1001, 5001, ACK, 100), 0);
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 100), 1000).is_empty());
        let e = step(&mut s, TC, hdr(5001, 2001, ACK | PSH, 100), 300);
        assert!(only(e, &[E::EstPacketOutOfWindow]));
        // Shifts over 14 count as 14.
        let s = session(Some(30), Some(30), 1, 1);
        assert_eq!((s.half[0].wscale, s.half[1].wscale), (14, 14));
    }

    #[test]
    fn invalid_acks_and_packets_before_last_ack() {
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        step(&mut s, TC, hdr(5001, 1011, ACK | PSH, 1000), 10);
        let e = step(&mut s, TS, hdr(1011, 9000, ACK | PSH, 1000), 10);
        assert!(only(e, &[E::PktInvalidAck, E::EstInvalidAck]));
        // Before last_ack by more than the window.
        // Any ACK number before what was acknowledged is valid.
        assert!(step(&mut s, TS, hdr(1011, 5011 - 3000, ACK, 1000), 0).is_empty());
        step(&mut s, TC, hdr(5011, 1011, ACK, 1000), 0);
        // A keep-alive is no packet before last_ack; an older ACK is.
        assert!(step(&mut s, TS, hdr(1010, 5011, ACK, 1000), 0).is_empty());
        let e = step(&mut s, TS, hdr(1005, 5011, ACK, 1000), 0);
        assert!(only(e, &[E::EstPktBeforeLastAck]));
    }

    #[test]
    fn zero_window_probe_is_not_out_of_window() {
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        step(&mut s, TC, hdr(5001, 1011, ACK, 0), 0);
        // next_win only grows: it is still 2001.
        assert_eq!(s.half[0].next_win, 2001);
        assert!(step(&mut s, TS, hdr(1011, 5001, ACK | PSH, 1000), 1).is_empty());
        let e = step(&mut s, TS, hdr(1012, 5001, ACK | PSH, 1000), 1000);
        assert!(only(e, &[E::EstPacketOutOfWindow]));
    }

    #[test]
    fn fin_checks_in_established() {
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        let e = step(&mut s, TS, hdr(900, 5001, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::FinOutOfWindow]));
        let e = step(&mut s, TS, hdr(90000, 5001, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::FinOutOfWindow]));
        let e = step(&mut s, TS, hdr(1011, 77777, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::FinInvalidAck]));
        let e = step(&mut s, TS, hdr(1011, 5001, SYN | FIN | ACK, 1000), 0);
        assert!(only(e, &[E::FinSyn]));
        let e = step(&mut s, TC, hdr(5001, 88888, ACK | RST, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::RstInvalidAck]));
        assert_eq!(s.state, TcpState::Established);
        assert!(step(&mut s, TS, hdr(1011, 5001, ACK | FIN, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::CloseWait);
    }

    #[test]
    fn server_closes_first_fin_wait_and_time_wait() {
        // Session 40007 and e2 of make-stream-window.py.
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        assert!(step(&mut s, TC, hdr(5001, 1011, ACK | FIN, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::FinWait1);
        // The same FIN again is no anomaly.
        assert!(step(&mut s, TC, hdr(5001, 1011, ACK | FIN, 1000), 0).is_empty());
        let e = step(&mut s, TS, hdr(1011, 99999, ACK, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::Fin1InvalidAck]));
        let e = step(&mut s, TS, hdr(3000, 5002, ACK, 1000), 0);
        assert!(only(e, &[E::Fin1AckWrongSeq]));
        // Inside the window but not the client's next sequence number: no event, and
        // still FIN_WAIT1 (make-stream-window.py e2); the right one moves on.
        assert!(step(&mut s, TS, hdr(1500, 5002, ACK, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::FinWait1);
        assert!(step(&mut s, TS, hdr(1011, 5002, ACK, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::FinWait2);
        let e = step(&mut s, TS, hdr(9000, 5002, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::Fin2FinWrongSeq]));
        let e = step(&mut s, TS, hdr(1005, 5002, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::Fin2FinWrongSeq]));
        assert!(step(&mut s, TS, hdr(1011, 5002, ACK | FIN, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::TimeWait);
        let e = step(&mut s, TC, hdr(7000, 1012, ACK, 1000), 0);
        assert!(only(e, &[E::TimewaitAckWrongSeq]));
        let e = step(&mut s, TC, hdr(5002, 99999, ACK, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::TimewaitInvalidAck]));
        assert!(
            s.step(&TcpConfig::default(), TC, &hdr(5002, 1012, ACK, 1000), 0)
                .closed
        );
    }

    #[test]
    fn client_closes_first_close_wait_and_last_ack() {
        // Session 40006 of make-stream-window.py.
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        step(&mut s, TC, hdr(5001, 1011, ACK, 1000), 0);
        step(&mut s, TS, hdr(1011, 5001, ACK | FIN, 1000), 0);
        assert_eq!(s.state, TcpState::CloseWait);
        let e = step(&mut s, TC, hdr(7000, 1012, ACK, 1000), 0);
        assert!(only(e, &[E::ClosewaitAckOutOfWindow]));
        let e = step(&mut s, TC, hdr(5001, 99999, ACK, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::ClosewaitInvalidAck]));
        assert!(step(&mut s, TS, hdr(1500, 5001, ACK, 1000), 0).is_empty());
        let e = step(&mut s, TC, hdr(8000, 1012, ACK | FIN, 1000), 0);
        assert!(only(e, &[E::ClosewaitFinOutOfWindow]));
        assert!(step(&mut s, TC, hdr(5001, 1012, ACK | FIN, 1000), 0).is_empty());
        assert_eq!(s.state, TcpState::LastAck);
        // The server's packets are not checked in LAST_ACK, the client's are.
        assert!(step(&mut s, TC, hdr(9000, 1012, ACK, 1000), 0).is_empty());
        let e = step(&mut s, TS, hdr(1700, 5002, ACK, 1000), 0);
        assert!(only(e, &[E::LastackAckWrongSeq]));
        let e = step(&mut s, TS, hdr(1012, 99999, ACK, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::LastackInvalidAck]));
        assert!(
            s.step(&TcpConfig::default(), TS, &hdr(1012, 5002, ACK, 1000), 0)
                .closed
        );
    }

    #[test]
    fn closing_both_fins_unacknowledged() {
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TC, hdr(5001, 1001, ACK | FIN, 1000), 0);
        step(&mut s, TS, hdr(1001, 0, FIN, 1000), 0);
        assert_eq!(s.state, TcpState::Closing);
        let e = step(&mut s, TS, hdr(1500, 5002, ACK, 1000), 0);
        assert!(only(e, &[E::ClosingAckWrongSeq]));
        let e = step(&mut s, TC, hdr(5002, 99999, ACK, 1000), 0);
        assert!(only(e, &[E::PktInvalidAck, E::ClosingInvalidAck]));
        step(&mut s, TC, hdr(5002, 1002, ACK, 1000), 0);
        assert_eq!(s.state, TcpState::TimeWait);
        assert!(
            s.step(&TcpConfig::default(), TS, &hdr(1002, 5002, ACK, 1000), 0)
                .closed
        );
    }

    #[test]
    fn bad_window_updates_are_refused() {
        // make-stream-window.py 40040 to 40059: after 10 bytes each way, the server
        // may send up to 6001 (its next_win).
        let first = |h: TcpHeader, d: Direction| {
            let mut s = session(None, None, 1000, 1000);
            step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
            step(&mut s, TC, hdr(5001, 1011, ACK | PSH, 1000), 10);
            let st = s.step(&TcpConfig::default(), d, &h, 0);
            (st.events, st.accept_data, s)
        };
        let (e, _, s) = first(hdr(1500, 5100, ACK, 100), TS);
        assert!(only(e, &[E::PktBadWindowUpdate]));
        assert_eq!(s.half[0].next_seq, 1011);
        // The edge just before 6001, with an ACK of one unseen byte: refused.
        assert!(only(
            first(hdr(1500, 5012, ACK, 988), TS).0,
            &[E::PktBadWindowUpdate]
        ));
        // The edge at 6001, a FIN, an ACK of seen data, the sender's next sequence
        // number: no event.
        assert!(first(hdr(1500, 5012, ACK, 989), TS).0.is_empty());
        assert!(first(hdr(1500, 5100, ACK | FIN, 100), TS).0.is_empty());
        assert!(first(hdr(1500, 5011, ACK, 100), TS).0.is_empty());
        assert!(first(hdr(1011, 5100, ACK, 100), TS).0.is_empty());
        // The server's side the same way.
        assert!(only(
            first(hdr(5500, 1100, ACK, 100), TC).0,
            &[E::PktBadWindowUpdate]
        ));
    }

    #[test]
    fn retransmissions_once_a_side_closed() {
        // make-stream-window.py 40031: the client closed, the server resends.
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | FIN, 1000), 0);
        assert_eq!(s.state, TcpState::CloseWait);
        assert!(step(&mut s, TC, hdr(5001, 1002, ACK | PSH, 1000), 10).is_empty());
        let e = step(&mut s, TC, hdr(5001, 1002, ACK | PSH, 1000), 10);
        assert!(only(e, &[E::PktRetransmission]));
        let e = step(&mut s, TC, hdr(5005, 1002, ACK | PSH, 1000), 6);
        assert!(only(e, &[E::PktRetransmission]));
        // Past the next sequence number, or without payload: none.
        assert!(step(&mut s, TC, hdr(5005, 1002, ACK | PSH, 1000), 10).is_empty());
        assert!(step(&mut s, TC, hdr(5005, 1002, ACK, 1000), 0).is_empty());
        // The client's data again in CLOSE_WAIT too.
        let e = step(&mut s, TS, hdr(1001, 5001, ACK, 1000), 1);
        assert!(e.has(E::PktRetransmission));
        // Established: a retransmission is no event.
        let mut s = session(None, None, 1000, 1000);
        step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10);
        assert!(step(&mut s, TS, hdr(1001, 5001, ACK | PSH, 1000), 10).is_empty());
        // LAST_ACK: not the server's.
        step(&mut s, TS, hdr(1011, 5001, ACK | FIN, 1000), 0);
        step(&mut s, TC, hdr(5001, 1012, ACK | PSH, 1000), 10);
        step(&mut s, TC, hdr(5011, 1012, ACK | FIN, 1000), 0);
        assert_eq!(s.state, TcpState::LastAck);
        assert!(step(&mut s, TC, hdr(5001, 1012, ACK | PSH, 1000), 10).is_empty());
    }

    #[test]
    fn midstream_sessions_are_not_checked() {
        let cfg = TcpConfig {
            midstream: true,
            ..TcpConfig::default()
        };
        let mut s = TcpSession::default();
        s.step(&cfg, TS, &hdr(1000, 2000, ACK | PSH, 10), 5);
        let st = s.step(&cfg, TS, &hdr(1005, 999_999, ACK | PSH, 10), 50_000);
        assert!(st.events.is_empty() && st.accept_data);
    }

    #[test]
    fn ack_validation_edges() {
        let h = Half {
            last_ack: 100,
            next_win: 200,
            win: 50,
            ..Half::default()
        };
        let a = |n| ack_ok(&h, &hdr(0, n, ACK, 0));
        assert!(a(100) && a(150) && a(200) && a(50) && a(1) && a(100u32.wrapping_sub(100_000)));
        assert!(!a(201) && !a(9999));
        assert!(ack_ok(&h, &hdr(0, 9999, PSH, 0)));
        // Wrapping sequence space.
        let w = Half {
            last_ack: u32::MAX - 10,
            next_win: 20,
            win: 100,
            ..Half::default()
        };
        assert!(ack_ok(&w, &hdr(0, 5, ACK, 0)) && !ack_ok(&w, &hdr(0, 21, ACK, 0)));
    }
}

//! TCP session state tracking (RFC 793 states as Suricata names them), kept inline in
//! the flow entry. The reassembly buffers live out of line (see `tracker`).

pub use wire::Direction;

/// TCP flag bits (declared once, in `wire`).
pub use wire::tcp_flags as flags;

/// The TCP fields the tracker uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Flag bits (see [`flags`]).
    pub flags: u8,
    /// Advertised window (unscaled).
    pub window: u16,
    /// A SYN that carries a TCP Fast Open option (see [`crate::tfo`]): only then is
    /// its payload stream data, as in Suricata; other SYN payloads are the packet's.
    pub tfo: bool,
    /// The window-scale option's shift, when the header carries one (only a SYN's or
    /// a SYN/ACK's counts, see [`crate::tcp_window`]).
    pub wscale: Option<u8>,
    /// The timestamp option (value, echo reply), when the header carries one (see
    /// [`crate::tcp_paws`]).
    pub ts: Option<(u32, u32)>,
}

impl TcpHeader {
    /// True when all bits of `f` are set.
    pub fn has(&self, f: u8) -> bool {
        self.flags & f == f
    }
}

/// Session state (Suricata's `tcp_state` names in `flow.end.tcp_state.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum TcpState {
    /// No session (no SYN seen and midstream pick-up off).
    #[default]
    None,
    /// SYN seen.
    SynSent,
    /// SYN/ACK seen.
    SynRecv,
    /// Handshake complete (or picked up midstream).
    Established,
    /// Client sent FIN.
    FinWait1,
    /// Client's FIN acknowledged.
    FinWait2,
    /// Both sent FIN before either was acknowledged.
    Closing,
    /// Server sent FIN first.
    CloseWait,
    /// Server sent FIN first, then the client did.
    LastAck,
    /// Both FINs, waiting for the last ACK.
    TimeWait,
    /// Closed (final ACK or RST).
    Closed,
}

impl TcpState {
    /// Suricata's name for the state.
    pub fn name(self) -> &'static str {
        match self {
            TcpState::None => "none",
            TcpState::SynSent => "syn_sent",
            TcpState::SynRecv => "syn_recv",
            TcpState::Established => "established",
            TcpState::FinWait1 => "fin_wait1",
            TcpState::FinWait2 => "fin_wait2",
            TcpState::Closing => "closing",
            TcpState::CloseWait => "close_wait",
            TcpState::LastAck => "last_ack",
            TcpState::TimeWait => "time_wait",
            TcpState::Closed => "closed",
        }
    }

    /// All states, in `name` order of the counters.
    pub const ALL: [TcpState; 11] = [
        TcpState::None,
        TcpState::SynSent,
        TcpState::SynRecv,
        TcpState::Established,
        TcpState::FinWait1,
        TcpState::FinWait2,
        TcpState::Closing,
        TcpState::CloseWait,
        TcpState::LastAck,
        TcpState::TimeWait,
        TcpState::Closed,
    ];

    /// Flow-level state class for timeouts: 0 new, 1 established, 2 closed.
    pub fn flow_class(self) -> u8 {
        match self {
            TcpState::None | TcpState::SynSent | TcpState::SynRecv => 0,
            TcpState::Established
            | TcpState::FinWait1
            | TcpState::FinWait2
            | TcpState::CloseWait => 1,
            TcpState::Closing | TcpState::LastAck | TcpState::TimeWait | TcpState::Closed => 2,
        }
    }
}

/// `a` is after `b` in sequence space.
#[inline]
pub fn seq_gt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// `a` is at or after `b` in sequence space.
#[inline]
pub fn seq_geq(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// One direction of a session: the sender's sequence space as the tracker learned it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Half {
    /// Initial sequence number of this sender.
    pub isn: u32,
    /// Next sequence number expected from this sender (highest seen end).
    pub next_seq: u32,
    /// Highest acknowledgement the other side sent for this sender's data.
    pub last_ack: u32,
    /// Bit flags: see the `H_*` constants.
    pub flags: u8,
    /// The highest sequence number this sender may send: what the other side
    /// acknowledged plus the window the other side advertised (Suricata's `next_win`;
    /// it only grows).
    pub next_win: u32,
    /// The window field this sender last advertised, as sent (see [`Half::window`]).
    pub win: u16,
    /// The shift applied to this sender's advertised windows after the handshake: its
    /// SYN's or SYN/ACK's window-scale option when both handshake packets carry one,
    /// else 0.
    pub wscale: u8,
    /// The timestamp this sender last sent on a packet without payload (or on its
    /// handshake packet), when the session checks timestamps (see
    /// [`crate::tcp_paws`]); 0: not checked.
    pub last_ts: u32,
}

impl Half {
    /// The receive window this sender last advertised, in bytes (Suricata's
    /// `window`): the handshake's windows are not scaled, later ones are.
    pub fn window(&self) -> u32 {
        let shift = if self.flags & H_SCALED != 0 {
            self.wscale
        } else {
            0
        };
        u32::from(self.win) << shift
    }

    /// Whether this sender's FIN was seen and `ack` acknowledges it (and everything
    /// the sender sent before).
    fn fin_acked_by(&self, ack: u32) -> bool {
        self.flags & H_FIN != 0 && seq_geq(ack, self.next_seq)
    }
}

/// ISN known.
pub(crate) const H_ISN: u8 = 1;
/// An acknowledgement of this sender's data has been seen.
pub(crate) const H_ACKED: u8 = 2;
/// This sender sent a FIN.
pub(crate) const H_FIN: u8 = 4;
/// The server sent a SYN of its own while the client's was pending (a four-way
/// handshake).
pub(crate) const H_SYN: u8 = 8;
/// The server sent a packet other than a SYN/ACK once the session was established
/// (Suricata's confirmed handshake: a SYN/ACK again is then an anomaly).
pub(crate) const H_CONFIRMED: u8 = 16;
/// This sender's SYN or SYN/ACK carried a window-scale option (shift in `wscale`
/// until the handshake says whether both sides scale).
pub(crate) const H_WSCALE: u8 = 32;
/// [`Half::win`] came from a packet after the handshake: it is scaled.
pub(crate) const H_SCALED: u8 = 64;
/// This sender's SYN or SYN/ACK carried the timestamp option (both: the session checks
/// timestamps, see [`crate::tcp_paws`]).
pub(crate) const H_TS: u8 = 128;

/// Session state, inline in the flow entry (about 44 bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpSession {
    /// Current state.
    pub state: TcpState,
    /// The session was picked up without a handshake.
    pub midstream: bool,
    /// Per direction ([`Direction::index`]).
    pub half: [Half; 2],
}

/// What one packet did to the session, for the tracker's events and counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStep {
    /// The session was created by this packet.
    pub created: bool,
    /// The session became established on this packet.
    pub established: bool,
    /// The session closed on this packet.
    pub closed: bool,
    /// This SYN reuses the 5-tuple of a finished session: end the flow, start anew.
    pub reuse: bool,
    /// The packet's payload should go to this direction's stream.
    pub accept_data: bool,
    /// The packet's ACK acknowledged data never seen.
    pub ack_unseen: bool,
    /// The stream events the packet raised (see [`crate::tcp_events`]).
    pub events: wire::StreamEvents,
}

/// Options of the tracker that change TCP behaviour.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpConfig {
    /// Pick up sessions without a handshake (`stream.midstream`, off by default).
    pub midstream: bool,
    /// Track sessions of which only one direction is captured
    /// (`stream.async-oneside`): the SYN/ACK sender's ACK completes the handshake.
    pub async_oneside: bool,
    /// Inline stream mode (`stream.inline`, copied from the tracker's configuration):
    /// a server ACK before the client's completes no handshake.
    pub inline: bool,
}

impl TcpSession {
    fn set_isn(&mut self, d: Direction, seq: u32) {
        let h = &mut self.half[d.index()];
        h.isn = seq;
        h.next_seq = seq.wrapping_add(1);
        h.last_ack = seq.wrapping_add(1);
        h.flags = H_ISN;
    }

    /// Start tracking a sender picked up midstream at `seq`.
    fn pick_up(&mut self, d: Direction, seq: u32) {
        let h = &mut self.half[d.index()];
        h.isn = seq.wrapping_sub(1);
        h.next_seq = seq;
        h.last_ack = seq;
        h.flags = H_ISN;
    }

    /// Advance the session for a packet in direction `d` of a flow whose first packet
    /// was this one when `first` is set. `to_server_is_sender` tells a packet that
    /// creates a session which direction its sender is (set by the caller's swap).
    pub fn step(
        &mut self,
        cfg: &TcpConfig,
        d: Direction,
        h: &TcpHeader,
        payload_len: usize,
    ) -> TcpStep {
        self.step_at(cfg, d, h, payload_len, None)
    }

    /// [`TcpSession::step`] knowing `base`, the sequence number up to which the
    /// sender's stream was consumed and released (see [`crate::tcp_window::check`]).
    pub fn step_at(
        &mut self,
        cfg: &TcpConfig,
        d: Direction,
        h: &TcpHeader,
        payload_len: usize,
        base: Option<u32>,
    ) -> TcpStep {
        use flags::*;
        let mut st = TcpStep::default();
        let syn = h.flags & SYN != 0;
        let ack = h.flags & ACK != 0;
        let rst = h.flags & RST != 0;
        let fin = h.flags & FIN != 0;
        let di = d.index();
        let oi = d.reverse().index();
        // Timestamps first, except in SYN_SENT: a SYN/ACK's acknowledgement is checked
        // before its timestamps (sv-ether 100.73.5.8:45511).
        let syn_sent = self.state == TcpState::SynSent;
        if (!syn_sent && crate::tcp_paws::check(self, d, h, payload_len, &mut st.events))
            || crate::tcp_events::check(self, cfg, d, h, payload_len, &mut st.events)
            || (syn_sent && crate::tcp_paws::check(self, d, h, payload_len, &mut st.events))
            || crate::tcp_window::check(self, cfg, d, h, payload_len, base, &mut st.events)
        {
            return st;
        }
        crate::tcp_paws::update(self, d, h, payload_len);
        let before = self.state;
        match self.state {
            TcpState::None => {
                if syn && !ack && !rst {
                    self.set_isn(d, h.seq);
                    crate::tcp_window::syn(self, d, h);
                    crate::tcp_paws::syn(self, d, h);
                    self.state = TcpState::SynSent;
                    st.created = true;
                    // TCP Fast Open: data on a SYN with the TFO option.
                    st.accept_data = payload_len > 0 && h.tfo;
                } else if !rst && (cfg.midstream || (cfg.async_oneside && syn && ack)) {
                    // Pick-up: any packet with `stream.midstream`; a SYN/ACK also with
                    // `stream.async-oneside` (the client's SYN was not captured).
                    st.created = true;
                    self.midstream = true;
                    if syn && ack {
                        // The SYN/ACK's sender is the server (caller swapped directions).
                        self.set_isn(d, h.seq);
                        self.pick_up(d.reverse(), h.ack);
                        self.state = TcpState::SynRecv;
                    } else {
                        self.pick_up(d, h.seq);
                        if ack {
                            self.pick_up(d.reverse(), h.ack);
                        }
                        self.state = TcpState::Established;
                        st.established = true;
                        st.accept_data = true;
                    }
                }
                if st.created {
                    self.half[di].next_seq = self.half[di]
                        .next_seq
                        .wrapping_add(payload_len as u32 * st.accept_data as u32);
                }
                return st;
            }
            TcpState::SynSent => {
                if syn && ack && d == Direction::ToClient && !rst {
                    // TCP Fast Open: the SYN/ACK may acknowledge the SYN's data too.
                    if h.ack == self.half[oi].isn.wrapping_add(1) || h.ack == self.half[oi].next_seq
                    {
                        self.set_isn(d, h.seq);
                        self.half[oi].last_ack = h.ack;
                        self.half[oi].flags |= H_ACKED;
                        crate::tcp_window::synack(self, d, h);
                        crate::tcp_paws::synack(self, d, h);
                        self.state = TcpState::SynRecv;
                    }
                    return st;
                }
                if cfg.async_oneside
                    && ack
                    && !syn
                    && !rst
                    && d == Direction::ToServer
                    && h.seq == self.half[di].isn.wrapping_add(1)
                {
                    // Asynchronous capture: the client's ACK of a SYN/ACK never seen
                    // completes the handshake; the server starts at what it acks.
                    self.pick_up(Direction::ToClient, h.ack);
                    self.state = TcpState::Established;
                    st.established = true;
                } else if !cfg.async_oneside && !syn && !rst {
                    // As Suricata: packets other than SYNs and RSTs before any SYN/ACK
                    // change nothing (the sequence spaces start with the handshake).
                    return st;
                } else if rst && d == Direction::ToServer && !self.client_rst_closes_syn_sent(h) {
                    // Suricata's SYN_SENT state ignores a client RST unless it is the
                    // one a stack sends to abort its own SYN: a RST answering a stray
                    // ACK (sequence taken from that ACK) leaves the SYN pending, and the
                    // retransmitted SYN then opens the session.
                    return st;
                } else if syn && !ack && d == Direction::ToClient && !rst {
                    // The server's own SYN: a four-way handshake (its sequence space
                    // starts here; the client's SYN/ACK answers it).
                    self.set_isn(d, h.seq);
                    self.half[di].flags |= H_SYN;
                    crate::tcp_window::syn(self, d, h);
                    crate::tcp_paws::syn(self, d, h);
                    return st;
                } else if syn
                    && ack
                    && d == Direction::ToServer
                    && !rst
                    && self.half[oi].flags & H_SYN != 0
                {
                    // The client's SYN/ACK of a four-way handshake (`tcp_events` checked
                    // that it acknowledges the server's SYN).
                    self.half[oi].last_ack = h.ack;
                    self.half[oi].flags |= H_ACKED;
                    crate::tcp_window::synack(self, d, h);
                    crate::tcp_paws::synack(self, d, h);
                    self.state = TcpState::SynRecv;
                    return st;
                } else if syn && !ack && d == Direction::ToServer {
                    // Retransmitted SYN: as Suricata, the session keeps the first
                    // SYN's ISN (a SYN/ACK answering another one has the wrong ack).
                    st.accept_data = payload_len > 0 && h.tfo && h.seq == self.half[di].isn;
                    return st;
                }
            }
            // Four-way handshake: the server's ACK of the client's SYN/ACK.
            TcpState::SynRecv
                if self.half[di].flags & H_SYN != 0
                    && !self.midstream
                    && ack
                    && !syn
                    && !rst
                    && d == Direction::ToClient =>
            {
                self.state = TcpState::Established;
                st.established = true;
            }
            TcpState::SynRecv
                if ack
                    && !syn
                    && d == Direction::ToServer
                    && !rst
                    && seq_geq(h.ack, self.half[oi].isn.wrapping_add(1)) =>
            {
                self.state = TcpState::Established;
                st.established = true;
            }
            // Asynchronous capture: the server's own ACK after its SYN/ACK.
            TcpState::SynRecv
                if cfg.async_oneside
                    && ack
                    && !syn
                    && !rst
                    && d == Direction::ToClient
                    && seq_geq(h.seq, self.half[di].isn.wrapping_add(1)) =>
            {
                self.state = TcpState::Established;
                st.established = true;
            }
            // As Suricata in IDS mode: a server ACK after its SYN/ACK says the client's
            // ACK was missed; the handshake is complete (`tcp_events::check` refused
            // the ones that do not follow the SYN/ACK).
            TcpState::SynRecv
                if !cfg.inline
                    && !self.midstream
                    && ack
                    && !syn
                    && !rst
                    && d == Direction::ToClient =>
            {
                self.state = TcpState::Established;
                st.established = true;
            }
            // A new SYN on a finished session: the 5-tuple is reused.
            _ if syn && !ack && self.syn_reuses(d, h.seq) => {
                st.reuse = true;
                return st;
            }
            _ => {}
        }
        if rst {
            if self.state != TcpState::Closed {
                self.state = TcpState::Closed;
                st.closed = true;
                // Like Suricata, an accepted RST counts everything either side sent as
                // acknowledged: it still reaches the app layer when the flow ends.
                for half in &mut self.half {
                    if (half.next_seq.wrapping_sub(half.last_ack) as i32) > 0 {
                        half.last_ack = half.next_seq;
                    }
                }
            }
            return st;
        }
        // Sequence tracking for this sender.
        if self.half[di].flags & H_ISN == 0 && !syn {
            // First packet from this side of a session picked up from the other side.
            self.pick_up(d, h.seq);
        }
        let seq_ok = h.seq == self.half[di].next_seq;
        // A FIN takes a sequence number once; an empty ACK ahead moves nothing.
        let new_fin = fin && self.half[di].flags & H_FIN == 0;
        let end = h
            .seq
            .wrapping_add(payload_len as u32)
            .wrapping_add(new_fin as u32);
        if (payload_len > 0 || new_fin) && seq_gt(end, self.half[di].next_seq) {
            self.half[di].next_seq = end;
        }
        if !syn && d == Direction::ToClient && self.state >= TcpState::Established {
            self.half[di].flags |= H_CONFIRMED;
        }
        // Data counts from the handshake's second step until the session closed.
        st.accept_data =
            payload_len > 0 && self.state >= TcpState::SynRecv && self.state != TcpState::Closed;
        // Acknowledgement of the other side's data.
        if ack && self.half[oi].flags & H_ISN != 0 {
            let o = &mut self.half[oi];
            if seq_gt(h.ack, o.next_seq) {
                st.ack_unseen = true;
            }
            if seq_gt(h.ack, o.last_ack) || o.flags & H_ACKED == 0 {
                o.last_ack = h.ack;
                o.flags |= H_ACKED;
            }
        }
        if ack && !syn && !fin && before >= TcpState::SynRecv {
            crate::tcp_window::update(self, d, h);
        }
        if new_fin {
            self.half[di].flags |= H_FIN;
        }
        self.state = self.close_state(d, h, seq_ok);
        st.closed = self.state == TcpState::Closed && before != TcpState::Closed;
        st
    }

    /// Whether a client RST in SYN_SENT closes the session: as in Suricata, only one with
    /// the client's ISN as sequence number, a zero window and the ISN + 1 as
    /// acknowledgement.
    fn client_rst_closes_syn_sent(&self, h: &TcpHeader) -> bool {
        let isn = self.half[Direction::ToServer.index()].isn;
        h.seq == isn && h.window == 0 && h.ack == isn.wrapping_add(1)
    }

    /// Does a SYN (without ACK) with sequence number `seq` in direction `d` start a new
    /// session on this 5-tuple? As Suricata decides: when there is no session, or the
    /// session has reached LAST_ACK, CLOSE_WAIT, CLOSING or CLOSED (Suricata's states
    /// from LAST_ACK on); a client SYN with the session's own ISN is a retransmission.
    pub fn syn_reuses(&self, d: Direction, seq: u32) -> bool {
        use TcpState::*;
        if self.state == None {
            return true;
        }
        if d == Direction::ToServer && seq == self.half[0].isn {
            return false;
        }
        matches!(self.state, LastAck | CloseWait | Closing | Closed)
    }

    /// The close-sequence transitions after a packet in direction `d`, in
    /// Suricata's orientation: the client's FIN moves an established session to
    /// CLOSE_WAIT, then the server's to LAST_ACK; the server's FIN to FIN_WAIT1, the
    /// client's ACK of it to FIN_WAIT2 and its FIN to TIME_WAIT (CLOSING when that FIN
    /// has no ACK flag); an ACK of the other side's FIN closes.
    fn close_state(&self, d: Direction, h: &TcpHeader, seq_ok: bool) -> TcpState {
        let (fin, ack, ackno) = (h.has(flags::FIN), h.has(flags::ACK), h.ack);
        // This packet acknowledges the other side's FIN.
        let acks_fin = |x: Direction| ack && d != x && self.half[x.index()].fin_acked_by(ackno);
        let other = d.reverse();
        use Direction::{ToClient, ToServer};
        use TcpState::*;
        match (self.state, d) {
            (Established, ToServer) if fin => CloseWait,
            (Established, ToClient) if fin => FinWait1,
            // With ACK, whatever it acknowledges (sv-ether's UPnP flows: the client's
            // FIN does not acknowledge the server's FIN, the server's ACK closes).
            (FinWait1, ToServer) if fin => {
                if ack {
                    TimeWait
                } else {
                    Closing
                }
            }
            // Only with the client's next sequence number (make-stream-window.py e2).
            (FinWait1, ToServer) if acks_fin(ToClient) && seq_ok => FinWait2,
            (FinWait2, ToServer) if fin => TimeWait,
            (CloseWait, ToClient) if fin => LastAck,
            (Closing, _) if acks_fin(other) => TimeWait,
            (LastAck, ToServer) if acks_fin(ToClient) => Closed,
            (TimeWait, _) if acks_fin(other) => Closed,
            (s, _) => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::flags::*;
    use super::*;

    fn hdr(seq: u32, ack: u32, f: u8) -> TcpHeader {
        TcpHeader {
            seq,
            ack,
            flags: f,
            window: 65535,
            tfo: false,
            wscale: None,
            ts: None,
        }
    }

    /// A SYN with the TCP Fast Open option.
    fn tfo_syn(seq: u32) -> TcpHeader {
        TcpHeader {
            tfo: true,
            ..hdr(seq, 0, SYN)
        }
    }

    #[test]
    fn handshake_data_and_close() {
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(100, 0, SYN), 0)
                .created
        );
        assert_eq!(s.state, TcpState::SynSent);
        s.step(&cfg, Direction::ToClient, &hdr(500, 101, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynRecv);
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(101, 501, ACK), 0)
                .established
        );
        let st = s.step(&cfg, Direction::ToServer, &hdr(101, 501, ACK | PSH), 10);
        assert!(st.accept_data);
        assert_eq!(s.half[0].next_seq, 111);
        s.step(&cfg, Direction::ToClient, &hdr(501, 111, ACK), 0);
        assert_eq!(s.half[0].last_ack, 111);
        // Suricata's orientation: the client's FIN is CLOSE_WAIT.
        s.step(&cfg, Direction::ToServer, &hdr(111, 501, FIN | ACK), 0);
        assert_eq!(s.state, TcpState::CloseWait);
        s.step(&cfg, Direction::ToClient, &hdr(501, 112, ACK), 0);
        assert_eq!(s.state, TcpState::CloseWait);
        s.step(&cfg, Direction::ToClient, &hdr(501, 112, FIN | ACK), 0);
        assert_eq!(s.state, TcpState::LastAck);
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(112, 502, ACK), 0)
                .closed
        );
        assert_eq!(s.state, TcpState::Closed);
        // A new SYN reuses the tuple.
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(9000, 0, SYN), 0)
                .reuse
        );
    }

    #[test]
    fn server_closes_first() {
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToServer, &hdr(0, 0, SYN), 0);
        s.step(&cfg, Direction::ToClient, &hdr(0, 1, SYN | ACK), 0);
        s.step(&cfg, Direction::ToServer, &hdr(1, 1, ACK), 0);
        // Suricata's orientation: the server's FIN is FIN_WAIT1.
        s.step(&cfg, Direction::ToClient, &hdr(1, 1, FIN | ACK), 0);
        assert_eq!(s.state, TcpState::FinWait1);
        s.step(&cfg, Direction::ToServer, &hdr(1, 2, ACK), 0);
        assert_eq!(s.state, TcpState::FinWait2);
        s.step(&cfg, Direction::ToServer, &hdr(1, 2, FIN | ACK), 0);
        assert_eq!(s.state, TcpState::TimeWait);
        s.step(&cfg, Direction::ToClient, &hdr(2, 2, ACK), 0);
        assert_eq!(s.state, TcpState::Closed);
    }

    #[test]
    fn rst_closes_and_no_session_without_syn() {
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToServer, &hdr(5, 6, ACK), 3);
        assert!(!st.created && !st.accept_data);
        assert_eq!(s.state, TcpState::None);
        s.step(&cfg, Direction::ToServer, &hdr(0, 0, SYN), 0);
        assert!(
            s.step(&cfg, Direction::ToClient, &hdr(0, 1, RST | ACK), 0)
                .closed
        );
    }

    #[test]
    fn client_rst_in_syn_sent_is_ignored_unless_it_aborts_the_syn() {
        // sv-ether 138.201.208.22:443 <- 192.168.100.206:59621: SYN, a stray ACK from
        // the server, the client's RST (sequence from that ACK), the SYN again, and a
        // normal session (Suricata sees it whole).
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToServer, &hdr(1000, 0, SYN), 0);
        s.step(
            &cfg,
            Direction::ToClient,
            &hdr(7, 1000 + 2_497_211_856, ACK),
            0,
        );
        let rst = TcpHeader {
            window: 0,
            ..hdr(1000 + 2_497_211_856, 0, RST)
        };
        assert!(!s.step(&cfg, Direction::ToServer, &rst, 0).closed);
        assert_eq!(s.state, TcpState::SynSent);
        assert!(
            !s.step(&cfg, Direction::ToServer, &hdr(1000, 0, SYN), 0)
                .reuse
        );
        s.step(&cfg, Direction::ToClient, &hdr(500, 1001, SYN | ACK), 0);
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(1001, 501, ACK), 0)
                .established
        );
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(1001, 501, ACK | PSH), 5)
                .accept_data
        );
        // The RST that aborts the SYN closes it.
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToServer, &hdr(1000, 0, SYN), 0);
        let abort = TcpHeader {
            window: 0,
            ..hdr(1000, 1001, RST | ACK)
        };
        assert!(s.step(&cfg, Direction::ToServer, &abort, 0).closed);
    }

    #[test]
    fn accepted_rst_acknowledges_what_both_sides_sent() {
        // UPnP flows of sv-ether.pcap: the server's reply is never acknowledged by
        // the client; a RST before the session closed makes it count (Suricata logs
        // the HTTP transaction), a RST after the close does not.
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToServer, &hdr(0, 0, SYN), 0);
        s.step(&cfg, Direction::ToClient, &hdr(0, 1, SYN | ACK), 0);
        s.step(&cfg, Direction::ToServer, &hdr(1, 1, ACK), 0);
        s.step(&cfg, Direction::ToServer, &hdr(1, 1, ACK | PSH), 10);
        s.step(&cfg, Direction::ToClient, &hdr(1, 11, ACK | PSH), 20);
        let server = Direction::ToClient.index();
        assert_eq!(s.half[server].last_ack, 1);
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(11, 0, RST), 0)
                .closed
        );
        assert_eq!(s.half[server].last_ack, 21);
        assert_eq!(s.half[Direction::ToServer.index()].last_ack, 11);
    }

    #[test]
    fn midstream_pickup() {
        let cfg = TcpConfig {
            midstream: true,
            ..TcpConfig::default()
        };
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToServer, &hdr(1000, 2000, ACK | PSH), 5);
        assert!(st.created && st.established && st.accept_data);
        assert!(s.midstream);
        assert_eq!(s.half[0].next_seq, 1005);
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToClient, &hdr(700, 101, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynRecv);
        assert!(
            s.step(&cfg, Direction::ToServer, &hdr(101, 701, ACK), 0)
                .established
        );
    }

    #[test]
    fn async_oneside_server_ack_establishes() {
        let mut cfg = TcpConfig {
            midstream: true,
            ..TcpConfig::default()
        };
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToClient, &hdr(700, 101, SYN | ACK), 0);
        assert!(
            !s.step(&cfg, Direction::ToClient, &hdr(701, 182, ACK), 0)
                .established
        );
        assert_eq!(s.state, TcpState::SynRecv);
        cfg.async_oneside = true;
        assert!(
            s.step(&cfg, Direction::ToClient, &hdr(701, 182, ACK), 0)
                .established
        );
        assert_eq!(s.state, TcpState::Established);
    }

    #[test]
    fn fast_open_syn_ack_may_ack_the_syn_data() {
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToServer, &tfo_syn(100), 86);
        assert!(st.accept_data);
        s.step(&cfg, Direction::ToClient, &hdr(500, 187, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynRecv);
    }

    #[test]
    fn syn_data_without_the_tfo_option_is_not_stream_data() {
        // As Suricata: the payload of a SYN without the TFO option stays the packet's,
        // and a SYN/ACK acknowledging it has the wrong ack: the session stays in
        // SYN_SENT (tests/parity/cases/tcp-tfo-no-option).
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToServer, &hdr(100, 0, SYN), 86);
        assert!(st.created && !st.accept_data);
        s.step(&cfg, Direction::ToClient, &hdr(500, 187, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynSent);
        // A SYN/ACK acknowledging the SYN alone is accepted.
        s.step(&cfg, Direction::ToClient, &hdr(500, 101, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynRecv);
    }

    #[test]
    fn async_oneside_picks_up_a_syn_ack_without_midstream() {
        let cfg = TcpConfig {
            async_oneside: true,
            ..Default::default()
        };
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToClient, &hdr(500, 101, SYN | ACK), 0);
        assert!(st.created);
        assert_eq!(s.state, TcpState::SynRecv);
        // Neither option: no session from a SYN/ACK, nor from an ACK with async only.
        let mut s = TcpSession::default();
        let st = s.step(
            &TcpConfig::default(),
            Direction::ToClient,
            &hdr(500, 101, SYN | ACK),
            0,
        );
        assert!(!st.created);
        let mut s = TcpSession::default();
        let st = s.step(&cfg, Direction::ToServer, &hdr(101, 501, ACK), 10);
        assert!(!st.created);
    }

    #[test]
    fn syn_ack_with_wrong_ack_is_ignored() {
        let cfg = TcpConfig::default();
        let mut s = TcpSession::default();
        s.step(&cfg, Direction::ToServer, &hdr(100, 0, SYN), 0);
        s.step(&cfg, Direction::ToClient, &hdr(500, 999, SYN | ACK), 0);
        assert_eq!(s.state, TcpState::SynSent);
    }

    #[test]
    fn seq_compare_wraps() {
        assert!(seq_gt(5, u32::MAX - 5));
        assert!(!seq_gt(u32::MAX - 5, 5));
        assert!(seq_geq(7, 7));
    }
}

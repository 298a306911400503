//! TCP stream events, named as Suricata 7.0.10 names them (`stream-event:<name>` and
//! `engine-event:stream.<name>` in rules, `stream.<name>` in the EVE `anomaly` records
//! of type `stream`, `stream.<name>` in stats.json when
//! `stats.stream-events` is on).
//!
//! The flow layer's TCP tracker raises them; a packet carries the ones raised on it in
//! a [`StreamEvents`] bit set (no allocation). Every name Suricata knows is listed, so
//! that an unknown name is an error; the ones Osprey's tracker does not raise say why
//! ([`StreamEvent::not_raised`]), and a rule naming one is refused as unsupported
//! rather than loaded to never match (except `wrong_thread`, whose condition cannot
//! arise in Osprey: a flow never meets two workers).

macro_rules! stream_events {
    ($($variant:ident => $name:literal,)*) => {
        /// A TCP stream event. The discriminant indexes [`StreamEvent::ALL`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum StreamEvent {
            $($variant,)*
        }

        impl StreamEvent {
            /// Every event, in discriminant order.
            pub const ALL: &'static [StreamEvent] = &[$(StreamEvent::$variant,)*];
            const NAMES: &'static [&'static str] = &[$($name,)*];
            const COUNTER_NAMES: &'static [&'static str] =
                &[$(concat!("stream.", $name),)*];
        }
    };
}

stream_events! {
    ThreewhsAckDataInject => "3whs_ack_data_inject",
    ThreewhsAckInWrongDir => "3whs_ack_in_wrong_dir",
    ThreewhsAsyncWrongSeq => "3whs_async_wrong_seq",
    ThreewhsRightSeqWrongAckEvasion => "3whs_right_seq_wrong_ack_evasion",
    ThreewhsSynFlood => "3whs_syn_flood",
    ThreewhsSynResendDiffSeqOnSynRecv => "3whs_syn_resend_diff_seq_on_syn_recv",
    ThreewhsSynToclientOnSynRecv => "3whs_syn_toclient_on_syn_recv",
    ThreewhsSynackFlood => "3whs_synack_flood",
    ThreewhsSynackInWrongDirection => "3whs_synack_in_wrong_direction",
    ThreewhsSynackResendWithDiffAck => "3whs_synack_resend_with_diff_ack",
    ThreewhsSynackResendWithDiffSeq => "3whs_synack_resend_with_diff_seq",
    ThreewhsSynackTfoDataIgnored => "3whs_synack_tfo_data_ignored",
    ThreewhsSynackToserverOnSynRecv => "3whs_synack_toserver_on_syn_recv",
    ThreewhsSynackWithWrongAck => "3whs_synack_with_wrong_ack",
    ThreewhsWrongSeqWrongAck => "3whs_wrong_seq_wrong_ack",
    FourwhsInvalidAck => "4whs_invalid_ack",
    FourwhsSynackWithWrongAck => "4whs_synack_with_wrong_ack",
    FourwhsSynackWithWrongSyn => "4whs_synack_with_wrong_syn",
    FourwhsWrongSeq => "4whs_wrong_seq",
    ClosewaitAckOutOfWindow => "closewait_ack_out_of_window",
    ClosewaitFinOutOfWindow => "closewait_fin_out_of_window",
    ClosewaitInvalidAck => "closewait_invalid_ack",
    ClosewaitPktBeforeLastAck => "closewait_pkt_before_last_ack",
    ClosingAckWrongSeq => "closing_ack_wrong_seq",
    ClosingInvalidAck => "closing_invalid_ack",
    EstAckZwpData => "est_ack_zwp_data",
    EstInvalidAck => "est_invalid_ack",
    EstPacketOutOfWindow => "est_packet_out_of_window",
    EstPktBeforeLastAck => "est_pkt_before_last_ack",
    EstSynResend => "est_syn_resend",
    EstSynResendDiffSeq => "est_syn_resend_diff_seq",
    EstSynToclient => "est_syn_toclient",
    EstSynackResend => "est_synack_resend",
    EstSynackResendWithDiffAck => "est_synack_resend_with_diff_ack",
    EstSynackResendWithDiffSeq => "est_synack_resend_with_diff_seq",
    EstSynackToserver => "est_synack_toserver",
    Fin1AckWrongSeq => "fin1_ack_wrong_seq",
    Fin1FinWrongSeq => "fin1_fin_wrong_seq",
    Fin1InvalidAck => "fin1_invalid_ack",
    Fin2AckWrongSeq => "fin2_ack_wrong_seq",
    Fin2FinWrongSeq => "fin2_fin_wrong_seq",
    Fin2InvalidAck => "fin2_invalid_ack",
    FinButNoSession => "fin_but_no_session",
    FinInvalidAck => "fin_invalid_ack",
    FinOutOfWindow => "fin_out_of_window",
    FinSyn => "fin_syn",
    LastackAckWrongSeq => "lastack_ack_wrong_seq",
    LastackInvalidAck => "lastack_invalid_ack",
    PktBadWindowUpdate => "pkt_bad_window_update",
    PktBrokenAck => "pkt_broken_ack",
    PktInvalidAck => "pkt_invalid_ack",
    PktInvalidTimestamp => "pkt_invalid_timestamp",
    PktRetransmission => "pkt_retransmission",
    PktSpuriousRetransmission => "pkt_spurious_retransmission",
    ReassemblyDepthReached => "reassembly_depth_reached",
    ReassemblyInsertInvalid => "reassembly_insert_invalid",
    ReassemblyInsertLimit => "reassembly_insert_limit",
    ReassemblyInsertMemcap => "reassembly_insert_memcap",
    ReassemblyNoSegment => "reassembly_no_segment",
    ReassemblyOverlapDifferentData => "reassembly_overlap_different_data",
    ReassemblySegmentBeforeBaseSeq => "reassembly_segment_before_base_seq",
    ReassemblySeqGap => "reassembly_seq_gap",
    ReassemblyUrgentOobLimitReached => "reassembly_urgent_oob_limit_reached",
    RstButNoSession => "rst_but_no_session",
    RstInvalidAck => "rst_invalid_ack",
    RstWithData => "rst_with_data",
    ShutdownSynResend => "shutdown_syn_resend",
    SuspectedRstInject => "suspected_rst_inject",
    TimewaitAckWrongSeq => "timewait_ack_wrong_seq",
    TimewaitInvalidAck => "timewait_invalid_ack",
    WrongThread => "wrong_thread",
}

/// Names Suricata 7.0.10 also accepts in rules for an event (its rule file spells two
/// SYN/ACK events in full).
const ALIASES: &[(&str, StreamEvent)] = &[
    (
        "3whs_synack_resend_with_different_ack",
        StreamEvent::ThreewhsSynackResendWithDiffAck,
    ),
    (
        "est_synack_resend_with_different_ack",
        StreamEvent::EstSynackResendWithDiffAck,
    ),
];

impl StreamEvent {
    /// Suricata's name without the `stream.` prefix, e.g. `"est_invalid_ack"`.
    pub fn name(self) -> &'static str {
        StreamEvent::NAMES[self as usize]
    }

    /// The stats.json counter name, e.g. `"stream.est_invalid_ack"` (counted only with
    /// `stats.stream-events: true`, as Suricata).
    pub fn counter_name(self) -> &'static str {
        StreamEvent::COUNTER_NAMES[self as usize]
    }

    /// Why Osprey's TCP tracker never raises this event (`None`: it raises it).
    pub fn not_raised(self) -> Option<&'static str> {
        NOT_RAISED
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, why)| *why)
    }

    /// Looks an event up by the name a rule gives it (`stream-event:<name>`), aliases
    /// included.
    pub fn from_name(name: &str) -> Option<StreamEvent> {
        StreamEvent::ALL
            .iter()
            .copied()
            .find(|e| e.name() == name)
            .or_else(|| ALIASES.iter().find(|(a, _)| *a == name).map(|(_, e)| *e))
    }
}

/// The events Osprey's tracker does not raise, and why (see
/// `flow::tcp_window`, `flow::tcp_events`, `flow::tcp_paws`).
const NOT_RAISED: &[(StreamEvent, &str)] = &[
    (
        StreamEvent::ThreewhsAckDataInject,
        "the inline-mode check of data ACKs in SYN_RECV is not modelled",
    ),
    (
        StreamEvent::ThreewhsSynFlood,
        "no queue of SYNs with different ISNs (stream.max-syn-queued)",
    ),
    (
        StreamEvent::ThreewhsSynackFlood,
        "no queue of SYN/ACKs with different ISNs (stream.max-synack-queued)",
    ),
    (
        StreamEvent::ThreewhsSynackTfoDataIgnored,
        "a Fast Open SYN/ACK's data is not tracked",
    ),
    (
        StreamEvent::EstAckZwpData,
        "zero-window probes are told, their ACKs are not followed",
    ),
    (
        StreamEvent::SuspectedRstInject,
        "no RST sequence validation",
    ),
    (
        StreamEvent::WrongThread,
        "Osprey's dispatch is flow-symmetric: a flow never meets two workers",
    ),
    (
        StreamEvent::ReassemblyNoSegment,
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        StreamEvent::ReassemblySegmentBeforeBaseSeq,
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        StreamEvent::ReassemblyInsertLimit,
        "no stream.reassembly.max-regions style insert limit",
    ),
    (
        StreamEvent::ReassemblyInsertInvalid,
        "the reassembly keeps bytes, not Suricata's segment list",
    ),
    (
        StreamEvent::ReassemblyUrgentOobLimitReached,
        "urgent data is not handled out of band",
    ),
];

/// The stream events raised on one packet: a bit per [`StreamEvent`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamEvents(u128);

impl StreamEvents {
    /// No event.
    pub const NONE: StreamEvents = StreamEvents(0);

    /// Records `e`.
    #[inline]
    pub fn set(&mut self, e: StreamEvent) {
        self.0 |= 1u128 << (e as u32);
    }

    /// Whether `e` was recorded.
    #[inline]
    pub fn has(self, e: StreamEvent) -> bool {
        self.0 & (1u128 << (e as u32)) != 0
    }

    /// Whether no event was recorded.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Adds the events of `other`.
    #[inline]
    pub fn merge(&mut self, other: StreamEvents) {
        self.0 |= other.0;
    }

    /// The recorded events, in discriminant order.
    pub fn iter(self) -> impl Iterator<Item = StreamEvent> {
        StreamEvent::ALL
            .iter()
            .copied()
            .filter(move |e| self.has(*e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fit_the_set() {
        const { assert!(StreamEvent::ALL.len() <= 128) };
        assert_eq!(StreamEvent::ALL.len(), 71);
        for &e in StreamEvent::ALL {
            assert_eq!(StreamEvent::from_name(e.name()), Some(e));
            assert_eq!(e.counter_name(), format!("stream.{}", e.name()));
        }
        assert_eq!(
            StreamEvent::from_name("est_synack_resend_with_different_ack"),
            Some(StreamEvent::EstSynackResendWithDiffAck)
        );
        assert_eq!(StreamEvent::from_name("bypass"), None);
        assert_eq!(StreamEvent::from_name("stream.est_invalid_ack"), None);
    }

    #[test]
    fn events_not_raised_say_why() {
        assert!(StreamEvent::EstInvalidAck.not_raised().is_none());
        assert!(StreamEvent::PktInvalidTimestamp.not_raised().is_none());
        assert!(StreamEvent::ReassemblyNoSegment
            .not_raised()
            .is_some_and(|w| w.contains("segment list")));
        let n = StreamEvent::ALL
            .iter()
            .filter(|e| e.not_raised().is_some())
            .count();
        assert_eq!(n, NOT_RAISED.len());
        assert_eq!(n, 12);
    }

    #[test]
    fn the_set_keeps_each_event() {
        let mut s = StreamEvents::NONE;
        assert!(s.is_empty());
        s.set(StreamEvent::EstInvalidAck);
        s.set(*StreamEvent::ALL.last().unwrap());
        assert!(s.has(StreamEvent::EstInvalidAck));
        assert!(!s.has(StreamEvent::PktInvalidAck));
        assert_eq!(s.iter().count(), 2);
        let mut t = StreamEvents::NONE;
        t.merge(s);
        assert_eq!(t, s);
    }
}

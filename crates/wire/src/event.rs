//! Decoder anomaly events, named as Suricata names them (`decoder.event.<proto>.<event>`
//! in stats.json, `decode-event:<proto>.<event>` in rules).
//!
//! An event never stops the decoder from returning a [`Packet`](crate::Packet): it is
//! recorded on the packet and counted. Events marked *invalid* also count the packet in
//! `decoder.invalid`, as Suricata's `ENGINE_SET_INVALID_EVENT` does; decoding of that layer
//! stops there.

macro_rules! events {
    ($($variant:ident => ($name:literal, $invalid:literal),)*) => {
        /// A decoder anomaly. The discriminant indexes [`Event::ALL`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum Event {
            $($variant,)*
        }

        impl Event {
            /// Every event, in discriminant order.
            pub const ALL: &'static [Event] = &[$(Event::$variant,)*];
            /// Number of events.
            pub const COUNT: usize = Event::ALL.len();
            const NAMES: &'static [&'static str] = &[$($name,)*];
            const COUNTER_NAMES: &'static [&'static str] =
                &[$(concat!("decoder.event.", $name),)*];
            const INVALID: &'static [bool] = &[$($invalid,)*];
        }
    };
}

events! {
    EthernetPktTooSmall => ("ethernet.pkt_too_small", true),
    VlanHeaderTooSmall => ("vlan.header_too_small", true),
    VlanUnknownType => ("vlan.unknown_type", false),
    VlanTooManyLayers => ("vlan.too_many_layers", false),
    VntagHeaderTooSmall => ("vntag.header_too_small", true),
    VntagUnknownType => ("vntag.unknown_type", false),
    Ieee8021ahHeaderTooSmall => ("ieee8021ah.header_too_small", true),
    SllPktTooSmall => ("sll.pkt_too_small", true),
    LtnullPktTooSmall => ("ltnull.pkt_too_small", true),
    LtnullUnsupportedType => ("ltnull.unsupported_type", false),
    PppPktTooSmall => ("ppp.pkt_too_small", true),
    PppVjuPktTooSmall => ("ppp.vju_pkt_too_small", true),
    PppIp4PktTooSmall => ("ppp.ip4_pkt_too_small", true),
    PppIp6PktTooSmall => ("ppp.ip6_pkt_too_small", true),
    PppWrongType => ("ppp.wrong_type", true),
    PppUnsupProto => ("ppp.unsup_proto", false),
    PppoePktTooSmall => ("pppoe.pkt_too_small", true),
    PppoeWrongCode => ("pppoe.wrong_code", false),
    PppoeMalformedTags => ("pppoe.malformed_tags", false),
    ChdlcPktTooSmall => ("chdlc.pkt_too_small", true),
    MplsHeaderTooSmall => ("mpls.header_too_small", true),
    MplsPktTooSmall => ("mpls.pkt_too_small", true),
    MplsBadLabelRouterAlert => ("mpls.bad_label_router_alert", false),
    MplsBadLabelImplicitNull => ("mpls.bad_label_implicit_null", false),
    MplsBadLabelReserved => ("mpls.bad_label_reserved", false),
    MplsUnknownPayloadType => ("mpls.unknown_payload_type", false),
    NshHeaderTooSmall => ("nsh.header_too_small", true),
    NshUnsupportedVersion => ("nsh.unsupported_version", false),
    NshBadHeaderLength => ("nsh.bad_header_length", true),
    NshReservedType => ("nsh.reserved_type", false),
    NshUnsupportedType => ("nsh.unsupported_type", false),
    NshUnknownPayload => ("nsh.unknown_payload", false),
    DcePktTooSmall => ("dce.pkt_too_small", true),
    IprawInvalidIpVersion => ("ipraw.invalid_ip_version", true),
    GrePktTooSmall => ("gre.pkt_too_small", true),
    GreWrongVersion => ("gre.wrong_version", true),
    GreVersion0Recur => ("gre.version0_recur", false),
    GreVersion0Flags => ("gre.version0_flags", false),
    GreVersion0HdrTooBig => ("gre.version0_hdr_too_big", true),
    GreVersion0MalformedSreHdr => ("gre.version0_malformed_sre_hdr", true),
    GreVersion1Chksum => ("gre.version1_chksum", false),
    GreVersion1Route => ("gre.version1_route", false),
    GreVersion1Ssr => ("gre.version1_ssr", false),
    GreVersion1Recur => ("gre.version1_recur", false),
    GreVersion1Flags => ("gre.version1_flags", false),
    GreVersion1NoKey => ("gre.version1_no_key", false),
    GreVersion1WrongProtocol => ("gre.version1_wrong_protocol", false),
    GreVersion1MalformedSreHdr => ("gre.version1_malformed_sre_hdr", true),
    GreVersion1HdrTooBig => ("gre.version1_hdr_too_big", true),
    ErspanHeaderTooSmall => ("erspan.header_too_small", true),
    ErspanUnsupportedVersion => ("erspan.unsupported_version", false),
    ErspanTooManyVlanLayers => ("erspan.too_many_vlan_layers", false),
    VxlanUnknownPayloadType => ("vxlan.unknown_payload_type", false),
    GeneveUnknownPayloadType => ("geneve.unknown_payload_type", false),
    Ipv4PktTooSmall => ("ipv4.pkt_too_small", true),
    Ipv4HlenTooSmall => ("ipv4.hlen_too_small", true),
    Ipv4IplenSmallerThanHlen => ("ipv4.iplen_smaller_than_hlen", true),
    Ipv4TruncPkt => ("ipv4.trunc_pkt", true),
    Ipv4OptInvalid => ("ipv4.opt_invalid", false),
    Ipv4OptInvalidLen => ("ipv4.opt_invalid_len", true),
    Ipv4OptMalformed => ("ipv4.opt_malformed", false),
    Ipv4OptPadRequired => ("ipv4.opt_pad_required", false),
    Ipv4OptEolRequired => ("ipv4.opt_eol_required", false),
    Ipv4OptDuplicate => ("ipv4.opt_duplicate", false),
    Ipv4OptUnknown => ("ipv4.opt_unknown", false),
    Ipv4WrongIpVersion => ("ipv4.wrong_ip_version", true),
    Ipv4Icmpv6 => ("ipv4.icmpv6", false),
    Ipv4FragPktTooLarge => ("ipv4.frag_pkt_too_large", false),
    Ipv4FragOverlap => ("ipv4.frag_overlap", false),
    Ipv4FragIgnored => ("ipv4.frag_ignored", false),
    Ipv6PktTooSmall => ("ipv6.pkt_too_small", true),
    Ipv6TruncPkt => ("ipv6.trunc_pkt", true),
    Ipv6TruncExthdr => ("ipv6.trunc_exthdr", true),
    Ipv6ExthdrDuplFh => ("ipv6.exthdr_dupl_fh", false),
    Ipv6ExthdrUselessFh => ("ipv6.exthdr_useless_fh", false),
    Ipv6ExthdrDuplRh => ("ipv6.exthdr_dupl_rh", false),
    Ipv6ExthdrDuplHh => ("ipv6.exthdr_dupl_hh", false),
    Ipv6ExthdrDuplDh => ("ipv6.exthdr_dupl_dh", false),
    Ipv6ExthdrDuplAh => ("ipv6.exthdr_dupl_ah", false),
    Ipv6ExthdrDuplEh => ("ipv6.exthdr_dupl_eh", false),
    Ipv6ExthdrInvalidOptlen => ("ipv6.exthdr_invalid_optlen", false),
    Ipv6WrongIpVersion => ("ipv6.wrong_ip_version", true),
    Ipv6ExthdrAhResNotNull => ("ipv6.exthdr_ah_res_not_null", false),
    Ipv6HopoptsUnknownOpt => ("ipv6.hopopts_unknown_opt", false),
    Ipv6HopoptsOnlyPadding => ("ipv6.hopopts_only_padding", false),
    Ipv6DstoptsUnknownOpt => ("ipv6.dstopts_unknown_opt", false),
    Ipv6DstoptsOnlyPadding => ("ipv6.dstopts_only_padding", false),
    Ipv6RhType0 => ("ipv6.rh_type_0", false),
    Ipv6ZeroLenPadn => ("ipv6.zero_len_padn", false),
    Ipv6FhNonZeroReservedField => ("ipv6.fh_non_zero_reserved_field", false),
    Ipv6DataAfterNoneHeader => ("ipv6.data_after_none_header", false),
    Ipv6UnknownNextHeader => ("ipv6.unknown_next_header", false),
    Ipv6Icmpv4 => ("ipv6.icmpv4", false),
    Ipv6FragPktTooLarge => ("ipv6.frag_pkt_too_large", false),
    Ipv6FragOverlap => ("ipv6.frag_overlap", false),
    Ipv6FragInvalidLength => ("ipv6.frag_invalid_length", false),
    Ipv6FragIgnored => ("ipv6.frag_ignored", false),
    Ipv6Ipv4InIpv6TooSmall => ("ipv6.ipv4_in_ipv6_too_small", true),
    Ipv6Ipv4InIpv6WrongVersion => ("ipv6.ipv4_in_ipv6_wrong_version", true),
    Ipv6Ipv6InIpv6TooSmall => ("ipv6.ipv6_in_ipv6_too_small", true),
    Ipv6Ipv6InIpv6WrongVersion => ("ipv6.ipv6_in_ipv6_wrong_version", true),
    TcpPktTooSmall => ("tcp.pkt_too_small", true),
    TcpHlenTooSmall => ("tcp.hlen_too_small", true),
    TcpInvalidOptlen => ("tcp.invalid_optlen", true),
    TcpOptInvalidLen => ("tcp.opt_invalid_len", false),
    TcpOptDuplicate => ("tcp.opt_duplicate", false),
    UdpPktTooSmall => ("udp.pkt_too_small", true),
    UdpHlenTooSmall => ("udp.hlen_too_small", true),
    UdpHlenInvalid => ("udp.hlen_invalid", true),
    UdpLenInvalid => ("udp.len_invalid", true),
    SctpPktTooSmall => ("sctp.pkt_too_small", true),
    EspPktTooSmall => ("esp.pkt_too_small", true),
    Icmpv4PktTooSmall => ("icmpv4.pkt_too_small", true),
    Icmpv4UnknownType => ("icmpv4.unknown_type", false),
    Icmpv4UnknownCode => ("icmpv4.unknown_code", false),
    Icmpv4Ipv4TruncPkt => ("icmpv4.ipv4_trunc_pkt", false),
    Icmpv4Ipv4UnknownVer => ("icmpv4.ipv4_unknown_ver", false),
    Icmpv6UnknownType => ("icmpv6.unknown_type", false),
    Icmpv6UnknownCode => ("icmpv6.unknown_code", false),
    Icmpv6PktTooSmall => ("icmpv6.pkt_too_small", true),
    Icmpv6Ipv6UnknownVersion => ("icmpv6.ipv6_unknown_version", false),
    Icmpv6Ipv6TruncPkt => ("icmpv6.ipv6_trunc_pkt", false),
    Icmpv6MldMessageWithInvalidHl => ("icmpv6.mld_message_with_invalid_hl", false),
    Icmpv6UnassignedType => ("icmpv6.unassigned_type", false),
    Icmpv6ExperimentationType => ("icmpv6.experimentation_type", false),
}

impl Event {
    /// Suricata's name, e.g. `"ipv4.trunc_pkt"` (what `decode-event:` rules use).
    pub fn name(self) -> &'static str {
        Event::NAMES[self as usize]
    }

    /// The stats.json counter name, e.g. `"decoder.event.ipv4.trunc_pkt"`.
    pub fn counter_name(self) -> &'static str {
        Event::COUNTER_NAMES[self as usize]
    }

    /// Whether this event marks the packet invalid (`decoder.invalid`).
    pub fn is_invalid(self) -> bool {
        Event::INVALID[self as usize]
    }

    /// The event with discriminant `id`, if any.
    pub fn from_id(id: u8) -> Option<Event> {
        Event::ALL.get(usize::from(id)).copied()
    }

    /// Looks an event up by its Suricata name (`"ipv4.trunc_pkt"`).
    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.iter().copied().find(|e| e.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &e in Event::ALL {
            assert_eq!(Event::from_id(e as u8), Some(e));
            assert_eq!(Event::from_name(e.name()), Some(e));
            assert_eq!(e.counter_name(), format!("decoder.event.{}", e.name()));
        }
        const { assert!(Event::COUNT < 256) };
        assert!(Event::Ipv4TruncPkt.is_invalid());
        assert!(!Event::Ipv4OptPadRequired.is_invalid());
    }
}

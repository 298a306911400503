//! The compact per-packet metadata produced by the decoder.

use crate::proto::{ipv4::Ipv4Packet, ipv6::Ipv6Packet, tcp::TcpPacket, udp::UdpPacket};
use crate::{Event, LinkType};
use std::net::IpAddr;

/// A capture timestamp in nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// From seconds and nanoseconds.
    pub const fn from_secs_nanos(secs: u64, nanos: u32) -> Self {
        Timestamp(
            secs.saturating_mul(1_000_000_000)
                .saturating_add(nanos as u64),
        )
    }
    /// From seconds and microseconds.
    pub const fn from_secs_micros(secs: u64, micros: u32) -> Self {
        Self::from_secs_nanos(secs, micros.saturating_mul(1000))
    }
    /// Whole seconds.
    pub const fn secs(self) -> u64 {
        self.0 / 1_000_000_000
    }
    /// Sub-second nanoseconds.
    pub const fn subsec_nanos(self) -> u32 {
        (self.0 % 1_000_000_000) as u32
    }
}

/// How a packet was found inside another one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tunnel {
    /// Not a tunnel packet: the captured frame itself.
    #[default]
    None,
    /// Inside GRE (IP, TEB or PPP payload).
    Gre,
    /// Inside ERSPAN (type I, II or III) over GRE.
    Erspan,
    /// Inside VXLAN.
    Vxlan,
    /// Inside Geneve.
    Geneve,
    /// Inside Teredo.
    Teredo,
    /// IPv4 in IPv4.
    Ipv4InIpv4,
    /// IPv6 in IPv4 (6in4).
    Ipv6InIpv4,
    /// IPv4 in IPv6 (4in6).
    Ipv4InIpv6,
    /// IPv6 in IPv6.
    Ipv6InIpv6,
    /// A reassembled IP datagram fed back by defragmentation.
    Reassembled,
}

/// Packet flag bits (see [`Packet::flags`]).
pub mod flags {
    /// A decoder event marked the packet invalid (`decoder.invalid`).
    pub const INVALID: u32 = 1 << 0;
    /// An IP fragment (IPv4 MF or offset, or an IPv6 fragment header that is not
    /// atomic): the L4 header was not decoded; defragmentation must feed it back.
    pub const FRAGMENT: u32 = 1 << 1;
    /// The IPv4 header checksum was verified and is correct.
    pub const IP_CSUM_OK: u32 = 1 << 2;
    /// The IPv4 header checksum was verified and is wrong.
    pub const IP_CSUM_BAD: u32 = 1 << 3;
    /// The TCP/UDP/ICMP checksum was verified and is correct.
    pub const L4_CSUM_OK: u32 = 1 << 4;
    /// The TCP/UDP/ICMP checksum was verified and is wrong.
    pub const L4_CSUM_BAD: u32 = 1 << 5;
    /// A tunnel was found in this packet: inner packets follow it.
    pub const HAS_INNER: u32 = 1 << 6;
    /// The TCP header carries MSS.
    pub const TCP_MSS: u32 = 1 << 7;
    /// The TCP header carries window scale ([`Packet::tcp_wscale`]).
    pub const TCP_WSCALE: u32 = 1 << 8;
    /// The TCP header carries SACK-permitted.
    pub const TCP_SACK_PERM: u32 = 1 << 9;
    /// The TCP header carries SACK blocks.
    pub const TCP_SACK: u32 = 1 << 10;
    /// The TCP header carries timestamps.
    pub const TCP_TS: u32 = 1 << 11;
    /// IPv4 don't-fragment flag.
    pub const IP_DF: u32 = 1 << 12;
    /// IP more-fragments flag (IPv4 MF or IPv6 fragment header M).
    pub const IP_MF: u32 = 1 << 13;
    /// The IPv4 header has options.
    pub const IPV4_OPTS: u32 = 1 << 14;
    /// The IPv6 header has extension headers.
    pub const IPV6_EXTHDRS: u32 = 1 << 15;
    /// More events occurred than [`Packet`](super::Packet) stores.
    pub const EVENTS_OVERFLOW: u32 = 1 << 16;
    /// Frame captured shorter than on the wire.
    pub const SNAPPED: u32 = 1 << 17;
    /// The layer-depth limit was hit (`decoder.too_many_layers`).
    pub const TOO_MANY_LAYERS: u32 = 1 << 18;
    /// An ARP frame.
    pub const ARP: u32 = 1 << 19;
    /// The IPv4 header's options broke its decoding (an option length under 2 or past
    /// the header): Suricata 7.0.10 then treats the packet as carrying no IP header, so
    /// rules do not check its addresses or ports, `engine-event` does not match it and
    /// its alerts log no addresses (difftest `events/ipv4opt`).
    pub const IP_HDR_BROKEN: u32 = 1 << 20;
}

/// How many events one packet keeps (the first [`COUNTED_EVENTS`] are counted in the
/// stats).
pub const MAX_EVENTS: usize = 4;

/// How many of one packet's events the decoder counters count: Suricata 7.0.10 holds at
/// most 15 engine events per packet and counts the ones it holds, so a packet of 137
/// fragment headers adds 14 to `decoder.event.ipv6.exthdr_dupl_fh`, not 136
/// (`sv-ether.pcap`; difftest `events`).
pub const COUNTED_EVENTS: usize = 15;

/// Compact metadata of one decoded packet (≤ 128 bytes, two cache lines).
///
/// Offsets are byte offsets into the buffer the packet was decoded from (the captured
/// frame; for an inner tunnel packet, the same frame; for a reassembled datagram, the
/// reassembly buffer). Fields that are absent are zero: `l4_off == 0` means no decoded L4
/// header, `ip_version == 0` means no IP layer.
///
/// The hot fields for later stages are plain public fields: 5-tuple (`src`, `dst`,
/// `sport`, `dport`, `proto`, `ip_version`), `tcp_flags`, `seq`, `ack`, `window`,
/// `payload_off` / `payload_len` (see [`Packet::payload`]). Rarely used header fields
/// are read through typed views re-created from the bytes ([`Packet::ipv4`],
/// [`Packet::ipv6`], [`Packet::tcp`], [`Packet::udp`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// Capture timestamp.
    pub ts: Timestamp,
    /// Source address: IPv4 in the first 4 bytes (rest zero), or IPv6.
    pub src: [u8; 16],
    /// Destination address, same layout as `src`.
    pub dst: [u8; 16],
    /// TCP sequence number.
    pub seq: u32,
    /// TCP acknowledgement number.
    pub ack: u32,
    /// IP identification (IPv4 16 bits; IPv6 fragment header 32 bits).
    pub ip_id: u32,
    /// Bytes captured (of the whole frame, for inner packets too).
    pub caplen: u32,
    /// Bytes on the wire (of the whole frame).
    pub wire_len: u32,
    /// Offset where this packet's first layer starts (0 for a captured frame; the start
    /// of the tunnelled bytes for an inner packet).
    pub link_off: u32,
    /// Offset of the (innermost, for this packet) IP header.
    pub l3_off: u32,
    /// Offset of the L4 header (TCP, UDP, ICMP, SCTP, GRE...), 0 if none.
    pub l4_off: u32,
    /// Offset of the L4 payload.
    pub payload_off: u32,
    /// Length of the L4 payload (trimmed to the IP length: link padding excluded).
    pub payload_len: u32,
    /// [`flags`] bits.
    pub flags: u32,
    /// Source port (TCP, UDP, SCTP); ICMP: 0.
    pub sport: u16,
    /// Destination port (TCP, UDP, SCTP); ICMP: 0.
    pub dport: u16,
    /// TCP window (unscaled).
    pub window: u16,
    /// IP fragment offset in 8-byte units.
    pub frag_off: u16,
    /// VLAN ids, outermost first (0 when absent): Suricata 7.0.10 keys flows on three
    /// (sv-ether's frame 22201, tags `[1, 10, 100]`, is not the flow of `[1, 10]`).
    pub vlan: [u16; 3],
    /// Capture link type of the frame.
    pub link_type: LinkType,
    /// L4 protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, 132 SCTP...).
    pub proto: u8,
    /// 4, 6, or 0 without IP.
    pub ip_version: u8,
    /// TCP flags byte (CWR..FIN).
    pub tcp_flags: u8,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    /// IPv4 TOS or IPv6 traffic class.
    pub tos: u8,
    /// ICMP type.
    pub icmp_type: u8,
    /// ICMP code.
    pub icmp_code: u8,
    /// TCP window-scale shift when [`flags::TCP_WSCALE`] is set.
    pub tcp_wscale: u8,
    /// How this packet was found ([`Tunnel::None`] for the captured frame).
    pub tunnel: Tunnel,
    /// Index of the enclosing packet in the decode output (itself for the outer one).
    pub parent: u8,
    /// Tunnel depth, Suricata's recursion level: 0 for the captured frame, one more
    /// inside each tunnel; a reassembled datagram has its fragments'. Part of the flow
    /// key (`decoder.recursion-level.use-for-tracking`, on by default): a tunnelled
    /// conversation and the same addresses outside the tunnel are two flows.
    pub depth: u8,
    /// Number of events raised on this packet (saturating at 255; the first
    /// [`MAX_EVENTS`] are kept in `events`).
    pub n_events: u8,
    /// First events raised on this packet ([`Event`] ids).
    pub events: [u8; MAX_EVENTS],
}

impl Packet {
    /// Whether a flag bit is set.
    #[inline]
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    /// The L4 payload bytes within `buf` (the buffer the packet was decoded from).
    /// Empty if `buf` is not that buffer and the range falls outside it.
    #[inline]
    pub fn payload<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        let start = self.payload_off as usize;
        let end = start + self.payload_len as usize;
        buf.get(start..end).unwrap_or(&[])
    }

    /// Source IP address, if the packet has an IP layer.
    pub fn src_ip(&self) -> Option<IpAddr> {
        matches!(self.ip_version, 4 | 6).then(|| crate::ip_addr(self.ip_version == 4, &self.src))
    }

    /// Destination IP address, if the packet has an IP layer.
    pub fn dst_ip(&self) -> Option<IpAddr> {
        matches!(self.ip_version, 4 | 6).then(|| crate::ip_addr(self.ip_version == 4, &self.dst))
    }

    /// The protocol number Suricata names in an alert on this packet: 44 (`IPv6-Frag`)
    /// for an IPv6 fragment, whose decoding ends at its fragment header (no ports, no
    /// ICMP type); else [`Packet::proto`] (an atomic fragment is decoded whole: named
    /// after the header after it, or after itself when nothing follows).
    pub fn record_proto(&self) -> u8 {
        if self.ip_version == 6 && self.has(flags::FRAGMENT) {
            crate::ip_proto::FRAGMENT
        } else {
            self.proto
        }
    }

    /// True for TCP with a decoded header.
    #[inline]
    pub fn is_tcp(&self) -> bool {
        self.proto == crate::ip_proto::TCP && self.l4_off != 0
    }

    /// True for UDP with a decoded header.
    #[inline]
    pub fn is_udp(&self) -> bool {
        self.proto == crate::ip_proto::UDP && self.l4_off != 0
    }

    /// The events recorded on this packet (at most [`MAX_EVENTS`]).
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        self.events[..usize::from(self.n_events).min(MAX_EVENTS)]
            .iter()
            .filter_map(|&id| Event::from_id(id))
    }

    /// Whether `event` was recorded (only the first [`MAX_EVENTS`] are kept).
    pub fn has_event(&self, event: Event) -> bool {
        self.events().any(|e| e == event)
    }

    /// Records `event`; false when the packet already holds [`COUNTED_EVENTS`] events,
    /// so the counters must not count it (Suricata 7.0.10's per-packet bound).
    pub(crate) fn push_event(&mut self, event: Event) -> bool {
        let n = usize::from(self.n_events);
        if n < MAX_EVENTS {
            self.events[n] = event as u8;
        } else {
            self.flags |= flags::EVENTS_OVERFLOW;
        }
        self.n_events = self.n_events.saturating_add(1);
        if event.is_invalid() {
            self.flags |= flags::INVALID;
        }
        n < COUNTED_EVENTS
    }

    /// The IPv4 header view, if this is IPv4.
    pub fn ipv4<'a>(&self, buf: &'a [u8]) -> Option<Ipv4Packet<&'a [u8]>> {
        if self.ip_version != 4 {
            return None;
        }
        Ipv4Packet::new_checked(buf.get(self.l3_off as usize..)?).ok()
    }

    /// The IPv6 header view, if this is IPv6.
    pub fn ipv6<'a>(&self, buf: &'a [u8]) -> Option<Ipv6Packet<&'a [u8]>> {
        if self.ip_version != 6 {
            return None;
        }
        Ipv6Packet::new_checked(buf.get(self.l3_off as usize..)?).ok()
    }

    /// The TCP header view (with options), if the packet has a decoded TCP header.
    pub fn tcp<'a>(&self, buf: &'a [u8]) -> Option<TcpPacket<&'a [u8]>> {
        if !self.is_tcp() {
            return None;
        }
        let end = self.payload_off as usize + self.payload_len as usize;
        TcpPacket::new_checked(buf.get(self.l4_off as usize..end)?).ok()
    }

    /// The UDP header view, if the packet has a decoded UDP header.
    pub fn udp<'a>(&self, buf: &'a [u8]) -> Option<UdpPacket<&'a [u8]>> {
        if !self.is_udp() {
            return None;
        }
        let end = self.payload_off as usize + self.payload_len as usize;
        UdpPacket::new_checked(buf.get(self.l4_off as usize..end)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_fits_in_two_cache_lines() {
        assert!(
            std::mem::size_of::<Packet>() <= 128,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }

    #[test]
    fn timestamp_parts() {
        let t = Timestamp::from_secs_micros(5, 7);
        assert_eq!(t.secs(), 5);
        assert_eq!(t.subsec_nanos(), 7000);
    }

    #[test]
    fn events_are_bounded() {
        let mut p = Packet::default();
        for _ in 0..6 {
            p.push_event(Event::Ipv4OptInvalid);
        }
        assert_eq!(p.events().count(), MAX_EVENTS);
        assert!(p.has(flags::EVENTS_OVERFLOW));
        assert!(!p.has(flags::INVALID));
        p.push_event(Event::Ipv4TruncPkt);
        assert!(p.has(flags::INVALID));
        assert!(p.has_event(Event::Ipv4OptInvalid));
    }

    #[test]
    fn payload_out_of_range_is_empty() {
        let p = Packet {
            payload_off: 10,
            payload_len: 10,
            ..Packet::default()
        };
        assert!(p.payload(&[0u8; 5]).is_empty());
        assert_eq!(p.payload(&[1u8; 20]).len(), 10);
    }
}

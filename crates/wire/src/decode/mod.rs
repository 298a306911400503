//! The decoder: from a captured frame to [`Packet`] metadata, counting as Suricata does.
//!
//! # Model
//!
//! [`Decoder::decode`] takes one captured frame and fills a caller-owned, reusable
//! [`Decoded`]: `packets()[0]` is the captured (outer) packet; when a tunnel is found
//! (GRE, ERSPAN, VXLAN, Geneve, Teredo, IP-in-IP, 6in4, 4in6, 6in6) each inner packet
//! is appended after the packet that carries it, with [`Packet::parent`] pointing back
//! and [`Packet::tunnel`] saying how it was found. This mirrors Suricata's tunnel
//! pseudo-packets, except that no bytes are copied: every offset of an inner packet
//! points into the same frame. At most [`MAX_PACKETS`] packets come out of one frame;
//! a layer-depth limit ([`DecoderConfig::max_layers`], Suricata's `decoder.max-layers`)
//! bounds nesting and is counted as `decoder.too_many_layers`.
//!
//! Defragmentation lives in a later stage; it feeds a reassembled IP datagram back with
//! [`Decoder::decode_ip`], which decodes it like an inner packet (counted in
//! `decoder.ipv4`/`ipv6`/`tcp`/... but not in `decoder.pkts`).
//!
//! Nothing is rejected: bad checksums, SYN+FIN, zero ports all decode. Anomalies are
//! recorded on the packet ([`Packet::events`]) and counted in [`DecodeStats`]; an
//! *invalid* event (truncation, impossible lengths) stops decoding at that layer and, on
//! the captured packet, counts `decoder.invalid`. As in Suricata, an inner packet that
//! turns out invalid is discarded (its counters and events stay counted).
//!
//! Checksums are verified only when [`DecoderConfig::verify_checksums`] is set (Suricata's
//! `-k all`); the result is in [`flags::IP_CSUM_OK`]/[`flags::IP_CSUM_BAD`] and
//! [`flags::L4_CSUM_OK`]/[`flags::L4_CSUM_BAD`]. Whether bad ones are dropped is the
//! engine's decision.
//!
//! No allocation happens on this path.

mod l2;
mod l3;
mod l4;
mod tunnel;
mod tunnel_ports;
pub use tunnel_ports::TunnelPorts;

use crate::packet::{flags, Packet, Timestamp, Tunnel};
use crate::stats::{Counter, DecodeStats};
use crate::{Event, LinkType};

/// Most packets (captured + inner) one frame can yield.
pub const MAX_PACKETS: usize = 8;

/// Decoder settings. `Default` matches Suricata 7's default suricata.yaml.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    /// Verify IPv4 header and TCP/UDP/ICMP checksums (`-k all`). Default false (`-k none`):
    /// checksums cost time and Suricata only checks them when asked.
    pub verify_checksums: bool,
    /// Most link/network layers decoded in one frame, tunnels included
    /// (`decoder.max-layers`, default 16).
    pub max_layers: u8,
    /// UDP destination ports of VXLAN (`decoder.vxlan.ports`, default 4789).
    pub vxlan_port: TunnelPorts,
    /// UDP destination ports of Geneve (`decoder.geneve.ports`, default 6081).
    pub geneve_port: TunnelPorts,
    /// UDP ports (either side) of Teredo (`decoder.teredo.ports`: suricata.yaml sets
    /// 3544; with none configured Teredo is looked for on every UDP port).
    pub teredo_port: TunnelPorts,
    /// Decode GRE protocol 0x88be without a sequence number as ERSPAN type I.
    pub erspan_type1: bool,
    /// Decode IPv4-in-IPv4 (IP protocol 4 inside IPv4). Suricata 7 does not (its IPv4
    /// decoder has no IPIP case), so the default is false for count parity.
    pub ipv4_in_ipv4: bool,
}

impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            verify_checksums: false,
            max_layers: 16,
            vxlan_port: TunnelPorts::one(4789),
            geneve_port: TunnelPorts::one(6081),
            teredo_port: TunnelPorts::one(3544),
            erspan_type1: true,
            ipv4_in_ipv4: false,
        }
    }
}

/// The reusable output of one [`Decoder::decode`] call: the captured packet first,
/// then inner tunnel packets in the order found.
#[derive(Clone, Debug)]
pub struct Decoded {
    pkts: [Packet; MAX_PACKETS],
    len: usize,
}

impl Default for Decoded {
    fn default() -> Self {
        Decoded {
            pkts: [Packet::default(); MAX_PACKETS],
            len: 0,
        }
    }
}

impl Decoded {
    /// An empty output buffer (reuse it across frames).
    pub fn new() -> Self {
        Self::default()
    }
    /// All packets of the last decoded frame (outer first).
    #[inline]
    pub fn packets(&self) -> &[Packet] {
        &self.pkts[..self.len]
    }
    /// The captured packet. Panics if nothing was decoded yet.
    #[inline]
    pub fn outer(&self) -> &Packet {
        &self.pkts[..self.len][0]
    }
    /// The inner tunnel packets (may be empty).
    #[inline]
    pub fn inner(&self) -> &[Packet] {
        self.packets().get(1..).unwrap_or(&[])
    }
    /// Number of packets.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// True before the first decode.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A per-worker decoder: configuration plus its [`DecodeStats`].
#[derive(Clone, Debug, Default)]
pub struct Decoder {
    cfg: DecoderConfig,
    stats: DecodeStats,
}

/// What an inner packet starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inner {
    Ethernet,
    Ipv4,
    Ipv6,
    Ppp,
    Vlan,
    ErspanII,
    ErspanIII,
}

/// State of one decode call.
pub(crate) struct Ctx<'f, 'o> {
    pub buf: &'f [u8],
    pub out: &'o mut Decoded,
    pub cur: usize,
    pub layers: u8,
    pub vlan_idx: u8,
    pub too_many: bool,
}

impl Ctx<'_, '_> {
    #[inline]
    pub fn pkt(&mut self) -> &mut Packet {
        &mut self.out.pkts[self.cur]
    }
}

#[inline]
pub(crate) fn off32(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

impl Decoder {
    /// A decoder with `cfg` and zeroed stats.
    pub fn new(cfg: DecoderConfig) -> Self {
        Decoder {
            cfg,
            stats: DecodeStats::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &DecoderConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &DecodeStats {
        &self.stats
    }

    /// Mutable counters (e.g. for later stages that raise decoder events such as
    /// `ipv4.frag_overlap`).
    pub fn stats_mut(&mut self) -> &mut DecodeStats {
        &mut self.stats
    }

    /// Decodes one captured frame of link type `link` into `out` (overwriting it).
    /// `wire_len` is the original length on the wire (≥ `frame.len()` unless the capture
    /// lies). Counts `decoder.pkts`/`bytes` and every layer found.
    pub fn decode(
        &mut self,
        link: LinkType,
        frame: &[u8],
        ts: Timestamp,
        wire_len: u32,
        out: &mut Decoded,
    ) {
        self.stats.frame(frame.len());
        let caplen = off32(frame.len());
        let mut p = Packet {
            ts,
            caplen,
            wire_len,
            link_type: link,
            ..Packet::default()
        };
        if wire_len > caplen {
            p.flags |= flags::SNAPPED;
        }
        out.pkts[0] = p;
        out.len = 1;
        let mut c = Ctx {
            buf: frame,
            out,
            cur: 0,
            layers: 0,
            vlan_idx: 0,
            too_many: false,
        };
        self.link(&mut c, link, 0, frame.len());
        if c.out.pkts[0].has(flags::INVALID) {
            self.stats.incr(Counter::Invalid);
        }
    }

    /// Decodes a reassembled IP datagram (IPv4 or IPv6 by its version nibble) as Suricata
    /// re-decodes a defragmented packet: `out.packets()[0]` gets [`Tunnel::Reassembled`]
    /// and the timestamp, link type and VLAN ids of `parent` (the fragment that
    /// completed it); offsets refer to `datagram`. Counted in `decoder.ipv4`/`ipv6`/L4
    /// counters, not in `decoder.pkts`.
    pub fn decode_ip(&mut self, datagram: &[u8], parent: &Packet, out: &mut Decoded) {
        let len = off32(datagram.len());
        out.pkts[0] = Packet {
            ts: parent.ts,
            caplen: len,
            wire_len: len,
            link_type: parent.link_type,
            vlan: parent.vlan,
            tunnel: Tunnel::Reassembled,
            depth: parent.depth,
            ..Packet::default()
        };
        out.len = 1;
        let mut c = Ctx {
            buf: datagram,
            out,
            cur: 0,
            layers: 0,
            vlan_idx: 0,
            too_many: false,
        };
        match datagram.first().map(|b| b >> 4) {
            Some(6) => self.ipv6(&mut c, 0, datagram.len()),
            _ => self.ipv4(&mut c, 0, datagram.len()),
        }
    }

    /// Records `event` on the current packet and counts it, up to the packet's first
    /// [`COUNTED_EVENTS`](crate::packet::COUNTED_EVENTS) events as Suricata 7.0.10.
    #[inline]
    pub(crate) fn event(&mut self, c: &mut Ctx<'_, '_>, event: Event) {
        if c.pkt().push_event(event) {
            self.stats.event(event);
        }
    }

    /// Counts one more decoded layer; false (and `decoder.too_many_layers`, once per
    /// frame) when the limit is exceeded. The packet is then invalid, as in Suricata
    /// 7.0.10 (`decoder.invalid` counts it; sv-ether's frame 10642, Ethernet in MPLS
    /// nested past 16 layers).
    #[inline]
    pub(crate) fn layer(&mut self, c: &mut Ctx<'_, '_>) -> bool {
        c.layers = c.layers.saturating_add(1);
        if c.layers > self.cfg.max_layers {
            if !c.too_many {
                c.too_many = true;
                self.stats.incr(Counter::TooManyLayers);
            }
            c.pkt().flags |= flags::TOO_MANY_LAYERS | flags::INVALID;
            return false;
        }
        true
    }

    /// Starts an inner packet at `off..end` carried by the current packet and decodes it.
    pub(crate) fn spawn(
        &mut self,
        c: &mut Ctx<'_, '_>,
        tunnel: Tunnel,
        inner: Inner,
        off: usize,
        end: usize,
    ) {
        let idx = c.out.len;
        if idx >= MAX_PACKETS {
            if !c.too_many {
                c.too_many = true;
                self.stats.incr(Counter::TooManyLayers);
            }
            c.pkt().flags |= flags::TOO_MANY_LAYERS;
            return;
        }
        let parent = *c.pkt();
        c.out.pkts[idx] = Packet {
            ts: parent.ts,
            caplen: parent.caplen,
            wire_len: parent.wire_len,
            link_type: parent.link_type,
            link_off: off32(off),
            vlan: parent.vlan,
            tunnel,
            parent: c.cur as u8,
            depth: parent.depth.saturating_add(1),
            ..Packet::default()
        };
        c.out.len = idx + 1;
        let saved = (c.cur, c.vlan_idx);
        c.cur = idx;
        c.vlan_idx = 0;
        match inner {
            Inner::Ethernet => self.ethernet(c, off, end),
            Inner::Ipv4 => self.ipv4(c, off, end),
            Inner::Ipv6 => self.ipv6(c, off, end),
            Inner::Ppp => self.ppp(c, off, end),
            Inner::Vlan => self.vlan(c, off, end),
            Inner::ErspanII => self.erspan2(c, off, end),
            Inner::ErspanIII => self.erspan3(c, off, end),
        }
        let valid = !c.out.pkts[idx].has(flags::INVALID);
        (c.cur, c.vlan_idx) = saved;
        if valid {
            c.pkt().flags |= flags::HAS_INNER;
        } else {
            // Suricata discards an invalid tunnel packet (and anything found inside it).
            c.out.len = idx;
        }
    }

    fn link(&mut self, c: &mut Ctx<'_, '_>, link: LinkType, off: usize, end: usize) {
        match link {
            LinkType::ETHERNET => self.ethernet(c, off, end),
            LinkType::LINUX_SLL => self.sll(c, off, end),
            LinkType::LINUX_SLL2 => self.sll2(c, off, end),
            LinkType::RAW | LinkType::RAW_OLD | LinkType::RAW_OPENBSD => {
                self.stats.incr(Counter::Raw);
                match c.buf.get(off).map(|b| b >> 4) {
                    Some(4) => self.ipv4(c, off, end),
                    Some(6) => self.ipv6(c, off, end),
                    _ => self.event(c, Event::IprawInvalidIpVersion),
                }
            }
            LinkType::IPV4 => {
                self.stats.incr(Counter::Raw);
                self.ipv4(c, off, end)
            }
            LinkType::IPV6 => {
                self.stats.incr(Counter::Raw);
                self.ipv6(c, off, end)
            }
            LinkType::NULL => self.null(c, off, end, false),
            LinkType::LOOP => self.null(c, off, end, true),
            LinkType::PPP | LinkType::PPP_HDLC => self.ppp(c, off, end),
            LinkType::PPP_ETHER => self.pppoe_session(c, off, end),
            LinkType::C_HDLC => self.chdlc(c, off, end),
            _ => self.stats.incr(Counter::UnknownLinkType),
        }
    }
}

#[cfg(test)]
mod tests;

//! Link layers: Ethernet, VLAN, VN-Tag, 802.1ah, NSH, MPLS, PPPoE, PPP, Cisco HDLC,
//! Linux SLL/SLL2, BSD null/loop.

use super::{Ctx, Decoder};
use crate::packet::flags;
use crate::proto::ethernet::{ethertype as et, HEADER_LEN as ETH_LEN};
use crate::proto::{be16, be32};
use crate::stats::Counter;
use crate::Event;

/// Whether Suricata 7.0.10 knows a PPP protocol it does not decode
/// (`ppp.unsup_proto`; `ppp.wrong_type` otherwise). Every protocol value went through
/// `suricata -r` on raw PPP and in a PPPoE session (difftest `events`, bench/RESULTS.md):
/// the control and network protocols below, and on raw PPP also CCP (0x00fd, 0x80fd),
/// 0xc029 and every one-byte (compressed) protocol field.
fn ppp_known(proto: u16, compressed: bool, pppoe: bool) -> bool {
    if compressed && !pppoe {
        return true;
    }
    match proto {
        // VJ compressed, IPX, OSI, Xerox NS, DECnet, AppleTalk, bridging, ST-II, Vines
        // (one-byte forms too in a PPPoE session).
        0x0023 | 0x0025 | 0x0027 | 0x0029 | 0x002b | 0x002d | 0x0031 | 0x0033 | 0x0035 => true,
        _ if compressed => false,
        // 802.1d hello, Luxcom, Sigma, MPLS, and their control protocols, LCP, PAP, LQR,
        // CHAP.
        0x0201 | 0x0231 | 0x0233 | 0x0281 | 0x0283 | 0x8021 | 0x8023 | 0x8025 | 0x8027 | 0x8029
        | 0x802b | 0x8033 | 0x8035 | 0x8057 | 0x8281 | 0xc021 | 0xc023 | 0xc025 | 0xc223 => true,
        0x00fd | 0x80fd | 0xc029 => !pppoe,
        _ => false,
    }
}

impl Decoder {
    pub(crate) fn ethernet(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        // The layer limit first: past it the header is not counted (Suricata 7.0.10).
        if !self.layer(c) {
            return;
        }
        self.stats.incr(Counter::Ethernet);
        if end - off < ETH_LEN {
            self.event(c, Event::EthernetPktTooSmall);
            return;
        }
        let ty = be16(c.buf, off + 12);
        self.ether_type(c, ty, off + ETH_LEN, end);
    }

    /// Dispatches on an EtherType. Returns false for an unknown one (counted as
    /// `decoder.unknown_ethertype`).
    pub(crate) fn ether_type(
        &mut self,
        c: &mut Ctx<'_, '_>,
        ty: u16,
        off: usize,
        end: usize,
    ) -> bool {
        match ty {
            et::IPV4 => self.ipv4(c, off, end),
            et::IPV6 => self.ipv6(c, off, end),
            et::VLAN | et::QINQ | et::QINQ_9100 => self.vlan(c, off, end),
            et::ARP => {
                self.stats.incr(Counter::Arp);
                c.pkt().flags |= flags::ARP;
            }
            et::PPPOE_SESSION => self.pppoe_session(c, off, end),
            et::PPPOE_DISCOVERY => self.pppoe_discovery(c, off, end),
            et::MPLS_UNICAST | et::MPLS_MULTICAST => self.mpls(c, off, end),
            et::VNTAG => self.vntag(c, off, end),
            et::IEEE8021AH => self.ieee8021ah(c, off, end),
            et::NSH => self.nsh(c, off, end),
            et::DCE => {
                if end - off < 2 {
                    self.event(c, Event::DcePktTooSmall);
                } else {
                    self.ethernet(c, off + 2, end);
                }
            }
            _ => {
                self.stats.incr(Counter::UnknownEthertype);
                return false;
            }
        }
        true
    }

    pub(crate) fn vlan(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        let counter = match c.vlan_idx {
            0 => Counter::Vlan,
            1 => Counter::VlanQinq,
            2 => Counter::VlanQinqinq,
            _ => {
                self.event(c, Event::VlanTooManyLayers);
                return;
            }
        };
        if !self.layer(c) {
            return;
        }
        self.stats.incr(counter);
        if end - off < 4 {
            self.event(c, Event::VlanHeaderTooSmall);
            return;
        }
        let id = be16(c.buf, off) & 0x0fff;
        let idx = usize::from(c.vlan_idx);
        if idx < 3 {
            c.pkt().vlan[idx] = id;
        }
        c.vlan_idx += 1;
        let ty = be16(c.buf, off + 2);
        if !self.ether_type(c, ty, off + 4, end) {
            self.event(c, Event::VlanUnknownType);
        }
    }

    fn vntag(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Vntag);
        if !self.layer(c) {
            return;
        }
        if end - off < 6 {
            self.event(c, Event::VntagHeaderTooSmall);
            return;
        }
        let ty = be16(c.buf, off + 4);
        if !self.ether_type(c, ty, off + 6, end) {
            self.event(c, Event::VntagUnknownType);
        }
    }

    fn ieee8021ah(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Ieee8021ah);
        if !self.layer(c) {
            return;
        }
        // I-TAG (4 bytes: flags + I-SID), then the customer's Ethernet header.
        if end - off < 4 + ETH_LEN {
            self.event(c, Event::Ieee8021ahHeaderTooSmall);
            return;
        }
        self.ethernet(c, off + 4, end);
    }

    fn nsh(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Nsh);
        if !self.layer(c) {
            return;
        }
        let b = &c.buf[off..end];
        if b.len() < 8 {
            self.event(c, Event::NshHeaderTooSmall);
            return;
        }
        if b[0] >> 6 != 0 {
            self.event(c, Event::NshUnsupportedVersion);
            return;
        }
        let hlen = usize::from(b[1] & 0x3f) * 4;
        let md_type = b[2] & 0x0f;
        if hlen < 8 || hlen > b.len() || (md_type == 1 && hlen != 24) {
            self.event(c, Event::NshBadHeaderLength);
            return;
        }
        match md_type {
            1 | 2 => {}
            0 | 0x0f => {
                self.event(c, Event::NshReservedType);
                return;
            }
            _ => {
                self.event(c, Event::NshUnsupportedType);
                return;
            }
        }
        let next = b[3];
        let start = off + hlen;
        match next {
            1 => self.ipv4(c, start, end),
            2 => self.ipv6(c, start, end),
            3 => self.ethernet(c, start, end),
            4 => self.nsh(c, start, end),
            5 => self.mpls(c, start, end),
            _ => self.event(c, Event::NshUnknownPayload),
        }
    }

    pub(crate) fn mpls(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Mpls);
        let mut pos = off;
        let mut label;
        loop {
            if !self.layer(c) {
                return;
            }
            if end - pos < 4 {
                self.event(c, Event::MplsHeaderTooSmall);
                return;
            }
            let entry = be32(c.buf, pos);
            pos += 4;
            label = entry >> 12;
            if entry & 0x100 != 0 {
                break;
            }
        }
        match label {
            0 => return self.ipv4(c, pos, end),
            2 => return self.ipv6(c, pos, end),
            1 => self.event(c, Event::MplsBadLabelRouterAlert),
            3 => self.event(c, Event::MplsBadLabelImplicitNull),
            4..=15 => self.event(c, Event::MplsBadLabelReserved),
            _ => {}
        }
        if pos >= end {
            self.event(c, Event::MplsPktTooSmall);
            return;
        }
        match c.buf[pos] >> 4 {
            4 => self.ipv4(c, pos, end),
            6 => self.ipv6(c, pos, end),
            0 => {
                // Ethernet pseudowire with a 4-byte control word.
                if end - pos < 4 + ETH_LEN {
                    self.event(c, Event::MplsPktTooSmall);
                } else {
                    self.ethernet(c, pos + 4, end);
                }
            }
            _ => self.event(c, Event::MplsUnknownPayloadType),
        }
    }

    pub(crate) fn pppoe_session(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Pppoe);
        if !self.layer(c) {
            return;
        }
        let b = &c.buf[off..end];
        if b.len() < 8 {
            self.event(c, Event::PppoePktTooSmall);
            return;
        }
        if b[1] != 0 {
            self.event(c, Event::PppoeWrongCode);
            return;
        }
        // The session payload length bounds the PPP frame (Ethernet padding follows).
        let plen = usize::from(be16(b, 4));
        let pend = (off + 6 + plen).min(end);
        if pend < off + 8 {
            self.event(c, Event::PppoePktTooSmall);
            return;
        }
        // Protocol-field compression: a one-byte protocol has its low bit set.
        let (proto, hdr) = if b[6] & 1 == 1 {
            (u16::from(b[6]), 7)
        } else {
            (be16(b, 6), 8)
        };
        self.ppp_protocol(c, proto, hdr == 7, true, off + hdr, pend);
    }

    fn pppoe_discovery(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Pppoe);
        if !self.layer(c) {
            return;
        }
        let b = &c.buf[off..end];
        if b.len() < 6 {
            self.event(c, Event::PppoePktTooSmall);
            return;
        }
        // PADI, PADO, PADR, PADS, PADT.
        if !matches!(b[1], 0x09 | 0x07 | 0x19 | 0x65 | 0xa7) {
            self.event(c, Event::PppoeWrongCode);
            return;
        }
        let plen = usize::from(be16(b, 4));
        let tags = &b[6..];
        let tags = &tags[..plen.min(tags.len())];
        let mut pos = 0;
        while pos < tags.len() {
            if tags.len() - pos < 4 {
                self.event(c, Event::PppoeMalformedTags);
                return;
            }
            let tlen = usize::from(be16(tags, pos + 2));
            let ttype = be16(tags, pos);
            pos += 4 + tlen;
            if pos > tags.len() {
                self.event(c, Event::PppoeMalformedTags);
                return;
            }
            if ttype == 0 {
                break; // End-Of-List
            }
        }
    }

    /// A PPP frame (optional 0xff03 address/control, then protocol).
    pub(crate) fn ppp(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Ppp);
        if !self.layer(c) {
            return;
        }
        let b = &c.buf[off..end];
        let mut pos = 0;
        if b.len() >= 2 && b[0] == 0xff && b[1] == 0x03 {
            pos = 2;
        }
        if b.len() < pos + 2 {
            self.event(c, Event::PppPktTooSmall);
            return;
        }
        let (proto, hdr) = if b[pos] & 1 == 1 {
            (u16::from(b[pos]), 1)
        } else {
            (be16(b, pos), 2)
        };
        self.ppp_protocol(c, proto, hdr == 1, false, off + pos + hdr, end);
    }

    /// Decodes the PPP payload of protocol `proto` (`compressed`: a one-byte protocol
    /// field; `pppoe`: carried in a PPPoE session, whose decoder knows fewer protocols).
    fn ppp_protocol(
        &mut self,
        c: &mut Ctx<'_, '_>,
        proto: u16,
        compressed: bool,
        pppoe: bool,
        off: usize,
        end: usize,
    ) {
        let len = end - off;
        match proto {
            0x0021 => {
                if len < 20 {
                    self.event(c, Event::PppIp4PktTooSmall);
                } else {
                    self.ipv4(c, off, end);
                }
            }
            0x0057 => {
                if len < 40 {
                    self.event(c, Event::PppIp6PktTooSmall);
                } else {
                    self.ipv6(c, off, end);
                }
            }
            // Van Jacobson uncompressed TCP/IP: an IPv4 header with the protocol field
            // replaced by a slot id.
            0x002f => {
                if len < 20 {
                    self.event(c, Event::PppVjuPktTooSmall);
                } else if c.buf[off] >> 4 == 4 {
                    self.ipv4(c, off, end);
                }
            }
            _ if ppp_known(proto, compressed, pppoe) => self.event(c, Event::PppUnsupProto),
            _ => self.event(c, Event::PppWrongType),
        }
    }

    pub(crate) fn chdlc(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Chdlc);
        if !self.layer(c) {
            return;
        }
        if end - off < 4 {
            self.event(c, Event::ChdlcPktTooSmall);
            return;
        }
        let ty = be16(c.buf, off + 2);
        self.ether_type(c, ty, off + 4, end);
    }

    pub(crate) fn sll(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Sll);
        if !self.layer(c) {
            return;
        }
        if end - off < 16 {
            self.event(c, Event::SllPktTooSmall);
            return;
        }
        let ty = be16(c.buf, off + 14);
        self.ether_type(c, ty, off + 16, end);
    }

    pub(crate) fn sll2(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Sll);
        if !self.layer(c) {
            return;
        }
        if end - off < 20 {
            self.event(c, Event::SllPktTooSmall);
            return;
        }
        let ty = be16(c.buf, off);
        self.ether_type(c, ty, off + 20, end);
    }

    /// BSD null (host byte order family) or OpenBSD loop (network byte order).
    pub(crate) fn null(
        &mut self,
        c: &mut Ctx<'_, '_>,
        off: usize,
        end: usize,
        network_order: bool,
    ) {
        self.stats.incr(Counter::Null);
        if !self.layer(c) {
            return;
        }
        if end - off < 4 {
            self.event(c, Event::LtnullPktTooSmall);
            return;
        }
        let raw = [c.buf[off], c.buf[off + 1], c.buf[off + 2], c.buf[off + 3]];
        // The capturing host's byte order is unknown for NULL: accept either.
        let family = if network_order {
            u32::from_be_bytes(raw)
        } else {
            let le = u32::from_le_bytes(raw);
            if le <= 0xffff {
                le
            } else {
                u32::from_be_bytes(raw)
            }
        };
        match family {
            2 => self.ipv4(c, off + 4, end),
            10 | 24 | 28 | 30 => self.ipv6(c, off + 4, end),
            _ => self.event(c, Event::LtnullUnsupportedType),
        }
    }
}

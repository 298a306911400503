//! Tunnels: GRE (incl. ERSPAN I/II/III and PPTP), VXLAN, Geneve, Teredo.

use super::{Ctx, Decoder, Inner};
use crate::packet::Tunnel;
use crate::proto::be16;
use crate::proto::ethernet::{ethertype as et, HEADER_LEN as ETH_LEN};
use crate::stats::Counter;
use crate::Event;

impl Decoder {
    pub(crate) fn gre(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Gre);
        let b = &c.buf[off..end];
        if b.len() < 4 {
            return self.event(c, Event::GrePktTooSmall);
        }
        let (f0, f1) = (b[0], b[1]);
        let proto = be16(b, 2);
        let has_csum = f0 & 0x80 != 0;
        let has_route = f0 & 0x40 != 0;
        let has_key = f0 & 0x20 != 0;
        let has_seq = f0 & 0x10 != 0;
        let ssr = f0 & 0x08 != 0;
        let recur = f0 & 0x07;
        let hlen = match f1 & 0x07 {
            0 => {
                if recur != 0 {
                    return self.event(c, Event::GreVersion0Recur);
                }
                if f1 & 0xf8 != 0 {
                    return self.event(c, Event::GreVersion0Flags);
                }
                let mut hlen = 4;
                if has_csum || has_route {
                    hlen += 4;
                }
                if has_key {
                    hlen += 4;
                }
                if has_seq {
                    hlen += 4;
                }
                if hlen > b.len() {
                    return self.event(c, Event::GreVersion0HdrTooBig);
                }
                if has_route {
                    // Source route entries: address family (2), offset (1), length (1),
                    // data; a zero-length entry ends the list.
                    loop {
                        if b.len() - hlen < 4 {
                            return self.event(c, Event::GreVersion0MalformedSreHdr);
                        }
                        let sre_len = usize::from(b[hlen + 3]);
                        hlen += 4;
                        if sre_len == 0 {
                            break;
                        }
                        if b.len() - hlen < sre_len {
                            return self.event(c, Event::GreVersion0MalformedSreHdr);
                        }
                        hlen += sre_len;
                    }
                }
                hlen
            }
            1 => {
                if has_csum {
                    return self.event(c, Event::GreVersion1Chksum);
                }
                if has_route {
                    return self.event(c, Event::GreVersion1Route);
                }
                if ssr {
                    return self.event(c, Event::GreVersion1Ssr);
                }
                if recur != 0 {
                    return self.event(c, Event::GreVersion1Recur);
                }
                if f1 & 0x78 != 0 {
                    return self.event(c, Event::GreVersion1Flags);
                }
                if proto != et::PPP {
                    return self.event(c, Event::GreVersion1WrongProtocol);
                }
                if !has_key {
                    return self.event(c, Event::GreVersion1NoKey);
                }
                let mut hlen = 8;
                if has_seq {
                    hlen += 4;
                }
                if f1 & 0x80 != 0 {
                    hlen += 4;
                }
                if hlen > b.len() {
                    return self.event(c, Event::GreVersion1HdrTooBig);
                }
                hlen
            }
            _ => return self.event(c, Event::GreWrongVersion),
        };
        {
            let p = c.pkt();
            p.l4_off = super::off32(off);
            // No payload: as in Suricata 7.0.10, the GRE packet itself has none to
            // inspect (`content`, `dsize` never match it; the inner packet has one).
            p.payload_off = super::off32(off + hlen);
            p.payload_len = 0;
        }
        if !self.layer(c) {
            return;
        }
        let start = off + hlen;
        match proto {
            et::IPV4 => self.spawn(c, Tunnel::Gre, Inner::Ipv4, start, end),
            et::IPV6 => self.spawn(c, Tunnel::Gre, Inner::Ipv6, start, end),
            et::PPP => self.spawn(c, Tunnel::Gre, Inner::Ppp, start, end),
            et::TEB => self.spawn(c, Tunnel::Gre, Inner::Ethernet, start, end),
            et::VLAN => self.spawn(c, Tunnel::Gre, Inner::Vlan, start, end),
            et::ERSPAN_II if has_seq => self.spawn(c, Tunnel::Erspan, Inner::ErspanII, start, end),
            et::ERSPAN_II if self.cfg.erspan_type1 => {
                // Type I: no ERSPAN header, the mirrored frame follows GRE directly.
                self.stats.incr(Counter::Erspan);
                self.spawn(c, Tunnel::Erspan, Inner::Ethernet, start, end)
            }
            et::ERSPAN_III => self.spawn(c, Tunnel::Erspan, Inner::ErspanIII, start, end),
            _ => {}
        }
    }

    /// ERSPAN type II: 8-byte header (version 1), then Ethernet.
    pub(crate) fn erspan2(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Erspan);
        if end - off < 8 {
            return self.event(c, Event::ErspanHeaderTooSmall);
        }
        if c.buf[off] >> 4 != 1 {
            return self.event(c, Event::ErspanUnsupportedVersion);
        }
        self.erspan_vlan(c, be16(c.buf, off) & 0x0fff);
        self.ethernet(c, off + 8, end);
    }

    /// ERSPAN type III: 12-byte header (version 2), optional 8-byte platform
    /// sub-header, then Ethernet.
    pub(crate) fn erspan3(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Erspan);
        if end - off < 12 {
            return self.event(c, Event::ErspanHeaderTooSmall);
        }
        if c.buf[off] >> 4 != 2 {
            return self.event(c, Event::ErspanUnsupportedVersion);
        }
        let mut hlen = 12;
        if c.buf[off + 11] & 0x01 != 0 {
            hlen += 8;
            if end - off < hlen {
                return self.event(c, Event::ErspanHeaderTooSmall);
            }
        }
        self.erspan_vlan(c, be16(c.buf, off) & 0x0fff);
        self.ethernet(c, off + hlen, end);
    }

    fn erspan_vlan(&mut self, c: &mut Ctx<'_, '_>, id: u16) {
        if id == 0 {
            return;
        }
        let idx = usize::from(c.vlan_idx);
        if idx >= 2 {
            return self.event(c, Event::ErspanTooManyVlanLayers);
        }
        c.pkt().vlan[idx] = id;
        c.vlan_idx += 1;
    }

    /// Looks for Teredo, Geneve and VXLAN in a UDP payload, in Suricata's order.
    pub(crate) fn udp_tunnels(
        &mut self,
        c: &mut Ctx<'_, '_>,
        sport: u16,
        dport: u16,
        off: usize,
        end: usize,
    ) {
        let teredo = &self.cfg.teredo_port;
        if (teredo.has(sport) || teredo.has(dport)) && self.teredo(c, off, end) {
            return;
        }
        if self.cfg.geneve_port.has(dport) && self.geneve(c, off, end) {
            return;
        }
        if self.cfg.vxlan_port.has(dport) {
            self.vxlan(c, off, end);
        }
    }

    fn vxlan(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) -> bool {
        let b = &c.buf[off..end];
        if b.len() < 8 + ETH_LEN {
            return false;
        }
        // I flag set, last reserved byte clear.
        if b[0] & 0x08 == 0 || b[7] != 0 {
            return false;
        }
        self.stats.incr(Counter::Vxlan);
        if !self.layer(c) {
            return true;
        }
        // As Suricata 7.0.10, the inner Ethernet header is read here, not decoded as a
        // layer (not in `decoder.ethernet`), and the tunnelled packet starts after it;
        // ARP inside is neither counted nor decoded (sv-ether's 118 VXLAN frames).
        let inner_type = be16(b, 8 + 12);
        let inner = match inner_type {
            et::IPV4 => Inner::Ipv4,
            et::IPV6 => Inner::Ipv6,
            et::VLAN | et::QINQ | et::QINQ_9100 => Inner::Vlan,
            et::ARP => return true,
            _ => {
                self.event(c, Event::VxlanUnknownPayloadType);
                return true;
            }
        };
        self.spawn(c, Tunnel::Vxlan, inner, off + 8 + ETH_LEN, end);
        true
    }

    fn geneve(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) -> bool {
        let b = &c.buf[off..end];
        if b.len() < 8 {
            return false;
        }
        if b[0] >> 6 != 0 {
            return false;
        }
        let hlen = 8 + usize::from(b[0] & 0x3f) * 4;
        if hlen > b.len() {
            return false;
        }
        let proto = be16(b, 2);
        self.stats.incr(Counter::Geneve);
        if !self.layer(c) {
            return true;
        }
        let start = off + hlen;
        match proto {
            et::TEB => self.spawn(c, Tunnel::Geneve, Inner::Ethernet, start, end),
            et::IPV4 => self.spawn(c, Tunnel::Geneve, Inner::Ipv4, start, end),
            et::IPV6 => self.spawn(c, Tunnel::Geneve, Inner::Ipv6, start, end),
            _ => self.event(c, Event::GeneveUnknownPayloadType),
        }
        true
    }

    /// Teredo (RFC 4380): an optional origin-indication header, then an IPv6 packet
    /// that fills the UDP payload exactly. As in Suricata, packets with an
    /// authentication header (qualification procedure) and bubbles are not treated as a
    /// tunnel.
    fn teredo(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) -> bool {
        let b = &c.buf[off..end];
        if b.len() < 40 {
            return false;
        }
        let mut pos = 0;
        if b[0] == 0 {
            if b[1] != 0 || b.len() < 8 + 40 {
                return false;
            }
            pos = 8; // Origin indication.
        }
        let ip = &b[pos..];
        if ip[0] >> 4 != 6 || usize::from(be16(ip, 4)) + 40 != ip.len() {
            return false;
        }
        // A bubble (no next header, no payload) keeps the NAT mapping alive: not a tunnel.
        if ip[6] == 59 && ip.len() == 40 {
            return false;
        }
        self.stats.incr(Counter::Teredo);
        if !self.layer(c) {
            return true;
        }
        self.spawn(c, Tunnel::Teredo, Inner::Ipv6, off + pos, end);
        true
    }
}

//! Transport layers: TCP (with options), UDP (and the UDP tunnels), ICMPv4, ICMPv6,
//! SCTP, ESP.

use super::{off32, Ctx, Decoder};
use crate::checksum;
use crate::packet::flags;
use crate::proto::icmp::{
    icmpv4_is_error, icmpv4_max_code, icmpv6_class, icmpv6_code_ok, icmpv6_is_error,
    icmpv6_payload_after_header, Icmpv6Class,
};
use crate::proto::{be16, be32};
use crate::stats::Counter;
use crate::Event;

impl Decoder {
    /// Verifies the checksum of the L4 segment `off..end` of the current packet and
    /// records the result; `pseudo` selects whether a pseudo-header is included.
    fn l4_checksum(
        &mut self,
        c: &mut Ctx<'_, '_>,
        proto: u8,
        off: usize,
        end: usize,
        pseudo: bool,
        bad: Counter,
    ) {
        let seg = &c.buf[off..end];
        let p = c.pkt();
        let sum = if !pseudo {
            0
        } else if p.ip_version == 4 {
            let s = [p.src[0], p.src[1], p.src[2], p.src[3]];
            let d = [p.dst[0], p.dst[1], p.dst[2], p.dst[3]];
            checksum::pseudo_header_v4(&s, &d, proto, off32(seg.len()))
        } else {
            checksum::pseudo_header_v6(&p.src, &p.dst, proto, off32(seg.len()))
        };
        let ok = checksum::verify_with_pseudo(sum, seg);
        p.flags |= if ok {
            flags::L4_CSUM_OK
        } else {
            flags::L4_CSUM_BAD
        };
        if !ok {
            self.stats.incr(bad);
        }
    }

    fn set_l4(c: &mut Ctx<'_, '_>, l4: usize, payload: usize, end: usize) {
        let p = c.pkt();
        p.l4_off = off32(l4);
        p.payload_off = off32(payload);
        p.payload_len = off32(end - payload);
    }

    pub(crate) fn tcp(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Tcp);
        let b = &c.buf[off..end];
        if b.len() < 20 {
            return self.event(c, Event::TcpPktTooSmall);
        }
        // As Suricata 7.0.10 names them (checked on its decoder): a header longer than
        // the segment is `hlen_too_small` (the segment is too small for its header), a
        // data offset under 20 bytes `invalid_optlen` (a negative options length).
        let hl = usize::from(b[12] >> 4) * 4;
        if b.len() < hl {
            return self.event(c, Event::TcpHlenTooSmall);
        }
        if hl < 20 {
            return self.event(c, Event::TcpInvalidOptlen);
        }
        {
            let p = c.pkt();
            p.sport = be16(b, 0);
            p.dport = be16(b, 2);
            p.seq = be32(b, 4);
            p.ack = be32(b, 8);
            p.tcp_flags = b[13];
            p.window = be16(b, 14);
        }
        if hl > 20 {
            self.tcp_options(c, off + 20, off + hl);
        }
        Self::set_l4(c, off, off + hl, end);
        if self.cfg.verify_checksums {
            self.l4_checksum(c, 6, off, end, true, Counter::TcpChecksumBad);
        }
    }

    fn tcp_options(&mut self, c: &mut Ctx<'_, '_>, mut pos: usize, end: usize) {
        let mut seen = 0u16;
        let mut fl = 0u32;
        let mut wscale = 0u8;
        while pos < end {
            let kind = c.buf[pos];
            if kind == 0 {
                break;
            }
            if kind == 1 {
                pos += 1;
                continue;
            }
            if end - pos < 2 {
                self.event(c, Event::TcpInvalidOptlen);
                break;
            }
            let len = usize::from(c.buf[pos + 1]);
            if len < 2 || len > end - pos {
                self.event(c, Event::TcpOptInvalidLen);
                break;
            }
            let (bit, ok, flag) = match kind {
                2 => (0, len == 4, flags::TCP_MSS),
                3 => (1, len == 3, flags::TCP_WSCALE),
                4 => (2, len == 2, flags::TCP_SACK_PERM),
                5 => (3, len >= 10 && (len - 2) % 8 == 0, flags::TCP_SACK),
                8 => (4, len == 10, flags::TCP_TS),
                34 => (5, len == 2 || (6..=18).contains(&len), 0), // TCP Fast Open
                _ => (15, true, 0),
            };
            if bit != 15 {
                if seen & (1 << bit) != 0 {
                    self.event(c, Event::TcpOptDuplicate);
                }
                seen |= 1 << bit;
            }
            if !ok {
                self.event(c, Event::TcpOptInvalidLen);
            } else {
                fl |= flag;
                if kind == 3 {
                    wscale = c.buf[pos + 2];
                }
            }
            pos += len;
        }
        let p = c.pkt();
        p.flags |= fl;
        p.tcp_wscale = wscale;
    }

    pub(crate) fn udp(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Udp);
        let b = &c.buf[off..end];
        if b.len() < 8 {
            return self.event(c, Event::UdpHlenTooSmall);
        }
        let ulen = usize::from(be16(b, 4));
        if ulen > b.len() {
            return self.event(c, Event::UdpPktTooSmall);
        }
        if ulen < 8 {
            return self.event(c, Event::UdpLenInvalid);
        }
        // A UDP length shorter than the IP payload: the datagram is its length, the
        // rest is ignored, without an event (Suricata 7.0.10: `dsize` is the UDP
        // length's, `udp.hlen_invalid` never raised; difftest `events/udphdr`).
        let end = off + ulen;
        let sport = be16(b, 0);
        let dport = be16(b, 2);
        let csum = be16(b, 6);
        {
            let p = c.pkt();
            p.sport = sport;
            p.dport = dport;
        }
        Self::set_l4(c, off, off + 8, end);
        if self.cfg.verify_checksums {
            if csum == 0 && c.pkt().ip_version == 4 {
                c.pkt().flags |= flags::L4_CSUM_OK; // IPv4: no checksum.
            } else {
                self.l4_checksum(c, 17, off, end, true, Counter::UdpChecksumBad);
            }
        }
        self.udp_tunnels(c, sport, dport, off + 8, end);
    }

    pub(crate) fn icmpv4(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Icmpv4);
        let b = &c.buf[off..end];
        if b.len() < 8 {
            return self.event(c, Event::Icmpv4PktTooSmall);
        }
        let (ty, code) = (b[0], b[1]);
        let quoted = &b[8..];
        {
            let p = c.pkt();
            p.icmp_type = ty;
            p.icmp_code = code;
        }
        // A timestamp request or reply: Suricata 7.0.10's payload starts after the
        // three timestamps (difftest `icmp/itype-*` in IPS mode, payloads logged).
        let payload = if matches!(ty, 13 | 14) && quoted.len() >= 12 {
            off + 20
        } else {
            off + 8
        };
        Self::set_l4(c, off, payload, end);
        let code_ok = match icmpv4_max_code(ty) {
            None => {
                self.event(c, Event::Icmpv4UnknownType);
                false
            }
            Some(max) if code > max => {
                self.event(c, Event::Icmpv4UnknownCode);
                false
            }
            Some(_) => true,
        };
        // Suricata 7.0.10 decodes the quoted header of an error message only when its
        // code is known and something follows the ICMP header (difftest
        // `events/icmpv4`: code 16 quoting version 0, an empty quote, raise nothing).
        // A timestamp request or reply without its three timestamps (12 bytes) is
        // `icmpv4.ipv4_trunc_pkt` to Suricata 7.0.10, whatever the code.
        if matches!(ty, 13 | 14) && quoted.len() < 12 {
            self.event(c, Event::Icmpv4Ipv4TruncPkt);
        }
        // So is a router advertisement shorter than its addresses (count × entry size
        // in 32-bit words, the first two bytes after the checksum).
        if ty == 9 && usize::from(b[4]) * usize::from(b[5]) * 4 > quoted.len() {
            self.event(c, Event::Icmpv4Ipv4TruncPkt);
        }
        if icmpv4_is_error(ty) && code_ok && !quoted.is_empty() {
            if quoted.len() < 20 {
                self.event(c, Event::Icmpv4Ipv4TruncPkt);
            } else if quoted[0] >> 4 != 4 {
                self.event(c, Event::Icmpv4Ipv4UnknownVer);
            }
        }
        if self.cfg.verify_checksums {
            self.l4_checksum(c, 1, off, end, false, Counter::Icmpv4ChecksumBad);
        }
    }

    pub(crate) fn icmpv6(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Icmpv6);
        let b = &c.buf[off..end];
        if b.len() < 8 {
            return self.event(c, Event::Icmpv6PktTooSmall);
        }
        let (ty, code) = (b[0], b[1]);
        let quoted = b.get(8..48).map(|q| q[0] >> 4);
        let hop_limit = c.pkt().ttl;
        {
            let p = c.pkt();
            p.icmp_type = ty;
            p.icmp_code = code;
        }
        Self::set_l4(c, off, off + 8, end);
        if !icmpv6_payload_after_header(ty, code) {
            // Suricata 7.0.10 takes the payload of every other message from the 4th
            // byte of the ICMPv6 header, 12 bytes shorter than the message (dsize,
            // content and the logged payload all see it: difftest `icmp/icode-*`,
            // `icmp/itype-*` in IPS mode; nothing when the message has 12 bytes or
            // fewer).
            let len = (end - off).saturating_sub(12);
            Self::set_l4(c, off, off + 4, off + 4 + len);
        }
        let code_ok = match icmpv6_class(ty) {
            Icmpv6Class::Known => {
                if matches!(ty, 130..=132) && hop_limit != 1 {
                    self.event(c, Event::Icmpv6MldMessageWithInvalidHl);
                }
                let ok = icmpv6_code_ok(ty, code);
                if !ok {
                    self.event(c, Event::Icmpv6UnknownCode);
                }
                ok
            }
            Icmpv6Class::Experimental => {
                self.event(c, Event::Icmpv6ExperimentationType);
                true
            }
            Icmpv6Class::Unassigned => {
                self.event(c, Event::Icmpv6UnassignedType);
                true
            }
            Icmpv6Class::Unknown => {
                self.event(c, Event::Icmpv6UnknownType);
                false
            }
        };
        // The quoted header is decoded only under a known code (difftest
        // `events/icmpv6`: type 1 code 8 quoting 8 bytes raises no `ipv6_trunc_pkt`).
        if icmpv6_is_error(ty) && code_ok {
            match quoted {
                None => self.event(c, Event::Icmpv6Ipv6TruncPkt),
                Some(6) => {}
                Some(_) => self.event(c, Event::Icmpv6Ipv6UnknownVersion),
            }
        }
        if self.cfg.verify_checksums {
            self.l4_checksum(c, 58, off, end, true, Counter::Icmpv6ChecksumBad);
        }
    }

    pub(crate) fn sctp(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Sctp);
        let b = &c.buf[off..end];
        if b.len() < 12 {
            return self.event(c, Event::SctpPktTooSmall);
        }
        let p = c.pkt();
        p.sport = be16(b, 0);
        p.dport = be16(b, 2);
        Self::set_l4(c, off, off + 12, end);
    }

    pub(crate) fn esp(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        self.stats.incr(Counter::Esp);
        if end - off < 8 {
            return self.event(c, Event::EspPktTooSmall);
        }
        Self::set_l4(c, off, off + 8, end);
    }
}

//! IPv4 (options, fragments) and IPv6 (extension headers, fragments).

use super::{off32, Ctx, Decoder, Inner};
use crate::checksum;
use crate::packet::{flags, Tunnel};
use crate::proto::be16;
use crate::proto::ipv4::protocol as ipp;
use crate::stats::Counter;
use crate::Event;

/// Whether a CIPSO option's tags (after type, length and DOI) are as Suricata 7.0.10
/// takes them (difftest `events/ipv4opt`, hand-made options through `suricata -r`): each
/// tag of type 1, 2, 5, 6 or 7, of at least 4 bytes and within the option, its
/// alignment byte zero except in type 7; anything else is `ipv4.opt_malformed`.
fn cipso_tags_ok(mut tags: &[u8]) -> bool {
    while !tags.is_empty() {
        let [ty, len, ..] = *tags else {
            return false;
        };
        let len = usize::from(len);
        if !matches!(ty, 1 | 2 | 5 | 6 | 7) || len < 4 || len > tags.len() {
            return false;
        }
        if ty != 7 && tags[2] != 0 {
            return false;
        }
        tags = &tags[len..];
    }
    true
}

impl Decoder {
    pub(crate) fn ipv4(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        // The layer limit first: past it the header is not counted (Suricata 7.0.10).
        if !self.layer(c) {
            return;
        }
        self.stats.incr(Counter::Ipv4);
        let b = &c.buf[off..end];
        if b.len() < 20 {
            self.event(c, Event::Ipv4PktTooSmall);
            return;
        }
        if b[0] >> 4 != 4 {
            self.event(c, Event::Ipv4WrongIpVersion);
            return;
        }
        let hl = usize::from(b[0] & 0x0f) * 4;
        if hl < 20 {
            self.event(c, Event::Ipv4HlenTooSmall);
            return;
        }
        let tl = usize::from(be16(b, 2));
        if tl < hl {
            self.event(c, Event::Ipv4IplenSmallerThanHlen);
            return;
        }
        if b.len() < tl {
            self.event(c, Event::Ipv4TruncPkt);
            return;
        }
        // From here b[..tl] holds the whole header.
        let flg = be16(b, 6);
        let proto = b[9];
        let mut fl = 0;
        if flg & 0x4000 != 0 {
            fl |= flags::IP_DF;
        }
        if flg & 0x2000 != 0 {
            fl |= flags::IP_MF;
        }
        let is_frag = flg & 0x3fff != 0;
        if is_frag {
            fl |= flags::FRAGMENT;
        }
        if hl > 20 {
            fl |= flags::IPV4_OPTS;
        }
        let verify = self.cfg.verify_checksums;
        let csum_ok = verify && checksum::checksum(&b[..hl]) == 0;
        {
            let p = c.pkt();
            p.ip_version = 4;
            p.l3_off = off32(off);
            p.src = [0; 16];
            p.dst = [0; 16];
            p.src[..4].copy_from_slice(&b[12..16]);
            p.dst[..4].copy_from_slice(&b[16..20]);
            p.tos = b[1];
            p.ttl = b[8];
            p.ip_id = u32::from(be16(b, 4));
            p.frag_off = flg & 0x1fff;
            p.proto = proto;
            p.flags |= fl;
            if verify {
                p.flags |= if csum_ok {
                    flags::IP_CSUM_OK
                } else {
                    flags::IP_CSUM_BAD
                };
            }
        }
        if verify && !csum_ok {
            self.stats.incr(Counter::Ipv4ChecksumBad);
        }
        if hl > 20 && !self.ipv4_options(c, off + 20, off + hl) {
            c.pkt().flags |= flags::IP_HDR_BROKEN;
            return;
        }
        let end = off + tl;
        let start = off + hl;
        if is_frag {
            // Left to defragmentation, which feeds the datagram back via decode_ip.
            // The payload range is the fragment's data.
            let p = c.pkt();
            p.payload_off = off32(start);
            p.payload_len = off32(end - start);
            return;
        }
        match proto {
            ipp::TCP => self.tcp(c, start, end),
            ipp::UDP => self.udp(c, start, end),
            ipp::ICMP => self.icmpv4(c, start, end),
            ipp::SCTP => self.sctp(c, start, end),
            ipp::GRE => self.gre(c, start, end),
            ipp::ESP => self.esp(c, start, end),
            ipp::IPIP if self.cfg.ipv4_in_ipv4 => {
                self.spawn(c, Tunnel::Ipv4InIpv4, Inner::Ipv4, start, end)
            }
            ipp::IPV6 => self.spawn(c, Tunnel::Ipv6InIpv4, Inner::Ipv6, start, end),
            ipp::ICMPV6 => self.event(c, Event::Ipv4Icmpv6),
            _ => {}
        }
    }

    /// Walks the IPv4 options; false when they are so broken that decoding stops.
    fn ipv4_options(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) -> bool {
        // Suricata 7.0.10 wants the option area padded to 8 bytes: every header whose
        // options take 4, 12, 20 ... bytes raises `opt_pad_required`, whatever the
        // options hold and before any of them is read (difftest `events/ipv4opt`).
        if !(end - off).is_multiple_of(8) {
            self.event(c, Event::Ipv4OptPadRequired);
        }
        // Bit per option kind already seen (duplicate detection).
        let mut seen = 0u16;
        let mut pos = off;
        while pos < end {
            let kind = c.buf[pos];
            if kind == 0 {
                break; // End of option list.
            }
            if kind == 1 {
                pos += 1;
                continue;
            }
            if end - pos < 2 {
                // A type byte with no room for its length ends the list; the packet
                // stays valid (Suricata 7 decodes on).
                self.event(c, Event::Ipv4OptEolRequired);
                break;
            }
            let len = usize::from(c.buf[pos + 1]);
            if len < 2 || len > end - pos {
                self.event(c, Event::Ipv4OptInvalidLen);
                return false;
            }
            let data = &c.buf[pos + 2..pos + len];
            // Each option's checks as Suricata 7.0.10 reports them (difftest
            // `events/ipv4opt`, hand-made options through `suricata -r`): a length the
            // option cannot have is `opt_invalid_len`, a bad pointer or CIPSO tag
            // `opt_malformed`; the packet still decodes. A second option of a kind
            // already held is `opt_duplicate` and not checked; a bad one is not held.
            let (bit, bad) = match kind {
                // Record route, loose/strict source route: a pointer of 4, 8 ... up to
                // the option's end.
                7 | 131 | 137 => (
                    match kind {
                        7 => 0,
                        131 => 1,
                        _ => 2,
                    },
                    if len < 3 {
                        Some(Event::Ipv4OptInvalidLen)
                    } else {
                        let ptr = usize::from(data[0]);
                        (ptr < 4 || !ptr.is_multiple_of(4) || ptr > len + 1)
                            .then_some(Event::Ipv4OptMalformed)
                    },
                ),
                // Timestamp: at least 5 bytes; the pointer at an entry's start (5, 9
                // ...) up to the option's end, whatever the flag.
                68 => (
                    3,
                    if len < 5 {
                        Some(Event::Ipv4OptInvalidLen)
                    } else {
                        let ptr = usize::from(data[0]);
                        (ptr < 5 || !(ptr - 1).is_multiple_of(4) || ptr > len + 1)
                            .then_some(Event::Ipv4OptMalformed)
                    },
                ),
                // Security, extended security: variable length, at least 3.
                130 => (4, (len < 3).then_some(Event::Ipv4OptInvalidLen)),
                133 => (5, (len < 3).then_some(Event::Ipv4OptInvalidLen)),
                // CIPSO: a DOI and at least one tag, each tag well formed.
                134 => (
                    6,
                    if len < 10 {
                        Some(Event::Ipv4OptInvalidLen)
                    } else {
                        (!cipso_tags_ok(&data[4..])).then_some(Event::Ipv4OptMalformed)
                    },
                ),
                // Stream id, router alert: 4 bytes; quick start: 8 bytes.
                136 => (7, (len != 4).then_some(Event::Ipv4OptInvalidLen)),
                148 => (8, (len != 4).then_some(Event::Ipv4OptInvalidLen)),
                25 => (9, (len != 8).then_some(Event::Ipv4OptInvalidLen)),
                _ => {
                    self.event(c, Event::Ipv4OptInvalid);
                    pos += len;
                    continue;
                }
            };
            if seen & (1 << bit) != 0 {
                self.event(c, Event::Ipv4OptDuplicate);
            } else if let Some(e) = bad {
                self.event(c, e);
            } else {
                seen |= 1 << bit;
            }
            pos += len;
        }
        true
    }

    pub(crate) fn ipv6(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize) {
        if !self.layer(c) {
            return;
        }
        self.stats.incr(Counter::Ipv6);
        let b = &c.buf[off..end];
        if b.len() < 40 {
            // Suricata 7.0.10 counts the packet as IPv6 and decodes no further, without
            // an event (`ipv6.pkt_too_small` never alerts there, nor is the packet
            // counted invalid: difftest `events/ipv6hdr`).
            return;
        }
        if b[0] >> 4 != 6 {
            self.event(c, Event::Ipv6WrongIpVersion);
            return;
        }
        let plen = usize::from(be16(b, 4));
        if b.len() < 40 + plen {
            self.event(c, Event::Ipv6TruncPkt);
            return;
        }
        let nh = b[6];
        {
            let p = c.pkt();
            p.ip_version = 6;
            p.l3_off = off32(off);
            p.src.copy_from_slice(&b[8..24]);
            p.dst.copy_from_slice(&b[24..40]);
            p.tos = ((be16(b, 0) >> 4) & 0xff) as u8;
            p.ttl = b[7];
            p.proto = nh;
        }
        self.ipv6_exthdrs(c, nh, off + 40, off + 40 + plen);
    }

    fn ipv6_exthdrs(&mut self, c: &mut Ctx<'_, '_>, mut nh: u8, mut pos: usize, end: usize) {
        // Counts of headers seen: hop-by-hop, routing, fragment, dest opts, AH, ESP.
        let (mut hh, mut rh, mut fh, mut dh, mut ah) = (0u8, 0u8, 0u8, 0u8, 0u8);
        let first = pos;
        // The protocol of the header before this one: what Suricata 7.0.10 leaves a
        // packet at when this one is "no next header" or ICMPv4 (0 right after the IPv6
        // header, else the last extension header's type; difftest `events/ipv6hdr`).
        let mut prev = 0u8;
        loop {
            // Under two bytes left after an extension header, for anything but "no next
            // header": `ipv6.trunc_exthdr` to Suricata 7.0.10, not the next layer's own
            // too-small event (hand-made packets; sv-ether has four).
            if pos != first && nh != ipp::NONE && end - pos < 2 {
                return self.event(c, Event::Ipv6TruncExthdr);
            }
            let keep = prev;
            prev = nh;
            c.pkt().proto = nh;
            match nh {
                ipp::TCP => return self.tcp(c, pos, end),
                ipp::UDP => return self.udp(c, pos, end),
                ipp::ICMPV6 => return self.icmpv6(c, pos, end),
                ipp::SCTP => return self.sctp(c, pos, end),
                ipp::GRE => return self.gre(c, pos, end),
                ipp::IPIP => return self.ip_in_ipv6(c, pos, end, 4),
                ipp::IPV6 => return self.ip_in_ipv6(c, pos, end, 6),
                // Suricata 7.0.10 leaves the protocol of these packets at the header
                // before (0 without extension headers: its EVE records say `HOPOPT`;
                // `engine-event` does not match them): difftest `events/ipv6hdr`.
                ipp::ICMP => {
                    c.pkt().proto = keep;
                    return self.event(c, Event::Ipv6Icmpv4);
                }
                ipp::ESP => return self.esp(c, pos, end),
                ipp::NONE => {
                    c.pkt().proto = keep;
                    if pos < end {
                        self.event(c, Event::Ipv6DataAfterNoneHeader);
                    }
                    return;
                }
                ipp::HOPOPT | ipp::DSTOPTS | ipp::ROUTING | ipp::MH | ipp::HIP | ipp::SHIM6 => {
                    if end - pos < 8 {
                        return self.event(c, Event::Ipv6TruncExthdr);
                    }
                    let hlen = (usize::from(c.buf[pos + 1]) + 1) * 8;
                    if hlen > end - pos {
                        return self.event(c, Event::Ipv6TruncExthdr);
                    }
                    c.pkt().flags |= flags::IPV6_EXTHDRS;
                    match nh {
                        ipp::HOPOPT => {
                            hh += 1;
                            if hh > 1 {
                                self.event(c, Event::Ipv6ExthdrDuplHh);
                            }
                            self.ipv6_options(c, pos + 2, pos + hlen, true);
                        }
                        ipp::DSTOPTS => {
                            dh += 1;
                            // One before the routing header, one before the upper layer.
                            if dh > 2 {
                                self.event(c, Event::Ipv6ExthdrDuplDh);
                            }
                            self.ipv6_options(c, pos + 2, pos + hlen, false);
                        }
                        ipp::ROUTING => {
                            rh += 1;
                            if rh > 1 {
                                self.event(c, Event::Ipv6ExthdrDuplRh);
                            }
                            if c.buf[pos + 2] == 0 {
                                self.event(c, Event::Ipv6RhType0);
                            }
                        }
                        _ => {}
                    }
                    nh = c.buf[pos];
                    pos += hlen;
                }
                ipp::FRAGMENT => {
                    if end - pos < 8 {
                        return self.event(c, Event::Ipv6TruncExthdr);
                    }
                    c.pkt().flags |= flags::IPV6_EXTHDRS;
                    fh += 1;
                    let b = &c.buf[pos..pos + 8];
                    let reserved = b[1] != 0 || b[3] & 0x06 != 0;
                    let offset = be16(b, 2) >> 3;
                    let more = b[3] & 1 != 0;
                    let ident = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
                    let next = b[0];
                    if fh > 1 {
                        // Only the first fragment header counts, as Suricata 7.0.10: a
                        // later one raises `exthdr_dupl_fh` (and its reserved bits are
                        // checked), never `exthdr_useless_fh`, and is passed over even
                        // when it says more fragments follow (sv-ether's 137 and 175
                        // headers; difftest `events`).
                        self.event(c, Event::Ipv6ExthdrDuplFh);
                        if reserved {
                            self.event(c, Event::Ipv6FhNonZeroReservedField);
                        }
                        nh = next;
                        pos += 8;
                        continue;
                    }
                    if reserved {
                        self.event(c, Event::Ipv6FhNonZeroReservedField);
                    }
                    if offset == 0 && !more {
                        // Atomic fragment: decoded as a whole packet.
                        self.event(c, Event::Ipv6ExthdrUselessFh);
                        c.pkt().ip_id = ident;
                        nh = next;
                        pos += 8;
                        continue;
                    }
                    let data_len = end - pos - 8;
                    if more && !data_len.is_multiple_of(8) {
                        self.event(c, Event::Ipv6FragInvalidLength);
                    }
                    if usize::from(offset) * 8 + data_len > 65535 {
                        self.event(c, Event::Ipv6FragPktTooLarge);
                    }
                    let p = c.pkt();
                    p.flags |= flags::FRAGMENT;
                    if more {
                        p.flags |= flags::IP_MF;
                    }
                    p.frag_off = offset;
                    p.ip_id = ident;
                    // A fragment's protocol is IPv6-Frag for rules and logs, as in
                    // Suricata 7.0.10 (`ip_proto:44` matches every fragment, `alert icmp`
                    // none: only the rebuilt datagram has the inner protocol); the
                    // defragmenter reads the header's next header itself.
                    p.proto = ipp::FRAGMENT;
                    p.payload_off = off32(pos + 8);
                    p.payload_len = off32(data_len);
                    return;
                }
                ipp::AH => {
                    if end - pos < 12 {
                        return self.event(c, Event::Ipv6TruncExthdr);
                    }
                    let hlen = (usize::from(c.buf[pos + 1]) + 2) * 4;
                    if hlen > end - pos {
                        return self.event(c, Event::Ipv6TruncExthdr);
                    }
                    c.pkt().flags |= flags::IPV6_EXTHDRS;
                    ah += 1;
                    if ah > 1 {
                        self.event(c, Event::Ipv6ExthdrDuplAh);
                    }
                    if c.buf[pos + 2] != 0 || c.buf[pos + 3] != 0 {
                        self.event(c, Event::Ipv6ExthdrAhResNotNull);
                    }
                    nh = c.buf[pos];
                    pos += hlen;
                }
                _ => return self.event(c, Event::Ipv6UnknownNextHeader),
            }
        }
    }

    /// Hop-by-hop or destination options TLVs.
    fn ipv6_options(&mut self, c: &mut Ctx<'_, '_>, mut pos: usize, end: usize, hop: bool) {
        let mut only_padding = true;
        while pos < end {
            let kind = c.buf[pos];
            if kind == 0 {
                pos += 1;
                continue;
            }
            if end - pos < 2 {
                self.event(c, Event::Ipv6ExthdrInvalidOptlen);
                return;
            }
            let len = usize::from(c.buf[pos + 1]);
            if len > end - pos - 2 {
                self.event(c, Event::Ipv6ExthdrInvalidOptlen);
                return;
            }
            match kind {
                1 => {
                    if len == 0 {
                        self.event(c, Event::Ipv6ZeroLenPadn);
                    }
                }
                // Router alert, jumbo payload (hop-by-hop); home address (dest opts).
                5 | 0xc2 if hop => only_padding = false,
                0xc9 if !hop => only_padding = false,
                _ => {
                    only_padding = false;
                    self.event(
                        c,
                        if hop {
                            Event::Ipv6HopoptsUnknownOpt
                        } else {
                            Event::Ipv6DstoptsUnknownOpt
                        },
                    );
                }
            }
            pos += 2 + len;
        }
        if only_padding {
            self.event(
                c,
                if hop {
                    Event::Ipv6HopoptsOnlyPadding
                } else {
                    Event::Ipv6DstoptsOnlyPadding
                },
            );
        }
    }

    /// IPv4-in-IPv6 (version 4) or IPv6-in-IPv6 (version 6).
    fn ip_in_ipv6(&mut self, c: &mut Ctx<'_, '_>, off: usize, end: usize, version: u8) {
        let len = end - off;
        let first = c.buf.get(off).map(|b| b >> 4);
        // As in Suricata, the tunnel counters count only well-formed inner headers.
        if version == 4 {
            if len < 20 {
                return self.event(c, Event::Ipv6Ipv4InIpv6TooSmall);
            }
            if first != Some(4) {
                return self.event(c, Event::Ipv6Ipv4InIpv6WrongVersion);
            }
            self.stats.incr(Counter::Ipv4InIpv6);
            self.spawn(c, Tunnel::Ipv4InIpv6, Inner::Ipv4, off, end);
        } else {
            if len < 40 {
                return self.event(c, Event::Ipv6Ipv6InIpv6TooSmall);
            }
            if first != Some(6) {
                return self.event(c, Event::Ipv6Ipv6InIpv6WrongVersion);
            }
            self.stats.incr(Counter::Ipv6InIpv6);
            self.spawn(c, Tunnel::Ipv6InIpv6, Inner::Ipv6, off, end);
        }
    }
}

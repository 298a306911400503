//! IPv4 header (RFC 791) and its options.

use super::{be16, view, Error};

mod field {
    pub const VER_IHL: usize = 0;
    pub const TOS: usize = 1;
    pub const LEN: usize = 2;
    pub const IDENT: usize = 4;
    pub const FLG_OFF: usize = 6;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: usize = 10;
    pub const SRC: core::ops::Range<usize> = 12..16;
    pub const DST: core::ops::Range<usize> = 16..20;
}

/// Length of an IPv4 header without options.
pub const HEADER_LEN: usize = 20;

/// IP protocol numbers used by the decoder.
pub mod protocol {
    /// IPv6 hop-by-hop options.
    pub const HOPOPT: u8 = 0;
    /// ICMP.
    pub const ICMP: u8 = 1;
    /// IPv4 in IP.
    pub const IPIP: u8 = 4;
    /// TCP.
    pub const TCP: u8 = 6;
    /// UDP.
    pub const UDP: u8 = 17;
    /// IPv6 in IP.
    pub const IPV6: u8 = 41;
    /// IPv6 routing header.
    pub const ROUTING: u8 = 43;
    /// IPv6 fragment header.
    pub const FRAGMENT: u8 = 44;
    /// GRE.
    pub const GRE: u8 = 47;
    /// ESP.
    pub const ESP: u8 = 50;
    /// Authentication header.
    pub const AH: u8 = 51;
    /// ICMPv6.
    pub const ICMPV6: u8 = 58;
    /// IPv6 no next header.
    pub const NONE: u8 = 59;
    /// IPv6 destination options.
    pub const DSTOPTS: u8 = 60;
    /// Mobility header.
    pub const MH: u8 = 135;
    /// HIP.
    pub const HIP: u8 = 139;
    /// Shim6.
    pub const SHIM6: u8 = 140;
    /// SCTP.
    pub const SCTP: u8 = 132;
}

view!(
    /// An IPv4 packet.
    Ipv4Packet
);

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Ok when the buffer holds the fixed header and the whole header length (IHL).
    /// The total-length field is not checked against the buffer: the decoder reports that.
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.b();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let hl = self.header_len();
        if hl < HEADER_LEN || b.len() < hl {
            return Err(Error::Malformed);
        }
        Ok(())
    }
    /// IP version nibble.
    pub fn version(&self) -> u8 {
        self.b()[field::VER_IHL] >> 4
    }
    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.b()[field::VER_IHL] & 0x0f) * 4
    }
    /// Type of service / DSCP+ECN byte.
    pub fn tos(&self) -> u8 {
        self.b()[field::TOS]
    }
    /// Total length field.
    pub fn total_len(&self) -> u16 {
        be16(self.b(), field::LEN)
    }
    /// Identification.
    pub fn ident(&self) -> u16 {
        be16(self.b(), field::IDENT)
    }
    /// Reserved ("evil") bit.
    pub fn reserved_flag(&self) -> bool {
        self.b()[field::FLG_OFF] & 0x80 != 0
    }
    /// Don't-fragment flag.
    pub fn dont_frag(&self) -> bool {
        self.b()[field::FLG_OFF] & 0x40 != 0
    }
    /// More-fragments flag.
    pub fn more_frags(&self) -> bool {
        self.b()[field::FLG_OFF] & 0x20 != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        be16(self.b(), field::FLG_OFF) & 0x1fff
    }
    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.b()[field::TTL]
    }
    /// Protocol of the payload.
    pub fn protocol(&self) -> u8 {
        self.b()[field::PROTOCOL]
    }
    /// Header checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    /// Source address.
    pub fn src_addr(&self) -> [u8; 4] {
        let mut a = [0; 4];
        a.copy_from_slice(&self.b()[field::SRC]);
        a
    }
    /// Destination address.
    pub fn dst_addr(&self) -> [u8; 4] {
        let mut a = [0; 4];
        a.copy_from_slice(&self.b()[field::DST]);
        a
    }
    /// True when the header checksum is correct.
    pub fn verify_checksum(&self) -> bool {
        crate::checksum::checksum(&self.b()[..self.header_len()]) == 0
    }
    /// The option bytes (between the fixed header and IHL).
    pub fn options(&self) -> Ipv4Options<'_> {
        Ipv4Options {
            rest: &self.b()[HEADER_LEN..self.header_len()],
        }
    }
}

/// One IPv4 option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ipv4Option<'a> {
    /// End of option list (type 0).
    End,
    /// No operation (type 1).
    Nop,
    /// Any other option: type and data (length byte excluded).
    Other {
        /// Option type (copied flag, class and number).
        kind: u8,
        /// Option data after the type and length bytes.
        data: &'a [u8],
    },
    /// An option whose length byte is missing, < 2 or runs past the header.
    Malformed {
        /// Option type.
        kind: u8,
    },
}

/// Iterator over IPv4 options; stops after `End` or a malformed option.
#[derive(Clone, Debug)]
pub struct Ipv4Options<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Ipv4Options<'a> {
    type Item = Ipv4Option<'a>;
    fn next(&mut self) -> Option<Ipv4Option<'a>> {
        let (&kind, tail) = self.rest.split_first()?;
        match kind {
            0 => {
                self.rest = &[];
                Some(Ipv4Option::End)
            }
            1 => {
                self.rest = tail;
                Some(Ipv4Option::Nop)
            }
            _ => {
                let len = tail.first().map_or(0, |&l| usize::from(l));
                if len < 2 || len > self.rest.len() {
                    self.rest = &[];
                    return Some(Ipv4Option::Malformed { kind });
                }
                let data = &self.rest[2..len];
                self.rest = &self.rest[len..];
                Some(Ipv4Option::Other { kind, data })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HDR: [u8; 24] = [
        0x46, 0x10, 0x00, 0x30, 0x12, 0x34, 0x20, 0x05, 0x40, 0x06, 0x00, 0x00, 10, 0, 0, 1, 10, 0,
        0, 2, 0x94, 0x04, 0x00, 0x00,
    ];

    #[test]
    fn fields() {
        let p = Ipv4Packet::new_checked(&HDR[..]).unwrap();
        assert_eq!(p.version(), 4);
        assert_eq!(p.header_len(), 24);
        assert_eq!(p.tos(), 0x10);
        assert_eq!(p.total_len(), 0x30);
        assert_eq!(p.ident(), 0x1234);
        assert!(p.more_frags());
        assert!(!p.dont_frag());
        assert_eq!(p.frag_offset(), 5);
        assert_eq!(p.ttl(), 64);
        assert_eq!(p.protocol(), protocol::TCP);
        assert_eq!(p.src_addr(), [10, 0, 0, 1]);
        assert_eq!(p.dst_addr(), [10, 0, 0, 2]);
        let opts: Vec<_> = p.options().collect();
        assert_eq!(
            opts,
            vec![Ipv4Option::Other {
                kind: 0x94,
                data: &[0, 0]
            }]
        );
        assert!(Ipv4Packet::new_checked(&HDR[..22]).is_err());
        assert!(Ipv4Packet::new_checked(&HDR[..19]).is_err());
    }

    #[test]
    fn options_malformed() {
        let mut h = HDR;
        h[21] = 9; // longer than the 4 option bytes
        let p = Ipv4Packet::new_checked(&h[..]).unwrap();
        assert_eq!(
            p.options().collect::<Vec<_>>(),
            vec![Ipv4Option::Malformed { kind: 0x94 }]
        );
        h[20] = 1;
        h[21] = 0;
        let p = Ipv4Packet::new_checked(&h[..]).unwrap();
        assert_eq!(
            p.options().collect::<Vec<_>>(),
            vec![Ipv4Option::Nop, Ipv4Option::End]
        );
    }
}

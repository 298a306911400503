//! IPv6 fixed header (RFC 8200) and the generic extension-header layout.

use super::{be16, be32, view, Error};

/// Length of the IPv6 fixed header.
pub const HEADER_LEN: usize = 40;

view!(
    /// An IPv6 packet.
    Ipv6Packet
);

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Ok when the buffer holds the fixed header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// IP version nibble.
    pub fn version(&self) -> u8 {
        self.b()[0] >> 4
    }
    /// Traffic class.
    pub fn traffic_class(&self) -> u8 {
        (be16(self.b(), 0) >> 4) as u8
    }
    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        be32(self.b(), 0) & 0x000f_ffff
    }
    /// Payload length field.
    pub fn payload_len(&self) -> u16 {
        be16(self.b(), 4)
    }
    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.b()[6]
    }
    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.b()[7]
    }
    /// Source address.
    pub fn src_addr(&self) -> [u8; 16] {
        let mut a = [0; 16];
        a.copy_from_slice(&self.b()[8..24]);
        a
    }
    /// Destination address.
    pub fn dst_addr(&self) -> [u8; 16] {
        let mut a = [0; 16];
        a.copy_from_slice(&self.b()[24..40]);
        a
    }
}

view!(
    /// A generic IPv6 extension header (hop-by-hop, routing, destination options):
    /// next header, length in 8-octet units beyond the first, then data.
    ExtHeader
);

impl<T: AsRef<[u8]>> ExtHeader<T> {
    /// Ok when the buffer holds the whole extension header.
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.b();
        if b.len() < 8 {
            return Err(Error::Truncated);
        }
        if b.len() < self.header_len() {
            return Err(Error::Malformed);
        }
        Ok(())
    }
    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.b()[0]
    }
    /// Total length in bytes: `(hdr_ext_len + 1) * 8`.
    pub fn header_len(&self) -> usize {
        (usize::from(self.b()[1]) + 1) * 8
    }
    /// The bytes after next-header and length (options, routing data...).
    pub fn data(&self) -> &[u8] {
        &self.b()[2..self.header_len()]
    }
}

view!(
    /// An IPv6 fragment header (8 bytes).
    FragmentHeader
);

impl<T: AsRef<[u8]>> FragmentHeader<T> {
    /// Ok when the buffer holds 8 bytes.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < 8 {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.b()[0]
    }
    /// Reserved byte and the two reserved bits next to M.
    pub fn reserved_nonzero(&self) -> bool {
        self.b()[1] != 0 || self.b()[3] & 0x06 != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        be16(self.b(), 2) >> 3
    }
    /// More-fragments flag.
    pub fn more_frags(&self) -> bool {
        self.b()[3] & 1 != 0
    }
    /// Identification.
    pub fn ident(&self) -> u32 {
        be32(self.b(), 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let mut h = [0u8; 40];
        h[0] = 0x6a;
        h[1] = 0xb1;
        h[2] = 0x23;
        h[3] = 0x45;
        h[5] = 8;
        h[6] = 17;
        h[7] = 64;
        h[8] = 0x20;
        h[39] = 1;
        let p = Ipv6Packet::new_checked(&h[..]).unwrap();
        assert_eq!(p.version(), 6);
        assert_eq!(p.traffic_class(), 0xab);
        assert_eq!(p.flow_label(), 0x12345);
        assert_eq!(p.payload_len(), 8);
        assert_eq!(p.next_header(), 17);
        assert_eq!(p.hop_limit(), 64);
        assert_eq!(p.src_addr()[0], 0x20);
        assert_eq!(p.dst_addr()[15], 1);
        assert!(Ipv6Packet::new_checked(&h[..39]).is_err());
    }

    #[test]
    fn ext_and_frag() {
        let e = [6u8, 1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let x = ExtHeader::new_checked(&e[..]).unwrap();
        assert_eq!(x.header_len(), 16);
        assert_eq!(x.next_header(), 6);
        assert_eq!(x.data().len(), 14);
        assert_eq!(
            ExtHeader::new_checked(&e[..12]).unwrap_err(),
            Error::Malformed
        );
        let f = [17u8, 0, 0x01, 0x71, 0, 0, 0x12, 0x34];
        let f = FragmentHeader::new_checked(&f[..]).unwrap();
        assert_eq!(f.frag_offset(), 46);
        assert!(f.more_frags());
        assert!(!f.reserved_nonzero());
        assert_eq!(f.ident(), 0x1234);
    }
}

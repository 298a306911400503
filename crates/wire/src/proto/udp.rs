//! UDP header (RFC 768).

use super::{be16, view, Error};

/// Length of the UDP header.
pub const HEADER_LEN: usize = 8;

view!(
    /// A UDP datagram.
    UdpPacket
);

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Ok when the buffer holds the 8-byte header (the length field is not checked).
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.b(), 0)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.b(), 2)
    }
    /// Length field (header + data).
    pub fn len(&self) -> u16 {
        be16(self.b(), 4)
    }
    /// True when the length field is 0 (as in IPv6 jumbograms).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Checksum field (0: none, IPv4 only).
    pub fn checksum(&self) -> u16 {
        be16(self.b(), 6)
    }
    /// Bytes after the header, up to the end of the buffer.
    pub fn payload(&self) -> &[u8] {
        &self.b()[HEADER_LEN..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let d = [0x00u8, 0x35, 0x12, 0x34, 0x00, 0x0a, 0xab, 0xcd, 1, 2];
        let u = UdpPacket::new_checked(&d[..]).unwrap();
        assert_eq!(u.src_port(), 53);
        assert_eq!(u.dst_port(), 0x1234);
        assert_eq!(u.len(), 10);
        assert!(!u.is_empty());
        assert_eq!(u.checksum(), 0xabcd);
        assert_eq!(u.payload(), &[1, 2]);
        assert!(UdpPacket::new_checked(&d[..7]).is_err());
    }
}

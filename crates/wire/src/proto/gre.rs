//! GRE (RFC 2784/2890, and version 1 as used by PPTP, RFC 2637).

use super::{be16, view, Error};

/// Length of the fixed GRE header (flags+version, protocol).
pub const HEADER_LEN: usize = 4;

view!(
    /// A GRE packet.
    GrePacket
);

impl<T: AsRef<[u8]>> GrePacket<T> {
    /// Ok when the buffer holds the 4-byte fixed header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Checksum-present bit (C).
    pub fn has_checksum(&self) -> bool {
        self.b()[0] & 0x80 != 0
    }
    /// Routing-present bit (R).
    pub fn has_routing(&self) -> bool {
        self.b()[0] & 0x40 != 0
    }
    /// Key-present bit (K).
    pub fn has_key(&self) -> bool {
        self.b()[0] & 0x20 != 0
    }
    /// Sequence-number-present bit (S).
    pub fn has_seq(&self) -> bool {
        self.b()[0] & 0x10 != 0
    }
    /// Strict source route bit (s).
    pub fn strict_source_route(&self) -> bool {
        self.b()[0] & 0x08 != 0
    }
    /// Recursion control (3 bits).
    pub fn recursion(&self) -> u8 {
        self.b()[0] & 0x07
    }
    /// Acknowledgement-present bit (A, version 1).
    pub fn has_ack(&self) -> bool {
        self.b()[1] & 0x80 != 0
    }
    /// Reserved flag bits (version 0: bits 5-12; version 1: bits 8-12 without A).
    pub fn reserved_flags(&self) -> u8 {
        (self.b()[1] >> 3) & 0x0f
    }
    /// Version (3 bits).
    pub fn version(&self) -> u8 {
        self.b()[1] & 0x07
    }
    /// Protocol type of the payload (an EtherType).
    pub fn protocol(&self) -> u16 {
        be16(self.b(), 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let g = GrePacket::new_checked(&[0xb0u8, 0x00, 0x08, 0x00][..]).unwrap();
        assert!(g.has_checksum() && g.has_key() && g.has_seq() && !g.has_routing());
        assert_eq!(g.version(), 0);
        assert_eq!(g.protocol(), 0x0800);
        let g = GrePacket::new_checked(&[0x30u8, 0x81, 0x88, 0x0b][..]).unwrap();
        assert_eq!(g.version(), 1);
        assert!(g.has_ack());
        assert_eq!(g.reserved_flags(), 0);
        assert!(GrePacket::new_checked(&[0u8; 3][..]).is_err());
    }
}

//! ICMPv4 (RFC 792) and ICMPv6 (RFC 4443) common header.

use super::{be16, view, Error};

/// Length of the common ICMP header (type, code, checksum, 4 bytes rest-of-header).
pub const HEADER_LEN: usize = 8;

view!(
    /// An ICMPv4 or ICMPv6 message (same first 8 bytes).
    IcmpPacket
);

impl<T: AsRef<[u8]>> IcmpPacket<T> {
    /// Ok when the buffer holds 8 bytes.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.b().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Message type.
    pub fn msg_type(&self) -> u8 {
        self.b()[0]
    }
    /// Message code.
    pub fn msg_code(&self) -> u8 {
        self.b()[1]
    }
    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), 2)
    }
    /// Identifier (echo request/reply).
    pub fn echo_ident(&self) -> u16 {
        be16(self.b(), 4)
    }
    /// Sequence number (echo request/reply).
    pub fn echo_seq(&self) -> u16 {
        be16(self.b(), 6)
    }
    /// Bytes after the 8-byte header (for error messages: the offending packet).
    pub fn data(&self) -> &[u8] {
        &self.b()[HEADER_LEN..]
    }
}

/// Highest defined code for an ICMPv4 type, or `None` for an unknown type
/// (the IANA registry as Suricata validates it).
pub fn icmpv4_max_code(msg_type: u8) -> Option<u8> {
    Some(match msg_type {
        0 | 4 | 8 | 13 | 14 | 15 | 16 | 17 | 18 => 0,
        3 => 15,
        5 => 3,
        9 => 16,
        10 => 0,
        11 => 1,
        12 => 2,
        _ => return None,
    })
}

/// True for the ICMPv4 error messages that quote an IPv4 header.
pub fn icmpv4_is_error(msg_type: u8) -> bool {
    matches!(msg_type, 3 | 4 | 5 | 11 | 12)
}

/// True for the ICMPv6 error messages (types 1-4) that quote an IPv6 header.
pub fn icmpv6_is_error(msg_type: u8) -> bool {
    (1..=4).contains(&msg_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let d = [8u8, 0, 0xf7, 0xfc, 0, 1, 0, 2, b'x'];
        let i = IcmpPacket::new_checked(&d[..]).unwrap();
        assert_eq!(i.msg_type(), 8);
        assert_eq!(i.msg_code(), 0);
        assert_eq!(i.checksum(), 0xf7fc);
        assert_eq!(i.echo_ident(), 1);
        assert_eq!(i.echo_seq(), 2);
        assert_eq!(i.data(), b"x");
        assert_eq!(crate::checksum::checksum(&d[..8]), 0);
        assert!(IcmpPacket::new_checked(&d[..7]).is_err());
        assert_eq!(icmpv4_max_code(3), Some(15));
        assert_eq!(icmpv4_max_code(200), None);
        assert!(icmpv4_is_error(11));
        assert!(icmpv6_is_error(2));
    }
}

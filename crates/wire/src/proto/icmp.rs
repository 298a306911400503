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

/// Highest code Suricata 7.0.10 takes for an ICMPv4 type (255: any code), or `None`
/// for a type it does not know (`icmpv4.unknown_type`). Found type by type and code by
/// code on hand-made packets (difftest `events/icmpv4`): router advertisement takes any
/// code, parameter problem only 0, type 10 is unknown.
pub fn icmpv4_max_code(msg_type: u8) -> Option<u8> {
    Some(match msg_type {
        0 | 4 | 8 | 12 | 13 | 14 | 15 | 16 | 17 | 18 => 0,
        3 => 15,
        5 => 3,
        9 => 255,
        11 => 1,
        _ => return None,
    })
}

/// How Suricata 7.0.10 classes an ICMPv6 type (difftest `events/icmpv6`, every type
/// with codes 0-10 and 255 through `suricata -r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icmpv6Class {
    /// A known type; [`icmpv6_code_ok`] says which codes it takes.
    Known,
    /// An unassigned type (`icmpv6.unassigned_type`, any code).
    Unassigned,
    /// A private experimentation type, 100, 101, 200, 201
    /// (`icmpv6.experimentation_type`, any code).
    Experimental,
    /// Type 0 or 127 (`icmpv6.unknown_type`).
    Unknown,
}

/// The class of an ICMPv6 type as Suricata 7.0.10 checks it.
pub fn icmpv6_class(msg_type: u8) -> Icmpv6Class {
    match msg_type {
        0 | 127 => Icmpv6Class::Unknown,
        1..=4 | 128..=159 => Icmpv6Class::Known,
        100 | 101 | 200 | 201 => Icmpv6Class::Experimental,
        _ => Icmpv6Class::Unassigned,
    }
}

/// Whether Suricata 7.0.10 takes `code` for the known ICMPv6 type `msg_type`
/// (`icmpv6.unknown_code` otherwise; an error message with a code it does not take is
/// not decoded further, so its quoted header raises nothing).
pub fn icmpv6_code_ok(msg_type: u8, code: u8) -> bool {
    match msg_type {
        1 => code <= 6,
        3 => code <= 1,
        4 => code <= 2,
        // Router renumbering: command, result, sequence number reset.
        138 => code <= 2 || code == 255,
        139 | 140 => code <= 2,
        150..=153 => true,
        155 => code <= 3,
        _ => code == 0,
    }
}

/// Whether Suricata 7.0.10 starts an ICMPv6 message's payload after the 8-byte header:
/// only for the error messages (types 1 to 4) under a code it takes and for echo
/// requests and replies of code 0. Every other message (neighbour discovery, MLD,
/// unknown types and codes) has its payload from the 4th byte, 12 bytes shorter than
/// the message (measured on Suricata's `dsize`, `content` and logged payloads).
pub fn icmpv6_payload_after_header(msg_type: u8, code: u8) -> bool {
    match msg_type {
        1..=4 => icmpv6_code_ok(msg_type, code),
        128 | 129 => code == 0,
        _ => false,
    }
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
        assert_eq!(icmpv4_max_code(10), None);
        assert_eq!(icmpv4_max_code(12), Some(0));
        assert_eq!(icmpv4_max_code(13), Some(0));
        assert_eq!(icmpv4_max_code(9), Some(255));
        assert!(icmpv4_is_error(11));
        assert!(icmpv6_is_error(2));
    }

    #[test]
    fn icmpv6_classes_as_suricata() {
        let ok = |t: u8, c: u8| icmpv6_class(t) == Icmpv6Class::Known && icmpv6_code_ok(t, c);
        assert!(ok(1, 6) && !ok(1, 7) && !ok(1, 8));
        assert!(ok(4, 2) && !ok(4, 3));
        assert!(ok(138, 255) && ok(138, 2) && !ok(138, 3));
        assert!(ok(150, 99) && !ok(149, 1) && ok(155, 3) && !ok(155, 4));
        assert_eq!(icmpv6_class(0), Icmpv6Class::Unknown);
        assert_eq!(icmpv6_class(127), Icmpv6Class::Unknown);
        assert_eq!(icmpv6_class(255), Icmpv6Class::Unassigned);
        assert_eq!(icmpv6_class(160), Icmpv6Class::Unassigned);
        assert_eq!(icmpv6_class(201), Icmpv6Class::Experimental);
    }

    #[test]
    fn icmpv6_payload_starts_after_the_header_for_errors_and_echo_only() {
        assert!(icmpv6_payload_after_header(128, 0) && icmpv6_payload_after_header(129, 0));
        assert!(icmpv6_payload_after_header(1, 6) && icmpv6_payload_after_header(2, 0));
        assert!(!icmpv6_payload_after_header(128, 1) && !icmpv6_payload_after_header(1, 7));
        assert!(!icmpv6_payload_after_header(2, 1) && !icmpv6_payload_after_header(133, 0));
        assert!(!icmpv6_payload_after_header(200, 0) && !icmpv6_payload_after_header(255, 0));
    }
}

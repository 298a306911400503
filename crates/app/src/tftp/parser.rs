//! TFTP packets (RFC 1350): read and write requests (opcode, file name, mode, each
//! NUL-terminated), DATA, ACK and ERROR, and RFC 2347's OACK.

/// A TFTP packet's opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    /// 1: read request.
    Read,
    /// 2: write request.
    Write,
    /// 3: a data block.
    Data,
    /// 4: an acknowledgement.
    Ack,
    /// 5: an error.
    Error,
    /// 6: an option acknowledgement (RFC 2347).
    Oack,
}

impl Opcode {
    /// The opcode of `v`, if it is one.
    pub fn from_u16(v: u16) -> Option<Opcode> {
        Some(match v {
            1 => Opcode::Read,
            2 => Opcode::Write,
            3 => Opcode::Data,
            4 => Opcode::Ack,
            5 => Opcode::Error,
            6 => Opcode::Oack,
            _ => return None,
        })
    }

    /// The name Suricata writes for a request (`tftp.packet`).
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Read => "read",
            Opcode::Write => "write",
            Opcode::Data => "data",
            Opcode::Ack => "ack",
            Opcode::Error => "error",
            Opcode::Oack => "oack",
        }
    }
}

/// A read or write request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TftpRequest<'a> {
    /// Read or write.
    pub opcode: Opcode,
    /// The file name.
    pub file: &'a [u8],
    /// The transfer mode (`netascii`, `octet` or `mail`, any case).
    pub mode: &'a [u8],
}

/// The transfer modes RFC 1350 defines.
const MODES: [&[u8]; 3] = [b"netascii", b"octet", b"mail"];

/// Parses a read or write request; `None` for any other packet or a malformed one
/// (missing terminators, an unknown mode).
pub fn parse_request(p: &[u8]) -> Option<TftpRequest<'_>> {
    let op = Opcode::from_u16(u16::from_be_bytes([*p.first()?, *p.get(1)?]))?;
    if !matches!(op, Opcode::Read | Opcode::Write) {
        return None;
    }
    let rest = &p[2..];
    let end = memchr::memchr(0, rest)?;
    let (file, rest) = (&rest[..end], &rest[end + 1..]);
    let end = memchr::memchr(0, rest)?;
    let mode = &rest[..end];
    if file.is_empty() || !MODES.iter().any(|m| m.eq_ignore_ascii_case(mode)) {
        return None;
    }
    Some(TftpRequest {
        opcode: op,
        file,
        mode,
    })
}

/// Whether `p` is any well-formed TFTP packet (a request, or DATA/ACK/ERROR/OACK with
/// its fixed header).
pub fn is_packet(p: &[u8]) -> bool {
    match p
        .get(..2)
        .and_then(|o| Opcode::from_u16(u16::from_be_bytes([o[0], o[1]])))
    {
        Some(Opcode::Read | Opcode::Write) => parse_request(p).is_some(),
        Some(Opcode::Data | Opcode::Ack | Opcode::Error) => p.len() >= 4,
        Some(Opcode::Oack) => true,
        None => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// sv-ether.pcap frame 39,337: the read request of `rfc1350.txt`.
    pub(crate) const RRQ: &[u8] = b"\x00\x01rfc1350.txt\x00octet\x00";

    #[test]
    fn requests() {
        let r = parse_request(RRQ).unwrap();
        assert_eq!(
            (r.opcode.name(), r.file, r.mode),
            ("read", &b"rfc1350.txt"[..], &b"octet"[..])
        );
        let w = parse_request(b"\x00\x02a\x00NetAscii\x00blksize\x00512\x00").unwrap();
        assert_eq!((w.opcode, w.mode), (Opcode::Write, &b"NetAscii"[..]));
        assert_eq!(parse_request(b"\x00\x01a\x00bogus\x00"), None);
        assert_eq!(parse_request(b"\x00\x01a\x00octet"), None);
        assert_eq!(parse_request(b"\x00\x01\x00octet\x00"), None);
        assert_eq!(parse_request(b"\x00\x03\x00\x01data"), None);
        assert!(is_packet(b"\x00\x03\x00\x01data"));
        assert!(!is_packet(b"\x00\x09"));
        assert!(!is_packet(b"\x00"));
    }

    proptest::proptest! {
        /// Arbitrary bytes never panic the TFTP decoders.
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let _ = (parse_request(&b), is_packet(&b));
        }
    }
}

//! The EtherNet/IP encapsulation header (little-endian, 24 bytes).

/// Bytes of the encapsulation header.
pub const HEADER_LEN: usize = 24;

/// An encapsulation header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Command (`0x65` RegisterSession, `0x6f` SendRRData, ...).
    pub command: u16,
    /// Bytes of data after the header.
    pub length: u16,
    /// Session handle.
    pub session: u32,
    /// Status (0: success).
    pub status: u32,
    /// Options.
    pub options: u32,
}

/// The header at the start of `data`, if `data` holds one.
pub fn header(data: &[u8]) -> Option<Header> {
    let h = data.get(..HEADER_LEN)?;
    let u16le = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
    let u32le = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    Some(Header {
        command: u16le(0),
        length: u16le(2),
        session: u32le(4),
        status: u32le(8),
        options: u32le(20),
    })
}

/// Whether `command` is one the encapsulation protocol defines (NOP, ListServices,
/// ListIdentity, ListInterfaces, RegisterSession, UnRegisterSession, SendRRData,
/// SendUnitData, IndicateStatus, Cancel).
pub fn known_command(command: u16) -> bool {
    matches!(
        command,
        0x0000 | 0x0004 | 0x0063 | 0x0064 | 0x0065 | 0x0066 | 0x006f | 0x0070 | 0x0072 | 0x0073
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_register_session() {
        // RegisterSession reply of data/ics/enip/input.pcap: session 0x12345678.
        let mut pdu = vec![0x65, 0, 4, 0, 0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0];
        pdu.extend_from_slice(b"osprey00");
        pdu.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]);
        let h = header(&pdu).unwrap();
        assert_eq!((h.command, h.length, h.session), (0x65, 4, 0x1234_5678));
        assert!(known_command(h.command) && !known_command(0x99));
        assert_eq!(header(&pdu[..23]), None);
    }

    proptest! {
        #[test]
        fn any_bytes(b in proptest::collection::vec(any::<u8>(), 0..64)) {
            let h = header(&b);
            prop_assert_eq!(h.is_some(), b.len() >= HEADER_LEN);
        }
    }
}

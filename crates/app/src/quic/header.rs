//! QUIC packet headers as they travel in the clear: IETF long headers (RFC 9000 §17.2,
//! also Google QUIC Q046+ long headers), the legacy Google QUIC public header (Q043
//! and older) and short headers, whose protected payload is not parsed.

/// Google QUIC versions (`Q0xx`, `T0xx`) put their name in the version field.
pub fn is_gquic(version: u32) -> bool {
    let b = version.to_be_bytes();
    (b[0] == b'Q' || b[0] == b'T') && b[1..].iter().all(u8::is_ascii_digit)
}

/// The versions Suricata takes a flow for QUIC on: v1, the IETF drafts 23 to 34 and
/// Google QUIC.
pub fn is_known(version: u32) -> bool {
    version == 1 || (0xff00_0017..=0xff00_0022).contains(&version) || is_gquic(version)
}

/// A version as Suricata writes it in EVE: a Google QUIC name (`Q046`) as text,
/// anything else in lowercase hex (`1`, `ff00001d`).
pub fn version_string(version: u32) -> String {
    if is_gquic(version) {
        version
            .to_be_bytes()
            .iter()
            .map(|&c| char::from(c))
            .collect()
    } else {
        format!("{version:x}")
    }
}

/// The type of a long-header packet (or the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketType {
    /// Initial: carries the CRYPTO frames of the handshake's first flight.
    Initial,
    /// 0-RTT.
    ZeroRtt,
    /// Handshake.
    Handshake,
    /// Retry: the server asks the client to start again with a token.
    Retry,
    /// Version negotiation (version 0).
    VersionNegotiation,
}

/// One parsed packet header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The packet type.
    pub ty: PacketType,
    /// The version field.
    pub version: u32,
    /// Destination connection id.
    pub dcid: &'a [u8],
    /// Length of the header up to the (protected) packet number.
    pub pn_offset: usize,
    /// Length of the packet: header, packet number and payload.
    pub len: usize,
    /// Where the payload starts when it is not protected (Google QUIC); `None` for an
    /// IETF packet, whose packet number length is protected.
    pub clear_payload: Option<usize>,
}

/// What the first bytes of a datagram hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed<'a> {
    /// A long header (IETF or Google) or a legacy Google QUIC packet with its version.
    Long(Header<'a>),
    /// A short header (or a Google QUIC packet without version): the rest is protected.
    Short,
    /// Not a valid QUIC header.
    Malformed,
}

/// Reads a QUIC variable-length integer (RFC 9000 §16) at `b[*at]`.
pub fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let first = *b.get(*at)?;
    let len = 1usize << (first >> 6);
    let bytes = b.get(*at..*at + len)?;
    let v = bytes[1..]
        .iter()
        .fold(u64::from(first & 0x3f), |v, &x| (v << 8) | u64::from(x));
    *at += len;
    Some(v)
}

fn cid<'a>(b: &'a [u8], at: &mut usize, len: usize) -> Option<&'a [u8]> {
    let v = b.get(*at..*at + len)?;
    *at += len;
    Some(v)
}

/// Parses the header of the packet at the start of `b`.
pub fn parse(b: &[u8]) -> Parsed<'_> {
    let Some(&first) = b.first() else {
        return Parsed::Malformed;
    };
    let r = if first & 0x80 != 0 {
        long(b)
    } else if first & 0xc0 == 0 && first & 0x09 == 0x09 {
        legacy(b)
    } else {
        return Parsed::Short;
    };
    r.map_or(Parsed::Malformed, Parsed::Long)
}

/// A legacy Google QUIC public header with version and 8-byte connection id: the
/// payload is the rest of the datagram.
fn legacy(b: &[u8]) -> Option<Header<'_>> {
    let dcid = b.get(1..9)?;
    let version = u32::from_be_bytes(b.get(9..13)?.try_into().ok()?);
    if !is_gquic(version) {
        return None;
    }
    let pn_len = [1, 2, 4, 6][usize::from((b[0] >> 4) & 3)];
    (b.len() >= 13 + pn_len).then_some(Header {
        ty: PacketType::Initial,
        version,
        dcid,
        pn_offset: 13,
        len: b.len(),
        clear_payload: Some(13 + pn_len),
    })
}

fn long(b: &[u8]) -> Option<Header<'_>> {
    let version = u32::from_be_bytes(b.get(1..5)?.try_into().ok()?);
    let ty = match (b[0] >> 4) & 3 {
        _ if version == 0 => PacketType::VersionNegotiation,
        0 => PacketType::Initial,
        1 => PacketType::ZeroRtt,
        2 => PacketType::Handshake,
        _ => PacketType::Retry,
    };
    let mut at = 5;
    if is_gquic(version) {
        // Q046+: one byte holding both connection id lengths (0, or 4 bits + 3),
        // then the packet number; the payload runs to the end of the datagram.
        let l = *b.get(at)?;
        at += 1;
        let len = |n: u8| if n == 0 { 0 } else { usize::from(n) + 3 };
        let dcid = cid(b, &mut at, len(l >> 4))?;
        cid(b, &mut at, len(l & 0x0f))?;
        let pn_len = usize::from(b[0] & 3) + 1;
        return (b.len() >= at + pn_len).then_some(Header {
            ty,
            version,
            dcid,
            pn_offset: at,
            len: b.len(),
            clear_payload: Some(at + pn_len),
        });
    }
    let dl = usize::from(*b.get(at)?);
    at += 1;
    if dl > 20 {
        return None;
    }
    let dcid = cid(b, &mut at, dl)?;
    let sl = usize::from(*b.get(at)?);
    at += 1;
    if sl > 20 {
        return None;
    }
    cid(b, &mut at, sl)?;
    let len = match ty {
        PacketType::VersionNegotiation | PacketType::Retry => b.len(),
        _ => {
            if ty == PacketType::Initial {
                let token = usize::try_from(varint(b, &mut at)?).ok()?;
                at = at.checked_add(token).filter(|&a| a <= b.len())?;
            }
            let n = usize::try_from(varint(b, &mut at)?).ok()?;
            at.checked_add(n).filter(|&e| e <= b.len())?
        }
    };
    Some(Header {
        ty,
        version,
        dcid,
        pn_offset: at,
        len,
        clear_payload: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        for (b, v) in [
            (&b"\x25"[..], 37),
            (b"\x7b\xbd", 15293),
            (b"\x9d\x7f\x3e\x7d", 494_878_333),
            (b"\xc2\x19\x7c\x5e\xff\x14\xe8\x8c", 151_288_809_941_952_652),
        ] {
            let mut at = 0;
            assert_eq!(varint(b, &mut at), Some(v));
            assert_eq!(at, b.len());
        }
        assert_eq!(varint(b"\x40", &mut 0), None);
    }

    #[test]
    fn versions() {
        assert_eq!(version_string(1), "1");
        assert_eq!(version_string(0xff00_001d), "ff00001d");
        assert_eq!(version_string(u32::from_be_bytes(*b"Q046")), "Q046");
        assert!(is_known(1) && is_known(u32::from_be_bytes(*b"T051")));
        assert!(!is_known(0x6b33_43cf) && !is_known(0));
    }

    #[test]
    fn headers() {
        // sv-ether.pcap packet 40057: a Q046 long header; 106759: Q043's public header.
        let q46 = b"\xc3Q046\x50\x76\xd8\x63\xb7\x54\xf7\xab\x32\x00\x00\x00\x01rest";
        let Parsed::Long(h) = parse(q46) else {
            panic!()
        };
        assert_eq!(
            (h.ty, h.pn_offset, h.len),
            (PacketType::Initial, 14, q46.len())
        );
        assert_eq!(h.dcid, b"\x76\xd8\x63\xb7\x54\xf7\xab\x32");
        let q43 = b"\x0d\x17\x92\xf8\x3a\xfb\xd3\x53\x9cQ043\x01rest";
        let Parsed::Long(h) = parse(q43) else {
            panic!()
        };
        assert_eq!((h.version, h.pn_offset), (u32::from_be_bytes(*b"Q043"), 13));
        assert_eq!(parse(b"\x40\x01\x02"), Parsed::Short);
        assert_eq!(parse(b"\xc0\x00\x00\x00\x01\x15"), Parsed::Malformed);
        assert_eq!(parse(b""), Parsed::Malformed);
    }
}

//! HTTP/2 framing (RFC 9113 section 4 and 6): the connection preface, the 9-byte frame
//! header and the payload layouts the state machine needs (padding and priority
//! fields around a header block fragment).

/// The client connection preface that starts every HTTP/2 connection with prior
/// knowledge.
pub const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Length of a frame header.
pub const HEADER_LEN: usize = 9;

/// A frame type, kept open so unknown types survive (they are skipped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameType(pub u8);

impl FrameType {
    /// DATA.
    pub const DATA: FrameType = FrameType(0);
    /// HEADERS.
    pub const HEADERS: FrameType = FrameType(1);
    /// PRIORITY.
    pub const PRIORITY: FrameType = FrameType(2);
    /// RST_STREAM.
    pub const RST_STREAM: FrameType = FrameType(3);
    /// SETTINGS.
    pub const SETTINGS: FrameType = FrameType(4);
    /// PUSH_PROMISE.
    pub const PUSH_PROMISE: FrameType = FrameType(5);
    /// PING.
    pub const PING: FrameType = FrameType(6);
    /// GOAWAY.
    pub const GOAWAY: FrameType = FrameType(7);
    /// WINDOW_UPDATE.
    pub const WINDOW_UPDATE: FrameType = FrameType(8);
    /// CONTINUATION.
    pub const CONTINUATION: FrameType = FrameType(9);
}

/// END_STREAM (DATA, HEADERS).
pub const FLAG_END_STREAM: u8 = 0x1;
/// ACK (SETTINGS, PING): the same bit as END_STREAM.
pub const FLAG_ACK: u8 = 0x1;
/// END_HEADERS (HEADERS, PUSH_PROMISE, CONTINUATION).
pub const FLAG_END_HEADERS: u8 = 0x4;
/// PADDED (DATA, HEADERS, PUSH_PROMISE).
pub const FLAG_PADDED: u8 = 0x8;
/// PRIORITY (HEADERS).
pub const FLAG_PRIORITY: u8 = 0x20;

/// A parsed frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    /// Payload length (24 bits).
    pub len: u32,
    /// Frame type.
    pub ty: FrameType,
    /// Flags.
    pub flags: u8,
    /// Stream identifier (the reserved bit cleared).
    pub stream: u32,
}

impl FrameHeader {
    /// Parses the first [`HEADER_LEN`] bytes of `b`; `None` when there are fewer.
    pub fn parse(b: &[u8]) -> Option<FrameHeader> {
        let h = b.get(..HEADER_LEN)?;
        Some(FrameHeader {
            len: u32::from_be_bytes([0, h[0], h[1], h[2]]),
            ty: FrameType(h[3]),
            flags: h[4],
            stream: u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff,
        })
    }

    /// Whether `flag` is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Strips the pad length byte and the padding from a PADDED payload; `None` when the
/// padding does not fit (a protocol error).
fn unpad(h: &FrameHeader, p: &[u8]) -> Option<(usize, usize)> {
    if !h.has(FLAG_PADDED) {
        return Some((0, p.len()));
    }
    let pad = usize::from(*p.first()?);
    let end = p.len().checked_sub(pad)?;
    (end >= 1).then_some((1, end))
}

/// The header block fragment of a HEADERS payload (padding and priority removed).
pub fn headers_fragment<'a>(h: &FrameHeader, p: &'a [u8]) -> Option<&'a [u8]> {
    let (mut start, end) = unpad(h, p)?;
    if h.has(FLAG_PRIORITY) {
        start += 5;
    }
    p.get(start..end)
}

/// The promised stream and header block fragment of a PUSH_PROMISE payload.
pub fn push_promise_fragment<'a>(h: &FrameHeader, p: &'a [u8]) -> Option<(u32, &'a [u8])> {
    let (start, end) = unpad(h, p)?;
    let id = p.get(start..start + 4)?;
    let id = u32::from_be_bytes([id[0], id[1], id[2], id[3]]) & 0x7fff_ffff;
    Some((id, p.get(start + 4..end)?))
}

/// Encodes a frame (for tests).
#[cfg(test)]
pub(crate) fn frame(ty: FrameType, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = (payload.len() as u32).to_be_bytes();
    let mut v = vec![len[1], len[2], len[3], ty.0, flags];
    v.extend_from_slice(&stream.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_fragments() {
        let f = frame(
            FrameType::HEADERS,
            FLAG_PADDED | FLAG_PRIORITY | FLAG_END_HEADERS,
            0x8000_0003,
            &[2, 0, 0, 0, 1, 16, 0x82, 0x84, 0, 0],
        );
        let h = FrameHeader::parse(&f).unwrap();
        assert_eq!(h.len, 10);
        assert_eq!(h.ty, FrameType::HEADERS);
        assert_eq!(h.stream, 3);
        assert_eq!(headers_fragment(&h, &f[9..]), Some(&[0x82, 0x84][..]));
        assert_eq!(FrameHeader::parse(&f[..8]), None);
        // Padding longer than the payload.
        let f = frame(FrameType::HEADERS, FLAG_PADDED, 1, &[9, 0x82]);
        let h = FrameHeader::parse(&f).unwrap();
        assert_eq!(headers_fragment(&h, &f[9..]), None);
        let f = frame(FrameType::PUSH_PROMISE, 0, 1, &[0, 0, 0, 2, 0x82]);
        let h = FrameHeader::parse(&f).unwrap();
        assert_eq!(push_promise_fragment(&h, &f[9..]), Some((2, &[0x82][..])));
    }
}

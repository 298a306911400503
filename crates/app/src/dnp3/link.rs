//! The DNP3 data link layer (IEEE 1815 clause 9) and transport function (clause 8):
//! frames start with `05 64`, a length, control, destination and source, each header
//! and each 16-byte block of user data followed by its CRC-16/DNP; the first byte of
//! the user data is the transport header (FIN, FIR, sequence).

/// The two start bytes of every link frame.
pub const START: [u8; 2] = [0x05, 0x64];

/// Bytes of a link header with its CRC.
pub const HEADER_LEN: usize = 10;

/// The CRC-16/DNP of `data` (polynomial 0x3D65, reflected, complemented).
pub fn crc(data: &[u8]) -> u16 {
    let mut c: u16 = 0;
    for &b in data {
        c ^= u16::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xA6BC
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Whether the CRC after `data` (little endian, at `data.len()..+2` of `with`) is right.
fn crc_ok(with: &[u8], len: usize) -> bool {
    with.len() >= len + 2 && crc(&with[..len]).to_le_bytes() == [with[len], with[len + 1]]
}

/// A link header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkHeader {
    /// The length field: control, addresses and user data bytes.
    pub len: u8,
    /// The control byte (DIR, PRM, FCB, FCV, function code).
    pub control: u8,
    /// The destination address.
    pub dst: u16,
    /// The source address.
    pub src: u16,
}

impl LinkHeader {
    /// Bytes of user data the frame carries (without CRCs).
    pub fn user_len(&self) -> usize {
        usize::from(self.len).saturating_sub(5)
    }

    /// Bytes of the whole frame on the wire.
    pub fn frame_len(&self) -> usize {
        let u = self.user_len();
        HEADER_LEN + u + 2 * u.div_ceil(16)
    }

    /// Whether the frame carries user data: a primary frame with function code 3
    /// (confirmed) or 4 (unconfirmed user data).
    pub fn has_user_data(&self) -> bool {
        self.control & 0x40 != 0 && matches!(self.control & 0x0F, 3 | 4)
    }
}

/// What the start of a buffer holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// Not enough bytes for the header or the frame.
    Incomplete,
    /// The buffer does not start with `05 64`.
    NoStart,
    /// The length field is below 5.
    TooSmall,
    /// The header CRC is wrong.
    BadHeaderCrc,
    /// A whole frame of `len` bytes; `user` is its user data without the CRCs, `None`
    /// when a block CRC is wrong.
    Whole {
        /// The header.
        header: LinkHeader,
        /// The frame's length on the wire.
        len: usize,
        /// The user data (transport header included).
        user: Option<Vec<u8>>,
    },
}

/// Reads the link frame at the start of `b`.
pub fn frame(b: &[u8]) -> Frame {
    if b.len() < 2 {
        return if b.is_empty() || b[0] == START[0] {
            Frame::Incomplete
        } else {
            Frame::NoStart
        };
    }
    if b[..2] != START {
        return Frame::NoStart;
    }
    if b.len() < HEADER_LEN {
        return Frame::Incomplete;
    }
    let header = LinkHeader {
        len: b[2],
        control: b[3],
        dst: u16::from_le_bytes([b[4], b[5]]),
        src: u16::from_le_bytes([b[6], b[7]]),
    };
    if header.len < 5 {
        return Frame::TooSmall;
    }
    if !crc_ok(b, 8) {
        return Frame::BadHeaderCrc;
    }
    let len = header.frame_len();
    if b.len() < len {
        return Frame::Incomplete;
    }
    let mut user = Vec::with_capacity(header.user_len());
    let mut rest = &b[HEADER_LEN..len];
    let mut left = header.user_len();
    while left > 0 {
        let n = left.min(16);
        if !crc_ok(rest, n) {
            return Frame::Whole {
                header,
                len,
                user: None,
            };
        }
        user.extend_from_slice(&rest[..n]);
        rest = &rest[n + 2..];
        left -= n;
    }
    Frame::Whole {
        header,
        len,
        user: Some(user),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame as the test captures write it.
    fn build(ctrl: u8, user: &[u8]) -> Vec<u8> {
        let mut f = vec![0x05, 0x64, 5 + user.len() as u8, ctrl, 10, 0, 1, 0];
        f.extend_from_slice(&crc(&f).to_le_bytes());
        for b in user.chunks(16) {
            f.extend_from_slice(b);
            f.extend_from_slice(&crc(b).to_le_bytes());
        }
        f
    }

    #[test]
    fn crc_of_a_known_header() {
        // A read of class 0 from the DNP3 primer: 05 64 0b c4 0a 00 01 00 -> crc.
        let h = [0x05, 0x64, 0x05, 0xC9, 0x0A, 0x00, 0x01, 0x00];
        let c = crc(&h);
        let mut f = h.to_vec();
        f.extend_from_slice(&c.to_le_bytes());
        assert!(matches!(frame(&f), Frame::Whole { user: Some(u), .. } if u.is_empty()));
        assert_eq!(crc(b"123456789"), 0xEA82);
    }

    #[test]
    fn frames_blocks_and_errors() {
        let user: Vec<u8> = (0..40).collect();
        let f = build(0xC4, &user);
        assert_eq!(f.len(), 10 + 40 + 6);
        match frame(&f) {
            Frame::Whole {
                header,
                len,
                user: Some(u),
            } => {
                assert_eq!((header.dst, header.src, len), (10, 1, f.len()));
                assert!(header.has_user_data());
                assert_eq!(u, user);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(frame(&f[..f.len() - 1]), Frame::Incomplete);
        assert_eq!(frame(&f[..5]), Frame::Incomplete);
        let mut bad = f.clone();
        bad[8] ^= 1;
        assert_eq!(frame(&bad), Frame::BadHeaderCrc);
        let mut bad = f.clone();
        bad[30] ^= 1;
        assert!(matches!(frame(&bad), Frame::Whole { user: None, .. }));
        let mut small = f.clone();
        small[2] = 4;
        assert_eq!(frame(&small), Frame::TooSmall);
        assert_eq!(frame(b"GET /"), Frame::NoStart);
    }
}

//! TCP header (RFC 9293) and options.

use super::{be16, be32, view, Error};

/// Length of a TCP header without options.
pub const HEADER_LEN: usize = 20;

/// TCP flag bits as they appear in byte 13 of the header.
pub mod flags {
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// RST.
    pub const RST: u8 = 0x04;
    /// PSH.
    pub const PSH: u8 = 0x08;
    /// ACK.
    pub const ACK: u8 = 0x10;
    /// URG.
    pub const URG: u8 = 0x20;
    /// ECE.
    pub const ECE: u8 = 0x40;
    /// CWR.
    pub const CWR: u8 = 0x80;
}

view!(
    /// A TCP segment.
    TcpPacket
);

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Ok when the buffer holds the fixed header and the data offset is sane
    /// (≥ 20 and within the buffer).
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.b();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let hl = self.header_len();
        if hl < HEADER_LEN || hl > b.len() {
            return Err(Error::Malformed);
        }
        Ok(())
    }
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.b(), 0)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.b(), 2)
    }
    /// Sequence number.
    pub fn seq_number(&self) -> u32 {
        be32(self.b(), 4)
    }
    /// Acknowledgement number.
    pub fn ack_number(&self) -> u32 {
        be32(self.b(), 8)
    }
    /// Header length in bytes (data offset × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.b()[12] >> 4) * 4
    }
    /// The 8 flag bits (CWR..FIN), see [`flags`].
    pub fn flags(&self) -> u8 {
        self.b()[13]
    }
    /// The NS (ECN nonce) bit.
    pub fn ns(&self) -> bool {
        self.b()[12] & 1 != 0
    }
    /// Window.
    pub fn window_len(&self) -> u16 {
        be16(self.b(), 14)
    }
    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), 16)
    }
    /// Urgent pointer.
    pub fn urgent_at(&self) -> u16 {
        be16(self.b(), 18)
    }
    /// Option bytes.
    pub fn options(&self) -> TcpOptions<'_> {
        TcpOptions {
            rest: &self.b()[HEADER_LEN..self.header_len()],
        }
    }
    /// Payload after the header.
    pub fn payload(&self) -> &[u8] {
        &self.b()[self.header_len()..]
    }
}

/// A TCP option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpOption<'a> {
    /// End of option list.
    End,
    /// No operation.
    Nop,
    /// Maximum segment size (kind 2).
    Mss(u16),
    /// Window scale shift (kind 3).
    WindowScale(u8),
    /// SACK permitted (kind 4).
    SackPermitted,
    /// SACK blocks (kind 5): up to 4 (left, right) edges; unused slots are `None`.
    Sack([Option<(u32, u32)>; 4]),
    /// Timestamps (kind 8): value, echo reply.
    Timestamps(u32, u32),
    /// Any other option, or a known one with the wrong length.
    Unknown {
        /// Option kind.
        kind: u8,
        /// Data after kind and length.
        data: &'a [u8],
    },
    /// An option whose length byte is missing, < 2 or runs past the header.
    Malformed {
        /// Option kind.
        kind: u8,
    },
}

/// Iterator over TCP options; stops after `End` or a malformed option.
#[derive(Clone, Debug)]
pub struct TcpOptions<'a> {
    rest: &'a [u8],
}

impl<'a> TcpOptions<'a> {
    /// Options from raw option bytes.
    pub fn new(bytes: &'a [u8]) -> Self {
        TcpOptions { rest: bytes }
    }
}

impl<'a> Iterator for TcpOptions<'a> {
    type Item = TcpOption<'a>;
    fn next(&mut self) -> Option<TcpOption<'a>> {
        let (&kind, tail) = self.rest.split_first()?;
        match kind {
            0 => {
                self.rest = &[];
                return Some(TcpOption::End);
            }
            1 => {
                self.rest = tail;
                return Some(TcpOption::Nop);
            }
            _ => {}
        }
        let len = tail.first().map_or(0, |&l| usize::from(l));
        if len < 2 || len > self.rest.len() {
            self.rest = &[];
            return Some(TcpOption::Malformed { kind });
        }
        let data = &self.rest[2..len];
        self.rest = &self.rest[len..];
        Some(match (kind, data.len()) {
            (2, 2) => TcpOption::Mss(be16(data, 0)),
            (3, 1) => TcpOption::WindowScale(data[0]),
            (4, 0) => TcpOption::SackPermitted,
            (5, n) if n >= 8 && n % 8 == 0 && n <= 32 => {
                let mut blocks = [None; 4];
                for (i, blk) in data.chunks_exact(8).enumerate() {
                    blocks[i] = Some((be32(blk, 0), be32(blk, 4)));
                }
                TcpOption::Sack(blocks)
            }
            (8, 8) => TcpOption::Timestamps(be32(data, 0), be32(data, 4)),
            _ => TcpOption::Unknown { kind, data },
        })
    }
}

/// A TCP sequence number with wrapping (RFC 1982 style) comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeqNumber(pub u32);

impl SeqNumber {
    /// `self` is before `other` in sequence space.
    pub fn lt(self, other: SeqNumber) -> bool {
        (self.0.wrapping_sub(other.0) as i32) < 0
    }
    /// `self` is before or equal to `other`.
    pub fn le(self, other: SeqNumber) -> bool {
        (self.0.wrapping_sub(other.0) as i32) <= 0
    }
    /// Signed distance `self - other`.
    pub fn diff(self, other: SeqNumber) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
}

impl core::ops::Add<u32> for SeqNumber {
    type Output = SeqNumber;
    /// `self + n` with wrap-around.
    fn add(self, n: u32) -> SeqNumber {
        SeqNumber(self.0.wrapping_add(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_options() {
        let mut seg = vec![
            0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 2, 0xa0, 0x12, 0xff, 0xff, 0, 0, 0, 0,
        ];
        seg.extend_from_slice(&[
            2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 7,
        ]);
        seg.extend_from_slice(b"hi");
        let t = TcpPacket::new_checked(&seg[..]).unwrap();
        assert_eq!(t.src_port(), 1234);
        assert_eq!(t.dst_port(), 80);
        assert_eq!(t.seq_number(), 1);
        assert_eq!(t.ack_number(), 2);
        assert_eq!(t.header_len(), 40);
        assert_eq!(t.flags(), flags::SYN | flags::ACK);
        assert_eq!(t.window_len(), 0xffff);
        assert_eq!(t.payload(), b"hi");
        let o: Vec<_> = t.options().collect();
        assert_eq!(
            o,
            vec![
                TcpOption::Mss(1460),
                TcpOption::SackPermitted,
                TcpOption::Timestamps(7, 0),
                TcpOption::Nop,
                TcpOption::WindowScale(7)
            ]
        );
        seg[12] = 0x40;
        assert_eq!(
            TcpPacket::new_checked(&seg[..]).unwrap_err(),
            Error::Malformed
        );
        assert_eq!(
            TcpPacket::new_checked(&seg[..10]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn sack_and_malformed() {
        let o = [5u8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 3, 9];
        let v: Vec<_> = TcpOptions::new(&o).collect();
        assert_eq!(
            v,
            vec![
                TcpOption::Sack([Some((1, 2)), None, None, None]),
                TcpOption::Malformed { kind: 3 }
            ]
        );
        let v: Vec<_> = TcpOptions::new(&[2, 3, 0]).collect();
        assert_eq!(
            v,
            vec![TcpOption::Unknown {
                kind: 2,
                data: &[0]
            }]
        );
    }

    #[test]
    fn seq_wraps() {
        let a = SeqNumber(u32::MAX - 1);
        let b = a + 4;
        assert_eq!(b, SeqNumber(2));
        assert!(a.lt(b));
        assert!(!b.lt(a));
        assert_eq!(b.diff(a), 4);
        assert!(a.le(a));
    }
}

//! ONC RPC (RFC 5531) as NFS uses it: XDR decoding ([`Xdr`]), call and reply
//! messages with their credentials ([`message`]) and the record marking that frames
//! messages over TCP ([`record`]). Over UDP each datagram is one message.

pub mod message;
pub mod record;

pub use message::{parse_message, AuthFlavor, Call, Message, Reply, UnixCred};
pub use record::{RecordError, Records};

/// A bounds-checked XDR (RFC 4506) reader over a byte slice: every read answers `None`
/// past the end instead of panicking.
#[derive(Clone, Copy, Debug)]
pub struct Xdr<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Xdr<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Xdr { buf, pos: 0 }
    }

    /// An unsigned 32-bit integer.
    pub fn u32(&mut self) -> Option<u32> {
        let b = self.fixed(4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An unsigned 64-bit integer (hyper).
    pub fn u64(&mut self) -> Option<u64> {
        let hi = self.u32()?;
        let lo = self.u32()?;
        Some(u64::from(hi) << 32 | u64::from(lo))
    }

    /// A boolean (any non-zero word is true).
    pub fn bool(&mut self) -> Option<bool> {
        self.u32().map(|v| v != 0)
    }

    /// `n` bytes of fixed-length opaque data, then its padding to 4 bytes.
    pub fn fixed(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let b = self.buf.get(self.pos..end)?;
        let padded = end.checked_add((4 - n % 4) % 4)?;
        // Padding missing at the very end is tolerated.
        self.pos = padded.min(self.buf.len());
        Some(b)
    }

    /// Variable-length opaque data (or a string): its 32-bit length, the bytes, padding.
    pub fn opaque(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.fixed(n)
    }

    /// Variable-length opaque data of at most `max` bytes.
    pub fn opaque_max(&mut self, max: usize) -> Option<&'a [u8]> {
        let save = self.pos;
        let n = self.u32()? as usize;
        if n > max {
            self.pos = save;
            return None;
        }
        self.fixed(n)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Option<()> {
        self.fixed(n).map(|_| ())
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos.min(self.buf.len())..]
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdr_reads_and_stops_at_the_end() {
        let b = [0, 0, 0, 2, b'a', b'b', 0, 0, 0, 0, 0, 1, 0, 0, 0, 5];
        let mut x = Xdr::new(&b);
        assert_eq!(x.opaque(), Some(&b"ab"[..]));
        assert_eq!(x.u64(), Some(0x1_0000_0005));
        assert_eq!(x.u32(), None);
        let mut x = Xdr::new(&[0, 0, 0, 9, 1, 2]);
        assert_eq!(x.opaque(), None);
        let mut x = Xdr::new(&[0xff, 0xff, 0xff, 0xff]);
        assert_eq!(x.opaque(), None);
        let mut x = Xdr::new(&[0, 0, 0, 3, 1, 2, 3]);
        assert_eq!(x.opaque_max(2), None);
        assert_eq!(x.opaque_max(3), Some(&[1, 2, 3][..]));
        assert_eq!(x.remaining(), 0);
    }
}

//! RPC record marking over TCP (RFC 5531 section 11): each record is one or more
//! fragments, each behind a 4-byte mark (the high bit says "last fragment", the other
//! 31 bits its length). [`Records`] reassembles one direction, bounded.

/// Why a direction's record stream cannot be followed any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A record (all its fragments) longer than the limit.
    TooLong,
}

/// Record reassembly for one TCP direction.
#[derive(Debug, Default)]
pub struct Records {
    /// Stream bytes not yet made into fragments.
    buf: Vec<u8>,
    /// Fragments of the record in progress (without their marks).
    record: Vec<u8>,
    /// The stream was given up (a record over the limit).
    lost: bool,
}

impl Records {
    /// Feeds in-order stream bytes, calling `f` with each complete record; a record
    /// longer than `limit` bytes stops the direction for good.
    pub fn feed(
        &mut self,
        data: &[u8],
        limit: usize,
        f: &mut dyn FnMut(&[u8]),
    ) -> Result<(), RecordError> {
        if self.lost {
            return Err(RecordError::TooLong);
        }
        let mut input = data;
        // Zero-copy: whole one-fragment records straight from `data`.
        if self.buf.is_empty() && self.record.is_empty() {
            while let Some((last, len)) = mark(input) {
                if len > limit {
                    return self.lose();
                }
                if !last || input.len() < 4 + len {
                    break;
                }
                f(&input[4..4 + len]);
                input = &input[4 + len..];
            }
        }
        self.buf.extend_from_slice(input);
        let mut off = 0;
        while let Some((last, len)) = mark(&self.buf[off..]) {
            if len > limit || self.record.len() + len > limit {
                return self.lose();
            }
            if self.buf.len() - off < 4 + len {
                break;
            }
            self.record
                .extend_from_slice(&self.buf[off + 4..off + 4 + len]);
            off += 4 + len;
            if last {
                f(&self.record);
                self.record.clear();
            }
        }
        self.buf.drain(..off);
        Ok(())
    }

    /// Bytes held (the partial fragment and record).
    pub fn held(&self) -> usize {
        self.buf.len() + self.record.len()
    }

    /// A hole in the stream: marks can no longer be found; the direction stops.
    pub fn lose_sync(&mut self) {
        self.lost = true;
        self.buf = Vec::new();
        self.record = Vec::new();
    }

    fn lose(&mut self) -> Result<(), RecordError> {
        self.lose_sync();
        Err(RecordError::TooLong)
    }
}

/// The fragment mark at the start of `b`: (last fragment, length).
fn mark(b: &[u8]) -> Option<(bool, usize)> {
    let m = u32::from_be_bytes(b.get(..4)?.try_into().ok()?);
    Some((m & 0x8000_0000 != 0, (m & 0x7fff_ffff) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(r: &mut Records, data: &[u8], limit: usize) -> (Vec<Vec<u8>>, bool) {
        let mut v = Vec::new();
        let ok = r.feed(data, limit, &mut |m| v.push(m.to_vec())).is_ok();
        (v, ok)
    }

    #[test]
    fn fragments_and_split_records() {
        let mut s = vec![0x80, 0, 0, 2, b'a', b'b'];
        s.extend_from_slice(&[0, 0, 0, 1, b'c', 0x80, 0, 0, 2, b'd', b'e']);
        let mut r = Records::default();
        assert_eq!(
            collect(&mut r, &s, 100).0,
            vec![b"ab".to_vec(), b"cde".to_vec()]
        );
        // The same split at every byte.
        let mut r = Records::default();
        let mut all = Vec::new();
        for b in s.chunks(1) {
            all.extend(collect(&mut r, b, 100).0);
        }
        assert_eq!(all, vec![b"ab".to_vec(), b"cde".to_vec()]);
        assert_eq!(r.held(), 0);
    }

    #[test]
    fn records_over_the_limit_stop_the_direction() {
        let mut r = Records::default();
        let (v, ok) = collect(&mut r, &[0x80, 0, 0, 200, 1, 2], 100);
        assert!(v.is_empty() && !ok);
        assert!(!collect(&mut r, &[0x80, 0, 0, 1, 1], 100).1);
        // Fragments adding up past the limit.
        let mut r = Records::default();
        let mut s = vec![0, 0, 0, 60];
        s.extend_from_slice(&[0; 60]);
        s.extend_from_slice(&[0x80, 0, 0, 60]);
        s.extend_from_slice(&[0; 60]);
        assert!(!collect(&mut r, &s, 100).1);
    }
}

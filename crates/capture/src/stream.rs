//! A buffered reader for inputs that cannot be mapped (pipes, standard input).

use std::io::{self, Read};

use crate::step::MAX_BLOCK;

/// Bytes asked of the operating system per read.
const READ_CHUNK: usize = 256 << 10;

/// A window over a byte stream, refilled in place; its buffer never exceeds
/// `max(MAX_BLOCK, READ_CHUNK)` bytes.
pub(crate) struct Stream {
    reader: Box<dyn Read + Send>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

impl Stream {
    pub(crate) fn new(reader: Box<dyn Read + Send>) -> Stream {
        Stream {
            reader,
            buf: vec![0; READ_CHUNK],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// The buffered bytes not consumed yet.
    pub(crate) fn window(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Consumes `n` buffered bytes (`n` at most the window length).
    pub(crate) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Buffers at least `need` bytes (at most `MAX_BLOCK`); `false` if the input ends first.
    pub(crate) fn fill(&mut self, need: usize) -> io::Result<bool> {
        debug_assert!(need <= MAX_BLOCK);
        while self.end - self.start < need {
            if self.eof {
                return Ok(false);
            }
            if self.start > 0 {
                // Move the partial record to the front: at most one block is copied.
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            // Grow only for a record larger than the buffer; otherwise the compaction
            // above left room, and the buffer is never reallocated while reading.
            if self.buf.len() < need {
                self.buf.resize(need, 0);
            }
            let room = &mut self.buf[self.end..];
            match self.reader.read(room) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Consumes `n` bytes, reading and discarding what is not buffered; `false` if the
    /// input ends first.
    pub(crate) fn skip(&mut self, n: usize) -> io::Result<bool> {
        let buffered = self.end - self.start;
        if n <= buffered {
            self.start += n;
            return Ok(true);
        }
        let mut left = n - buffered;
        self.start = 0;
        self.end = 0;
        while left > 0 {
            if self.eof {
                return Ok(false);
            }
            let take = left.min(self.buf.len());
            match self.reader.read(&mut self.buf[..take]) {
                Ok(0) => self.eof = true,
                Ok(got) => left -= got,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out one byte at a time.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 >= self.0.len() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[self.1];
            self.1 += 1;
            Ok(1)
        }
    }

    #[test]
    fn fill_consume_skip() {
        let data: Vec<u8> = (0..=255u8).cycle().take(600_000).collect();
        let mut s = Stream::new(Box::new(Trickle(data.clone(), 0)));
        assert!(s.fill(10).unwrap());
        assert_eq!(&s.window()[..10], &data[..10]);
        s.consume(3);
        assert!(s.fill(5).unwrap());
        assert_eq!(s.window()[0], 3);
        assert!(s.skip(300_000).unwrap());
        assert!(s.fill(2).unwrap());
        assert_eq!(s.window()[0], data[300_003]);
        assert!(!s.skip(400_000).unwrap());
        assert!(!s.fill(1).unwrap());
        assert!(s.window().is_empty());
    }
}

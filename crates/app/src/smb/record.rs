//! NBSS framing (RFC 1002 4.3): each direction's stream is cut into session records
//! (a type byte and a 24-bit length in a 4-byte header). Session messages carry SMB
//! messages; session request/response and keep-alive records are skipped. A record
//! larger than [`MAX_RECORD`] is skipped (counted by the caller), and after a hole the
//! framing resynchronises on the next header followed by an SMB signature.

use memchr::memmem;

/// Bytes of an NBSS header.
pub const NBSS_HDR: usize = 4;
/// Largest record kept whole (1 MiB of data, as SMB2.1+ clients read and write at
/// most, and its header).
pub const MAX_RECORD: usize = (1 << 20) + 4096;

/// NBSS session message.
pub const SESSION_MESSAGE: u8 = 0x00;
/// The NBSS types a stream may carry.
pub const NBSS_TYPES: [u8; 6] = [0x00, 0x81, 0x82, 0x83, 0x84, 0x85];

/// What the framing found in a direction's bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Item {
    /// A whole session message: the SMB message(s) it carries.
    Message(Vec<u8>),
    /// A record too large to keep: its type, its length and its first bytes.
    TooLarge(Vec<u8>),
    /// A header with an unknown type: the framing is lost until it resynchronises.
    Lost,
}

/// One direction's framing.
#[derive(Clone, Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Bytes of an oversized record still to skip.
    skip: u64,
    /// Looking for the next record after a hole or a bad header.
    resync: bool,
}

/// Whether an SMB signature starts `b`.
fn smb_magic(b: &[u8]) -> bool {
    matches!(b, [0xfd..=0xff, b'S', b'M', b'B', ..])
}

impl Framer {
    /// Bytes buffered now.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// A hole: the record in progress is dropped; the next one is searched for.
    pub fn gap(&mut self) {
        self.buf.clear();
        self.skip = 0;
        self.resync = true;
    }

    /// Feeds in-order bytes; calls `f` with each item completed.
    pub fn feed(&mut self, data: &[u8], f: &mut dyn FnMut(Item)) {
        let mut next = self.step(data, f);
        while let Some(v) = next {
            next = self.step(&v, f);
        }
    }

    /// Feeds bytes until they are used up (`None`), or until the framing was found
    /// again after a loss: the bytes from there are to be fed anew.
    fn step(&mut self, mut data: &[u8], f: &mut dyn FnMut(Item)) -> Option<Vec<u8>> {
        while !data.is_empty() {
            if self.skip > 0 {
                let n = usize::try_from(self.skip)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                self.skip -= n as u64;
                data = &data[n..];
                continue;
            }
            if self.resync {
                self.buf.extend_from_slice(data);
                return self.resynchronise();
            }
            // Gather a header, then the record (or the head of an oversized one).
            let want = if self.buf.len() < NBSS_HDR {
                NBSS_HDR
            } else {
                let len = NBSS_HDR + record_len(&self.buf);
                if len > MAX_RECORD {
                    NBSS_HDR + 128
                } else {
                    len
                }
            };
            let n = (want - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.buf.len() < want {
                break;
            }
            if want == NBSS_HDR && !NBSS_TYPES.contains(&self.buf[0]) {
                f(Item::Lost);
                self.buf.drain(..1);
                self.buf.extend_from_slice(data);
                self.resync = true;
                return self.resynchronise();
            }
            let len = NBSS_HDR + record_len(&self.buf);
            if len > MAX_RECORD {
                let head = NBSS_HDR + 128;
                if self.buf.len() == head {
                    self.skip = (len - head) as u64;
                    f(Item::TooLarge(std::mem::take(&mut self.buf)));
                }
            } else if self.buf.len() == len {
                let rec = std::mem::take(&mut self.buf);
                if rec[0] == SESSION_MESSAGE {
                    f(Item::Message(rec[NBSS_HDR..].to_vec()));
                }
            }
        }
        None
    }

    /// Looks for a session message header followed by an SMB signature in the
    /// buffered bytes: found, the bytes from there are returned to be fed anew; not
    /// found, a short tail is kept to look at with the next bytes.
    fn resynchronise(&mut self) -> Option<Vec<u8>> {
        let mut from = 0;
        while let Some(i) = memmem::find(&self.buf[from..], b"SMB").map(|i| i + from) {
            if i >= 5 && self.buf[i - 5] == SESSION_MESSAGE && smb_magic(&self.buf[i - 1..]) {
                self.resync = false;
                let rest = self.buf.split_off(i - 5);
                self.buf.clear();
                return Some(rest);
            }
            from = i + 1;
        }
        let keep = self.buf.len().saturating_sub(8);
        self.buf.drain(..keep);
        None
    }
}

/// The length of the record whose header starts `h` (at least 4 bytes).
fn record_len(h: &[u8]) -> usize {
    usize::from(h[1]) << 16 | usize::from(h[2]) << 8 | usize::from(h[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nbss(t: u8, body: &[u8]) -> Vec<u8> {
        let l = body.len();
        let mut v = vec![t, (l >> 16) as u8, (l >> 8) as u8, l as u8];
        v.extend_from_slice(body);
        v
    }

    fn run(fr: &mut Framer, data: &[u8]) -> Vec<Item> {
        let mut out = Vec::new();
        fr.feed(data, &mut |i| out.push(i));
        out
    }

    #[test]
    fn records_across_any_split() {
        let mut s = nbss(0x81, b"\x20CKFDENECFDEFFCFGEFFCCACACACACACA\0");
        s.extend(nbss(0, b"\xfeSMB1234"));
        s.extend(nbss(0x85, b""));
        s.extend(nbss(0, b"\xffSMBxy"));
        for cut in 0..s.len() {
            let mut fr = Framer::default();
            let mut items = run(&mut fr, &s[..cut]);
            items.extend(run(&mut fr, &s[cut..]));
            assert_eq!(
                items,
                vec![
                    Item::Message(b"\xfeSMB1234".to_vec()),
                    Item::Message(b"\xffSMBxy".to_vec())
                ],
                "cut {cut}"
            );
        }
    }

    #[test]
    fn oversized_records_are_skipped() {
        let big = vec![0u8; MAX_RECORD];
        let mut s = nbss(0, &big);
        s.extend(nbss(0, b"\xfeSMBok"));
        let mut fr = Framer::default();
        let items: Vec<_> = s.chunks(1000).flat_map(|c| run(&mut fr, c)).collect();
        assert!(matches!(items[0], Item::TooLarge(ref h) if h.len() == 132));
        assert_eq!(items[1], Item::Message(b"\xfeSMBok".to_vec()));
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn resynchronises_after_a_gap_or_garbage() {
        let mut fr = Framer::default();
        fr.gap();
        let mut s = b"garbage bytes SMB more".to_vec();
        s.extend(nbss(0, b"\xfeSMBok"));
        assert_eq!(run(&mut fr, &s), vec![Item::Message(b"\xfeSMBok".to_vec())]);
        let mut fr = Framer::default();
        let mut s = b"\x42\x00\x00\x01x".to_vec();
        s.extend(nbss(0, b"\xffSMBok"));
        assert_eq!(
            run(&mut fr, &s),
            vec![Item::Lost, Item::Message(b"\xffSMBok".to_vec())]
        );
        assert!(fr.buffered() == 0);
    }
}

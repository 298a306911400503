//! Incremental prefilter scans of growing bodies.
//!
//! A body buffer ([`app::BufferId::is_body`]: `http.response_body`, `file.data` ...)
//! grows while its transaction is in progress, and every growth inspects the
//! transaction again. Scanning the whole body with the body's matcher each time costs
//! the square of the body's length; on `sv-ether.pcap` with ET Open it was three
//! quarters of every byte the matchers read. A pattern that lies wholly in the part
//! scanned before was reported then, so its rules were candidates then and, unless
//! they matched, are still in the transaction's remembered body candidates
//! (`TxSeen::body_cands`), which the detector adds again whenever a body changes. Only
//! the bytes after the part scanned before, reaching back by the longest pattern less
//! one byte, can hold a pattern not reported yet, and only they are scanned.
//!
//! [`BodyMarks`] remembers, per transaction and direction, how far each body instance
//! (buffer, instance number) was scanned and a hash of the bytes just before that
//! point. A body that got shorter, or whose bytes before that point changed (a body
//! that is not a pure extension of the last one), is scanned in full again, as is an
//! instance beyond the [`MARKS`] remembered.

use app::BufferId;

/// Body instances remembered per transaction and direction (HTTP has two body buffers
/// per direction: the body and `file.data`; further instances are scanned in full).
pub(crate) const MARKS: usize = 3;

/// Bytes before the scanned point whose hash tells that a body grew by appending.
const TAIL: usize = 64;

/// How far one body instance was scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    buf: BufferId,
    instance: u8,
    /// Bytes scanned (the instance's length at that scan; below 4 GiB by the body
    /// limits, a longer one is not remembered).
    len: u32,
    /// [`tail_hash`] of the bytes before `len`.
    tail: u32,
}

/// The scanned extent of a transaction's body instances in one direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BodyMarks {
    marks: [Option<Mark>; MARKS],
}

impl BodyMarks {
    /// Where the scan of instance `instance` of body `buf`, now `hay`, may start:
    /// past what was scanned before less `overlap` bytes (the longest pattern less one)
    /// when the body grew by appending, else 0.
    pub fn resume(&self, buf: BufferId, instance: u8, hay: &[u8], overlap: usize) -> usize {
        let Some(m) = self
            .marks
            .iter()
            .flatten()
            .find(|m| m.buf == buf && m.instance == instance)
        else {
            return 0;
        };
        let len = m.len as usize;
        if hay.len() < len || tail_hash(&hay[..len]) != m.tail {
            return 0;
        }
        len.saturating_sub(overlap)
    }

    /// Records that instance `instance` of body `buf` was scanned up to its end `hay`.
    pub fn record(&mut self, buf: BufferId, instance: u8, hay: &[u8]) {
        let Ok(len) = u32::try_from(hay.len()) else {
            return;
        };
        let mark = Mark {
            buf,
            instance,
            len,
            tail: tail_hash(hay),
        };
        let slot = self
            .marks
            .iter()
            .position(|m| m.is_some_and(|m| m.buf == buf && m.instance == instance))
            .or_else(|| self.marks.iter().position(Option::is_none));
        if let Some(i) = slot {
            self.marks[i] = Some(mark);
        }
    }
}

/// A hash of the last [`TAIL`] bytes of `hay` and of its length.
fn tail_hash(hay: &[u8]) -> u32 {
    let tail = &hay[hay.len().saturating_sub(TAIL)..];
    let mut h = (hay.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut words = tail.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes(w.try_into().expect("8-byte chunk"));
        h = (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
    (h ^ h >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> BufferId {
        BufferId::by_name("http.response_body").expect("a body buffer")
    }

    fn file() -> BufferId {
        BufferId::by_name("file.data").expect("a body buffer")
    }

    #[test]
    fn unknown_instance_scans_from_the_start() {
        let m = BodyMarks::default();
        assert_eq!(m.resume(body(), 0, b"hello world", 4), 0);
    }

    #[test]
    fn appended_body_resumes_before_the_old_end() {
        let mut m = BodyMarks::default();
        let old = vec![b'a'; 1000];
        m.record(body(), 0, &old);
        let mut new = old.clone();
        new.extend_from_slice(b"more bytes");
        assert_eq!(m.resume(body(), 0, &new, 9), 991);
        // Unchanged: nothing new but the overlap.
        assert_eq!(m.resume(body(), 0, &old, 9), 991);
        // An overlap longer than what was scanned starts at 0.
        assert_eq!(m.resume(body(), 0, &new, 5000), 0);
        // Another instance or buffer is not the one recorded.
        assert_eq!(m.resume(body(), 1, &new, 9), 0);
        assert_eq!(m.resume(file(), 0, &new, 9), 0);
    }

    #[test]
    fn changed_or_shorter_body_scans_in_full() {
        let mut m = BodyMarks::default();
        let old: Vec<u8> = (0..200u8).collect();
        m.record(body(), 0, &old);
        assert_eq!(m.resume(body(), 0, &old[..150], 3), 0, "shorter");
        let mut changed = old.clone();
        changed[190] ^= 1;
        changed.push(7);
        assert_eq!(
            m.resume(body(), 0, &changed, 3),
            0,
            "a byte before the end changed"
        );
        // A body cut at the front (a moving window) no longer lines up.
        let mut shifted = old[10..].to_vec();
        shifted.extend_from_slice(&[1; 20]);
        assert_eq!(m.resume(body(), 0, &shifted, 3), 0, "shifted");
    }

    #[test]
    fn instances_beyond_the_marks_are_not_remembered() {
        let mut m = BodyMarks::default();
        for i in 0..=MARKS as u8 {
            m.record(file(), i, b"0123456789");
        }
        for i in 0..MARKS as u8 {
            assert_eq!(m.resume(file(), i, b"0123456789ab", 2), 8);
        }
        assert_eq!(m.resume(file(), MARKS as u8, b"0123456789ab", 2), 0);
        // Recording again replaces an instance's mark in place.
        m.record(file(), 1, b"0123456789abcdef");
        assert_eq!(m.resume(file(), 1, b"0123456789abcdefgh", 2), 14);
    }
}

//! Reusable batches of frames.

use std::sync::Arc;

use wire::LinkType;

use crate::Timestamp;

/// Default and recommended number of frames per batch.
pub const BATCH_SIZE: usize = 128;

/// Bytes after which a batch that copies its frames stops filling, bounding its memory.
pub(crate) const OWNED_BATCH_BYTES: usize = 2 << 20;

/// Read-only bytes shared between a source and the batches it fills (a mapped file or an
/// in-memory capture).
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// Where the frame bytes of a batch live.
enum Backing {
    /// Nothing yet.
    Empty,
    /// Offsets point into bytes shared with the source (one `Arc` clone per batch).
    Shared(SharedBytes),
    /// Frames were copied into this buffer, reused from batch to batch.
    Owned(Vec<u8>),
}

/// One frame's record inside a batch.
#[derive(Clone, Copy, Debug)]
struct Record {
    offset: usize,
    caplen: u32,
    wire_len: u32,
    ts: Timestamp,
    link: LinkType,
    interface: u32,
    index: u64,
}

/// Metadata of a frame being added to a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    pub(crate) wire_len: u32,
    pub(crate) ts: Timestamp,
    pub(crate) link: LinkType,
    pub(crate) interface: u32,
    pub(crate) index: u64,
}

/// A reusable batch of up to [`BATCH_SIZE`] frames filled by [`Source::next_batch`].
///
/// A batch owns (or shares, through one `Arc`) the bytes of its frames, so it is
/// `Send + 'static` and can be handed to another thread while the source keeps reading.
/// Refilling a batch reuses its allocations: reading allocates nothing per packet.
///
/// [`Source::next_batch`]: crate::Source::next_batch
pub struct Batch {
    backing: Backing,
    records: Vec<Record>,
}

/// One captured frame, borrowed from a [`Batch`].
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// The captured bytes, starting at the link-layer header.
    pub data: &'a [u8],
    /// Capture time.
    pub ts: Timestamp,
    /// Length of the packet on the wire (at least `data.len()` in sane captures).
    pub wire_len: u32,
    /// Link-layer type of `data`.
    pub link: LinkType,
    /// Interface the frame came from (pcapng interface id; 0 for pcap and live capture).
    pub interface: u32,
    /// 1-based position of the frame in its input (Suricata's `pcap_cnt`).
    pub index: u64,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch::new()
    }
}

impl Batch {
    /// An empty batch with room for [`BATCH_SIZE`] frames.
    pub fn new() -> Batch {
        Batch::with_capacity(BATCH_SIZE)
    }

    /// An empty batch with room for `frames` frame records.
    pub fn with_capacity(frames: usize) -> Batch {
        Batch {
            backing: Backing::Empty,
            records: Vec::with_capacity(frames),
        }
    }

    /// Number of frames in the batch.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the batch holds no frame.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The `i`-th frame, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<Frame<'_>> {
        let rec = self.records.get(i)?;
        Some(make_frame(self.bytes(), rec))
    }

    /// The frames in capture order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Frame<'_>> + '_ {
        let bytes = self.bytes();
        self.records.iter().map(move |rec| make_frame(bytes, rec))
    }

    /// Removes every frame, keeping the allocations. Sources call this before filling.
    pub fn clear(&mut self) {
        self.records.clear();
        if let Backing::Owned(buf) = &mut self.backing {
            buf.clear();
        }
    }

    /// Keeps only the frames `keep` accepts, in order, with their indexes unchanged: a
    /// share of an input (one flow-hash bucket) whose frames keep the `pcap_cnt` they
    /// have in the whole input. Returns the number of frames removed.
    pub fn retain(&mut self, mut keep: impl FnMut(&Frame<'_>) -> bool) -> usize {
        let before = self.records.len();
        let bytes: &[u8] = match &self.backing {
            Backing::Empty => &[],
            Backing::Shared(bytes) => (**bytes).as_ref(),
            Backing::Owned(buf) => buf,
        };
        self.records.retain_mut(|rec| keep(&make_frame(bytes, rec)));
        before - self.records.len()
    }

    /// Keeps only the frames `keep` accepts, in order, and numbers the kept ones
    /// `*next + 1, *next + 2, ...` (advancing `*next`): how a filter takes frames out of a
    /// batch so that frame indexes (Suricata's `pcap_cnt`) count only what passed. The
    /// bytes of dropped frames stay in the backing until the next refill; nothing is
    /// allocated. Returns the number of frames removed.
    pub fn retain_renumber(
        &mut self,
        mut keep: impl FnMut(&Frame<'_>) -> bool,
        next: &mut u64,
    ) -> usize {
        let before = self.records.len();
        let bytes: &[u8] = match &self.backing {
            Backing::Empty => &[],
            Backing::Shared(bytes) => (**bytes).as_ref(),
            Backing::Owned(buf) => buf,
        };
        self.records.retain_mut(|rec| {
            if !keep(&make_frame(bytes, rec)) {
                return false;
            }
            *next += 1;
            rec.index = *next;
            true
        });
        before - self.records.len()
    }

    fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Empty => &[],
            Backing::Shared(bytes) => (**bytes).as_ref(),
            Backing::Owned(buf) => buf,
        }
    }

    /// Adds frame `i` of `from` (nothing if there is none) to the end of this batch,
    /// without copying its bytes when both batches share the same bytes or this one is
    /// empty and `from` shares bytes with its source (a mapped file): how a reader hands
    /// frames of one batch to several workers. Otherwise the bytes are copied (this
    /// batch's shared frames first, if the two batches share different bytes).
    pub fn push_from(&mut self, from: &Batch, i: usize) {
        let Some(rec) = from.records.get(i).copied() else {
            return;
        };
        if let Backing::Shared(src) = &from.backing {
            let same = match &self.backing {
                Backing::Shared(cur) => Arc::ptr_eq(cur, src),
                _ => false,
            };
            if same || self.records.is_empty() {
                if !same {
                    self.backing = Backing::Shared(Arc::clone(src));
                }
                self.records.push(rec);
                return;
            }
        }
        if !matches!(self.backing, Backing::Owned(_)) {
            self.make_owned();
        }
        let data = make_frame(from.bytes(), &rec).data;
        if let Backing::Owned(buf) = &mut self.backing {
            let offset = buf.len();
            buf.extend_from_slice(data);
            self.records.push(Record { offset, ..rec });
        }
    }

    /// Copies the frames of a shared (or empty) batch into a buffer of its own.
    fn make_owned(&mut self) {
        let mut buf = Vec::new();
        let mut records = std::mem::take(&mut self.records);
        for rec in &mut records {
            let data = make_frame(self.bytes(), rec).data;
            let offset = buf.len();
            buf.extend_from_slice(data);
            rec.offset = offset;
        }
        self.records = records;
        self.backing = Backing::Owned(buf);
    }

    /// Clears the batch and points it at `bytes` (one `Arc` clone, none if already there).
    pub(crate) fn reset_shared(&mut self, bytes: &SharedBytes) {
        self.records.clear();
        match &self.backing {
            Backing::Shared(cur) if Arc::ptr_eq(cur, bytes) => {}
            _ => self.backing = Backing::Shared(Arc::clone(bytes)),
        }
    }

    /// Clears the batch and prepares its own reused buffer for copied frames.
    pub(crate) fn reset_owned(&mut self) {
        self.records.clear();
        match &mut self.backing {
            Backing::Owned(buf) => buf.clear(),
            _ => self.backing = Backing::Owned(Vec::with_capacity(OWNED_BATCH_BYTES)),
        }
    }

    /// Adds a frame whose bytes are `offset..offset + caplen` of the shared bytes.
    pub(crate) fn push_shared(&mut self, offset: usize, caplen: u32, meta: Meta) {
        debug_assert!(matches!(self.backing, Backing::Shared(_)));
        self.push_record(offset, caplen, meta);
    }

    /// Copies `data` into the owned buffer and adds it as a frame.
    pub(crate) fn push_copy(&mut self, data: &[u8], meta: Meta) {
        let Backing::Owned(buf) = &mut self.backing else {
            debug_assert!(false, "push_copy on a batch not reset with reset_owned");
            return;
        };
        let offset = buf.len();
        buf.extend_from_slice(data);
        // `data` came from a record whose length was checked against MAX_CAPLEN.
        let caplen = u32::try_from(data.len()).unwrap_or(u32::MAX);
        self.push_record(offset, caplen, meta);
    }

    /// Copies the concatenation of `parts` into the owned buffer and adds it as a frame.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn push_parts(&mut self, parts: &[&[u8]], meta: Meta) {
        let Backing::Owned(buf) = &mut self.backing else {
            debug_assert!(false, "push_parts on a batch not reset with reset_owned");
            return;
        };
        let offset = buf.len();
        for part in parts {
            buf.extend_from_slice(part);
        }
        let caplen = u32::try_from(buf.len() - offset).unwrap_or(u32::MAX);
        self.push_record(offset, caplen, meta);
    }

    /// Bytes copied into the owned buffer so far (0 for shared batches).
    pub(crate) fn owned_bytes(&self) -> usize {
        match &self.backing {
            Backing::Owned(buf) => buf.len(),
            _ => 0,
        }
    }

    fn push_record(&mut self, offset: usize, caplen: u32, meta: Meta) {
        self.records.push(Record {
            offset,
            caplen,
            wire_len: meta.wire_len,
            ts: meta.ts,
            link: meta.link,
            interface: meta.interface,
            index: meta.index,
        });
    }
}

fn make_frame<'a>(bytes: &'a [u8], rec: &Record) -> Frame<'a> {
    let end = rec.offset.saturating_add(rec.caplen as usize);
    Frame {
        // Records are only pushed for ranges inside the backing bytes; `get` keeps that
        // a non-panicking guarantee even if an invariant were broken.
        data: bytes.get(rec.offset..end).unwrap_or(&[]),
        ts: rec.ts,
        wire_len: rec.wire_len,
        link: rec.link,
        interface: rec.interface,
        index: rec.index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(index: u64) -> Meta {
        Meta {
            wire_len: 60,
            ts: Timestamp::new(1, 2),
            link: LinkType::ETHERNET,
            interface: 0,
            index,
        }
    }

    #[test]
    fn batch_is_send_and_static() {
        fn assert_send<T: Send + 'static>() {}
        assert_send::<Batch>();
    }

    #[test]
    fn push_from_shares_or_copies() {
        let frames = |b: &Batch| -> Vec<(Vec<u8>, u64)> {
            b.iter().map(|f| (f.data.to_vec(), f.index)).collect()
        };
        let map: SharedBytes = Arc::new(b"0123456789".to_vec());
        let mut mapped = Batch::new();
        mapped.reset_shared(&map);
        mapped.push_shared(1, 3, meta(1));
        mapped.push_shared(6, 2, meta(2));
        let mut copied = Batch::new();
        copied.reset_owned();
        copied.push_copy(b"xyz", meta(3));

        // From a mapped batch into an empty one: shared, no copy.
        let mut b = Batch::new();
        b.push_from(&mapped, 1);
        b.push_from(&mapped, 0);
        b.push_from(&mapped, 7);
        assert_eq!(b.owned_bytes(), 0);
        assert_eq!(frames(&b), vec![(b"67".to_vec(), 2), (b"123".to_vec(), 1)]);
        // A copied frame after shared ones: everything becomes owned, in order.
        b.push_from(&copied, 0);
        assert_eq!(b.owned_bytes(), 8);
        assert_eq!(
            frames(&b),
            vec![
                (b"67".to_vec(), 2),
                (b"123".to_vec(), 1),
                (b"xyz".to_vec(), 3)
            ]
        );
        // Other shared bytes after shared ones: copied too.
        let other: SharedBytes = Arc::new(b"abcdef".to_vec());
        let mut b = Batch::new();
        b.push_from(&mapped, 0);
        let mut o = Batch::new();
        o.reset_shared(&other);
        o.push_shared(2, 2, meta(9));
        b.push_from(&o, 0);
        assert_eq!(frames(&b), vec![(b"123".to_vec(), 1), (b"cd".to_vec(), 9)]);
        // Cleared, it takes shared frames again without copying.
        b.clear();
        b.push_from(&mapped, 1);
        assert_eq!(b.owned_bytes(), 0);
        assert_eq!(frames(&b), vec![(b"67".to_vec(), 2)]);
    }

    #[test]
    fn retain_keeps_the_indexes_of_kept_frames() {
        let shared: SharedBytes = Arc::new(b"abcdefgh".to_vec());
        let mut b = Batch::new();
        b.reset_shared(&shared);
        for i in 0..4u64 {
            b.push_shared(i as usize * 2, 2, meta(10 + i));
        }
        let before: Vec<u64> = b.iter().map(|f| f.index).collect();
        assert_eq!(b.retain(|f| f.data[0] != b'c'), 1);
        let got: Vec<_> = b.iter().map(|f| (f.data.to_vec(), f.index)).collect();
        assert_eq!(
            got,
            vec![
                (b"ab".to_vec(), before[0]),
                (b"ef".to_vec(), before[2]),
                (b"gh".to_vec(), before[3])
            ]
        );
    }

    #[test]
    fn retain_renumber_keeps_order_and_numbers_kept_frames() {
        let shared: SharedBytes = Arc::new(b"abcdefgh".to_vec());
        let mut b = Batch::new();
        b.reset_shared(&shared);
        for i in 0..4u64 {
            b.push_shared(i as usize * 2, 2, meta(10 + i));
        }
        let mut next = 7;
        let removed = b.retain_renumber(|f| f.data[0] != b'c' && f.data[0] != b'g', &mut next);
        assert_eq!(removed, 2);
        assert_eq!(next, 9);
        let got: Vec<_> = b.iter().map(|f| (f.data.to_vec(), f.index)).collect();
        assert_eq!(got, vec![(b"ab".to_vec(), 8), (b"ef".to_vec(), 9)]);
        // Dropping everything leaves an empty batch and the counter unchanged.
        assert_eq!(b.retain_renumber(|_| false, &mut next), 2);
        assert!(b.is_empty());
        assert_eq!(next, 9);
    }

    #[test]
    fn owned_and_shared_frames() {
        let mut b = Batch::new();
        assert!(b.is_empty());
        assert!(b.get(0).is_none());
        b.reset_owned();
        b.push_copy(b"abc", meta(1));
        b.push_copy(b"de", meta(2));
        assert_eq!(b.len(), 2);
        assert_eq!(b.owned_bytes(), 5);
        let got: Vec<_> = b.iter().map(|f| (f.data.to_vec(), f.index)).collect();
        assert_eq!(got, vec![(b"abc".to_vec(), 1), (b"de".to_vec(), 2)]);

        let shared: SharedBytes = Arc::new(b"0123456789".to_vec());
        b.reset_shared(&shared);
        b.push_shared(3, 4, meta(7));
        assert_eq!(b.get(0).unwrap().data, b"3456");
        assert_eq!(b.owned_bytes(), 0);
        b.clear();
        assert!(b.is_empty());
    }
}

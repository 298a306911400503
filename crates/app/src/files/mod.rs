//! Files carried by transactions: HTTP bodies, SMTP attachments, SMB/NFS/TFTP reads and
//! writes, FTP-data transfers. A protocol that carries files keeps one [`Files`]
//! container per transaction and reports it through
//! [`crate::Transaction::files`]; the `fileinfo` logger, the file keywords and the file
//! store only read [`File`]s, so they never name a protocol.
//!
//! A file is opened with its name ([`Files::open`]), fed in order ([`Files::append`]),
//! may have holes ([`Files::gap`]), and ends in one [`FileState`] ([`Files::close`]).
//! What is kept per file is bounded: the first [`FileConfig::head_limit`] bytes (for
//! `filemagic` and `file.data`) and running hashes when [`FileConfig`] asks for them.

pub mod magic;
pub mod store;

use md5::{Digest, Md5};
use sha1::Sha1;
use sha2::Sha256;

use crate::Direction;

/// How files are tracked (from `outputs` `force-hash`/`force-magic`, the file keywords
/// the rules use, and `file-store`).
#[derive(Clone, Debug)]
pub struct FileConfig {
    /// Compute the MD5 of each file.
    pub md5: bool,
    /// Compute the SHA-1 of each file.
    pub sha1: bool,
    /// Compute the SHA-256 of each file.
    pub sha256: bool,
    /// Bytes kept from the start of each file (magic detection and `file.data`).
    pub head_limit: usize,
    /// Describe each file with libmagic in its `fileinfo` record (`force-magic`, or a
    /// `filemagic` rule loaded, as Suricata).
    pub magic: bool,
    /// Keep each file's content until it is known whether it is stored (the
    /// `file-store` output is on and a rule may ask for it, or it is forced).
    pub store: bool,
    /// Store every file (`file-store` `force-filestore`).
    pub force_store: bool,
}

impl Default for FileConfig {
    fn default() -> Self {
        FileConfig {
            md5: false,
            sha1: false,
            sha256: false,
            head_limit: 64 * 1024,
            magic: false,
            store: false,
            force_store: false,
        }
    }
}

/// How a file ended (Suricata's `fileinfo.state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileState {
    /// Still receiving data.
    Open,
    /// Complete.
    Closed,
    /// Cut short: the transaction or flow ended first, or a limit was reached.
    Truncated,
    /// The protocol reported an error.
    Error,
}

impl FileState {
    /// The name EVE uses (`OPEN`, `CLOSED`, `TRUNCATED`, `ERROR`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileState::Open => "OPEN",
            FileState::Closed => "CLOSED",
            FileState::Truncated => "TRUNCATED",
            FileState::Error => "ERROR",
        }
    }
}

/// Running hashes of one file.
#[derive(Clone, Default)]
struct Hashers {
    md5: Option<Md5>,
    sha1: Option<Sha1>,
    sha256: Option<Sha256>,
}

impl core::fmt::Debug for Hashers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hashers")
            .field("md5", &self.md5.is_some())
            .field("sha1", &self.sha1.is_some())
            .field("sha256", &self.sha256.is_some())
            .finish()
    }
}

/// Final digests of a closed file (those the configuration asked for).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Digests {
    /// MD5.
    pub md5: Option<[u8; 16]>,
    /// SHA-1.
    pub sha1: Option<[u8; 20]>,
    /// SHA-256.
    pub sha256: Option<[u8; 32]>,
}

/// The digests of a file that computed none.
static NO_DIGESTS: Digests = Digests {
    md5: None,
    sha1: None,
    sha256: None,
};

/// One file of a transaction.
#[derive(Clone, Debug)]
pub struct File {
    name: Vec<u8>,
    dir: Direction,
    state: FileState,
    size: u64,
    gaps: bool,
    head: Vec<u8>,
    head_limit: usize,
    /// Running hashes, boxed and only when the configuration asks for one: an open
    /// file is held by every transaction in progress that carries a body, and the
    /// three hash states (336 bytes) were half of its size.
    hashers: Option<Box<Hashers>>,
    /// Final digests once closed, only when some hash was computed.
    digests: Option<Box<Digests>>,
    store: core::cell::Cell<bool>,
    range: Option<(u64, u64)>,
    logged: core::cell::Cell<bool>,
    magic: core::cell::OnceCell<Option<String>>,
    log_magic: bool,
    store_state: store::StoreState,
    end_counted: core::cell::Cell<bool>,
}

impl File {
    /// The file's name as the protocol gave it (URI path, attachment name, SMB path...).
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// The direction its data travels.
    pub fn direction(&self) -> Direction {
        self.dir
    }

    /// Its state.
    pub fn state(&self) -> FileState {
        self.state
    }

    /// Bytes seen so far (holes included).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether it has a hole.
    pub fn has_gaps(&self) -> bool {
        self.gaps
    }

    /// The first bytes of the file (at most [`FileConfig::head_limit`]).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether its first bytes are all kept (the file is not longer than the limit).
    pub fn head_complete(&self) -> bool {
        self.size <= self.head_limit as u64 && !self.gaps
    }

    /// Its digests; set once the file is no longer [`FileState::Open`].
    pub fn digests(&self) -> &Digests {
        self.digests.as_deref().unwrap_or(&NO_DIGESTS)
    }

    /// Whether a rule asked for it to be stored (`filestore`), or storing is forced.
    pub fn store_requested(&self) -> bool {
        self.store.get()
    }

    /// Asks for the file to be stored (a `filestore` rule matched; detection reads
    /// transactions through shared references, hence the cell).
    pub fn request_store(&self) {
        self.store.set(true);
    }

    /// [`File::request_store`] by rule `sid` (listed in the `fileinfo` record's `sid`).
    pub fn request_store_by(&self, sid: u32) {
        self.request_store();
        self.store_state.add_sid(sid);
    }

    /// What the file store knows of this file (its kept content, its `file_id`).
    pub fn store_state(&self) -> &store::StoreState {
        &self.store_state
    }

    /// Whether its `fileinfo` record carries its libmagic description.
    pub fn log_magic(&self) -> bool {
        self.log_magic
    }

    /// libmagic's description of the file ([`magic::describe`] of its first bytes),
    /// once it has [`magic::MIN_BYTES`] bytes, its kept head is full, or it ended;
    /// `None` before that or when libmagic is unavailable. Computed once.
    pub fn magic(&self) -> Option<&str> {
        if let Some(m) = self.magic.get() {
            return m.as_deref();
        }
        let ready = self.head.len() >= magic::MIN_BYTES.min(self.head_limit)
            || self.state != FileState::Open;
        if !ready || (self.head.is_empty() && self.size > 0) {
            return None;
        }
        self.magic
            .get_or_init(|| magic::describe(&self.head))
            .as_deref()
    }

    /// The byte range of a whole file this one is a part of (HTTP `Content-Range`:
    /// first and last byte), when the protocol said.
    pub fn range(&self) -> Option<(u64, u64)> {
        self.range
    }

    /// Marks the file as logged (its `fileinfo` record written); true the first time
    /// only. Logging reads transactions through shared references, hence the cell.
    pub fn mark_logged(&self) -> bool {
        !self.logged.replace(true)
    }

    /// Whether its `fileinfo` record was written ([`File::mark_logged`]).
    pub fn logged(&self) -> bool {
        self.logged.get()
    }

    fn append(&mut self, data: &[u8]) {
        if self.state != FileState::Open {
            return;
        }
        self.size = self.size.saturating_add(data.len() as u64);
        let room = self.head_limit.saturating_sub(self.head.len());
        if room > 0 && !self.gaps {
            self.head.extend_from_slice(&data[..room.min(data.len())]);
        }
        if let Some(hs) = &mut self.hashers {
            if let Some(h) = &mut hs.md5 {
                h.update(data);
            }
            if let Some(h) = &mut hs.sha1 {
                h.update(data);
            }
            if let Some(h) = &mut hs.sha256 {
                h.update(data);
            }
        }
        self.store_state.keep(data);
    }

    fn gap(&mut self, len: u64) {
        if self.state != FileState::Open {
            return;
        }
        self.size = self.size.saturating_add(len);
        self.gaps = true;
        // A file with a hole has no meaningful hash.
        self.hashers = None;
        self.store_state.lose();
    }

    fn close(&mut self, state: FileState) {
        if self.state != FileState::Open {
            return;
        }
        self.state = state;
        self.digests = self.hashers.take().map(|h| {
            let h = *h;
            Box::new(Digests {
                md5: h.md5.map(|h| h.finalize().into()),
                sha1: h.sha1.map(|h| h.finalize().into()),
                sha256: h.sha256.map(|h| h.finalize().into()),
            })
        });
    }
}

/// Index of a file in its [`Files`] container.
pub type FileId = usize;

/// Counts the files of `flow` that ended truncated ([`crate::Counter::FilesTruncated`]),
/// when the flow ends (its transactions, and so their files, are all still there).
pub(crate) fn count_flow_end(flow: &crate::AppFlow, ctx: &mut crate::AppCtx) {
    let mut n = 0;
    flow.each_tx(&mut |tx| n += tx.files().map_or(0, Files::count_truncated));
    for _ in 0..n {
        ctx.counters.incr(crate::Counter::FilesTruncated);
    }
}

/// Counts the files that ended truncated of `flow`'s transactions below `id`, which
/// are about to be freed (see [`count_flow_end`]).
pub(crate) fn count_freed(flow: &crate::AppFlow, ctx: &mut crate::AppCtx, id: u64) {
    let mut n = 0;
    flow.each_tx(&mut |tx| {
        if tx.id() < id {
            n += tx.files().map_or(0, Files::count_truncated);
        }
    });
    for _ in 0..n {
        ctx.counters.incr(crate::Counter::FilesTruncated);
    }
}

/// The files of one transaction, in the order they were opened.
#[derive(Clone, Debug, Default)]
pub struct Files {
    files: Vec<File>,
}

impl Files {
    /// Most files kept per transaction; further ones are refused (counted by the caller).
    pub const MAX: usize = 256;

    /// Heap bytes the files hold (their entries, names, kept heads and content kept for
    /// the file store), for the application-layer memcaps.
    pub fn heap_bytes(&self) -> usize {
        let each: usize = self
            .files
            .iter()
            .map(|f| f.name.capacity() + f.head.capacity() + f.store_state.heap_bytes())
            .sum();
        crate::memcap::vec_bytes(&self.files) + each
    }

    /// Empties the container for the next transaction, keeping the room of its list
    /// (a list of at most four entries, what one transaction's growth reserves) and
    /// the first file's name buffer, emptied (a spare for the next file's name; empty
    /// when there was no file). Nothing else of the files is kept.
    pub(crate) fn recycle(&mut self) -> Vec<u8> {
        let mut name = self
            .files
            .first_mut()
            .map(|f| std::mem::take(&mut f.name))
            .unwrap_or_default();
        name.clear();
        self.files.clear();
        if self.files.capacity() > 4 {
            self.files = Vec::new();
        }
        name
    }

    /// Opens a file named `name` whose data travels `dir`; `None` when the transaction
    /// already holds [`Files::MAX`] files.
    pub fn open(&mut self, cfg: &FileConfig, name: &[u8], dir: Direction) -> Option<FileId> {
        if self.files.len() >= Self::MAX {
            return None;
        }
        self.open_named(cfg, name.to_vec(), dir)
    }

    /// [`Files::open`] with the name's own buffer, kept as the file's name (no copy).
    pub fn open_named(
        &mut self,
        cfg: &FileConfig,
        name: Vec<u8>,
        dir: Direction,
    ) -> Option<FileId> {
        if self.files.len() >= Self::MAX {
            return None;
        }
        if self.files.len() < 4 && self.files.capacity() == self.files.len() {
            // One file at a time up to four (most transactions carry one; the default
            // first growth reserves four), then amortized doubling.
            self.files.reserve_exact(1);
        }
        self.files.push(File {
            name,
            dir,
            state: FileState::Open,
            size: 0,
            gaps: false,
            head: Vec::new(),
            head_limit: cfg.head_limit,
            hashers: (cfg.md5 || cfg.sha1 || cfg.sha256).then(|| {
                Box::new(Hashers {
                    md5: cfg.md5.then(Md5::new),
                    sha1: cfg.sha1.then(Sha1::new),
                    sha256: cfg.sha256.then(Sha256::new),
                })
            }),
            digests: None,
            store: core::cell::Cell::new(cfg.store && cfg.force_store),
            range: None,
            logged: core::cell::Cell::new(false),
            magic: core::cell::OnceCell::new(),
            log_magic: cfg.magic,
            store_state: store::StoreState::new(cfg.store),
            end_counted: core::cell::Cell::new(false),
        });
        Some(self.files.len() - 1)
    }

    /// Appends `data` to file `id` (ignored once it is no longer open).
    pub fn append(&mut self, id: FileId, data: &[u8]) {
        if let Some(f) = self.files.get_mut(id) {
            f.append(data);
        }
    }

    /// Records a hole of `len` bytes in file `id`.
    pub fn gap(&mut self, id: FileId, len: u64) {
        if let Some(f) = self.files.get_mut(id) {
            f.gap(len);
        }
    }

    /// Records that file `id` is the bytes `start..=end` of a larger file.
    pub fn set_range(&mut self, id: FileId, start: u64, end: u64) {
        if let Some(f) = self.files.get_mut(id) {
            f.range = Some((start, end));
        }
    }

    /// Ends file `id` in `state` (computing its digests).
    pub fn close(&mut self, id: FileId, state: FileState) {
        if let Some(f) = self.files.get_mut(id) {
            f.close(state);
        }
    }

    /// Ends every file still open in `state` (the transaction or flow ended).
    pub fn close_all(&mut self, state: FileState) {
        for f in &mut self.files {
            f.close(state);
        }
    }

    /// File `id`.
    pub fn get(&self, id: FileId) -> Option<&File> {
        self.files.get(id)
    }

    /// File `id`, mutably (to request storing it).
    pub fn get_mut(&mut self, id: FileId) -> Option<&mut File> {
        self.files.get_mut(id)
    }

    /// The files, in opening order.
    pub fn iter(&self) -> core::slice::Iter<'_, File> {
        self.files.iter()
    }

    /// How many files were opened.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was opened.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    /// Calls `f` with the kept content ([`File::head`]) of each file travelling `dir`
    /// that has some: the `file.data` buffers of a protocol's transaction.
    pub fn each_data(&self, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        for file in self
            .files
            .iter()
            .filter(|x| x.dir == dir && !x.head.is_empty())
        {
            f(&file.head);
        }
    }

    /// How many of the files ended truncated (or are still open, so will be logged
    /// truncated) and were not counted by an earlier call: each file counts once.
    pub fn count_truncated(&self) -> u64 {
        let mut n = 0;
        for f in &self.files {
            if matches!(f.state, FileState::Truncated | FileState::Open)
                && !f.end_counted.replace(true)
            {
                n += 1;
            }
        }
        n
    }

    /// A fingerprint of the files' progress (count, sizes and states), for a
    /// transaction's body fingerprint: it changes whenever `file.data` or a file
    /// option could answer differently.
    pub fn progress(&self) -> u64 {
        self.files.iter().fold(self.files.len() as u64, |h, f| {
            crate::proto::mix_fingerprint(crate::proto::mix_fingerprint(h, f.size), f.state as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn a_file_is_sized_hashed_and_closed() {
        let cfg = FileConfig {
            md5: true,
            sha1: true,
            sha256: true,
            head_limit: 4,
            magic: false,
            ..FileConfig::default()
        };
        let mut files = Files::default();
        let id = files.open(&cfg, b"a.txt", Direction::ToClient).unwrap();
        files.append(id, b"ab");
        files.append(id, b"c");
        assert_eq!(files.get(id).unwrap().state(), FileState::Open);
        files.close(id, FileState::Closed);
        let f = files.get(id).unwrap();
        assert_eq!(
            (f.size(), f.head(), f.state()),
            (3, &b"abc"[..], FileState::Closed)
        );
        let d = f.digests();
        assert_eq!(hex(&d.md5.unwrap()), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(&d.sha1.unwrap()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(&d.sha256.unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Closed is final: later data and a second close change nothing.
        files.append(id, b"zzz");
        files.close(id, FileState::Truncated);
        assert_eq!(files.get(id).unwrap().size(), 3);
        assert_eq!(files.get(id).unwrap().state(), FileState::Closed);
    }

    #[test]
    fn a_named_file_keeps_its_name_buffer_and_the_limit_holds() {
        let cfg = FileConfig::default();
        let mut files = Files::default();
        let name = b"/dir/f.bin".to_vec();
        let at = name.as_ptr();
        let id = files.open_named(&cfg, name, Direction::ToClient).unwrap();
        assert_eq!(files.get(id).unwrap().name(), b"/dir/f.bin");
        assert_eq!(files.get(id).unwrap().name().as_ptr(), at, "not copied");
        while files.open(&cfg, b"x", Direction::ToClient).is_some() {}
        assert_eq!(files.len(), Files::MAX);
        assert!(files
            .open_named(&cfg, b"y".to_vec(), Direction::ToClient)
            .is_none());
    }

    #[test]
    fn the_head_is_bounded_and_a_gap_drops_the_hashes() {
        let cfg = FileConfig {
            md5: true,
            head_limit: 4,
            ..FileConfig::default()
        };
        let mut files = Files::default();
        let id = files.open(&cfg, b"x", Direction::ToServer).unwrap();
        files.append(id, b"abcdef");
        assert_eq!(files.get(id).unwrap().head(), b"abcd");
        assert!(!files.get(id).unwrap().head_complete());
        files.gap(id, 10);
        files.close_all(FileState::Truncated);
        let f = files.get(id).unwrap();
        assert!(f.has_gaps());
        assert_eq!(f.size(), 16);
        assert_eq!(f.state().as_str(), "TRUNCATED");
        assert_eq!(f.digests(), &Digests::default());
        // Counted once, however often the flow's end asks.
        let done = files.open(&cfg, b"y", Direction::ToServer).unwrap();
        files.close(done, FileState::Closed);
        assert_eq!(files.count_truncated(), 1);
        assert_eq!(files.count_truncated(), 0);
    }

    #[test]
    fn a_file_holds_hash_state_only_when_hashes_are_asked_for() {
        // Every open HTTP body is a file: without hashing it carries no hash state.
        assert!(
            std::mem::size_of::<File>() <= 280,
            "{}",
            std::mem::size_of::<File>()
        );
        let mut files = Files::default();
        let id = files
            .open(&FileConfig::default(), b"x", Direction::ToClient)
            .unwrap();
        files.append(id, b"abc");
        assert!(files.get(id).unwrap().hashers.is_none());
        files.close(id, FileState::Closed);
        assert_eq!(files.get(id).unwrap().digests(), &Digests::default());
        let sha = FileConfig {
            sha256: true,
            ..FileConfig::default()
        };
        let id = files.open(&sha, b"y", Direction::ToClient).unwrap();
        files.append(id, b"abc");
        files.close(id, FileState::Closed);
        let d = files.get(id).unwrap().digests();
        assert_eq!((d.md5, d.sha1), (None, None));
        assert_eq!(
            hex(&d.sha256.unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_transaction_holds_a_bounded_number_of_files() {
        let cfg = FileConfig::default();
        let mut files = Files::default();
        for _ in 0..Files::MAX {
            assert!(files.open(&cfg, b"f", Direction::ToServer).is_some());
        }
        assert!(files.open(&cfg, b"f", Direction::ToServer).is_none());
        assert_eq!(files.len(), Files::MAX);
    }

    #[test]
    fn magic_waits_for_enough_bytes_or_the_end() {
        if !magic::available() {
            eprintln!("skipped: libmagic or its database is not installed");
            return;
        }
        let mut files = Files::default();
        let cfg = FileConfig::default();
        let id = files.open(&cfg, b"a.pdf", Direction::ToClient).unwrap();
        files.append(id, b"%PDF-1.5\n");
        assert_eq!(files.get(id).unwrap().magic(), None);
        files.append(id, &[b' '; 600]);
        let m = files.get(id).unwrap().magic().unwrap().to_owned();
        assert!(m.starts_with("PDF document, version 1.5"), "{m}");
        let id = files.open(&cfg, b"short", Direction::ToClient).unwrap();
        files.append(id, b"%PDF-1.4\n");
        files.close(id, FileState::Closed);
        assert!(files
            .get(id)
            .unwrap()
            .magic()
            .unwrap()
            .starts_with("PDF document"));
        let f = files.get(id).unwrap();
        assert!(!f.store_requested());
        f.request_store();
        assert!(f.store_requested());
    }

    #[test]
    fn data_is_given_per_file_of_a_direction() {
        let cfg = FileConfig::default();
        let mut files = Files::default();
        let a = files.open(&cfg, b"a", Direction::ToServer).unwrap();
        let b = files.open(&cfg, b"b", Direction::ToClient).unwrap();
        files.open(&cfg, b"empty", Direction::ToServer).unwrap();
        let p0 = files.progress();
        files.append(a, b"one");
        files.append(b, b"two");
        let p1 = files.progress();
        assert_ne!(p0, p1);
        files.close(a, FileState::Closed);
        assert_ne!(p1, files.progress());
        let mut got = Vec::new();
        files.each_data(Direction::ToServer, &mut |d| got.push(d.to_vec()));
        assert_eq!(got, [b"one".to_vec()]);
    }

    #[test]
    fn a_file_is_logged_once_and_keeps_its_range() {
        let mut files = Files::default();
        let id = files
            .open(&FileConfig::default(), b"r", Direction::ToClient)
            .unwrap();
        files.set_range(id, 500, 1000);
        let f = files.get(id).unwrap();
        assert_eq!(f.range(), Some((500, 1000)));
        assert!(f.mark_logged());
        assert!(!f.mark_logged());
    }
}

//! Sources reading capture files: mapped into memory, or streamed through a buffer.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::batch::{Meta, SharedBytes, OWNED_BATCH_BYTES};
use crate::pcap::{self, PcapReader};
use crate::pcapng::{self, PcapngReader};
use crate::step::{u32_at, Found, Step, MAX_BLOCK};
use crate::stream::Stream;
use crate::{Batch, CaptureError, CaptureStats, Source};

/// Capture file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// libpcap (any byte order, micro- or nanosecond timestamps).
    Pcap,
    /// pcapng.
    Pcapng,
}

enum Format {
    Pcap(PcapReader),
    Pcapng(PcapngReader),
}

impl Format {
    fn step(&mut self, w: &[u8], stats: &mut CaptureStats) -> Step {
        match self {
            Format::Pcap(r) => r.step(w, stats),
            Format::Pcapng(r) => r.step(w, stats),
        }
    }
}

enum Input {
    /// The whole input in memory (a mapped file or a byte buffer).
    Shared { bytes: SharedBytes, pos: usize },
    /// A pipe or other unmappable reader.
    Stream(Stream),
}

/// A mapped capture file, watched for shrinking while it is read (see
/// [`crate::mapguard`]). The guard is declared first: it stops watching the range before
/// the mapping goes away.
struct MappedFile {
    guard: crate::mapguard::Guard,
    map: memmap2::Mmap,
    file: File,
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

impl MappedFile {
    /// Drops the pages of `range` from this process's memory (they stay in the page
    /// cache): a capture read once is not kept resident, so the run's RSS does not
    /// grow with the file. A frame of the range read again (a worker still holding a
    /// batch of it) is simply mapped again from the file.
    fn release(&self, range: std::ops::Range<usize>) {
        let len = range.end.min(self.map.len()).saturating_sub(range.start);
        if len == 0 {
            return;
        }
        // SAFETY: the mapping is read-only and private and its pages are never written,
        // so dropping them loses nothing: a later read of the range faults the file's
        // unchanged bytes back in (MADV_DONTNEED on a clean file mapping). The range lies
        // within the mapping (clamped above).
        let _ = unsafe {
            self.map
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, len)
        };
    }

    /// How many bytes of the mapping can still be read: the file's current size (it may
    /// have shrunk), nothing more once a fault was answered with zeros.
    fn readable(&self) -> usize {
        if self.guard.faulted() {
            return 0;
        }
        match self.file.metadata() {
            Ok(m) => (m.len() as usize).min(self.map.len()),
            Err(_) => self.map.len(),
        }
    }
}

/// A [`Source`] over a pcap or pcapng file.
pub struct FileSource {
    path: PathBuf,
    format: Format,
    input: Input,
    stats: CaptureStats,
    index: u64,
    done: bool,
    /// A read error met after frames were already put in a batch: reported next call.
    pending: Option<io::Error>,
    /// The mapping, when the input is a mapped file (watched for shrinking).
    mapped: Option<Arc<MappedFile>>,
    /// The mapped file was seen shrinking (counted once in `truncated`).
    shrank: bool,
    /// Bytes of the mapping already released (see [`MappedFile::release`]).
    released: usize,
    /// Pages are released where the caller says ([`Source::release_before`]), not
    /// [`RELEASE_LAG`] behind the read position.
    by_caller: bool,
}

/// How far behind the read position the mapped capture's pages are released: the
/// frames of batches still travelling to the workers stay mapped.
const RELEASE_LAG: usize = 16 << 20;
/// Pages are released in steps of this many bytes (one `madvise` per step).
const RELEASE_STEP: usize = 4 << 20;

impl FileSource {
    /// Opens a file: mapped if it is a regular file, streamed otherwise; `-` is stdin.
    pub fn open(path: &Path) -> Result<FileSource, CaptureError> {
        let io_err = |source| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        };
        if path.as_os_str() == "-" {
            return FileSource::from_reader(path, Box::new(io::stdin()));
        }
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return FileSource::from_reader(path, Box::new(file));
        }
        if meta.len() == 0 {
            return Err(CaptureError::Empty {
                path: path.to_path_buf(),
            });
        }
        // SAFETY: the file is opened read-only and the mapping is private and read-only.
        // Another process truncating the file while we read it would make reads past
        // the new end fault: the reader stops at the file's current size before each
        // batch, and `mapguard` answers a fault in the range with zeros.
        let map = unsafe { memmap2::Mmap::map(&file) };
        match map {
            Ok(map) => {
                let _ = map.advise(memmap2::Advice::Sequential);
                let guard = crate::mapguard::Guard::watch(map.as_ptr() as usize, map.len());
                let mapped = Arc::new(MappedFile { guard, map, file });
                let mut src = FileSource::from_shared(path, mapped.clone())?;
                src.mapped = Some(mapped);
                Ok(src)
            }
            // Some file systems cannot be mapped: read them as a stream.
            Err(_) => FileSource::from_reader(path, Box::new(file)),
        }
    }

    /// A source over bytes already in memory; `name` labels errors.
    pub fn from_bytes(name: &Path, bytes: Vec<u8>) -> Result<FileSource, CaptureError> {
        FileSource::from_shared(name, Arc::new(bytes))
    }

    /// A source over any reader (pipes, sockets, decompressors); `name` labels errors.
    pub fn from_reader(
        name: &Path,
        reader: Box<dyn Read + Send>,
    ) -> Result<FileSource, CaptureError> {
        let mut stream = Stream::new(reader);
        let io_err = |source| CaptureError::Io {
            path: name.to_path_buf(),
            source,
        };
        stream.fill(4).map_err(io_err)?;
        let format = detect(name, stream.window())?;
        let need = match format {
            FileFormat::Pcap => pcap::HEADER_LEN,
            FileFormat::Pcapng => {
                stream.fill(12).map_err(io_err)?;
                shb_len(name, stream.window())?
            }
        };
        stream.fill(need).map_err(io_err)?;
        let (format, consumed) = start(name, format, stream.window())?;
        stream.consume(consumed);
        Ok(FileSource::new(name, format, Input::Stream(stream)))
    }

    /// A source over bytes shared with other owners (no copy); `name` labels errors.
    pub fn from_shared(name: &Path, bytes: SharedBytes) -> Result<FileSource, CaptureError> {
        let data = (*bytes).as_ref();
        let format = detect(name, data)?;
        let (format, pos) = start(name, format, data)?;
        Ok(FileSource::new(name, format, Input::Shared { bytes, pos }))
    }

    fn new(name: &Path, format: Format, input: Input) -> FileSource {
        FileSource {
            path: name.to_path_buf(),
            format,
            input,
            stats: CaptureStats::default(),
            index: 0,
            done: false,
            pending: None,
            mapped: None,
            shrank: false,
            released: 0,
            by_caller: false,
        }
    }

    /// The format of the file.
    pub fn format(&self) -> FileFormat {
        match self.format {
            Format::Pcap(_) => FileFormat::Pcap,
            Format::Pcapng(_) => FileFormat::Pcapng,
        }
    }

    /// Bytes of the mapped file resident in this process now (from /proc/self/smaps);
    /// `None` when not mapped or not known.
    #[cfg(test)]
    pub(crate) fn mapped_resident(&self) -> Option<usize> {
        let m = self.mapped.as_ref()?;
        let start = format!("{:x}-", m.map.as_ptr() as usize);
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        lines.next()?;
        let rss = lines.find(|l| l.starts_with("Rss:"))?;
        let kb: usize = rss.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// Whether the file is read through a memory mapping (or in-memory bytes) rather
    /// than a stream buffer.
    pub fn is_mapped(&self) -> bool {
        matches!(self.input, Input::Shared { .. })
    }

    fn fill_shared(&mut self, batch: &mut Batch, max: usize) {
        let Input::Shared { bytes, pos } = &mut self.input else {
            return;
        };
        batch.reset_shared(bytes);
        let bytes = Arc::clone(bytes);
        let mut data = (*bytes).as_ref();
        if let Some(m) = &self.mapped {
            let readable = m.readable();
            if readable < data.len() {
                // The file shrank (or a read of it faulted) while we read it: what is
                // left is read up to its new end, and the file counts as truncated.
                if !self.shrank {
                    self.shrank = true;
                    self.stats.truncated += 1;
                    tracing::warn!(
                        "{}: the capture file shrank while being read; reading stops at its new end",
                        self.path.display()
                    );
                }
                data = &data[..readable.max(*pos).min(data.len())];
            }
        }
        let mut at = *pos;
        while batch.len() < max && !self.done {
            let window = &data[at..];
            match self.format.step(window, &mut self.stats) {
                Step::Frame(f) => {
                    let meta = count(&mut self.stats, &mut self.index, &f);
                    batch.push_shared(at + f.data.start, f.data.len() as u32, meta);
                    at += f.len;
                }
                Step::Skip(n) if n <= window.len() => at += n,
                Step::Skip(_) => {
                    self.stats.truncated += 1;
                    self.done = true;
                }
                Step::NeedMore(_) => {
                    if !window.is_empty() {
                        self.stats.truncated += 1;
                    }
                    self.done = true;
                }
                Step::Stop => self.done = true,
            }
        }
        if let Input::Shared { pos, .. } = &mut self.input {
            *pos = at;
        }
        if !self.by_caller {
            self.release_upto(at.saturating_sub(RELEASE_LAG));
        }
    }

    /// Releases the mapped pages before `pos` (rounded down to [`RELEASE_STEP`]) not
    /// released yet.
    fn release_upto(&mut self, pos: usize) {
        if let Some(m) = &self.mapped {
            let upto = pos / RELEASE_STEP * RELEASE_STEP;
            if upto > self.released {
                m.release(self.released..upto);
                self.released = upto;
            }
        }
    }

    fn fill_stream(&mut self, batch: &mut Batch, max: usize) -> io::Result<()> {
        batch.reset_owned();
        while batch.len() < max && batch.owned_bytes() < OWNED_BATCH_BYTES && !self.done {
            let Input::Stream(s) = &mut self.input else {
                return Ok(());
            };
            match self.format.step(s.window(), &mut self.stats) {
                Step::Frame(f) => {
                    let meta = count(&mut self.stats, &mut self.index, &f);
                    batch.push_copy(&s.window()[f.data.clone()], meta);
                    s.consume(f.len);
                }
                Step::Skip(n) => {
                    if !s.skip(n)? {
                        self.stats.truncated += 1;
                        self.done = true;
                    }
                }
                Step::NeedMore(n) => {
                    if !s.fill(n)? {
                        if !s.window().is_empty() {
                            self.stats.truncated += 1;
                        }
                        self.done = true;
                    }
                }
                Step::Stop => self.done = true,
            }
        }
        Ok(())
    }
}

impl Source for FileSource {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        let max = max.max(1);
        if let Some(source) = self.pending.take() {
            batch.clear();
            return Err(CaptureError::Io {
                path: self.path.clone(),
                source,
            });
        }
        if matches!(self.input, Input::Shared { .. }) {
            self.fill_shared(batch, max);
        } else if let Err(source) = self.fill_stream(batch, max) {
            self.done = true;
            if batch.is_empty() {
                return Err(CaptureError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
            self.pending = Some(source);
        }
        Ok(batch.len())
    }

    fn stats(&self) -> CaptureStats {
        self.stats
    }

    fn position(&self) -> u64 {
        match (&self.input, &self.mapped) {
            (Input::Shared { pos, .. }, Some(_)) => *pos as u64,
            _ => 0,
        }
    }

    fn release_by_caller(&mut self) {
        self.by_caller = true;
    }

    fn shares_frames(&self) -> bool {
        matches!(self.input, Input::Shared { .. })
    }

    fn release_before(&mut self, pos: u64) {
        if self.by_caller {
            self.release_upto(usize::try_from(pos).unwrap_or(usize::MAX));
        }
    }
}

/// Counts a frame and numbers it.
fn count(stats: &mut CaptureStats, index: &mut u64, f: &Found) -> Meta {
    *index += 1;
    stats.packets += 1;
    stats.bytes += f.data.len() as u64;
    if f.link.name().is_none() {
        stats.unknown_link += 1;
    }
    Meta {
        wire_len: f.wire_len,
        ts: f.ts,
        link: f.link,
        interface: f.interface,
        index: *index,
    }
}

/// Recognises the format from the first bytes.
fn detect(path: &Path, first: &[u8]) -> Result<FileFormat, CaptureError> {
    if first.is_empty() {
        return Err(CaptureError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut magic = [0u8; 4];
    let n = first.len().min(4);
    magic[..n].copy_from_slice(&first[..n]);
    if n == 4 && pcap::is_magic(magic) {
        return Ok(FileFormat::Pcap);
    }
    if magic == pcapng::SHB_TYPE {
        return Ok(FileFormat::Pcapng);
    }
    let hint = match magic {
        [0x1f, 0x8b, ..] => " (gzip-compressed: decompress it first)",
        [0x28, 0xb5, 0x2f, 0xfd] => " (zstd-compressed: decompress it first)",
        [b'B', b'Z', b'h', _] => " (bzip2-compressed: decompress it first)",
        [0xfd, b'7', b'z', b'X'] => " (xz-compressed: decompress it first)",
        _ if n < 4 => " (file shorter than a magic number)",
        _ => "",
    };
    Err(CaptureError::BadMagic {
        path: path.to_path_buf(),
        magic: u32::from_be_bytes(magic),
        hint,
    })
}

/// Length of the first section header block (window holds at least 12 bytes if it can).
fn shb_len(path: &Path, w: &[u8]) -> Result<usize, CaptureError> {
    let bad = |reason| CaptureError::BadHeader {
        path: path.to_path_buf(),
        format: "pcapng",
        reason,
    };
    if w.len() < 12 {
        return Err(bad("file shorter than a section header block"));
    }
    let big = pcapng::section_byte_order(w).ok_or(bad("unknown byte-order magic"))?;
    let len = u32_at(w, 4, big) as usize;
    if !(28..=MAX_BLOCK).contains(&len) || !len.is_multiple_of(4) {
        return Err(bad("invalid section header block length"));
    }
    Ok(len)
}

/// Parses the file header / first section; returns the parser and the bytes consumed.
fn start(path: &Path, format: FileFormat, w: &[u8]) -> Result<(Format, usize), CaptureError> {
    match format {
        FileFormat::Pcap => {
            let r = PcapReader::from_header(w).map_err(|reason| CaptureError::BadHeader {
                path: path.to_path_buf(),
                format: "pcap",
                reason,
            })?;
            Ok((Format::Pcap(r), pcap::HEADER_LEN))
        }
        FileFormat::Pcapng => {
            let len = shb_len(path, w)?;
            let mut r = PcapngReader::default();
            let mut scratch = CaptureStats::default();
            match r.step(w, &mut scratch) {
                Step::Skip(n) if n == len => Ok((Format::Pcapng(r), len)),
                Step::NeedMore(_) => Err(CaptureError::BadHeader {
                    path: path.to_path_buf(),
                    format: "pcapng",
                    reason: "file shorter than its section header block",
                }),
                _ => Err(CaptureError::BadHeader {
                    path: path.to_path_buf(),
                    format: "pcapng",
                    reason: "malformed section header block",
                }),
            }
        }
    }
}

//! A directory of capture files read as one input (Suricata's pcap-file runmode with a
//! directory): files in modification-time order, frames numbered across files, a file
//! that cannot be read reported and skipped; optionally watched for new files
//! (`--pcap-file-continuous`), walked into subdirectories (`--pcap-file-recursive`) and
//! emptied as it is read (`--pcap-file-delete`).

use std::collections::{HashSet, VecDeque};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::{Batch, CaptureError, CaptureStats, FileSource, Source};

/// Deepest subdirectory a recursive walk enters (Suricata's limit).
pub const MAX_DEPTH: usize = 255;

/// How long a continuous run sleeps between looks at its stop flag while it waits.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// How a [`DirSource`] reads its directory.
#[derive(Clone, Debug)]
pub struct DirOptions {
    /// Also read the files of subdirectories (up to [`MAX_DEPTH`] levels).
    pub recursive: bool,
    /// Keep watching the directory for new files until the stop flag is raised.
    pub continuous: bool,
    /// Delete each file once it was read to its end (files that could not be read are
    /// kept).
    pub delete: bool,
    /// Continuous mode: a file is read only once its modification time is at least this
    /// old, so files still being written are not read half-way (Suricata's
    /// `pcap-file.delay`, 30 s by default).
    pub delay: Duration,
    /// Continuous mode: how often the directory is looked at again (Suricata's
    /// `pcap-file.poll-interval`, 5 s by default).
    pub poll_interval: Duration,
}

impl Default for DirOptions {
    fn default() -> DirOptions {
        DirOptions {
            recursive: false,
            continuous: false,
            delete: false,
            delay: Duration::from_secs(30),
            poll_interval: Duration::from_secs(5),
        }
    }
}

/// What happened to one file of a [`DirSource`], for the caller to report.
#[derive(Debug)]
pub enum DirEvent<'a> {
    /// The file was read to its end.
    Done {
        /// The file.
        path: &'a Path,
        /// Its own counters.
        stats: &'a CaptureStats,
    },
    /// The file could not be opened or read to its end; the run goes on with the next.
    Failed {
        /// The file.
        path: &'a Path,
        /// Why.
        error: &'a CaptureError,
    },
    /// `delete` was asked for and the file could not be deleted.
    NotDeleted {
        /// The file.
        path: &'a Path,
        /// Why.
        error: &'a io::Error,
    },
}

type Listener = Box<dyn FnMut(DirEvent<'_>) + Send>;

/// A [`Source`] over the capture files of a directory (or over a list of files), read
/// one after the other as one input: frames are numbered across files and keep their
/// own link type, so files of different link types can follow each other.
pub struct DirSource {
    root: PathBuf,
    opts: DirOptions,
    queue: VecDeque<PathBuf>,
    seen: HashSet<PathBuf>,
    current: Option<(PathBuf, FileSource)>,
    /// Counters of the files already finished.
    finished: CaptureStats,
    index: u64,
    stop: Option<Arc<AtomicBool>>,
    listener: Option<Listener>,
    initial_bytes: u64,
}

impl DirSource {
    /// Lists the files of directory `root` (as `opts` says) to read them in order of
    /// modification time (then name). An unreadable directory is an error; files that
    /// turn out not to be captures are reported when their turn comes.
    pub fn open(root: &Path, opts: DirOptions) -> Result<DirSource, CaptureError> {
        let meta = std::fs::metadata(root).map_err(|source| CaptureError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(CaptureError::Io {
                path: root.to_path_buf(),
                source: io::Error::new(io::ErrorKind::InvalidInput, "not a directory"),
            });
        }
        let mut src = DirSource::empty(root, opts);
        src.scan()?;
        src.initial_bytes = src.queued_bytes();
        Ok(src)
    }

    /// A source over exactly these files, in this order (`opts.continuous` and
    /// `opts.recursive` have no meaning here; `opts.delete` deletes each once read).
    pub fn files(files: &[PathBuf], opts: DirOptions) -> DirSource {
        let mut src = DirSource::empty(Path::new(""), opts);
        src.opts.continuous = false;
        src.queue.extend(files.iter().cloned());
        src.initial_bytes = src.queued_bytes();
        src
    }

    fn empty(root: &Path, opts: DirOptions) -> DirSource {
        DirSource {
            root: root.to_path_buf(),
            opts,
            queue: VecDeque::new(),
            seen: HashSet::new(),
            current: None,
            finished: CaptureStats::default(),
            index: 0,
            stop: None,
            listener: None,
            initial_bytes: 0,
        }
    }

    /// Calls `f` for every file finished, failed or not deleted (to report them).
    pub fn on_event(mut self, f: impl FnMut(DirEvent<'_>) + Send + 'static) -> DirSource {
        self.listener = Some(Box::new(f));
        self
    }

    /// Total size in bytes of the files found when the source was opened (for a
    /// progress bar).
    pub fn initial_bytes(&self) -> u64 {
        self.initial_bytes
    }

    fn queued_bytes(&self) -> u64 {
        self.queue
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    fn emit(&mut self, event: DirEvent<'_>) {
        if let Some(f) = &mut self.listener {
            f(event);
        }
    }

    /// Adds the files not seen before to the queue, oldest first. In continuous mode
    /// only files at least `delay` old are taken (younger ones wait for a later scan).
    fn scan(&mut self) -> Result<(), CaptureError> {
        let mut found = Vec::new();
        let depth = if self.opts.recursive { MAX_DEPTH } else { 0 };
        walk(&self.root, depth, &mut found).map_err(|source| CaptureError::Io {
            path: self.root.clone(),
            source,
        })?;
        let newest = self
            .opts
            .continuous
            .then(|| SystemTime::now().checked_sub(self.opts.delay))
            .flatten();
        found.retain(|(mtime, path)| {
            !self.seen.contains(path) && newest.is_none_or(|limit| *mtime <= limit)
        });
        found.sort();
        for (_, path) in found {
            self.seen.insert(path.clone());
            self.queue.push_back(path);
        }
        Ok(())
    }

    /// Continuous mode with nothing to read: waits one poll interval (or until the stop
    /// flag is raised; then returns false).
    fn wait(&self) -> bool {
        let stopped = || {
            self.stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
        };
        let mut waited = Duration::ZERO;
        while waited < self.opts.poll_interval {
            if stopped() {
                return false;
            }
            let step = STOP_CHECK.min(self.opts.poll_interval - waited);
            std::thread::sleep(step);
            waited += step;
        }
        !stopped()
    }

    /// The current file ended (`error` None) or failed: counts it, reports it and
    /// deletes it when asked.
    fn close_current(&mut self, error: Option<CaptureError>) {
        let Some((path, file)) = self.current.take() else {
            return;
        };
        let stats = file.stats();
        drop(file);
        self.finished.merge(&stats);
        match error {
            Some(error) => {
                self.finished.file_errors += 1;
                self.emit(DirEvent::Failed {
                    path: &path,
                    error: &error,
                });
            }
            None => {
                self.finished.files += 1;
                self.emit(DirEvent::Done {
                    path: &path,
                    stats: &stats,
                });
                if self.opts.delete {
                    if let Err(error) = std::fs::remove_file(&path) {
                        self.emit(DirEvent::NotDeleted {
                            path: &path,
                            error: &error,
                        });
                    }
                }
            }
        }
    }
}

/// Regular files under `dir` (and its subdirectories down to `depth` more levels) with
/// their modification times. Symbolic links to files are followed, not those to
/// directories (no cycles). Entries that vanish while listing are skipped.
fn walk(dir: &Path, depth: usize, out: &mut Vec<(SystemTime, PathBuf)>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth > 0 {
                // A subdirectory that cannot be listed is left out, as a vanished file.
                let _ = walk(&path, depth - 1, out);
            }
            continue;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            out.push((meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), path));
        }
    }
    Ok(())
}

impl Source for DirSource {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        loop {
            if let Some((_, file)) = &mut self.current {
                match file.next_batch(batch, max) {
                    Ok(0) => self.close_current(None),
                    Ok(_) => {
                        batch.retain_renumber(|_| true, &mut self.index);
                        return Ok(batch.len());
                    }
                    Err(e) => self.close_current(Some(e)),
                }
                continue;
            }
            if let Some(path) = self.queue.pop_front() {
                match FileSource::open(&path) {
                    Ok(file) => self.current = Some((path, file)),
                    Err(error) => {
                        self.finished.file_errors += 1;
                        self.emit(DirEvent::Failed {
                            path: &path,
                            error: &error,
                        });
                    }
                }
                continue;
            }
            batch.clear();
            if !self.opts.continuous {
                return Ok(0);
            }
            // A directory that cannot be listed for a moment (e.g. being replaced) is
            // looked at again next time rather than ending the run.
            let _ = self.scan();
            if self.queue.is_empty() && !self.wait() {
                return Ok(0);
            }
        }
    }

    fn stats(&self) -> CaptureStats {
        let mut stats = self.finished;
        if let Some((_, file)) = &self.current {
            stats.merge(&file.stats());
        }
        stats
    }

    fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    fn may_wait(&self) -> bool {
        self.opts.continuous
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{drain, pcap};
    use std::fs;

    /// A fresh empty directory under the system's temporary directory.
    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("osprey-dir-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A pcap of `n` frames of link type `link`, each frame's first byte `tag`.
    fn capture(link: u32, tag: u8, n: usize) -> Vec<u8> {
        let frame = [tag; 20];
        let recs: Vec<(u32, u32, &[u8], u32)> =
            (0..n).map(|i| (i as u32, 0, &frame[..], 20)).collect();
        pcap(false, false, 65535, link, &recs)
    }

    fn write_at(path: &Path, bytes: &[u8], mtime_secs: u64) {
        fs::write(path, bytes).unwrap();
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(mtime_secs);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn files_in_modification_time_order_numbered_across_files() {
        let dir = tempdir("order");
        // Names in the opposite order of the times: the times decide.
        write_at(&dir.join("a.pcap"), &capture(1, 0xa, 2), 3_000);
        write_at(&dir.join("b.pcap"), &capture(101, 0xb, 3), 2_000);
        write_at(&dir.join("c.pcap"), b"not a capture at all", 2_500);
        let events = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = events.clone();
        let mut src = DirSource::open(&dir, DirOptions::default())
            .unwrap()
            .on_event(move |e| {
                let line = match e {
                    DirEvent::Done { path, stats } => {
                        format!("done {} {}", path.display(), stats.packets)
                    }
                    DirEvent::Failed { path, error } => {
                        format!("failed {}: {error}", path.display())
                    }
                    DirEvent::NotDeleted { path, .. } => format!("kept {}", path.display()),
                };
                log.lock().unwrap().push(line);
            });
        let size = |n: &str| fs::metadata(dir.join(n)).unwrap().len();
        assert_eq!(
            src.initial_bytes(),
            size("a.pcap") + size("b.pcap") + size("c.pcap")
        );
        let (got, stats) = drain(&mut src, 2);
        let seen: Vec<(u64, u8, u16)> =
            got.iter().map(|g| (g.index, g.data[0], g.link.0)).collect();
        assert_eq!(
            seen,
            vec![
                (1, 0xb, 101),
                (2, 0xb, 101),
                (3, 0xb, 101),
                (4, 0xa, 1),
                (5, 0xa, 1)
            ]
        );
        assert_eq!((stats.packets, stats.files, stats.file_errors), (5, 2, 1));
        let events = events.lock().unwrap();
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(events[0].starts_with("done") && events[0].ends_with("b.pcap 3"));
        assert!(
            events[1].contains("c.pcap: not a pcap or pcapng file"),
            "{}",
            events[1]
        );
        assert!(events[2].ends_with("a.pcap 2"));
        // Nothing deleted without the option.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 3);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn recursive_and_delete() {
        let dir = tempdir("rec");
        fs::create_dir_all(dir.join("sub/deeper")).unwrap();
        write_at(&dir.join("1.pcap"), &capture(1, 1, 1), 1_000);
        write_at(&dir.join("sub/deeper/2.pcap"), &capture(1, 2, 1), 2_000);
        write_at(&dir.join("sub/3.pcap"), &capture(1, 3, 1), 3_000);
        write_at(&dir.join("bad.pcap"), b"\xd4\xc3\xb2", 500);
        // Without recursion only the top level is read.
        let mut flat = DirSource::open(&dir, DirOptions::default()).unwrap();
        let (got, _) = drain(&mut flat, 8);
        assert_eq!(got.iter().map(|g| g.data[0]).collect::<Vec<_>>(), vec![1]);
        let opts = DirOptions {
            recursive: true,
            delete: true,
            ..DirOptions::default()
        };
        let mut src = DirSource::open(&dir, opts).unwrap();
        let (got, stats) = drain(&mut src, 8);
        assert_eq!(
            got.iter().map(|g| g.data[0]).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert_eq!((stats.files, stats.file_errors), (3, 1));
        // Read files are gone, the one that could not be read stays.
        assert!(!dir.join("1.pcap").exists());
        assert!(!dir.join("sub/3.pcap").exists());
        assert!(!dir.join("sub/deeper/2.pcap").exists());
        assert!(dir.join("bad.pcap").exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn continuous_picks_up_new_files_waits_for_quiet_ones_and_stops() {
        let dir = tempdir("cont");
        write_at(&dir.join("old.pcap"), &capture(1, 1, 2), 1_000);
        // Modified just now: younger than the delay, it waits.
        fs::write(dir.join("fresh.pcap"), capture(1, 9, 1)).unwrap();
        let opts = DirOptions {
            continuous: true,
            delay: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(20),
            ..DirOptions::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut src = DirSource::open(&dir, opts).unwrap();
        src.stop_on(stop.clone());
        let mut batch = Batch::new();
        assert_eq!(src.next_batch(&mut batch, 8).unwrap(), 2);
        let writer = {
            let dir = dir.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                write_at(&dir.join("new.pcap"), &capture(1, 2, 1), 2_000);
                std::thread::sleep(Duration::from_millis(300));
                stop.store(true, Ordering::Relaxed);
            })
        };
        // Blocks until new.pcap shows up.
        assert_eq!(src.next_batch(&mut batch, 8).unwrap(), 1);
        let f = batch.get(0).unwrap();
        assert_eq!((f.data[0], f.index), (2, 3));
        // Then waits until stopped: fresh.pcap is never old enough.
        assert_eq!(src.next_batch(&mut batch, 8).unwrap(), 0);
        writer.join().unwrap();
        assert_eq!(src.stats().files, 2);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn file_lists_and_missing_directories() {
        let dir = tempdir("list");
        let one = dir.join("one.pcap");
        write_at(&one, &capture(1, 7, 2), 1_000);
        let opts = DirOptions {
            delete: true,
            ..DirOptions::default()
        };
        let mut src = DirSource::files(std::slice::from_ref(&one), opts);
        let (got, stats) = drain(&mut src, 8);
        assert_eq!(got.len(), 2);
        assert_eq!(stats.files, 1);
        assert!(!one.exists());
        let e = DirSource::open(&dir.join("nope"), DirOptions::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("nope"), "{e}");
        let _ = fs::remove_dir_all(&dir);
    }
}

//! A line writer that runs on its own thread, so slow disks never stall a worker; or,
//! for a socket destination, hands lines to its bounded buffer and delivery thread
//! ([`crate::sink`]).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::sink::{Running, SinkOptions, SinkSpec};

/// Lines queued before a producer waits for the writer (bounded memory).
const QUEUE_LINES: usize = 4096;

/// Under a steady flow of lines, the reopen generation is looked at after this many.
pub const REOPEN_CHECK_LINES: u64 = 1024;

/// How long an idle writer waits before looking at the reopen generation.
const REOPEN_IDLE_CHECK: Duration = Duration::from_millis(100);

/// Says how many times a reopen was asked for (the engine's `Control::reopen_generation`).
pub type ReopenSource = Arc<dyn Fn() -> u64 + Send + Sync>;

/// What a file writer could not write: records dropped whole (a full disk, an I/O
/// error) and the write calls that failed. Shared with the [`LineWriter`].
#[derive(Debug, Default)]
struct FileCounts {
    dropped: AtomicU64,
    failures: AtomicU64,
}

/// Records waiting to be written to a file, kept whole: a failed write never leaves
/// part of a record in the file.
struct RecordBuf {
    bytes: Vec<u8>,
    /// End offset in `bytes` of each record.
    ends: Vec<usize>,
    /// A write failed and nothing was written since (logged once per outage).
    failing: bool,
}

/// Bytes buffered before they are written.
const FILE_BUF: usize = 1 << 16;

impl RecordBuf {
    fn new() -> Self {
        RecordBuf {
            bytes: Vec::with_capacity(FILE_BUF + 4096),
            ends: Vec::new(),
            failing: false,
        }
    }

    fn push(&mut self, line: &[u8]) {
        self.bytes.extend_from_slice(line);
        self.bytes.push(b'\n');
        self.ends.push(self.bytes.len());
    }

    /// Writes what is buffered. On an error, the bytes of a record written only in
    /// part are cut off the file again (its length read back, so a file truncated by
    /// rotation meanwhile is not extended), the unwritten records are counted as
    /// dropped, and writing goes on with the next records: inspection never waits for
    /// the disk. Returns the records written.
    fn flush(&mut self, file: &mut File, path: &Path, counts: &FileCounts) -> u64 {
        let mut written = 0usize;
        let mut error = None;
        while written < self.bytes.len() {
            match file.write(&self.bytes[written..]) {
                Ok(0) => {
                    error = Some(io::Error::from(io::ErrorKind::WriteZero));
                    break;
                }
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let complete = self.ends.partition_point(|&end| end <= written);
        let whole = if complete == 0 {
            0
        } else {
            self.ends[complete - 1]
        };
        if let Some(e) = error {
            let partial = (written - whole) as u64;
            if partial > 0 {
                if let Ok(len) = file.metadata().map(|m| m.len()) {
                    let _ = file.set_len(len.saturating_sub(partial));
                }
            }
            let lost = (self.ends.len() - complete) as u64;
            counts.dropped.fetch_add(lost, Ordering::Relaxed);
            counts.failures.fetch_add(1, Ordering::Relaxed);
            if !self.failing {
                self.failing = true;
                tracing::error!(
                    "{}: {e}; records that cannot be written are counted as dropped, writing goes on",
                    path.display()
                );
            }
        } else if self.failing && !self.ends.is_empty() {
            self.failing = false;
            tracing::info!("{}: writing again", path.display());
        }
        self.bytes.clear();
        self.ends.clear();
        complete as u64
    }
}

/// The writer thread of a file: records from `rx`, written whole, the file reopened
/// whenever `generation` (if any) returns a new value (log rotation).
fn write_file(
    mut file: File,
    path: &Path,
    rx: &Receiver<Vec<u8>>,
    generation: Option<&(dyn Fn() -> u64 + Send + Sync)>,
    counts: &FileCounts,
) -> io::Result<u64> {
    let mut buf = RecordBuf::new();
    let mut seen = generation.map(|g| g());
    let (mut lines, mut since_check) = (0u64, 0u64);
    loop {
        let idle = match rx.recv_timeout(REOPEN_IDLE_CHECK) {
            Ok(line) => {
                buf.push(&line);
                if buf.bytes.len() >= FILE_BUF {
                    lines += buf.flush(&mut file, path, counts);
                }
                since_check += 1;
                false
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if idle {
            // Nothing queued: what was written becomes visible (`tail -f`, stats.log).
            lines += buf.flush(&mut file, path, counts);
        }
        let Some(generation) = generation else {
            continue;
        };
        if idle || since_check >= REOPEN_CHECK_LINES {
            since_check = 0;
            let now = generation();
            if Some(now) != seen {
                seen = Some(now);
                lines += buf.flush(&mut file, path, counts);
                match std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    Ok(f) => file = f,
                    // Losing the lines would be worse than writing them where they went.
                    Err(e) => tracing::error!(
                        "cannot reopen {}: {e}; writing on to the file as it was opened",
                        path.display()
                    ),
                }
            }
        }
    }
    lines += buf.flush(&mut file, path, counts);
    Ok(lines)
}

/// Appends lines to a file from a background thread, or sends them to a socket
/// destination (see [`crate::sink`]).
pub struct LineWriter {
    tx: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<u64>>>,
    /// A file's lost records and failed writes.
    file_counts: Arc<FileCounts>,
    /// A socket destination (then `tx` and `thread` are `None`).
    sink: Option<Running>,
}

impl LineWriter {
    /// Creates (truncates) `path` and starts the writer thread.
    pub fn create(path: &Path) -> io::Result<LineWriter> {
        LineWriter::start(path, None)
    }

    /// As [`create`](Self::create), and reopens `path` (appending; created anew when
    /// it was moved away) whenever `generation` returns a new value: log rotation. The
    /// writer thread asks when it has nothing queued, and every [`REOPEN_CHECK_LINES`]
    /// lines under load, never per line.
    pub fn create_reopening(path: &Path, generation: ReopenSource) -> io::Result<LineWriter> {
        LineWriter::start(path, Some(generation))
    }

    /// Starts a writer on `spec`, reopening (files only) when `reopen` returns a new
    /// value. A file is appended to or truncated as `spec` says; a socket destination
    /// gets the default [`SinkOptions`].
    pub fn open(spec: &SinkSpec, reopen: Option<ReopenSource>) -> io::Result<LineWriter> {
        LineWriter::open_with(spec, reopen, &SinkOptions::default())
    }

    /// As [`open`](Self::open), with the bounds, timings and syslog socket of `opts`.
    pub fn open_with(
        spec: &SinkSpec,
        reopen: Option<ReopenSource>,
        opts: &SinkOptions,
    ) -> io::Result<LineWriter> {
        match spec {
            SinkSpec::File { path, append } => {
                let file = if *append {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)?
                } else {
                    File::create(path)?
                };
                LineWriter::start_file(file, path, reopen)
            }
            socket => Ok(LineWriter {
                tx: None,
                thread: None,
                file_counts: Arc::default(),
                sink: Some(crate::sink::start(socket, opts)?),
            }),
        }
    }

    fn start(path: &Path, reopen: Option<ReopenSource>) -> io::Result<LineWriter> {
        LineWriter::start_file(File::create(path)?, path, reopen)
    }

    fn start_file(file: File, path: &Path, reopen: Option<ReopenSource>) -> io::Result<LineWriter> {
        let path = path.to_owned();
        let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE_LINES);
        let file_counts = Arc::new(FileCounts::default());
        let counts = file_counts.clone();
        let thread = std::thread::Builder::new()
            .name("osprey-output".into())
            .spawn(move || write_file(file, &path, &rx, reopen.as_deref(), &counts))?;
        Ok(LineWriter {
            tx: Some(tx),
            thread: Some(thread),
            file_counts,
            sink: None,
        })
    }

    /// Queues one line (without its newline). A socket destination never makes the
    /// caller wait: a line that does not fit its buffer is counted as
    /// [`dropped`](Self::dropped).
    pub fn write_line(&self, line: Vec<u8>) -> io::Result<()> {
        if let Some(s) = &self.sink {
            return if s.queue.push(line) {
                Ok(())
            } else {
                Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "output writer closed",
                ))
            };
        }
        match &self.tx {
            Some(tx) => tx
                .send(line)
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output writer stopped")),
            None => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "output writer closed",
            )),
        }
    }

    /// Records lost so far: a socket destination's buffer was full, the destination
    /// refused them, or they were left when it closed; a file's records that could not
    /// be written (a full disk, an I/O error: dropped whole, never torn).
    pub fn dropped(&self) -> u64 {
        self.sink.as_ref().map_or_else(
            || self.file_counts.dropped.load(Ordering::Relaxed),
            |s| s.queue.counts.dropped(),
        )
    }

    /// Write calls to a file that failed (each lost the records it carried; writing
    /// went on). Always 0 for a socket destination.
    pub fn write_failures(&self) -> u64 {
        self.file_counts.failures.load(Ordering::Relaxed)
    }

    /// Times a socket destination was connected again after losing it or failing to
    /// reach it. Always 0 for a file.
    pub fn reconnects(&self) -> u64 {
        self.sink
            .as_ref()
            .map_or(0, |s| s.queue.counts.reconnects())
    }

    /// Records a socket destination has delivered so far (a file's count comes from
    /// [`finish`](Self::finish)).
    pub fn delivered(&self) -> u64 {
        self.sink.as_ref().map_or(0, |s| s.queue.counts.delivered())
    }

    /// A socket destination's counts, which stay readable after
    /// [`finish`](Self::finish); `None` for a file.
    pub fn counts(&self) -> Option<Arc<crate::sink::SinkCounts>> {
        self.sink.as_ref().map(|s| s.queue.counts.clone())
    }

    /// Flushes and closes the file, or delivers what a socket destination still holds
    /// (trying for at most [`SinkLimits::linger`](crate::sink::SinkLimits::linger));
    /// returns the number of lines written (delivered).
    pub fn finish(mut self) -> io::Result<u64> {
        self.close()
    }

    /// As [`finish`](Self::finish), with what was lost: `(lines written, records
    /// dropped, failed writes)` once everything queued has been tried.
    pub fn finish_counted(mut self) -> io::Result<(u64, u64, u64)> {
        let lines = self.close()?;
        Ok((lines, self.dropped(), self.write_failures()))
    }

    fn close(&mut self) -> io::Result<u64> {
        if let Some(s) = &mut self.sink {
            s.queue.close();
            return match s.thread.take() {
                Some(t) => t
                    .join()
                    .map_err(|_| io::Error::other("output delivery thread panicked")),
                None => Ok(0),
            };
        }
        drop(self.tx.take());
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| io::Error::other("output writer thread panicked"))?,
            None => Ok(0),
        }
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_all_lines_in_order() {
        let dir = std::env::temp_dir().join(format!("osprey-lw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.log");
        let w = LineWriter::create(&path).unwrap();
        for i in 0..10_000 {
            w.write_line(format!("line {i}").into_bytes()).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 10_000);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 10_000);
        assert_eq!(lines[9_999], "line 9999");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reopens_on_a_new_generation() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let dir = std::env::temp_dir().join(format!("osprey-lwr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("eve.json");
        let counter = Arc::new(AtomicU64::new(0));
        let c = counter.clone();
        let w = LineWriter::create_reopening(&path, Arc::new(move || c.load(Ordering::SeqCst)))
            .unwrap();
        w.write_line(b"before".to_vec()).unwrap();
        // Rotated: moved away, then the reopen is asked for.
        std::thread::sleep(REOPEN_IDLE_CHECK * 2);
        let rotated = dir.join("eve.json.1");
        std::fs::rename(&path, &rotated).unwrap();
        counter.fetch_add(1, Ordering::SeqCst);
        let t = std::time::Instant::now();
        while !path.exists() {
            assert!(t.elapsed() < Duration::from_secs(10), "not reopened");
            std::thread::sleep(Duration::from_millis(10));
        }
        w.write_line(b"after".to_vec()).unwrap();
        assert_eq!(w.finish().unwrap(), 2);
        assert_eq!(std::fs::read_to_string(&rotated).unwrap(), "before\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "after\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_that_is_always_full_loses_records_whole_and_never_stops() {
        // /dev/full fails every write with ENOSPC.
        let w = LineWriter::open(
            &SinkSpec::File {
                path: "/dev/full".into(),
                append: true,
            },
            None,
        )
        .unwrap();
        for i in 0..5_000 {
            w.write_line(format!("record {i}").into_bytes()).unwrap();
        }
        let t = std::time::Instant::now();
        while w.dropped() < 5_000 {
            assert!(t.elapsed() < Duration::from_secs(10), "{}", w.dropped());
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(w.write_failures() >= 1);
        assert_eq!(w.finish().unwrap(), 0);
    }

    /// A small tmpfs fills up: records are dropped whole (no torn line), and writing
    /// resumes once space is freed. Needs root (mount); skipped otherwise.
    #[test]
    fn a_full_disk_drops_whole_records_and_writing_resumes() {
        let dir = std::env::temp_dir().join(format!("osprey-full-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("skipped: cannot mount a tmpfs here (needs root)");
            assert!(
                std::env::var_os("OSPREY_REQUIRE_NETNS").is_none(),
                "OSPREY_REQUIRE_NETNS is set: root is expected"
            );
            return;
        }
        let unmount = || {
            let _ = std::process::Command::new("umount").arg(&dir).status();
            let _ = std::fs::remove_dir_all(&dir);
        };
        let filler = dir.join("filler");
        let path = dir.join("eve.json");
        // Leave about 8 KiB free.
        std::fs::write(&filler, vec![0u8; 56 * 1024]).unwrap();
        let w = LineWriter::open(
            &SinkSpec::File {
                path: path.clone(),
                append: true,
            },
            None,
        )
        .unwrap();
        let record = |i: usize| format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(90));
        for i in 0..2_000 {
            w.write_line(record(i).into_bytes()).unwrap();
        }
        let t = std::time::Instant::now();
        while w.dropped() == 0 {
            assert!(t.elapsed() < Duration::from_secs(10), "nothing dropped");
            std::thread::sleep(Duration::from_millis(10));
        }
        // The writer works through the queued records (filling the disk as they come)
        // before space returns: until its drop count stays still (how long that takes
        // depends on the machine's load).
        let mut last = w.dropped();
        let t = std::time::Instant::now();
        loop {
            std::thread::sleep(REOPEN_IDLE_CHECK * 3);
            let now = w.dropped();
            if now == last || t.elapsed() > Duration::from_secs(20) {
                break;
            }
            last = now;
        }
        // Space returns: later records are written again.
        std::fs::remove_file(&filler).unwrap();
        std::thread::sleep(REOPEN_IDLE_CHECK * 2);
        for i in 2_000..2_010 {
            w.write_line(record(i).into_bytes()).unwrap();
        }
        let dropped = w.dropped();
        let written = w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        unmount();
        assert_eq!(written + dropped, 2_010);
        assert_eq!(text.lines().count() as u64, written);
        for line in text.lines() {
            serde_json::from_str::<serde_json::Value>(line).expect("every line whole");
        }
        assert!(text.contains("\"n\":2009,"), "writing resumed");
    }
}

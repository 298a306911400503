//! A line writer that runs on its own thread, so slow disks never stall a worker; or,
//! for a socket destination, hands lines to its bounded buffer and delivery thread
//! ([`crate::sink`]).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
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

/// The writer thread of [`LineWriter::create_reopening`].
fn write_reopening(
    file: File,
    path: &Path,
    rx: &Receiver<Vec<u8>>,
    generation: &(dyn Fn() -> u64 + Send + Sync),
) -> io::Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 16, file);
    let mut seen = generation();
    let (mut lines, mut since_check) = (0u64, 0u64);
    loop {
        let idle = match rx.recv_timeout(REOPEN_IDLE_CHECK) {
            Ok(mut line) => {
                line.push(b'\n');
                w.write_all(&line)?;
                lines += 1;
                since_check += 1;
                false
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if idle {
            // Nothing queued: what was written becomes visible (`tail -f`, stats.log).
            w.flush()?;
        }
        if idle || since_check >= REOPEN_CHECK_LINES {
            since_check = 0;
            let now = generation();
            if now != seen {
                seen = now;
                w.flush()?;
                match std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    Ok(file) => w = BufWriter::with_capacity(1 << 16, file),
                    // Losing the lines would be worse than writing them where they went.
                    Err(e) => tracing::error!(
                        "cannot reopen {}: {e}; writing on to the file as it was opened",
                        path.display()
                    ),
                }
            }
        }
    }
    w.flush()?;
    Ok(lines)
}

/// Appends lines to a file from a background thread, or sends them to a socket
/// destination (see [`crate::sink`]).
pub struct LineWriter {
    tx: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<u64>>>,
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
        let thread = std::thread::Builder::new()
            .name("osprey-output".into())
            .spawn(move || match reopen {
                None => {
                    let mut w = BufWriter::with_capacity(1 << 16, file);
                    let mut lines = 0u64;
                    for mut line in rx {
                        line.push(b'\n');
                        w.write_all(&line)?;
                        lines += 1;
                    }
                    w.flush()?;
                    Ok(lines)
                }
                Some(generation) => write_reopening(file, &path, &rx, &*generation),
            })?;
        Ok(LineWriter {
            tx: Some(tx),
            thread: Some(thread),
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
    /// refused them, or they were left when it closed. Always 0 for a file.
    pub fn dropped(&self) -> u64 {
        self.sink.as_ref().map_or(0, |s| s.queue.counts.dropped())
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
}

//! A line writer that runs on its own thread, so slow disks never stall a worker.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Lines queued before a producer waits for the writer (bounded memory).
const QUEUE_LINES: usize = 4096;

/// Appends lines to a file from a background thread.
pub struct LineWriter {
    tx: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<u64>>>,
}

impl LineWriter {
    /// Creates (truncates) `path` and starts the writer thread.
    pub fn create(path: &Path) -> io::Result<LineWriter> {
        let file = File::create(path)?;
        let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE_LINES);
        let thread = std::thread::Builder::new()
            .name("osprey-output".into())
            .spawn(move || {
                let mut w = BufWriter::with_capacity(1 << 16, file);
                let mut lines = 0u64;
                for mut line in rx {
                    line.push(b'\n');
                    w.write_all(&line)?;
                    lines += 1;
                }
                w.flush()?;
                Ok(lines)
            })?;
        Ok(LineWriter {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// Queues one line (without its newline).
    pub fn write_line(&self, line: Vec<u8>) -> io::Result<()> {
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

    /// Flushes and closes the file; returns the number of lines written.
    pub fn finish(mut self) -> io::Result<u64> {
        self.close()
    }

    fn close(&mut self) -> io::Result<u64> {
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
}

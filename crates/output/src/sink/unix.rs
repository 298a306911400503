//! Unix-socket destinations: `unix_stream` (a connected stream, one newline-terminated
//! line per record) and `unix_dgram` (one datagram per record, newline-terminated too),
//! as Suricata 7.0.10's eve-log filetypes write them.

use std::io::{self, Write};
use std::os::unix::net::{UnixDatagram, UnixStream};
use std::path::PathBuf;

use super::deliver::{Sent, Transport};
use super::SinkLimits;

/// Records written per stream write (a batch of lines, sent in as few writes as the
/// socket takes).
const STREAM_BATCH: usize = 256;

/// Whether an error on a datagram says that this one record can never be sent (too
/// big), rather than that the listener is away.
pub(crate) fn record_refused(e: &io::Error) -> bool {
    // EMSGSIZE: the message is larger than the socket allows.
    e.raw_os_error() == Some(90)
}

/// `filetype: unix_stream`.
pub(crate) struct StreamSink {
    path: PathBuf,
    conn: Option<UnixStream>,
    buf: Vec<u8>,
}

impl StreamSink {
    pub(crate) fn new(path: PathBuf) -> StreamSink {
        StreamSink {
            path,
            conn: None,
            buf: Vec::new(),
        }
    }
}

impl Transport for StreamSink {
    fn batch(&self) -> usize {
        STREAM_BATCH
    }

    fn connect(&mut self, limits: &SinkLimits) -> io::Result<()> {
        let s = UnixStream::connect(&self.path)?;
        s.set_write_timeout(Some(limits.io_timeout))?;
        self.conn = Some(s);
        Ok(())
    }

    fn send(&mut self, records: &[Vec<u8>]) -> Sent {
        let Some(conn) = self.conn.as_mut() else {
            return Sent {
                done: 0,
                refused: 0,
                broken: Some(io::ErrorKind::NotConnected.into()),
            };
        };
        self.buf.clear();
        let mut ends = Vec::with_capacity(records.len());
        for r in records {
            self.buf.extend_from_slice(r);
            self.buf.push(b'\n');
            ends.push(self.buf.len());
        }
        let mut off = 0;
        while off < self.buf.len() {
            match conn.write(&self.buf[off..]) {
                Ok(0) => {
                    return Sent {
                        done: ends.partition_point(|&e| e <= off),
                        refused: 0,
                        broken: Some(io::ErrorKind::WriteZero.into()),
                    }
                }
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A record cut short goes again whole on the next connection (a new
                // stream: the reader sees a fresh start).
                Err(e) => {
                    return Sent {
                        done: ends.partition_point(|&e| e <= off),
                        refused: 0,
                        broken: Some(e),
                    }
                }
            }
        }
        Sent::all(records.len())
    }

    fn disconnect(&mut self) {
        self.conn = None;
    }
}

/// Sends each record as one datagram on `sock`; what a datagram destination does.
pub(crate) fn send_datagrams(
    sock: Option<&UnixDatagram>,
    records: &[Vec<u8>],
    mut frame: impl FnMut(&[u8]) -> Vec<u8>,
) -> Sent {
    let Some(sock) = sock else {
        return Sent {
            done: 0,
            refused: 0,
            broken: Some(io::ErrorKind::NotConnected.into()),
        };
    };
    let mut refused = 0;
    for (i, r) in records.iter().enumerate() {
        let msg = frame(r);
        loop {
            match sock.send(&msg) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if record_refused(&e) => {
                    if refused == 0 {
                        tracing::warn!("datagram of {} bytes refused: {e}; dropped", msg.len());
                    }
                    refused += 1;
                    break;
                }
                Err(e) => {
                    return Sent {
                        done: i,
                        refused,
                        broken: Some(e),
                    }
                }
            }
        }
    }
    Sent {
        done: records.len(),
        refused,
        broken: None,
    }
}

/// Connects an unbound datagram socket to `path`.
pub(crate) fn connect_datagram(
    path: &std::path::Path,
    limits: &SinkLimits,
) -> io::Result<UnixDatagram> {
    let s = UnixDatagram::unbound()?;
    s.connect(path)?;
    // A listener that does not read fills its queue: wait this long, then treat it as
    // gone (records stay buffered).
    s.set_write_timeout(Some(limits.io_timeout))?;
    Ok(s)
}

/// `filetype: unix_dgram`.
pub(crate) struct DgramSink {
    path: PathBuf,
    conn: Option<UnixDatagram>,
}

impl DgramSink {
    pub(crate) fn new(path: PathBuf) -> DgramSink {
        DgramSink { path, conn: None }
    }
}

impl Transport for DgramSink {
    fn batch(&self) -> usize {
        STREAM_BATCH
    }

    fn connect(&mut self, limits: &SinkLimits) -> io::Result<()> {
        self.conn = Some(connect_datagram(&self.path, limits)?);
        Ok(())
    }

    fn send(&mut self, records: &[Vec<u8>]) -> Sent {
        send_datagrams(self.conn.as_ref(), records, |r| {
            let mut m = Vec::with_capacity(r.len() + 1);
            m.extend_from_slice(r);
            m.push(b'\n');
            m
        })
    }

    fn disconnect(&mut self) {
        self.conn = None;
    }
}

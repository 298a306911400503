//! Where an output's lines go: suricata.yaml's `filetype` of an `eve-log` output
//! (`regular`, `unix_stream`, `unix_dgram`, `syslog`, `redis`) with its settings.
//! [`LineWriter::open`](crate::LineWriter::open) starts a writer on one.
//!
//! Files are written by the writer's own thread. Every socket destination shares one
//! failure contract: producers hand records to a bounded in-memory buffer
//! ([`SinkLimits::buffer_records`] records or [`SinkLimits::buffer_bytes`] bytes) and
//! never wait on the destination; a delivery thread sends them. While the destination
//! is away (not listening, connection lost, not reading) records stay buffered and the
//! thread reconnects with backoff ([`SinkLimits::backoff_min`] doubling up to
//! [`SinkLimits::backoff_max`]); records arriving while the buffer is full are dropped
//! and counted ([`LineWriter::dropped`](crate::LineWriter::dropped)); delivery resumes,
//! oldest record first, when the destination is back. At shutdown the thread keeps
//! trying for [`SinkLimits::linger`], then counts what is left as dropped.

mod deliver;
mod queue;
mod redis;
pub mod syslog;
mod unix;

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub(crate) use queue::Queue;
pub use queue::SinkCounts;

/// One output's destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SinkSpec {
    /// `filetype: regular`: a file, appended to (`append: yes`, the default) or
    /// truncated when opened.
    File {
        /// The file.
        path: PathBuf,
        /// Append to what the file holds (Suricata's default) rather than truncate it.
        append: bool,
    },
    /// `filetype: unix_stream`: a connected Unix stream socket, one line per record.
    UnixStream {
        /// The socket's path (`filename`, relative to the log directory).
        path: PathBuf,
    },
    /// `filetype: unix_dgram`: a Unix datagram socket, one datagram per record.
    UnixDgram {
        /// The socket's path.
        path: PathBuf,
    },
    /// `filetype: syslog`: one syslog message per record.
    Syslog {
        /// `identity` (default `suricata`).
        identity: String,
        /// `facility` (a name of [`syslog::facility_code`]). Suricata 7.0.10 uses
        /// `local0` when the key is absent (the stock file's commented `local5` is not
        /// the default).
        facility: String,
        /// `level` (a name of [`syslog::level_code`]). The configuration's default is
        /// `Info`. Suricata 7.0.10 sends severity 0 (`Emergency`) when the key is
        /// absent, which syslog daemons broadcast to every terminal: a difference
        /// Osprey keeps on purpose.
        level: String,
    },
    /// `filetype: redis`.
    Redis(RedisSpec),
}

/// How records are handed to Redis (`redis: mode:`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RedisMode {
    /// `list` / `lpush` (the default): `LPUSH key record`.
    #[default]
    Lpush,
    /// `rpush`: `RPUSH key record`.
    Rpush,
    /// `channel` / `publish`: `PUBLISH key record`.
    Publish,
}

impl RedisMode {
    /// The mode of a `mode:` value (`list`, `lpush`, `rpush`, `channel`, `publish`).
    pub fn parse(s: &str) -> Option<RedisMode> {
        Some(match s.to_ascii_lowercase().as_str() {
            "list" | "lpush" => RedisMode::Lpush,
            "rpush" => RedisMode::Rpush,
            "channel" | "publish" => RedisMode::Publish,
            _ => return None,
        })
    }
}

/// The `redis:` settings of an `eve-log` output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisSpec {
    /// `server` (default `127.0.0.1`).
    pub server: String,
    /// `port` (default 6379).
    pub port: u16,
    /// `mode`.
    pub mode: RedisMode,
    /// `key`: the list or channel (default `suricata`).
    pub key: String,
    /// `pipelining: batch-size` when `pipelining: enabled: yes`: records sent per round
    /// trip; `None` sends each record as it comes.
    pub pipelining: Option<usize>,
    /// The `host` added to each record: the configuration's `sensor-name`; `None`
    /// writes the machine's host name (as Suricata for this filetype).
    pub host: Option<String>,
}

impl Default for RedisSpec {
    fn default() -> Self {
        RedisSpec {
            server: "127.0.0.1".into(),
            port: 6379,
            mode: RedisMode::Lpush,
            key: "suricata".into(),
            pipelining: None,
            host: None,
        }
    }
}

impl SinkSpec {
    /// Suricata's name of this destination's `filetype`.
    pub fn filetype(&self) -> &'static str {
        match self {
            SinkSpec::File { .. } => "regular",
            SinkSpec::UnixStream { .. } => "unix_stream",
            SinkSpec::UnixDgram { .. } => "unix_dgram",
            SinkSpec::Syslog { .. } => "syslog",
            SinkSpec::Redis(_) => "redis",
        }
    }
}

/// The bounds and timings of a socket destination (see the [module](self) docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkLimits {
    /// Records buffered at most while the destination is slow or away.
    pub buffer_records: usize,
    /// Bytes of records buffered at most.
    pub buffer_bytes: usize,
    /// First wait before connecting again after a failure.
    pub backoff_min: Duration,
    /// Longest wait between connection attempts.
    pub backoff_max: Duration,
    /// With Redis pipelining, how long a part batch waits for more records before it
    /// goes anyway.
    pub flush_idle: Duration,
    /// How long a closing sink keeps trying to deliver what it holds.
    pub linger: Duration,
    /// Connect, write and reply timeout: a destination that takes longer counts as
    /// gone (records stay buffered, the connection is made again).
    pub io_timeout: Duration,
}

impl Default for SinkLimits {
    fn default() -> Self {
        SinkLimits {
            buffer_records: 100_000,
            buffer_bytes: 64 << 20,
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_secs(5),
            flush_idle: Duration::from_millis(50),
            linger: Duration::from_secs(2),
            io_timeout: Duration::from_secs(2),
        }
    }
}

/// How [`LineWriter::open_with`](crate::LineWriter::open_with) starts a destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkOptions {
    /// Bounds and timings of socket destinations.
    pub limits: SinkLimits,
    /// The syslog socket: `$OSPREY_SYSLOG_SOCKET` ([`syslog::SYSLOG_SOCKET_ENV`]) when
    /// set, else `/dev/log`.
    pub syslog_socket: PathBuf,
}

impl Default for SinkOptions {
    fn default() -> Self {
        SinkOptions {
            limits: SinkLimits::default(),
            syslog_socket: std::env::var_os(syslog::SYSLOG_SOCKET_ENV)
                .filter(|v| !v.is_empty())
                .map_or_else(
                    || PathBuf::from(syslog::DEFAULT_SYSLOG_SOCKET),
                    PathBuf::from,
                ),
        }
    }
}

/// A running socket destination: its buffer and its delivery thread.
pub(crate) struct Running {
    pub queue: Arc<Queue>,
    /// Taken when the writer closes.
    pub thread: Option<JoinHandle<u64>>,
}

/// Starts the delivery thread of a socket destination (a file is written by the
/// writer's own thread: `InvalidInput`).
pub(crate) fn start(spec: &SinkSpec, opts: &SinkOptions) -> std::io::Result<Running> {
    let (transport, name): (Box<dyn deliver::Transport>, String) = match spec {
        SinkSpec::File { .. } => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a file is not a socket destination",
            ))
        }
        SinkSpec::UnixStream { path } => (
            Box::new(unix::StreamSink::new(path.clone())),
            format!("unix_stream {}", path.display()),
        ),
        SinkSpec::UnixDgram { path } => (
            Box::new(unix::DgramSink::new(path.clone())),
            format!("unix_dgram {}", path.display()),
        ),
        SinkSpec::Syslog {
            identity,
            facility,
            level,
        } => (
            Box::new(syslog::SyslogSink::new(
                opts.syslog_socket.clone(),
                identity,
                facility,
                level,
            )?),
            format!("syslog {}", opts.syslog_socket.display()),
        ),
        SinkSpec::Redis(r) => (
            Box::new(redis::RedisSink::new(r.clone())),
            format!("redis {}:{} {}", r.server, r.port, r.key),
        ),
    };
    let queue = Arc::new(Queue::new(opts.limits.clone(), name));
    let (q, limits) = (queue.clone(), opts.limits.clone());
    let thread = std::thread::Builder::new()
        .name("osprey-sink".into())
        .spawn(move || deliver::run(q, transport, limits))?;
    Ok(Running {
        queue,
        thread: Some(thread),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_syslog_socket_comes_from_the_environment() {
        // The only test of this crate that reads or sets the variable.
        std::env::set_var(syslog::SYSLOG_SOCKET_ENV, "/tmp/osprey-test-log");
        assert_eq!(
            SinkOptions::default().syslog_socket,
            PathBuf::from("/tmp/osprey-test-log")
        );
        std::env::set_var(syslog::SYSLOG_SOCKET_ENV, "");
        assert_eq!(
            SinkOptions::default().syslog_socket,
            PathBuf::from("/dev/log")
        );
        std::env::remove_var(syslog::SYSLOG_SOCKET_ENV);
        assert_eq!(
            SinkOptions::default().syslog_socket,
            PathBuf::from("/dev/log")
        );
    }

    #[test]
    fn redis_modes_have_suricatas_aliases() {
        assert_eq!(RedisMode::parse("list"), Some(RedisMode::Lpush));
        assert_eq!(RedisMode::parse("LPUSH"), Some(RedisMode::Lpush));
        assert_eq!(RedisMode::parse("rpush"), Some(RedisMode::Rpush));
        assert_eq!(RedisMode::parse("channel"), Some(RedisMode::Publish));
        assert_eq!(RedisMode::parse("publish"), Some(RedisMode::Publish));
        assert_eq!(RedisMode::parse("stream"), None);
    }
}

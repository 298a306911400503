//! Where an output's lines go: suricata.yaml's `filetype` of an `eve-log` output
//! (`regular`, `unix_stream`, `unix_dgram`, `syslog`, `redis`) with its settings.
//! [`LineWriter::open`](crate::LineWriter::open) starts a writer on one.

use std::path::PathBuf;

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
        /// `facility` (default `local5`).
        facility: String,
        /// `level` (default `Info`).
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
}

impl Default for RedisSpec {
    fn default() -> Self {
        RedisSpec {
            server: "127.0.0.1".into(),
            port: 6379,
            mode: RedisMode::Lpush,
            key: "suricata".into(),
            pipelining: None,
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

#[cfg(test)]
mod tests {
    use super::*;

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

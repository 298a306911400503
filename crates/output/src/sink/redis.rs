//! `filetype: redis`: each record is `LPUSH`ed, `RPUSH`ed or `PUBLISH`ed to `key` as
//! `mode` says, speaking RESP over TCP. Without pipelining one command goes per round
//! trip; with it, up to `batch-size` commands go in one write and their replies are
//! read together (a part batch goes when no record came for
//! [`SinkLimits::flush_idle`](super::SinkLimits::flush_idle), and at shutdown).
//!
//! As Suricata 7.0.10 does for this filetype (and no other), each record gets the
//! machine's host name as a last top-level key, `"host":"NAME"`; with a `sensor-name`
//! ([`RedisSpec::host`]) that name instead (once).
//!
//! A record counts as delivered when its reply came back. A connection lost before
//! that sends the unanswered records again on the next one (at least once: a server
//! that answered nothing may have stored some of them).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

use super::deliver::{Sent, Transport};
use super::{RedisMode, RedisSpec, SinkLimits};

/// Longest reply line read (a status, error or length line).
const MAX_LINE: usize = 64 * 1024;
/// Nesting of arrays in a reply beyond which it is refused.
const MAX_DEPTH: usize = 8;
/// Longest bulk string kept from a reply.
const MAX_BULK: usize = 512 * 1024 * 1024;

/// One RESP reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// `+OK`.
    Status(String),
    /// `-ERR ...`.
    Error(String),
    /// `:n`.
    Int(i64),
    /// `$n` (`None`: the null bulk string).
    Bulk(Option<Vec<u8>>),
    /// `*n` (`None`: the null array).
    Array(Option<Vec<Reply>>),
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Reads one line without its CRLF, refusing one longer than [`MAX_LINE`].
fn read_line(r: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    let n = r.take(MAX_LINE as u64 + 2).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    if !line.ends_with(b"\r\n") {
        return Err(bad("redis reply line too long or cut short"));
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).map_err(|_| bad("redis reply line is not UTF-8"))
}

fn read_len(s: &str) -> io::Result<i64> {
    s.parse::<i64>()
        .map_err(|_| bad(format!("redis reply length {s:?}")))
}

/// Reads one reply.
pub(crate) fn read_reply(r: &mut impl BufRead) -> io::Result<Reply> {
    read_nested(r, 0)
}

fn read_nested(r: &mut impl BufRead, depth: usize) -> io::Result<Reply> {
    let line = read_line(r)?;
    let (kind, rest) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
    Ok(match kind {
        "+" => Reply::Status(rest.to_owned()),
        "-" => Reply::Error(rest.to_owned()),
        ":" => Reply::Int(read_len(rest)?),
        "$" => match read_len(rest)? {
            -1 => Reply::Bulk(None),
            n if n < 0 || n as u64 > MAX_BULK as u64 => {
                return Err(bad(format!("redis bulk length {n}")))
            }
            n => {
                let mut v = Vec::new();
                r.take(n as u64).read_to_end(&mut v)?;
                let mut crlf = [0u8; 2];
                r.read_exact(&mut crlf)?;
                if v.len() as i64 != n || crlf != *b"\r\n" {
                    return Err(bad("redis bulk string cut short"));
                }
                Reply::Bulk(Some(v))
            }
        },
        "*" => match read_len(rest)? {
            -1 => Reply::Array(None),
            n if n < 0 => return Err(bad(format!("redis array length {n}"))),
            _ if depth >= MAX_DEPTH => return Err(bad("redis reply nested too deep")),
            n => {
                let mut v = Vec::new();
                for _ in 0..n {
                    v.push(read_nested(r, depth + 1)?);
                }
                Reply::Array(Some(v))
            }
        },
        _ => return Err(bad(format!("redis reply {line:?}"))),
    })
}

/// Appends one command (an array of bulk strings) in RESP.
pub(crate) fn encode(out: &mut Vec<u8>, args: &[&[u8]]) {
    out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

/// The machine's host name (`/proc/sys/kernel/hostname`, else `/etc/hostname`).
pub(crate) fn host_name() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_owned())
        .find(|s| !s.is_empty())
}

/// `record` with `,"host":HOST` (a JSON string) before its closing brace; a record
/// that is not a JSON object (no closing brace) is left as it is.
fn with_host<'a>(record: &'a [u8], host: &[u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    let body = record.trim_ascii_end();
    let Some(inner) = body.strip_suffix(b"}") else {
        return record;
    };
    scratch.clear();
    scratch.extend_from_slice(inner);
    if !inner.trim_ascii_end().ends_with(b"{") {
        scratch.push(b',');
    }
    scratch.extend_from_slice(b"\"host\":");
    scratch.extend_from_slice(host);
    scratch.push(b'}');
    scratch
}

/// The Redis destination.
pub(crate) struct RedisSink {
    spec: RedisSpec,
    conn: Option<(TcpStream, BufReader<TcpStream>)>,
    buf: Vec<u8>,
    /// The sensor or host name as a JSON string, added to each record.
    host: Option<Vec<u8>>,
    /// An error reply was logged (one warning per run).
    warned: bool,
}

impl RedisSink {
    pub(crate) fn new(spec: RedisSpec) -> RedisSink {
        let host = spec.host.clone().or_else(host_name);
        RedisSink {
            spec,
            conn: None,
            buf: Vec::new(),
            host: host.map(|h| serde_json::Value::from(h).to_string().into_bytes()),
            warned: false,
        }
    }

    fn command(&self) -> &'static [u8] {
        match self.spec.mode {
            RedisMode::Lpush => b"LPUSH",
            RedisMode::Rpush => b"RPUSH",
            RedisMode::Publish => b"PUBLISH",
        }
    }
}

impl Transport for RedisSink {
    fn batch(&self) -> usize {
        self.spec.pipelining.unwrap_or(1).max(1)
    }

    fn gather(&self) -> bool {
        self.spec.pipelining.is_some()
    }

    fn connect(&mut self, limits: &SinkLimits) -> io::Result<()> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
        for addr in (self.spec.server.as_str(), self.spec.port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, limits.io_timeout) {
                Ok(s) => {
                    s.set_nodelay(true)?;
                    s.set_read_timeout(Some(limits.io_timeout))?;
                    s.set_write_timeout(Some(limits.io_timeout))?;
                    let r = BufReader::new(s.try_clone()?);
                    self.conn = Some((s, r));
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn send(&mut self, records: &[Vec<u8>]) -> Sent {
        let cmd = self.command();
        let Some((w, r)) = self.conn.as_mut() else {
            return Sent {
                done: 0,
                refused: 0,
                broken: Some(io::ErrorKind::NotConnected.into()),
            };
        };
        self.buf.clear();
        let mut scratch = Vec::new();
        for rec in records {
            let value = match &self.host {
                Some(h) => with_host(rec, h, &mut scratch),
                None => rec,
            };
            encode(&mut self.buf, &[cmd, self.spec.key.as_bytes(), value]);
        }
        if let Err(e) = w.write_all(&self.buf) {
            return Sent {
                done: 0,
                refused: 0,
                broken: Some(e),
            };
        }
        let mut refused = 0;
        for i in 0..records.len() {
            match read_reply(r) {
                Ok(Reply::Error(e)) => {
                    if !self.warned {
                        self.warned = true;
                        tracing::warn!("redis refused a record: {e} (counted as dropped)");
                    }
                    refused += 1;
                }
                Ok(_) => {}
                Err(e) => {
                    return Sent {
                        done: i,
                        refused,
                        broken: Some(e),
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

    fn disconnect(&mut self) {
        self.conn = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(b: &[u8]) -> io::Result<Reply> {
        read_reply(&mut io::Cursor::new(b))
    }

    #[test]
    fn replies() {
        assert_eq!(parse(b":12\r\n").unwrap(), Reply::Int(12));
        assert_eq!(parse(b"+OK\r\n").unwrap(), Reply::Status("OK".into()));
        assert_eq!(
            parse(b"-WRONGTYPE x\r\n").unwrap(),
            Reply::Error("WRONGTYPE x".into())
        );
        assert_eq!(parse(b"$-1\r\n").unwrap(), Reply::Bulk(None));
        assert_eq!(
            parse(b"*2\r\n$3\r\nabc\r\n:1\r\n").unwrap(),
            Reply::Array(Some(vec![
                Reply::Bulk(Some(b"abc".to_vec())),
                Reply::Int(1)
            ]))
        );
    }

    #[test]
    fn hostile_replies_are_errors() {
        for b in [
            &b""[..],
            b"?what\r\n",
            b":x\r\n",
            b"$5\r\nab\r\n",
            b"$-7\r\n",
            b"$99999999999\r\n",
            b"*-2\r\n",
            b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
            b"+no end",
        ] {
            assert!(parse(b).is_err(), "{:?}", String::from_utf8_lossy(b));
        }
        let long = vec![b'+'; MAX_LINE + 10];
        assert!(parse(&long).is_err());
    }

    #[test]
    fn sensor_name_replaces_the_host_name() {
        let named = RedisSink::new(RedisSpec {
            host: Some("probe \"1\"".into()),
            ..RedisSpec::default()
        });
        assert_eq!(named.host.as_deref(), Some(&b"\"probe \\\"1\\\"\""[..]));
        let plain = RedisSink::new(RedisSpec::default());
        let want = host_name().map(|h| serde_json::Value::from(h).to_string().into_bytes());
        assert_eq!(plain.host, want);
    }

    #[test]
    fn host_goes_last_in_objects_only() {
        let mut s = Vec::new();
        let h = b"\"vm\"";
        assert_eq!(
            with_host(b"{\"a\":1}", h, &mut s),
            b"{\"a\":1,\"host\":\"vm\"}"
        );
        assert_eq!(with_host(b"{ }\n", h, &mut s), b"{ \"host\":\"vm\"}");
        assert_eq!(with_host(b"plain", h, &mut s), b"plain");
        assert_eq!(with_host(b"", h, &mut s), b"");
    }

    #[test]
    fn encodes_commands() {
        let mut v = Vec::new();
        encode(&mut v, &[b"LPUSH", b"k", b"{\"a\":1}"]);
        assert_eq!(v, b"*3\r\n$5\r\nLPUSH\r\n$1\r\nk\r\n$7\r\n{\"a\":1}\r\n");
    }
}

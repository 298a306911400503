//! Helpers of the sink tests: temporary directories, waiting, and a `redis-server` the
//! test starts (skipped with a printed reason when it is not installed, a failure when
//! `OSPREY_REQUIRE_REDIS=1`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use output::{SinkLimits, SinkOptions};

/// A fresh directory under the system's temporary directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("osprey-sink-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Sink options with a small buffer and quick retries, so an outage test takes a
/// fraction of a second.
pub fn quick(buffer_records: usize) -> SinkOptions {
    SinkOptions {
        limits: SinkLimits {
            buffer_records,
            backoff_min: Duration::from_millis(10),
            backoff_max: Duration::from_millis(100),
            flush_idle: Duration::from_millis(20),
            linger: Duration::from_secs(3),
            ..SinkLimits::default()
        },
        syslog_socket: PathBuf::from("/nonexistent/syslog"),
    }
}

/// Waits (up to 10 s) until `cond` holds.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(10), "timed out: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Record `i` as the tests write it.
pub fn record(i: usize) -> Vec<u8> {
    format!("{{\"event_type\":\"alert\",\"n\":{i}}}").into_bytes()
}

/// Records `range` as strings.
pub fn records(range: std::ops::Range<usize>) -> Vec<String> {
    range
        .map(|i| String::from_utf8(record(i)).unwrap())
        .collect()
}

/// The `redis-server` binary, or `None` (after printing why the test is skipped);
/// panics instead when `OSPREY_REQUIRE_REDIS=1`.
pub fn redis_server() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("redis-server"))
            .find(|b| b.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("OSPREY_REQUIRE_REDIS").as_deref() != Ok("1"),
            "redis-server is not installed and OSPREY_REQUIRE_REDIS=1"
        );
        eprintln!("skipped: redis-server is not installed (apt-get install redis-server)");
    }
    found
}

/// A `redis-server` the test started, in its own directory, saving nothing.
pub struct Redis {
    child: Child,
    /// Its port.
    pub port: u16,
}

impl Redis {
    /// Starts one on `port` (a free one when `None`) and waits until it answers.
    pub fn start(bin: &Path, dir: &Path, port: Option<u16>) -> Redis {
        let port = port.unwrap_or_else(|| {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        });
        let child = Command::new(bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        let r = Redis { child, port };
        wait_for("redis-server answers PING", || {
            TcpStream::connect(("127.0.0.1", port))
                .ok()
                .and_then(|s| Client::on(s).cmd(&["PING"]).ok())
                .is_some()
        });
        r
    }

    /// A client connection.
    pub fn client(&self) -> Client {
        Client::on(TcpStream::connect(("127.0.0.1", self.port)).unwrap())
    }

    /// Kills it (SIGKILL) and waits for it to be gone.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply, as far as the tests read them.
#[derive(Debug, PartialEq)]
pub enum Val {
    /// `+`, `-` (prefixed with `-`) and `:` replies, as text.
    Text(String),
    /// A bulk string.
    Bulk(Vec<u8>),
    /// An array.
    List(Vec<Val>),
    /// A null.
    Nil,
}

/// A minimal RESP client.
pub struct Client {
    w: TcpStream,
    r: BufReader<TcpStream>,
}

impl Client {
    fn on(s: TcpStream) -> Client {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Client {
            r: BufReader::new(s.try_clone().unwrap()),
            w: s,
        }
    }

    /// Sends a command and reads its reply.
    pub fn cmd(&mut self, args: &[&str]) -> std::io::Result<Val> {
        let mut out = format!("*{}\r\n", args.len());
        for a in args {
            out += &format!("${}\r\n{a}\r\n", a.len());
        }
        self.w.write_all(out.as_bytes())?;
        self.read()
    }

    /// Reads one reply.
    pub fn read(&mut self) -> std::io::Result<Val> {
        let mut line = String::new();
        if self.r.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let line = line.trim_end();
        let (k, rest) = line.split_at(1);
        Ok(match k {
            "+" | ":" => Val::Text(rest.to_owned()),
            "-" => Val::Text(line.to_owned()),
            "$" if rest == "-1" => Val::Nil,
            "$" => {
                let mut v = vec![0; rest.parse::<usize>().unwrap() + 2];
                self.r.read_exact(&mut v)?;
                v.truncate(v.len() - 2);
                Val::Bulk(v)
            }
            "*" => {
                let n: usize = rest.parse().unwrap();
                let mut v = Vec::new();
                for _ in 0..n {
                    v.push(self.read()?);
                }
                Val::List(v)
            }
            _ => panic!("reply {line:?}"),
        })
    }

    /// `LRANGE key 0 -1` as strings.
    pub fn list(&mut self, key: &str) -> Vec<String> {
        match self.cmd(&["LRANGE", key, "0", "-1"]).unwrap() {
            Val::List(v) => v
                .into_iter()
                .map(|e| match e {
                    Val::Bulk(b) => String::from_utf8(b).unwrap(),
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    }
}

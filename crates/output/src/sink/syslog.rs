//! `filetype: syslog`: one message per record, sent as a datagram to the local syslog
//! socket in the RFC 3164 form glibc's `syslog(3)` writes:
//! `<PRI>Mmm dd hh:mm:ss IDENT[PID]: MSG` (local time, the day padded with a space).

use std::io;
use std::os::unix::net::UnixDatagram;
use std::path::PathBuf;

use super::deliver::{Sent, Transport};
use super::unix::{connect_datagram, send_datagrams};
use super::SinkLimits;

/// The local syslog socket.
pub const DEFAULT_SYSLOG_SOCKET: &str = "/dev/log";

/// The environment variable that points the syslog sink at another socket than
/// [`DEFAULT_SYSLOG_SOCKET`] (tests, containers with the socket elsewhere).
pub const SYSLOG_SOCKET_ENV: &str = "OSPREY_SYSLOG_SOCKET";

/// The syslog facility code of a `facility:` name (`kern`, `user`, `mail`, `daemon`,
/// `auth`/`security`, `syslog`, `lpr`, `news`, `uucp`, `cron`, `authpriv`, `ftp`,
/// `local0`..`local7`; any case).
pub fn facility_code(name: &str) -> Option<u8> {
    Some(match name.to_ascii_lowercase().as_str() {
        "kern" => 0,
        "user" => 1,
        "mail" => 2,
        "daemon" => 3,
        "auth" | "security" => 4,
        "syslog" => 5,
        "lpr" => 6,
        "news" => 7,
        "uucp" => 8,
        "cron" => 9,
        "authpriv" => 10,
        "ftp" => 11,
        l => match l.strip_prefix("local")?.parse::<u8>().ok()? {
            n @ 0..=7 => 16 + n,
            _ => return None,
        },
    })
}

/// The syslog severity of a `level:` name (Suricata's `Emergency`, `Alert`,
/// `Critical`, `Error`, `Warning`, `Notice`, `Info`, `Debug`, and syslog's short forms
/// `emerg`, `crit`, `err`, `warn`; any case).
pub fn level_code(name: &str) -> Option<u8> {
    Some(match name.to_ascii_lowercase().as_str() {
        "emergency" | "emerg" => 0,
        "alert" => 1,
        "critical" | "crit" => 2,
        "error" | "err" => 3,
        "warning" | "warn" => 4,
        "notice" => 5,
        "info" => 6,
        "debug" => 7,
        _ => return None,
    })
}

/// The header glibc puts before a message: `<PRI>Mmm dd hh:mm:ss IDENT[PID]: ` with
/// `stamp` in the form of [`syslog_timestamp`](crate::time::syslog_timestamp).
fn header(pri: u16, ident: &str, pid: u32, stamp: &str) -> String {
    format!("<{pri}>{stamp} {ident}[{pid}]: ")
}

/// Now, as [`header`] wants it (local time).
fn now_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    crate::time::syslog_timestamp(secs)
}

/// The syslog destination.
pub(crate) struct SyslogSink {
    socket: PathBuf,
    pri: u16,
    ident: String,
    pid: u32,
    conn: Option<UnixDatagram>,
}

impl SyslogSink {
    /// A sink for `facility`/`level` names, or an `InvalidInput` error naming the one
    /// that is not known.
    pub(crate) fn new(
        socket: PathBuf,
        identity: &str,
        facility: &str,
        level: &str,
    ) -> io::Result<SyslogSink> {
        let bad = |what: &str, v: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("eve-log syslog: unknown {what} {v:?}"),
            )
        };
        let f = facility_code(facility).ok_or_else(|| bad("facility", facility))?;
        let l = level_code(level).ok_or_else(|| bad("level", level))?;
        Ok(SyslogSink {
            socket,
            pri: u16::from(f) * 8 + u16::from(l),
            ident: identity.to_owned(),
            pid: std::process::id(),
            conn: None,
        })
    }
}

impl Transport for SyslogSink {
    fn batch(&self) -> usize {
        256
    }

    fn connect(&mut self, limits: &SinkLimits) -> io::Result<()> {
        self.conn = Some(connect_datagram(&self.socket, limits)?);
        Ok(())
    }

    fn send(&mut self, records: &[Vec<u8>]) -> Sent {
        let head = header(self.pri, &self.ident, self.pid, &now_stamp());
        send_datagrams(self.conn.as_ref(), records, |r| {
            let mut m = Vec::with_capacity(head.len() + r.len());
            m.extend_from_slice(head.as_bytes());
            m.extend_from_slice(r);
            m
        })
    }

    fn disconnect(&mut self) {
        self.conn = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facilities_and_levels() {
        assert_eq!(facility_code("local5"), Some(21));
        assert_eq!(facility_code("LOCAL0"), Some(16));
        assert_eq!(facility_code("local8"), None);
        assert_eq!(facility_code("daemon"), Some(3));
        assert_eq!(facility_code("bogus"), None);
        assert_eq!(level_code("Info"), Some(6));
        assert_eq!(level_code("Emergency"), Some(0));
        assert_eq!(level_code("warning"), Some(4));
        assert_eq!(level_code("loud"), None);
        assert!(SyslogSink::new("/x".into(), "s", "nope", "Info").is_err());
        assert!(SyslogSink::new("/x".into(), "s", "local5", "nope").is_err());
    }

    #[test]
    fn header_as_glibc_writes_it() {
        // local5.info = 21 * 8 + 6.
        assert_eq!(
            header(174, "suricata", 42, "Nov  6 07:08:09"),
            "<174>Nov  6 07:08:09 suricata[42]: "
        );
    }
}

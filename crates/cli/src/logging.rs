//! Osprey's log: one `tracing` subscriber, set up here (library crates only emit
//! `tracing` events), writing to the outputs of the configuration's `logging:` section
//! (console, file, syslog), each with its own level.
//!
//! Suricata has seven levels and `tracing` five; they map as follows (and back, to
//! decide which output shows an event):
//!
//! | Suricata | `tracing` event |
//! |---|---|
//! | Error | `error!` |
//! | Warning | `warn!` |
//! | Notice (the default console level) | `info!` |
//! | Info (`-v`) | `debug!` |
//! | Perf (`-vv`) | `debug!(target: "perf", ...)` |
//! | Config (`-vvv`) | `debug!(target: "config", ...)` |
//! | Debug (`-vvvv`) | `trace!` |
//!
//! `-v` raises the console's level (and that of outputs without a `level` of their own),
//! never lowers it. Console lines keep the binary's `osprey: ` prefix (`osprey: error: `
//! and `osprey: warning: ` for those levels); the file gets Suricata's layout
//! `[pid - thread] timestamp Level: target: message` (UTC timestamps, as EVE's), syslog
//! RFC 3164 datagrams on `/dev/log`. The log file is reopened when the run's
//! [`Control::reopen_generation`] changes (SIGHUP, log rotation).

use engine::{Control, LogLevel, LoggingSettings};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, RwLock};
use tracing::field::{Field, Visit};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;

/// Where the syslog output sends its datagrams.
const SYSLOG_SOCKET: &str = "/dev/log";

/// The outputs the subscriber writes to; replaced whole by [`configure`].
static SINKS: RwLock<Vec<Sink>> = RwLock::new(Vec::new());
/// The run whose reopen requests the log file follows.
static REOPEN: OnceLock<Control> = OnceLock::new();

/// One output and the most verbose level it shows.
struct Sink {
    level: LogLevel,
    target: Target,
}

enum Target {
    Console,
    File(LogFile),
    Syslog(Syslog),
}

/// The Suricata level of an event (see the module's table).
fn level_of(meta: &Metadata<'_>) -> LogLevel {
    match *meta.level() {
        tracing::Level::ERROR => LogLevel::Error,
        tracing::Level::WARN => LogLevel::Warning,
        tracing::Level::INFO => LogLevel::Notice,
        tracing::Level::DEBUG => match meta.target() {
            "perf" => LogLevel::Perf,
            "config" => LogLevel::Config,
            _ => LogLevel::Info,
        },
        tracing::Level::TRACE => LogLevel::Debug,
    }
}

/// Installs the subscriber with the console alone, at the level `-v` given `verbosity`
/// times asks for. Called once, first thing in `main`.
pub fn init(verbosity: u8) {
    set_sinks(vec![Sink {
        level: LogLevel::from_verbosity(verbosity),
        target: Target::Console,
    }]);
    // Only fails when a subscriber is already set (a second call): keep that one.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Osprey));
}

fn set_sinks(sinks: Vec<Sink>) {
    *SINKS.write().unwrap_or_else(|e| e.into_inner()) = sinks;
    tracing::callsite::rebuild_interest_cache();
}

/// Replaces the console-only start with the outputs `settings` name: files are opened
/// here (relative names in `log_dir`), before privileges are dropped; one that cannot
/// be opened is warned about and left out, as Suricata does. With no output
/// listed the console is used, as in Suricata; `daemon` adds the file output (as
/// `osprey.log`) when none is configured, since the console is gone once detached.
pub fn configure(settings: &LoggingSettings, verbosity: u8, log_dir: &Path, daemon: bool) {
    let default = settings.default_level.unwrap_or(LogLevel::Notice);
    // `-v` raises a level, never lowers it; without `-v` the configuration decides.
    let verbose = (verbosity > 0).then(|| LogLevel::from_verbosity(verbosity));
    let level = |own: Option<LogLevel>| {
        own.unwrap_or(default)
            .max(verbose.unwrap_or(LogLevel::Error))
    };
    let mut sinks = Vec::new();
    match &settings.console {
        Some(c) => sinks.push(Sink {
            level: level(c.level),
            target: Target::Console,
        }),
        None if !settings.outputs_listed => sinks.push(Sink {
            level: level(None),
            target: Target::Console,
        }),
        None => {}
    }
    let mut file = settings.file.clone();
    if daemon && file.is_none() {
        file = Some(engine::LoggingFileOutput {
            filename: "osprey.log".into(),
            level: None,
            append: true,
        });
    }
    // As Suricata: an output that cannot be opened is warned about, the others go on.
    let mut problems = Vec::new();
    if let Some(f) = &file {
        match LogFile::open(log_dir.join(&f.filename), f.append) {
            Ok(log) => sinks.push(Sink {
                level: level(f.level),
                target: Target::File(log),
            }),
            Err(e) => problems.push(format!("file output not used: {e}")),
        }
    }
    if let Some(s) = &settings.syslog {
        match Syslog::connect(Path::new(SYSLOG_SOCKET), &s.facility) {
            Ok(sys) => sinks.push(Sink {
                level: level(s.level),
                target: Target::Syslog(sys),
            }),
            Err(e) => problems.push(format!("syslog output not used: {e}")),
        }
    }
    set_sinks(sinks);
    for p in problems {
        tracing::warn!("{p}");
    }
}

/// Back to the console alone (at Notice): for the parent of a detached daemon, whose
/// report must not land in the daemon's log file a second time.
pub fn console_only() {
    set_sinks(vec![Sink {
        level: LogLevel::Notice,
        target: Target::Console,
    }]);
}

/// Makes the log file follow `control`'s reopen requests (SIGHUP): it is reopened
/// before the next line is written after one.
pub fn follow_reopen(control: &Control) {
    let _ = REOPEN.set(control.clone());
}

/// Logs one of `engine::setup`'s notices: a rule or configuration error as an Error,
/// anything else (unsupported rules, ignored keys) as a Warning.
pub fn setup_notice(notice: &str) {
    if notice.contains(": error: ") {
        tracing::error!("{notice}");
    } else {
        tracing::warn!("{notice}");
    }
}

/// Suricata's `-q` is NFQUEUE inline mode, not "quiet": Osprey runs inline on
/// AF_PACKET instead, so the option is refused with the way to do that.
pub fn refuse_nfqueue(queue: Option<&str>) -> Result<(), String> {
    match queue {
        None => Ok(()),
        Some(q) => Err(format!(
            "-q {q}: NFQUEUE inline mode is not supported; run inline with \
             --af-packet-ips IFACE_A:IFACE_B, or --af-packet with `copy-mode: ips` and \
             `copy-iface` in the configuration's af-packet section (Suricata has no quiet \
             option: the console level is logging.outputs.console.level)"
        )),
    }
}

/// The `tracing` layer: formats each event once and hands it to the outputs that show
/// its level.
struct Osprey;

impl<S: Subscriber> Layer<S> for Osprey {
    fn register_callsite(
        &self,
        _meta: &'static Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        // Outputs change at run time (configure): ask `enabled` every time.
        tracing::subscriber::Interest::sometimes()
    }

    fn enabled(&self, meta: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        let level = level_of(meta);
        let sinks = SINKS.read().unwrap_or_else(|e| e.into_inner());
        sinks.iter().any(|s| level <= s.level)
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = level_of(meta);
        let mut msg = Message::default();
        event.record(&mut msg);
        let sinks = SINKS.read().unwrap_or_else(|e| e.into_inner());
        for sink in sinks.iter().filter(|s| level <= s.level) {
            match &sink.target {
                Target::Console => console_line(level, &msg.0),
                Target::File(f) => f.write(level, meta.target(), &msg.0),
                Target::Syslog(s) => s.send(level, &msg.0),
            }
        }
    }
}

/// An event's message followed by its other fields (` key=value`).
#[derive(Default)]
struct Message(String);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.insert_str(0, value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.insert_str(0, &format!("{value:?}"));
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

/// `osprey: [error: |warning: ]message` on standard error (one write per line).
fn console_line(level: LogLevel, msg: &str) {
    let tag = match level {
        LogLevel::Error => "error: ",
        LogLevel::Warning => "warning: ",
        _ => "",
    };
    let line = format!("osprey: {tag}{msg}\n");
    // Standard error closed or full: there is nowhere left to report it.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The log file, reopened on a changed reopen generation.
struct LogFile {
    path: PathBuf,
    state: Mutex<(File, u64)>,
}

impl LogFile {
    fn open(path: PathBuf, append: bool) -> Result<LogFile, String> {
        let file = open_log(&path, append)
            .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?;
        let generation = REOPEN.get().map_or(0, Control::reopen_generation);
        Ok(LogFile {
            path,
            state: Mutex::new((file, generation)),
        })
    }

    fn write(&self, level: LogLevel, target: &str, msg: &str) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let thread = std::thread::current();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let stamp = output::eve_timestamp(now.as_secs() as i64, now.subsec_micros());
        let head = format!(
            "[{} - {}] {stamp} ",
            std::process::id(),
            thread.name().unwrap_or("osprey")
        );
        if let Some(generation) = REOPEN.get().map(Control::reopen_generation) {
            if generation != st.1 {
                st.1 = generation;
                match open_log(&self.path, true) {
                    Ok(f) => st.0 = f,
                    // Keep writing where we were, and say why in that file.
                    Err(e) => {
                        let _ = st.0.write_all(
                            format!(
                                "{head}Error: osprey::logging: cannot reopen {}: {e}\n",
                                self.path.display()
                            )
                            .as_bytes(),
                        );
                    }
                }
            }
        }
        let line = format!("{head}{}: {target}: {msg}\n", level.name());
        // A full disk or a revoked file: the console and syslog still get the line.
        let _ = st.0.write_all(line.as_bytes());
    }
}

fn open_log(path: &Path, append: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.create(true);
    if append {
        o.append(true);
    } else {
        o.write(true).truncate(true);
    }
    o.open(path)
}

/// RFC 3164 datagrams (`<PRI>osprey[PID]: Level: message`) on a unix socket.
struct Syslog {
    socket: UnixDatagram,
    path: PathBuf,
    facility: u8,
}

impl Syslog {
    fn connect(path: &Path, facility: &str) -> Result<Syslog, String> {
        let facility =
            facility_code(facility).ok_or_else(|| format!("unknown facility {facility:?}"))?;
        let socket = UnixDatagram::unbound().map_err(|e| e.to_string())?;
        socket
            .connect(path)
            .map_err(|e| format!("cannot connect to {}: {e}", path.display()))?;
        Ok(Syslog {
            socket,
            path: path.to_owned(),
            facility,
        })
    }

    fn send(&self, level: LogLevel, msg: &str) {
        let severity = match level {
            LogLevel::Error => 3,
            LogLevel::Warning => 4,
            LogLevel::Notice => 5,
            LogLevel::Info => 6,
            _ => 7,
        };
        let pri = u16::from(self.facility) * 8 + severity;
        let line = format!(
            "<{pri}>osprey[{}]: {}: {msg}",
            std::process::id(),
            level.name()
        );
        if self.socket.send(line.as_bytes()).is_err() {
            // The syslog daemon restarted: its socket is a new one.
            if self.socket.connect(&self.path).is_ok() {
                let _ = self.socket.send(line.as_bytes());
            }
        }
    }
}

/// The syslog facility code of a name (`local5` → 21).
fn facility_code(name: &str) -> Option<u8> {
    const NAMES: [&str; 12] = [
        "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
        "authpriv", "ftp",
    ];
    let name = name.trim().to_ascii_lowercase();
    if let Some(k) = NAMES.iter().position(|n| *n == name) {
        return Some(k as u8);
    }
    let n: u8 = name.strip_prefix("local")?.parse().ok()?;
    (n < 8).then_some(16 + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facilities() {
        assert_eq!(facility_code("local5"), Some(21));
        assert_eq!(facility_code("DAEMON"), Some(3));
        assert_eq!(facility_code("local8"), None);
        assert_eq!(facility_code("nope"), None);
    }

    #[test]
    fn syslog_datagrams() {
        let dir = std::env::temp_dir().join(format!("osprey-syslog-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("log.sock");
        let _ = std::fs::remove_file(&path);
        let server = UnixDatagram::bind(&path).unwrap();
        let s = Syslog::connect(&path, "local5").unwrap();
        s.send(LogLevel::Warning, "disk full");
        let mut buf = [0u8; 256];
        let n = server.recv(&mut buf).unwrap();
        let got = String::from_utf8_lossy(&buf[..n]).into_owned();
        // local5 (21) * 8 + warning (4).
        let want = format!("<172>osprey[{}]: Warning: disk full", std::process::id());
        assert_eq!(got, want);
        assert!(Syslog::connect(&path, "bogus").is_err());
        assert!(Syslog::connect(&dir.join("absent"), "user").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn file_lines_and_levels() {
        let dir = std::env::temp_dir().join(format!("osprey-logfile-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("x.log");
        std::fs::write(&path, "old\n").unwrap();
        let f = LogFile::open(path.clone(), false).unwrap();
        f.write(LogLevel::Notice, "osprey", "hello");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("old"), "truncated: {text}");
        assert!(
            text.starts_with(&format!("[{} - ", std::process::id())),
            "{text}"
        );
        assert!(text.ends_with(" Notice: osprey: hello\n"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn nfqueue_is_refused_with_the_alternative() {
        assert!(refuse_nfqueue(None).is_ok());
        let e = refuse_nfqueue(Some("0")).unwrap_err();
        assert!(
            e.contains("--af-packet-ips") && e.contains("copy-mode"),
            "{e}"
        );
    }
}

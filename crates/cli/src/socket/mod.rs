//! The unix command socket, speaking Suricata's protocol so that its client
//! `suricatasc` drives Osprey unchanged.
//!
//! A client greets with `{"version": "0.2"}` (answered `{"return": "OK"}`), then sends
//! `{"command": NAME, "arguments": {...}}` objects; each gets one compact JSON reply
//! followed by a newline (not after a `0.1` greeting, as Suricata). Plain lines
//! (`reload-rules`) are commands too. Bytes that are not JSON where JSON began, or a
//! message over [`framing::MAX_MESSAGE`], get an error reply and the connection is
//! closed; nothing a client sends stops the engine. Each client has its own thread (at
//! most [`MAX_CLIENTS`] at once), so clients do not wait for each other.
//!
//! Where the socket is: `--unix-socket=PATH`; `--unix-socket` alone takes the
//! configuration's `unix-command.filename`, else [`DEFAULT_SOCKET`]; a relative name is
//! under [`STATE_DIR`] (Suricata's rule, with Osprey's directory). Without the option,
//! the configuration's `unix-command.enabled: yes` opens it too (`auto`: live captures
//! only, as Suricata); a socket the configuration asks for that cannot be opened is
//! reported and the run goes on. The file is made with mode 0660 and removed at exit; a
//! stale file is replaced, one another process listens on is an error.

pub mod commands;
pub mod datasets;
pub mod framing;

use crate::args::RunArgs;
use commands::{Context, Reply};
use engine::{Control, EngineConfig, SetupArgs};
use framing::{Frame, FrameError, Framer};
use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Where a relative `unix-command.filename` is put.
pub const STATE_DIR: &str = "/var/run/osprey";
/// The socket of `--unix-socket` given no path and no `unix-command.filename`.
pub const DEFAULT_SOCKET: &str = "/var/run/osprey/osprey-command.socket";
/// Clients served at once; more are answered with an error and closed.
pub const MAX_CLIENTS: usize = 32;

/// The command socket and the metrics endpoint of a run; dropping it closes both.
#[derive(Default)]
pub struct Services {
    _socket: Option<SocketGuard>,
    _metrics: Option<crate::metrics::MetricsGuard>,
}

/// Opens what `args` and the configuration ask for over `ctx`: the command socket and
/// the metrics endpoint. `live` says whether packets come from interfaces (for
/// `unix-command.enabled: auto`).
pub fn start(args: &RunArgs, ctx: Context, live: bool) -> Result<Services, String> {
    let ctx = Arc::new(ctx);
    let socket = match socket_path(
        args.unix_socket.as_deref().map(Path::new),
        ctx.config.as_ref(),
        live,
    ) {
        Some((path, true)) => Some(serve(&path, ctx.clone())?),
        Some((path, false)) => match serve(&path, ctx.clone()) {
            Ok(g) => Some(g),
            Err(e) => {
                tracing::warn!("unix-command: {e}; running without the command socket");
                None
            }
        },
        None => None,
    };
    let metrics = match &args.metrics_listen {
        Some(addr) => Some(crate::metrics::serve(addr, ctx)?),
        None => None,
    };
    Ok(Services {
        _socket: socket,
        _metrics: metrics,
    })
}

/// [`start`] for a `-r`/`-i` run: the context of a run of `config` on `live` (or a file).
pub fn for_run(
    args: &RunArgs,
    control: &Control,
    setup_args: &SetupArgs,
    config: &EngineConfig,
    live: Option<&crate::ops::Live>,
) -> Result<Services, String> {
    let (mode, ifaces) = match live {
        None => ("PCAP_FILE", Vec::new()),
        Some(crate::ops::Live::Passive { iface, .. }) => ("AF_PACKET_DEV", vec![iface.clone()]),
        Some(crate::ops::Live::Inline { pair, .. }) => {
            ("AF_PACKET_DEV", vec![pair.a.clone(), pair.b.clone()])
        }
    };
    let running = args.runmode.clone().unwrap_or_else(|| "workers".into());
    let mut ctx = Context::new(control.clone(), setup_args.clone(), config, running, mode);
    ctx.ifaces = ifaces;
    start(args, ctx, live.is_some())
}

/// The socket to open, and whether the command line asked for it (then failing to open
/// it is an error). `arg` is `--unix-socket`'s value (empty: no path given).
pub fn socket_path(
    arg: Option<&Path>,
    config: Option<&config::Config>,
    live: bool,
) -> Option<(PathBuf, bool)> {
    let filename = config.and_then(|c| c.get_str("unix-command.filename"));
    let place = |name: &str| {
        let p = PathBuf::from(name);
        if p.is_absolute() {
            p
        } else {
            Path::new(STATE_DIR).join(p)
        }
    };
    let configured = || {
        filename
            .as_deref()
            .map_or(PathBuf::from(DEFAULT_SOCKET), place)
    };
    match arg {
        Some(p) if p.as_os_str().is_empty() => Some((configured(), true)),
        Some(p) => Some((p.to_path_buf(), true)),
        None => {
            let enabled = config.and_then(|c| c.get_str("unix-command.enabled"))?;
            let on = match enabled.to_ascii_lowercase().as_str() {
                "yes" | "true" | "on" | "1" => true,
                "auto" => live,
                _ => false,
            };
            on.then(|| (configured(), false))
        }
    }
}

/// Serves commands on the unix socket at `path` until the guard is dropped.
pub fn serve(path: &Path, ctx: Arc<Context>) -> Result<SocketGuard, String> {
    let listener = bind(path)?;
    let done = Arc::new(AtomicBool::new(false));
    let guard = SocketGuard {
        path: path.to_path_buf(),
        done: done.clone(),
    };
    let clients = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("osprey-socket".into())
        .spawn(move || {
            while !done.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => accept(stream, &ctx, &clients),
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        })
        .map_err(|e| format!("socket thread: {e}"))?;
    Ok(guard)
}

/// Binds `path` (mode 0660), replacing a stale socket file; a live one is an error.
fn bind(path: &Path) -> Result<UnixListener, String> {
    let shown = path.display();
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(format!("{shown} exists and is not a socket"));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(format!("{shown}: another process is listening on it"));
        }
        std::fs::remove_file(path).map_err(|e| format!("cannot replace {shown}: {e}"))?;
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let listener = UnixListener::bind(path).map_err(|e| format!("unix socket {shown}: {e}"))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|e| format!("unix socket {shown}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("unix socket {shown}: {e}"))?;
    Ok(listener)
}

/// Gives a connection its thread, or refuses it when too many are open.
fn accept(stream: UnixStream, ctx: &Arc<Context>, clients: &Arc<AtomicUsize>) {
    if clients.fetch_add(1, Ordering::SeqCst) >= MAX_CLIENTS {
        clients.fetch_sub(1, Ordering::SeqCst);
        let mut s = stream;
        let _ = s.set_nonblocking(false);
        let _ = send(&mut s, &Reply::nok("too many clients"), true);
        return;
    }
    let (ctx, count) = (ctx.clone(), clients.clone());
    let spawned = std::thread::Builder::new()
        .name("osprey-socket-client".into())
        .spawn(move || {
            let _ = Client::new(&ctx).serve(stream);
            count.fetch_sub(1, Ordering::SeqCst);
        });
    if spawned.is_err() {
        clients.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Removes the socket file when the run ends.
pub struct SocketGuard {
    path: PathBuf,
    done: Arc<AtomicBool>,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        let _ = std::fs::remove_file(&self.path);
    }
}

fn send(out: &mut UnixStream, reply: &Reply, newline: bool) -> std::io::Result<()> {
    let mut bytes = reply.to_json().to_string().into_bytes();
    if newline {
        bytes.push(b'\n');
    }
    out.write_all(&bytes)
}

/// Before closing on a client that may still be sending: stop writing and read what
/// it sent for a moment (bounded), so that it gets the reply rather than a reset.
fn linger(stream: &mut UnixStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut buf = [0u8; 4096];
    let mut left = 1usize << 20;
    while left > 0 {
        match stream.read(&mut buf) {
            Ok(n) if n > 0 => left = left.saturating_sub(n),
            _ => break,
        }
    }
}

/// One connection's state.
struct Client<'a> {
    ctx: &'a Context,
    /// Replies end with a newline (every protocol version but 0.1).
    newline: bool,
}

impl<'a> Client<'a> {
    fn new(ctx: &'a Context) -> Self {
        Client { ctx, newline: true }
    }

    fn serve(&mut self, mut stream: UnixStream) -> std::io::Result<()> {
        stream.set_nonblocking(false)?;
        // Idle clients are dropped after a while so that they cannot pin threads.
        stream.set_read_timeout(Some(Duration::from_secs(600)))?;
        let mut framer = Framer::default();
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            framer.push(&buf[..n]);
            loop {
                let (reply, close) = match framer.next_frame() {
                    Ok(None) => break,
                    Ok(Some(frame)) => self.handle(frame),
                    Err(FrameError::Invalid(e)) => (Reply::nok(format!("invalid JSON: {e}")), true),
                    Err(FrameError::TooLong) => (Reply::nok("message too long"), true),
                };
                send(&mut stream, &reply, self.newline)?;
                if close {
                    linger(&mut stream);
                    return Ok(());
                }
            }
        }
    }

    /// Answers one message; the reply and whether the connection ends.
    fn handle(&mut self, frame: Frame) -> (Reply, bool) {
        match frame {
            Frame::Line(line) => {
                let name = line.split_whitespace().next().unwrap_or("");
                if name == "quit" {
                    return (Reply::ok("Goodbye"), true);
                }
                self.ctx.execute(name, &Value::Null)
            }
            Frame::Json(v) => {
                if let (Some(version), None) = (v.get("version"), v.get("command")) {
                    return match version.as_str() {
                        Some(ver) => {
                            self.newline = ver != "0.1";
                            (
                                Reply {
                                    ok: true,
                                    message: None,
                                },
                                false,
                            )
                        }
                        None => (Reply::nok("version is not a string"), true),
                    };
                }
                match v.get("command").and_then(Value::as_str) {
                    Some(name) => {
                        let args = v.get("arguments").cloned().unwrap_or(Value::Null);
                        self.ctx.execute(name, &args)
                    }
                    None => (Reply::nok("Invalid command: no command name"), false),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::commands::tests::ctx;

    #[test]
    fn handshake_and_commands() {
        let c = ctx();
        let mut client = Client::new(&c);
        let (r, close) = client.handle(Frame::Json(json!({"version": "0.2"})));
        assert_eq!((r.to_json(), close), (json!({"return": "OK"}), false));
        assert!(client.newline);
        let (r, _) = client.handle(Frame::Json(json!({"command": "uptime"})));
        assert!(r.ok);
        let (r, close) = client.handle(Frame::Json(json!({"command": 5})));
        assert!(!r.ok && !close);
        let (r, _) = client.handle(Frame::Line("frobnicate".into()));
        assert_eq!(
            r.to_json(),
            json!({"return": "NOK", "message": "Unknown command"})
        );
        let (_, close) = client.handle(Frame::Line("quit".into()));
        assert!(close);
        let (_, close) = client.handle(Frame::Json(json!({"version": 2})));
        assert!(close, "a version that is not a string ends the connection");
        client.handle(Frame::Json(json!({"version": "0.1"})));
        assert!(
            !client.newline,
            "0.1 replies have no newline, as Suricata's"
        );
        let (r, close) = client.handle(Frame::Json(json!({"command": "shutdown"})));
        assert!(r.ok && close && c.control.is_stopped());
    }

    #[test]
    fn path_rules() {
        let cfg = |y: &str| config::Config::parse(y, None).unwrap();
        let given = Some(Path::new("/tmp/x.sock"));
        assert_eq!(
            socket_path(given, None, false),
            Some((PathBuf::from("/tmp/x.sock"), true))
        );
        let empty = Some(Path::new(""));
        assert_eq!(
            socket_path(empty, None, false),
            Some((PathBuf::from(DEFAULT_SOCKET), true))
        );
        let rel = cfg("unix-command:\n  enabled: no\n  filename: my.sock\n");
        assert_eq!(
            socket_path(empty, Some(&rel), false).unwrap().0,
            Path::new(STATE_DIR).join("my.sock")
        );
        assert_eq!(socket_path(None, Some(&rel), true), None, "enabled: no");
        let yes = cfg("unix-command:\n  enabled: yes\n  filename: /run/a.sock\n");
        assert_eq!(
            socket_path(None, Some(&yes), false),
            Some((PathBuf::from("/run/a.sock"), false))
        );
        let auto = cfg("unix-command:\n  enabled: auto\n");
        assert_eq!(
            socket_path(None, Some(&auto), false),
            None,
            "auto: not offline"
        );
        assert!(socket_path(None, Some(&auto), true).is_some(), "auto: live");
        assert_eq!(socket_path(None, None, true), None);
    }

    #[test]
    fn stale_socket_replaced_live_one_refused() {
        let dir = std::env::temp_dir().join(format!("osprey-sock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        // A stale file: bound once, listener gone.
        drop(UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let live = bind(&path).expect("stale socket replaced");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o660);
        let e = bind(&path).unwrap_err();
        assert!(e.contains("another process"), "{e}");
        drop(live);
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"not a socket").unwrap();
        assert!(bind(&path).unwrap_err().contains("not a socket"));
        let _ = std::fs::remove_dir_all(dir);
    }
}

//! The unix command socket: one JSON or plain command per line, one JSON reply each.

use crate::signals::reload_and_report;
use engine::{Control, SetupArgs};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Serves the unix command socket at `path` until the run ends (the socket file is
/// removed by the returned guard).
pub fn serve_socket(
    path: &Path,
    control: &Control,
    reload: SetupArgs,
) -> Result<SocketGuard, String> {
    let _ = std::fs::remove_file(path);
    let listener =
        UnixListener::bind(path).map_err(|e| format!("unix socket {}: {e}", path.display()))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("unix socket: {e}"))?;
    let done = Arc::new(AtomicBool::new(false));
    let guard = SocketGuard {
        path: path.to_path_buf(),
        done: done.clone(),
    };
    let control = control.clone();
    std::thread::Builder::new()
        .name("osprey-socket".into())
        .spawn(move || {
            while !done.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = handle_client(stream, &control, &reload);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        })
        .map_err(|e| format!("socket thread: {e}"))?;
    Ok(guard)
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

/// One client: each line is a command, plain (`reload-rules`) or Suricata's JSON
/// (`{"command": "reload-rules"}`; a `{"version": ...}` greeting is acknowledged).
fn handle_client(stream: UnixStream, control: &Control, reload: &SetupArgs) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut out = stream.try_clone()?;
    for line in BufReader::new(stream).lines() {
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (reply, quit) = command(line, control, reload);
        out.write_all(reply.to_string().as_bytes())?;
        out.write_all(b"\n")?;
        if quit {
            break;
        }
    }
    Ok(())
}

/// Runs one command; the JSON reply and whether the connection ends.
fn command(line: &str, control: &Control, reload: &SetupArgs) -> (serde_json::Value, bool) {
    use serde_json::json;
    let parsed: Option<serde_json::Value> = serde_json::from_str(line).ok();
    let name = match &parsed {
        Some(v) if v.get("version").is_some() && v.get("command").is_none() => {
            return (json!({"return": "OK"}), false)
        }
        Some(v) => v["command"].as_str().unwrap_or("").to_string(),
        None => line.to_string(),
    };
    match name.as_str() {
        "reload-rules" | "ruleset-reload-rules" => match reload_and_report(control, reload) {
            Ok(n) => (
                json!({"return": "OK", "message": format!("{n} rules loaded")}),
                false,
            ),
            Err(e) => (json!({"return": "NOK", "message": e}), false),
        },
        "shutdown" => {
            control.stop();
            (json!({"return": "OK", "message": "Closing Osprey"}), true)
        }
        "quit" => (json!({"return": "OK"}), true),
        other => (
            json!({"return": "NOK", "message": format!("unknown command `{other}`")}),
            false,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_plain_commands() {
        let c = Control::new();
        let args = SetupArgs::default();
        let (r, quit) = command("{\"version\": \"0.2\"}", &c, &args);
        assert_eq!(r["return"], "OK");
        assert!(!quit);
        let (r, _) = command("frobnicate", &c, &args);
        assert_eq!(r["return"], "NOK");
        let (r, quit) = command("{\"command\": \"shutdown\"}", &c, &args);
        assert_eq!(r["return"], "OK");
        assert!(quit && c.is_stopped());
    }

    #[test]
    fn failed_reload_keeps_rules() {
        let c = Control::new();
        let args = SetupArgs {
            exclusive_rules: Some(PathBuf::from("/nonexistent/osprey.rules")),
            strict: true,
            ..SetupArgs::default()
        };
        let (r, _) = command("reload-rules", &c, &args);
        assert_eq!(r["return"], "NOK", "{r}");
        assert_eq!(c.rules_generation(), 0);
    }
}

//! Running as a service, as Suricata's `-D`, `--pidfile`, `--user` and `--group` do.
//!
//! Order of a daemon's start: the user and group are looked up and the pidfile checked
//! while the terminal still shows errors; the log outputs are opened; the process forks
//! (the parent waits until the child reports that it captures, or why it failed, and
//! exits 0 or 1 accordingly: what systemd's `Type=forking` expects), the child starts a
//! new session, points its standard streams at `/dev/null` and writes the pidfile. When
//! the run has opened its capture and outputs, the privileges are dropped
//! (`setgroups`, `setgid`, `setuid`, in that order) and the parent is told. The pidfile
//! is removed when the run ends. The working directory is kept, so relative paths
//! given on the command line stay valid.

use clap::Args;
use nix::unistd::{Gid, Group, Pid, Uid, User};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Daemon options of a run.
#[derive(Debug, Args, Default)]
pub struct DaemonArgs {
    /// Run in the background (detach from the terminal); the log goes to the
    /// configuration's file output, or `osprey.log` in the log directory.
    #[arg(short = 'D')]
    pub detach: bool,

    /// Write the process id to FILE (refused when it names a running process; removed
    /// at exit).
    #[arg(long = "pidfile", value_name = "FILE")]
    pub pidfile: Option<PathBuf>,

    /// Run as USER once the capture and the log files are open.
    #[arg(long = "user", value_name = "USER")]
    pub user: Option<String>,

    /// Run with group GROUP once the capture and the log files are open (default: the
    /// primary group of `--user`).
    #[arg(long = "group", value_name = "GROUP")]
    pub group: Option<String>,
}

/// The identity to switch to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ids {
    uid: Option<Uid>,
    gid: Option<Gid>,
}

/// The ids to drop to, set by [`start`], used by the started hook.
static IDS: OnceLock<Ids> = OnceLock::new();
/// The write end of the pipe the detached child reports its start on.
static READY: Mutex<Option<std::io::PipeWriter>> = Mutex::new(None);

/// Removes the pidfile when the run ends.
#[derive(Debug)]
pub struct Service {
    pidfile: Option<PathBuf>,
}

impl Drop for Service {
    fn drop(&mut self) {
        let Some(path) = &self.pidfile else { return };
        let ours = read_pid(path) == Some(std::process::id() as i32);
        if ours {
            if let Err(e) = std::fs::remove_file(path) {
                tracing::warn!("cannot remove the pidfile {}: {e}", path.display());
            }
        }
    }
}

/// Prepares the service side of a run: looks the user and group up, checks the
/// pidfile, opens the log outputs (`logging`), detaches with `-D` and writes the pidfile.
/// The returned guard removes the pidfile when dropped.
pub fn start(
    args: &DaemonArgs,
    logging: &engine::LoggingSettings,
    verbosity: u8,
    log_dir: &Path,
) -> Result<Service, String> {
    let ids = resolve_ids(args.user.as_deref(), args.group.as_deref())?;
    if let Some(path) = &args.pidfile {
        check_pidfile(path)?;
    }
    crate::logging::configure(logging, verbosity, log_dir, args.detach);
    if args.detach {
        detach()?;
    }
    let _ = IDS.set(ids);
    if let Some(path) = &args.pidfile {
        write_pidfile(path)?;
    }
    Ok(Service {
        pidfile: args.pidfile.clone(),
    })
}

/// Has `control` drop the privileges and report a detached start once the run has
/// opened its capture and outputs.
pub fn on_started(control: &engine::Control) {
    control.on_started(|| {
        if let Some(ids) = IDS.get() {
            drop_privileges(*ids)?;
        }
        tracing::debug!("capture and outputs open; running");
        report(b"R");
        Ok(())
    });
}

/// Tells a waiting parent that the start failed, and why (nothing without `-D`).
pub fn report_failure(msg: &str) {
    report(msg.as_bytes());
}

fn report(bytes: &[u8]) {
    let writer = READY.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(mut w) = writer {
        // The parent is gone: nobody to tell.
        let _ = w.write_all(bytes);
    }
}

/// `--user`/`--group` as ids; an unknown name is an error.
fn resolve_ids(user: Option<&str>, group: Option<&str>) -> Result<Ids, String> {
    let user = match user {
        Some(name) => Some(
            User::from_name(name)
                .map_err(|e| format!("--user {name}: {e}"))?
                .ok_or_else(|| format!("--user {name}: no such user"))?,
        ),
        None => None,
    };
    let gid = match group {
        Some(name) => Some(
            Group::from_name(name)
                .map_err(|e| format!("--group {name}: {e}"))?
                .ok_or_else(|| format!("--group {name}: no such group"))?
                .gid,
        ),
        None => user.as_ref().map(|u| u.gid),
    };
    Ok(Ids {
        uid: user.map(|u| u.uid),
        gid,
    })
}

/// Switches to `ids`: supplementary groups, group, then user (after `setuid` the
/// others could no longer be changed).
fn drop_privileges(ids: Ids) -> Result<(), String> {
    if let Some(gid) = ids.gid {
        nix::unistd::setgroups(&[gid]).map_err(|e| format!("setgroups({gid}): {e}"))?;
        nix::unistd::setgid(gid).map_err(|e| format!("setgid({gid}): {e}"))?;
    }
    if let Some(uid) = ids.uid {
        nix::unistd::setuid(uid).map_err(|e| format!("setuid({uid}): {e}"))?;
    }
    if ids.uid.is_some() || ids.gid.is_some() {
        tracing::info!(
            "running as uid {} gid {}",
            nix::unistd::getuid(),
            nix::unistd::getgid()
        );
    }
    Ok(())
}

/// The pid a pidfile holds, if it holds one.
fn read_pid(path: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(path).ok()?;
    text.trim().parse().ok().filter(|p| *p > 0)
}

/// Whether process `pid` exists (it may belong to another user).
fn alive(pid: i32) -> bool {
    match nix::sys::signal::kill(Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(e) => e == nix::errno::Errno::EPERM,
    }
}

/// Refuses a pidfile naming a live process; removes a stale one.
fn check_pidfile(path: &Path) -> Result<(), String> {
    if !path.exists() {
        return Ok(());
    }
    match read_pid(path) {
        Some(pid) if alive(pid) => Err(format!(
            "pidfile {} names the running process {pid}: is Osprey already running? \
             (remove the file if that process is not Osprey)",
            path.display()
        )),
        pid => {
            tracing::warn!(
                "replacing the stale pidfile {} ({})",
                path.display(),
                pid.map_or("no pid in it".into(), |p| format!("process {p} is gone"))
            );
            std::fs::remove_file(path)
                .map_err(|e| format!("cannot remove the stale pidfile {}: {e}", path.display()))
        }
    }
}

/// Creates the pidfile (failing if another start created it meanwhile).
fn write_pidfile(path: &Path) -> Result<(), String> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create the pidfile {}: {e}", path.display()))?;
    writeln!(f, "{}", std::process::id())
        .map_err(|e| format!("cannot write the pidfile {}: {e}", path.display()))
}

/// Forks; the parent waits for the child's report and exits, the child goes on in a new
/// session with its standard streams on `/dev/null`.
fn detach() -> Result<(), String> {
    let threads = std::fs::read_dir("/proc/self/task").map_or(1, |d| d.count());
    if threads != 1 {
        return Err(format!(
            "-D: cannot detach a process running {threads} threads"
        ));
    }
    let (mut reader, writer) = std::io::pipe().map_err(|e| format!("-D: pipe: {e}"))?;
    // SAFETY: the process has one thread (checked above), so the child is a complete
    // copy of it; both sides then go on in safe code.
    let fork = unsafe { nix::unistd::fork() };
    match fork.map_err(|e| format!("-D: fork: {e}"))? {
        nix::unistd::ForkResult::Parent { child } => {
            drop(writer);
            let mut buf = Vec::new();
            let _ = reader.read_to_end(&mut buf);
            crate::logging::console_only();
            match buf.as_slice() {
                b"R" => std::process::exit(0),
                [] => tracing::error!(
                    "the daemon (pid {child}) exited while starting; see its log file"
                ),
                msg => tracing::error!("{}", String::from_utf8_lossy(msg)),
            }
            std::process::exit(1)
        }
        nix::unistd::ForkResult::Child => {
            drop(reader);
            nix::unistd::setsid().map_err(|e| format!("-D: setsid: {e}"))?;
            let null = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/null")
                .map_err(|e| format!("-D: /dev/null: {e}"))?;
            nix::unistd::dup2_stdin(&null).map_err(|e| format!("-D: dup2: {e}"))?;
            nix::unistd::dup2_stdout(&null).map_err(|e| format!("-D: dup2: {e}"))?;
            nix::unistd::dup2_stderr(&null).map_err(|e| format!("-D: dup2: {e}"))?;
            *READY.lock().unwrap_or_else(|e| e.into_inner()) = Some(writer);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_user_or_group_is_an_error() {
        let e = resolve_ids(Some("osprey-no-such-user"), None).unwrap_err();
        assert!(e.contains("no such user"), "{e}");
        let e = resolve_ids(None, Some("osprey-no-such-group")).unwrap_err();
        assert!(e.contains("no such group"), "{e}");
        assert_eq!(
            resolve_ids(None, None).unwrap(),
            Ids {
                uid: None,
                gid: None
            }
        );
        // root exists everywhere: its primary group is taken when --group is absent.
        let root = resolve_ids(Some("root"), None).unwrap();
        assert_eq!(
            (root.uid, root.gid),
            (Some(Uid::from_raw(0)), Some(Gid::from_raw(0)))
        );
    }

    #[test]
    fn pidfiles() {
        let dir = std::env::temp_dir().join(format!("osprey-pidfile-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("osprey.pid");
        let _ = std::fs::remove_file(&path);
        assert!(check_pidfile(&path).is_ok());
        // A live process (this one) is refused.
        std::fs::write(&path, format!("{}\n", std::process::id())).unwrap();
        let e = check_pidfile(&path).unwrap_err();
        assert!(e.contains("already running"), "{e}");
        // Garbage and a dead pid are stale: removed.
        std::fs::write(&path, "not a pid").unwrap();
        check_pidfile(&path).unwrap();
        assert!(!path.exists());
        std::fs::write(&path, format!("{}\n", i32::MAX)).unwrap();
        check_pidfile(&path).unwrap();
        assert!(!path.exists());
        // Written once; a second writer loses; the guard removes its own file only.
        write_pidfile(&path).unwrap();
        assert_eq!(read_pid(&path), Some(std::process::id() as i32));
        assert!(write_pidfile(&path).is_err());
        drop(Service {
            pidfile: Some(path.clone()),
        });
        assert!(!path.exists());
        std::fs::write(&path, "1\n").unwrap();
        drop(Service {
            pidfile: Some(path.clone()),
        });
        assert!(path.exists(), "another process' pidfile stays");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

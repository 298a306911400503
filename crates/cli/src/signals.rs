//! Signals, as Suricata handles them: SIGINT and SIGTERM stop the run, SIGUSR2 reloads
//! the rules, SIGHUP reopens the log files (log rotation).

use engine::{Control, SetupArgs};

/// SIGINT and SIGTERM raise the run's stop flag (a second signal at least a second
/// after the first ends the process at once; a stop asked on the command socket and a
/// later signal are one stop, not two); SIGUSR2 reloads the rules and SIGHUP asks every
/// log file to reopen, both on a background thread.
///
/// Signals arriving together are one stop: `timeout(1)` sends its signal to the command
/// and then to the command's whole process group, so the command gets it twice at once.
pub fn install_signals(control: &Control, reload: SetupArgs) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR2};
    let stop = control.stop_flag();
    for sig in [SIGINT, SIGTERM] {
        // SAFETY: the action only reads the monotonic clock, uses atomics and calls
        // `_exit` (through `low_level::exit`), all async-signal-safe.
        unsafe { signal_hook::low_level::register(sig, exit_on_second_signal) }
            .map_err(|e| format!("signal handler: {e}"))?;
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| format!("signal handler: {e}"))?;
    }
    crate::logging::follow_reopen(control);
    let mut signals = signal_hook::iterator::Signals::new([SIGUSR2, SIGHUP])
        .map_err(|e| format!("signal handler: {e}"))?;
    let control = control.clone();
    std::thread::Builder::new()
        .name("osprey-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if sig == SIGHUP {
                    reopen_and_report(&control);
                } else {
                    let _ = reload_and_report(&control, &reload);
                }
            }
        })
        .map_err(|e| format!("signal thread: {e}"))?;
    Ok(())
}

/// Milliseconds (monotonic clock, plus one so that zero means none) of the first stop
/// signal of the run.
static FIRST_STOP_SIGNAL_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long after the first stop signal another one still belongs to the same stop.
const SAME_STOP_MS: u64 = 1000;

/// The signal action behind "a second signal exits at once": remembers when the first
/// stop signal came, and exits (status 1) at one that comes [`SAME_STOP_MS`] later.
fn exit_on_second_signal() {
    use std::sync::atomic::Ordering;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is valid for writes; clock_gettime is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    let now = (ts.tv_sec as u64) * 1000 + (ts.tv_nsec as u64) / 1_000_000 + 1;
    match FIRST_STOP_SIGNAL_MS.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => {}
        Err(first) if now.saturating_sub(first) >= SAME_STOP_MS => signal_hook::low_level::exit(1),
        Err(_) => {}
    }
}

/// Catches SIGINT and SIGTERM from now on (before the rules load, which takes seconds
/// with a large rule set): the returned flag says whether one arrived, and the caller
/// then ends the run cleanly instead of being killed by the default action. The
/// handlers only raise the flag; [`install_signals`] adds the run's own later.
pub fn catch_early_stop() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, flag.clone())
            .map_err(|e| format!("signal handler: {e}"))?;
    }
    Ok(flag)
}

/// Whether a stop arrived while the run was being set up (logged: the run ends there).
pub fn stopped_early(flag: &std::sync::atomic::AtomicBool) -> bool {
    let stopped = flag.load(std::sync::atomic::Ordering::SeqCst);
    if stopped {
        tracing::info!("stop signal received while loading the rules; exiting before the run");
    }
    stopped
}

/// Reloads the rules, saying so in the log; on error the running rules stay.
pub fn reload_and_report(control: &Control, args: &SetupArgs) -> Result<usize, String> {
    tracing::info!("reloading rules");
    let r = control.reload_rules(args);
    match &r {
        Ok(n) => tracing::info!("rules reloaded: {n} rules loaded"),
        Err(e) => tracing::error!("rule reload failed, keeping the running rules: {e}"),
    }
    r
}

/// Asks every log file to reopen (the log file of this process reopens before the
/// line that says so).
pub fn reopen_and_report(control: &Control) {
    control.request_reopen();
    tracing::info!("log files reopened");
}

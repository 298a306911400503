//! Signals, as Suricata handles them: SIGINT and SIGTERM stop the run, SIGUSR2 reloads
//! the rules, SIGHUP reopens the log files (log rotation).

use engine::{Control, SetupArgs};

/// SIGINT and SIGTERM raise the run's stop flag (a second one ends the process at once);
/// SIGUSR2 reloads the rules and SIGHUP asks every log file to reopen, both on a
/// background thread.
pub fn install_signals(control: &Control, reload: SetupArgs) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR2};
    let stop = control.stop_flag();
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it: the
        // second signal exits.
        signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone())
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

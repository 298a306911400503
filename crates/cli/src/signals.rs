//! Signals: SIGINT and SIGTERM stop the run, SIGHUP reloads the rules.

use engine::{Control, SetupArgs};

/// SIGINT and SIGTERM raise the run's stop flag (a second one ends the process at once);
/// SIGHUP reloads the rules on a background thread.
pub fn install_signals(control: &Control, reload: SetupArgs) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let stop = control.stop_flag();
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it: the
        // second signal exits.
        signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone())
            .map_err(|e| format!("signal handler: {e}"))?;
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| format!("signal handler: {e}"))?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGHUP])
        .map_err(|e| format!("signal handler: {e}"))?;
    let control = control.clone();
    std::thread::Builder::new()
        .name("osprey-signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                let _ = reload_and_report(&control, &reload);
            }
        })
        .map_err(|e| format!("signal thread: {e}"))?;
    Ok(())
}

pub fn reload_and_report(control: &Control, args: &SetupArgs) -> Result<usize, String> {
    eprintln!("osprey: reloading rules");
    let r = control.reload_rules(args);
    match &r {
        Ok(n) => eprintln!("osprey: rules reloaded: {n} rules loaded"),
        Err(e) => eprintln!("osprey: rule reload failed, keeping the running rules: {e}"),
    }
    r
}

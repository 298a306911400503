//! A panic ends the process. Osprey's threads wait on each other (the reader on its
//! workers' queues, a thread scope on the periodic stats thread, the workers on the
//! reader), so a thread that dies by a bug would leave the others waiting for it forever:
//! a run that neither inspects nor ends. The hook prints the panic as Rust does and exits
//! with status 101, the status of a panicking `main`, unless the panic is one the GPU
//! crate catches on purpose ([`gpu::nvrtc::panic_is_caught`]).

/// The exit status of a process ended by a panic (as a panicking `main` exits).
pub const PANIC_EXIT: i32 = 101;

/// Install the hook: after the default report, a panic outside a caught section ends the
/// process with [`PANIC_EXIT`].
pub fn exit_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        if !gpu::nvrtc::panic_is_caught() {
            std::process::exit(PANIC_EXIT);
        }
    }));
}

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// Child side of the test below: with the hook, a thread that panics while another
    /// waits for it forever (in a scope that joins both) ends the process.
    #[test]
    #[ignore = "run by a_panicking_thread_ends_the_process in a child process"]
    fn child_panics_while_another_thread_waits() {
        if std::env::var_os("OSPREY_PANIC_CHILD").is_none() {
            return;
        }
        super::exit_on_panic();
        let (_tx, rx) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || rx.recv().ok());
            s.spawn(|| panic!("a worker's bug"));
        });
        unreachable!("the scope never ends: the first thread waits for ever");
    }

    #[test]
    fn a_panicking_thread_ends_the_process() {
        let exe = std::env::current_exe().unwrap();
        let mut child = Command::new(exe)
            .args([
                "--ignored",
                "--exact",
                "panics::tests::child_panics_while_another_thread_waits",
                "--nocapture",
            ])
            .env("OSPREY_PANIC_CHILD", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > Duration::from_secs(60) {
                child.kill().ok();
                panic!("the child still waits a minute after its thread panicked");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(super::PANIC_EXIT), "stderr: {err}");
        assert!(
            err.contains("a worker's bug"),
            "the panic is reported: {err}"
        );
    }
}

//! glibc malloc tuning for a lower peak RSS (issue 26). glibc gives each thread that
//! allocates its own arena (up to eight per core), and memory freed in one arena is
//! neither reused by another thread nor returned to the system unless it sits at the
//! arena's top: with several workers, the flows, transactions and stream regions each
//! worker frees stay resident in its arena. Measured on the c20k workload
//! (bench/RESULTS.md), the arenas cost about 55 MB of peak RSS with 2 workers. So the
//! engine runs with few arenas ([`ARENAS`]) and a thread hands free pages back to the
//! system twice a second (`malloc_trim`), as operators read RSS.
//!
//! Only for glibc targets; elsewhere (and with another global allocator, where glibc's
//! malloc is not the one in use) these calls change nothing the engine relies on.

/// Most malloc arenas (`M_ARENA_MAX`): threads share them round robin.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENAS: libc::c_int = 2;

/// How often free memory is handed back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Caps the arenas and starts the trimming thread. Call once, after any fork (the
/// daemon's), before the engine's threads start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn start() {
    // SAFETY: mallopt only changes allocator parameters; M_ARENA_MAX with a positive
    // value is valid at any time (arenas already made are kept).
    let ok = unsafe { libc::mallopt(libc::M_ARENA_MAX, ARENAS) };
    if ok != 1 {
        tracing::debug!("mallopt(M_ARENA_MAX) refused");
    }
    let spawned = std::thread::Builder::new()
        .name("malloc-trim".into())
        .spawn(|| loop {
            std::thread::sleep(TRIM_EVERY);
            // SAFETY: malloc_trim takes the arenas' own locks; it may be called from
            // any thread at any time.
            unsafe { libc::malloc_trim(0) };
        });
    if let Err(e) = spawned {
        tracing::debug!("no malloc-trim thread: {e}");
    }
}

/// Nothing to tune outside glibc.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn start() {}

//! Counts the frames of a capture file and reports the read rate in CPU time of the
//! reading thread (meaningful on a loaded machine, where wall time is not).
//!
//! `cargo run --release -p capture --example count -- FILE [REPEATS]`

use std::path::PathBuf;
use std::time::Duration;

use capture::{Batch, BATCH_SIZE};

fn thread_cpu_time() -> Duration {
    // SAFETY: all-zero is a valid rusage, and getrusage only writes into it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: count FILE [REPEATS]");
        std::process::exit(2);
    };
    let repeats: u32 = args
        .next()
        .and_then(|s| s.to_str()?.parse().ok())
        .unwrap_or(1);
    let mut batch = Batch::new();
    let mut best = Duration::MAX;
    let (mut frames, mut bytes) = (0u64, 0u64);
    for _ in 0..repeats {
        let start = thread_cpu_time();
        let mut src = match capture::open(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("count: {e}");
                std::process::exit(1);
            }
        };
        let mut sum = 0u64;
        loop {
            match src.next_batch(&mut batch, BATCH_SIZE) {
                Ok(0) => break,
                Ok(_) => {
                    for f in batch.iter() {
                        sum = sum.wrapping_add(u64::from(f.data.first().copied().unwrap_or(0)));
                    }
                }
                Err(e) => {
                    eprintln!("count: {e}");
                    std::process::exit(1);
                }
            }
        }
        std::hint::black_box(sum);
        best = best.min(thread_cpu_time() - start);
        let st = src.stats();
        (frames, bytes) = (st.packets, st.bytes);
        if repeats == 1 {
            println!("{st:?}");
        }
    }
    let secs = best.as_secs_f64();
    if secs < 1e-3 {
        println!("{frames} frames, {bytes} bytes (too quick to time)");
        return;
    }
    println!(
        "{frames} frames, {bytes} bytes; best of {repeats}: {:.1} ms CPU = {:.1} Mpps, {:.1} Gbit/s",
        secs * 1e3,
        frames as f64 / secs / 1e6,
        bytes as f64 * 8.0 / secs / 1e9
    );
}

//! Shared test support: run a capture file through capture → wire → flow.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use flow::adapter::{track_frame, FrameScratch};
use flow::{Config, FlowTracker};

/// Path of a file under /work/shared, or `None` (with the reason printed) when the
/// data is absent and OSPREY_REQUIRE_DATA is not set.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/")).join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("OSPREY_REQUIRE_DATA").as_deref() == Ok("1") {
        panic!("required test data missing: {}", p.display());
    }
    eprintln!("skipping: {} not found", p.display());
    None
}

/// Runs `path` through a tracker; `each` sees every tracked packet; ended flows go to
/// `ended`. Returns the tracker after shutdown and drain.
pub fn run_pcap(
    path: &Path,
    cfg: Config,
    mut each: impl FnMut(&wire::Packet, &[u8], &flow::Update<'_>),
    mut ended: impl FnMut(&flow::Ended<'_>),
) -> FlowTracker {
    let mut src = capture::open(path).expect("open capture");
    let mut batch = capture::Batch::new();
    let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
    let mut decoded = wire::Decoded::new();
    let mut tracker = FlowTracker::new(cfg);
    let mut scratch = FrameScratch::default();
    let mut last_sweep = 0u64;
    let mut sweeps = 0;
    while src.next_batch(&mut batch, 128).expect("read") > 0 {
        for fr in batch.iter() {
            let ts = wire::Timestamp(fr.ts.as_nanos().max(0) as u64);
            decoder.decode(fr.link, fr.data, ts, fr.wire_len, &mut decoded);
            track_frame(
                &mut tracker,
                &mut decoder,
                &decoded,
                fr.data,
                &mut scratch,
                &mut each,
            );
            let now = ts.0 / 1000;
            if now > last_sweep + 1_000_000 {
                tracker.sweep(now, sweeps);
                sweeps += 1;
                last_sweep = now;
            }
            if tracker.has_ended() {
                tracker.drain_ended(|e| ended(&e));
            }
        }
    }
    tracker.shutdown();
    tracker.drain_ended(|e| ended(&e));
    tracker
}

/// A counter by name.
pub fn counter(t: &FlowTracker, name: &str) -> u64 {
    t.counters()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no counter {name}"))
}

//! `osprey bench gpu`: Aho-Corasick and regex-DFA throughput of the GPU offload against
//! batch size and packet size, for both kernel layouts and 16- and 32-bit tables, with the
//! fast patterns (and the regexes that have a DFA) of a rule set (issue 27, point 4).
//!
//! Each point first counts what the kernels do — payload bytes, bytes moved each way
//! (payloads and per-packet metadata in; per-packet counts and report rows out) and table
//! lookups (one per byte walked, the packet-per-block layout walking each chunk's overlap
//! again) — and then times it: **kernel-only** (the executor's own timer around the
//! kernel: CUDA events around the launch on a GPU, the CPU executor's run with
//! `cpu-sim`), **end-to-end** (a worker's `scan`: the copy into staging memory, the
//! transfers, the kernel, the report rows back and their merge into matches) and, apart,
//! the merge (`merge_s`: case checks, CPU rescans of the packets whose report row
//! overflowed, sorting) and the device round trip without it (`device_e2e_gbps`).
//!
//! The payloads are HTTP-like: one request head, then random bytes, one in 64 carrying a
//! fast pattern. The report rows are sized to the workload ([`report_cap_for`]): with 64
//! slots (the engine's), ET Open's short fast patterns overflowed every row of a 512- or
//! 1,514-byte payload and the merge rescanned every packet on the CPU inside the timed
//! region, so the H100's end-to-end figures were one core's Aho-Corasick speed.
//! `report_cap`, `overflowed` and `matches_per_packet` say what each point did.
//!
//! On a machine without a GPU the executor is the CPU one (`gpu::cpu`, the kernels'
//! semantics) behind the same dispatcher thread (`cpu-sim`), and the JSON says so
//! (`"executor": "cpu-sim"` with the reason): those figures are the CPU's, not a GPU's.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use gpu::cpu::AcLayout;
use gpu::{AcTables, Backend, Batch, DfaJob, DfaSet, GpuConfig, Offload, Width};
use mpm::{DfaTables, Limits, Pattern};
use rules::{LoadOptions, Match, RuleSet, Vars};
use serde_json::{json, Value};

use crate::patterns::pattern_sets;
use crate::payloads::random_bytes;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchGpuOptions {
    /// Rule files: their fast patterns and the regexes with a DFA.
    pub rules: Vec<PathBuf>,
    /// Packets per batch.
    pub batch_sizes: Vec<usize>,
    /// Payload bytes per packet.
    pub packet_sizes: Vec<usize>,
    /// Seconds each point is timed for (at least one run).
    pub seconds: f64,
    /// `auto` (a GPU when one works, else the CPU executor) or `cpu-sim`.
    pub backend: String,
    /// Regex DFAs at most (the ones of the rules that convert, in rule order).
    pub max_dfas: usize,
    /// Report slots per payload; 0: sized to the workload ([`report_cap_for`]), so that
    /// no row overflows and the figures are the device's, not the CPU's rescans.
    pub report_cap: u32,
    /// The Aho-Corasick kernels measured ([`AcLayout::name`]s, `--kernel`).
    pub kernels: Vec<AcLayout>,
    /// A capture whose TCP/UDP payloads (in capture order, cycled) fill the batches
    /// instead of the synthetic ones; `packet_sizes` is then not used (each point's
    /// `packet_size` is 0 and `payload_bytes` says what the batch held).
    pub pcap: Option<PathBuf>,
}

/// Every Aho-Corasick kernel version (`--kernel` default): the two layouts of issue 27
/// point 4, then the hot-row kernels of point 5 with 48, 100 and 227 KiB of shared memory.
pub const ALL_KERNELS: &str =
    "packet-per-thread,packet-per-block-32,hot-48k,hot-100k,hot-227k,hot16-100k,hot16-227k";

/// Parse a comma-separated list of kernel names.
pub fn parse_kernels(list: &str) -> Result<Vec<AcLayout>, String> {
    list.split(',')
        .filter(|n| !n.is_empty())
        .map(AcLayout::parse)
        .collect()
}

impl Default for BenchGpuOptions {
    fn default() -> BenchGpuOptions {
        BenchGpuOptions {
            rules: Vec::new(),
            batch_sizes: vec![512, 2048, 8192, 32768, 65536],
            packet_sizes: vec![64, 256, 512, 1024, 1514],
            seconds: 0.2,
            backend: "auto".into(),
            max_dfas: 256,
            report_cap: 0,
            kernels: parse_kernels(ALL_KERNELS).expect("valid names"),
            pcap: None,
        }
    }
}

/// [`batch`] for the profile: `n` payloads of `size` bytes.
pub(crate) fn synthetic_batch(n: usize, size: usize, patterns: &[Pattern], seed: u64) -> Batch {
    batch(n, size, patterns, seed)
}

/// The fast patterns of the rule files and their one AC-Full automaton.
pub(crate) fn fast_automaton(rules: &[PathBuf]) -> Result<(Vec<Pattern>, DfaTables), String> {
    let (set, _) = RuleSet::load(rules, &Vars::suricata_default(), &LoadOptions::default());
    let (fast, _) = pattern_sets(&set, None);
    if fast.is_empty() {
        return Err("no fast pattern in the rules".into());
    }
    let full =
        DfaTables::build(&fast, &Limits::default()).map_err(|e| format!("AC tables: {e}"))?;
    Ok((fast, full))
}

/// A batch of `n` payloads of `size` bytes: one HTTP request head (cut to the size) and
/// random bytes, one in 64 carrying a pattern (so matches and report rows are exercised).
fn batch(n: usize, size: usize, patterns: &[Pattern], seed: u64) -> Batch {
    let head =
        b"GET /index.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: Mozilla/5.0\r\n\r\n";
    let noise = random_bytes(seed, 64 * 1024);
    let mut b = Batch::new(n, n * size.next_multiple_of(gpu::ALIGN));
    for i in 0..n {
        let mut p: Vec<u8> = head[..head.len().min(size)].to_vec();
        let at = (i * 4099) % (noise.len() - size);
        p.extend_from_slice(&noise[at..at + size - p.len()]);
        if i % 64 == 0 && !patterns.is_empty() {
            let pat = &patterns[(i / 64) % patterns.len()].bytes;
            if pat.len() <= size {
                let at = (i * 31) % (size - pat.len() + 1);
                p[at..at + pat.len()].copy_from_slice(pat);
            }
        }
        b.push(0, &p).expect("sized for the batch");
    }
    b
}

/// Report slots per payload for `tables`: a power of two (64 to 512) at least the most
/// raw reports any payload of a sample batch of `size` bytes has. ET Open's 17,883 fast
/// patterns, many of one or two bytes, find ~120 matches in a payload of 1,514 random
/// bytes, so 64 slots (the engine's default, where real traffic averages ~5) overflow on
/// every payload and the merge rescans each on the CPU.
/// `b`'s payloads written into a staged buffer of `worker`'s dispatcher (as the engine's
/// workers write theirs); `b` itself when the buffer cannot take them.
fn staged(worker: &gpu::AcOffload, b: Batch) -> Batch {
    let mut s = worker.new_batch();
    for p in 0..b.len() {
        if s.push(b.group(p), b.payload(p)).is_err() {
            return b;
        }
    }
    s
}

fn report_cap_for(tables: &AcTables, size: usize, patterns: &[Pattern]) -> u32 {
    let sample = batch(256, size, patterns, 0x5eed);
    let most = (0..sample.len())
        .map(|p| {
            let mut n = 0u32;
            gpu::cpu::scan_packet(tables, 0, sample.payload(p), &mut |_| n += 1);
            n
        })
        .max()
        .unwrap_or(0);
    most.next_power_of_two().clamp(64, 512)
}

/// Table lookups a layout makes over `batch` (one per byte walked).
fn lookups(batch: &Batch, layout: AcLayout, max_len: usize) -> u64 {
    let overlap = max_len.saturating_sub(1);
    batch
        .lens()
        .iter()
        .map(|&len| {
            let len = len as usize;
            match layout {
                AcLayout::PacketPerThread
                | AcLayout::SharedHot { .. }
                | AcLayout::SharedHot16 { .. } => len as u64,
                AcLayout::PacketPerBlock { threads } => {
                    let chunk = len.div_ceil(threads.clamp(1, 1024) as usize).max(1);
                    (0..len.div_ceil(chunk))
                        .map(|t| (chunk.min(len - t * chunk) + overlap.min(t * chunk)) as u64)
                        .sum()
                }
            }
        })
        .sum()
}

/// Run `f` repeatedly for about `seconds` (at least once); seconds per run.
fn time(seconds: f64, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut runs = 0u32;
    loop {
        f();
        runs += 1;
        let el = start.elapsed().as_secs_f64();
        if el >= seconds {
            return el / runs as f64;
        }
    }
}

fn gbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / secs.max(1e-9) / 1e9
}

/// Mean seconds of `total_ns` over `runs` runs (`None` without a run).
fn mean_s(total_ns: u64, runs: u64) -> Option<f64> {
    (runs > 0).then(|| total_ns as f64 / 1e9 / runs as f64)
}

/// The regexes of `set` that have a DFA (at most `max`).
fn regex_dfas(set: &RuleSet, max: usize) -> Vec<mpm::PlainDfa> {
    let mut out = Vec::new();
    for r in set.rules.iter().filter(|r| r.rule.enabled) {
        for bm in &r.rule.buffers {
            for m in &bm.matches {
                if let Match::Pcre(p) = m {
                    if out.len() < max {
                        if let Ok(d) =
                            detect::pcre_dfa(&p.pattern, p.flags, detect::PCRE_DFA_MAX_STATES)
                        {
                            out.push(d);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The largest prefix of `patterns` whose automaton fits 16-bit state ids (halving).
fn fit_u16(patterns: &[Pattern], limits: &Limits) -> Option<DfaTables> {
    let mut n = patterns.len();
    while n > 0 {
        if let Ok(t) = DfaTables::build(&patterns[..n], limits) {
            if t.num_states <= u16::MAX as u32 + 1 {
                return Some(t);
            }
        }
        n /= 2;
    }
    None
}

/// Measure; the report as JSON.
pub fn bench_gpu(opts: &BenchGpuOptions) -> Result<Value, String> {
    let (set, _) = RuleSet::load(
        &opts.rules,
        &Vars::suricata_default(),
        &LoadOptions::default(),
    );
    let (fast, _) = pattern_sets(&set, None);
    if fast.is_empty() {
        return Err("no fast pattern in the rules".into());
    }
    let limits = Limits::default();
    let full = DfaTables::build(&fast, &limits).map_err(|e| format!("AC tables: {e}"))?;
    let mut tables = Vec::new();
    tables.push((
        Width::U32,
        fast.len(),
        AcTables::with_width(std::slice::from_ref(&full), Width::U32).map_err(|e| e.to_string())?,
        "bfs",
    ));
    let small = if full.num_states <= u16::MAX as u32 + 1 {
        Some(full.clone())
    } else {
        fit_u16(&fast, &limits)
    };
    if let Some(t) = small {
        let n = t.patterns.infos.len();
        tables.push((
            Width::U16,
            n,
            AcTables::with_width(&[t], Width::U16).map_err(|e| e.to_string())?,
            "bfs",
        ));
    }
    let (backend, why) = match opts.backend.as_str() {
        "cpu-sim" => (Backend::CpuSim, "asked for (--backend cpu-sim)".to_string()),
        "auto" => match gpu::probe(0) {
            Ok(info) => (Backend::Gpu(info), String::new()),
            Err(e) => (Backend::CpuSim, e.0),
        },
        other => return Err(format!("--backend takes auto or cpu-sim, not {other:?}")),
    };
    let executor = match &backend {
        Backend::Gpu(info) => json!({"kind": "gpu", "name": info.name,
            "compute_capability": format!("{}.{}", info.compute_capability.0, info.compute_capability.1)}),
        _ => json!({"kind": "cpu-sim", "why": why,
            "note": "no GPU: the CPU executor of the same kernels stands in; these are CPU figures"}),
    };
    let max_packets = *opts.batch_sizes.iter().max().unwrap_or(&512);
    let real = match &opts.pcap {
        Some(p) => {
            let v: Vec<Vec<u8>> = crate::payloads::pcap_payloads(p)?;
            if v.is_empty() {
                return Err(format!("{}: no TCP/UDP payload", p.display()));
            }
            Some(v)
        }
        None => None,
    };
    let sizes: Vec<usize> = match &real {
        Some(_) => vec![0],
        None => opts.packet_sizes.clone(),
    };
    let max_size = match &real {
        Some(v) => v.iter().map(|p| p.len()).max().unwrap_or(1).max(1),
        None => *opts.packet_sizes.iter().max().unwrap_or(&1514),
    };
    // A batch of `n` payloads: the capture's (cycled from payload `n`, so batches differ)
    // or synthetic ones of `size` bytes.
    let make = |n: usize, size: usize, seed: u64| -> Batch {
        match &real {
            Some(v) => {
                let bytes: usize = (0..n)
                    .map(|i| v[(n + i) % v.len()].len().next_multiple_of(gpu::ALIGN))
                    .sum();
                let mut b = Batch::new(n, bytes.max(gpu::ALIGN));
                for i in 0..n {
                    b.push(0, &v[(n + i) % v.len()])
                        .expect("sized for the batch");
                }
                b
            }
            None => batch(n, size, &fast, seed),
        }
    };
    // The 32-bit table renumbered hottest first ([`gpu::hot_first`]) by the lookups of a
    // sample (4,096 payloads: the capture's first, or synthetic ones of another seed), for
    // the hot-row kernels: their shared rows are then the sample's hottest states.
    if opts.kernels.iter().any(|k| k.is_hot()) {
        let sample: Vec<Vec<u8>> = match &real {
            Some(v) => v.iter().take(4096).cloned().collect(),
            None => {
                let b = batch(4096, max_size, &fast, 0xfeed);
                (0..b.len()).map(|i| b.payload(i).to_vec()).collect()
            }
        };
        let mut visits = vec![0u64; full.num_states as usize];
        for p in &sample {
            let mut s = 0usize;
            for &b in p {
                visits[s] += 1;
                s = full.transitions[(s << 8) + b as usize] as usize;
            }
        }
        let h = gpu::hot_first(&full, &visits);
        let mut t = AcTables::with_width(&[h.tables], Width::U32).map_err(|e| e.to_string())?;
        t.set_hot_ranking(h.ranking);
        tables.push((Width::U32, fast.len(), t, "hot-first"));
    }
    let mut points = Vec::new();
    for (width, npat, t, order) in &tables {
        let t = Arc::new(t.clone());
        let max_len = t.groups()[0].max_len as usize;
        let report_cap = match opts.report_cap {
            0 => report_cap_for(&t, max_size, &fast),
            n => n,
        };
        for &layout in &opts.kernels {
            if *order == "hot-first" && !layout.is_hot() {
                continue;
            }
            let lname = layout.name();
            // Rows the kernel shares (bounded by the group's states).
            let hot = t.hot_windows(layout.hot_rows(*width));
            let cfg = GpuConfig {
                report_cap,
                layout,
                max_packets,
                max_bytes: max_packets * max_size.next_multiple_of(gpu::ALIGN),
                // One staged buffer takes the largest batch (page-locked on a GPU).
                buffer_packets: max_packets,
                staging_buffers: 2,
                ..GpuConfig::default()
            };
            let off = Offload::new(&backend, t.clone(), None, cfg)
                .map_err(|e| e.to_string())?
                .ok_or("no offload backend")?;
            let mut worker = off.worker();
            for &n in &opts.batch_sizes {
                for &size in &sizes {
                    // Written into a staged buffer of the dispatcher's pool, as a worker
                    // does: the dispatcher copies no payload.
                    let b = staged(&worker, make(n, size, n as u64 ^ size as u64));
                    let payload: u64 = b.lens().iter().map(|&l| l as u64).sum();
                    let rows = (n * cfg.report_cap as usize * 2 * 4) as u64;
                    let h2d = b.bytes().len() as u64 + 12 * n as u64;
                    // Every slot of every row, as before the counters came back first.
                    let d2h_all = 4 * n as u64 + rows;
                    let stat = |a: &std::sync::atomic::AtomicU64| {
                        a.load(std::sync::atomic::Ordering::Relaxed)
                    };
                    let ds = off.dispatch_stats();
                    let back = || stat(&ds.bytes_d2h);
                    let back0 = back();
                    let (host0, copied0) = (stat(&ds.host_ns), stat(&ds.host_copy_bytes));
                    let is_staged = b.is_staged();
                    let lk = lookups(&b, layout, max_len);
                    let mut home = Some(b);
                    let mut found = Vec::new();
                    let mut err = None;
                    // Kernel-only from the executor's timer; the merge timed apart.
                    let (mut kernel_ns, mut kernel_runs, mut merge_ns, mut runs) = (0, 0, 0, 0);
                    let mut overflowed = 0;
                    let e2e = time(opts.seconds, || {
                        found.clear();
                        if let Some(b) = home.take() {
                            match worker.scan(b, &mut found) {
                                Ok((b, st)) => {
                                    home = Some(b);
                                    runs += 1;
                                    if let Some(k) = st.kernel_ns {
                                        kernel_ns += k.max(1);
                                        kernel_runs += 1;
                                    }
                                    merge_ns += st.merge_ns.unwrap_or(0);
                                    overflowed = st.overflowed;
                                }
                                Err(e) => err = Some(e.to_string()),
                            }
                        }
                    });
                    if let Some(e) = err {
                        return Err(format!("scan: {e}"));
                    }
                    let kernel = mean_s(kernel_ns, kernel_runs);
                    let merge = mean_s(merge_ns, runs).unwrap_or(0.0);
                    // What came back per batch: the counters, then the slots the fullest
                    // row used.
                    let d2h = (back() - back0) / runs.max(1);
                    // The dispatcher's own host work per device batch: its time, and the
                    // bytes it wrote or copied (entries and counters; no payload).
                    let host_s = (stat(&ds.host_ns) - host0) as f64 / 1e9 / runs.max(1) as f64;
                    let host_copy = (stat(&ds.host_copy_bytes) - copied0) / runs.max(1);
                    points.push(json!({
                        "kernel": "ac", "layout": lname,
                        "shared_rows": hot.rows(), "order": order,
                        "shared_bytes": hot.rows() * 256 * layout.shared_entry_bytes(*width),
                        "width": if *width == Width::U16 { 16 } else { 32 },
                        "patterns": npat, "batch": n, "packet_size": size,
                        "payload_bytes": payload, "bytes_h2d": h2d, "bytes_d2h": d2h,
                        "bytes_d2h_all_slots": d2h_all,
                        "staged": is_staged, "dispatch_host_s": host_s,
                        "dispatch_host_copy_bytes": host_copy,
                        "lookups": lk, "lookups_per_byte": lk as f64 / payload as f64,
                        "matches": found.len(),
                        "matches_per_packet": found.len() as f64 / n as f64,
                        "report_cap": cfg.report_cap, "overflowed": overflowed,
                        "kernel_s": kernel, "kernel_gbps": kernel.map(|k| gbps(payload, k)),
                        "e2e_s": e2e, "e2e_gbps": gbps(payload, e2e),
                        "merge_s": merge,
                        "device_e2e_gbps": gbps(payload, (e2e - merge).max(1e-9)),
                    }));
                }
            }
        }
    }
    // Regex DFAs: one job per packet and DFA (round-robin over the DFAs, 4 per packet).
    let dfas = regex_dfas(&set, opts.max_dfas);
    if !dfas.is_empty() {
        let dset =
            Arc::new(DfaSet::new(&dfas, detect::PCRE_DFA_MAX_STATES).map_err(|e| e.to_string())?);
        let t = Arc::new(tables[0].2.clone());
        // (the DFA kernel does not read the AC tables' order)
        let cfg = GpuConfig {
            max_packets,
            max_bytes: max_packets * max_size.next_multiple_of(gpu::ALIGN),
            ..GpuConfig::default()
        };
        let off = Offload::new(&backend, t, Some(dset.clone()), cfg)
            .map_err(|e| e.to_string())?
            .ok_or("no offload backend")?;
        let mut worker = off.worker();
        for &n in &opts.batch_sizes {
            for &size in &sizes {
                let b = make(n, size, 7 ^ n as u64);
                let jobs: Vec<DfaJob> = (0..n as u32)
                    .flat_map(|p| (0..4u32).map(move |k| (p, k)))
                    .map(|(packet, k)| DfaJob {
                        packet,
                        dfa: (packet * 4 + k) % dfas.len() as u32,
                    })
                    .collect();
                let walked: u64 = b.lens().iter().map(|&l| 4 * l as u64).sum();
                let mut ends = Vec::new();
                let mut home = Some((b, jobs));
                let mut err = None;
                let (mut kernel_ns, mut kernel_runs) = (0, 0);
                let e2e = time(opts.seconds, || {
                    if let Some((b, j)) = home.take() {
                        match worker.run_dfa(b, j, &mut ends) {
                            Ok(back) => {
                                home = Some(back);
                                if let Some(k) = worker.dfa_kernel_ns() {
                                    kernel_ns += k.max(1);
                                    kernel_runs += 1;
                                }
                            }
                            Err(e) => err = Some(e.to_string()),
                        }
                    }
                });
                let kernel = mean_s(kernel_ns, kernel_runs);
                if let Some(e) = err {
                    return Err(format!("DFA: {e}"));
                }
                points.push(json!({
                    "kernel": "dfa", "dfas": dfas.len(), "jobs_per_packet": 4,
                    "batch": n, "packet_size": size,
                    "bytes_walked": walked, "lookups": walked,
                    "kernel_s": kernel, "kernel_gbps": kernel.map(|k| gbps(walked, k)),
                    "e2e_s": e2e, "e2e_gbps": gbps(walked, e2e),
                }));
            }
        }
    }
    Ok(json!({
        "bench": "gpu",
        "executor": executor,
        "payloads": match &opts.pcap {
            Some(p) => json!(p),
            None => json!("synthetic"),
        },
        "rules": opts.rules,
        "fast_patterns": fast.len(),
        "ac_states": full.num_states,
        "regex_dfas": dfas.len(),
        "points": points,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_count_the_block_overlap() {
        let mut b = Batch::new(2, 4096);
        b.push(0, &[b'a'; 100]).unwrap();
        b.push(0, &[b'a'; 10]).unwrap();
        assert_eq!(lookups(&b, AcLayout::PacketPerThread, 8), 110);
        // Each chunk but the first also walks back min(7, its start): 100 bytes over 32
        // threads are 25 chunks of 4 (starts 4, 8, ...: 4 + 23 x 7), 10 bytes are 10
        // chunks of 1 (starts 1..9: 1 + 2 + ... + 7 + 7 + 7).
        assert_eq!(
            lookups(&b, AcLayout::BLOCK_WARP, 8),
            100 + 4 + 23 * 7 + 10 + (1 + 2 + 3 + 4 + 5 + 6 + 7 + 7 + 7)
        );
    }

    #[test]
    fn a_tiny_run_reports_every_point_and_says_it_is_the_cpu() {
        let dir = std::env::temp_dir().join(format!("osprey-bench-gpu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = dir.join("r.rules");
        std::fs::write(
            &rules,
            concat!(
                "alert tcp any any -> any any (msg:\"a\"; content:\"User-Agent: Mozilla\"; sid:1;)\n",
                "alert tcp any any -> any any (msg:\"b\"; content:\"index\"; pcre:\"/ind[e]x\\.html/\"; sid:2;)\n",
            ),
        )
        .unwrap();
        let opts = BenchGpuOptions {
            rules: vec![rules],
            batch_sizes: vec![8, 16],
            packet_sizes: vec![64, 200],
            seconds: 0.0,
            backend: "cpu-sim".into(),
            max_dfas: 4,
            report_cap: 0,
            kernels: parse_kernels("thread,block-32,hot-48k,hot16-1k").unwrap(),
            pcap: None,
        };
        let v = bench_gpu(&opts).unwrap();
        assert_eq!(v["executor"]["kind"], "cpu-sim");
        assert_eq!(v["fast_patterns"], 2);
        let points = v["points"].as_array().unwrap();
        // AC: 2 widths x 4 kernels x 2 x 2, the hot-first table's 2 hot kernels x 2 x 2;
        // DFA: 2 x 2.
        assert_eq!(points.len(), 32 + 8 + 4);
        assert_eq!(
            points.iter().filter(|p| p["order"] == "hot-first").count(),
            8
        );
        // The hot-row kernels share the rows of every state of this small automaton,
        // and find what the thread kernel finds.
        for p in points.iter().filter(|p| p["layout"] == "hot-48k") {
            assert!(p["shared_rows"].as_u64().unwrap() > 2, "{p}");
            let thread = points
                .iter()
                .find(|q| {
                    q["layout"] == "packet-per-thread"
                        && q["width"] == p["width"]
                        && q["order"] == "bfs"
                        && q["batch"] == p["batch"]
                        && q["packet_size"] == p["packet_size"]
                })
                .unwrap();
            assert_eq!(p["matches"], thread["matches"], "{p}");
        }
        for p in points {
            assert!(p["e2e_gbps"].as_f64().unwrap() > 0.0, "{p}");
            // Kernel-only comes from the executor's own timer, as on a GPU (CUDA events).
            assert!(p["kernel_gbps"].as_f64().unwrap() > 0.0, "{p}");
            assert!(
                p["kernel_s"].as_f64().unwrap() <= p["e2e_s"].as_f64().unwrap(),
                "{p}"
            );
            if p["kernel"] == "ac" {
                assert!(p["merge_s"].as_f64().unwrap() > 0.0, "{p}");
                assert!(p["device_e2e_gbps"].as_f64().unwrap() >= p["e2e_gbps"].as_f64().unwrap());
                assert_eq!(p["overflowed"], 0, "{p}");
            }
        }
        // "User-Agent: Mozilla" is in every payload's head (200 bytes: the whole head).
        let ac200 = points
            .iter()
            .find(|p| p["kernel"] == "ac" && p["packet_size"] == 200 && p["batch"] == 16)
            .unwrap();
        assert!(ac200["matches"].as_u64().unwrap() >= 16, "{ac200}");
        assert_eq!(ac200["payload_bytes"], 16 * 200);
        assert_eq!(ac200["bytes_h2d"], 16 * 208 + 12 * 16);
        // Counters and the used slots come back, never more than every slot.
        let (back, all) = (
            ac200["bytes_d2h"].as_u64().unwrap(),
            ac200["bytes_d2h_all_slots"].as_u64().unwrap(),
        );
        assert!(back > 16 * 4 && back <= all, "{ac200}");
        // Written into a staged buffer: the dispatcher wrote only the entries and the
        // counters of each payload on the host.
        assert_eq!(ac200["staged"], true, "{ac200}");
        assert_eq!(ac200["dispatch_host_copy_bytes"], 16 * 16, "{ac200}");
        assert!(ac200["dispatch_host_s"].as_f64().unwrap() > 0.0, "{ac200}");
        assert!(points.iter().any(|p| p["kernel"] == "dfa"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn kernel_lists_parse_and_a_bad_name_is_an_error() {
        let all = parse_kernels(ALL_KERNELS).unwrap();
        assert_eq!(all.len(), 7);
        assert_eq!(all[0], AcLayout::PacketPerThread);
        assert_eq!(all[4], AcLayout::SharedHot { bytes: 227 * 1024 });
        assert!(parse_kernels("thread,hot-999k").is_err());
    }
}

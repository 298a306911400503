//! GPU set-up off the critical path (issue 27, point 1), with `--gpu cpu-sim`: the set-up
//! cache (`--gpu-cache`) is filled by the first run, hit by the second, and a corrupt
//! file is rebuilt rather than trusted; a background set-up (the default) leaves the
//! cycles before it is ready on the CPU; the alerts are those of `--gpu off` every time.

mod common;

use common::{osprey, shared, tempdir};
use std::path::{Path, PathBuf};

/// (signature id, pcap_cnt) of every alert in `dir/eve.json`, sorted.
fn alerts(dir: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(dir.join("eve.json")).unwrap_or_default();
    let mut v: Vec<_> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event_type"] == "alert")
        .map(|e| {
            (
                e["alert"]["signature_id"].as_u64().unwrap_or(0),
                e["pcap_cnt"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    v.sort();
    v
}

fn gpu(dir: &Path, name: &str) -> u64 {
    common::stats(dir)["osprey"]["gpu"][name]
        .as_u64()
        .unwrap_or(0)
}

fn run(case: &Path, out: &Path, extra: &[&str]) {
    std::fs::create_dir_all(out).expect("log dir");
    let (pcap, rules) = (case.join("input.pcap"), case.join("test.rules"));
    let mut args: Vec<String> = [
        "-r",
        &pcap.display().to_string(),
        "-S",
        &rules.display().to_string(),
        "-l",
        &out.display().to_string(),
        "-k",
        "none",
        "--no-progress",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if case.join("suricata.yaml").exists() {
        args.push("-c".into());
        args.push(case.join("suricata.yaml").display().to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = osprey(&args);
    assert!(
        r.status.success(),
        "osprey {args:?}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
}

/// A corpus case whose rules raise alerts (payload contents to offload).
fn case() -> Option<PathBuf> {
    let corpus = shared("corpus/open")?;
    let c = corpus.join("bug-5162");
    c.join("input.pcap").exists().then_some(c)
}

#[test]
fn the_cache_is_filled_then_hit_and_a_corrupt_file_is_rebuilt() {
    let Some(case) = case() else { return };
    let dir = tempdir("gpu-setup-cache");
    let cache = dir.join("cache");
    let cache_s = cache.display().to_string();
    let sim = [
        "--gpu",
        "cpu-sim",
        "--gpu-policy",
        "always",
        "--gpu-size-threshold",
        "1",
        "--gpu-setup",
        "wait",
        "--gpu-cache",
        &cache_s,
    ];
    run(&case, &dir.join("off"), &["--gpu", "off"]);
    let want = alerts(&dir.join("off"));
    assert!(!want.is_empty(), "the case raises alerts");

    let first = dir.join("first");
    run(&case, &first, &sim);
    assert_eq!(alerts(&first), want, "cold cache vs off");
    assert!(gpu(&first, "cache_misses") >= 1);
    assert!(gpu(&first, "cache_stored") >= 1);
    assert_eq!(gpu(&first, "cache_hits"), 0);
    assert!(
        gpu(&first, "inspected") > 0,
        "payloads matched by the offload"
    );
    let files: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("the cache directory was made")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        files.iter().any(|f| f
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("ac-tables-cpu_sim-"))),
        "{files:?}"
    );
    // The offload plan's regex DFAs too (the same for every target).
    assert!(
        files.iter().any(|f| f
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("pcre-dfas-any-"))),
        "{files:?}"
    );

    let second = dir.join("second");
    run(&case, &second, &sim);
    assert_eq!(alerts(&second), want, "warm cache vs off");
    assert_eq!(gpu(&second, "cache_hits"), gpu(&first, "cache_misses"));
    assert_eq!(
        (gpu(&second, "cache_misses"), gpu(&second, "cache_stored")),
        (0, 0)
    );

    // One flipped byte in every file: each is rejected (checksum) and rebuilt.
    for f in &files {
        let mut data = std::fs::read(f).unwrap();
        let mid = data.len() / 2;
        data[mid] ^= 0x40;
        std::fs::write(f, &data).unwrap();
    }
    let third = dir.join("third");
    run(&case, &third, &sim);
    assert_eq!(alerts(&third), want, "rebuilt after corruption vs off");
    assert_eq!(gpu(&third, "cache_rejected"), files.len() as u64);
    assert_eq!(gpu(&third, "cache_stored"), files.len() as u64);
    assert_eq!(gpu(&third, "cache_hits"), 0);
    let fourth = dir.join("fourth");
    run(&case, &fourth, &sim);
    assert_eq!(gpu(&fourth, "cache_hits"), files.len() as u64);

    // Without a cache: the same alerts, no cache counters.
    let none = dir.join("none");
    run(&case, &none, &[&sim[..sim.len() - 1], &["none"]].concat());
    assert_eq!(alerts(&none), want);
    assert_eq!(gpu(&none, "cache_hits") + gpu(&none, "cache_misses"), 0);
}

#[test]
fn a_background_set_up_keeps_the_first_cycles_on_the_cpu() {
    let Some(case) = case() else { return };
    let dir = tempdir("gpu-setup-background");
    let cache_s = dir.join("cache").display().to_string();
    run(&case, &dir.join("off"), &["--gpu", "off"]);
    let want = alerts(&dir.join("off"));
    let bg = dir.join("bg");
    run(
        &case,
        &bg,
        &[
            "--gpu",
            "cpu-sim",
            "--gpu-policy",
            "always",
            "--gpu-cache",
            &cache_s,
        ],
    );
    // Whenever the GPU joined, every cycle before it ran on the CPU and the alerts are
    // those of `off`.
    assert_eq!(alerts(&bg), want, "background set-up vs off");
    assert_eq!(gpu(&bg, "cycles_cpu"), gpu(&bg, "setup_pending"));
    assert!(gpu(&bg, "cycles_cpu") + gpu(&bg, "cycles_gpu") > 0);
}

#[test]
fn the_measured_policy_counts_its_decisions_and_keeps_the_alerts() {
    let Some(src) = case() else { return };
    let dir = tempdir("gpu-setup-measured");
    // A capture long enough for the queue to reach beta: generated from the case's rules.
    let case = dir.join("case");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::copy(src.join("test.rules"), case.join("test.rules")).unwrap();
    let pcap = case.join("input.pcap").display().to_string();
    let rules = case.join("test.rules").display().to_string();
    let g = osprey(&[
        "gen",
        "-o",
        &pcap,
        "--rules",
        &rules,
        "--flows",
        "100",
        "--packets",
        "12000",
        "--size",
        "600",
        "--attack-fraction",
        "0.2",
        "--seed",
        "3",
    ]);
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let cache_s = dir.join("cache").display().to_string();
    run(
        &case,
        &dir.join("off"),
        &["--gpu", "off", "--runmode", "single"],
    );
    let want = alerts(&dir.join("off"));
    let m = dir.join("measured");
    run(
        &case,
        &m,
        &[
            "--gpu",
            "cpu-sim",
            "--runmode",
            "single",
            "--gpu-setup",
            "wait",
            "--gpu-cache",
            &cache_s,
        ],
    );
    assert_eq!(alerts(&m), want, "measured policy vs off");
    // The queue reaches beta on this capture (full RX batches): the cycles it gives to
    // the GPU are decided by the costs, the first ones measuring the GPU.
    let decided: u64 = [
        "cost_gpu",
        "cost_cpu_only",
        "cost_probe_gpu",
        "cost_probe_cpu",
    ]
    .iter()
    .map(|n| gpu(&m, n))
    .sum();
    assert!(gpu(&m, "cost_probe_gpu") >= 1, "the GPU was measured");
    assert_eq!(
        gpu(&m, "cycles_gpu"),
        gpu(&m, "cost_gpu") + gpu(&m, "cost_probe_gpu"),
        "GPU cycles are the measured and probing ones"
    );
    assert!(decided <= gpu(&m, "cycles_cpu") + gpu(&m, "cycles_gpu"));
}

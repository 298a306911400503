//! One feeder per GPU (issue 27 point 2) with `--gpu cpu-sim` and a simulated device round
//! trip (`--gpu-sim-latency`): with 1, 2 and 4 workers every run raises exactly the
//! alerts of `--gpu off`, the dispatcher merges the batches of several workers into one
//! device batch, and workers process packets while their batch is away; with
//! `--gpu-late cpu` they never wait for it.

mod common;

use common::{
    alert_keys, gpu_counter, osprey, run_into, shared, tempdir, GEN_ATTACK_RULES, GEN_BODY_RULE,
};
use std::path::Path;

/// `--gpu cpu-sim` with every batch offloaded, every payload, the set-up waited for, and
/// each device batch held `latency_us` microseconds.
fn sim_args<'a>(cache: &'a str, latency_us: &'a str) -> [&'a str; 12] {
    [
        "--gpu",
        "cpu-sim",
        "--gpu-policy",
        "always",
        "--gpu-size-threshold",
        "1",
        "--gpu-setup",
        "wait",
        "--gpu-cache",
        cache,
        "--gpu-sim-latency",
        latency_us,
    ]
}

/// Runs `pcap` with `rules` off and with cpu-sim at 1, 2 and 4 workers; every run's
/// alerts equal those of `--gpu off` with one worker. Returns the alerts and, summed over
/// the runs with several workers, (merged requests, device batches, requests), and the
/// packets processed while a batch was away over all runs.
fn compare(name: &str, pcap: &Path, rules: &Path, extra: &[&str]) -> (usize, (u64, u64, u64), u64) {
    let dir = tempdir(&format!("gpu-feeder-cmp-{name}"));
    let off = dir.join("off");
    run_into(&off, pcap, rules, "1", &[&["--gpu", "off"], extra].concat());
    let want = alert_keys(&off);
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap();
    let (mut merged, mut overlap) = ((0, 0, 0), 0);
    for threads in ["1", "2", "4"] {
        let log = dir.join(format!("sim{threads}"));
        run_into(
            &log,
            pcap,
            rules,
            threads,
            &[&sim_args(cache, "300")[..], extra].concat(),
        );
        assert_eq!(
            alert_keys(&log),
            want,
            "{name}: cpu-sim, {threads} workers vs off"
        );
        let reqs = gpu_counter(&log, "dispatch_requests");
        assert_eq!(
            reqs,
            gpu_counter(&log, "batches"),
            "{name}, {threads} workers: every worker batch went through the dispatcher"
        );
        assert!(
            gpu_counter(&log, "dispatch_device_batches") <= reqs,
            "{name}, {threads}"
        );
        // Every worker wrote its payloads into a staged buffer of the dispatcher's pool:
        // the dispatcher copied no payload, only 12 bytes of entries and 4 of counters
        // per payload.
        assert_eq!(
            gpu_counter(&log, "dispatch_unstaged_requests"),
            0,
            "{name}, {threads}"
        );
        assert!(
            reqs == 0 || gpu_counter(&log, "dispatch_staging_buffers") > 0,
            "{name}, {threads}"
        );
        assert_eq!(
            gpu_counter(&log, "dispatch_host_copy_bytes"),
            16 * gpu_counter(&log, "dispatch_packets"),
            "{name}, {threads}"
        );
        if threads != "1" {
            merged.0 += gpu_counter(&log, "dispatch_merged_requests");
            merged.1 += gpu_counter(&log, "dispatch_device_batches");
            merged.2 += reqs;
        } else {
            assert_eq!(gpu_counter(&log, "dispatch_merged_requests"), 0);
        }
        overlap += gpu_counter(&log, "overlap_packets");
        // Late results matched on the CPU: the worker never waits, same alerts.
        let late = dir.join(format!("late{threads}"));
        run_into(
            &late,
            pcap,
            rules,
            threads,
            &[&sim_args(cache, "300")[..], &["--gpu-late", "cpu"], extra].concat(),
        );
        assert_eq!(
            alert_keys(&late),
            want,
            "{name}: cpu-sim, late results on the CPU, {threads} workers vs off"
        );
        assert_eq!(gpu_counter(&late, "result_waits"), 0, "{name}, {threads}");
    }
    (want.len(), merged, overlap)
}

#[test]
fn several_workers_batches_are_merged_and_alerts_equal_off_on_generated_traffic() {
    let dir = tempdir("gpu-feeder-gen");
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        format!(
            "{GEN_ATTACK_RULES}{GEN_BODY_RULE}{}",
            concat!(
                "alert tcp any any -> any any (msg:\"get\"; flow:established,to_server; content:\"GET /\"; depth:5; sid:2;)\n",
                "alert tcp any any -> any any (msg:\"ok\"; flow:established,to_client; content:\"HTTP/1.1 200\"; depth:12; sid:3;)\n",
                "alert tcp any any -> any any (msg:\"html\"; content:\"<html\"; nocase; sid:4;)\n",
            )
        ),
    )
    .unwrap();
    let pcap = dir.join("gen.pcap");
    let out = osprey(&[
        "gen",
        "-o",
        pcap.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--flows",
        "200",
        "--packets",
        "6000",
        "--size",
        "1514",
        "--attack-fraction",
        "0.1",
        "--seed",
        "7",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (n, (merged, device, requests), overlap) = compare("gen", &pcap, &rules, &[]);
    eprintln!(
        "generated traffic: {n} alerts; 2 and 4 workers: {requests} requests in {device} device batches, {merged} merged; {overlap} packets processed while their batch was away"
    );
    assert!(n > 50, "the generated traffic raises alerts ({n})");
    assert!(merged > 0, "batches of several workers merged");
    assert!(device < requests, "fewer device batches than requests");
    assert!(overlap > 0, "packets processed while a batch was away");
}

#[test]
fn alerts_equal_off_on_corpus_cases_with_1_2_and_4_workers() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let (mut compared, mut seen) = (0, 0);
    for name in [
        "bug-5162",
        "bug-130",
        "detect-flowbits",
        "alert-testmyids-midstream5",
        "http-protocol-inspect-v2",
    ] {
        let case = corpus.join(name);
        let (pcap, rules) = (case.join("input.pcap"), case.join("test.rules"));
        if !pcap.exists() || !rules.exists() {
            continue;
        }
        let yaml = case.join("suricata.yaml");
        let yaml = yaml.to_str().unwrap();
        let extra: &[&str] = if case.join("suricata.yaml").exists() {
            &["-c", yaml]
        } else {
            &[]
        };
        seen += compare(name, &pcap, &rules, extra).0;
        compared += 1;
    }
    assert!(compared >= 3, "corpus cases found");
    assert!(seen > 5, "the cases raise alerts ({seen})");
}

//! `--gpu cpu-sim`: the whole offload path (per-worker batch buffer with group ids, the
//! dispatcher thread, report rows back to the worker, CPU option evaluation, the Kargus
//! balancer) with the `gpu` crate's CPU executor in place of a device, raises exactly the
//! alerts of `--gpu off`.

mod common;

use common::{alert_keys, et_open_rules, gpu_counter, osprey, shared, tempdir};
use std::path::Path;

fn run(pcap: &Path, rules: &Path, yaml: Option<&Path>, out: &Path, extra: &[&str]) {
    // `-l` names an existing directory (as in Suricata).
    std::fs::create_dir_all(out).expect("log dir");
    let mut args = vec![
        "-r".to_string(),
        pcap.display().to_string(),
        "-S".into(),
        rules.display().to_string(),
        "-l".into(),
        out.display().to_string(),
        "-k".into(),
        "none".into(),
        "--no-progress".into(),
    ];
    if let Some(y) = yaml {
        args.push("-c".into());
        args.push(y.display().to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    if extra.contains(&"cpu-sim") {
        // Offload from the first packet (set-up on the critical path), so that the counters
        // asserted below do not depend on how fast the background set-up is; the set-up
        // cache in a directory of the test's own.
        let cache = out.with_extension("gpu-cache");
        args.extend(["--gpu-setup".into(), "wait".into(), "--gpu-cache".into()]);
        args.push(cache.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = osprey(&args);
    assert!(
        r.status.success(),
        "osprey {args:?}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn cpu_sim_gives_the_alerts_of_off_on_corpus_cases() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let (mut compared, mut alerts_seen, mut offloaded, mut cpu_cycles) = (0, 0, 0, 0);
    for name in [
        "bug-5162",
        "bug-1045",
        "bug-130",
        "bug-5197",
        "bug-7390",
        "detect-flowbits",
        "util-action-tests__util-action-16",
        "bug-5464-verdict-02",
        "bug-8021-alert-max-verdict-01",
        "alert-testmyids-midstream5",
        "http-protocol-inspect-v2",
    ] {
        let case = corpus.join(name);
        let (pcap, rules) = (case.join("input.pcap"), case.join("test.rules"));
        if !pcap.exists() || !rules.exists() {
            continue;
        }
        let yaml = case.join("suricata.yaml");
        let yaml = yaml.exists().then_some(yaml.as_path());
        let off = tempdir(&format!("gpusim-off-{name}"));
        run(&pcap, &rules, yaml, &off, &["--gpu", "off"]);
        let want = alert_keys(&off);
        // Every batch offloaded, every payload (threshold 1 byte).
        let sim = tempdir(&format!("gpusim-always-{name}"));
        run(
            &pcap,
            &rules,
            yaml,
            &sim,
            &[
                "--gpu",
                "cpu-sim",
                "--gpu-policy",
                "always",
                "--gpu-size-threshold",
                "1",
            ],
        );
        assert_eq!(alert_keys(&sim), want, "{name}: cpu-sim (always) vs off");
        offloaded += gpu_counter(&sim, "inspected");
        // The Kargus balancer: these captures are short, the queue never reaches beta.
        let kargus = tempdir(&format!("gpusim-kargus-{name}"));
        run(&pcap, &rules, yaml, &kargus, &["--gpu", "cpu-sim"]);
        assert_eq!(alert_keys(&kargus), want, "{name}: cpu-sim (kargus) vs off");
        cpu_cycles += gpu_counter(&kargus, "cycles_cpu");
        assert_eq!(gpu_counter(&off, "cycles_gpu"), 0);
        alerts_seen += want.len();
        compared += 1;
    }
    assert!(compared >= 5, "corpus cases found");
    assert!(alerts_seen > 20, "the cases raise alerts ({alerts_seen})");
    assert!(
        offloaded > 100,
        "payloads inspected with offloaded matches: {offloaded}"
    );
    assert!(cpu_cycles > 0);
}

#[test]
fn cpu_sim_gives_the_alerts_of_off_with_et_open_over_sv_ether() {
    let out = tempdir("gpusim-et");
    let (Some(pcap), Some(rules)) = (shared("pcaps/sv-ether.pcap"), et_open_rules(&out)) else {
        return;
    };
    let single = ["--runmode", "single"];
    let off = out.join("off");
    run(
        &pcap,
        &rules,
        None,
        &off,
        &[&single[..], &["--gpu", "off"]].concat(),
    );
    let want = alert_keys(&off);
    assert!(want.len() > 100, "ET alerts on sv-ether: {}", want.len());
    let always = out.join("always");
    run(
        &pcap,
        &rules,
        None,
        &always,
        &[&single[..], &["--gpu", "cpu-sim", "--gpu-policy", "always"]].concat(),
    );
    assert_eq!(alert_keys(&always), want, "cpu-sim (always) vs off");
    assert!(gpu_counter(&always, "inspected") > 10_000);
    // The pcre of the candidates ran as regex DFAs in the same batches, with the alerts
    // unchanged.
    let (jobs, skipped) = (
        gpu_counter(&always, "pcre_dfa_jobs"),
        gpu_counter(&always, "pcre_skipped"),
    );
    eprintln!(
        "ET over sv-ether, cpu-sim always: {jobs} regex-DFA jobs, {} matched, {skipped} PCRE2 runs skipped",
        gpu_counter(&always, "pcre_dfa_matches")
    );
    // On this trace a DFA outcome rarely decides a pcre (TCP payload programs of
    // established flows run over the stream chunk, not the packet payload): only the
    // jobs are asserted; the decision path is tested in detect's offload tests.
    assert!(jobs > 0, "regex-DFA jobs: {jobs}");
    // Kargus: reading a file, RX batches are mostly full (more than X = 64), so the queue
    // grows until beta and the GPU takes over after a stretch of CPU cycles; the modes
    // change rarely (no oscillation).
    let kargus = out.join("kargus");
    run(
        &pcap,
        &rules,
        None,
        &kargus,
        &[&single[..], &["--gpu", "cpu-sim", "--gpu-policy", "kargus"]].concat(),
    );
    assert_eq!(alert_keys(&kargus), want, "cpu-sim (kargus) vs off");
    assert!(gpu_counter(&kargus, "cycles_cpu") > 0);
    assert!(gpu_counter(&kargus, "cycles_gpu") > 0);
    let cycles = gpu_counter(&kargus, "cycles_cpu") + gpu_counter(&kargus, "cycles_gpu");
    let switches = gpu_counter(&kargus, "mode_switches");
    assert!(
        switches >= 1 && switches * 100 < cycles,
        "{switches} switches in {cycles} cycles"
    );
}

#[test]
fn every_kernel_version_gives_the_alerts_of_off() {
    // `--gpu-kernel` picks the Aho-Corasick kernel (issue 27 point 5); the CPU executor
    // runs each version as its kernel does, so the alerts must not change.
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let mut compared = 0;
    let mut offloaded = [0u64; 3];
    for name in ["bug-5162", "detect-flowbits", "http-protocol-inspect-v2"] {
        let case = corpus.join(name);
        let (pcap, rules) = (case.join("input.pcap"), case.join("test.rules"));
        if !pcap.exists() || !rules.exists() {
            continue;
        }
        let yaml = case.join("suricata.yaml");
        let yaml = yaml.exists().then_some(yaml.as_path());
        let off = tempdir(&format!("gpukernel-off-{name}"));
        run(&pcap, &rules, yaml, &off, &["--gpu", "off"]);
        let want = alert_keys(&off);
        for (k, kernel) in ["packet-per-thread", "hot-48k", "hot16-227k"]
            .into_iter()
            .enumerate()
        {
            let sim = tempdir(&format!("gpukernel-{kernel}-{name}"));
            run(
                &pcap,
                &rules,
                yaml,
                &sim,
                &[
                    "--gpu",
                    "cpu-sim",
                    "--gpu-policy",
                    "always",
                    "--gpu-size-threshold",
                    "1",
                    "--gpu-kernel",
                    kernel,
                ],
            );
            assert_eq!(
                alert_keys(&sim),
                want,
                "{name}: --gpu-kernel {kernel} vs off"
            );
            offloaded[k] += gpu_counter(&sim, "inspected");
        }
        compared += 1;
    }
    assert!(compared >= 2, "corpus cases found");
    // Every version matched offloaded payloads (not every case offloads some).
    assert!(offloaded.iter().all(|&n| n > 0), "{offloaded:?}");
    let case = corpus.join("bug-5162");
    let bad = tempdir("gpukernel-bad");
    let (pcap, rules) = (case.join("input.pcap"), case.join("test.rules"));
    let r = osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-l",
        bad.to_str().unwrap(),
        "--gpu",
        "cpu-sim",
        "--gpu-kernel",
        "warp-of-nine",
    ]);
    assert!(!r.status.success());
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("unknown kernel"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

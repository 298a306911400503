//! Parallel runtime: on every case of the reference corpus (`../shared/corpus/open`),
//! the alerts with 2 workers given batches of one frame (the per-packet path) and 4
//! workers given batches of 128 (and 4 workers fed by 3 readers, batches of 100) are
//! the same multiset as with one worker, compared
//! on (signature id, addresses, ports, protocol, pcap_cnt) as the parity test does.
//! Alert order in eve.json may differ between runs; the set may not.
//!
//! Runs in-process through the engine API (rules compiled once per case, four runs),
//! with the case folder as working directory, its `suricata.yaml`, `-k none` unless the
//! case says otherwise and its `--set` arguments.

use engine::{ChecksumMode, RunOptions, SetupArgs};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Key = (u64, String, u64, String, u64, String, u64);

fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("OSPREY_REQUIRE_DATA").is_some_and(|v| v == "1") {
        panic!("OSPREY_REQUIRE_DATA=1 but {} is missing", path.display());
    }
    eprintln!("skipped: {} not found", path.display());
    None
}

fn alerts(eve: &Path) -> BTreeMap<Key, usize> {
    let mut m = BTreeMap::new();
    let text = std::fs::read_to_string(eve).unwrap_or_default();
    for line in text.lines() {
        let Ok(o) = serde_json::from_str::<Value>(line) else {
            panic!("eve.json line is not JSON: {line}");
        };
        if o["event_type"] != "alert" {
            continue;
        }
        let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
        let n = |k: &str| o[k].as_u64().unwrap_or(u64::MAX);
        let key = (
            o["alert"]["signature_id"].as_u64().unwrap_or(0),
            s("src_ip"),
            n("src_port"),
            s("dest_ip"),
            n("dest_port"),
            s("proto"),
            n("pcap_cnt"),
        );
        *m.entry(key).or_default() += 1;
    }
    m
}

fn case_args(dir: &Path) -> Option<(SetupArgs, PathBuf)> {
    let pcap = ["input.pcap", "input.pcapng"]
        .into_iter()
        .map(|p| dir.join(p))
        .find(|p| p.exists())?;
    let meta = std::fs::read_to_string(dir.join("case.toml")).unwrap_or_default();
    let args_line = meta
        .lines()
        .find(|l| l.starts_with("test_args"))
        .unwrap_or("");
    let args: Vec<String> = args_line
        .split_once('=')
        .map(|(_, v)| v)
        .and_then(|v| serde_json::from_str::<Vec<String>>(v.trim()).ok())
        .unwrap_or_default();
    let mut setup = SetupArgs {
        exclusive_rules: Some(dir.join("test.rules")),
        checksum: ChecksumMode::None,
        config: Some(dir.join("suricata.yaml")).filter(|p| p.exists()),
        ..SetupArgs::default()
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-k" => {
                let all = it.next().map(String::as_str) == Some("all");
                setup.checksum = if all {
                    ChecksumMode::All
                } else {
                    ChecksumMode::None
                };
            }
            "--set" => {
                if let Some(kv) = it.next() {
                    setup.sets.push(kv.replace("${TEST_DIR}", "."));
                }
            }
            _ => {}
        }
    }
    Some((setup, pcap))
}

#[test]
fn alerts_do_not_depend_on_the_number_of_workers() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    cases.sort();
    let out_root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-threads");
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut with_alerts = 0;
    for (i, dir) in cases.iter().enumerate() {
        let Some((mut args, pcap)) = case_args(dir) else {
            continue;
        };
        // Relative paths in a case's configuration are relative to the case folder.
        std::env::set_current_dir(dir).expect("enter case folder");
        let out = out_root.join(i.to_string());
        std::fs::create_dir_all(&out).unwrap();
        args.log_dir = Some(out.clone());
        let Ok(setup) = engine::setup(&args) else {
            continue;
        };
        let mut reference = None;
        // The last run spreads reading over three dispatchers, with batches that do not
        // divide the workers' clock ticks.
        for (threads, batch_size, readers) in [(1, 128, 1), (2, 1, 1), (4, 128, 1), (4, 100, 3)] {
            // Outputs append (as Suricata's): each run writes into an empty directory.
            std::fs::remove_dir_all(&out).unwrap();
            std::fs::create_dir_all(&out).unwrap();
            let mut source = capture::open(&pcap).expect("case pcap opens");
            let opts = RunOptions {
                threads,
                readers,
                ..RunOptions::default()
            };
            let config = engine::EngineConfig {
                batch_size,
                ..setup.engine.clone()
            };
            let report =
                engine::run(source.as_mut(), &config, &opts, |_| {}).expect("run succeeds");
            let got = alerts(&out.join("eve.json"));
            assert_eq!(
                report.stats.get("detect.alert").unwrap_or(0) as usize,
                got.values().sum::<usize>(),
                "{}: detect.alert and eve.json disagree with {threads} workers, batch {batch_size}, {readers} readers",
                dir.display()
            );
            match &reference {
                None => reference = Some(got),
                Some(r) if *r == got => {}
                Some(r) => failures.push(format!(
                    "{}: {threads} workers, batch {batch_size}, {readers} readers: {} alerts, 1 worker: {}",
                    dir.file_name().unwrap().to_string_lossy(),
                    got.values().sum::<usize>(),
                    r.values().sum::<usize>()
                )),
            }
        }
        compared += 1;
        if reference.is_some_and(|r| !r.is_empty()) {
            with_alerts += 1;
        }
    }
    println!("{compared} cases compared ({with_alerts} with alerts)");
    assert!(failures.is_empty(), "alerts differ: {failures:#?}");
    assert!(compared > 100, "only {compared} corpus cases ran");
}

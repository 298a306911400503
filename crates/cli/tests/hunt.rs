//! `osprey hunt` on a real multi-process Dask cluster (a standalone scheduler and two
//! worker processes started here): a generated archive of two links, each split into
//! consecutive files that flows cross, hunted in flow-hash buckets by one persistent
//! osprey per worker process (rules loaded once per worker), with one unit's worker
//! killed mid-write and another unit's osprey killed mid-run. The merged alerts equal
//! those of one `osprey -r` over each link's concatenated capture, none twice; reading
//! the files one by one instead loses the alerts of flows that cross files (so the
//! equality is not a given).
//!
//! Needs Python 3 with `dask distributed`: skipped with a reason without it, a failure
//! under `OSPREY_REQUIRE_DASK=1` (CI installs it and sets that).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `python3` can import Dask distributed (else the skip, or the failure in CI).
fn dask() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import dask.distributed"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var("OSPREY_REQUIRE_DASK").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_DASK=1 but python3 cannot import dask.distributed");
        }
        eprintln!(
            "skipped: python3 cannot import dask.distributed (pip install dask distributed; \
             OSPREY_REQUIRE_DASK=1 requires it)"
        );
    }
    ok
}

/// Python with the source tree's package importable.
fn python(args: &[&str]) -> Command {
    let mut c = Command::new("python3");
    c.env("PYTHONPATH", common::repo("python")).args(args);
    c
}

fn check(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The alerts of EVE files as a multiset of what makes two alerts the same: rule,
/// packet time, addresses, ports, protocol and `pcap_cnt` (`flow_id` is a per-process
/// hash; see python/osprey_hunt/merge.py).
fn alerts(paths: &[PathBuf]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for p in paths {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["event_type"] != "alert" {
                continue;
            }
            let key = format!(
                "{} {} {} {} {}:{} {}:{} {} {}",
                v["alert"]["gid"],
                v["alert"]["signature_id"],
                v["alert"]["rev"],
                v["timestamp"],
                v["src_ip"],
                v["src_port"],
                v["dest_ip"],
                v["dest_port"],
                v["proto"],
                v["pcap_cnt"]
            );
            *m.entry(key).or_insert(0) += 1;
        }
    }
    m
}

fn total(m: &BTreeMap<String, usize>) -> usize {
    m.values().sum()
}

/// `osprey -r INPUT` as each unit runs it (minus the bucket): its eve.json.
fn osprey_r(input: &Path, rules: &Path, log: &Path) -> PathBuf {
    std::fs::create_dir_all(log).unwrap();
    let out = common::osprey(&[
        "-r",
        input.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-l",
        log.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "--eve-types",
        "alert",
        "--no-progress",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    log.join("eve.json")
}

/// Processes started here, killed when the test ends (passed or not).
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn hunt_on_a_local_dask_cluster_equals_one_run_per_link() {
    if !dask() {
        return;
    }
    let dir = common::tempdir("hunt");
    // The package's own tests first (archive naming, split, merge, failure injection,
    // the persistent osprey restarted after it died).
    check(
        python(&["-m", "unittest", "discover", "-s"])
            .arg(common::repo("python/tests"))
            .env("OSPREY_BIN", env!("CARGO_BIN_EXE_osprey"))
            .output()
            .unwrap(),
        "python unit tests",
    );

    let rules = dir.join("hunt.rules");
    std::fs::write(&rules, common::GEN_ATTACK_RULES).unwrap();

    // Two links, each one generated capture split into consecutive files of 250 packets.
    let archive = dir.join("archive");
    let mut reference = BTreeMap::new();
    let mut one_by_one = 0;
    for (link, seed) in [("edge", "3"), ("core", "4")] {
        let pcap = dir.join(format!("{link}.pcap"));
        common::gen_link(&pcap, &rules, seed);
        let files = check(
            python(&["-m", "osprey_hunt.split"])
                .arg(&pcap)
                .arg(archive.join(link))
                .args(["--packets", "250", "--prefix", link])
                .output()
                .unwrap(),
            "split",
        );
        let files: Vec<&str> = files.lines().collect();
        assert!(files.len() >= 10, "{files:?}");
        let eve = osprey_r(&pcap, &rules, &dir.join(format!("ref-{link}")));
        for (k, n) in alerts(&[eve]) {
            *reference.entry(k).or_insert(0) += n;
        }
        for (i, f) in files.iter().enumerate() {
            let eve = osprey_r(Path::new(f), &rules, &dir.join(format!("file-{link}-{i}")));
            one_by_one += total(&alerts(&[eve]));
        }
    }
    assert!(total(&reference) > 40, "{}", total(&reference));
    assert!(
        one_by_one < total(&reference),
        "files read one by one lose the flows crossing them: {one_by_one} of {}",
        total(&reference)
    );

    // A standalone scheduler and two worker processes (each under a nanny that restarts
    // it), the package not installed on them: the hunt ships it.
    let sched = dir.join("scheduler.json");
    let mut procs = Procs(Vec::new());
    let spawn = |args: &[&str], log: &str| -> Child {
        let f = std::fs::File::create(dir.join(log)).unwrap();
        Command::new("python3")
            .args(["-m", "distributed.cli.dask_scheduler"])
            .args(args)
            .env_remove("PYTHONPATH")
            .current_dir(&dir)
            .stdout(f.try_clone().unwrap())
            .stderr(f)
            .spawn()
            .unwrap()
    };
    procs.0.push(spawn(
        &[
            "--scheduler-file",
            sched.to_str().unwrap(),
            "--port",
            "0",
            "--dashboard-address",
            "127.0.0.1:0",
            "--host",
            "127.0.0.1",
        ],
        "scheduler.log",
    ));
    let t = Instant::now();
    while !sched.exists() {
        assert!(t.elapsed() < Duration::from_secs(60), "no scheduler file");
        std::thread::sleep(Duration::from_millis(100));
    }
    for w in ["w1", "w2"] {
        let f = std::fs::File::create(dir.join(format!("{w}.log"))).unwrap();
        procs.0.push(
            Command::new("python3")
                .args(["-m", "distributed.cli.dask_worker"])
                .args(["--scheduler-file", sched.to_str().unwrap()])
                .args(["--nworkers", "1", "--nthreads", "1", "--name", w])
                .args(["--local-directory", dir.join(w).to_str().unwrap()])
                .env_remove("PYTHONPATH")
                .current_dir(&dir)
                .stdout(f.try_clone().unwrap())
                .stderr(f)
                .spawn()
                .unwrap(),
        );
    }

    // Three buckets per link; the worker running unit core.0001-of-0003 dies after
    // writing half of its alerts (to its temporary file); the osprey running unit
    // edge.0002-of-0003 is killed once the unit is sent to it.
    let out = dir.join("hunt.json");
    let summary = dir.join("summary.json");
    let hunt = Command::new(env!("CARGO_BIN_EXE_osprey"))
        .env("TZ", "UTC")
        .env_remove("OSPREY_BIN")
        .args([
            "hunt",
            archive.to_str().unwrap(),
            "-S",
            rules.to_str().unwrap(),
        ])
        .args([
            "-o",
            out.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
        ])
        .args([
            "--scheduler-file",
            sched.to_str().unwrap(),
            "--min-workers",
            "2",
        ])
        .args(["--wait", "60", "--buckets", "3", "--osprey-args", "-k none"])
        .args([
            "--inject-failure",
            "core.0001-of-0003:kill,edge.0002-of-0003:kill-osprey",
        ])
        .output()
        .unwrap();
    check(hunt, "osprey hunt");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["links"], 2);
    assert_eq!(s["units"], 6);
    assert_eq!(s["workers"], 2);
    // The killed attempts were retried: two attempts more than units, and the partial
    // output never reached the merge.
    assert_eq!(s["attempts"], 8, "{s}");
    // Rules loaded once per worker process: one osprey per worker, one more for the
    // worker that was restarted and one for the osprey that was killed, at most.
    assert_eq!(s["mode"], "socket");
    let starts = s["osprey_starts"].as_u64().unwrap();
    assert!((1..=4).contains(&starts), "{s}");
    let got = alerts(std::slice::from_ref(&out));
    assert_eq!(s["alerts"].as_u64().unwrap() as usize, total(&got));
    let missing: Vec<_> = reference
        .iter()
        .filter(|(k, n)| got.get(*k) != Some(n))
        .take(5)
        .collect();
    let extra: Vec<_> = got
        .iter()
        .filter(|(k, n)| reference.get(*k) != Some(n))
        .take(5)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "hunt {} alerts, reference {}; differing (reference): {missing:?}; (hunt): {extra:?}",
        total(&got),
        total(&reference)
    );
    // Time order in the merged file.
    let text = std::fs::read_to_string(&out).unwrap();
    let times: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["timestamp"].to_string())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    drop(procs);
    let _ = std::fs::remove_dir_all(&dir);
}

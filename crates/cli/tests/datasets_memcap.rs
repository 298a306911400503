//! A dataset's `memcap` and `hashsize` honoured end to end: over the HTTP capture
//! tests/data/http-files.pcap, `dataset:set` on `http.uri` alerts once per new URI;
//! with a memcap that leaves room for two URIs past the hash table (hashsize 16 rows of
//! 64 bytes, as Suricata counts them) only two are added, and the refused adds are
//! counted in stats under `osprey.datasets.<name>.memcap_drops` (Suricata 7.0.10 has no
//! such counter: it refuses silently), the same with one worker and with four. A
//! hashsize over `datasets.limits.single-hashsize` fails the rule, as in Suricata.

mod common;

use std::path::Path;

/// Two URIs of the capture fit: 1024 bytes of rows + 2 x (64 + URI length).
const RULES: &str = r#"alert http any any -> any any (msg:"new uri"; http.uri; dataset:set,uris,type string,memcap 1200,hashsize 16; sid:1;)
alert http any any -> any any (msg:"all uris"; http.uri; dataset:set,all,type string,hashsize 16; sid:2;)
alert http any any -> any any (msg:"too big"; http.uri; dataset:set,huge,type string,hashsize 300000; sid:3;)
"#;

fn run(dir: &Path, threads: &str) -> (usize, usize, serde_json::Value, String) {
    let out = dir.join(format!("out{threads}"));
    std::fs::create_dir_all(&out).unwrap();
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    let rules = dir.join("ds.rules");
    let mut args = vec![
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        out.to_str().unwrap(),
    ];
    if threads == "1" {
        args.extend(["--runmode", "single"]);
    } else {
        args.extend(["--threads", threads]);
    }
    let r = common::osprey(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let eve = std::fs::read_to_string(out.join("eve.json")).unwrap();
    let count = |sid: u64| {
        eve.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["event_type"] == "alert" && v["alert"]["signature_id"] == sid)
            .count()
    };
    (
        count(1),
        count(2),
        common::stats(&out),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

#[test]
fn memcap_and_hashsize_of_a_dataset() {
    let dir = common::tempdir("datasets-memcap");
    std::fs::write(dir.join("ds.rules"), RULES).unwrap();
    let (capped, all, stats, stderr) = run(&dir, "1");
    assert!(all > 2, "the capture has more than two URIs ({all})");
    assert_eq!(capped, 2, "two URIs fit in the memcap");
    let drops = &stats["osprey"]["datasets"];
    let uris = drops["uris"]["memcap_drops"].as_u64().unwrap();
    assert!(
        uris >= (all - 2) as u64,
        "every refused add is counted: {uris}"
    );
    assert_eq!(drops["all"]["memcap_drops"], 0);
    assert!(
        stderr.contains(
            "hashsize 300000 in dataset 'huge' exceeds configured 'single-hashsize' limit (262144)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("dataset uris: memcap of 1200 bytes reached"),
        "{stderr}"
    );
    // The sets are shared: the same with four workers, and the counter is one value
    // for the engine, not summed over the workers (which two URIs fit may differ; the
    // refused adds are at least one per other URI).
    let (capped4, all4, stats4, _) = run(&dir, "4");
    assert_eq!((capped4, all4), (capped, all));
    let uris4 = stats4["osprey"]["datasets"]["uris"]["memcap_drops"]
        .as_u64()
        .unwrap();
    assert!(uris4 >= (all - 2) as u64, "{uris4}");
}

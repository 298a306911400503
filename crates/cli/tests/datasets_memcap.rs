//! A dataset's `memcap` and `hashsize` honoured end to end: over the HTTP capture
//! tests/data/http-files.pcap, `dataset:set` on `http.uri` alerts once per new URI;
//! with a memcap that leaves room for two URIs past the hash table and the 1,000
//! entries a set preallocates (hashsize 16 rows of 64 bytes, 88 bytes a string entry,
//! as Suricata 7.0.10 counts them; the first 1,000 entries taken by a loaded list)
//! the set holds two more values: every new URI still alerts (Suricata 7.0.10 reuses an
//! entry of the full table for it: checked with a `state` file, which kept 1,002
//! values, the newest URIs among them), and the values that gave way are counted in
//! stats under `osprey.datasets.<name>.memcap_drops` (Suricata 7.0.10 has no such
//! counter), the same with one worker and with four. A
//! hashsize over `datasets.limits.single-hashsize` fails the rule, as in Suricata.

mod common;

use std::path::Path;

/// Two URIs of the capture fit: 1024 bytes of rows + 1,002 x 88 bytes (1,000 loaded
/// values and two URIs).
const RULES: &str = r#"alert http any any -> any any (msg:"new uri"; http.uri; dataset:set,uris,type string,load uris.lst,memcap 89200,hashsize 16; sid:1;)
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
    // 1,000 names no URI of the capture has ("/loaded-N", base64).
    let list: String = (0..1000)
        .map(|i| {
            use base64::Engine as _;
            let v = format!("/loaded-{i}");
            format!("{}\n", base64::engine::general_purpose::STANDARD.encode(v))
        })
        .collect();
    std::fs::write(dir.join("uris.lst"), list).unwrap();
    let (capped, all, stats, stderr) = run(&dir, "1");
    assert!(all > 2, "the capture has more than two URIs ({all})");
    // Every new URI alerts; past the two that fit, each takes a held value's place (a
    // URI that gave way and comes again is new again).
    assert!(capped >= all, "{capped} alerts for {all} URIs");
    let drops = &stats["osprey"]["datasets"];
    let uris = drops["uris"]["memcap_drops"].as_u64().unwrap();
    assert_eq!(
        uris,
        (capped - 2) as u64,
        "every value given way is counted"
    );
    assert_eq!(drops["all"]["memcap_drops"], 0);
    assert!(
        stderr.contains(
            "hashsize 300000 in dataset 'huge' exceeds configured 'single-hashsize' limit (262144)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("dataset uris: memcap of 89200 bytes reached"),
        "{stderr}"
    );
    // The sets are shared: the same with four workers, and the counter is one value
    // for the engine, not summed over the workers.
    let (capped4, all4, stats4, _) = run(&dir, "4");
    assert_eq!(all4, all);
    assert!(capped4 >= all, "{capped4}");
    let uris4 = stats4["osprey"]["datasets"]["uris"]["memcap_drops"]
        .as_u64()
        .unwrap();
    assert_eq!(uris4, (capped4 - 2) as u64);
    // Suricata 7.0.10 alerts on every URI too.
    if common::suricata().is_some() {
        let eve = common::suricata_rules_eve(
            Path::new("/etc/suricata/suricata.yaml"),
            &common::repo("crates/cli/tests/data/http-files.pcap"),
            &dir.join("ds.rules"),
            &dir.join("suricata"),
        );
        let sids: Vec<u64> = eve
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["event_type"] == "alert")
            .filter_map(|v| v["alert"]["signature_id"].as_u64())
            .collect();
        let n = |sid| sids.iter().filter(|&&s| s == sid).count();
        assert_eq!((n(1), n(2), n(3)), (all, all, 0));
    }
}

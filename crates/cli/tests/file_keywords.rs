//! The file keywords (`filename`, `fileext`, `filemagic`, `filesize`, `filemd5`) and
//! SMTP's `file.data` on the files of `tests/data/http-files.pcap` (seven HTTP files
//! cut from sv-ether.pcap) and `tests/data/smtp-mime.pcap` (four attachments): with the
//! stock configuration, Osprey alerts on the same transactions as Suricata 7.0.10
//! (its alerts are hard-coded here, and compared with a live run when `suricata` is
//! installed).

mod common;

use common::{osprey, repo, tempdir};

/// The rules; `{md5}` is replaced by the hash list's path (MD5 of the EICAR file).
const RULES: &str = r#"alert http any any -> any any (msg:"txt ext"; fileext:"txt"; sid:1;)
alert http any any -> any any (msg:"jpg name"; filename:"jpg"; sid:2;)
alert http any any -> any any (msg:"jpeg magic"; filemagic:"JPEG"; sid:3;)
alert http any any -> any any (msg:"big"; filesize:>1000; sid:4;)
alert http any any -> any any (msg:"small"; filesize:<200; sid:5;)
alert smtp any any -> any any (msg:"malware name"; filename:"malware"; sid:6;)
alert smtp any any -> any any (msg:"big txt"; fileext:"txt"; filesize:>10000; sid:7;)
alert smtp any any -> any any (msg:"eicar md5"; filemd5:{md5}; sid:8;)
alert smtp any any -> any any (msg:"eicar data"; flow:to_server; file.data; content:"EICAR-STANDARD"; sid:9;)
alert http any any -> any any (msg:"ascii"; filemagic:"ASCII text"; sid:10;)
alert http any any -> any any (msg:"not txt"; fileext:!"txt"; sid:11;)
"#;

/// `(sid, src_port, dest_port, tx_id)` of each alert, sorted.
fn alerts(eve: &str) -> Vec<(u64, u64, u64, u64)> {
    let mut v: Vec<_> = eve
        .lines()
        .filter(|l| l.contains("\"event_type\":\"alert\""))
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
            (
                r["alert"]["signature_id"].as_u64().unwrap(),
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["tx_id"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

fn run(
    dir: &std::path::Path,
    rules: &std::path::Path,
    pcap: &str,
    suricata: bool,
) -> Vec<(u64, u64, u64, u64)> {
    let out = dir
        .join(if suricata { "suricata" } else { "osprey" })
        .join(pcap);
    std::fs::create_dir_all(&out).unwrap();
    let pcap = repo(&format!("crates/cli/tests/data/{pcap}.pcap"));
    let yaml = std::path::Path::new("/etc/suricata/suricata.yaml");
    if suricata {
        assert!(common::run_suricata(yaml, &pcap, rules, &out));
    } else {
        let mut args = vec!["-r", pcap.to_str().unwrap(), "-k", "none"];
        if yaml.exists() {
            args.extend(["-c", yaml.to_str().unwrap()]);
        }
        args.extend(["--runmode", "single", "-S", rules.to_str().unwrap()]);
        args.extend(["-l", out.to_str().unwrap()]);
        let r = osprey(&args);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    alerts(&std::fs::read_to_string(out.join("eve.json")).unwrap())
}

#[test]
fn file_rules_alert_on_the_files_suricata_alerts_on() {
    let dir = tempdir("file_keywords");
    let md5 = dir.join("eicar.md5");
    std::fs::write(&md5, "44d88612fea8a8f36de82e1278abb02f\n").unwrap();
    let rules = dir.join("file.rules");
    std::fs::write(&rules, RULES.replace("{md5}", md5.to_str().unwrap())).unwrap();
    // Suricata 7.0.10's alerts on these captures with these rules.
    let http = vec![
        (1, 80, 12900, 0),
        (1, 443, 52316, 0),
        (1, 443, 52316, 1),
        (2, 80, 54503, 0),
        (4, 80, 1580, 0),
        (4, 80, 12900, 0),
        (5, 443, 52316, 0),
        (5, 46063, 8100, 0),
        (10, 80, 1580, 0),
        (10, 80, 12900, 0),
        (10, 8100, 46063, 0),
        (11, 80, 1580, 0),
        (11, 80, 54503, 0),
        (11, 8100, 46063, 0),
        (11, 46063, 8100, 0),
    ];
    let smtp = vec![
        (6, 40001, 25, 0),
        (6, 40004, 25, 0),
        (7, 1470, 25, 0),
        (8, 39202, 25, 0),
        (9, 39202, 25, 0),
    ];
    let magic = app::files::magic::available();
    let without_magic = |v: &[(u64, u64, u64, u64)]| -> Vec<_> {
        v.iter().copied().filter(|a| magic || a.0 != 10).collect()
    };
    if !magic {
        eprintln!("libmagic unavailable: the filemagic rule is not compared");
    }
    assert_eq!(
        without_magic(&run(&dir, &rules, "http-files", false)),
        without_magic(&http)
    );
    assert_eq!(run(&dir, &rules, "smtp-mime", false), smtp);
    if common::suricata().is_some() {
        assert_eq!(run(&dir, &rules, "http-files", true), http);
        assert_eq!(run(&dir, &rules, "smtp-mime", true), smtp);
    }
}

//! The `file-store` output (version 2) against Suricata 7.0.10 on two small captures
//! with files: `tests/data/http-files.pcap` (seven HTTP files, one cut at a 4 KiB body
//! limit, a `206` range) and `tests/data/smb.pcap` (two SMB files). Once with
//! `force-filestore` (every file stored), once with `filestore` rules (only the files
//! they match, with the rules' sids in `fileinfo.sid`). Checked: the same files stored
//! under the same names (`<dir>/<xx>/<sha256>` and the
//! `<sha256>.<seconds>.<file_id>.json` sidecars), each stored file's content hashing
//! to its name, the sidecar holding the file's `fileinfo` record as `eve.json` has it,
//! `tmp/` left empty, and the `fileinfo` objects (`stored`, `file_id`, `sid`) as
//! Suricata writes them (hard-coded here, and compared with a live run when `suricata`
//! is installed).

mod common;

use common::{repo, tempdir};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn config(force: bool) -> String {
    format!(
        "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
         filename: eve.json\n      types:\n        - http:\n            extended: yes\n        \
         - files:\n            force-magic: no\n  - file-store:\n      version: 2\n      \
         enabled: yes\n      dir: filestore\n      write-fileinfo: yes\n      \
         force-filestore: {}\napp-layer:\n  protocols:\n    http:\n      enabled: yes\n      \
         libhtp:\n        default-config:\n          request-body-limit: 4kb\n          \
         response-body-limit: 4kb\n",
        if force { "yes" } else { "no" }
    )
}

const RULES: &str =
    "alert http any any -> any any (msg:\"txt\"; fileext:\"txt\"; filestore; sid:1; rev:1;)\n\
alert smb any any -> any any (msg:\"smb\"; filestore; sid:3; rev:1;)\n";

/// Runs `prog` (`osprey` or `suricata`) into `dir` (created) with the configuration and
/// rules given; the log directory.
fn run(prog: &str, dir: &Path, force: bool, pcap: &str, rules: Option<&Path>) -> PathBuf {
    run_with(prog, dir, &config(force), pcap, rules)
}

/// [`run`] with the configuration `yaml`.
fn run_with(prog: &str, dir: &Path, yaml: &str, pcap: &str, rules: Option<&Path>) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let text = yaml;
    let yaml = dir.join("config.yaml");
    std::fs::write(&yaml, text).unwrap();
    let log = dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    let pcap = repo(&format!("crates/cli/tests/data/{pcap}.pcap"));
    let rules = rules.unwrap_or(Path::new("/dev/null"));
    let args = [
        "-c",
        yaml.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-S",
        rules.to_str().unwrap(),
        "-l",
        log.to_str().unwrap(),
    ];
    let out = if prog == "osprey" {
        common::osprey(&args)
    } else {
        std::process::Command::new(prog)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(
        out.status.success(),
        "{prog}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    log
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The files of the store of `log` (paths relative to it, sorted), after checking that
/// each stored file hashes to its name, each sidecar holds the `fileinfo` record
/// `eve.json` has for its `file_id`, and `tmp/` is empty.
fn stored(log: &Path) -> Vec<String> {
    let store = log.join("filestore");
    assert!(
        std::fs::read_dir(store.join("tmp"))
            .unwrap()
            .next()
            .is_none(),
        "tmp/ is empty"
    );
    let eve = std::fs::read_to_string(log.join("eve.json")).unwrap();
    let mut names = Vec::new();
    for sub in std::fs::read_dir(&store).unwrap() {
        let sub = sub.unwrap();
        for f in std::fs::read_dir(sub.path()).unwrap() {
            let f = f.unwrap();
            let name = f.file_name().into_string().unwrap();
            let bytes = std::fs::read(f.path()).unwrap();
            if let Some(meta) = name.strip_suffix(".json") {
                let id = meta.rsplit('.').next().unwrap();
                let text = String::from_utf8(bytes).unwrap();
                let line = eve
                    .lines()
                    .find(|l| {
                        l.contains("\"event_type\":\"fileinfo\"")
                            && l.contains(&format!("\"file_id\":{id},"))
                    })
                    .expect("the sidecar's record is in eve.json");
                assert_eq!(text, line, "sidecar {name}");
            } else {
                assert_eq!(hex(&Sha256::digest(&bytes)), name, "content of {name}");
            }
            names.push(format!("{}/{name}", sub.file_name().to_str().unwrap()));
        }
    }
    names.sort();
    names
}

/// The `fileinfo` objects of `eve.json`, as written, sorted.
fn fileinfos(log: &Path) -> Vec<String> {
    let eve = std::fs::read_to_string(log.join("eve.json")).unwrap();
    let mut v: Vec<String> = eve
        .lines()
        .filter(|l| l.contains("\"event_type\":\"fileinfo\""))
        .map(|l| {
            let at = l.find("\"fileinfo\":{").unwrap() + 11;
            l[at..l.len() - 1].to_string()
        })
        .collect();
    v.sort();
    v
}

const HTTP_FORCED: &[&str] = &[
    "21/214cdc3c03a17eda2c0f19a59ee83d2f292dafb3bf8381e8df329f72bb2bc90c",
    "21/214cdc3c03a17eda2c0f19a59ee83d2f292dafb3bf8381e8df329f72bb2bc90c.1713016779.7.json",
    "24/24a5d30c3951f4b0be1fcb36d1f71c6ce40af4385ee39ff27b8af82cafe4e971",
    "24/24a5d30c3951f4b0be1fcb36d1f71c6ce40af4385ee39ff27b8af82cafe4e971.1210953075.2.json",
    "75/758303b33454053f2b7d4c06439b56fba1f5edaa594dbdda950b07a2eea02bfd",
    "75/758303b33454053f2b7d4c06439b56fba1f5edaa594dbdda950b07a2eea02bfd.1713016779.6.json",
    "83/8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470",
    "83/8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470.1668614358.4.json",
    "8a/8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460",
    "8a/8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460.1668614359.5.json",
    "f8/f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2",
    "f8/f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2.1223906136.1.json",
    "ff/ff7eba1c46c5e1d525b24893523d49af7c2927230cbc39a393f3925f8295b079",
    "ff/ff7eba1c46c5e1d525b24893523d49af7c2927230cbc39a393f3925f8295b079.1554403730.3.json",
];

const SMB_STORED: &[&str] = &[
    "27/275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f",
    "27/275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f.1581458492.1.json",
    "4c/4cac14573e271cd786fdfc02287143fd3de95cbbd84754d29bd3387ecd914669",
    "4c/4cac14573e271cd786fdfc02287143fd3de95cbbd84754d29bd3387ecd914669.1476605364.2.json",
];

const HTTP_RULES: &[&str] = &[
    "83/8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470",
    "83/8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470.1668614358.2.json",
    "8a/8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460",
    "8a/8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460.1668614359.3.json",
    "f8/f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2",
    "f8/f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2.1223906136.1.json",
];

/// The `fileinfo` objects Suricata writes for http-files.pcap with the `fileext:"txt";
/// filestore;` rule (sid 1).
const HTTP_RULES_FILEINFO: &[&str] = &[
    r#"{"filename":"/","gaps":false,"state":"TRUNCATED","sha256":"24a5d30c3951f4b0be1fcb36d1f71c6ce40af4385ee39ff27b8af82cafe4e971","stored":false,"size":4096,"tx_id":0}"#,
    r#"{"filename":"/api/sdk/init2","gaps":false,"state":"CLOSED","sha256":"214cdc3c03a17eda2c0f19a59ee83d2f292dafb3bf8381e8df329f72bb2bc90c","stored":false,"size":224,"tx_id":0}"#,
    r#"{"filename":"/api/sdk/init2","gaps":false,"state":"CLOSED","sha256":"758303b33454053f2b7d4c06439b56fba1f5edaa594dbdda950b07a2eea02bfd","stored":false,"size":106,"tx_id":0}"#,
    r#"{"filename":"/file2pcap/bodytexttest.txt","sid":[1],"gaps":false,"state":"CLOSED","sha256":"f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2","stored":true,"file_id":1,"size":3302,"tx_id":0}"#,
    r#"{"filename":"/z4d4kWk.jpg","gaps":false,"state":"CLOSED","sha256":"ff7eba1c46c5e1d525b24893523d49af7c2927230cbc39a393f3925f8295b079","stored":false,"size":501,"start":500,"end":1000,"tx_id":0}"#,
    r#"{"filename":"f.txt","sid":[1],"gaps":false,"state":"CLOSED","sha256":"8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470","stored":true,"file_id":2,"size":95,"tx_id":0}"#,
    r#"{"filename":"f.txt","sid":[1],"gaps":false,"state":"CLOSED","sha256":"8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460","stored":true,"file_id":3,"size":640,"tx_id":1}"#,
];

#[test]
fn forced_files_are_stored_as_suricata_stores_them() {
    let dir = tempdir("file_store_forced");
    for (pcap, want) in [("http-files", HTTP_FORCED), ("smb", SMB_STORED)] {
        let log = run("osprey", &dir.join(pcap), true, pcap, None);
        assert_eq!(stored(&log), want, "{pcap}");
        let infos = fileinfos(&log);
        assert!(
            infos
                .iter()
                .all(|i| i.contains("\"stored\":true,\"file_id\":")),
            "{infos:#?}"
        );
        // Counted: every file stored, and each truncated one (a body limit, the flow's
        // end) in `osprey.app.files.truncated`.
        let st = common::stats(&log);
        let truncated = infos.iter().filter(|i| i.contains("TRUNCATED")).count();
        assert_eq!(truncated, 1, "{pcap}");
        assert_eq!(
            st["osprey"]["app"]["files"]["truncated"].as_u64(),
            Some(truncated as u64)
        );
        assert_eq!(
            st["osprey"]["file_store"]["stored"].as_u64(),
            Some(infos.len() as u64)
        );
        assert_eq!(st["osprey"]["file_store"]["not_whole"].as_u64(), Some(0));
        if common::suricata().is_some() {
            let s = run(
                "suricata",
                &dir.join(format!("{pcap}-suricata")),
                true,
                pcap,
                None,
            );
            assert_eq!(stored(&s), want, "{pcap}: Suricata");
            assert_eq!(infos, fileinfos(&s), "{pcap}: fileinfo");
        }
    }
}

#[test]
fn filestore_rules_store_the_files_they_match() {
    let dir = tempdir("file_store_rules");
    let rules = dir.join("store.rules");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&rules, RULES).unwrap();
    let log = run(
        "osprey",
        &dir.join("http"),
        false,
        "http-files",
        Some(&rules),
    );
    assert_eq!(stored(&log), HTTP_RULES);
    assert_eq!(fileinfos(&log), HTTP_RULES_FILEINFO);
    let smb = run("osprey", &dir.join("smb"), false, "smb", Some(&rules));
    assert_eq!(stored(&smb), SMB_STORED);
    assert!(fileinfos(&smb)
        .iter()
        .all(|i| i.contains("\"sid\":[3]") && i.contains("\"stored\":true")));
    // Without a rule that stores and without `force-filestore`, nothing is.
    let none = run("osprey", &dir.join("none"), false, "http-files", None);
    assert_eq!(stored(&none), Vec::<String>::new());
    // With the file store off, the rules store nothing and `fileinfo` names no sid.
    let off = config(false).replace("enabled: yes\n      dir", "enabled: no\n      dir");
    let log = run_with("osprey", &dir.join("off"), &off, "http-files", Some(&rules));
    assert!(!log.join("filestore").exists());
    let infos = fileinfos(&log);
    assert_eq!(infos.len(), 7);
    assert!(infos
        .iter()
        .all(|i| !i.contains("\"sid\"") && i.contains("\"stored\":false")));
    if common::suricata().is_some() {
        let s = run(
            "suricata",
            &dir.join("suricata"),
            false,
            "http-files",
            Some(&rules),
        );
        assert_eq!(stored(&s), HTTP_RULES, "Suricata");
        assert_eq!(fileinfos(&s), HTTP_RULES_FILEINFO, "Suricata");
    }
}

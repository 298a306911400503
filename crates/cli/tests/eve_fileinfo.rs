//! EVE `fileinfo` records of HTTP bodies on five HTTP flows cut from sv-ether.pcap
//! (`tests/data/http-files.pcap`): a percent-encoded URI path, a gzip response cut at
//! the body limit, a `206` with `Content-Range`, two chunked gzip responses named by
//! `Content-Disposition`, and a `POST` whose request and response bodies are both
//! files. With `force-hash` and 4 KiB body limits, the records (direction, names,
//! sizes, states, ranges, tx ids, digests, key order) are checked against what Suricata
//! 7.0.10 writes for the same capture (hard-coded here, and compared with a live run
//! when `suricata` is installed).

mod common;

use common::{osprey, repo, tempdir};

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - http:\n            \
    extended: yes\n        - files:\n            force-magic: no\n            \
    force-hash: [md5, sha1, sha256]\napp-layer:\n  protocols:\n    http:\n      \
    enabled: yes\n      libhtp:\n        default-config:\n          \
    request-body-limit: 4kb\n          response-body-limit: 4kb\n";

/// `(src_port, dest_port, app_proto, url, fileinfo as written)` of each `fileinfo`
/// record, sorted.
fn summary(text: &str) -> Vec<(u64, u64, String, String, String)> {
    let mut v: Vec<_> = text
        .lines()
        .filter(|l| l.contains("\"event_type\":\"fileinfo\""))
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
            // The object as written (key order included): `fileinfo` is the last key.
            let at = l.find("\"fileinfo\":{").expect("a fileinfo object") + 11;
            (
                r["src_port"].as_u64().unwrap(),
                r["dest_port"].as_u64().unwrap(),
                r["app_proto"].as_str().unwrap().to_string(),
                r["http"]["url"].as_str().unwrap().to_string(),
                l[at..l.len() - 1].to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn http_files_are_logged_as_suricata_logs_them() {
    let dir = tempdir("eve_fileinfo");
    let pcap = repo("crates/cli/tests/data/http-files.pcap");
    let yaml = dir.join("osprey.yaml");
    std::fs::write(&yaml, CONFIG).unwrap();
    let odir = dir.join("osprey");
    std::fs::create_dir_all(&odir).unwrap();
    let out = osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-S",
        "/dev/null",
        "-l",
        odir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = summary(&std::fs::read_to_string(odir.join("eve.json")).unwrap());
    // As Suricata 7.0.10 writes them for this capture and configuration.
    let want: Vec<(u64, u64, &str, &str, &str)> = vec![
        (
            80,
            1580,
            "http",
            "/",
            r#"{"filename":"/","gaps":false,"state":"TRUNCATED","sha256":"24a5d30c3951f4b0be1fcb36d1f71c6ce40af4385ee39ff27b8af82cafe4e971","stored":false,"size":4096,"tx_id":0}"#,
        ),
        (
            80,
            12900,
            "http",
            "/file2pcap/bodytexttest%2etxt",
            r#"{"filename":"/file2pcap/bodytexttest.txt","gaps":false,"state":"CLOSED","md5":"185964b8208d68b2ceb0035abfea1e7e","sha1":"6b3bb4c14b0d3b4a56ccb43c1799074f0190f523","sha256":"f88490618e1dd6d65ce1aa70437847b075e02ff3088d3ff528d86b6c1c7d01c2","stored":false,"size":3302,"tx_id":0}"#,
        ),
        (
            80,
            54503,
            "http",
            "/z4d4kWk.jpg",
            r#"{"filename":"/z4d4kWk.jpg","gaps":false,"state":"CLOSED","md5":"cb852d7455f111db5f5bc1514b37d56f","sha1":"7cc1c599d64ce99aa22467008bd3224ad16acc27","sha256":"ff7eba1c46c5e1d525b24893523d49af7c2927230cbc39a393f3925f8295b079","stored":false,"size":501,"start":500,"end":1000,"tx_id":0}"#,
        ),
        (
            443,
            52316,
            "http",
            "/async/newtab_promos",
            r#"{"filename":"f.txt","gaps":false,"state":"CLOSED","md5":"ba017ce9396dff3337a058fc382fcff8","sha1":"6ff68d213bcba136d62cf93fd144acf34cab0b4e","sha256":"8a3fd5a27e80192d91efa17ebf63fbc7b1cfd5d3faf1683af8e6c6479b1ab460","stored":false,"size":640,"tx_id":1}"#,
        ),
        (
            443,
            52316,
            "http",
            "/complete/search?client=chrome-omni&gs_ri=chrome-ext-ansg&xssi=t&q=&oit=0&oft=1&pgcl=20&gs_rn=42&sugkey=AIzaSyBOti4mM-6x9WDnZIjIeyEU21OpBXqWBgw",
            r#"{"filename":"f.txt","gaps":false,"state":"CLOSED","md5":"4895b7f68422cab9f2702b34b935acf5","sha1":"577755aa599e84855b0defb286e447c7e42b1eee","sha256":"8312c6730a11563b22671faec1810af8a107196651c5b49b9fc820284addd470","stored":false,"size":95,"tx_id":0}"#,
        ),
        (
            8100,
            46063,
            "http",
            "/api/sdk/init2",
            r#"{"filename":"/api/sdk/init2","gaps":false,"state":"CLOSED","md5":"c1074b702c63df7eced93df8f0b7453c","sha1":"10b5e50c3f4b73e3e16d65ae83d7179c5cc9c575","sha256":"214cdc3c03a17eda2c0f19a59ee83d2f292dafb3bf8381e8df329f72bb2bc90c","stored":false,"size":224,"tx_id":0}"#,
        ),
        (
            46063,
            8100,
            "http",
            "/api/sdk/init2",
            r#"{"filename":"/api/sdk/init2","gaps":false,"state":"CLOSED","md5":"371521099d21bd6b3e878cf74d85a5b4","sha1":"9b4f6df012f88dabcfa3aa7700ec7e8ca0f6fe33","sha256":"758303b33454053f2b7d4c06439b56fba1f5edaa594dbdda950b07a2eea02bfd","stored":false,"size":106,"tx_id":0}"#,
        ),
    ];
    let want: Vec<_> = want
        .into_iter()
        .map(|(s, d, a, u, f)| (s, d, a.to_string(), u.to_string(), f.to_string()))
        .collect();
    assert_eq!(got, want);

    if common::suricata().is_none() {
        return;
    }
    let eve = common::suricata_eve(&yaml, &pcap, &dir.join("suricata"));
    assert_eq!(
        got,
        summary(&eve),
        "fileinfo records differ from Suricata's"
    );
}

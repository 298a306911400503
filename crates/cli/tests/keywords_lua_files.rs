//! The file part of Suricata 7's Lua API in rules (`SCFileInfo`, `SCFileState`) end to
//! end, over tests/data/http-files.pcap (HTTP downloads and an upload) and
//! tests/data/h2c-doh.pcap (HTTP/2: only scripts after a sticky buffer run): Suricata
//! 7.0.10 hands a detection script no file, so scripts matching a file by name suffix,
//! by size and magic or by state `CLOSED` never alert, while a script testing for the
//! missing file (`nil` and "internal error: no file", two values each) alerts on every
//! response body it runs on, `filemagic`/`filename` in the same rule or not; a
//! script asking for an output script's file need (`needs["type"] = "file"`) fails
//! its rule; after `file.data` a script gets the file's data as its buffer (HTTP/2's
//! too) but still no file. Osprey's alerts equal the ones saved from Suricata 7.0.10
//! (tests/data/lua/files.suricata.txt) and a live run's when `suricata` is installed.
//! A script calling a function of Suricata's API that Osprey lacks is reported as an
//! unsupported rule.

mod common;

use std::path::Path;

const RULES: &str = r#"alert http any any -> any any (msg:"lua file name"; flow:to_client; lua:file-name.lua; sid:1;)
alert tcp any any -> any any (msg:"lua file size"; lua:file-size.lua; sid:2;)
alert http any any -> any any (msg:"lua file state"; lua:file-state.lua; sid:3;)
alert http any any -> any any (msg:"lua no file"; flow:to_client; lua:file-none.lua; sid:4;)
alert http any any -> any any (msg:"lua no file after filemagic"; flow:to_client; filemagic:"text"; lua:file-none.lua; sid:5;)
alert http any any -> any any (msg:"lua no file after filename"; filename:"a"; lua:file-none.lua; sid:6;)
alert http any any -> any any (msg:"lua file need"; lua:file-type.lua; sid:7;)
alert tcp any any -> any any (msg:"lua no file, packet"; lua:!file-none.lua; sid:8;)
alert http any any -> any any (msg:"http 200"; flow:to_client; http.stat_code; content:"200"; sid:9;)
alert http any any -> any any (msg:"lua file.data"; file.data; lua:file-buffer.lua; sid:10;)
"#;

/// The captures: HTTP/1 downloads and an upload, and an HTTP/2 (h2c) flow of DNS over
/// HTTPS requests with bodies (cut from sv-ether.pcap), where Suricata runs no script
/// of a named HTTP need (they are HTTP/1's) but runs the one after `file.data`.
const CAPTURES: [&str; 2] = ["http-files", "h2c-doh"];

fn config(scripts: &Path) -> String {
    format!(
        "%YAML 1.1\n---\ndefault-rule-path: {}\nsecurity:\n  lua:\n    allow-rules: yes\n\
         outputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
         filename: eve.json\n      types:\n        - alert\n",
        scripts.display(),
    )
}

/// `capture sid pcap_cnt` of every alert in `dir/eve.json`, sorted.
fn alerts(capture: &str, dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut v: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|v| v["event_type"] == "alert")
        .map(|v| {
            format!(
                "{capture} {} {}",
                v["alert"]["signature_id"],
                v["pcap_cnt"].as_u64().unwrap_or(0)
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn lua_file_functions_alert_as_suricata() {
    let dir = common::tempdir("keywords-lua-files");
    let scripts = common::repo("crates/cli/tests/data/lua");
    let yaml = dir.join("lua.yaml");
    std::fs::write(&yaml, config(&scripts)).unwrap();
    let rules = dir.join("files.rules");
    std::fs::write(&rules, RULES).unwrap();
    let live = common::suricata().is_some();
    let (mut got, mut live_want) = (Vec::new(), Vec::new());
    for capture in CAPTURES {
        let pcap = common::repo(&format!("crates/cli/tests/data/{capture}.pcap"));
        let out = dir.join(format!("osprey-{capture}"));
        let r = common::osprey_single(&yaml, &rules, &pcap, &out);
        let text =
            String::from_utf8_lossy(&r.stderr).to_string() + &String::from_utf8_lossy(&r.stdout);
        assert!(r.status.success(), "{text}");
        // The file need fails its rule with Suricata's words; the others load.
        assert!(
            text.contains("unsupported data type type") && text.contains("file-type.lua"),
            "{text}"
        );
        let stats = common::stats(&out);
        let lua = &stats["detect"]["lua"];
        // No script raised an error: the file functions answered, the scripts went on.
        assert_eq!(lua["errors"].as_u64(), Some(0), "{lua}");
        got.extend(alerts(capture, &out));
        if live {
            let sdir = dir.join(format!("suricata-{capture}"));
            std::fs::create_dir_all(&sdir).unwrap();
            assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
            live_want.extend(alerts(capture, &sdir));
        }
    }
    let mut want: Vec<String> =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/lua/files.suricata.txt"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
    // The no-file script alerts on every HTTP/1 body, with the file keywords too; the
    // HTTP/2 capture alerts on its status codes only.
    for prefix in [
        "http-files 4 ",
        "http-files 5 ",
        "http-files 6 ",
        "h2c-doh 9 ",
        "h2c-doh 10 ",
        "http-files 10 ",
    ] {
        assert!(want.iter().any(|l| l.starts_with(prefix)), "no {prefix}");
    }
    assert!(!want.iter().any(|l| l.starts_with("h2c-doh 4 ")));
    want.sort();
    got.sort();
    live_want.sort();
    common::assert_same_records(&got, &want);
    if live {
        common::assert_same_records(&got, &live_want);
    }
}

/// A script calling a function of Suricata 7.0.10's detection API that Osprey does
/// not provide (here `SCThreadInfo`) is refused as unsupported, with the function's
/// name, and never runs; the rule beside it still alerts.
#[test]
fn lua_missing_api_function_is_reported() {
    let dir = common::tempdir("keywords-lua-missing");
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    std::fs::write(
        dir.join("thread.lua"),
        "function init(args)\n  local needs = {}\n  needs[\"payload\"] = tostring(true)\n  \
         return needs\nend\n\nfunction match(args)\n  local tid, name = SCThreadInfo()\n  \
         return 1\nend\n",
    )
    .unwrap();
    let yaml = dir.join("lua.yaml");
    std::fs::write(&yaml, config(&dir)).unwrap();
    let rules = dir.join("lua.rules");
    std::fs::write(
        &rules,
        "alert tcp any any -> any any (msg:\"thread\"; lua:thread.lua; sid:1;)\n\
         alert http any any -> any any (msg:\"no file\"; flow:to_client; lua:file-none.lua; sid:2;)\n",
    )
    .unwrap();
    std::fs::copy(
        common::repo("crates/cli/tests/data/lua/file-none.lua"),
        dir.join("file-none.lua"),
    )
    .unwrap();
    let r = common::osprey_single(&yaml, &rules, &pcap, &dir.join("osprey"));
    let text = String::from_utf8_lossy(&r.stderr).to_string() + &String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{text}");
    assert!(
        text.contains("SCThreadInfo") && text.contains("not supported"),
        "{text}"
    );
    let got = alerts("x", &dir.join("osprey"));
    assert!(got.iter().all(|l| l.starts_with("x 2 ")), "{got:?}");
    assert_eq!(got.len(), 6, "{got:?}");
}

/// A body script runs as the body grows, where a `file.data` rule is inspected: on the
/// corpus capture http-body-inspect (a 290 KB download) the Lua rule alerts on the
/// same packet as a `file.data` rule, as in Suricata 7.0.10 (checked live when it is
/// installed; both rules' packet differs between the two engines, a `file.data`
/// timing difference outside Lua).
#[test]
fn lua_body_script_runs_where_file_data_does() {
    let Some(pcap) = common::shared("corpus/open/http-body-inspect/input.pcap") else {
        return;
    };
    let dir = common::tempdir("keywords-lua-body");
    let scripts = common::repo("crates/cli/tests/data/lua");
    let yaml = dir.join("lua.yaml");
    std::fs::write(&yaml, config(&scripts)).unwrap();
    let rules = dir.join("body.rules");
    std::fs::write(
        &rules,
        "alert http any any -> any any (msg:\"file data\"; flow:to_client; file.data; \
         content:!\"qqzzqqxxyy\"; sid:1;)\n\
         alert http any any -> any any (msg:\"lua body\"; flow:to_client; lua:file-none.lua; sid:2;)\n",
    )
    .unwrap();
    let check = |out: &Path| {
        let got = alerts("c", out);
        let at = |sid: &str| -> Vec<String> {
            got.iter()
                .filter_map(|l| l.strip_prefix(&format!("c {sid} ")).map(str::to_owned))
                .collect()
        };
        assert_eq!(at("1").len(), 1, "{got:?}");
        assert_eq!(at("1"), at("2"), "{got:?}");
        // Not the end-of-capture flush: the body's own packet.
        assert_ne!(at("2"), vec!["0".to_string()], "{got:?}");
    };
    let out = dir.join("osprey");
    let r = common::osprey_single(&yaml, &rules, &pcap, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    check(&out);
    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(&yaml, &pcap, &rules, &sdir));
    check(&sdir);
}

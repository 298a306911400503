//! Checking and listing options, run through the real binary: `-V`, `--build-info`,
//! `--list-keywords`, `--list-app-layer-protos`, `--list-runmodes`, `--dump-config`,
//! `--engine-analysis`.

mod common;

use common::{et_open_rules, osprey, tempdir};
use serde_json::Value;
use std::collections::HashSet;

fn stdout(args: &[&str]) -> String {
    let out = osprey(args);
    assert!(
        out.status.success(),
        "osprey {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn version_is_one_line_as_suricata() {
    for flag in ["-V", "--version"] {
        let text = stdout(&[flag]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        assert!(
            lines[0].starts_with(concat!(
                "This is Osprey version ",
                env!("CARGO_PKG_VERSION")
            )),
            "{text}"
        );
    }
}

#[test]
fn build_info_reports_features_simd_gpu_and_pcre() {
    let text = stdout(&["--build-info"]);
    assert!(text.starts_with("This is Osprey version "), "{text}");
    for key in [
        "Features: ",
        "SIMD support: ",
        "Hyperscan support:",
        "PCRE2 version:",
        "GPU support compiled:",
        "GPU usable:",
        "Default multi-pattern matcher:",
        "V-PATCH SIMD path:",
    ] {
        assert!(text.contains(key), "no {key:?} in:\n{text}");
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        let simd = text
            .lines()
            .find(|l| l.starts_with("SIMD support:"))
            .unwrap();
        assert!(simd.contains("AVX2"), "{simd}");
    }
    let gpu = text.lines().find(|l| l.contains("GPU usable:")).unwrap();
    // The same probe as the binary's: never fails, says why there is no GPU.
    let want = if gpu::probe(0).is_ok() {
        " yes ("
    } else {
        " no ("
    };
    assert!(gpu.contains(want), "{gpu}");
}

/// Splits `name;description;app layer;features;documentation;` rows.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("name;description;app layer;features;documentation")
    );
    lines
        .map(|l| {
            let l = l
                .strip_suffix(';')
                .unwrap_or_else(|| panic!("row ends with ';': {l}"));
            let cols: Vec<String> = l.split(';').map(str::to_owned).collect();
            assert_eq!(cols.len(), 5, "five columns: {l}");
            cols
        })
        .collect()
}

#[test]
fn list_keywords_lists_the_whole_registry() {
    let registry: HashSet<&str> = rules::keywords::all().map(|k| k.name).collect();

    let names = stdout(&["--list-keywords"]);
    let mut lines = names.lines();
    assert_eq!(lines.next(), Some("=====Supported keywords====="));
    let listed: HashSet<&str> = lines.map(|l| l.strip_prefix("- ").unwrap()).collect();
    assert_eq!(listed, registry);

    let rows = csv_rows(&stdout(&["--list-keywords=csv"]));
    let csv_names: HashSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(csv_names, registry);
    for r in &rows {
        assert!(!r[1].is_empty(), "description of {}", r[0]);
        assert!(
            r[4].starts_with("https://docs.suricata.io/"),
            "documentation of {}",
            r[0]
        );
    }
    let uri = rows.iter().find(|r| r[0] == "http.uri").unwrap();
    assert_eq!(uri[3], "No option:sticky buffer");
    assert_eq!(uri[2], "http,http1,http2");
    let content = rows.iter().find(|r| r[0] == "content").unwrap();
    assert_eq!(
        (content[2].as_str(), content[3].as_str()),
        ("Unset", "none")
    );

    let all = stdout(&["--list-keywords=all"]);
    assert_eq!(
        all.lines()
            .filter(|l| l.starts_with("\tDescription: "))
            .count(),
        registry.len()
    );

    let one = stdout(&["--list-keywords=content"]);
    assert!(one.starts_with("= content =\nDescription: "), "{one}");
    assert!(one.contains("\nDocumentation: https://"), "{one}");
    // An alias finds its keyword.
    let alias = stdout(&["--list-keywords=dns_query"]);
    assert!(alias.starts_with("= dns.query =\n"), "{alias}");

    let unknown = osprey(&["--list-keywords=no_such_keyword"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no_such_keyword"));
}

/// The CSV shape is Suricata's: the reference list parses with the same reader.
#[test]
fn keyword_csv_has_suricatas_columns() {
    let Some(reference) = common::shared("reference/suricata-7.0.10-keywords.csv") else {
        return;
    };
    let text = std::fs::read_to_string(reference).unwrap();
    let rows = csv_rows(&text);
    assert!(rows.iter().any(|r| r[0] == "content"));
}

#[test]
fn list_app_layer_protos_and_runmodes() {
    let text = stdout(&["--list-app-layer-protos"]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("=========Supported App Layer Protocols=========")
    );
    let protos: Vec<&str> = lines.collect();
    assert_eq!(protos.len(), app::registry::protocols().len());
    for p in ["http", "tls", "dns", "http2", "smb"] {
        assert!(protos.contains(&p), "{p} in {protos:?}");
    }

    let text = stdout(&["--list-runmodes"]);
    for (kind, mode) in [
        ("PCAP_FILE", "single"),
        ("PCAP_FILE", "autofp"),
        ("AF_PACKET_DEV", "workers"),
        ("UNIX_SOCKET", "single"),
    ] {
        let block = text
            .split(&format!("| {kind:<17} |"))
            .nth(1)
            .unwrap_or_else(|| panic!("{kind} in:\n{text}"));
        let block = block.split("\n|---").next().unwrap();
        assert!(
            block.contains(&format!("| {mode:<17} |"))
                || block.starts_with(&format!(" {mode:<17} |")),
            "{kind} {mode} in:\n{text}"
        );
    }
}

fn dump(args: &[&str]) -> Vec<(String, String)> {
    stdout(args)
        .lines()
        .map(|l| {
            let (k, v) = l
                .split_once(" = ")
                .unwrap_or_else(|| panic!("key = value: {l}"));
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

#[test]
fn dump_config_after_include_and_set() {
    let dir = tempdir("info-dump-config");
    let main = dir.join("main.yaml");
    std::fs::write(
        &main,
        "%YAML 1.1\n---\nstream:\n  midstream: false\n  memcap: 32mb\noutputs:\n  - fast:\n      enabled: yes\nrule-files:\n  - a.rules\n",
    )
    .unwrap();
    let inc = dir.join("inc.yaml");
    std::fs::write(&inc, "vlan:\n  use-for-tracking: false\n").unwrap();
    let lines = dump(&[
        "--dump-config",
        "-c",
        main.to_str().unwrap(),
        "--include",
        inc.to_str().unwrap(),
        "--set",
        "stream.midstream=true",
    ]);
    let get = |k: &str| {
        lines
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("stream"), Some("(null)"));
    assert_eq!(get("stream.midstream"), Some("true"));
    assert_eq!(get("stream.memcap"), Some("32mb"));
    assert_eq!(get("outputs.0"), Some("fast"));
    assert_eq!(get("outputs.0.fast.enabled"), Some("yes"));
    assert_eq!(get("rule-files.0"), Some("a.rules"));
    assert_eq!(get("vlan.use-for-tracking"), Some("false"));

    // Without -c: the built-in defaults, with --set applied on top.
    let lines = dump(&["--dump-config", "--set", "stream.midstream=true"]);
    let get = |k: &str| {
        lines
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("stream.midstream"), Some("true"));
    assert!(get("stream.reassembly.depth").is_some_and(|v| v.parse::<u64>().is_ok()));
    assert_eq!(get("packet-alert-max"), Some("15"));

    // A configuration that cannot be read is an error.
    let out = osprey(&["--dump-config", "-c", "/nonexistent/osprey.yaml"]);
    assert_eq!(out.status.code(), Some(1));
}

fn analysis(rules: &std::path::Path, dir: &std::path::Path) -> Vec<Value> {
    let out = osprey(&[
        "--engine-analysis",
        "-S",
        rules.to_str().unwrap(),
        "-l",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("rules.json")).expect("rules.json written");
    assert!(dir.join("rules_fast_pattern.txt").exists());
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn engine_analysis_of_hand_made_rules() {
    let dir = tempdir("info-engine-analysis");
    let rules = dir.join("t.rules");
    std::fs::write(
        &rules,
        concat!(
            "alert tcp any any -> any any (msg:\"explicit\"; content:\"abcdef\"; content:\"xy\"; fast_pattern; sid:1; rev:2;)\n",
            "alert tcp any any -> any any (msg:\"longest\"; content:\"ab\"; content:\"abcd\"; sid:2;)\n",
            "alert http any any -> any any (msg:\"http\"; flow:to_server; http.uri; content:\"/index.php\"; sid:3;)\n",
            "alert tcp any any -> any any (msg:\"bad\"; nosuchkeyword; sid:4;)\n",
            "alert tcp any any -> any any (msg:\"pcre only\"; pcre:\"/a+b/\"; sid:5;)\n",
        ),
    )
    .unwrap();
    let rows = analysis(&rules, &dir);
    assert_eq!(rows.len(), 5);
    let by_sid = |sid: u64| rows.iter().find(|r| r["sid"] == sid).unwrap();

    let r1 = by_sid(1);
    assert_eq!(r1["status"], "loaded");
    assert_eq!(r1["rev"], 2);
    assert_eq!(r1["line"], 1);
    assert!(r1["file"].as_str().unwrap().ends_with("t.rules"));
    assert_eq!(r1["fast_pattern"]["pattern"], "xy");
    assert_eq!(r1["fast_pattern"]["chosen_by"], "explicit");
    assert_eq!(r1["prefilter"], true);

    let r2 = by_sid(2);
    assert_eq!(r2["fast_pattern"]["pattern"], "abcd");
    assert_eq!(r2["fast_pattern"]["chosen_by"], "strongest");
    assert_eq!(r2["fast_pattern"]["candidates"], 2);

    let r3 = by_sid(3);
    assert_eq!(r3["kind"], "transaction");
    assert_eq!(r3["fast_pattern"]["buffer"], "http.uri");
    assert_eq!(r3["buffers"][0]["name"], "http.uri");

    let r4 = rows.iter().find(|r| r["line"] == 4).unwrap();
    assert_eq!(r4["status"], "invalid");
    assert!(r4["reason"]["message"]
        .as_str()
        .unwrap()
        .contains("nosuchkeyword"));

    let r5 = by_sid(5);
    assert_eq!(r5["prefilter"], false);
    assert!(r5["warnings"][0]
        .as_str()
        .unwrap()
        .starts_with("pcre without content"));

    let text = std::fs::read_to_string(dir.join("rules_fast_pattern.txt")).unwrap();
    assert!(
        text.starts_with("Osprey engine analysis: 5 rules, 4 loaded, 1 skipped"),
        "{text}"
    );
    assert!(text.contains("== 1:1:2 ("), "{text}");
}

#[test]
fn engine_analysis_of_et_open() {
    let dir = tempdir("info-engine-analysis-et");
    let Some(rules) = et_open_rules(&dir) else {
        return;
    };
    let rows = analysis(&rules, &dir);
    let total = std::fs::read_to_string(&rules)
        .unwrap()
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.is_empty() && !l.starts_with('#')
        })
        .count();
    assert!(rows.len() >= total * 99 / 100, "{} of {total}", rows.len());
    let loaded: Vec<&Value> = rows.iter().filter(|r| r["status"] == "loaded").collect();
    assert!(loaded.len() > rows.len() / 2, "{} loaded", loaded.len());
    // Every loaded rule with a fast pattern is prefiltered on that pattern, and its
    // pattern is one of the rule's buffers.
    let mut http = 0;
    for r in &loaded {
        let Some(fp) = r["fast_pattern"].as_object() else {
            assert_eq!(r["prefilter"], false, "{r}");
            continue;
        };
        let buffer = fp["buffer"].as_str().unwrap();
        http += usize::from(buffer.starts_with("http."));
        assert!(
            r["buffers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|b| b["name"] == buffer),
            "{r}"
        );
        assert!(fp["length"].as_u64().unwrap() > 0);
    }
    assert!(http > 1000, "{http} rules with an HTTP fast pattern");
    assert!(rows.iter().all(|r| r["line"].as_u64().unwrap() > 0));
}

/// Bytes of a pattern written as rules write it (`ab|2F 0D|c`).
fn pattern_bytes(p: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut parts = p.split('|');
    let mut hex = false;
    for part in parts.by_ref() {
        if hex {
            for h in part.split_whitespace() {
                out.push(u8::from_str_radix(h, 16).expect("hex byte"));
            }
        } else {
            out.extend_from_slice(part.as_bytes());
        }
        hex = !hex;
    }
    out
}

/// The fast patterns of the hand-made rules are the ones the reference Suricata's own
/// `--engine-analysis` reports (its rules.json `mpm` object). Known difference, not
/// tested here: among contents of one buffer Suricata takes the longest first and uses
/// strength between equally long ones, `detect::fastpat` the strongest (94.8% of the
/// ET Open fast patterns agree).
#[test]
fn engine_analysis_fast_patterns_agree_with_suricata() {
    if common::suricata().is_none() {
        return;
    }
    let dir = tempdir("info-engine-analysis-suricata");
    let rules = dir.join("t.rules");
    std::fs::write(
        &rules,
        concat!(
            "alert tcp any any -> any any (content:\"abcdef\"; content:\"xy\"; fast_pattern; sid:1;)\n",
            "alert tcp any any -> any any (content:\"ab\"; content:\"abcd\"; sid:2;)\n",
            "alert http any any -> any any (flow:to_server; http.uri; content:\"/index.php\"; sid:3;)\n",
            "alert http any any -> any any (flow:to_server; http.uri; content:\"/a\"; http.host; content:\"example.com\"; sid:4;)\n",
        ),
    )
    .unwrap();
    let ours = analysis(&rules, &dir);
    let suri_dir = dir.join("suricata");
    std::fs::create_dir_all(&suri_dir).unwrap();
    let out = std::process::Command::new("suricata")
        .args(["--engine-analysis", "-S"])
        .arg(&rules)
        .arg("-l")
        .arg(&suri_dir)
        .output()
        .expect("suricata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(suri_dir.join("rules.json")).expect("Suricata's rules.json");
    let mut compared = 0;
    for line in text.lines() {
        let theirs: Value = serde_json::from_str(line).unwrap();
        let sid = theirs["id"].as_u64().unwrap();
        let mine = ours.iter().find(|r| r["sid"] == sid).expect("same rules");
        let buffer = match theirs["mpm"]["buffer"].as_str().unwrap() {
            "payload" => "pkt_data".to_owned(),
            b => b.replace('_', "."),
        };
        assert_eq!(mine["fast_pattern"]["buffer"], buffer.as_str(), "sid {sid}");
        assert_eq!(
            pattern_bytes(mine["fast_pattern"]["pattern"].as_str().unwrap()),
            pattern_bytes(theirs["mpm"]["pattern"].as_str().unwrap()),
            "sid {sid}"
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
}

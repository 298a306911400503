//! The completeness check of the rule language (issue 25): every keyword Suricata
//! 7.0.10 lists (`../shared/reference/suricata-7.0.10-keywords.csv`, its
//! `--list-keywords=csv`) is either supported by Osprey's detector or listed in the
//! repository's `UNSUPPORTED.md` with its owning issue and the reason, and a keyword
//! that is not listed there is known to `osprey --list-keywords`.
//!
//! "Supported" is decided mechanically, so the list cannot drift: for each keyword the
//! test writes candidate rules (the keyword alone or with a value from a few generic
//! forms, before or after a content, in ip/tcp/udp/http rules, plus the representative
//! uses of `tests/data/keyword-samples.txt` for the keywords whose values those forms
//! do not fit) and runs `osprey rules check --json` over them once. A keyword is
//! supported when at least one of its rules parses and the detector does not skip it
//! as unsupported (a rule it refuses as wrong, e.g. for a missing list file, still
//! shows the keyword is evaluated). A keyword listed in `UNSUPPORTED.md` that turns out
//! supported fails the test too: the list is kept exact.

mod common;

use std::collections::{BTreeSet, HashMap};

/// Values tried with every keyword (`None`: the keyword alone).
const VALUES: [Option<&str>; 6] = [
    None,
    Some("1"),
    Some(">1"),
    Some("\"a\""),
    Some("a"),
    Some("a,1"),
];

/// Header protocols tried with every keyword.
const HEADS: [&str; 4] = ["ip", "tcp", "udp", "http"];

/// Candidate rules: `(rule text, keyword)`, sids from 100.
fn candidates(names: &[String], samples: &str, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |head: &str, body: &str, kw: &str| {
        let sid = 100 + out.len();
        out.push((
            format!("alert {head} any any -> any any (msg:\"x\"; {body} sid:{sid};)"),
            kw.to_owned(),
        ));
    };
    for k in names {
        if matches!(k.as_str(), "msg" | "sid") {
            // Every candidate rule has them.
            push("ip", "", k);
            continue;
        }
        for v in VALUES {
            let opt = v.map_or_else(|| k.clone(), |v| format!("{k}:{v}"));
            for h in HEADS {
                push(h, &format!("{opt};"), k);
                push(h, &format!("content:\"a\"; {opt};"), k);
                push(h, &format!("{opt}; content:\"a\";"), k);
            }
        }
    }
    for line in samples.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(3, " | ").collect();
        assert_eq!(parts.len(), 3, "keyword-samples.txt: {line}");
        push(parts[1], &parts[2].replace("@DIR@", dir), parts[0]);
    }
    out
}

/// The keyword names in the first backticked cell of each table row of
/// `UNSUPPORTED.md`.
fn listed(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(n, _)| n.to_owned()))
        .collect()
}

#[test]
fn every_suricata_keyword_is_supported_or_listed() {
    let Some(csv) = common::shared("reference/suricata-7.0.10-keywords.csv") else {
        return;
    };
    let csv = std::fs::read_to_string(csv).unwrap();
    let names: Vec<String> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(';').next())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    assert!(names.len() > 250, "{} names", names.len());

    let dir = common::tempdir("keyword-completeness");
    // The list files the samples load.
    std::fs::write(dir.join("md5.lst"), "0123456789abcdef0123456789abcdef\n").unwrap();
    std::fs::write(dir.join("rep.csv"), "YQ==,10\n").unwrap();
    let samples =
        std::fs::read_to_string(common::repo("crates/cli/tests/data/keyword-samples.txt")).unwrap();
    let rules = candidates(&names, &samples, dir.to_str().unwrap());
    let file = dir.join("candidates.rules");
    let text: Vec<&str> = rules.iter().map(|(r, _)| r.as_str()).collect();
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    let out = common::osprey(&["rules", "check", "--json", file.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json summary");

    // Lines (1-based) that did not parse or that the detector skips as unsupported.
    let mut bad: BTreeSet<u64> = BTreeSet::new();
    for d in v["diagnostics"].as_array().unwrap() {
        if d["severity"] == "error" {
            bad.insert(d["line"].as_u64().unwrap());
        }
    }
    for r in v["detector"]["rules"].as_array().unwrap() {
        // `rules check` loads no configuration, so `geoip` has no database there: it is
        // supported once one is configured (keywords_geoip.rs runs it on one).
        let no_database = r["message"]
            .as_str()
            .is_some_and(|m| m.contains("no GeoIP database"));
        if r["kind"] == "unsupported" && !no_database {
            bad.insert(r["line"].as_u64().unwrap());
        }
    }
    let mut supported: HashMap<&str, bool> = HashMap::new();
    for (i, (_, kw)) in rules.iter().enumerate() {
        let ok = !bad.contains(&(i as u64 + 1));
        *supported.entry(kw.as_str()).or_default() |= ok;
    }

    // Known: named by `--list-keywords=csv` or, for an alias, by `--list-keywords=NAME`.
    let list = common::osprey(&["--list-keywords=csv"]);
    assert!(list.status.success());
    let known: BTreeSet<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| l.split(';').next().map(str::to_owned))
        .collect();
    let is_known = |n: &str| {
        known.contains(n)
            || common::osprey(&[&format!("--list-keywords={n}")])
                .status
                .success()
    };

    let md = std::fs::read_to_string(common::repo("UNSUPPORTED.md")).expect("UNSUPPORTED.md");
    let listed = listed(&md);
    let listed_set: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    assert_eq!(listed.len(), listed_set.len(), "a keyword listed twice");

    let mut problems = Vec::new();
    for n in &names {
        let sup = supported.get(n.as_str()).copied().unwrap_or(false);
        let is_listed = listed_set.contains(n.as_str());
        if !sup && !is_listed {
            problems.push(format!("{n}: neither supported nor in UNSUPPORTED.md"));
        }
        if sup && is_listed {
            problems.push(format!("{n}: supported, remove it from UNSUPPORTED.md"));
        }
        if !is_listed && !is_known(n) {
            problems.push(format!("{n}: not known to osprey --list-keywords"));
        }
    }
    for n in &listed {
        if !names.contains(n) {
            problems.push(format!(
                "{n}: in UNSUPPORTED.md but not a Suricata 7.0.10 keyword"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!(
        "{} of {} Suricata 7.0.10 keywords unsupported: {}",
        listed.len(),
        names.len(),
        listed.join(", ")
    );
}

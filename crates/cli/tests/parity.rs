//! Alert parity with Suricata 7.0.10 on the reference corpus (`../shared/corpus/open`).
//!
//! Every case is run exactly as `../shared/corpus/README.md` and
//! `../shared/tools/parity.py` say (case folder as working directory, `-k none`, the
//! case's `suricata.yaml`, `--simulate-ips` and test arguments), and its alerts are
//! compared as a multiset on (signature_id, src_ip, src_port, dest_ip, dest_port, proto,
//! pcap_cnt). The test prints each failing case and the totals per group (`evader`,
//! `ids`, `ips`, as parity.py defines them) and fails if a group falls below the floor
//! recorded in `tests/parity/FLOOR` — parity may only go up. Known differences and their
//! causes: `tests/parity/KNOWN_DIFFERENCES.md`.

mod common;
mod corpus_case;

use common::{repo, shared};
use std::collections::BTreeMap;
use std::path::Path;

fn group(name: &str, meta: &toml::Table, dir: &Path) -> &'static str {
    if name.starts_with("http-evader") {
        return "evader";
    }
    let args: Vec<String> = meta
        .get("test_args")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let args = args.join(" ");
    let yaml = std::fs::read_to_string(dir.join("suricata.yaml")).unwrap_or_default();
    let inline_yaml = yaml.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("inline:") && matches!(t["inline:".len()..].trim(), "yes" | "true")
    });
    let simulate = meta
        .get("simulate_ips")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    if simulate
        || args.contains("inline")
        || args.contains("exception-policy")
        || args.contains("--simulate-")
        || inline_yaml
        || yaml.contains("exception-policy")
    {
        "ips"
    } else {
        "ids"
    }
}

#[test]
fn corpus_parity() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let mut cases: Vec<_> = std::fs::read_dir(&corpus)
        .expect("corpus readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    cases.sort();
    let out_root = common::tempdir("parity");
    let mut totals: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, dir) in cases.iter().enumerate() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let meta: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or_default();
        let g = group(&name, &meta, dir);
        let out = out_root.join(i.to_string());
        std::fs::create_dir_all(&out).unwrap();
        let result = corpus_case::run(dir, &out, &meta);
        let t = totals.entry(g).or_default();
        t.0 += 1;
        match result {
            Ok(()) => t.1 += 1,
            Err(why) => println!("FAIL [{g}] {name}: {why}"),
        }
    }
    let floor_text =
        std::fs::read_to_string(repo("tests/parity/FLOOR")).expect("tests/parity/FLOOR");
    let mut summary = Vec::new();
    let mut below = Vec::new();
    for (g, (n, ok)) in &totals {
        let pct = 100.0 * *ok as f64 / *n as f64;
        summary.push(format!("{g} {ok}/{n} = {pct:.1}%"));
        let floor = floor_text
            .lines()
            .filter_map(|l| l.split_once('='))
            .find(|(k, _)| k.trim() == *g)
            .and_then(|(_, v)| v.trim().parse::<usize>().ok())
            .unwrap_or(0);
        if *ok < floor {
            below.push(format!("{g}: {ok} identical cases, floor {floor}"));
        }
    }
    println!("parity {}", summary.join(", "));
    assert!(
        below.is_empty(),
        "parity fell below tests/parity/FLOOR: {below:?}"
    );
}

//! The repository's own corpus-style cases (`tests/parity/cases/<name>/`): each folder
//! holds `input.pcap`, `test.rules`, `expected.jsonl` (the alerts Suricata 7.0.10 logged,
//! one object a line) and `case.toml` (how Suricata was run: `test_args`,
//! `simulate_ips`), as in `../shared/corpus/open`. Every case must give exactly
//! Suricata's alerts, compared as a multiset on (signature_id, src_ip, src_port,
//! dest_ip, dest_port, proto, pcap_cnt). The cases are minimized reproductions of
//! differences found and fixed (their `case.toml` says what each one checks);
//! `tests/parity/tools/` holds the scripts that built them.

mod common;
mod corpus_case;

use common::repo;

#[test]
fn own_cases_match_suricata() {
    let root = repo("tests/parity/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/parity/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.jsonl").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    let out_root = common::tempdir("parity_cases");
    let mut failed = Vec::new();
    for (i, dir) in cases.iter().enumerate() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = out_root.join(i.to_string());
        std::fs::create_dir_all(&out).unwrap();
        match corpus_case::meta(dir).and_then(|m| corpus_case::run(dir, &out, &m)) {
            Ok(()) => println!("ok   {name}"),
            Err(why) => {
                println!("FAIL {name}: {why}");
                failed.push(name);
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases differ from Suricata: {failed:?}",
        failed.len(),
        cases.len()
    );
}

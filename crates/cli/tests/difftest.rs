//! The differential batch (issue 28): 5,000 generated cases with a fixed seed (a rule
//! with edge values and a flow built to hit or just miss it, each), Suricata 7.0.10 run
//! twice and Osprey once over the whole batch; every case must agree unless its
//! difference is listed in `tests/parity/KNOWN_DIFFERENCES.md` (section "Differential
//! batch"). Needs Suricata (skipped with a reason without it; a failure under
//! `OSPREY_REQUIRE_SURICATA=1`). The harness: `crates/difftest`; the larger batch with a
//! new seed each run: `bench/difftest.sh`.

mod common;

use difftest::batch::Batch;
use difftest::compare::{compare, Report};
use difftest::known::Known;
use difftest::oracle::{run_osprey, run_osprey_in, run_suricata, run_suricata_in, Mode, Run};

/// The CI batch's seed and size.
const SEED: u64 = 28;
const CASES: u32 = 5000;

#[test]
fn generated_batch_agrees_with_suricata_outside_known_differences() {
    if common::suricata().is_none() {
        return;
    }
    let dir = common::tempdir("difftest-ci");
    let batch = Batch::generate(SEED, CASES);
    let (rules, pcap) = (dir.join("batch.rules"), dir.join("batch.pcap"));
    batch.write_rules(&rules).expect("write rules");
    batch.write_pcap(&pcap).expect("write pcap");
    let s1 = run_suricata(&pcap, &rules, &dir.join("suricata-1"), 3).expect("suricata run 1");
    let s2 = run_suricata(&pcap, &rules, &dir.join("suricata-2"), 3).expect("suricata run 2");
    let osprey = std::path::Path::new(env!("CARGO_BIN_EXE_osprey"));
    let o = run_osprey(osprey, &pcap, &rules, &dir.join("osprey")).expect("osprey run");
    let known = Known::load(&common::repo("tests/parity/KNOWN_DIFFERENCES.md"));
    assert!(
        !known.is_empty() && known.len() <= 25,
        "{} known differences",
        known.len()
    );
    let report = compare(&batch, &s1, &s2, &o, &known);
    let text = report.text();
    eprintln!("{text}");
    // The batch exercises something: most rules load and a good share of cases alert.
    assert!(report.compared >= 4500, "{text}");
    assert!(report.suricata_alerted >= 1500, "{text}");
    let unexplained: Vec<String> = report
        .unexplained()
        .map(|d| {
            format!(
                "case {} {} {}: {}\n  suricata {:?}\n  osprey {:?}",
                d.index,
                d.template,
                d.kind.name(),
                batch.cases[d.index as usize].rule(),
                d.suricata.iter().map(|a| a.pcap_cnt).collect::<Vec<_>>(),
                d.osprey.iter().map(|a| a.pcap_cnt).collect::<Vec<_>>()
            )
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "{} differences not listed in tests/parity/KNOWN_DIFFERENCES.md:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}

/// `cases` of `families` drawn with the CI seed and run as an inline IPS
/// (`--simulate-ips`): Suricata twice, Osprey once, compared; also Osprey's run.
fn ips_batch(name: &str, families: &[&str], cases: u32) -> (Report, Run) {
    let dir = common::tempdir(name);
    let families: Vec<String> = families.iter().map(|f| f.to_string()).collect();
    let mut batch = Batch::generate_among(SEED, cases, &families);
    batch.mode = Mode::SimulateIps;
    let (rules, pcap) = (dir.join("batch.rules"), dir.join("batch.pcap"));
    batch.write_rules(&rules).expect("write rules");
    batch.write_pcap(&pcap).expect("write pcap");
    let run = |name: &str| {
        run_suricata_in(&pcap, &rules, &dir.join(name), 3, batch.mode).expect("suricata run")
    };
    let (s1, s2) = (run("suricata-1"), run("suricata-2"));
    let osprey = std::path::Path::new(env!("CARGO_BIN_EXE_osprey"));
    let o =
        run_osprey_in(osprey, &pcap, &rules, &dir.join("osprey"), batch.mode).expect("osprey run");
    let known = Known::load(&common::repo("tests/parity/KNOWN_DIFFERENCES.md"));
    (compare(&batch, &s1, &s2, &o, &known), o)
}

/// The `replace` family run as an inline IPS on the capture (`--simulate-ips`), 2,000
/// cases of the CI seed: Suricata 7.0.10 ignores `replace` there as in IDS mode, so the
/// alerts and the payloads they log (stream data up to the receiver's ACK) must agree
/// on every case. Skipped without Suricata as the batch above.
#[test]
fn replace_family_agrees_in_ips_mode_with_payloads() {
    if common::suricata().is_none() {
        return;
    }
    let (report, o) = ips_batch("difftest-ci-ips", &["replace"], 2000);
    let text = report.text();
    eprintln!("{text}");
    assert!(report.compared >= 1700, "{text}");
    assert!(report.suricata_alerted >= 900, "{text}");
    // The payloads were logged and compared.
    let logged = o.alerts.values().flatten().filter(|a| a.payload.is_some());
    assert!(logged.count() >= 800, "{text}");
    assert_eq!(report.diffs.len(), 0, "{text}");
}

/// IPS mode's app-layer alert timing (bench/RESULTS.md "IPS mode: app-layer alert
/// timing"): 800 `tls` and `dns` cases of the CI seed with `--simulate-ips`, every one
/// must agree with Suricata, payloads included (before the inline transaction rules,
/// 40 of them differed: alerts on the ClientHello's packet or an ACK).
#[test]
fn tls_and_dns_families_agree_in_ips_mode() {
    if common::suricata().is_none() {
        return;
    }
    let (report, _) = ips_batch("difftest-ci-ips-tls", &["tls", "dns"], 800);
    let text = report.text();
    eprintln!("{text}");
    assert!(report.compared >= 650, "{text}");
    assert!(report.suricata_alerted >= 250, "{text}");
    assert_eq!(report.diffs.len(), 0, "{text}");
}

/// The minimized cases of fixed differences (`tests/parity/difftest/fixed/`): Osprey
/// loads or refuses the rule as Suricata did and raises the alerts of `expected.jsonl`.
/// Suricata's answers are in the folders; its stock configuration (which Osprey reads
/// here, as the harness ran it) comes with an installed Suricata.
#[test]
fn fixed_difference_cases_stay_fixed() {
    if !std::path::Path::new(difftest::oracle::SURICATA_YAML).is_file() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
        }
        eprintln!("skipped: /etc/suricata/suricata.yaml not found (Suricata not installed)");
        return;
    }
    let root = common::repo("tests/parity/difftest/fixed");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/parity/difftest/fixed")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 4, "{} fixed cases", dirs.len());
    let osprey = std::path::Path::new(env!("CARGO_BIN_EXE_osprey"));
    let out = common::tempdir("difftest-fixed");
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let meta: toml::Value =
            toml::from_str(&std::fs::read_to_string(d.join("case.toml")).unwrap()).unwrap();
        let rules = d.join("test.rules");
        // Refusals as the harness reads them: `osprey rules check` and the run's own
        // messages (Lua and list rules depend on the run's settings and files).
        // A case made in IPS mode (`difftest --simulate-ips`) runs as the harness ran it.
        let mode = match meta.get("simulate_ips").and_then(|v| v.as_bool()) {
            Some(true) => Mode::SimulateIps,
            _ => Mode::Ids,
        };
        let run = run_osprey_in(
            osprey,
            &d.join("input.pcap"),
            &rules,
            &out.join(&name),
            mode,
        )
        .expect("osprey run");
        let refused = !run.rejected_lines.is_empty();
        assert_eq!(
            Some(refused),
            meta["suricata_rejects_rule"].as_bool(),
            "{name}: Osprey {} the rule",
            if refused { "refuses" } else { "loads" }
        );
        let mut got: Vec<String> = run
            .alerts
            .values()
            .flatten()
            .map(|a| canonical(a.corpus_json()))
            .collect();
        let mut want: Vec<String> = std::fs::read_to_string(d.join("expected.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| canonical(serde_json::from_str(l).unwrap()))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}: alerts differ from Suricata's");
    }
}

/// An alert object as one string with its keys in sorted order, so that the harness's
/// `expected.jsonl` and Osprey's records compare by value, whatever their key order.
fn canonical(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => {
            let sorted: std::collections::BTreeMap<String, serde_json::Value> =
                m.into_iter().collect();
            serde_json::to_string(&sorted).unwrap()
        }
        other => other.to_string(),
    }
}

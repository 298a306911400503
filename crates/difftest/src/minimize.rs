//! One corpus-style case folder per difference: `input.pcap` with only the case's flow,
//! `test.rules` with only its rule, `expected.jsonl` from Suricata on that pair (the
//! corpus's reduced alert records), `osprey.jsonl` from Osprey on it, and `case.toml`
//! (how it was made, and whether the difference survives on its own).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::batch::{write_case, Batch};
use crate::compare::Diff;
use crate::oracle::{fresh_dir, run_osprey_in, run_suricata_in, AlertKey, Mode};

/// What minimizing one difference gave.
#[derive(Debug)]
pub struct Minimized {
    /// The case folder.
    pub dir: PathBuf,
    /// Suricata's alerts on the case alone.
    pub suricata: Vec<AlertKey>,
    /// Osprey's.
    pub osprey: Vec<AlertKey>,
    /// Whether they still differ (or, for an acceptance difference, whether the engines
    /// still disagree on loading the rule).
    pub reproduces: bool,
}

fn jsonl(alerts: &[AlertKey]) -> String {
    alerts
        .iter()
        .map(|a| a.corpus_json().to_string() + "\n")
        .collect()
}

/// Writes the case folder of `d` under `root` (named `dt-<seed>-<index>`) and runs both
/// engines on it.
pub fn minimize(batch: &Batch, d: &Diff, osprey: &Path, root: &Path) -> Result<Minimized, String> {
    let case = &batch.cases[d.index as usize];
    let name = format!("dt-{}-{}", batch.seed, d.index);
    let dir = fresh_dir(root, &name).map_err(|e| e.to_string())?;
    let (rules, pcap) = (dir.join("test.rules"), dir.join("input.pcap"));
    write_case(case, &rules, &pcap).map_err(|e| e.to_string())?;
    let work = std::env::temp_dir().join(format!("difftest-min-{}-{name}", std::process::id()));
    let s = run_suricata_in(&pcap, &rules, &work.join("suricata"), 3, batch.mode)?;
    let o = run_osprey_in(osprey, &pcap, &rules, &work.join("osprey"), batch.mode)?;
    let _ = std::fs::remove_dir_all(&work);
    let flatten = |r: &crate::oracle::Run| -> Vec<AlertKey> {
        let mut v: Vec<AlertKey> = r.alerts.values().flatten().cloned().collect();
        v.sort_by_key(|a| (a.pcap_cnt, a.sid));
        v
    };
    let (sa, oa) = (flatten(&s), flatten(&o));
    let s_rej = !s.rejected_lines.is_empty();
    let o_rej = !o.rejected_lines.is_empty();
    let reproduces = if s_rej || o_rej {
        s_rej != o_rej
    } else {
        let mut x = sa.clone();
        let mut y = oa.clone();
        x.sort();
        y.sort();
        x != y
    };
    std::fs::write(dir.join("expected.jsonl"), jsonl(&sa)).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("osprey.jsonl"), jsonl(&oa)).map_err(|e| e.to_string())?;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Made by the differential harness (crates/difftest); expected.jsonl is what"
    );
    let _ = writeln!(
        t,
        "# Suricata 7.0.10 logged on this pair, osprey.jsonl what Osprey logged."
    );
    let _ = writeln!(t, "source_test = {:?}", name);
    let _ = writeln!(t, "template = {:?}", d.template);
    let _ = writeln!(t, "difference = {:?}", d.kind.name());
    let _ = writeln!(
        t,
        "intent = {:?}",
        format!("{:?}", case.spec.intent).to_lowercase()
    );
    let _ = writeln!(t, "seed = {}", batch.seed);
    let _ = writeln!(t, "case_index = {}", d.index);
    let _ = writeln!(t, "families = {:?}", batch.families);
    let _ = writeln!(t, "rule = {:?}", case.rule());
    let _ = writeln!(t, "suricata_rejects_rule = {s_rej}");
    let _ = writeln!(t, "osprey_rejects_rule = {o_rej}");
    let _ = writeln!(t, "reproduces_alone = {reproduces}");
    let _ = writeln!(t, "pcap_format = \"pcap\"");
    let _ = writeln!(t, "packets = {}", case.frames(0).len());
    let _ = writeln!(t, "rules = 1");
    let _ = writeln!(t, "protocols = [{:?}]", case.spec.proto);
    let _ = writeln!(t, "alerts = {}", sa.len());
    let _ = writeln!(t, "osprey_alerts = {}", oa.len());
    let _ = writeln!(t, "config = {:?}", crate::oracle::SURICATA_YAML);
    let _ = writeln!(t, "own_suricata_yaml = false");
    // The run's settings, the rule directory as the case folder (run from there); an
    // IPS case's payload setting with them (`--simulate-ips` is `simulate_ips`).
    let ips = batch.mode == Mode::SimulateIps;
    let mut args: Vec<String> = crate::oracle::run_args(Path::new("test.rules"))
        .into_iter()
        .map(|a| match a.strip_prefix("default-rule-path=") {
            Some(_) => "default-rule-path=.".to_string(),
            None => a,
        })
        .collect();
    args.extend(
        batch
            .mode
            .args()
            .iter()
            .filter(|a| **a != "--simulate-ips")
            .map(|a| a.to_string()),
    );
    let _ = writeln!(t, "test_args = {args:?}");
    let _ = writeln!(t, "simulate_ips = {ips}");
    let _ = writeln!(t, "suricata_version = \"7.0.10\"");
    let _ = writeln!(
        t,
        "command = {:?}",
        format!(
            "suricata -c /etc/suricata/suricata.yaml {}{} -k none --runmode single -r input.pcap -S test.rules",
            args.join(" "),
            if ips { " --simulate-ips" } else { "" }
        )
    );
    let _ = writeln!(t, "split = \"difftest\"");
    std::fs::write(dir.join("case.toml"), t).map_err(|e| e.to_string())?;
    Ok(Minimized {
        dir,
        suricata: sa,
        osprey: oa,
        reproduces,
    })
}

//! `difftest`: generates a batch, runs Suricata twice and Osprey once, compares, writes
//! the summary and one minimized case folder per difference class.
//!
//! `difftest --osprey PATH [--cases N] [--seed S] [--out DIR] [--known FILE]
//! [--minimize K] [--case I] [--families A,B] [--simulate-ips] [--set KEY=VALUE]...`:
//! `--set` gives both engines a configuration setting
//! (`app-layer.protocols.http.libhtp.default-config.lzma-enabled=yes`);
//! `--seed` defaults to a new one each run
//! (printed); `--families` draws only from the named families (`frag,tcpseg`);
//! `--minimize` bounds the folders written (the first case of each class, unexplained
//! classes first); `--case I` only writes case I's minimized folder and runs both engines
//! on it; `--simulate-ips` runs both engines as an inline IPS on the capture, their
//! alerts compared with the payloads they log. Exits with 1 when a
//! difference is not listed as known, 2 on a usage or run error.

use std::path::PathBuf;
use std::process::ExitCode;

use difftest::batch::Batch;
use difftest::compare::compare;
use difftest::known::Known;
use difftest::minimize::minimize;
use difftest::oracle::{run_osprey_in, run_suricata_in, Mode};

struct Args {
    osprey: PathBuf,
    cases: u32,
    seed: u64,
    out: PathBuf,
    known: PathBuf,
    minimize: usize,
    only: Option<u32>,
    families: Vec<String>,
    mode: Mode,
}

fn usage() -> ExitCode {
    eprintln!("usage: difftest --osprey PATH [--cases N] [--seed S] [--out DIR] [--known FILE] [--minimize K] [--case I] [--families A,B] [--simulate-ips] [--set KEY=VALUE]...");
    ExitCode::from(2)
}

fn parse() -> Option<Args> {
    let mut a = Args {
        osprey: PathBuf::new(),
        cases: 5000,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
        out: PathBuf::from("difftest-out"),
        known: PathBuf::from("tests/parity/KNOWN_DIFFERENCES.md"),
        minimize: 50,
        only: None,
        families: Vec::new(),
        mode: Mode::Ids,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        if k == "--simulate-ips" {
            a.mode = Mode::SimulateIps;
            continue;
        }
        let v = it.next()?;
        match k.as_str() {
            "--osprey" => a.osprey = PathBuf::from(v),
            "--cases" => a.cases = v.parse().ok()?,
            "--seed" => a.seed = v.parse().ok()?,
            "--out" => a.out = PathBuf::from(v),
            "--known" => a.known = PathBuf::from(v),
            "--minimize" => a.minimize = v.parse().ok()?,
            "--case" => a.only = Some(v.parse().ok()?),
            "--families" => a.families = v.split(',').map(str::to_string).collect(),
            "--set" => difftest::oracle::add_set(v),
            _ => return None,
        }
    }
    (!a.osprey.as_os_str().is_empty()).then_some(a)
}

fn main() -> ExitCode {
    let Some(a) = parse() else { return usage() };
    match run(&a) {
        Ok(clean) => ExitCode::from(u8::from(!clean)),
        Err(e) => {
            eprintln!("difftest: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(a: &Args) -> Result<bool, String> {
    let t = std::time::Instant::now();
    std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
    let mut batch = Batch::generate_among(a.seed, a.cases, &a.families);
    batch.mode = a.mode;
    if let Some(i) = a.only {
        return only(a, &batch, i);
    }
    let (rules, pcap) = (a.out.join("batch.rules"), a.out.join("batch.pcap"));
    batch.write_rules(&rules).map_err(|e| e.to_string())?;
    let packets = batch.write_pcap(&pcap).map_err(|e| e.to_string())?;
    eprintln!("seed {}: {} cases, {packets} packets", a.seed, a.cases);
    let s1 = run_suricata_in(&pcap, &rules, &a.out.join("suricata-1"), 3, a.mode)?;
    let s2 = run_suricata_in(&pcap, &rules, &a.out.join("suricata-2"), 3, a.mode)?;
    let o = run_osprey_in(&a.osprey, &pcap, &rules, &a.out.join("osprey"), a.mode)?;
    let known = Known::load(&a.known);
    let report = compare(&batch, &s1, &s2, &o, &known);
    let mut text = report.text();
    // One folder per class (its first case), up to --minimize, unexplained classes first.
    let mut done = std::collections::HashSet::new();
    let cases_dir = a.out.join("cases");
    let mut order: Vec<&difftest::compare::Diff> = report.diffs.iter().collect();
    order.sort_by_key(|d| d.known);
    for d in order {
        if done.len() >= a.minimize || !done.insert((d.template.clone(), d.kind)) {
            continue;
        }
        match minimize(&batch, d, &a.osprey, &cases_dir) {
            Ok(m) => text.push_str(&format!(
                "  case {} -> {} (alone: suricata {} alerts, osprey {}, {})\n",
                d.index,
                m.dir.display(),
                m.suricata.len(),
                m.osprey.len(),
                if m.reproduces { "differs" } else { "agrees" }
            )),
            Err(e) => text.push_str(&format!("  case {}: not minimized: {e}\n", d.index)),
        }
    }
    let uncovered = difftest::rulegen::uncovered();
    let total = rules::keywords::all()
        .map(|k| k.name)
        .collect::<std::collections::HashSet<_>>()
        .len();
    text.push_str(&format!(
        "registry keywords the generator writes: {} of {total}\n",
        total - uncovered.len()
    ));
    let mut json = report.json();
    json["keywords_uncovered"] = serde_json::json!(uncovered);
    json["seconds"] = serde_json::json!(t.elapsed().as_secs_f64());
    json["packets"] = serde_json::json!(packets);
    json["suricata_attempts"] = serde_json::json!([s1.attempts, s2.attempts]);
    std::fs::write(a.out.join("summary.json"), json.to_string() + "\n")
        .map_err(|e| e.to_string())?;
    std::fs::write(a.out.join("summary.txt"), &text).map_err(|e| e.to_string())?;
    print!("{text}");
    Ok(report.unexplained().count() == 0)
}

/// `--case N`: the minimized folder of case N alone (whatever the batch run would say).
fn only(a: &Args, batch: &Batch, i: u32) -> Result<bool, String> {
    let c = batch.cases.get(i as usize).ok_or("no such case")?;
    let d = difftest::compare::Diff {
        index: i,
        template: c.spec.template.clone(),
        kind: difftest::compare::Kind::Packets,
        suricata: Vec::new(),
        osprey: Vec::new(),
        known: false,
    };
    let m = minimize(batch, &d, &a.osprey, &a.out.join("cases"))?;
    println!(
        "{}: suricata {:?}, osprey {:?}",
        m.dir.display(),
        m.suricata.iter().map(|x| x.pcap_cnt).collect::<Vec<_>>(),
        m.osprey.iter().map(|x| x.pcap_cnt).collect::<Vec<_>>()
    );
    Ok(!m.reproduces)
}

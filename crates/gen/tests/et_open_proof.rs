//! Proof that the generator knows the alerts its traffic raises: attack flows for every
//! ET Open rule it can synthesize (at least 500), run through the engine loaded with all
//! ET Open rules, must raise exactly the predicted alerts (signature, addresses, ports,
//! packet number). The rules that cannot be synthesized are printed with the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn et_files() -> Option<Vec<PathBuf>> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/rules/et-open"
    ));
    let Ok(rd) = std::fs::read_dir(&dir) else {
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "{} is missing",
            dir.display()
        );
        eprintln!("skipping: {} not found", dir.display());
        return None;
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("emerging-") && n.ends_with(".rules")
        })
        .collect();
    files.sort();
    Some(files)
}

type Key = (u32, String, u16, String, u16, u64);

#[test]
fn et_open_attacks_raise_exactly_the_expected_alerts() {
    let Some(files) = et_files() else { return };
    let tmp = std::env::temp_dir().join(format!("osprey-gen-proof-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();

    let setup = engine::setup(&engine::SetupArgs {
        extra_rules: files.clone(),
        log_dir: Some(tmp.clone()),
        checksum: engine::ChecksumMode::All,
        ..Default::default()
    })
    .expect("engine setup");
    // Rules the detector skips can never alert: no attack is generated for them.
    let skipped: BTreeSet<u32> = setup
        .notices
        .iter()
        .filter_map(|n| {
            let rest = n.split("rule 1:").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .collect();

    let vars = rules::Vars::suricata_default();
    let (set, _) = rules::RuleSet::load(&files, &vars, &Default::default());
    let (attacks, refused) = gen::attacks_for(&set.rules, 7);
    let attacks: Vec<gen::Attack> = attacks
        .into_iter()
        .filter(|a| !skipped.contains(&a.sid))
        .collect();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (_, why) in &refused {
        *reasons
            .entry(why.split(':').next().unwrap_or(why).to_string())
            .or_default() += 1;
    }
    eprintln!(
        "{} rules: {} synthesized ({} skipped by the detector), {} not; reasons:",
        set.rules.len(),
        attacks.len(),
        skipped.len(),
        refused.len()
    );
    let mut blockers: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, why) in &refused {
        if let Some(l) = why.strip_prefix("other rules may also fire: ") {
            for s in l.split(',') {
                *blockers.entry(s).or_default() += 1;
            }
        }
    }
    let mut bv: Vec<_> = blockers.into_iter().collect();
    bv.sort_by_key(|x| std::cmp::Reverse(x.1));
    eprintln!(
        "rules that block most attacks: {:?}",
        &bv[..bv.len().min(12)]
    );
    let mut rv: Vec<_> = reasons.into_iter().collect();
    rv.sort_by_key(|x| std::cmp::Reverse(x.1));
    for (why, n) in rv.iter().take(40) {
        eprintln!("  {n:6}  {why}");
    }
    assert!(
        attacks.len() >= 500,
        "only {} rules synthesized",
        attacks.len()
    );

    let cfg = gen::Config {
        flows: 32,
        packets: u64::MAX,
        max_flows: Some(attacks.len() as u64),
        attack_fraction: 1.0,
        seed: 7,
        ..gen::Config::default()
    };
    let pcap = tmp.join("attacks.pcap");
    let summary = gen::generate(&cfg, &attacks, std::fs::File::create(&pcap).unwrap()).unwrap();
    assert_eq!(summary.attack_flows, attacks.len() as u64);

    let mut source = capture::open(&pcap).unwrap();
    engine::run_offline(source.as_mut(), &setup.engine, |_| {}).unwrap();
    drop(setup);
    let eve = std::fs::read_to_string(tmp.join("eve.json")).unwrap_or_default();
    let got: BTreeSet<Key> = eve
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event_type"] == "alert")
        .map(|v| {
            (
                v["alert"]["signature_id"].as_u64().unwrap_or(0) as u32,
                v["src_ip"].as_str().unwrap_or("").to_string(),
                v["src_port"].as_u64().unwrap_or(0) as u16,
                v["dest_ip"].as_str().unwrap_or("").to_string(),
                v["dest_port"].as_u64().unwrap_or(0) as u16,
                v["pcap_cnt"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: BTreeSet<Key> = summary
        .expected
        .iter()
        .map(|e| {
            (
                e.signature_id,
                e.src_ip.to_string(),
                e.src_port,
                e.dest_ip.to_string(),
                e.dest_port,
                e.pcap_cnt,
            )
        })
        .collect();
    let missing: Vec<&Key> = want.difference(&got).collect();
    let extra: Vec<&Key> = got.difference(&want).collect();
    for m in missing.iter().take(30) {
        eprintln!("missing {m:?}");
    }
    for m in extra.iter().take(30) {
        eprintln!("extra   {m:?}");
    }
    if let Ok(dir) = std::env::var("OSPREY_GEN_PROOF_KEEP") {
        let kinds: String = attacks
            .iter()
            .map(|a| {
                let k = match a.payload {
                    gen::Payload::Http(..) => "http",
                    gen::Payload::Tcp { .. } => "tcp",
                };
                format!("{}\t{k}\t{:?}\n", a.sid, a.side)
            })
            .collect();
        let exp: String = summary
            .expected
            .iter()
            .map(|e| e.to_json() + "\n")
            .collect();
        std::fs::write(format!("{dir}/kinds.tsv"), kinds).unwrap();
        std::fs::write(format!("{dir}/expected.jsonl"), exp).unwrap();
        std::fs::copy(tmp.join("eve.json"), format!("{dir}/eve.json")).unwrap();
        std::fs::copy(&pcap, format!("{dir}/attacks.pcap")).unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!(
        "{} attack flows, {} expected alerts, {} raised, {} missing, {} unexpected",
        attacks.len(),
        want.len(),
        got.len(),
        missing.len(),
        extra.len()
    );
    assert!(missing.is_empty() && extra.is_empty());
}

//! Loads rule files and prints diagnostics and counts (development aid).
use std::path::PathBuf;

fn main() {
    let files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let t = std::time::Instant::now();
    let (set, diags) = rules::RuleSet::load(
        &files,
        &rules::Vars::suricata_default(),
        &rules::LoadOptions::default(),
    );
    let el = t.elapsed();
    for d in &diags {
        println!("{d}");
    }
    println!(
        "loaded {} failed {} in {:?}",
        set.stats.loaded, set.stats.failed, el
    );
}

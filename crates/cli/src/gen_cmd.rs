//! `osprey gen`: writes synthetic traffic (and the alerts it must raise) with the `gen`
//! crate.

use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `osprey gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// Output pcap; the expected alerts go to OUT.expected.jsonl, the rules that could not
    /// be turned into attacks to OUT.unsynthesized.txt.
    #[arg(short = 'o', long = "output", value_name = "OUT.pcap")]
    pub output: PathBuf,
    /// Rule files to build attack flows from.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub rules: Vec<PathBuf>,
    /// Conversations open at the same time.
    #[arg(long, default_value_t = 100)]
    pub flows: usize,
    /// Packets to write (open conversations are finished after that).
    #[arg(long, default_value_t = 100_000)]
    pub packets: u64,
    /// Stop after this many conversations.
    #[arg(long = "max-flows")]
    pub max_flows: Option<u64>,
    /// Data frame size in bytes (64..1514, captured length without FCS) or `imix`.
    #[arg(long, default_value = "1514")]
    pub size: String,
    /// Share of conversations carrying an attack built from --rules (0..1).
    #[arg(long = "attack-fraction", default_value_t = 0.0)]
    pub attack_fraction: f64,
    /// Random seed (same seed, same bytes).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Body filler of benign responses: text, json or random.
    #[arg(long, default_value = "text")]
    pub payload: String,
    /// Response size of benign conversations, at most this many data packets.
    #[arg(long = "response-packets", default_value_t = 4)]
    pub response_packets: u32,
}

/// Runs `osprey gen`.
pub fn run(a: &GenArgs) -> Result<(), String> {
    if !(0.0..=1.0).contains(&a.attack_fraction) {
        return Err("--attack-fraction must be between 0 and 1".into());
    }
    let filler = match a.payload.as_str() {
        "text" | "html" => gen::Filler::Text,
        "json" => gen::Filler::Json,
        "random" => gen::Filler::Random,
        other => return Err(format!("--payload {other}: text, json or random")),
    };
    let cfg = gen::Config {
        flows: a.flows.max(1),
        packets: a.packets,
        max_flows: a.max_flows,
        size: gen::SizeDist::parse(&a.size)?,
        attack_fraction: a.attack_fraction,
        seed: a.seed,
        filler,
        response_packets: a.response_packets,
    };
    let (attacks, refused) = if a.rules.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let vars = rules::Vars::suricata_default();
        let (set, _) = rules::RuleSet::load(&a.rules, &vars, &Default::default());
        gen::attacks_for(&set.rules, a.seed)
    };
    if a.attack_fraction > 0.0 && attacks.is_empty() {
        return Err("--attack-fraction given but no rule could be turned into an attack".into());
    }
    let file = std::fs::File::create(&a.output)
        .map_err(|e| format!("cannot create {}: {e}", a.output.display()))?;
    let summary = gen::generate(&cfg, &attacks, file).map_err(|e| e.to_string())?;
    let expected_path = sibling(&a.output, "expected.jsonl");
    let mut text = String::new();
    for e in &summary.expected {
        text.push_str(&e.to_json());
        text.push('\n');
    }
    write(&expected_path, text.as_bytes())?;
    if !a.rules.is_empty() {
        let mut t = String::new();
        for (sid, why) in &refused {
            t.push_str(&format!("{sid}\t{why}\n"));
        }
        write(&sibling(&a.output, "unsynthesized.txt"), t.as_bytes())?;
    }
    tracing::info!(
        "gen: {} packets, {} bytes, {} flows ({} attack), {} expected alerts; {} rules synthesized, {} not",
        summary.packets,
        summary.bytes,
        summary.flows,
        summary.attack_flows,
        summary.expected.len(),
        attacks.len(),
        refused.len()
    );
    Ok(())
}

fn sibling(pcap: &Path, ext: &str) -> PathBuf {
    let stem = pcap.with_extension("");
    PathBuf::from(format!("{}.{ext}", stem.display()))
}

fn write(path: &Path, data: &[u8]) -> Result<(), String> {
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(data))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

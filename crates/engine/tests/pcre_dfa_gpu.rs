//! The regex DFAs `detect` builds from ET Open `pcre` options are accepted by the `gpu`
//! crate's device layout ([`gpu::DfaSet`]) and give, through the regex-DFA kernel's CPU
//! executor over a real batch buffer, exactly the answers of the DFA walk (which `detect`'s
//! tests check against PCRE2).

use std::path::PathBuf;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(SHARED).join(rel);
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
        "{} is missing",
        p.display()
    );
    eprintln!("skipping: {} not found", p.display());
    None
}

/// Frames of a classic little-endian pcap (at most `max`).
fn frames(data: &[u8], max: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    if data.get(..4) != Some(&[0xd4, 0xc3, 0xb2, 0xa1]) {
        return out;
    }
    let mut at = 24;
    while at + 16 <= data.len() && out.len() < max {
        let len = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
        let Some(f) = data.get(at + 16..at + 16 + len) else {
            break;
        };
        out.push(f);
        at += 16 + len;
    }
    out
}

#[test]
fn et_pcre_dfas_run_on_the_gpu_layout_as_on_the_cpu() {
    let (Some(rules), Some(pcap)) = (
        shared("rules/et-open/emerging-exploit.rules"),
        shared("pcaps/sv-ether.pcap"),
    ) else {
        return;
    };
    let vars = rules::Vars::suricata_default();
    let (set, _) = rules::RuleSet::load(&[rules], &vars, &Default::default());
    let (det, _) = detect::Detector::build(&set.rules, &detect::DetectOptions::default(), &vars);
    let found = det.pcre_dfas(detect::PCRE_DFA_MAX_STATES);
    eprintln!(
        "emerging-exploit: {} of {} distinct pcre as DFAs ({} of {} options)",
        found.dfas.len(),
        found.total,
        found.options_with_dfa,
        found.options
    );
    assert!(found.dfas.len() > 50);
    let dfas: Vec<mpm::PlainDfa> = found.dfas.iter().map(|(_, d)| d.clone()).collect();
    let layout = gpu::DfaSet::new(&dfas, gpu::DfaSet::DEFAULT_MAX_STATES).expect("fits");
    let data = std::fs::read(pcap).unwrap();
    let mut batch = gpu::Batch::new(256, 1 << 20);
    for f in frames(&data, 256) {
        // Frames and the tails after the usual TCP header end.
        let hay = if batch.len().is_multiple_of(2) {
            f
        } else {
            f.get(54..).unwrap_or(&[])
        };
        if batch.push(0, hay).is_err() {
            break;
        }
    }
    let mut jobs = Vec::new();
    for p in 0..batch.len() as u32 {
        for d in 0..dfas.len() as u32 {
            jobs.push(gpu::cpu::DfaJob { packet: p, dfa: d });
        }
    }
    let mut out = Vec::new();
    gpu::cpu::run_dfa(&layout, &batch, &jobs, &mut out);
    let mut matched = 0;
    for (job, &got) in jobs.iter().zip(&out) {
        let want = dfas[job.dfa as usize].find_end(batch.payload(job.packet as usize));
        let want = want.map_or(gpu::cpu::NO_MATCH, |e| e as u32);
        assert_eq!(got, want, "{job:?}");
        matched += usize::from(got != gpu::cpu::NO_MATCH);
    }
    eprintln!("{} jobs, {matched} matches", jobs.len());
    assert!(matched > 0);
}

//! A batch: `n` cases from one seed, written as one rule file (one rule a line, line `i+1`
//! is case `i`) and one capture (the cases' flows one after another, 1 ms apart).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use gen::frame::PcapWriter;
use gen::rng::Rng;

use crate::case::{Addrs, Case};
use crate::rulegen;

/// The first packet's time (2023-11-14, microseconds since the epoch).
pub const T0_US: u64 = 1_700_000_000_000_000;

/// The cases of one seed.
pub struct Batch {
    /// The seed.
    pub seed: u64,
    /// The cases, in index order.
    pub cases: Vec<Case>,
    /// The families drawn from (empty: all).
    pub families: Vec<String>,
    /// How both engines run it (IDS unless the caller sets another mode).
    pub mode: crate::oracle::Mode,
}

impl Batch {
    /// Generates `n` cases from `seed` (the same seed gives the same batch).
    pub fn generate(seed: u64, n: u32) -> Batch {
        Batch::generate_among(seed, n, &[])
    }

    /// As [`Batch::generate`], with only the families named in `only` (all when empty).
    pub fn generate_among(seed: u64, n: u32, only: &[String]) -> Batch {
        let mut rng = Rng::new(seed);
        let cases = (0..n)
            .map(|index| {
                let mut r = rng.fork();
                let spec = rulegen::spec_among(&mut r, index, only);
                Case {
                    index,
                    addrs: Addrs::of(index, spec.v6),
                    spec,
                }
            })
            .collect();
        Batch {
            seed,
            cases,
            families: only.to_vec(),
            mode: crate::oracle::Mode::Ids,
        }
    }

    /// The case of a signature id, if it is one of the batch's.
    pub fn by_sid(&self, sid: u32) -> Option<&Case> {
        let i = sid.checked_sub(crate::case::SID_BASE)?;
        self.cases.get(i as usize)
    }

    /// Writes the rule file, and next to it the files the rules name.
    pub fn write_rules(&self, path: &Path) -> io::Result<()> {
        let mut w = BufWriter::new(std::fs::File::create(path)?);
        for c in &self.cases {
            writeln!(w, "{}", c.rule())?;
            write_side_files(c, path)?;
        }
        // Helper rules after every case's, so line `i + 1` is case `i`'s rule.
        for r in self.cases.iter().filter_map(Case::setup_rule) {
            writeln!(w, "{r}")?;
        }
        w.flush()
    }

    /// Writes the capture; returns the number of packets.
    pub fn write_pcap(&self, path: &Path) -> io::Result<u64> {
        let mut w = PcapWriter::new(BufWriter::new(std::fs::File::create(path)?))?;
        for c in &self.cases {
            for (ts, f) in c.frames(T0_US + u64::from(c.index) * 1000) {
                w.write(ts, &f)?;
            }
        }
        let n = w.frames;
        w.finish()?.flush()?;
        Ok(n)
    }
}

/// Writes the files case `c`'s rule names into the directory of the rule file `rules`.
fn write_side_files(c: &Case, rules: &Path) -> io::Result<()> {
    let dir = rules.parent().unwrap_or(Path::new("."));
    for (name, data) in &c.spec.files {
        std::fs::write(dir.join(name), data)?;
    }
    Ok(())
}

/// Writes one case alone: its rule as `rules` (and the files it names next to it), its
/// flow as `pcap`.
pub fn write_case(case: &Case, rules: &Path, pcap: &Path) -> io::Result<()> {
    let mut text = format!("{}\n", case.rule());
    if let Some(r) = case.setup_rule() {
        text.push_str(&r);
        text.push('\n');
    }
    std::fs::write(rules, text)?;
    write_side_files(case, rules)?;
    let mut w = PcapWriter::new(BufWriter::new(std::fs::File::create(pcap)?))?;
    for (ts, f) in case.frames(T0_US) {
        w.write(ts, &f)?;
    }
    w.finish()?.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_batch_and_files() {
        let a = Batch::generate(42, 300);
        let b = Batch::generate(42, 300);
        let ra: Vec<String> = a.cases.iter().map(Case::rule).collect();
        let rb: Vec<String> = b.cases.iter().map(Case::rule).collect();
        assert_eq!(ra, rb);
        let c = Batch::generate(43, 300);
        assert_ne!(ra, c.cases.iter().map(Case::rule).collect::<Vec<_>>());
        assert_eq!(a.by_sid(crate::case::SID_BASE + 7).unwrap().index, 7);
        assert!(a.by_sid(5).is_none());
        let dir = std::env::temp_dir().join(format!("difftest-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = a.write_pcap(&dir.join("b.pcap")).unwrap();
        assert!(n >= 600, "{n} packets");
        a.write_rules(&dir.join("b.rules")).unwrap();
        let text = std::fs::read_to_string(dir.join("b.rules")).unwrap();
        assert_eq!(text.lines().count(), 300);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_family_shows_up_and_frames_decode() {
        let b = Batch::generate(1, 3000);
        // Families of weight 0 are drawn only when named (their own tests draw them).
        for f in rulegen::FAMILIES.iter().filter(|f| f.weight > 0) {
            assert!(
                b.cases.iter().any(|c| c.spec.template.starts_with(f.name)),
                "{} never drawn",
                f.name
            );
        }
        let mut dec = wire::Decoder::new(wire::DecoderConfig {
            verify_checksums: true,
            ..wire::DecoderConfig::default()
        });
        let mut out = wire::Decoded::new();
        for c in &b.cases {
            for (_, f) in c.frames(0) {
                let len = f.len() as u32;
                dec.decode(
                    wire::LinkType::ETHERNET,
                    &f,
                    wire::Timestamp(1),
                    len,
                    &mut out,
                );
                let p = &out.packets()[0];
                let bad =
                    wire::flags::INVALID | wire::flags::IP_CSUM_BAD | wire::flags::L4_CSUM_BAD;
                // The `csum` family breaks checksums on purpose, `events` headers (their
                // own tests check them).
                let broken = ["csum/", "events/"];
                assert!(
                    !p.has(bad) || broken.iter().any(|t| c.spec.template.starts_with(t)),
                    "case {} ({}): a bad frame",
                    c.index,
                    c.spec.template
                );
            }
        }
    }
}

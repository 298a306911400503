//! Synthetic traffic for benchmarks and tests (`osprey gen`): TCP conversations with
//! handshake and teardown carrying HTTP requests and responses, a chosen frame-size
//! distribution, a chosen number of concurrent flows, and attack conversations built from
//! rules so the alerts they raise are known in advance (Kargus §6, Haetae §5 evaluate
//! with such a generator).
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! let cfg = gen::Config { packets: 1000, ..gen::Config::default() };
//! let summary = gen::generate(&cfg, &[], std::fs::File::create("out.pcap")?)?;
//! # let _ = summary; Ok(()) }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod cofire;
pub mod frame;
pub mod http;
pub mod payload;
pub mod regex_gen;
pub mod rng;
pub mod solve;
pub mod synth;
pub mod traffic;

pub use synth::{synthesize, Attack, Payload, Side};
pub use traffic::{generate, Config, ExpectedAlert, Filler, SizeDist, Summary};

/// Attacks for every rule that can be synthesized and on whose flow no other rule of
/// `rules` can fire, and `(sid, reason)` for the others.
pub fn attacks_for(rules: &[rules::LoadedRule], seed: u64) -> (Vec<Attack>, Vec<(u32, String)>) {
    let mut rng = rng::Rng::new(seed ^ 0x00A7_7AC4);
    let mut ok = Vec::new();
    let mut refused = Vec::new();
    for r in rules {
        match synthesize(r, &mut rng) {
            Ok(a) => ok.push(a),
            Err(e) => refused.push((r.rule.meta.sid, e)),
        }
    }
    let predictor = cofire::Predictor::new(rules);
    let mut kept = Vec::with_capacity(ok.len());
    for a in ok {
        let others = predictor.others(&a);
        if others.is_empty() {
            kept.push(a);
        } else {
            let list: Vec<String> = others.iter().take(3).map(u32::to_string).collect();
            refused.push((
                a.sid,
                format!("other rules may also fire: {}", list.join(",")),
            ));
        }
    }
    (kept, refused)
}

//! Shared helpers of the integration tests: corpus access, a regex → [`PlainDfa`]
//! converter, a small PRNG.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use gpu::nvrtc;

use mpm::{Pattern, PlainDfa};
use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, Input};

/// The shared corpus, or `None` (with the skip reason printed) when it is missing and
/// `OSPREY_REQUIRE_DATA` is not set.
pub fn corpus() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/open"
    ));
    if p.is_dir() {
        return Some(p);
    }
    if std::env::var("OSPREY_REQUIRE_DATA").as_deref() == Ok("1") {
        panic!("corpus missing at {}", p.display());
    }
    eprintln!("skip: corpus missing at {}", p.display());
    None
}

/// Frames of a classic pcap file (either byte order); pcapng and damaged files give what
/// was read before the damage.
pub fn pcap_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if bytes.len() < 24 {
        return out;
    }
    let magic = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let le = match magic {
        0xa1b2_c3d4 | 0xa1b2_3c4d => true,
        0xd4c3_b2a1 | 0x4d3c_b2a1 => false,
        _ => return out,
    };
    let rd = |b: &[u8]| {
        let a = [b[0], b[1], b[2], b[3]];
        if le {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let caplen = rd(&bytes[at + 8..]) as usize;
        at += 16;
        if caplen > 1 << 18 || at + caplen > bytes.len() {
            break;
        }
        out.push(bytes[at..at + caplen].to_vec());
        at += caplen;
    }
    out
}

/// The `content` strings of a rules file (|hex| decoded, `nocase` honoured), ids from 0.
pub fn rule_contents(text: &str, first_id: u32) -> Vec<Pattern> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(i) = rest.find("content:") {
            rest = &rest[i + 8..];
            let r = rest.trim_start().trim_start_matches('!');
            let Some(body) = r.strip_prefix('"') else {
                continue;
            };
            let Some(end) = body.find('"') else {
                break;
            };
            let raw = &body[..end];
            let bytes = decode_content(raw);
            // `nocase` applies when it follows before the next content.
            let tail = &body[end..];
            let next = tail.find("content:").unwrap_or(tail.len());
            let nocase = tail[..next].contains("nocase");
            if !bytes.is_empty() {
                let id = first_id + out.len() as u32;
                out.push(if nocase {
                    Pattern::nocase(bytes, id)
                } else {
                    Pattern::new(bytes, id)
                });
            }
            rest = &body[end..];
        }
    }
    out
}

fn decode_content(raw: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut hex = false;
    let mut nib = None;
    let mut esc = false;
    for c in raw.bytes() {
        if hex {
            match c {
                b'|' => hex = false,
                b' ' => {}
                _ => {
                    if let Some(v) = (c as char).to_digit(16) {
                        match nib.take() {
                            None => nib = Some(v as u8),
                            Some(h) => out.push(h << 4 | v as u8),
                        }
                    }
                }
            }
        } else if esc {
            out.push(c);
            esc = false;
        } else if c == b'\\' {
            esc = true;
        } else if c == b'|' {
            hex = true;
        } else {
            out.push(c);
        }
    }
    out
}

/// Build the [`PlainDfa`] of `pattern` (bytes, not Unicode) for an unanchored search, or
/// `None` when the regex does not fit a DFA of at most `max_states` states.
pub fn regex_dfa(pattern: &str, max_states: usize) -> Option<(PlainDfa, dense::DFA<Vec<u32>>)> {
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .byte_classes(false)
                .dfa_size_limit(Some(64 << 20)),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
        .build(pattern)
        .ok()?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .ok()?;
    let mut ids = std::collections::HashMap::new();
    let mut order = vec![start];
    ids.insert(start, 0u32);
    let mut trans = Vec::new();
    let mut flags = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let s = order[k];
        k += 1;
        if dfa.is_quit_state(s) {
            return None;
        }
        let mut f = 0;
        if dfa.is_match_state(s) {
            f |= PlainDfa::MATCH;
        }
        if dfa.is_match_state(dfa.next_eoi_state(s)) {
            f |= PlainDfa::EOI_MATCH;
        }
        if dfa.is_dead_state(s) {
            f |= PlainDfa::DEAD;
        }
        flags.push(f);
        for b in 0..=255u8 {
            let n = dfa.next_state(s, b);
            let id = *ids.entry(n).or_insert_with(|| {
                order.push(n);
                (order.len() - 1) as u32
            });
            trans.push(id);
        }
        if order.len() > max_states {
            return None;
        }
    }
    let plain = PlainDfa::new(order.len() as u32, 0, trans, flags).ok()?;
    Some((plain, dfa))
}

/// The earliest match end of `dfa` in `hay`, as regex-automata's earliest search reports it.
pub fn earliest_end(dfa: &dense::DFA<Vec<u32>>, hay: &[u8]) -> Option<usize> {
    dfa.try_search_fwd(&Input::new(hay).earliest(true))
        .ok()
        .flatten()
        .map(|m| m.offset())
}

/// xorshift64.
pub struct Rng(pub u64);

impl Rng {
    /// Next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The wheel's libnvrtc according to python3's site-packages.
pub fn nvrtc_from_python() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import site,sysconfig;print('\\n'.join([sysconfig.get_paths()['purelib']]+site.getsitepackages()))",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.lines()
        .flat_map(|sp| {
            ["cu13/lib", "cuda_nvrtc/lib"].map(|sub| {
                PathBuf::from(sp)
                    .join("nvidia")
                    .join(sub)
                    .join("libnvrtc.so.13")
            })
        })
        .find(|p| p.is_file())
}

/// Load NVRTC; the reason when it cannot be found.
pub fn load_nvrtc() -> Result<String, String> {
    if let Ok(p) = std::env::var("OSPREY_NVRTC_LIB") {
        let p = PathBuf::from(p);
        nvrtc::preload_nvrtc(&p)?;
        return Ok(p.display().to_string());
    }
    if let Some(p) = nvrtc_from_python() {
        nvrtc::preload_nvrtc(&p)?;
        return Ok(p.display().to_string());
    }
    nvrtc::nvrtc_available().map(|()| "the loader's search path".to_string())
}

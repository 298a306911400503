//! `osprey bench gpu --profile-states`: what a GPU Aho-Corasick kernel would face, measured
//! on the CPU (issue 27 point 5). The transition lookups of the thread-per-packet kernel
//! (`kernels/ac.cu`: one lookup in the row of the current state per payload byte, from
//! state 0) are simulated over real payloads with the rules' fast-pattern automaton (one
//! group, 32-bit entries: ET Open's 209,871 states do not fit 16 bits), and counted:
//!
//! - lookups by the BFS depth of the state whose row is read, and the states by depth;
//! - for the shared memory of a block (48, 100 and 228 KiB) at 16- and 32-bit entries,
//!   the share of lookups that fall in the K **shallowest** states (the rows the hot-row
//!   kernels `ac_hot`/`ac_hot16` keep: [`gpu::AcTables::hot_windows`]) and in the K
//!   **hottest** ones (ranked on the first half of the payloads, counted on the second:
//!   what a profile-guided renumbering could reach on traffic it has not seen);
//! - the share of **warp steps** (32 consecutive payloads, one per thread, one byte each)
//!   in which at least one active thread's lookup leaves shared memory, for the
//!   shallowest and for the hottest rows: a warp waits for its slowest lane, so this, not
//!   the lookup share, sets the latency a step pays;
//! - the table bytes a payload touches (distinct 32-byte sectors, as DRAM and L2 serve
//!   them), in all and outside the shared rows.

use std::path::PathBuf;

use gpu::{AcTables, HotWindows, Width};
use mpm::DfaTables;
use serde_json::{json, Value};

/// Shared memory per block the profile sizes K for (KiB): the default carve-out, a
/// middle one and an H100 SM's whole 228 KiB.
pub const BUDGETS_KIB: [u32; 3] = [48, 100, 228];
/// Warp width.
const WARP: usize = 32;
/// Depths at and beyond this one are counted together.
const DEEP: usize = 32;

/// What to profile.
#[derive(Clone, Debug)]
pub struct ProfileOptions {
    /// Rule files (their fast patterns).
    pub rules: Vec<PathBuf>,
    /// Captures whose TCP/UDP payloads are walked, each a source of its own.
    pub pcaps: Vec<PathBuf>,
    /// Payloads at most per capture (the first ones).
    pub max_packets: usize,
    /// Synthetic payloads of 1,514 bytes, `osprey bench gpu`'s (0: none).
    pub synthetic: usize,
}

/// One budget row: K and where its lookups go.
struct Budget {
    kib: u32,
    bits: u32,
    rows: u32,
    windows: HotWindows,
    /// Per state: in the shallowest K.
    shallow: Vec<bool>,
}

/// Counts of one source.
#[derive(Default)]
struct Walk {
    packets: u64,
    bytes: u64,
    first_half: Vec<u64>,
    second_half: Vec<u64>,
    /// Distinct sectors (32-bit entries) per packet, summed.
    sectors: u64,
    /// Distinct rows per packet, summed.
    rows: u64,
    /// Per budget: lookups outside the shared rows, their distinct sectors per packet
    /// (summed), warp steps needing global memory.
    cold_lookups: Vec<u64>,
    cold_sectors: Vec<u64>,
    warp_cold_steps: Vec<u64>,
    warp_steps: u64,
    /// Every sector touched by the source.
    touched: Vec<u64>,
}

/// Byte offset of a lookup's entry divided into 32-byte sectors (32-bit entries).
#[inline]
fn sector(s: u32, b: u8) -> u32 {
    ((s << 8) | b as u32) >> 3
}

/// Lookups per state over `payloads` (rows read, as the kernels read them).
fn visits(dfa: &DfaTables, payloads: &[Vec<u8>]) -> Vec<u64> {
    let mut v = vec![0u64; dfa.num_states as usize];
    for p in payloads {
        let mut s = 0u32;
        for &b in p {
            v[s as usize] += 1;
            s = dfa.transitions[((s as usize) << 8) | b as usize];
        }
    }
    v
}

/// Walk `payloads` one warp (32 payloads) at a time; `sets[k][s]`: state `s` is shared
/// under budget `k` (at most 16 sets).
fn walk_source(dfa: &DfaTables, sets: &[Vec<bool>], payloads: &[Vec<u8>]) -> Walk {
    let n = dfa.num_states as usize;
    let mut w = Walk {
        first_half: vec![0; n],
        second_half: vec![0; n],
        cold_lookups: vec![0; sets.len()],
        cold_sectors: vec![0; sets.len()],
        warp_cold_steps: vec![0; sets.len()],
        touched: vec![0; (n * 256 / 8).div_ceil(64)],
        ..Walk::default()
    };
    let half = payloads.len() / 2;
    let mut secs: Vec<u32> = Vec::with_capacity(2048);
    let mut rows: Vec<u32> = Vec::with_capacity(2048);
    let mut cold: Vec<Vec<u32>> = vec![Vec::with_capacity(2048); sets.len()];
    // Per warp step: bit k set when some lane's lookup is outside budget k's rows.
    let mut step_cold: Vec<u16> = Vec::new();
    for (wi, warp) in payloads.chunks(WARP).enumerate() {
        let longest = warp.iter().map(|p| p.len()).max().unwrap_or(0);
        step_cold.clear();
        step_cold.resize(longest, 0);
        w.warp_steps += longest as u64;
        for (li, p) in warp.iter().enumerate() {
            let idx = wi * WARP + li;
            let visits = if idx < half {
                &mut w.first_half
            } else {
                &mut w.second_half
            };
            w.packets += 1;
            w.bytes += p.len() as u64;
            secs.clear();
            rows.clear();
            cold.iter_mut().for_each(|c| c.clear());
            let mut s = 0u32;
            for (i, &b) in p.iter().enumerate() {
                visits[s as usize] += 1;
                let sec = sector(s, b);
                secs.push(sec);
                rows.push(s);
                w.touched[sec as usize / 64] |= 1 << (sec % 64);
                for (k, set) in sets.iter().enumerate() {
                    if !set[s as usize] {
                        w.cold_lookups[k] += 1;
                        cold[k].push(sec);
                        step_cold[i] |= 1 << k;
                    }
                }
                s = dfa.transitions[((s as usize) << 8) | b as usize];
            }
            for v in [&mut secs, &mut rows] {
                v.sort_unstable();
                v.dedup();
            }
            w.sectors += secs.len() as u64;
            w.rows += rows.len() as u64;
            for (k, c) in cold.iter_mut().enumerate() {
                c.sort_unstable();
                c.dedup();
                w.cold_sectors[k] += c.len() as u64;
            }
        }
        for (k, cs) in w.warp_cold_steps.iter_mut().enumerate() {
            *cs += step_cold.iter().filter(|&&m| m & (1 << k) != 0).count() as u64;
        }
    }
    w
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Profile `payloads` (named sources) against `dfa`; the JSON report.
pub fn profile(dfa: &DfaTables, sources: &[(String, Vec<Vec<u8>>)]) -> Result<Value, String> {
    let tables = AcTables::with_width(std::slice::from_ref(dfa), Width::U32)
        .map_err(|e| format!("AC tables: {e}"))?;
    let depth = tables.depths(0);
    let n = dfa.num_states as usize;
    let mm = dfa.match_min;
    let mut budgets = Vec::new();
    for kib in BUDGETS_KIB {
        for bits in [16u32, 32] {
            let rows = kib * 1024 / (256 * bits / 8);
            let windows = tables.hot_windows(rows);
            let shallow = (0..n as u32)
                .map(|s| HotWindows::row(windows.lo, windows.hi, mm, s) != HotWindows::NO_ROW)
                .collect();
            budgets.push(Budget {
                kib,
                bits,
                rows,
                windows,
                shallow,
            });
        }
    }
    let dbucket = |d: u32| (d as usize).min(DEEP);
    let mut states_by_depth = vec![(0u64, 0u64); DEEP + 1];
    for (s, &d) in depth.iter().enumerate() {
        if d == u32::MAX {
            continue;
        }
        let e = &mut states_by_depth[dbucket(d)];
        if (s as u32) < mm {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    let mut out = Vec::new();
    for (name, payloads) in sources {
        // The hottest states of the first half, per budget: a profile-guided renumbering's
        // shared rows (the root always among them: every walk starts there).
        let first = visits(dfa, &payloads[..payloads.len() / 2]);
        let mut ranked: Vec<u32> = (1..n as u32).collect();
        ranked.sort_by_key(|&s| std::cmp::Reverse(first[s as usize]));
        ranked.insert(0, 0);
        let mut sets: Vec<Vec<bool>> = budgets.iter().map(|b| b.shallow.clone()).collect();
        for b in &budgets {
            let mut hot = vec![false; n];
            for &s in ranked.iter().take(b.rows as usize) {
                hot[s as usize] = true;
            }
            sets.push(hot);
        }
        let w = walk_source(dfa, &sets, payloads);
        let nb = budgets.len();
        let total: u64 = w.bytes;
        let all: Vec<u64> = (0..n).map(|s| w.first_half[s] + w.second_half[s]).collect();
        let second: u64 = w.second_half.iter().sum();
        let mut by_depth = vec![0u64; DEEP + 1];
        for s in 0..n {
            if depth[s] != u32::MAX {
                by_depth[dbucket(depth[s])] += all[s];
            }
        }
        let mut cum = 0u64;
        let lookups_by_depth: Vec<Value> = by_depth
            .iter()
            .enumerate()
            .filter(|(_, &l)| l > 0)
            .map(|(d, &l)| {
                cum += l;
                json!({"depth": if d == DEEP { format!("{DEEP}+") } else { d.to_string() },
                       "lookups": l, "share": round(ratio(l, total)),
                       "cumulative": round(ratio(cum, total))})
            })
            .collect();
        let mut sorted_all = all.clone();
        sorted_all.sort_unstable_by(|a, b| b.cmp(a));
        let p = w.packets.max(1) as f64;
        let budgets_json: Vec<Value> = budgets
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let k_rows = b.rows as usize;
                let shallow_all: u64 = (0..n).filter(|&s| b.shallow[s]).map(|s| all[s]).sum();
                let shallow_second: u64 = (0..n)
                    .filter(|&s| b.shallow[s])
                    .map(|s| w.second_half[s])
                    .sum();
                let hot_second: u64 = ranked
                    .iter()
                    .take(k_rows)
                    .map(|&s| w.second_half[s as usize])
                    .sum();
                let oracle: u64 = sorted_all.iter().take(k_rows).sum();
                json!({
                    "shared_kib": b.kib, "entry_bits": b.bits, "rows": b.rows,
                    "windows": {"plain": b.windows.lo, "matching": b.windows.hi},
                    "shallowest_share": round(ratio(shallow_all, total)),
                    "shallowest_share_second_half": round(ratio(shallow_second, second)),
                    "hottest_share_second_half": round(ratio(hot_second, second)),
                    "hottest_share_in_sample": round(ratio(oracle, total)),
                    "warp_steps_global_share": round(ratio(w.warp_cold_steps[k], w.warp_steps)),
                    "cold_lookups_per_packet": round(w.cold_lookups[k] as f64 / p),
                    "cold_bytes_per_packet": round(w.cold_sectors[k] as f64 * 32.0 / p),
                    "hottest_warp_steps_global_share":
                        round(ratio(w.warp_cold_steps[nb + k], w.warp_steps)),
                    "hottest_cold_bytes_per_packet":
                        round(w.cold_sectors[nb + k] as f64 * 32.0 / p),
                })
            })
            .collect();
        let touched: u64 = w.touched.iter().map(|x| x.count_ones() as u64).sum();
        out.push(json!({
            "source": name, "packets": w.packets, "payload_bytes": w.bytes,
            "mean_payload": round(ratio(w.bytes, w.packets)),
            "lookups": total,
            "states_visited": all.iter().filter(|&&v| v > 0).count(),
            "table_bytes_touched": touched * 32,
            "per_packet": {
                "distinct_rows": round(w.rows as f64 / p),
                "distinct_sectors": round(w.sectors as f64 / p),
                "bytes_touched": round(w.sectors as f64 * 32.0 / p),
            },
            "warp_steps": w.warp_steps,
            "lookups_by_depth": lookups_by_depth,
            "budgets": budgets_json,
        }));
    }
    let states_json: Vec<Value> = states_by_depth
        .iter()
        .enumerate()
        .filter(|(_, e)| e.0 + e.1 > 0)
        .map(|(d, e)| {
            json!({"depth": if d == DEEP { format!("{DEEP}+") } else { d.to_string() },
                   "plain": e.0, "matching": e.1})
        })
        .collect();
    Ok(json!({
        "ac_states": n, "match_min": mm,
        "table_bytes_32": n as u64 * 1024,
        "states_by_depth": states_json,
        "sources": out,
    }))
}

/// Load the rules' fast patterns, read the sources and [`profile`] them.
pub fn profile_states(opts: &ProfileOptions) -> Result<Value, String> {
    let (fast, full) = crate::bench_gpu::fast_automaton(&opts.rules)?;
    let mut sources = Vec::new();
    for pcap in &opts.pcaps {
        let mut p = crate::payloads::pcap_payloads(pcap)?;
        p.truncate(opts.max_packets);
        sources.push((pcap.display().to_string(), p));
    }
    if opts.synthetic > 0 {
        let b = crate::bench_gpu::synthetic_batch(opts.synthetic, 1514, &fast, 7);
        let p = (0..b.len()).map(|i| b.payload(i).to_vec()).collect();
        sources.push((
            "synthetic-1514 (osprey bench gpu's payloads)".to_string(),
            p,
        ));
    }
    if sources.is_empty() {
        return Err("nothing to profile: give --pcap FILE or --synthetic N".into());
    }
    let mut v = profile(&full, &sources)?;
    v["bench"] = json!("gpu-profile-states");
    v["rules"] = json!(opts.rules);
    v["fast_patterns"] = json!(fast.len());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpm::{Limits, Pattern};

    #[test]
    fn counts_are_exact_on_a_tiny_automaton() {
        // "abc": states root, a, ab (plain: 0, 1, 2), abc (matching: 3).
        let dfa = DfaTables::build(&[Pattern::new(&b"abc"[..], 1)], &Limits::default()).unwrap();
        assert_eq!((dfa.num_states, dfa.match_min), (4, 3));
        let sources = vec![
            ("one".to_string(), vec![b"abcx".to_vec()]),
            // Two payloads: the first half ranks the hottest states, the second is counted.
            ("two".to_string(), vec![b"xxxx".to_vec(), b"abab".to_vec()]),
        ];
        let v = profile(&dfa, &sources).unwrap();
        assert_eq!(v["ac_states"], 4);
        let one = &v["sources"][0];
        assert_eq!(one["lookups"], 4);
        // Rows read: root (a), a (b), ab (c), abc (x): one lookup at each depth 0..3.
        let d = one["lookups_by_depth"].as_array().unwrap();
        assert_eq!(d.len(), 4);
        assert!(d.iter().all(|e| e["share"] == 0.25), "{d:?}");
        assert_eq!(d[3]["cumulative"], 1.0);
        assert_eq!(one["states_visited"], 4);
        // Four lookups in four rows, four distinct sectors.
        assert_eq!(one["per_packet"]["distinct_rows"], 4.0);
        assert_eq!(one["table_bytes_touched"], 4 * 32);
        // Every budget holds all four states: nothing leaves shared memory.
        for b in one["budgets"].as_array().unwrap() {
            assert_eq!(b["shallowest_share"], 1.0, "{b}");
            assert_eq!(b["warp_steps_global_share"], 0.0, "{b}");
            assert_eq!(b["cold_bytes_per_packet"], 0.0, "{b}");
        }
        let two = &v["sources"][1];
        // Rows: root x4 (first half); root, a, ab, a (second half).
        let b = &two["budgets"][0];
        assert_eq!(b["hottest_share_second_half"], 1.0);
        // One warp of two lanes, 4 steps.
        assert_eq!(two["warp_steps"], 4);
    }

    #[test]
    fn a_large_automaton_leaves_shallow_budgets_and_shares_grow_with_them() {
        // 600 distinct two-byte patterns: 1 + up to 256 + 600 states, far over 48 rows.
        let pats: Vec<Pattern> = (0..600u32)
            .map(|i| Pattern::new(vec![(i % 200) as u8 + 32, (i / 200) as u8 + 65], i))
            .collect();
        let dfa = DfaTables::build(&pats, &Limits::default()).unwrap();
        let payloads: Vec<Vec<u8>> = (0..64u32)
            .map(|i| {
                crate::payloads::random_bytes(i as u64 + 1, 300)
                    .iter()
                    .map(|b| b % 224 + 32)
                    .collect()
            })
            .collect();
        let v = profile(&dfa, &[("random".to_string(), payloads)]).unwrap();
        let s = &v["sources"][0];
        assert_eq!(s["lookups"], 64 * 300);
        let budgets = s["budgets"].as_array().unwrap();
        assert_eq!(budgets.len(), 6);
        let share = |kib: u64, bits: u64| {
            budgets
                .iter()
                .find(|b| b["shared_kib"] == kib && b["entry_bits"] == bits)
                .unwrap()["shallowest_share"]
                .as_f64()
                .unwrap()
        };
        // 48 KiB at 32 bits: 48 rows; at 16 bits 96; 228 KiB at 16 bits: 456.
        assert_eq!(budgets[1]["rows"], 48);
        assert_eq!(budgets[0]["rows"], 96);
        assert!(share(48, 32) < share(48, 16) && share(48, 16) <= share(228, 16));
        assert!(share(48, 32) > 0.0 && share(228, 16) < 1.0 + 1e-9);
        for b in budgets {
            let g = b["warp_steps_global_share"].as_f64().unwrap();
            let cold = 1.0 - b["shallowest_share"].as_f64().unwrap();
            // A warp step leaves shared memory at least as often as one lookup does.
            assert!(g + 1e-3 >= cold, "{b}");
        }
    }
}

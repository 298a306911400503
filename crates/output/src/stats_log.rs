//! The statistics as Suricata's outputs write them: the `stats.log` text table (the
//! `stats` output) and the EVE `stats` record (`eve-log` type `stats`), both made from
//! the merged counter tree ([`StatsTree`]) and, per worker, the workers' own trees.
//!
//! `stats.log` is one block per interval: a rule, `Date: MM/DD/YYYY -- HH:MM:SS
//! (uptime: Nd, HHh MMm SSs)` in local time, a rule, the column heads, a rule, then one
//! row per counter: name (45 columns), `Total` or the thread's name (25 columns),
//! value. Counters at zero are left out, as Suricata does by default
//! (`null-values: no`).

use crate::stats::StatsTree;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The rule between the parts of a `stats.log` block (84 dashes).
const RULE: &str =
    "------------------------------------------------------------------------------------";

/// Counters that are Osprey's own (not Suricata's): kept out of the EVE `stats`
/// record, whose schema lists Suricata's sections only (they stay in stats.json).
const OWN_SECTION: &str = "osprey";

/// The name Suricata gives worker `k` (0-based) in per-thread statistics: `W#01` ...
pub fn worker_name(k: usize) -> String {
    format!("W#{:02}", k + 1)
}

/// One `stats.log` block: the totals (when `totals`) and each `(name, tree)` thread.
/// `now` is the wall-clock time in Unix seconds, `uptime` the engine's in seconds;
/// counters at zero are written only with `null_values`.
pub fn stats_log_block(
    merged: &StatsTree,
    threads: &[(String, StatsTree)],
    totals: bool,
    now: i64,
    uptime: u64,
    null_values: bool,
) -> String {
    let stamp = crate::time::fast_timestamp(now, 0);
    let (date, time) = (&stamp[..10], &stamp[11..19]);
    let (d, h, m, s) = (
        uptime / 86_400,
        uptime % 86_400 / 3600,
        uptime % 3600 / 60,
        uptime % 60,
    );
    let mut out = format!(
        "{RULE}\nDate: {date} -- {time} (uptime: {d}d, {h:02}h {m:02}m {s:02}s)\n{RULE}\n\
         {:<45} | {:<25} | Value\n{RULE}",
        "Counter", "TM Name"
    );
    let mut rows = |tree: &StatsTree, who: &str| {
        for (name, value) in tree.counters() {
            if (null_values || value != 0) && name != "uptime" {
                out.push_str(&format!("\n{name:<45} | {who:<25} | {value}"));
            }
        }
    };
    if totals {
        rows(merged, "Total");
    }
    for (name, tree) in threads {
        rows(tree, name);
    }
    out
}

/// What an EVE `stats` record holds (`types: - stats: {totals, threads, deltas}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsRecordOptions {
    /// `totals` (default yes): the merged counters.
    pub totals: bool,
    /// `threads` (default no): each worker's counters under `threads`.
    pub threads: bool,
    /// `deltas` (default no): beside each counter, `<name>_delta`, its change since the
    /// previous record.
    pub deltas: bool,
}

impl Default for StatsRecordOptions {
    fn default() -> Self {
        StatsRecordOptions {
            totals: true,
            threads: false,
            deltas: false,
        }
    }
}

/// The previous values of the counters an output wrote, for `deltas`.
#[derive(Debug, Default, Clone)]
pub struct StatsDeltas {
    prev: HashMap<String, u64>,
}

/// The `stats` object of an EVE `stats` record: `uptime` first, then the counters of
/// `merged` (with `totals`; Osprey's own `osprey` section left out), then `threads`
/// (with `threads`); `_delta` counters beside each (with `deltas`, updated in
/// `deltas`).
pub fn stats_object(
    merged: &StatsTree,
    threads: &[(String, StatsTree)],
    opts: StatsRecordOptions,
    uptime: u64,
    deltas: &mut StatsDeltas,
) -> Value {
    let mut o = Map::new();
    o.insert("uptime".into(), uptime.into());
    if opts.totals {
        if let Value::Object(m) = section(merged, opts.deltas.then_some((deltas, ""))) {
            o.extend(m);
        }
    }
    if opts.threads {
        let mut t = Map::new();
        for (name, tree) in threads {
            let d = opts.deltas.then_some((&mut *deltas, name.as_str()));
            t.insert(name.clone(), section(tree, d));
        }
        o.insert("threads".into(), Value::Object(t));
    }
    Value::Object(o)
}

/// One tree as an EVE object, without `uptime` and Osprey's section, with its deltas
/// (keyed under `prefix`) when asked.
fn section(tree: &StatsTree, deltas: Option<(&mut StatsDeltas, &str)>) -> Value {
    let mut v = tree.to_json();
    if let Value::Object(m) = &mut v {
        m.shift_remove("uptime");
        m.shift_remove(OWN_SECTION);
    }
    if let Some((d, prefix)) = deltas {
        add_deltas(&mut v, prefix, d);
    }
    v
}

/// Adds `<name>_delta` after every numeric leaf under `v` (path `path`).
fn add_deltas(v: &mut Value, path: &str, d: &mut StatsDeltas) {
    let Value::Object(m) = v else {
        return;
    };
    let old = std::mem::take(m);
    for (k, mut child) in old {
        let p = format!("{path}.{k}");
        match child.as_u64() {
            Some(n) => {
                let before = d.prev.insert(p, n).unwrap_or(0);
                m.insert(k.clone(), child);
                m.insert(format!("{k}_delta"), n.saturating_sub(before).into());
            }
            None => {
                add_deltas(&mut child, &p, d);
                m.insert(k, child);
            }
        }
    }
}

/// A whole EVE `stats` record at wall-clock time `now` (Unix seconds, microseconds).
pub fn stats_record(now: (i64, u32), stats: Value) -> Value {
    let mut o = Map::new();
    o.insert(
        "timestamp".into(),
        crate::time::eve_timestamp(now.0, now.1).into(),
    );
    o.insert("event_type".into(), "stats".into());
    o.insert("stats".into(), stats);
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> StatsTree {
        let mut t = StatsTree::new();
        t.add("decoder.pkts", 78);
        t.add("decoder.invalid", 0);
        t.add("flow.mgr.rows_maxlen", 1);
        t.add("osprey.threads", 1);
        t.set("uptime", 3.into());
        t
    }

    #[test]
    fn stats_log_layout_is_suricatas() {
        // 2008-05-16 15:50:58 UTC (unit tests format in UTC); uptime 1d 2h 3m 4s.
        let block = stats_log_block(
            &tree(),
            &[(worker_name(0), tree())],
            true,
            1_210_953_058,
            93_784,
            false,
        );
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines[0], RULE);
        assert_eq!(lines[0].len(), 84);
        assert_eq!(
            lines[1],
            "Date: 05/16/2008 -- 15:50:58 (uptime: 1d, 02h 03m 04s)"
        );
        assert_eq!(
            lines[3],
            "Counter                                       | TM Name                   | Value"
        );
        assert_eq!(
            lines[5],
            "decoder.pkts                                  | Total                     | 78"
        );
        assert!(!block.contains("decoder.invalid"), "zero counters left out");
        assert!(!block.contains("uptime  "), "uptime is in the date line");
        assert!(block.contains(
            "decoder.pkts                                  | W#01                      | 78"
        ));
        let no_totals = stats_log_block(&tree(), &[], false, 0, 0, false);
        assert_eq!(no_totals.lines().count(), 5);
        let zeros = stats_log_block(&tree(), &[], true, 0, 0, true);
        assert!(zeros.contains("decoder.invalid "));
    }

    #[test]
    fn eve_stats_object() {
        let mut d = StatsDeltas::default();
        let opts = StatsRecordOptions::default();
        let s = stats_object(&tree(), &[], opts, 7, &mut d);
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["uptime", "decoder", "flow"]);
        assert_eq!(s["uptime"], 7);
        assert_eq!(s["decoder"]["pkts"], 78);
        assert!(s.get("threads").is_none());
        let all = StatsRecordOptions {
            totals: false,
            threads: true,
            deltas: true,
        };
        let threads = [(worker_name(0), tree())];
        let s = stats_object(&tree(), &threads, all, 7, &mut d);
        assert!(s.get("decoder").is_none());
        assert_eq!(s["threads"]["W#01"]["decoder"]["pkts_delta"], 78);
        let mut more = tree();
        more.add("decoder.pkts", 2);
        let s = stats_object(&tree(), &[(worker_name(0), more)], all, 8, &mut d);
        assert_eq!(s["threads"]["W#01"]["decoder"]["pkts"], 80);
        assert_eq!(s["threads"]["W#01"]["decoder"]["pkts_delta"], 2);
        let r = stats_record((0, 0), s);
        assert_eq!(r["event_type"], "stats");
        assert_eq!(r["stats"]["uptime"], 8);
    }
}

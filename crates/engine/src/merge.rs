//! Merging per-worker counter trees by what each counter means.
//!
//! Most counters count events and add up across workers. The few that do not (maxima,
//! averages, values that are the same for the whole engine) are named in [`RULES`], the
//! one place that says how each of them merges. Values that are not numbers (the
//! `detect.engines` list) keep the first worker's.

use output::stats::StatsTree;
use serde_json::Value;

/// How the values of one counter from several workers combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Counts of events: the total is the sum (the rule of every counter not in
    /// [`RULES`]).
    Sum,
    /// A level each worker holds for its own share (memory in use, active flows or
    /// sessions, spare entries): the engine's level is the sum of the workers'. Listed
    /// so that readers (and the Prometheus endpoint) know they go up and down.
    Gauge,
    /// A maximum: the largest of the workers' values.
    Max,
    /// An average, recomputed from the merged totals: `numerator / denominator`
    /// (integer division, as Suricata reports it; 0 when the denominator is 0).
    Ratio {
        /// The counter summing the measured values.
        numerator: &'static str,
        /// The counter of how many values were measured.
        denominator: &'static str,
    },
    /// One value for the whole engine (every worker that reports it reports the same):
    /// the largest is kept, so a stale snapshot never wins over a fresher one.
    Engine,
}

/// Every counter that does not merge as a plain [`Rule::Sum`], with its rule. Names are
/// Suricata's (including counters Osprey does not produce yet, so they merge right
/// the day they appear).
pub(crate) const RULES: &[(&str, Rule)] = &[
    (
        "decoder.avg_pkt_size",
        Rule::Ratio {
            numerator: "decoder.bytes",
            denominator: "decoder.pkts",
        },
    ),
    ("decoder.max_pkt_size", Rule::Max),
    ("decoder.max_mac_addrs_src", Rule::Max),
    ("decoder.max_mac_addrs_dst", Rule::Max),
    ("flow.mgr.rows_maxlen", Rule::Max),
    ("flow.recycler.queue_max", Rule::Max),
    ("flow.wrk.flows_injected_max", Rule::Max),
    ("memcap_pressure", Rule::Max),
    ("memcap_pressure_max", Rule::Max),
    ("flow.active", Rule::Gauge),
    ("flow.spare", Rule::Gauge),
    ("flow.memuse", Rule::Gauge),
    ("tcp.active_sessions", Rule::Gauge),
    ("tcp.memuse", Rule::Gauge),
    ("tcp.reassembly_memuse", Rule::Gauge),
    ("ftp.memuse", Rule::Gauge),
    ("http.memuse", Rule::Gauge),
    ("file_store.open_files", Rule::Gauge),
    ("uptime", Rule::Engine),
    ("osprey.threads", Rule::Engine),
    // Lua scripts: process-wide counts every worker reports.
    ("detect.lua.errors", Rule::Engine),
    ("detect.lua.blocked_function_errors", Rule::Engine),
    ("detect.lua.instruction_limit_errors", Rule::Engine),
    ("detect.lua.memory_limit_errors", Rule::Engine),
];

/// The merge rule of counter `name` (dotted path).
pub(crate) fn rule(name: &str) -> Rule {
    // `osprey.datasets.<set>.memcap_drops`: values a set shared by every worker
    // refused because its memcap was reached (each worker reports the set's total).
    if name.starts_with("osprey.datasets.") {
        return Rule::Engine;
    }
    RULES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(Rule::Sum, |(_, r)| *r)
}

/// Merges every counter of `src` into `dst`, each by its [`rule`]. Merging the workers'
/// trees one after the other into an empty tree gives the engine's counters.
pub(crate) fn merge_into(dst: &mut StatsTree, src: &StatsTree) {
    let mut path = String::new();
    walk(dst, &src.to_json(), &mut path);
    for (name, r) in RULES {
        if let Rule::Ratio {
            numerator,
            denominator,
        } = r
        {
            if dst.get(name).is_some() {
                let num = dst.get(numerator).unwrap_or(0);
                let den = dst.get(denominator).unwrap_or(0);
                dst.set(name, Value::from(num.checked_div(den).unwrap_or(0)));
            }
        }
    }
}

fn walk(dst: &mut StatsTree, v: &Value, path: &mut String) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let len = path.len();
                if k != "_value" {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                }
                walk(dst, child, path);
                path.truncate(len);
            }
        }
        Value::Number(n) if n.is_u64() => {
            let value = n.as_u64().unwrap_or(0);
            match rule(path) {
                Rule::Sum | Rule::Gauge => dst.add(path, value),
                Rule::Max | Rule::Engine => {
                    let old = dst.get(path);
                    if old.is_none_or(|old| value > old) {
                        dst.set(path, Value::from(value));
                    }
                }
                // Summed here; the average is recomputed once the walk is done. A
                // tree without the numerator or denominator keeps the sum of nothing
                // else: the recomputation gives 0 rather than a sum of averages.
                Rule::Ratio { .. } => {
                    if dst.get(path).is_none() {
                        dst.set(path, Value::from(value));
                    }
                }
            }
        }
        other => {
            if dst.get(path).is_none() {
                dst.set(path, other.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_add_up() {
        let mut a = StatsTree::new();
        a.add("decoder.pkts", 3);
        a.add("tcp.sessions", 1);
        let mut b = StatsTree::new();
        b.add("decoder.pkts", 4);
        b.add("decoder.ipv4", 2);
        let mut out = StatsTree::new();
        merge_into(&mut out, &a);
        merge_into(&mut out, &b);
        assert_eq!(out.get("decoder.pkts"), Some(7));
        assert_eq!(out.get("decoder.ipv4"), Some(2));
        assert_eq!(out.get("tcp.sessions"), Some(1));
    }

    fn worker(pkts: u64, bytes: u64, max: u64, memuse: u64) -> StatsTree {
        let mut t = StatsTree::new();
        t.add("decoder.pkts", pkts);
        t.add("decoder.bytes", bytes);
        t.add("decoder.avg_pkt_size", bytes / pkts.max(1));
        t.add("decoder.max_pkt_size", max);
        t.add("tcp.reassembly_memuse", memuse);
        t.set("detect.engines", serde_json::json!([{"id": 0}]));
        t
    }

    #[test]
    fn maxima_and_averages_merge_by_meaning() {
        // Worker 1: 3 frames of 100 bytes; worker 2: one frame of 1,000 bytes.
        let mut out = StatsTree::new();
        merge_into(&mut out, &worker(3, 300, 100, 10));
        merge_into(&mut out, &worker(1, 1000, 1000, 5));
        assert_eq!(out.get("decoder.pkts"), Some(4));
        assert_eq!(out.get("decoder.bytes"), Some(1300));
        assert_eq!(out.get("decoder.avg_pkt_size"), Some(325), "1300 / 4");
        assert_eq!(out.get("decoder.max_pkt_size"), Some(1000));
        assert_eq!(out.get("tcp.reassembly_memuse"), Some(15));
        assert_eq!(out.to_json()["detect"]["engines"][0]["id"], 0);
        // The order of the workers does not matter.
        let mut rev = StatsTree::new();
        merge_into(&mut rev, &worker(1, 1000, 1000, 5));
        merge_into(&mut rev, &worker(3, 300, 100, 10));
        assert_eq!(rev.to_json(), out.to_json());
    }

    #[test]
    fn one_worker_is_unchanged() {
        let w = worker(3, 301, 120, 7);
        let mut out = StatsTree::new();
        merge_into(&mut out, &w);
        assert_eq!(out.to_json(), w.to_json());
    }

    #[test]
    fn engine_values_are_not_added() {
        let mut a = StatsTree::new();
        a.add("uptime", 5);
        let mut b = StatsTree::new();
        b.add("uptime", 4);
        let mut out = StatsTree::new();
        merge_into(&mut out, &a);
        merge_into(&mut out, &b);
        assert_eq!(out.get("uptime"), Some(5));
    }

    #[test]
    fn an_average_without_its_totals_is_zero_not_a_sum() {
        let mut a = StatsTree::new();
        a.add("decoder.avg_pkt_size", 300);
        let mut out = StatsTree::new();
        merge_into(&mut out, &a);
        merge_into(&mut out, &a);
        assert_eq!(out.get("decoder.avg_pkt_size"), Some(0));
    }

    #[test]
    fn every_rule_is_named_once() {
        let mut names: Vec<_> = RULES.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let len = names.len();
        names.dedup();
        assert_eq!(names.len(), len);
        assert_eq!(rule("decoder.pkts"), Rule::Sum);
        assert_eq!(rule("decoder.max_pkt_size"), Rule::Max);
        assert_eq!(rule("flow.active"), Rule::Gauge);
    }
    #[test]
    fn dataset_counters_are_one_engine_value() {
        assert_eq!(rule("osprey.datasets.uris.memcap_drops"), Rule::Engine);
        let mut w = StatsTree::new();
        w.add("osprey.datasets.uris.memcap_drops", 5);
        let mut out = StatsTree::new();
        merge_into(&mut out, &w);
        merge_into(&mut out, &w);
        assert_eq!(out.get("osprey.datasets.uris.memcap_drops"), Some(5));
    }
}

//! Merging per-worker counter trees: numbers add up, other values keep the first seen.

use output::stats::StatsTree;
use serde_json::Value;

/// Adds every counter of `src` to `dst`.
pub(crate) fn merge_into(dst: &mut StatsTree, src: &StatsTree) {
    let mut path = String::new();
    walk(dst, &src.to_json(), &mut path);
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
        Value::Number(n) if n.is_u64() => dst.add(path, n.as_u64().unwrap_or(0)),
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
}

//! Suricata-style `stats.json`: dotted counter names (`decoder.ipv4`,
//! `decoder.event.ipv4.trunc_pkt`) nested into JSON objects, so dashboards built for
//! Suricata's stats read ours.

use serde_json::{Map, Value};
use std::io::{self, Write};
use std::path::Path;

/// A set of counters, nested by the dots in their names.
///
/// Adding the same name twice sums the values, which is how per-worker counters are
/// merged. A name that is both a leaf and a prefix of another (`a` and `a.b`) never
/// occurs among Suricata's names; if it does, the leaf's value moves to `a._value` so the
/// tree stays well-formed.
#[derive(Debug, Default, Clone)]
pub struct StatsTree {
    root: Map<String, Value>,
}

impl StatsTree {
    /// An empty tree.
    pub fn new() -> Self {
        StatsTree::default()
    }

    /// Adds `value` to the counter `name` (dotted path), creating it at zero.
    pub fn add(&mut self, name: &str, value: u64) {
        let mut node = &mut self.root;
        let mut parts = name.split('.').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                match node.get_mut(part) {
                    Some(Value::Number(n)) => {
                        let old = n.as_u64().unwrap_or(0);
                        *node.get_mut(part).expect("present") =
                            Value::from(old.saturating_add(value));
                    }
                    Some(Value::Object(obj)) => {
                        let old = obj.get("_value").and_then(Value::as_u64).unwrap_or(0);
                        obj.insert("_value".into(), Value::from(old.saturating_add(value)));
                    }
                    _ => {
                        node.insert(part.to_string(), Value::from(value));
                    }
                }
                return;
            }
            let entry = node
                .entry(part.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                let leaf = entry.take();
                let mut obj = Map::new();
                obj.insert("_value".into(), leaf);
                *entry = Value::Object(obj);
            }
            node = entry.as_object_mut().expect("object just ensured");
        }
    }

    /// Sets a non-counter value (a string, a list such as `detect.engines`) at `name`.
    pub fn set(&mut self, name: &str, value: Value) {
        let (parent, leaf) = match name.rsplit_once('.') {
            Some((p, l)) => (Some(p), l),
            None => (None, name),
        };
        let mut node = &mut self.root;
        if let Some(parent) = parent {
            for part in parent.split('.') {
                let entry = node
                    .entry(part.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                if !entry.is_object() {
                    *entry = Value::Object(Map::new());
                }
                node = entry.as_object_mut().expect("object just ensured");
            }
        }
        node.insert(leaf.to_string(), value);
    }

    /// Adds every `(name, value)` pair.
    pub fn extend<'a>(&mut self, counters: impl IntoIterator<Item = (&'a str, u64)>) {
        for (name, value) in counters {
            self.add(name, value);
        }
    }

    /// Looks a counter up by its dotted name.
    pub fn get(&self, name: &str) -> Option<u64> {
        let mut node = &self.root;
        let mut parts = name.split('.').peekable();
        while let Some(part) = parts.next() {
            let v = node.get(part)?;
            if parts.peek().is_none() {
                return v.as_u64();
            }
            node = v.as_object()?;
        }
        None
    }

    /// Every numeric counter as `(dotted name, value)`, in the tree's order (the
    /// order names were first added); values that are not numbers are left out.
    pub fn counters(&self) -> Vec<(String, u64)> {
        fn walk(m: &Map<String, Value>, path: &str, out: &mut Vec<(String, u64)>) {
            for (k, v) in m {
                let name = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match v {
                    Value::Object(c) => walk(c, &name, out),
                    v => {
                        if let Some(n) = v.as_u64() {
                            out.push((name, n));
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, "", &mut out);
        out
    }

    /// The tree as a JSON value.
    pub fn to_json(&self) -> Value {
        Value::Object(self.root.clone())
    }

    /// Writes the tree as pretty JSON (Suricata writes `stats.json` one object a line in
    /// EVE; the standalone file is pretty-printed for people).
    pub fn write_to(&self, mut w: impl Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut w, &self.root)?;
        w.write_all(b"\n")
    }

    /// Writes the tree to `path`, replacing it whole: the tree goes to a temporary file
    /// beside it, renamed over `path` once complete, so a reader never sees a partly
    /// written file (a run rewrites it at every stats interval).
    pub fn write_file(&self, path: &Path) -> io::Result<()> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        let f = std::fs::File::create(&tmp)?;
        let mut w = io::BufWriter::new(f);
        self.write_to(&mut w)?;
        w.flush()?;
        drop(w);
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_file_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("osprey-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stats.json");
        std::fs::write(&path, "old").unwrap();
        let mut t = StatsTree::new();
        t.add("decoder.pkts", 7);
        t.write_file(&path).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["decoder"]["pkts"], 7);
        assert!(
            !dir.join("stats.json.tmp").exists(),
            "the temporary file is renamed"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nests_and_sums() {
        let mut t = StatsTree::new();
        t.add("decoder.pkts", 3);
        t.add("decoder.event.ipv4.trunc_pkt", 1);
        t.add("decoder.pkts", 4);
        assert_eq!(t.get("decoder.pkts"), Some(7));
        assert_eq!(t.get("decoder.event.ipv4.trunc_pkt"), Some(1));
        let v = t.to_json();
        assert_eq!(v["decoder"]["event"]["ipv4"]["trunc_pkt"], 1);
        assert_eq!(t.get("decoder.nope"), None);
        assert_eq!(
            t.counters(),
            [
                ("decoder.pkts".to_string(), 7),
                ("decoder.event.ipv4.trunc_pkt".to_string(), 1)
            ]
        );
    }

    #[test]
    fn leaf_and_prefix_stay_well_formed() {
        let mut t = StatsTree::new();
        t.add("a", 1);
        t.add("a.b", 2);
        t.add("a", 5);
        assert_eq!(t.get("a.b"), Some(2));
        assert_eq!(t.get("a._value"), Some(6));
    }

    #[test]
    fn set_values() {
        let mut t = StatsTree::new();
        t.set("detect.engines", serde_json::json!([{"id": 0}]));
        assert_eq!(t.to_json()["detect"]["engines"][0]["id"], 0);
    }
}

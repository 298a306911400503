//! suricata.yaml: loading (with `%YAML 1.1` header, `include:` and `!include`), dotted-key
//! lookup, `--set key=value` overrides, and the list of keys nothing asked for.
//!
//! Configuration, not rule language: it lives beside `rules` (whose [`Diagnostic`]s it
//! reports in and whose [`Vars`] it fills from `vars:`) rather than in it. YAML is read by
//! `serde_norway`, the maintained fork of `serde_yaml` with the same data model.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_norway::Mapping;
pub use serde_norway::Value;

use rules::diag::{Diagnostic, Reason};
use rules::vars::Vars;

pub mod logging;
pub use logging::{LogLevel, LoggingSettings};

/// Deepest `include` chain followed.
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// Largest configuration file read.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// A loaded configuration.
#[derive(Debug)]
pub struct Config {
    root: Value,
    path: Option<PathBuf>,
    used: Mutex<HashSet<String>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            root: Value::Mapping(Mapping::new()),
            path: None,
            used: Mutex::new(HashSet::new()),
        }
    }
}

impl Clone for Config {
    fn clone(&self) -> Self {
        Config {
            root: self.root.clone(),
            path: self.path.clone(),
            used: Mutex::new(self.used.lock().map(|u| u.clone()).unwrap_or_default()),
        }
    }
}

fn cfg_err(path: Option<&Path>, m: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Reason::Config, None, m).in_file(path.map(Arc::from))
}

fn read_yaml(path: &Path, depth: usize) -> Result<Value, Diagnostic> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(cfg_err(
            Some(path),
            format!("include nested deeper than {MAX_INCLUDE_DEPTH}"),
        ));
    }
    let meta =
        std::fs::metadata(path).map_err(|e| cfg_err(Some(path), format!("cannot read: {e}")))?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(cfg_err(Some(path), "configuration file too large"));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| cfg_err(Some(path), format!("cannot read: {e}")))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse_yaml(&text, &base, depth, Some(path))
}

fn parse_yaml(
    text: &str,
    base: &Path,
    depth: usize,
    path: Option<&Path>,
) -> Result<Value, Diagnostic> {
    // Suricata files start with `%YAML 1.1` and `---`; drop the directive line(s).
    let body: String = text
        .lines()
        .map(|l| if l.starts_with('%') { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let mut v: Value = if body.trim().is_empty() || body.trim() == "---" {
        Value::Mapping(Mapping::new())
    } else {
        serde_norway::from_str(&body).map_err(|e| {
            let mut d = cfg_err(path, format!("invalid YAML: {e}"));
            if let Some(l) = e.location() {
                d = d.at(l.line() as u32, l.column() as u32);
            }
            d
        })?
    };
    if v.is_null() {
        v = Value::Mapping(Mapping::new());
    }
    resolve_includes(&mut v, base, depth)?;
    Ok(v)
}

fn include_paths(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Sequence(s) => s
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => vec![],
    }
}

fn resolve_includes(v: &mut Value, base: &Path, depth: usize) -> Result<(), Diagnostic> {
    match v {
        Value::Tagged(t) if t.tag == "!include" => {
            let p = t.value.as_str().map(|s| base.join(s));
            match p {
                Some(p) => *v = read_yaml(&p, depth + 1)?,
                None => return Err(cfg_err(None, "!include needs a file name")),
            }
        }
        Value::Mapping(m) => {
            let inc = m.remove("include");
            for (_, child) in m.iter_mut() {
                resolve_includes(child, base, depth)?;
            }
            if let Some(inc) = inc {
                for file in include_paths(&inc) {
                    let p = base.join(&file);
                    if let Value::Mapping(other) = read_yaml(&p, depth + 1)? {
                        for (k, val) in other {
                            m.insert(k, val);
                        }
                    }
                }
            }
        }
        Value::Sequence(s) => {
            for child in s {
                resolve_includes(child, base, depth)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn key_str(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => serde_norway::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_owned(),
    }
}

/// Scalar as a string the way Suricata's configuration reads it.
pub fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes".into() } else { "no".into() }),
        Value::Sequence(items) => {
            let parts: Option<Vec<String>> = items.iter().map(scalar_string).collect();
            parts.map(|p| format!("[{}]", p.join(",")))
        }
        _ => None,
    }
}

fn child<'a>(v: &'a Value, seg: &str) -> Option<&'a Value> {
    match v {
        Value::Mapping(m) => m.get(seg),
        Value::Sequence(s) => match seg.parse::<usize>() {
            Ok(i) => s.get(i),
            // `outputs.eve-log`: the element that is a one-key map with that key.
            Err(_) => s
                .iter()
                .find_map(|e| e.as_mapping().and_then(|m| m.get(seg))),
        },
        Value::Tagged(t) => child(&t.value, seg),
        _ => None,
    }
}

impl Config {
    /// Loads a suricata.yaml; `include:` files are resolved relative to it.
    pub fn load(path: &Path) -> Result<Config, Diagnostic> {
        let root = read_yaml(path, 0)?;
        Ok(Config {
            root,
            path: Some(path.to_path_buf()),
            used: Mutex::new(HashSet::new()),
        })
    }

    /// Parses YAML text; includes resolve against `base_dir` (or the current directory).
    pub fn parse(text: &str, base_dir: Option<&Path>) -> Result<Config, Diagnostic> {
        let root = parse_yaml(text, base_dir.unwrap_or(Path::new(".")), 0, None)?;
        Ok(Config {
            root,
            path: None,
            used: Mutex::new(HashSet::new()),
        })
    }

    /// Merges another file on top (Suricata's `--include`): its top-level keys replace ours.
    pub fn merge_file(&mut self, path: &Path) -> Result<(), Diagnostic> {
        let other = read_yaml(path, 0)?;
        if let (Value::Mapping(m), Value::Mapping(o)) = (&mut self.root, other) {
            for (k, v) in o {
                m.insert(k, v);
            }
        }
        Ok(())
    }

    /// The file this configuration came from.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn mark(&self, key: &str) {
        if let Ok(mut u) = self.used.lock() {
            u.insert(key.to_owned());
        }
    }

    /// Looks up a dotted key (`stream.reassembly.depth`, `outputs.0.eve-log.enabled`) and
    /// records it (and everything below it) as used.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let mut cur = &self.root;
        let mut canon = String::with_capacity(key.len());
        let mut found = true;
        for seg in key.split('.') {
            if !canon.is_empty() {
                canon.push('.');
            }
            // `outputs.eve-log` is recorded as `outputs.N.eve-log`.
            if let (Value::Sequence(s), Err(_)) = (cur, seg.parse::<usize>()) {
                if let Some(i) = s
                    .iter()
                    .position(|e| e.as_mapping().is_some_and(|m| m.contains_key(seg)))
                {
                    canon.push_str(&i.to_string());
                    canon.push('.');
                }
            }
            canon.push_str(seg);
            match child(cur, seg) {
                Some(c) => cur = c,
                None => {
                    found = false;
                    break;
                }
            }
        }
        self.mark(&canon);
        if found {
            Some(cur)
        } else {
            None
        }
    }

    /// Whether `key` is present, without recording anything as used (unlike
    /// [`get`](Self::get), which records the whole subtree).
    pub fn get_present(&self, key: &str) -> bool {
        let mut cur = &self.root;
        for seg in key.split('.') {
            match child(cur, seg) {
                Some(c) => cur = c,
                None => return false,
            }
        }
        true
    }

    /// A scalar value as a string (numbers and booleans converted).
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.get(key).and_then(scalar_string)
    }

    /// A boolean: `yes/no/true/false/on/off/1/0`, as Suricata reads them.
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        match self.get(key)? {
            Value::Bool(b) => Some(*b),
            v => match scalar_string(v)?.to_ascii_lowercase().as_str() {
                "yes" | "true" | "on" | "1" | "enable" | "enabled" => Some(true),
                "no" | "false" | "off" | "0" | "disable" | "disabled" => Some(false),
                _ => None,
            },
        }
    }

    /// A size or count: plain number or with a `kb`/`mb`/`gb` suffix (powers of 1024).
    pub fn get_size(&self, key: &str) -> Option<u64> {
        parse_size(&self.get_str(key)?)
    }

    /// A list of scalars (a YAML sequence, or a single scalar).
    pub fn get_list(&self, key: &str) -> Option<Vec<String>> {
        match self.get(key)? {
            Value::Sequence(s) => Some(s.iter().filter_map(scalar_string).collect()),
            v => scalar_string(v).map(|s| vec![s]),
        }
    }

    /// `--set key=value`: sets a scalar, creating intermediate maps.
    pub fn apply_set(&mut self, kv: &str) -> Result<(), String> {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set '{kv}': expected key=value"))?;
        self.set(k.trim(), v.trim())
    }

    /// Sets a dotted key to a string value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(format!("bad configuration key '{key}'"));
        }
        let mut cur = &mut self.root;
        let segs: Vec<&str> = key.split('.').collect();
        for (i, seg) in segs.iter().enumerate() {
            let last = i == segs.len() - 1;
            if !matches!(cur, Value::Mapping(_) | Value::Sequence(_)) {
                *cur = Value::Mapping(Mapping::new());
            }
            let next: &mut Value = match cur {
                Value::Sequence(s) => {
                    let idx: usize = seg
                        .parse()
                        .map_err(|_| format!("'{seg}' in '{key}' must index a list"))?;
                    if idx > s.len() {
                        return Err(format!(
                            "index {idx} in '{key}' is past the end of the list"
                        ));
                    }
                    if idx == s.len() {
                        s.push(Value::Null);
                    }
                    &mut s[idx]
                }
                Value::Mapping(m) => {
                    let k = Value::String((*seg).to_owned());
                    if !m.contains_key(&k) {
                        m.insert(k.clone(), Value::Null);
                    }
                    m.get_mut(&k).ok_or("unreachable")?
                }
                _ => return Err("unreachable".into()),
            };
            if last {
                *next = Value::String(value.to_owned());
            }
            cur = next;
        }
        Ok(())
    }

    /// Address and port variables; a group missing from the file takes Suricata's defaults.
    pub fn vars(&self) -> Vars {
        let defaults = Vars::suricata_default();
        let mut v = Vars::default();
        match self.get("vars.address-groups").and_then(Value::as_mapping) {
            Some(m) => {
                for (k, val) in m {
                    if let Some(s) = scalar_string(val) {
                        v.set_address(&key_str(k), &s);
                    }
                }
            }
            None => {
                for n in defaults.address_names() {
                    v.set_address(n, defaults.address(n).unwrap_or_default());
                }
            }
        }
        match self.get("vars.port-groups").and_then(Value::as_mapping) {
            Some(m) => {
                for (k, val) in m {
                    if let Some(s) = scalar_string(val) {
                        v.set_port(&key_str(k), &s);
                    }
                }
            }
            None => {
                for n in defaults.port_names() {
                    v.set_port(n, defaults.port(n).unwrap_or_default());
                }
            }
        }
        v
    }

    fn base_dir(&self) -> PathBuf {
        self.path
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// `default-rule-path`.
    pub fn default_rule_path(&self) -> Option<PathBuf> {
        self.get_str("default-rule-path").map(PathBuf::from)
    }

    /// `rule-files`, each joined to `default-rule-path` when relative.
    pub fn rule_files(&self) -> Vec<PathBuf> {
        let base = self.default_rule_path();
        self.get_list("rule-files")
            .unwrap_or_default()
            .into_iter()
            .map(|f| {
                let p = PathBuf::from(&f);
                match (&base, p.is_absolute()) {
                    (Some(b), false) => b.join(p),
                    _ => p,
                }
            })
            .collect()
    }

    fn file_key(&self, key: &str) -> Option<PathBuf> {
        self.get_str(key).map(|f| {
            let p = PathBuf::from(f);
            if p.is_absolute() || p.exists() {
                p
            } else {
                self.base_dir().join(p)
            }
        })
    }

    /// `classification-file`.
    pub fn classification_file(&self) -> Option<PathBuf> {
        self.file_key("classification-file")
    }

    /// `reference-config-file`.
    pub fn reference_config_file(&self) -> Option<PathBuf> {
        self.file_key("reference-config-file")
    }

    /// `threshold-file`.
    pub fn threshold_file(&self) -> Option<PathBuf> {
        self.file_key("threshold-file")
    }

    /// Every node, as Suricata's `--dump-config` prints it: the dotted path and the
    /// value, in file order. Maps, lists and empty values print `(null)`; a list item
    /// that is a map prints its first key (`outputs.0 = fast`), then its entries.
    /// Nothing is recorded as used.
    pub fn dump(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Value::Mapping(m) = &self.root {
            for (k, v) in m {
                dump_node(key_str(k), v, &mut out);
            }
        }
        out
    }

    /// Every top-level-or-deeper node that nothing looked up, at the highest level where
    /// nothing below it was used (`app-layer`, `stream.midstream` ...). Print them once.
    pub fn unused_keys(&self) -> Vec<String> {
        let used = self.used.lock().map(|u| u.clone()).unwrap_or_default();
        let mut out = Vec::new();
        walk_unused(&self.root, "", &used, &mut out);
        out
    }
}

const DUMP_NULL: &str = "(null)";

fn dump_node(path: String, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Mapping(m) => {
            out.push((path.clone(), DUMP_NULL.into()));
            for (k, c) in m {
                dump_node(format!("{path}.{}", key_str(k)), c, out);
            }
        }
        Value::Sequence(s) => {
            out.push((path.clone(), DUMP_NULL.into()));
            for (i, c) in s.iter().enumerate() {
                let p = format!("{path}.{i}");
                match c {
                    Value::Mapping(m) if !m.is_empty() => {
                        let first = m.keys().next().map(key_str).unwrap_or_default();
                        out.push((p.clone(), first));
                        for (k, cc) in m {
                            dump_node(format!("{p}.{}", key_str(k)), cc, out);
                        }
                    }
                    _ => dump_node(p, c, out),
                }
            }
        }
        Value::Tagged(t) => dump_node(path, &t.value, out),
        Value::Bool(b) => out.push((path, b.to_string())),
        Value::Null => out.push((path, DUMP_NULL.into())),
        other => out.push((
            path,
            scalar_string(other).unwrap_or_else(|| DUMP_NULL.into()),
        )),
    }
}

fn walk_unused(v: &Value, path: &str, used: &HashSet<String>, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match v {
        Value::Mapping(m) => m.iter().map(|(k, c)| (key_str(k), c)).collect(),
        Value::Sequence(s) if !path.is_empty() => s
            .iter()
            .enumerate()
            .map(|(i, c)| (i.to_string(), c))
            .collect(),
        _ => return,
    };
    for (k, c) in children {
        let p = if path.is_empty() {
            k
        } else {
            format!("{path}.{k}")
        };
        let covered = used.contains(&p) || {
            let mut a = p.as_str();
            let mut hit = false;
            while let Some((parent, _)) = a.rsplit_once('.') {
                if used.contains(parent) {
                    hit = true;
                    break;
                }
                a = parent;
            }
            hit
        };
        if covered {
            continue;
        }
        let prefix = format!("{p}.");
        if used.iter().any(|u| u.starts_with(&prefix)) {
            walk_unused(c, &p, used, out);
        } else {
            out.push(p);
        }
    }
}

/// Parses `123`, `10kb`, `64mb`, `1gb` (case-insensitive, optional space).
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("kb").or_else(|| t.strip_suffix("kib")) {
        (n, 1024)
    } else if let Some(n) = t.strip_suffix("mb").or_else(|| t.strip_suffix("mib")) {
        (n, 1024 * 1024)
    } else if let Some(n) = t.strip_suffix("gb").or_else(|| t.strip_suffix("gib")) {
        (n, 1024 * 1024 * 1024)
    } else {
        (t.as_str(), 1)
    };
    let num = num.trim();
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult);
    }
    // Suricata also takes a decimal number of units (`25.6mb`), rounded down to bytes.
    let (int, frac) = num.split_once('.')?;
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || !digits(frac) {
        return None;
    }
    let bytes = num.parse::<f64>().ok()? * mult as f64;
    (bytes < u64::MAX as f64).then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_suricata() {
        assert_eq!(parse_size("256mb"), Some(256 << 20));
        assert_eq!(parse_size(" 4 KiB "), Some(4096));
        assert_eq!(parse_size("1gb"), Some(1 << 30));
        assert_eq!(parse_size("25.6mb"), Some(26_843_545));
        assert_eq!(parse_size("0.5kb"), Some(512));
        assert_eq!(parse_size("12345"), Some(12345));
        for bad in ["", "mb", ".5mb", "5.mb", "1e3", "-1", "1.2.3kb", "x"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn dump_as_suricata() {
        let text = "%YAML 1.1\n---\nvars:\n  address-groups:\n    HOME_NET: \"[10.0.0.0/8]\"\noutputs:\n  - fast:\n      enabled: yes\n      filename: fast.log\nrule-files:\n  - a.rules\nempty:\nflag: true\nn: 3\n";
        let mut c = Config::parse(text, None).unwrap();
        c.apply_set("stream.midstream=true").unwrap();
        let lines: Vec<String> = c.dump().iter().map(|(k, v)| format!("{k} = {v}")).collect();
        assert_eq!(
            lines,
            [
                "vars = (null)",
                "vars.address-groups = (null)",
                "vars.address-groups.HOME_NET = [10.0.0.0/8]",
                "outputs = (null)",
                "outputs.0 = fast",
                "outputs.0.fast = (null)",
                "outputs.0.fast.enabled = yes",
                "outputs.0.fast.filename = fast.log",
                "rule-files = (null)",
                "rule-files.0 = a.rules",
                "empty = (null)",
                "flag = true",
                "n = 3",
                "stream = (null)",
                "stream.midstream = true",
            ]
        );
        assert_eq!(c.unused_keys().len(), 7, "dump marks nothing used");
    }

    const YAML: &str = "%YAML 1.1\n---\nvars:\n  address-groups:\n    HOME_NET: \"[10.0.0.0/8]\"\n    EXTERNAL_NET: \"!$HOME_NET\"\n  port-groups:\n    HTTP_PORTS: 80\n    WEB: [80, 8080]\n\
        default-rule-path: /etc/rules\nrule-files:\n  - a.rules\n  - /abs/b.rules\n\
        stream:\n  reassembly:\n    depth: 1mb\n  midstream: false\n\
        outputs:\n  - fast:\n      enabled: yes\n  - eve-log:\n      enabled: no\n\
        app-layer:\n  protocols:\n    http:\n      enabled: yes\n";

    #[test]
    fn loads_suricata_yaml() {
        let c = Config::parse(YAML, None).unwrap();
        let v = c.vars();
        assert_eq!(v.address("HOME_NET"), Some("[10.0.0.0/8]"));
        assert_eq!(v.port("HTTP_PORTS"), Some("80"));
        assert_eq!(v.port("WEB"), Some("[80,8080]"));
        assert_eq!(v.address("DNS_SERVERS"), None);
        assert_eq!(
            c.rule_files(),
            vec![
                PathBuf::from("/etc/rules/a.rules"),
                PathBuf::from("/abs/b.rules")
            ]
        );
        assert_eq!(c.get_size("stream.reassembly.depth"), Some(1 << 20));
        assert_eq!(c.get_bool("outputs.0.fast.enabled"), Some(true));
        assert_eq!(c.get_bool("outputs.eve-log.enabled"), Some(false));
        assert_eq!(c.get_bool("stream.midstream"), Some(false));
        let unused = c.unused_keys();
        assert_eq!(unused, vec!["app-layer".to_string()]);
    }

    #[test]
    fn set_overrides() {
        let mut c = Config::parse(YAML, None).unwrap();
        c.apply_set("stream.reassembly.depth=2mb").unwrap();
        c.apply_set("detect.profile=high").unwrap();
        c.apply_set("outputs.1.eve-log.enabled=yes").unwrap();
        assert_eq!(c.get_size("stream.reassembly.depth"), Some(2 << 20));
        assert_eq!(c.get_str("detect.profile").as_deref(), Some("high"));
        assert_eq!(c.get_bool("outputs.1.eve-log.enabled"), Some(true));
        assert!(c.apply_set("novalue").is_err());
        assert!(c.apply_set("a..b=1").is_err());
        assert!(c.apply_set("outputs.9.x=1").is_err());
    }

    #[test]
    fn defaults_without_vars() {
        let c = Config::parse("foo: 1\n", None).unwrap();
        assert_eq!(c.vars(), Vars::suricata_default());
        assert!(Config::parse("a: [\n", None).is_err());
        assert!(Config::parse("", None).unwrap().unused_keys().is_empty());
    }

    #[test]
    fn includes_resolve_relative_to_the_file() {
        let dir = std::env::temp_dir().join(format!("osprey-rules-cfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("main.yaml"),
            "%YAML 1.1\n---\ninclude: sub/extra.yaml\na: 1\nb: !include sub/node.yaml\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("sub/extra.yaml"),
            "%YAML 1.1\n---\nextra: yes\na: 2\n",
        )
        .unwrap();
        std::fs::write(dir.join("sub/node.yaml"), "x: 5\n").unwrap();
        std::fs::write(dir.join("loop.yaml"), "include: loop.yaml\n").unwrap();
        let c = Config::load(&dir.join("main.yaml")).unwrap();
        assert_eq!(c.get_bool("extra"), Some(true));
        assert_eq!(c.get_str("a").as_deref(), Some("2"));
        assert_eq!(c.get_str("b.x").as_deref(), Some("5"));
        let e = Config::load(&dir.join("loop.yaml")).unwrap_err();
        assert!(e.message.contains("deeper"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn corpus_configs_load() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/open");
        let Ok(rd) = std::fs::read_dir(dir) else {
            assert!(
                std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
                "missing {dir}"
            );
            eprintln!("skip: {dir} not found");
            return;
        };
        let mut n = 0;
        for e in rd.flatten() {
            let p = e.path().join("suricata.yaml");
            if p.exists() {
                let c = Config::load(&p).unwrap_or_else(|e| panic!("{e}"));
                let v = c.vars();
                assert!(
                    v.address("HOME_NET").is_some() || v.address_names().count() > 0,
                    "{}",
                    p.display()
                );
                n += 1;
            }
        }
        assert!(n > 50);
        assert_eq!(parse_size("64 KB"), Some(65536));
        assert_eq!(parse_size("x"), None);
    }
}

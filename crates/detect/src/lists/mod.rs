//! Lists and intelligence the rules consult at match time: datasets (`dataset`,
//! `datarep`), IP reputation (`iprep`) and, when configured, a GeoIP database
//! (`geoip`). One [`Lists`] is built per run from the configuration and shared (an
//! `Arc`) by the detector and every worker, so a value a rule adds on one worker is seen
//! by all; the unix socket's `dataset-*` commands act on the same sets, and
//! [`Lists::save_all`] writes the `save`/`state` files at shutdown.

pub mod dataset;
mod eval;
pub mod geoip;
pub mod iprep;

pub use dataset::{Added, Dataset};
pub(crate) use eval::{IntelC, ListC};
pub use geoip::GeoDb;
pub use iprep::IpRep;

use rules::{DatasetType, SetSpec};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Settings of the `datasets:` section.
#[derive(Debug, Clone, Default)]
pub struct ListsConfig {
    /// `datasets.defaults.memcap` (0: [`dataset::DEFAULT_MEMCAP`]).
    pub default_memcap: u64,
    /// `datasets.rules.allow-absolute-filenames` (default false): whether `save` and
    /// `state` may name an absolute path or one with `..` (`load` always may).
    pub allow_absolute: bool,
    /// `datasets.rules.allow-write` (default true).
    pub deny_write: bool,
    /// `datasets.defaults.hashsize` (0: [`dataset::DEFAULT_HASHSIZE`]).
    pub default_hashsize: u64,
    /// `datasets.limits.single-hashsize`: the most rows one set may ask for (0:
    /// [`DEFAULT_SINGLE_HASHSIZE`]).
    pub single_hashsize: u64,
    /// `datasets.limits.total-hashsizes`: the most rows of all sets together (0:
    /// [`DEFAULT_TOTAL_HASHSIZES`]).
    pub total_hashsizes: u64,
}

/// Suricata 7.0.10's built-in `datasets.limits.single-hashsize`.
pub const DEFAULT_SINGLE_HASHSIZE: u64 = 262_144;

/// Suricata 7.0.10's built-in `datasets.limits.total-hashsizes`.
pub const DEFAULT_TOTAL_HASHSIZES: u64 = 67_108_864;

#[derive(Debug, Default)]
struct Inner {
    cfg: ListsConfig,
    sets: Mutex<HashMap<String, Arc<Dataset>>>,
    iprep: Option<IpRep>,
    geoip: Option<Arc<GeoDb>>,
    /// Hash rows of the sets made so far (against `total_hashsizes`).
    rows: Mutex<u64>,
}

/// The run's datasets and reputation data (cheap to clone: shared).
#[derive(Debug, Clone, Default)]
pub struct Lists {
    inner: Arc<Inner>,
}

/// A relative file name of a rule that climbs out of its directory or is absolute.
fn escapes(p: &Path) -> bool {
    p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir))
}

impl Lists {
    /// Lists with these settings and reputation data.
    pub fn new(cfg: ListsConfig, iprep: Option<IpRep>) -> Lists {
        Lists {
            inner: Arc::new(Inner {
                cfg,
                sets: Mutex::new(HashMap::new()),
                iprep,
                geoip: None,
                rows: Mutex::new(0),
            }),
        }
    }

    /// These lists with the GeoIP database `geoip` rules look up. Call it before the
    /// lists are shared (cloned): a shared value is returned unchanged, with a warning.
    pub fn with_geoip(self, db: GeoDb) -> Lists {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.geoip = Some(Arc::new(db));
                Lists {
                    inner: Arc::new(inner),
                }
            }
            Err(inner) => {
                tracing::warn!("GeoIP database set on shared lists: left out");
                Lists { inner }
            }
        }
    }

    /// The reputation data, when configured.
    pub fn iprep(&self) -> Option<&IpRep> {
        self.inner.iprep.as_ref()
    }

    /// The GeoIP database, when configured.
    pub fn geoip(&self) -> Option<Arc<GeoDb>> {
        self.inner.geoip.clone()
    }

    /// A set by name.
    pub fn get(&self, name: &str) -> Option<Arc<Dataset>> {
        self.inner.sets.lock().ok()?.get(name).cloned()
    }

    /// The names of the sets, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .inner
            .sets
            .lock()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    /// A new set of `hashsize` rows (0: the configured default) within the
    /// `datasets.limits`, with Suricata's refusals.
    fn sized(
        &self,
        name: &str,
        kind: DatasetType,
        memcap: u64,
        hashsize: u64,
    ) -> Result<Dataset, String> {
        let cfg = &self.inner.cfg;
        let or = |v: u64, d: u64| if v == 0 { d } else { v };
        let hashsize = or(
            hashsize,
            or(cfg.default_hashsize, dataset::DEFAULT_HASHSIZE),
        );
        let single = or(cfg.single_hashsize, DEFAULT_SINGLE_HASHSIZE);
        if hashsize > single {
            return Err(format!(
                "hashsize {hashsize} in dataset '{name}' exceeds configured 'single-hashsize' \
                 limit ({single})"
            ));
        }
        let total = or(cfg.total_hashsizes, DEFAULT_TOTAL_HASHSIZES);
        let mut rows = self
            .inner
            .rows
            .lock()
            .map_err(|_| "dataset table poisoned".to_string())?;
        if *rows + hashsize > total {
            return Err(format!(
                "hashsize {hashsize} in dataset '{name}' exceeds configured 'total-hashsizes' \
                 limit ({total}, {} in use)",
                *rows
            ));
        }
        let d = Dataset::sized(name, kind, memcap, hashsize)?;
        *rows += hashsize;
        Ok(d)
    }

    /// Values each set let go (or refused) because its memcap was reached, by set name
    /// (sorted):
    /// the `osprey.datasets.<name>.memcap_drops` counters.
    pub fn memcap_drops(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self
            .inner
            .sets
            .lock()
            .map(|s| {
                s.iter()
                    .map(|(n, d)| (n.clone(), d.memcap_hits()))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// Values let go or refused at the memcaps, over all sets.
    pub fn memcap_hits(&self) -> u64 {
        self.inner
            .sets
            .lock()
            .map(|s| s.values().map(|d| d.memcap_hits()).sum())
            .unwrap_or(0)
    }

    /// Defines a set of the `datasets:` section (`load` and `state` files as given:
    /// relative ones from the working directory, as Suricata 7.0.10 opens them).
    pub fn define(
        &self,
        name: &str,
        kind: DatasetType,
        load: Option<&str>,
        state: Option<&str>,
        memcap: u64,
        hashsize: u64,
    ) -> Result<Arc<Dataset>, String> {
        let memcap = if memcap == 0 {
            self.inner.cfg.default_memcap
        } else {
            memcap
        };
        let d = Arc::new(self.sized(name, kind, memcap, hashsize)?);
        if let Some(s) = state {
            let p = PathBuf::from(s);
            if p.exists() {
                d.load(&p, false)?;
            }
            d.set_save_path(p);
        }
        if let Some(l) = load {
            d.load(Path::new(l), false)?;
        }
        self.insert(name, d.clone())?;
        Ok(d)
    }

    fn insert(&self, name: &str, d: Arc<Dataset>) -> Result<(), String> {
        let mut sets = self
            .inner
            .sets
            .lock()
            .map_err(|_| "dataset table poisoned".to_string())?;
        if sets.contains_key(name) {
            return Err(format!("dataset {name} defined twice"));
        }
        sets.insert(name.to_owned(), d);
        Ok(())
    }

    /// The set a rule's `dataset`/`datarep` names (`rep`: a `datarep`), created and
    /// loaded the first time: `load` relative to the rule file's directory, `save` and
    /// `state` as given (relative ones from the working directory), as Suricata 7.0.10
    /// does (checked: it neither reads nor writes them in `default-data-dir`).
    pub fn for_rule(
        &self,
        spec: &SetSpec,
        rule_file: Option<&Path>,
        rep: bool,
    ) -> Result<Arc<Dataset>, String> {
        let mut sets = self
            .inner
            .sets
            .lock()
            .map_err(|_| "dataset table poisoned".to_string())?;
        if let Some(d) = sets.get(&spec.name) {
            if spec.kind.is_some_and(|k| k != d.kind()) {
                return Err(format!(
                    "dataset {} is of type {}, not {}",
                    spec.name,
                    d.kind().name(),
                    spec.kind.map_or("", DatasetType::name)
                ));
            }
            return Ok(d.clone());
        }
        let kind = spec.kind.ok_or_else(|| {
            format!(
                "dataset {}: no type and not defined in the configuration",
                spec.name
            )
        })?;
        let cfg = &self.inner.cfg;
        // Only the files a set writes are confined (Suricata 7.0.10 loads any path).
        for f in [&spec.save, &spec.state].into_iter().flatten() {
            if !cfg.allow_absolute && escapes(Path::new(f)) {
                return Err(format!(
                    "dataset {}: '{f}': absolute names and '..' need datasets.rules.allow-absolute-filenames",
                    spec.name
                ));
            }
        }
        if cfg.deny_write && (spec.save.is_some() || spec.state.is_some()) {
            return Err(format!(
                "dataset {}: save/state refused by datasets.rules.allow-write",
                spec.name
            ));
        }
        let memcap = spec.memcap.unwrap_or(cfg.default_memcap);
        let hashsize = spec.hashsize.unwrap_or(0);
        let d = Arc::new(self.sized(&spec.name, kind, memcap, hashsize)?);
        if let Some(l) = &spec.load {
            let p = match rule_file.and_then(Path::parent) {
                Some(dir) if Path::new(l).is_relative() => dir.join(l),
                _ => PathBuf::from(l),
            };
            d.load(&p, rep)?;
        }
        if let Some(s) = spec.state.as_ref().or(spec.save.as_ref()) {
            let p = PathBuf::from(s);
            if spec.state.is_some() && p.exists() {
                d.load(&p, rep)?;
            }
            d.set_save_path(p);
        }
        sets.insert(spec.name.clone(), d.clone());
        Ok(d)
    }

    /// Writes every set that has a `save`/`state` file; the files written and the
    /// errors.
    pub fn save_all(&self) -> (Vec<PathBuf>, Vec<String>) {
        let sets: Vec<Arc<Dataset>> = self
            .inner
            .sets
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default();
        let (mut ok, mut errs) = (Vec::new(), Vec::new());
        for d in sets {
            match d.save() {
                Ok(Some(p)) => ok.push(p),
                Ok(None) => {}
                Err(e) => errs.push(e),
            }
        }
        (ok, errs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, kind: Option<DatasetType>) -> SetSpec {
        SetSpec {
            name: name.into(),
            kind,
            ..SetSpec::default()
        }
    }

    #[test]
    fn rules_share_sets_by_name() {
        let l = Lists::default();
        let a = l
            .for_rule(&spec("s", Some(DatasetType::String)), None, false)
            .unwrap();
        let b = l.for_rule(&spec("s", None), None, false).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(l
            .for_rule(&spec("s", Some(DatasetType::Md5)), None, false)
            .is_err());
        assert!(l.for_rule(&spec("t", None), None, false).is_err());
        let mut abs = spec("u", Some(DatasetType::String));
        abs.save = Some("../x.lst".into());
        assert!(l
            .for_rule(&abs, None, false)
            .unwrap_err()
            .contains("allow-absolute"));
        abs.save = None;
        abs.state = Some("/tmp/x.lst".into());
        assert!(l.for_rule(&abs, None, false).is_err());
        // `load` reads any path, as in Suricata 7.0.10 (a missing file is the error).
        abs.state = None;
        abs.load = Some("/nonexistent/osprey-x.lst".into());
        let e = l.for_rule(&abs, None, false).unwrap_err();
        assert!(!e.contains("allow-absolute"), "{e}");
        assert_eq!(l.names(), vec!["s".to_string()]);
    }

    #[test]
    fn load_is_relative_to_the_rule_file_and_state_is_saved() {
        let dir = std::env::temp_dir().join(format!("osprey-lists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bl.lst"), "ZXhhbXBsZS5jb20=\n").unwrap();
        let l = Lists::new(
            ListsConfig {
                allow_absolute: true,
                ..ListsConfig::default()
            },
            None,
        );
        let mut s = spec("bl", Some(DatasetType::String));
        s.load = Some("bl.lst".into());
        let d = l.for_rule(&s, Some(&dir.join("x.rules")), false).unwrap();
        assert!(d.contains(b"example.com"));
        let mut st = spec("seen", Some(DatasetType::String));
        st.state = Some(dir.join("seen.lst").display().to_string());
        let seen = l.for_rule(&st, None, false).unwrap();
        seen.add(b"a", 0);
        let (ok, errs) = l.save_all();
        assert!(errs.is_empty());
        assert_eq!(ok, vec![dir.join("seen.lst")]);
        assert_eq!(
            std::fs::read_to_string(dir.join("seen.lst")).unwrap(),
            "YQ==\n"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
    #[test]
    fn hashsize_limits_and_memcap_drops() {
        let l = Lists::new(
            ListsConfig {
                single_hashsize: 1000,
                total_hashsizes: 1500,
                ..ListsConfig::default()
            },
            None,
        );
        let mut big = spec("big", Some(DatasetType::String));
        big.hashsize = Some(1001);
        let e = l.for_rule(&big, None, false).unwrap_err();
        assert!(
            e.contains("exceeds configured 'single-hashsize' limit (1000)"),
            "{e}"
        );
        let mut a = spec("a", Some(DatasetType::String));
        a.hashsize = Some(1000);
        l.for_rule(&a, None, false).unwrap();
        let mut b = spec("b", Some(DatasetType::String));
        b.hashsize = Some(600);
        let e = l.for_rule(&b, None, false).unwrap_err();
        assert!(
            e.contains("'total-hashsizes' limit (1500, 1000 in use)"),
            "{e}"
        );
        // The table's rows and 1,000 preallocated entries count against the memcap:
        // 16 rows of 64 bytes and 1,002 string entries of 88 bytes.
        let mut c = spec("c", Some(DatasetType::String));
        c.hashsize = Some(16);
        c.memcap = Some(1023);
        assert!(l
            .for_rule(&c, None, false)
            .unwrap_err()
            .contains("smaller than its hash"));
        c.memcap = Some(1024 + 1002 * 88);
        let d = l.for_rule(&c, None, false).unwrap();
        for i in 0..1002u32 {
            assert_eq!(d.add(&i.to_le_bytes(), 0), Added::New);
        }
        // Full: each new value takes an old one's place, counted.
        assert_eq!(d.add(b"z", 0), Added::New);
        assert_eq!(d.add(b"w", 0), Added::New);
        assert_eq!(d.len(), 1002);
        assert_eq!(
            l.memcap_drops(),
            vec![("a".to_string(), 0), ("c".to_string(), 2)]
        );
    }
}

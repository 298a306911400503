//! The configuration of the lists the rules consult: the `datasets:` section (defaults,
//! rule permissions, named sets) and IP reputation
//! (`reputation-categories-file`, `default-reputation-path`, `reputation-files`) and
//! the GeoIP database (`geoip-database`).

use ::config::Config;
use detect::lists::{IpRep, Lists, ListsConfig};
use std::path::{Path, PathBuf};

/// Keys of `datasets:` that are settings, not sets.
const NOT_SETS: &[&str] = &["defaults", "limits", "rules"];

/// Reads the settings and loads the configured sets and reputation files; problems
/// (a set or file that does not load) become notices and leave that part out.
pub fn read(config: &Config, notices: &mut Vec<String>) -> Lists {
    let cfg = ListsConfig {
        default_memcap: config.get_size("datasets.defaults.memcap").unwrap_or(0),
        allow_absolute: config
            .get_bool("datasets.rules.allow-absolute-filenames")
            .unwrap_or(false),
        deny_write: !config
            .get_bool("datasets.rules.allow-write")
            .unwrap_or(true),
        default_hashsize: config.get_size("datasets.defaults.hashsize").unwrap_or(0),
        single_hashsize: config
            .get_size("datasets.limits.single-hashsize")
            .unwrap_or(0),
        total_hashsizes: config
            .get_size("datasets.limits.total-hashsizes")
            .unwrap_or(0),
    };
    let mut lists = Lists::new(cfg, iprep(config, notices));
    if let Some(path) = config.get_str("geoip-database") {
        match detect::lists::GeoDb::open(Path::new(&path)) {
            Ok(db) => lists = lists.with_geoip(db),
            Err(e) => notices.push(format!(
                "geoip-database not loaded ({e}): rules with geoip are skipped"
            )),
        }
    }
    let names: Vec<String> = match config.get("datasets") {
        Some(::config::Value::Mapping(m)) => m
            .keys()
            .filter_map(::config::scalar_string)
            .filter(|k| !NOT_SETS.contains(&k.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    for name in names {
        let key = |k: &str| format!("datasets.{name}.{k}");
        let Some(kind) = config
            .get_str(&key("type"))
            .and_then(|t| rules::DatasetType::parse(&t))
        else {
            notices.push(format!(
                "datasets.{name}: missing or bad type; set left out"
            ));
            continue;
        };
        let res = lists.define(
            &name,
            kind,
            config.get_str(&key("load")).as_deref(),
            config.get_str(&key("state")).as_deref(),
            config.get_size(&key("memcap")).unwrap_or(0),
            config.get_size(&key("hashsize")).unwrap_or(0),
        );
        if let Err(e) = res {
            notices.push(format!("datasets.{name}: {e}"));
        }
    }
    lists
}

/// The reputation data, when `reputation-categories-file` is set.
fn iprep(config: &Config, notices: &mut Vec<String>) -> Option<IpRep> {
    let cats = config.get_str("reputation-categories-file")?;
    let base = config
        .get_str("default-reputation-path")
        .map(PathBuf::from)
        .or_else(|| config.path().and_then(Path::parent).map(Path::to_path_buf))
        .unwrap_or_default();
    let files: Vec<PathBuf> = config
        .get_list("reputation-files")
        .unwrap_or_default()
        .iter()
        .map(|f| base.join(f))
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    match IpRep::load(Path::new(&cats), &refs) {
        Ok(r) => Some(r),
        Err(e) => {
            notices.push(format!("IP reputation not loaded: {e}"));
            None
        }
    }
}

//! Helpers shared by the binary's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The shared reference data beside the checkout, or `None` (after printing why) when it
/// is absent and `OSPREY_REQUIRE_DATA` is not set.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("OSPREY_REQUIRE_DATA").is_some_and(|v| v == "1") {
        panic!("OSPREY_REQUIRE_DATA=1 but {} is missing", path.display());
    }
    eprintln!(
        "skipped: {} not found (set OSPREY_REQUIRE_DATA=1 to require it)",
        path.display()
    );
    None
}

/// The repository root.
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)
}

/// Runs the `osprey` binary with `args`.
pub fn osprey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_osprey"))
        .args(args)
        .output()
        .expect("the osprey binary runs")
}

/// A fresh temporary directory under the target dir.
pub fn tempdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Reads `dir/stats.json`.
pub fn stats(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("stats.json")).expect("stats.json written");
    serde_json::from_str(&text).expect("stats.json is JSON")
}

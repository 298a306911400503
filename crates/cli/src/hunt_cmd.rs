//! `osprey hunt ...`: the retro-hunt runs on Dask in the Python package `osprey_hunt`
//! (`python/osprey_hunt` in the source tree); this command replaces itself with
//! `python3 -m osprey_hunt ...`, passing every argument through, with the package on
//! `PYTHONPATH` and this binary as the default `--osprey` (`OSPREY_BIN`).

use clap::Args;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `osprey hunt`: all of them go to `python3 -m osprey_hunt`.
#[derive(Debug, Args)]
#[command(disable_help_flag = true)]
pub struct HuntArgs {
    /// Options of `python3 -m osprey_hunt` (see `osprey hunt --help`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<OsString>,
}

/// Where the `osprey_hunt` package may sit, relative to the binary: beside the source
/// tree's `target/<profile>/osprey`, or an installation's `share/osprey/python`.
fn package_dirs(exe: &Path) -> Vec<PathBuf> {
    let Some(bin) = exe.parent() else {
        return Vec::new();
    };
    ["../../python", "../share/osprey/python", "python"]
        .iter()
        .map(|rel| bin.join(rel))
        .filter(|d| d.join("osprey_hunt").join("__main__.py").is_file())
        .collect()
}

/// `PYTHONPATH` with `dir` first.
fn python_path(dir: Option<&Path>) -> Option<OsString> {
    let old = std::env::var_os("PYTHONPATH");
    let mut paths: Vec<PathBuf> = dir.map(Path::to_path_buf).into_iter().collect();
    paths.extend(old.iter().flat_map(std::env::split_paths));
    std::env::join_paths(paths).ok()
}

/// Runs `python3 -m osprey_hunt` (or `$OSPREY_PYTHON -m osprey_hunt`) in place of
/// this process; returns only when it cannot be started.
pub fn run(a: &HuntArgs) -> Result<ExitCode, String> {
    let exe = std::env::current_exe().map_err(|e| format!("hunt: where am I? {e}"))?;
    let python = std::env::var_os("OSPREY_PYTHON").unwrap_or_else(|| "python3".into());
    let dirs = package_dirs(&exe);
    let mut cmd = std::process::Command::new(&python);
    cmd.arg("-m").arg("osprey_hunt").args(&a.args);
    if let Some(path) = python_path(dirs.first().map(PathBuf::as_path)) {
        cmd.env("PYTHONPATH", path);
    }
    if std::env::var_os("OSPREY_BIN").is_none() {
        cmd.env("OSPREY_BIN", &exe);
    }
    let err = cmd.exec();
    Err(format!(
        "hunt: cannot run {} -m osprey_hunt: {err} (set OSPREY_PYTHON to a Python 3 \
         with `dask distributed` installed)",
        Path::new(&python).display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn arguments_pass_through_untouched() {
        let cli = crate::args::Cli::try_parse_from([
            "osprey", "hunt", "--help", "--local", "2", "-S", "x.rules",
        ])
        .unwrap();
        let Some(crate::args::Command::Hunt(h)) = cli.command else {
            panic!("not the hunt command");
        };
        assert_eq!(h.args, ["--help", "--local", "2", "-S", "x.rules"]);
    }

    #[test]
    fn the_source_tree_package_is_found_from_the_binary() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let exe = root.join("target/debug/osprey");
        let dirs = package_dirs(&exe);
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        assert!(dirs[0].join("osprey_hunt/__main__.py").is_file());
    }
}

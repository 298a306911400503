//! Where a run's outputs go: `-l DIR`, else the configuration's `default-log-dir`, else
//! the working directory. A directory that does not exist is an error, as in Suricata
//! (which does not create it either).

use std::path::{Path, PathBuf};

/// The log directory of a run: `cli` (`-l`), else `default-log-dir` of the
/// configuration `args` name, else `.`. Errors (Suricata's words) when the directory
/// named does not exist.
pub fn log_dir(args: &crate::SetupArgs, cli: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(dir) = cli {
        if !dir.is_dir() {
            return Err(format!(
                "The logging directory \"{0}\" supplied at the command-line (-l {0}) doesn't \
                 exist. Shutting down the engine.",
                dir.display()
            ));
        }
        return Ok(dir.to_path_buf());
    }
    let config = crate::setup::load_config(args)?;
    match config.get_str("default-log-dir") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.is_dir() {
                return Err(format!(
                    "The logging directory \"{}\" supplied by {} (default-log-dir) doesn't \
                     exist. Shutting down the engine.",
                    dir.display(),
                    config
                        .path()
                        .map_or("the configuration".into(), |p| p.display().to_string())
                ));
            }
            Ok(dir)
        }
        None => Ok(PathBuf::from(".")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_then_configuration() {
        let args = crate::SetupArgs::default();
        let e = log_dir(&args, Some(Path::new("/nonexistent/osprey"))).unwrap_err();
        assert!(e.contains("doesn't exist"), "{e}");
        let tmp = std::env::temp_dir();
        assert_eq!(log_dir(&args, Some(&tmp)).unwrap(), tmp);
        assert_eq!(log_dir(&args, None).unwrap(), PathBuf::from("."));
        let with = |dir: &str| crate::SetupArgs {
            sets: vec![format!("default-log-dir={dir}")],
            ..crate::SetupArgs::default()
        };
        assert_eq!(log_dir(&with(tmp.to_str().unwrap()), None).unwrap(), tmp);
        let e = log_dir(&with("/nonexistent/osprey"), None).unwrap_err();
        assert!(e.contains("default-log-dir"), "{e}");
    }
}

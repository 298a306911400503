//! The `tls-store` entry of `outputs:`: `certs-log-dir`, where the certificate chains
//! that `tls_store` rules ask for are written (relative to the log directory, or
//! absolute; unset: the log directory itself, as Suricata 7.0.10).

use ::config::{scalar_string, Value};
use std::path::{Path, PathBuf};

/// The `tls-store` output's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsStoreOutput {
    /// `certs-log-dir`, relative to the log directory (or absolute); empty: the log
    /// directory.
    pub dir: PathBuf,
}

impl TlsStoreOutput {
    /// Reads an enabled `tls-store` entry.
    pub(crate) fn read(body: &Value) -> Self {
        TlsStoreOutput {
            dir: body
                .get("certs-log-dir")
                .and_then(scalar_string)
                .map(PathBuf::from)
                .unwrap_or_default(),
        }
    }

    /// The directory for a run logging into `log_dir` (`None` when it is relative and
    /// the run writes no logs).
    pub fn path(&self, log_dir: Option<&Path>) -> Option<PathBuf> {
        if self.dir.is_absolute() {
            return Some(self.dir.clone());
        }
        log_dir.map(|d| d.join(&self.dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(yaml: &str) -> TlsStoreOutput {
        let c = ::config::Config::parse(yaml, None).unwrap();
        TlsStoreOutput::read(c.get("ts").unwrap())
    }

    #[test]
    fn the_directory_is_the_log_directory_unless_named() {
        let log = Some(Path::new("/log"));
        let d = entry("ts:\n  enabled: yes\n");
        assert_eq!(d.path(log), Some(PathBuf::from("/log/")));
        let d = entry("ts:\n  enabled: yes\n  certs-log-dir: certs\n");
        assert_eq!(d.path(log), Some(PathBuf::from("/log/certs")));
        assert_eq!(d.path(None), None);
        let d = entry("ts:\n  enabled: yes\n  certs-log-dir: /tmp/c\n");
        assert_eq!(d.path(None), Some(PathBuf::from("/tmp/c")));
    }
}

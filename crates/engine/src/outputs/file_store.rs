//! The `file-store` entry of `outputs:` (version 2, the only one Suricata 7 has):
//! `dir` (relative to the log directory; default `filestore`), `write-fileinfo`,
//! `force-filestore`, `force-hash` (digests computed for every file; SHA-256 always is,
//! the store names files by it), `max-open-files` (read: Osprey opens a file for each
//! write and closes it, what Suricata does with 0). `stream-depth` is not implemented
//! and is named in the outputs notice when set.

use ::config::{scalar_string, Value};
use std::path::{Path, PathBuf};

/// The `file-store` output's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStoreOutput {
    /// `dir`, relative to the log directory (or absolute).
    pub dir: PathBuf,
    /// `write-fileinfo`: a JSON sidecar per stored occurrence.
    pub write_fileinfo: bool,
    /// `force-filestore`: every file is stored, without a `filestore` rule.
    pub force: bool,
    /// `force-hash` names MD5.
    pub md5: bool,
    /// `force-hash` names SHA-1.
    pub sha1: bool,
}

impl FileStoreOutput {
    /// The store's directory for a run logging into `log_dir` (`None` when the
    /// directory is relative and the run writes no logs).
    pub fn path(&self, log_dir: Option<&Path>) -> Option<PathBuf> {
        if self.dir.is_absolute() {
            return Some(self.dir.clone());
        }
        log_dir.map(|d| d.join(&self.dir))
    }
}

fn yes(v: Option<&Value>) -> bool {
    v.and_then(scalar_string)
        .is_some_and(|s| matches!(s.to_ascii_lowercase().as_str(), "yes" | "true" | "on" | "1"))
}

/// Reads an enabled `file-store` entry at `path`; `Err` is a notice (the output is then
/// not written). Keys it does not implement are added to `unused`.
pub(crate) fn read(
    path: &str,
    body: &Value,
    unused: &mut Vec<String>,
) -> Result<FileStoreOutput, String> {
    let version = body.get("version").and_then(scalar_string);
    if version.as_deref() != Some("2") {
        return Err(format!(
            "{path}: file-store version 1 is not supported (as in Suricata 7): set `version: 2`"
        ));
    }
    let mut out = FileStoreOutput {
        dir: body
            .get("dir")
            .and_then(scalar_string)
            .map_or_else(|| PathBuf::from("filestore"), PathBuf::from),
        write_fileinfo: yes(body.get("write-fileinfo")),
        force: yes(body.get("force-filestore")),
        md5: false,
        sha1: false,
    };
    let hashes: Vec<String> = match body.get("force-hash") {
        Some(Value::Sequence(l)) => l.iter().filter_map(scalar_string).collect(),
        Some(v) => scalar_string(v).into_iter().collect(),
        None => Vec::new(),
    };
    for h in hashes {
        match h.as_str() {
            "md5" => out.md5 = true,
            "sha1" => out.sha1 = true,
            "sha256" => {}
            other => unused.push(format!("{path}.force-hash.{other}")),
        }
    }
    if let Value::Mapping(m) = body {
        for (k, v) in m {
            let k = scalar_string(k).unwrap_or_default();
            let known = [
                "enabled",
                "version",
                "dir",
                "write-fileinfo",
                "force-filestore",
                "force-hash",
                "max-open-files",
            ];
            let off =
                v.is_mapping() && v.get("enabled").and_then(scalar_string).as_deref() == Some("no");
            // `stream-depth: 0` leaves the global depth as it is.
            let zero = k == "stream-depth" && scalar_string(v).as_deref() == Some("0");
            if !known.contains(&k.as_str()) && !off && !zero {
                unused.push(format!("{path}.{k}"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(yaml: &str) -> Value {
        let c = ::config::Config::parse(yaml, None).unwrap();
        c.get("fs").unwrap().clone()
    }

    #[test]
    fn settings_are_read_and_the_rest_named() {
        let v = entry(
            "fs:\n  enabled: yes\n  version: 2\n  dir: files\n  write-fileinfo: yes\n  \
             force-filestore: yes\n  force-hash: [md5, crc]\n  stream-depth: 1mb\n  \
             xff:\n    enabled: no\n",
        );
        let mut unused = Vec::new();
        let o = read("outputs.9.file-store", &v, &mut unused).unwrap();
        assert_eq!(o.dir, PathBuf::from("files"));
        assert!(o.write_fileinfo && o.force && o.md5 && !o.sha1);
        assert_eq!(
            unused,
            [
                "outputs.9.file-store.force-hash.crc",
                "outputs.9.file-store.stream-depth"
            ]
        );
        assert_eq!(
            o.path(Some(Path::new("/log"))),
            Some(PathBuf::from("/log/files"))
        );
        assert_eq!(o.path(None), None);
        let v1 = entry("fs:\n  enabled: yes\n");
        assert!(read("x", &v1, &mut unused).is_err());
        let d = read("x", &entry("fs:\n  version: 2\n"), &mut unused).unwrap();
        assert_eq!(d.dir, PathBuf::from("filestore"));
        assert!(!d.write_fileinfo && !d.force);
    }
}

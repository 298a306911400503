//! Osprey's additions to the unix-socket runmode for retro-hunt work units: `osprey
//! hunt` keeps one Osprey per worker process (the rules compiled once) and sends it one
//! `pcap-file` per unit. Two optional arguments of `pcap-file` and one command of our
//! own; Suricata's clients never send them, so `pcap-file` stays Suricata's.
//!
//! - `"pcap-file-list": true`: `filename` is a list of capture files (the format of
//!   `-r LIST --pcap-file-list`), read in that order as one input with frames numbered
//!   across them; a file that cannot be read is reported and skipped.
//! - `"flow-hash-bucket": "b/N"`: only the flows of bucket b of N of the symmetric
//!   flow hash, as `--flow-hash-bucket` (`engine::bucket`).
//! - `pcap-file-result {"output-dir": DIR}`: what became of the last job sent with that
//!   output directory: `queued`, `running`, `done` (with its packet count), `failed`
//!   (with the error) or `unknown`. A client that waits on it learns that its job ended
//!   and how, which `pcap-current` and `pcap-file-number` only imply.

use crate::socket::commands::Reply;
use engine::bucket::FlowBucket;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// The command this module adds to the runmode's.
pub const RESULT_COMMAND: &str = "pcap-file-result";

/// How many finished jobs [`Outcomes`] remembers (the oldest are forgotten first).
const KEEP: usize = 1024;

/// A work unit's options of one `pcap-file` job.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitOpts {
    /// The capture files of a `pcap-file-list` job, in order.
    pub files: Option<Vec<PathBuf>>,
    /// The flow-hash bucket the job keeps.
    pub bucket: Option<FlowBucket>,
}

impl UnitOpts {
    /// Reads the optional arguments of `pcap-file` (`filename` already checked to exist).
    pub fn parse(args: &Value, filename: &Path) -> Result<UnitOpts, String> {
        let files = match args.get("pcap-file-list") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(crate::unit_input::list_files(filename)?),
            Some(_) => return Err("pcap-file-list is not a boolean".into()),
        };
        let bucket = match args.get("flow-hash-bucket") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                Some(FlowBucket::parse(s).map_err(|e| format!("flow-hash-bucket {e}"))?)
            }
            Some(_) => return Err("flow-hash-bucket is not a string".into()),
        };
        Ok(UnitOpts { files, bucket })
    }
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Read to its end (or interrupted); its outputs and stats.json are written.
    Done {
        /// Packets decoded.
        packets: u64,
    },
    /// It could not run (e.g. its file is not a capture); why.
    Failed(String),
}

/// The outcomes of the last [`KEEP`] jobs, by output directory.
#[derive(Debug, Default)]
pub struct Outcomes {
    recent: VecDeque<(PathBuf, Outcome)>,
}

impl Outcomes {
    /// Remembers how the job writing to `output_dir` ended.
    pub fn record(&mut self, output_dir: &Path, outcome: Outcome) {
        if self.recent.len() == KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back((output_dir.to_path_buf(), outcome));
    }

    /// The outcome of the last job that wrote to `output_dir`.
    pub fn get(&self, output_dir: &Path) -> Option<&Outcome> {
        self.recent
            .iter()
            .rev()
            .find(|(d, _)| d == output_dir)
            .map(|(_, o)| o)
    }
}

/// Answers `pcap-file-result`: the state of the last job sent with the `output-dir` of
/// `args`, given the output directories of the jobs queued and of the one running.
pub fn result<'a>(
    args: &Value,
    mut queued: impl Iterator<Item = &'a Path>,
    running: Option<&Path>,
    outcomes: &Outcomes,
) -> Reply {
    let Some(dir) = args.get("output-dir").and_then(Value::as_str) else {
        return Reply::nok("output-dir is not a string");
    };
    let dir = Path::new(dir);
    let state = if queued.any(|d| d == dir) {
        json!({"state": "queued"})
    } else if running == Some(dir) {
        json!({"state": "running"})
    } else {
        match outcomes.get(dir) {
            Some(Outcome::Done { packets }) => json!({"state": "done", "packets": packets}),
            Some(Outcome::Failed(e)) => json!({"state": "failed", "error": e}),
            None => json!({"state": "unknown"}),
        }
    };
    Reply::ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_arguments() {
        let dir = std::env::temp_dir().join(format!("osprey-socket-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("files.txt");
        std::fs::write(&list, "a.pcap\nb.pcap\n").unwrap();
        let none = UnitOpts::parse(&json!({"filename": "x"}), &list).unwrap();
        assert_eq!(none, UnitOpts::default());
        let u = UnitOpts::parse(
            &json!({"pcap-file-list": true, "flow-hash-bucket": "2/3"}),
            &list,
        )
        .unwrap();
        assert_eq!(
            u.files.unwrap(),
            vec![dir.join("a.pcap"), dir.join("b.pcap")]
        );
        assert_eq!(u.bucket, Some(FlowBucket { index: 2, count: 3 }));
        for (bad, why) in [
            (json!({"flow-hash-bucket": "3/3"}), "flow-hash-bucket `3/3`"),
            (json!({"flow-hash-bucket": 3}), "not a string"),
            (json!({"pcap-file-list": "yes"}), "not a boolean"),
        ] {
            let e = UnitOpts::parse(&bad, &list).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        std::fs::write(&list, "# empty\n").unwrap();
        let e = UnitOpts::parse(&json!({"pcap-file-list": true}), &list).unwrap_err();
        assert!(e.contains("no capture file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn results_by_output_dir() {
        let mut o = Outcomes::default();
        let (a, b, c) = (Path::new("/a"), Path::new("/b"), Path::new("/c"));
        o.record(a, Outcome::Failed("bad".into()));
        o.record(a, Outcome::Done { packets: 7 });
        o.record(b, Outcome::Failed("not a capture".into()));
        let ask = |d: &str, queued: &[&Path], running: Option<&Path>| {
            result(
                &json!({"output-dir": d}),
                queued.iter().copied(),
                running,
                &o,
            )
            .message
            .unwrap()
        };
        assert_eq!(ask("/a", &[], None), json!({"state": "done", "packets": 7}));
        assert_eq!(
            ask("/b", &[], None),
            json!({"state": "failed", "error": "not a capture"})
        );
        assert_eq!(ask("/c", &[], None), json!({"state": "unknown"}));
        assert_eq!(ask("/c", &[], Some(c)), json!({"state": "running"}));
        assert_eq!(ask("/a", &[b, a], Some(c)), json!({"state": "queued"}));
        assert!(!result(&json!({}), [].into_iter(), None, &o).ok);
        for k in 0..KEEP {
            o.record(Path::new(&format!("/x{k}")), Outcome::Done { packets: 0 });
        }
        assert_eq!(o.recent.len(), KEEP);
        assert!(o.get(a).is_none(), "the oldest forgotten");
    }
}

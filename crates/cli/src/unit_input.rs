//! Inputs of one retro-hunt work unit (`osprey hunt` runs one Osprey per unit):
//! `--pcap-file-list` (the `-r` file names capture files, read in that order as one
//! input, frames numbered across them) and `--flow-hash-bucket b/B` (only the flows of
//! one bucket of the symmetric dispatch hash, see `engine::bucket`).

use crate::args::RunArgs;
use capture::{DirOptions, DirSource, Source};
use clap::Args;
use engine::bucket::{BucketSource, FlowBucket};
use std::path::{Path, PathBuf};

/// Options of a work unit (flattened into [`RunArgs`]).
#[derive(Debug, Args, Default)]
pub struct UnitArgs {
    /// Read only the flows of bucket B of N of the symmetric flow hash (`B/N`, e.g.
    /// `3/16`): N runs over the same input, one per bucket, see every flow whole and
    /// once. Left-out frames are counted in `osprey.capture.filtered`; kept frames keep
    /// their `pcap_cnt`. Osprey's own option (used by `osprey hunt`).
    #[arg(long = "flow-hash-bucket", value_name = "B/N")]
    pub flow_hash_bucket: Option<String>,

    /// With `-r LIST`: LIST names capture files, one per line (blank lines and `#`
    /// comments skipped, relative paths from LIST's directory), read in that order as
    /// one input with frames numbered across them. Osprey's own option.
    #[arg(long = "pcap-file-list")]
    pub pcap_file_list: bool,
}

/// The flow-hash bucket asked for, if any.
pub fn bucket(args: &RunArgs) -> Result<Option<FlowBucket>, String> {
    args.unit
        .flow_hash_bucket
        .as_deref()
        .map(|b| FlowBucket::parse(b).map_err(|e| format!("--flow-hash-bucket {e}")))
        .transpose()
}

/// The files of a `--pcap-file-list` file, in order.
pub fn list_files(list: &Path) -> Result<Vec<PathBuf>, String> {
    let text = std::fs::read_to_string(list)
        .map_err(|e| format!("--pcap-file-list {}: {e}", list.display()))?;
    let base = list.parent().unwrap_or(Path::new(""));
    let files: Vec<PathBuf> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| base.join(l))
        .collect();
    if files.is_empty() {
        return Err(format!(
            "--pcap-file-list {}: no capture file named in it",
            list.display()
        ));
    }
    Ok(files)
}

/// `-r LIST --pcap-file-list`: the listed files as one source (a file that cannot be
/// read is reported and skipped, as in a directory run).
pub fn list_source(list: &Path, opts: DirOptions) -> Result<DirSource, String> {
    if opts.continuous || opts.recursive {
        return Err(
            "--pcap-file-list cannot be used with --pcap-file-continuous or \
                    --pcap-file-recursive"
                .into(),
        );
    }
    Ok(DirSource::files(&list_files(list)?, opts))
}

/// Wraps `source` in the flow-hash bucket `args` ask for (unchanged without one).
pub fn with_bucket(args: &RunArgs, source: Box<dyn Source>) -> Result<Box<dyn Source>, String> {
    Ok(match bucket(args)? {
        // One bucket of one holds every frame: nothing to hash.
        Some(b) if b.count > 1 => Box::new(BucketSource::new(source, b)),
        _ => source,
    })
}

/// Refuses the unit options where they mean nothing (live capture).
pub fn check(args: &RunArgs) -> Result<(), String> {
    bucket(args)?;
    if args.read.is_none() && (args.unit.flow_hash_bucket.is_some() || args.unit.pcap_file_list) {
        return Err("--flow-hash-bucket and --pcap-file-list need -r (a file input)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> RunArgs {
        crate::args::Cli::try_parse_from(args).unwrap().run
    }

    #[test]
    fn options_parse_and_need_a_file_input() {
        let a = parse(&["osprey", "-r", "x", "--flow-hash-bucket", "1/4"]);
        assert_eq!(bucket(&a).unwrap(), Some(FlowBucket { index: 1, count: 4 }));
        assert!(check(&a).is_ok());
        let e = check(&parse(&["osprey", "-i", "lo", "--flow-hash-bucket", "1/4"])).unwrap_err();
        assert!(e.contains("need -r"), "{e}");
        let e = check(&parse(&["osprey", "-r", "x", "--flow-hash-bucket", "4/4"])).unwrap_err();
        assert!(e.contains("--flow-hash-bucket"), "{e}");
    }

    #[test]
    fn list_files_are_relative_to_the_list() {
        let dir = std::env::temp_dir().join(format!("osprey-unit-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("files.txt");
        std::fs::write(&list, "# link a\na-2.pcap\n\n/abs/b.pcap # kept\n").unwrap();
        let files = list_files(&list).unwrap();
        assert_eq!(
            files,
            vec![dir.join("a-2.pcap"), PathBuf::from("/abs/b.pcap")]
        );
        std::fs::write(&list, "# nothing\n").unwrap();
        assert!(list_files(&list).unwrap_err().contains("no capture file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

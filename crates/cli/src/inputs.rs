//! File inputs as Suricata's pcap-file runmode has them: `-r FILE` or `-r DIRECTORY`
//! (`--pcap-file-continuous`, `--pcap-file-recursive`, `--pcap-file-delete` and the
//! `pcap-file:` configuration keys), the capture filter (a trailing expression or
//! `-F FILE`) applied to the frames of files, and `--pcap[=IFACE]`, taken as `-i`.

use crate::args::RunArgs;
use capture::{CaptureFilter, DirEvent, DirOptions, DirSource, FilteredSource, Source};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Input options of Suricata's command line (flattened into [`RunArgs`]).
#[derive(Debug, Args, Default)]
pub struct InputArgs {
    /// Read the capture filter (tcpdump syntax) from FILE; `#` starts a comment. An
    /// expression after the options takes precedence, as in Suricata.
    #[arg(short = 'F', value_name = "FILE")]
    pub filter_file: Option<PathBuf>,

    /// Suricata's libpcap live mode: Osprey captures with AF_PACKET and takes
    /// `--pcap=IFACE` as `-i IFACE`.
    #[arg(
        long = "pcap",
        value_name = "IFACE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ""
    )]
    pub pcap: Option<String>,

    /// With `-r DIRECTORY`: keep watching the directory for new files until SIGINT or
    /// SIGTERM (a file is read once it was left unmodified for `pcap-file.delay`
    /// seconds, 30 by default; the directory is looked at every
    /// `pcap-file.poll-interval` seconds, 5 by default).
    #[arg(long = "pcap-file-continuous")]
    pub continuous: bool,

    /// With `-r DIRECTORY`: also read the files of its subdirectories.
    #[arg(long = "pcap-file-recursive")]
    pub recursive: bool,

    /// Delete each capture file once it was read to its end (files that could not be
    /// read are kept).
    #[arg(long = "pcap-file-delete")]
    pub delete: bool,
}

/// `--pcap[=IFACE]`: becomes `-i IFACE`, said once on standard error.
pub fn resolve_pcap_flag(args: &mut RunArgs) -> Result<(), String> {
    let Some(iface) = args.inputs.pcap.take() else {
        return Ok(());
    };
    if iface.is_empty() {
        return Err(
            "--pcap needs an interface: --pcap=IFACE (Osprey captures it with \
                    AF_PACKET; or use -i IFACE)"
                .into(),
        );
    }
    if args.interface.is_some() {
        return Err("give one input: -i IFACE or --pcap=IFACE".into());
    }
    tracing::info!("--pcap={iface}: capturing with AF_PACKET, as -i {iface}");
    args.interface = Some(iface);
    Ok(())
}

/// The capture filter expression: the words after the options, else the text of the
/// `-F` file (comments removed, lines joined); `None` when neither is given.
pub fn filter_expression(args: &RunArgs) -> Result<Option<String>, String> {
    if !args.filter.is_empty() {
        if let Some(f) = &args.inputs.filter_file {
            tracing::warn!(
                "-F {}: not used, the filter expression on the command line takes \
                 precedence (as in Suricata)",
                f.display()
            );
        }
        return Ok(Some(args.filter.join(" ")));
    }
    let Some(file) = &args.inputs.filter_file else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(file).map_err(|e| format!("-F {}: {e}", file.display()))?;
    let expr = strip_comments(&text);
    if expr.is_empty() {
        return Err(format!("-F {}: no filter expression in it", file.display()));
    }
    Ok(Some(expr))
}

/// A filter file's expression: `#` comments removed, lines joined by spaces.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `pcap-file:` settings, from the command line and the configuration.
#[derive(Debug)]
struct FileSettings {
    dir: DirOptions,
}

fn file_settings(args: &RunArgs) -> Result<FileSettings, String> {
    let config = load_config(args)?;
    let flag = |cli: bool, key: &str| cli || config.get_bool(key).unwrap_or(false);
    let seconds = |key: &str, default: u64| -> Result<Duration, String> {
        match config.get_str(key) {
            None => Ok(Duration::from_secs(default)),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Duration::from_secs)
                .map_err(|_| format!("{key}: `{v}` is not a number of seconds")),
        }
    };
    let mut dir = DirOptions {
        recursive: flag(args.inputs.recursive, "pcap-file.recursive"),
        continuous: flag(args.inputs.continuous, "pcap-file.continuous"),
        delete: flag(args.inputs.delete, "pcap-file.delete-when-done"),
        delay: seconds("pcap-file.delay", 30)?,
        poll_interval: seconds("pcap-file.poll-interval", 5)?,
    };
    // A zero interval would poll the directory in a busy loop.
    dir.poll_interval = dir.poll_interval.max(Duration::from_millis(100));
    if dir.continuous && dir.recursive {
        return Err(
            "--pcap-file-continuous and --pcap-file-recursive cannot be used together \
                    (as in Suricata)"
                .into(),
        );
    }
    Ok(FileSettings { dir })
}

/// The configuration `-c`, `--include` and `--set` describe (the defaults without `-c`).
fn load_config(args: &RunArgs) -> Result<config::Config, String> {
    let mut c = match &args.config {
        Some(path) => config::Config::load(path).map_err(|d| d.to_string())?,
        None => config::Config::parse("", None).map_err(|d| d.to_string())?,
    };
    for inc in &args.include {
        c.merge_file(inc).map_err(|d| d.to_string())?;
    }
    for kv in &args.set {
        c.apply_set(kv).map_err(|e| format!("--set {kv}: {e}"))?;
    }
    Ok(c)
}

/// Opens `-r PATH`: a capture file, or a directory of them, with the capture filter
/// when one is given.
pub fn open_file_input(args: &RunArgs, path: &Path) -> Result<Box<dyn Source>, String> {
    if args.bpf.is_some() {
        return Err(
            "--bpf FILE filters live capture only; for -r give the filter \
                    expression after the options or with -F FILE"
                .into(),
        );
    }
    let settings = file_settings(args)?;
    let is_dir = path.as_os_str() != "-" && path.is_dir();
    let source: Box<dyn Source> = if args.unit.pcap_file_list {
        Box::new(crate::unit_input::list_source(path, settings.dir)?.on_event(report_event))
    } else if is_dir {
        let dir = DirSource::open(path, settings.dir)
            .map_err(|e| e.to_string())?
            .on_event(report_event);
        Box::new(dir)
    } else {
        if settings.dir.continuous || settings.dir.recursive {
            return Err(format!(
                "{}: --pcap-file-continuous and --pcap-file-recursive (pcap-file.continuous, \
                 pcap-file.recursive) need a directory for -r",
                path.display()
            ));
        }
        if settings.dir.delete {
            if path.as_os_str() == "-" {
                return Err("--pcap-file-delete: standard input cannot be deleted".into());
            }
            // Opened now, so that a file that cannot be read is an error of the run.
            capture::FileSource::open(path).map_err(|e| e.to_string())?;
            let one = DirSource::files(&[path.to_path_buf()], settings.dir).on_event(report_event);
            Box::new(one)
        } else {
            capture::open(path).map_err(|e| e.to_string())?
        }
    };
    let Some(expr) = filter_expression(args)? else {
        return crate::unit_input::with_bucket(args, source);
    };
    let filter = CaptureFilter::new(&expr).map_err(|e| e.to_string())?;
    crate::unit_input::with_bucket(args, Box::new(FilteredSource::new(source, filter)))
}

/// Bytes `-r` is expected to read, for the progress bar: the size of the file, or of
/// the files of the directory when the run starts.
pub fn expected_bytes(args: &RunArgs) -> u64 {
    let Some(path) = &args.read else {
        return 0;
    };
    if args.unit.pcap_file_list {
        let files = crate::unit_input::list_files(path).unwrap_or_default();
        return files
            .iter()
            .filter_map(|f| f.metadata().ok())
            .map(|m| m.len())
            .sum();
    }
    if path.as_os_str() != "-" && path.is_dir() {
        let opts = file_settings(args).map(|s| s.dir).unwrap_or_default();
        return DirSource::open(path, opts).map_or(0, |d| d.initial_bytes());
    }
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Reports a file of a directory run that failed or could not be deleted.
fn report_event(event: DirEvent<'_>) {
    match event {
        DirEvent::Done { .. } => {}
        DirEvent::Failed { error, .. } => {
            tracing::warn!("pcap-file: {error}; going on with the next file")
        }
        DirEvent::NotDeleted { path, error } => {
            tracing::warn!("pcap-file: cannot delete {}: {error}", path.display())
        }
    }
}

/// Adds the file-input counters to stats.json: frames a capture filter left out, files
/// read and files that could not be read.
pub fn add_capture_counters(stats: &mut output::stats::StatsTree, capture: &capture::CaptureStats) {
    stats.add("osprey.capture.filtered", capture.filtered);
    stats.add("osprey.capture.files", capture.files);
    stats.add("osprey.capture.file_errors", capture.file_errors);
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> RunArgs {
        crate::args::Cli::try_parse_from(args).unwrap().run
    }

    #[test]
    fn filter_file_comments_and_precedence() {
        assert_eq!(
            strip_comments("udp # only udp\n\n  and port 53 #x\n#all\n"),
            "udp and port 53"
        );
        let dir = std::env::temp_dir().join(format!("osprey-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bpf");
        std::fs::write(&f, "tcp\n").unwrap();
        let fs = f.to_str().unwrap();
        let a = parse(&["osprey", "-r", "x", "-F", fs]);
        assert_eq!(filter_expression(&a).unwrap().as_deref(), Some("tcp"));
        let a = parse(&["osprey", "-r", "x", "-F", fs, "udp", "port", "53"]);
        assert_eq!(
            filter_expression(&a).unwrap().as_deref(),
            Some("udp port 53")
        );
        std::fs::write(&f, "# nothing\n").unwrap();
        let a = parse(&["osprey", "-r", "x", "-F", fs]);
        assert!(filter_expression(&a).unwrap_err().contains("no filter"));
        assert_eq!(filter_expression(&parse(&["osprey"])).unwrap(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pcap_flag_is_an_interface() {
        let mut a = parse(&["osprey", "--pcap=eth7"]);
        resolve_pcap_flag(&mut a).unwrap();
        assert_eq!(a.interface.as_deref(), Some("eth7"));
        let mut a = parse(&["osprey", "--pcap"]);
        assert!(resolve_pcap_flag(&mut a)
            .unwrap_err()
            .contains("--pcap=IFACE"));
        let mut a = parse(&["osprey", "--pcap=a", "-i", "b"]);
        assert!(resolve_pcap_flag(&mut a).is_err());
    }

    #[test]
    fn directory_options_need_a_directory() {
        let a = parse(&["osprey", "-r", "x.pcap", "--pcap-file-continuous"]);
        let e = open_file_input(&a, Path::new("x.pcap")).err().unwrap();
        assert!(e.contains("need a directory"), "{e}");
        let a = parse(&[
            "osprey",
            "-r",
            "d",
            "--pcap-file-continuous",
            "--pcap-file-recursive",
        ]);
        assert!(file_settings(&a)
            .unwrap_err()
            .contains("cannot be used together"));
        let a = parse(&[
            "osprey",
            "--set",
            "pcap-file.continuous=yes",
            "--set",
            "pcap-file.delay=2",
            "--set",
            "pcap-file.poll-interval=0",
        ]);
        let s = file_settings(&a).unwrap();
        assert!(s.dir.continuous && !s.dir.recursive && !s.dir.delete);
        assert_eq!(s.dir.delay, Duration::from_secs(2));
        assert_eq!(s.dir.poll_interval, Duration::from_millis(100));
        let a = parse(&["osprey", "--set", "pcap-file.delay=soon"]);
        assert!(file_settings(&a).unwrap_err().contains("pcap-file.delay"));
    }
}

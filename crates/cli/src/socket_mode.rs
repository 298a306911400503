//! Suricata's unix-socket runmode: `osprey --unix-socket[=PATH]` without `-r`/`-i`
//! loads the rules once and waits for capture files sent with `pcap-file`.
//!
//! Jobs are processed one after another, each as a run of its own as Suricata does:
//! fresh flow state and counters per job, its EVE, fast.log and stats.json in the
//! output directory the command named. A directory is one job over its files in name
//! order (flows go on from file to file; with `continuous`, new files are picked up
//! until `pcap-interrupt`); `delete-when-done` removes each file once read to its end.
//! The rules are shared between jobs: `reload-rules` swaps them for the job running and
//! those that follow. A job may also be a retro-hunt work unit (a list of files, one
//! flow-hash bucket) and its end can be asked for: see `socket_unit`.

use crate::args::RunArgs;
use crate::socket::commands::{Context, Reply};
use crate::socket_unit::{Outcome, Outcomes, UnitOpts};
use capture::{Batch, CaptureError, CaptureStats, Source};
use engine::{Control, EngineConfig, RunOptions, SetupArgs};
use output::stats::StatsTree;
use serde_json::{json, Value};
use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The commands this runmode adds.
pub const COMMANDS: &[&str] = &[
    "pcap-file",
    "pcap-file-continuous",
    "pcap-file-number",
    "pcap-file-list",
    "pcap-last-processed",
    "pcap-interrupt",
    "pcap-current",
    crate::socket_unit::RESULT_COMMAND,
];

/// Whether `args` ask for this runmode: `--unix-socket` and no input.
pub fn wanted(args: &RunArgs) -> bool {
    args.unix_socket.is_some()
        && args.read.is_none()
        && args.interface.is_none()
        && args.af_packet.is_none()
        && args.af_packet_ips.is_none()
}

/// One `pcap-file` request.
#[derive(Debug, Clone, PartialEq)]
struct Job {
    path: PathBuf,
    output_dir: PathBuf,
    continuous: bool,
    delete: bool,
    unit: UnitOpts,
}

#[derive(Default)]
struct State {
    pending: VecDeque<Job>,
    current: Option<PathBuf>,
    last_processed_ms: u64,
    last_stats: Option<StatsTree>,
    /// The output directory of the job running.
    running: Option<PathBuf>,
    outcomes: Outcomes,
}

/// The files waiting to be processed, the one being processed, and what the last one
/// left.
#[derive(Default)]
pub struct PcapQueue {
    state: Mutex<State>,
    wake: Condvar,
    interrupt: Arc<AtomicBool>,
}

impl PcapQueue {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a file is being processed.
    pub fn is_running(&self) -> bool {
        self.state().current.is_some()
    }

    /// The counters of the last file processed.
    pub fn last_stats(&self) -> Option<StatsTree> {
        self.state().last_stats.clone()
    }

    /// Runs one of [`COMMANDS`].
    pub fn command(&self, name: &str, args: &Value) -> Reply {
        match name {
            "pcap-file" | "pcap-file-continuous" => {
                match parse_job(args, name == "pcap-file-continuous") {
                    Ok(job) => {
                        self.state().pending.push_back(job);
                        self.wake.notify_all();
                        Reply::ok("Successfully added file to list")
                    }
                    Err(e) => Reply::nok(e),
                }
            }
            "pcap-file-number" => Reply::ok(self.state().pending.len()),
            "pcap-file-list" => {
                let files: Vec<String> = self
                    .state()
                    .pending
                    .iter()
                    .map(|j| j.path.display().to_string())
                    .collect();
                Reply::ok(json!({"count": files.len(), "files": files}))
            }
            "pcap-current" => match &self.state().current {
                Some(p) => Reply::ok(p.display().to_string()),
                None => Reply::ok("None"),
            },
            "pcap-last-processed" => Reply::ok(self.state().last_processed_ms),
            crate::socket_unit::RESULT_COMMAND => {
                let st = self.state();
                let queued = st.pending.iter().map(|j| j.output_dir.as_path());
                crate::socket_unit::result(args, queued, st.running.as_deref(), &st.outcomes)
            }
            "pcap-interrupt" => {
                if self.is_running() {
                    self.interrupt.store(true, Ordering::SeqCst);
                    Reply::ok("Interrupted")
                } else {
                    Reply::ok("No file being processed")
                }
            }
            _ => Reply::nok("Unknown command"),
        }
    }

    /// Processes the files sent until the run is stopped.
    fn process(&self, base: &EngineConfig, opts: &RunOptions) {
        while !opts.control.is_stopped() {
            let job = {
                let mut st = self.state();
                match st.pending.pop_front() {
                    Some(job) => {
                        st.current = Some(job.path.clone());
                        st.running = Some(job.output_dir.clone());
                        job
                    }
                    None => {
                        let _ = self.wake.wait_timeout(st, Duration::from_millis(100));
                        continue;
                    }
                }
            };
            self.interrupt.store(false, Ordering::SeqCst);
            let result = self.run_job(&job, base, opts);
            let mut st = self.state();
            st.current = None;
            st.running = None;
            let outcome = match &result {
                Ok(stats) => Outcome::Done {
                    packets: stats.get("decoder.pkts").unwrap_or(0),
                },
                Err(e) => Outcome::Failed(e.clone()),
            };
            st.outcomes.record(&job.output_dir, outcome);
            st.last_processed_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            match result {
                Ok(stats) => {
                    tracing::info!(
                        "pcap-file {}: {} packets, outputs in {}",
                        job.path.display(),
                        stats.get("decoder.pkts").unwrap_or(0),
                        job.output_dir.display()
                    );
                    st.last_stats = Some(stats);
                }
                Err(e) => tracing::error!("pcap-file {}: {e}", job.path.display()),
            }
        }
    }

    /// One job: a run of its own with the rules running now, outputs and stats.json in
    /// the job's output directory.
    fn run_job(
        &self,
        job: &Job,
        base: &EngineConfig,
        opts: &RunOptions,
    ) -> Result<StatsTree, String> {
        let mut config = base.clone();
        config.log_dir = Some(job.output_dir.clone());
        if let Some(d) = opts.control.detector() {
            config.detector = Some(d);
        }
        let mut source = JobSource::new(self, job, opts.control.stop_flag());
        // A single file that cannot be read is the job's error.
        if !source.many() {
            source.open_next()?;
        }
        let mut source: Box<dyn Source + '_> = match job.unit.bucket {
            Some(b) if b.count > 1 => {
                Box::new(engine::bucket::BucketSource::new(Box::new(source), b))
            }
            _ => Box::new(source),
        };
        let report = engine::run(&mut *source, &config, opts, |_| {}).map_err(|e| e.to_string())?;
        let mut stats = report.stats;
        crate::inputs::add_capture_counters(&mut stats, &source.stats());
        if let Some(r) = opts.control.ruleset() {
            stats.set(
                "detect.engines",
                json!([{"id": 0, "rules_loaded": r.loaded, "rules_failed": r.failed,
                        "rules_skipped": r.skipped}]),
            );
        }
        let out = job.output_dir.join("stats.json");
        stats
            .write_file(&out)
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        Ok(stats)
    }
}

/// The frames of one job: its file, or its directory's files in name order (with
/// `continuous`, new files as they appear), or the files of its list in order (frames
/// numbered across them); flows go on from one file of a directory to the next, as
/// Suricata's pcap-file runmode does. Ends early on `pcap-interrupt` or when the run
/// stops. Each file exhausted is deleted with `delete-when-done`.
struct JobSource<'a> {
    queue: &'a PcapQueue,
    job: &'a Job,
    current: Option<(PathBuf, Box<dyn Source>)>,
    seen: BTreeSet<PathBuf>,
    /// A list job's files not opened yet.
    list: Option<VecDeque<PathBuf>>,
    /// A list job: the number of the last frame given.
    index: u64,
    finished: CaptureStats,
    stop: Arc<AtomicBool>,
}

impl<'a> JobSource<'a> {
    fn new(queue: &'a PcapQueue, job: &'a Job, stop: Arc<AtomicBool>) -> Self {
        JobSource {
            queue,
            job,
            current: None,
            seen: BTreeSet::new(),
            list: job.unit.files.clone().map(VecDeque::from),
            index: 0,
            finished: CaptureStats::default(),
            stop,
        }
    }

    /// Whether the job has several files (a directory or a list): one that cannot be
    /// read is skipped rather than ending the job.
    fn many(&self) -> bool {
        self.list.is_some() || self.job.path.is_dir()
    }

    /// The next file not read yet: the job's file once, or the first new file of its
    /// directory by name.
    fn next_path(&mut self) -> Option<PathBuf> {
        if let Some(list) = &mut self.list {
            return list.pop_front();
        }
        let path = if self.job.path.is_dir() {
            let rd = std::fs::read_dir(&self.job.path).ok()?;
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && !self.seen.contains(p))
                .min()?
        } else {
            Some(self.job.path.clone()).filter(|p| !self.seen.contains(p))?
        };
        self.seen.insert(path.clone());
        Some(path)
    }

    /// Opens the next file; `Ok(false)` when there is none (yet).
    fn open_next(&mut self) -> Result<bool, String> {
        let Some(path) = self.next_path() else {
            return Ok(false);
        };
        let source = capture::open(&path).map_err(|e| e.to_string())?;
        self.queue.state().current = Some(path.clone());
        self.current = Some((path, source));
        Ok(true)
    }

    /// The current file is exhausted: count it, delete it if asked.
    fn finish_current(&mut self) {
        let Some((path, source)) = self.current.take() else {
            return;
        };
        self.finished.merge(&source.stats());
        if self.job.delete {
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!("pcap-file: cannot delete {}: {e}", path.display());
            }
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.queue.interrupt.load(Ordering::SeqCst)
    }
}

impl Source for JobSource<'_> {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        loop {
            if self.stopping() {
                batch.clear();
                return Ok(0);
            }
            if let Some((path, source)) = &mut self.current {
                match source.next_batch(batch, max) {
                    Ok(0) => self.finish_current(),
                    Ok(_) if self.list.is_some() => {
                        batch.retain_renumber(|_| true, &mut self.index);
                        return Ok(batch.len());
                    }
                    Ok(n) => return Ok(n),
                    Err(e) if self.list.is_none() && !self.job.path.is_dir() => return Err(e),
                    Err(e) => {
                        eprintln!("osprey: pcap-file {}: {e}; skipped", path.display());
                        self.current = None;
                    }
                }
                continue;
            }
            match self.open_next() {
                Ok(true) => {}
                Err(e) => eprintln!("osprey: pcap-file: {e}; skipped"),
                Ok(false) if self.job.continuous && self.job.path.is_dir() => {
                    std::thread::sleep(Duration::from_millis(200));
                }
                Ok(false) => {
                    batch.clear();
                    return Ok(0);
                }
            }
        }
    }

    fn stats(&self) -> CaptureStats {
        let mut s = self.finished;
        if let Some((_, source)) = &self.current {
            s.merge(&source.stats());
        }
        s
    }
}

/// A flag of `pcap-file`: JSON true, or a string a person would type.
fn flag(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => matches!(s.to_ascii_lowercase().as_str(), "true" | "yes" | "1"),
        Some(Value::Number(n)) => n.as_u64().is_some_and(|n| n != 0),
        _ => false,
    }
}

/// Checks `pcap-file`'s arguments as Suricata does (same messages).
fn parse_job(args: &Value, continuous: bool) -> Result<Job, String> {
    let path = args
        .get("filename")
        .and_then(Value::as_str)
        .ok_or("filename is not a string")?;
    let path = PathBuf::from(path);
    if !path.exists() {
        return Err("filename does not exist".into());
    }
    let dir = args
        .get("output-dir")
        .and_then(Value::as_str)
        .ok_or("output-dir is not a string")?;
    let output_dir = PathBuf::from(dir);
    if !output_dir.is_dir() {
        return Err("output-dir does not exist".into());
    }
    if args.get("tenant").is_some_and(|t| !t.is_null()) {
        eprintln!("osprey: pcap-file: tenant ignored (Osprey has no multi-tenancy)");
    }
    let unit = UnitOpts::parse(args, &path)?;
    Ok(Job {
        continuous: continuous || flag(args.get("continuous")),
        delete: flag(args.get("delete-when-done")),
        path,
        output_dir,
        unit,
    })
}

/// The runmode: loads the rules, opens the socket (and the metrics endpoint), processes
/// the files sent until `shutdown`, SIGINT or SIGTERM.
pub fn run(args: &RunArgs, setup_args: SetupArgs) -> Result<ExitCode, String> {
    let setup = engine::setup(&setup_args)?;
    for notice in &setup.notices {
        eprintln!("osprey: {notice}");
    }
    eprintln!(
        "osprey: {} rules loaded, {} failed, {} unsupported ({:.2} s)",
        setup.rules_loaded,
        setup.rules_failed,
        setup.rules_unsupported,
        setup.load_time.as_secs_f64()
    );
    let control = Control::new();
    control.set_ruleset(engine::RulesetInfo::of(&setup));
    crate::signals::install_signals(&control, setup_args.clone())?;
    let mut config = setup.engine;
    config.stage_timing = args.stage_timing;
    let queue = Arc::new(PcapQueue::default());
    let mut ctx = Context::new(
        control.clone(),
        setup_args,
        &config,
        args.runmode.clone().unwrap_or_else(|| "workers".into()),
        "UNIX_SOCKET",
    );
    ctx.pcap = Some(queue.clone());
    let _services = crate::socket::start(args, ctx, false)?;
    eprintln!("osprey: unix-socket mode: waiting for pcap-file commands");
    let opts = RunOptions {
        threads: args
            .threads
            .or((args.runmode.as_deref() == Some("single")).then_some(1))
            .unwrap_or(0),
        pin_cores: false,
        control: control.clone(),
        periodic_stats: None,
        readers: args.readers.unwrap_or(0),
    };
    queue.process(&config, &opts);
    eprintln!("osprey: unix-socket mode: stopped");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcap_file_arguments() {
        let here = env!("CARGO_MANIFEST_DIR");
        let e = parse_job(&json!({}), false).unwrap_err();
        assert_eq!(e, "filename is not a string");
        let e = parse_job(
            &json!({"filename": "/nonexistent.pcap", "output-dir": here}),
            false,
        );
        assert_eq!(e.unwrap_err(), "filename does not exist");
        let e = parse_job(
            &json!({"filename": here, "output-dir": "/nonexistent"}),
            false,
        );
        assert_eq!(e.unwrap_err(), "output-dir does not exist");
        let j = parse_job(
            &json!({"filename": here, "output-dir": here, "delete-when-done": "true"}),
            true,
        )
        .unwrap();
        assert!(j.continuous && j.delete);
    }

    #[test]
    fn queue_commands() {
        let here = env!("CARGO_MANIFEST_DIR");
        let q = PcapQueue::default();
        let r = q.command("pcap-file", &json!({"filename": here, "output-dir": here}));
        assert_eq!(r.message.unwrap(), "Successfully added file to list");
        assert_eq!(
            q.command("pcap-file-number", &Value::Null).message.unwrap(),
            1
        );
        let list = q.command("pcap-file-list", &Value::Null).message.unwrap();
        assert_eq!(list, json!({"count": 1, "files": [here]}));
        assert_eq!(
            q.command("pcap-current", &Value::Null).message.unwrap(),
            "None"
        );
        assert_eq!(
            q.command("pcap-last-processed", &Value::Null)
                .message
                .unwrap(),
            0
        );
        assert!(q.command("pcap-interrupt", &Value::Null).ok);
        assert!(
            !q.interrupt.load(Ordering::SeqCst),
            "nothing running to interrupt"
        );
    }
}

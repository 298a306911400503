//! The open outputs of a run ([`Outputs`]): each `eve-log` output's writer with the
//! record types it takes, `fast.log` and `stats.log`, shared by every worker. Records
//! are routed by their `event_type`; `community_id` is added per output.

use super::config::{EveOutput, OutputsConfig, StatsLogOutput};
use output::sink::SinkSpec;
use output::stats::StatsTree;
use output::stats_log::{self, StatsDeltas, StatsRecordOptions};
use output::{LineWriter, ReopenSource};
use serde_json::Value;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One open `eve-log` output.
struct EveWriter {
    writer: LineWriter,
    /// Its configuration (types, options).
    config: EveOutput,
    /// Counter values of its previous `stats` record (`deltas`).
    deltas: Mutex<StatsDeltas>,
}

/// The open `stats` output.
struct StatsLogWriter {
    writer: LineWriter,
    config: StatsLogOutput,
}

/// The outputs of a run, written by background threads and shared by all workers
/// What the outputs lost over a run, known once their writers have finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputLosses {
    /// Failed writes to output files (a full disk, an I/O error).
    pub write_failures: u64,
    /// Records the eve-log outputs lost (files and socket destinations).
    pub eve_dropped: u64,
    /// Lines fast.log lost.
    pub fast_dropped: u64,
}

impl OutputLosses {
    /// Sets their counters in `stats` (`osprey.output.write_failures`,
    /// `osprey.output.eve.dropped`, `osprey.output.fast.dropped`), replacing values
    /// counted before the writers finished.
    pub fn set_counters(&self, stats: &mut StatsTree) {
        stats.set("osprey.output.write_failures", self.write_failures.into());
        stats.set("osprey.output.eve.dropped", self.eve_dropped.into());
        stats.set("osprey.output.fast.dropped", self.fast_dropped.into());
    }
}

/// (lines from different workers interleave; each line is whole).
pub struct Outputs {
    eve: Vec<EveWriter>,
    fast: Option<LineWriter>,
    stats_log: Option<StatsLogWriter>,
    stats_interval: Option<Duration>,
    /// Records that could not be handed to a writer.
    dropped: AtomicU64,
    /// `pcap_filename` of the outputs with `pcap-file: yes`.
    pcap_filename: String,
    /// `sensor-name`: `host` of every record (added by the Redis sink itself for a Redis
    /// output).
    sensor_name: Option<String>,
}

/// `spec` with a relative file or socket path taken as relative to `log_dir`.
fn in_log_dir(spec: &SinkSpec, log_dir: &Path) -> SinkSpec {
    let join = |p: &Path| log_dir.join(p);
    match spec {
        SinkSpec::File { path, append } => SinkSpec::File {
            path: join(path),
            append: *append,
        },
        SinkSpec::UnixStream { path } => SinkSpec::UnixStream { path: join(path) },
        SinkSpec::UnixDgram { path } => SinkSpec::UnixDgram { path: join(path) },
        other => other.clone(),
    }
}

/// Names the output in an error: its file, or its kind.
fn describe(spec: &SinkSpec) -> String {
    match spec {
        SinkSpec::File { path, .. }
        | SinkSpec::UnixStream { path }
        | SinkSpec::UnixDgram { path } => path.display().to_string(),
        other => format!("eve-log filetype {}", other.filetype()),
    }
}

impl Outputs {
    /// Opens the outputs `config` names, files in `log_dir` (relative names) or where
    /// their absolute names say; `None` writes nothing. Files reopen when `reopen`
    /// returns a new value (log rotation).
    pub fn open(
        config: &OutputsConfig,
        log_dir: Option<&Path>,
        reopen: Option<ReopenSource>,
    ) -> io::Result<Outputs> {
        let mut out = Outputs {
            eve: Vec::new(),
            fast: None,
            stats_log: None,
            stats_interval: config.stats_interval,
            dropped: AtomicU64::new(0),
            pcap_filename: config
                .pcap_filename
                .clone()
                .unwrap_or_else(|| "unknown".into()),
            sensor_name: config.sensor_name.clone(),
        };
        let Some(dir) = log_dir else {
            return Ok(out);
        };
        let open = |spec: &SinkSpec| {
            let mut spec = in_log_dir(spec, dir);
            if let SinkSpec::Redis(r) = &mut spec {
                r.host.clone_from(&config.sensor_name);
            }
            LineWriter::open(&spec, reopen.clone())
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", describe(&spec))))
        };
        for e in &config.eve {
            out.eve.push(EveWriter {
                writer: open(&e.sink)?,
                config: e.clone(),
                deltas: Mutex::new(StatsDeltas::default()),
            });
        }
        if let Some(f) = &config.fast {
            out.fast = Some(open(&SinkSpec::File {
                path: f.filename.clone(),
                append: f.append,
            })?);
        }
        if let (Some(s), Some(_)) = (&config.stats_log, config.stats_interval) {
            out.stats_log = Some(StatsLogWriter {
                writer: open(&SinkSpec::File {
                    path: s.file.filename.clone(),
                    append: s.file.append,
                })?,
                config: s.clone(),
            });
        }
        Ok(out)
    }

    /// The default outputs (`eve.json`, `fast.log`, created afresh) in `log_dir`;
    /// `None` writes nothing.
    pub fn create(log_dir: Option<&Path>) -> io::Result<Outputs> {
        Outputs::open(&OutputsConfig::default(), log_dir, None)
    }

    /// The outputs of `config` (its `outputs` in its `log_dir`), reopening their files
    /// when `control` is asked to (SIGHUP, `reopen-log-files`).
    pub fn for_run(config: &crate::EngineConfig, control: &crate::Control) -> io::Result<Outputs> {
        let c = control.clone();
        let reopen: ReopenSource = std::sync::Arc::new(move || c.reopen_generation());
        Outputs::open(&config.outputs, config.log_dir.as_deref(), Some(reopen))
    }

    /// Flushes and closes every output (waits for the writer threads); the first error
    /// is returned after all are closed. On success, what the outputs lost.
    pub fn finish(self) -> io::Result<OutputLosses> {
        let mut first = None;
        let mut losses = OutputLosses::default();
        let eve = self.eve.into_iter().map(|e| (e.writer, Some(true)));
        let fast = self.fast.into_iter().map(|w| (w, Some(false)));
        let stats = self.stats_log.into_iter().map(|s| (s.writer, None));
        for (w, kind) in eve.chain(fast).chain(stats) {
            match w.finish_counted() {
                Ok((_, dropped, failures)) => {
                    losses.write_failures += failures;
                    match kind {
                        Some(true) => losses.eve_dropped += dropped,
                        Some(false) => losses.fast_dropped += dropped,
                        None => {}
                    }
                }
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        first.map_or(Ok(losses), Err)
    }

    /// Whether some eve-log output takes alerts.
    pub(crate) fn wants_alerts(&self) -> bool {
        self.eve.iter().any(|e| e.config.alerts)
    }

    /// Whether `fast.log` is written.
    pub(crate) fn has_fast(&self) -> bool {
        self.fast.is_some()
    }

    /// Adds what the eve-log outputs' socket destinations lost (`osprey.output.eve.dropped`)
    /// and how often they reconnected (`osprey.output.eve.reconnects`); see
    /// [`LineWriter::dropped`].
    pub fn add_counters(&self, stats: &mut StatsTree) {
        let w = || self.eve.iter().map(|e| &e.writer);
        stats.add(
            "osprey.output.eve.dropped",
            w().map(LineWriter::dropped).sum(),
        );
        stats.add(
            "osprey.output.eve.reconnects",
            w().map(LineWriter::reconnects).sum(),
        );
    }

    /// Records that could not be handed to a writer (queue closed), all outputs
    /// together.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Queues `line` on `w`; counts it when it cannot be. Returns the failures (0 or 1).
    fn put(&self, w: &LineWriter, line: Vec<u8>) -> u64 {
        if w.write_line(line).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            1
        } else {
            0
        }
    }

    /// Writes `record` to every eve-log output whose types include its `event_type`
    /// (with `community_id` where the output asks for it). Returns the records that
    /// could not be queued.
    pub(crate) fn write_event(&self, record: &Value) -> u64 {
        let event_type = record
            .get("event_type")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut plain: Option<Vec<u8>> = None;
        let mut failed = 0;
        for e in self.eve.iter().filter(|e| e.config.wants(event_type)) {
            let line = if let Some(r) = self.decorated(e, record) {
                r.to_string().into_bytes()
            } else {
                plain
                    .get_or_insert_with(|| record.to_string().into_bytes())
                    .clone()
            };
            failed += self.put(&e.writer, line);
        }
        failed
    }

    /// Whether no eve-log output that takes alerts adds fields to them
    /// (`community_id`, `pcap_filename`, `host`): their lines can then be written as
    /// made ([`Outputs::write_event_line`]).
    pub(crate) fn alerts_undecorated(&self) -> bool {
        self.eve
            .iter()
            .filter(|e| e.config.wants("alert"))
            .all(|e| !self.decorates(e))
    }

    /// Writes the serialised record `line` of type `event_type` to every eve-log
    /// output whose types include it, as [`Outputs::write_event`] writes the record's
    /// `Value` to outputs that add no fields (see [`Outputs::alerts_undecorated`]).
    /// Returns the records that could not be queued.
    pub(crate) fn write_event_line(&self, event_type: &str, line: Vec<u8>) -> u64 {
        let mut wanted = self.eve.iter().filter(|e| e.config.wants(event_type));
        let Some(first) = wanted.next() else {
            return 0;
        };
        let mut failed = 0;
        for e in wanted {
            failed += self.put(&e.writer, line.clone());
        }
        failed + self.put(&first.writer, line)
    }

    /// The `host` output `e` adds to every record: the sensor name, unless a Redis sink
    /// adds it itself (the sensor name, or the machine's name).
    fn host(&self, e: &EveWriter) -> Option<&String> {
        self.sensor_name
            .as_ref()
            .filter(|_| !matches!(e.config.sink, SinkSpec::Redis(_)))
    }

    /// Whether output `e` adds fields to every record ([`Outputs::decorated`]).
    fn decorates(&self, e: &EveWriter) -> bool {
        let o = &e.config.options;
        o.community_id || o.pcap_file || self.host(e).is_some()
    }

    /// `record` with what output `e` adds to every record (`community_id`,
    /// `pcap_filename`, `host` last); `None` when it adds nothing.
    fn decorated(&self, e: &EveWriter, record: &Value) -> Option<Value> {
        if !self.decorates(e) {
            return None;
        }
        let o = &e.config.options;
        let host = self.host(e);
        let mut r = record.clone();
        if o.community_id {
            output::eve::community_id::add_to_record(&mut r, o.community_id_seed);
        }
        if let (true, Some(m)) = (o.pcap_file, r.as_object_mut()) {
            m.insert("pcap_filename".into(), self.pcap_filename.clone().into());
        }
        if let (Some(h), Some(m)) = (host, r.as_object_mut()) {
            m.insert("host".into(), h.clone().into());
        }
        Some(r)
    }

    /// Writes one `fast.log` line. Returns the lines that could not be queued.
    pub(crate) fn write_fast(&self, line: Vec<u8>) -> u64 {
        match &self.fast {
            Some(w) => self.put(w, line),
            None => 0,
        }
    }

    /// How often the statistics outputs are written while running; `None` when there
    /// are none (or statistics are off).
    pub(crate) fn stats_interval(&self) -> Option<Duration> {
        let eve_stats = self.eve.iter().any(|e| e.config.wants("stats"));
        self.stats_interval
            .filter(|_| eve_stats || self.stats_log.is_some())
    }

    /// Writes the statistics outputs: a block of `stats.log` and a `stats` record to
    /// every eve-log output that takes them, from the merged counters, each worker's
    /// (named `W#01` ...) and the engine's uptime in seconds.
    pub(crate) fn write_stats(&self, merged: &StatsTree, workers: &[StatsTree], uptime: u64) {
        if self.stats_interval.is_none() {
            return;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let threads: Vec<(String, StatsTree)> = workers
            .iter()
            .enumerate()
            .map(|(k, t)| (stats_log::worker_name(k), t.clone()))
            .collect();
        for e in self.eve.iter().filter(|e| e.config.wants("stats")) {
            let opts: StatsRecordOptions = e.config.stats;
            let mut d = e.deltas.lock().unwrap_or_else(|p| p.into_inner());
            let stats = stats_log::stats_object(merged, &threads, opts, uptime, &mut d);
            let record =
                stats_log::stats_record((now.as_secs() as i64, now.subsec_micros()), stats);
            let record = self.decorated(e, &record).unwrap_or(record);
            self.put(&e.writer, record.to_string().into_bytes());
        }
        if let Some(s) = &self.stats_log {
            let threads = if s.config.threads { &threads[..] } else { &[] };
            let block = stats_log::stats_log_block(
                merged,
                threads,
                s.config.totals,
                now.as_secs() as i64,
                uptime,
                s.config.null_values,
            );
            self.put(&s.writer, block.into_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::config::FileOutput;

    fn eve(file: &str, alerts: bool, types: &str) -> EveOutput {
        EveOutput {
            sink: SinkSpec::File {
                path: file.into(),
                append: true,
            },
            alerts,
            types: output::EveTypes::parse_list(types).unwrap(),
            options: output::EveOptions::default(),
            stats: StatsRecordOptions::default(),
        }
    }

    #[test]
    fn records_go_where_their_type_is() {
        let dir = std::env::temp_dir().join(format!("osprey-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "old\n").unwrap();
        let mut dns = eve("d.json", false, "dns,stats");
        dns.options.community_id = true;
        dns.options.pcap_file = true;
        let config = OutputsConfig {
            eve: vec![eve("a.json", true, ""), dns],
            fast: Some(FileOutput {
                filename: "f.log".into(),
                append: false,
            }),
            stats_log: Some(StatsLogOutput {
                file: FileOutput {
                    filename: "s.log".into(),
                    append: true,
                },
                totals: true,
                threads: false,
                null_values: false,
            }),
            stats_interval: Some(Duration::from_secs(8)),
            pcap_filename: Some("x.pcap".into()),
            file_store: None,
            tls_store: None,
            sensor_name: None,
        };
        let out = Outputs::open(&config, Some(&dir), None).unwrap();
        assert!(out.wants_alerts() && out.has_fast());
        let rec = |t: &str| {
            serde_json::json!({"event_type": t, "src_ip": "8.8.8.8", "src_port": 53,
                "dest_ip": "192.168.1.52", "dest_port": 54585, "proto": "UDP"})
        };
        assert_eq!(out.write_event(&rec("alert")), 0);
        out.write_event(&rec("dns"));
        out.write_event(&rec("http"));
        out.write_fast(b"fast".to_vec());
        let mut t = StatsTree::new();
        t.add("decoder.pkts", 3);
        out.write_stats(&t, &[t.clone()], 2);
        assert_eq!(out.dropped(), 0);
        out.finish().unwrap();
        let a = std::fs::read_to_string(dir.join("a.json")).unwrap();
        let lines: Vec<&str> = a.lines().collect();
        assert_eq!(lines.len(), 2, "appended to: {a}");
        assert!(lines[1].contains("\"alert\"") && !a.contains("community_id"));
        let d = std::fs::read_to_string(dir.join("d.json")).unwrap();
        let d: Vec<Value> = d
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0]["community_id"], "1:d/FP5EW3wiY1vCndhwleRRKHowQ=");
        assert_eq!(d[1]["stats"]["decoder"]["pkts"], 3);
        assert!(d.iter().all(|r| r["pcap_filename"] == "x.pcap"));
        assert_eq!(
            std::fs::read_to_string(dir.join("f.log")).unwrap(),
            "fast\n"
        );
        let s = std::fs::read_to_string(dir.join("s.log")).unwrap();
        assert!(s.contains("decoder.pkts") && s.contains("uptime: 0d, 00h 00m 02s"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sensor_name_is_the_last_key_of_every_record() {
        let dir = std::env::temp_dir().join(format!("osprey-sensor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut e = eve("e.json", true, "dns,stats");
        e.options.pcap_file = true;
        let config = OutputsConfig {
            eve: vec![e],
            stats_interval: Some(Duration::from_secs(8)),
            sensor_name: Some("probe-1".into()),
            ..OutputsConfig::default()
        };
        let out = Outputs::open(&config, Some(&dir), None).unwrap();
        out.write_event(&serde_json::json!({"event_type": "alert", "src_ip": "10.0.0.1"}));
        out.write_event(&serde_json::json!({"event_type": "dns", "dns": {"type": "query"}}));
        let mut t = StatsTree::new();
        t.add("decoder.pkts", 3);
        out.write_stats(&t, &[t.clone()], 2);
        out.finish().unwrap();
        let text = std::fs::read_to_string(dir.join("e.json")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for l in &lines {
            assert!(l.ends_with(",\"host\":\"probe-1\"}"), "{l}");
        }
        assert!(lines[2].contains("\"event_type\":\"stats\""));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

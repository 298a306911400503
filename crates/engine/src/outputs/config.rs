//! Reading suricata.yaml's `outputs:` section (and the top-level `stats:` section that
//! times the statistics outputs) into an [`OutputsConfig`].
//!
//! Every entry is read: `eve-log` (as many as given), `fast`, `stats`. Keys and output
//! kinds Osprey does not implement are named in one notice each (`outputs.3.pcap-log`,
//! `outputs.1.eve-log.types.http.custom`), never dropped silently.

use ::config::{scalar_string, Config, Value};
use output::sink::{RedisMode, RedisSpec, SinkSpec};
use output::stats_log::StatsRecordOptions;
use output::{EveOptions, EveTypes};
use std::path::PathBuf;
use std::time::Duration;

/// Suricata's default `stats: interval:` (seconds).
const DEFAULT_STATS_INTERVAL: u64 = 8;

/// What the run writes and where: one entry per enabled output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputsConfig {
    /// The enabled `eve-log` outputs, in order.
    pub eve: Vec<EveOutput>,
    /// The `fast` output (`fast.log`).
    pub fast: Option<FileOutput>,
    /// The `stats` output (`stats.log`).
    pub stats_log: Option<StatsLogOutput>,
    /// How often the statistics outputs are written while running (top-level `stats:
    /// enabled`, `interval`); `None`: statistics are off (no `stats.log`, no EVE
    /// `stats` records).
    pub stats_interval: Option<Duration>,
    /// The capture file being read, as given (`pcap_filename` of the outputs with
    /// `pcap-file: yes`); `None` (written `unknown`, as Suricata) for other inputs.
    pub pcap_filename: Option<String>,
    /// The `file-store` output (version 2).
    pub file_store: Option<super::file_store::FileStoreOutput>,
    /// The `tls-store` output (certificate chains of `tls_store` rules).
    pub tls_store: Option<super::tls_store::TlsStoreOutput>,
    /// The top-level `sensor-name`: written as `host`, last, in every EVE record (for
    /// a Redis output, instead of the machine's host name).
    pub sensor_name: Option<String>,
}

/// Without an `outputs:` section Osprey writes `eve.json` (alerts and the default
/// record types) and `fast.log`, created afresh, and no statistics outputs.
impl Default for OutputsConfig {
    fn default() -> Self {
        OutputsConfig {
            eve: vec![EveOutput {
                sink: SinkSpec::File {
                    path: "eve.json".into(),
                    append: false,
                },
                alerts: true,
                types: EveTypes::default(),
                options: EveOptions::default(),
                stats: StatsRecordOptions::default(),
            }],
            fast: Some(FileOutput {
                filename: "fast.log".into(),
                append: false,
            }),
            stats_log: None,
            stats_interval: None,
            pcap_filename: None,
            file_store: None,
            tls_store: None,
            sensor_name: None,
        }
    }
}

/// One `eve-log` output.
#[derive(Clone, Debug, PartialEq)]
pub struct EveOutput {
    /// Where its records go; a file or socket path relative to the log directory.
    pub sink: SinkSpec,
    /// `alert` is among its types.
    pub alerts: bool,
    /// Its other record types.
    pub types: EveTypes,
    /// Its options (per type and output-wide).
    pub options: EveOptions,
    /// Its `types: - stats:` options.
    pub stats: StatsRecordOptions,
}

impl EveOutput {
    /// Whether records of `event_type` go to this output.
    pub fn wants(&self, event_type: &str) -> bool {
        if event_type == "alert" {
            self.alerts
        } else if event_type == "packet" {
            // Tagged packets go with the alerts where `tagged-packets` asks for them.
            self.alerts && self.options.alert.tagged_packets
        } else {
            self.types.get(event_type).is_some()
        }
    }
}

/// A text output written to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOutput {
    /// `filename`, relative to the log directory (or absolute).
    pub filename: PathBuf,
    /// `append` (default yes, as Suricata).
    pub append: bool,
}

/// The `stats` output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsLogOutput {
    /// Its file.
    pub file: FileOutput,
    /// `totals` (default yes): the merged counters.
    pub totals: bool,
    /// `threads` (default no): each worker's counters.
    pub threads: bool,
    /// `null-values` (default no): counters at zero are written too.
    pub null_values: bool,
}

/// A yes/no value as Suricata reads it; `None` when absent or not a boolean.
fn boolean(v: Option<&Value>) -> Option<bool> {
    let s = scalar_string(v?)?.to_ascii_lowercase();
    match s.as_str() {
        "yes" | "true" | "on" | "1" | "enable" | "enabled" => Some(true),
        "no" | "false" | "off" | "0" | "disable" | "disabled" => Some(false),
        _ => None,
    }
}

/// Collects what an entry has that Osprey does not implement.
struct Unused<'a> {
    names: &'a mut Vec<String>,
}

impl Unused<'_> {
    /// Names every key of `m` (under `path`) that is not in `known` and not turned off.
    fn keys(&mut self, path: &str, m: Option<&Value>, known: &[&str]) {
        let Some(Value::Mapping(m)) = m else {
            return;
        };
        for (k, v) in m {
            let k = scalar_string(k).unwrap_or_default();
            // Something turned off (`pcap-file: no`, `xff: {enabled: no}`) asks for
            // nothing Osprey leaves out.
            let off = boolean(Some(v)) == Some(false)
                || (v.is_mapping() && boolean(v.get("enabled")) == Some(false));
            if !off && !known.contains(&k.as_str()) {
                self.names.push(format!("{path}.{k}"));
            }
        }
    }
}

/// Reads the `outputs:` and `stats:` sections; notices name what is ignored. An
/// `eve-log` with an unknown `filetype` is an error, as in Suricata.
pub(crate) fn read(config: &Config, notices: &mut Vec<String>) -> Result<OutputsConfig, String> {
    let stats_interval = stats_interval(config);
    // Read by the binary before setting up (`super::log_dir`): counts as used here.
    let _ = config.get("default-log-dir");
    let sensor_name = crate::cluster::sensor_name(config);
    if !config.get_present("outputs") {
        return Ok(OutputsConfig {
            sensor_name,
            ..OutputsConfig::default()
        });
    }
    let mut out = OutputsConfig {
        eve: Vec::new(),
        fast: None,
        stats_log: None,
        stats_interval,
        pcap_filename: None,
        file_store: None,
        tls_store: None,
        sensor_name,
    };
    let mut unused = Vec::new();
    let mut ignored_types = Vec::new();
    let mut not_enabled = Vec::new();
    let entries = match config.get("outputs") {
        Some(Value::Sequence(list)) => list.clone(),
        _ => Vec::new(),
    };
    for (i, entry) in entries.iter().enumerate() {
        let Some((kind, body)) = entry.as_mapping().and_then(|m| m.iter().next()) else {
            continue;
        };
        let kind = scalar_string(kind).unwrap_or_default();
        let path = format!("outputs.{i}.{kind}");
        // As Suricata: an output is written only with `enabled: yes`.
        match boolean(body.get("enabled")) {
            Some(true) => {}
            Some(false) => continue,
            None => {
                not_enabled.push(path);
                continue;
            }
        }
        let mut u = Unused { names: &mut unused };
        match kind.as_str() {
            "eve-log" => {
                let eve = eve_output(&path, body, &mut u, &mut ignored_types)?;
                out.eve.push(eve);
            }
            "fast" => {
                u.keys(&path, Some(body), &["enabled", "filename", "append"]);
                out.fast = Some(file_output(body, "fast.log"));
            }
            "stats" => {
                u.keys(
                    &path,
                    Some(body),
                    &[
                        "enabled",
                        "filename",
                        "append",
                        "totals",
                        "threads",
                        "null-values",
                    ],
                );
                out.stats_log = Some(StatsLogOutput {
                    file: file_output(body, "stats.log"),
                    totals: boolean(body.get("totals")).unwrap_or(true),
                    threads: boolean(body.get("threads")).unwrap_or(false),
                    null_values: boolean(body.get("null-values")).unwrap_or(false),
                });
            }
            "file-store" => match super::file_store::read(&path, body, &mut unused) {
                Ok(fs) => out.file_store = Some(fs),
                Err(e) => notices.push(e),
            },
            "tls-store" => {
                u.keys(&path, Some(body), &["enabled", "certs-log-dir"]);
                out.tls_store = Some(super::tls_store::TlsStoreOutput::read(body));
            }
            _ => unused.push(path),
        }
    }
    if out.stats_interval.is_none() && (out.stats_log.is_some() || stats_wanted(&out)) {
        notices.push(
            "statistics outputs (stats.log, eve-log stats) configured but `stats: enabled` \
             is no: none written"
                .into(),
        );
    }
    if !ignored_types.is_empty() {
        notices.push(format!(
            "eve-log types not written by Osprey (ignored): {}",
            ignored_types.join(", ")
        ));
    }
    if !not_enabled.is_empty() {
        notices.push(format!(
            "outputs without `enabled: yes` are not written (as in Suricata): {}",
            not_enabled.join(", ")
        ));
    }
    if !unused.is_empty() {
        notices.push(format!(
            "outputs settings not implemented by Osprey (ignored): {}",
            unused.join(", ")
        ));
    }
    check_shared_options(&out, notices);
    Ok(out)
}

/// Whether an `eve-log` output asks for `stats` records.
fn stats_wanted(out: &OutputsConfig) -> bool {
    out.eve.iter().any(|e| e.wants("stats"))
}

/// The top-level `stats:` section: `None` when `enabled: no`.
fn stats_interval(config: &Config) -> Option<Duration> {
    if config.get_bool("stats.enabled") == Some(false) {
        return None;
    }
    let secs = config
        .get_str("stats.interval")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(DEFAULT_STATS_INTERVAL);
    Some(Duration::from_secs(secs))
}

/// `filename` (default `default`) and `append` (default yes).
fn file_output(body: &Value, default: &str) -> FileOutput {
    FileOutput {
        filename: body
            .get("filename")
            .and_then(scalar_string)
            .unwrap_or_else(|| default.into())
            .into(),
        append: boolean(body.get("append")).unwrap_or(true),
    }
}

/// Keys of an `eve-log` entry Osprey reads.
const EVE_KEYS: &[&str] = &[
    "enabled",
    "filetype",
    "filename",
    "append",
    "types",
    "community-id",
    "community-id-seed",
    "pcap-file",
    "ethernet",
    "threaded",
    "identity",
    "facility",
    "level",
    "redis",
];

/// One `eve-log` entry.
fn eve_output(
    path: &str,
    body: &Value,
    unused: &mut Unused<'_>,
    ignored_types: &mut Vec<String>,
) -> Result<EveOutput, String> {
    unused.keys(path, Some(body), EVE_KEYS);
    let file = file_output(body, "eve.json");
    let filetype = body
        .get("filetype")
        .and_then(scalar_string)
        .unwrap_or_else(|| "regular".into());
    let text = |k: &str, d: &str| body.get(k).and_then(scalar_string).unwrap_or(d.into());
    let sink = match filetype.as_str() {
        "regular" | "file" => SinkSpec::File {
            path: file.filename,
            append: file.append,
        },
        "unix_stream" => SinkSpec::UnixStream {
            path: file.filename,
        },
        "unix_dgram" => SinkSpec::UnixDgram {
            path: file.filename,
        },
        "syslog" => SinkSpec::Syslog {
            identity: text("identity", "suricata"),
            facility: text("facility", "local0"),
            level: text("level", "Info"),
        },
        "redis" => SinkSpec::Redis(redis(&format!("{path}.redis"), body.get("redis"), unused)?),
        other => {
            return Err(format!(
                "{path}.filetype: invalid value {other:?} (regular, unix_stream, unix_dgram, \
                 syslog or redis)"
            ))
        }
    };
    if boolean(body.get("threaded")) == Some(true) {
        // One file for all workers (lines are whole); eve.N.json per worker is not made.
        unused.names.push(format!(
            "{path}.threaded (one file is written for all workers)"
        ));
    }
    let mut eve = EveOutput {
        sink,
        alerts: false,
        types: EveTypes::default(),
        options: EveOptions::default(),
        stats: StatsRecordOptions::default(),
    };
    let o = &mut eve.options;
    if let Some(v) = boolean(body.get("community-id")) {
        o.community_id = v;
    }
    if let Some(seed) = body.get("community-id-seed").and_then(scalar_string) {
        o.community_id_seed = seed.trim().parse().map_err(|_| {
            format!("{path}.community-id-seed: {seed:?} is not a number from 0 to 65535")
        })?;
    }
    if let Some(v) = boolean(body.get("ethernet")) {
        o.ethernet = v;
    }
    if let Some(v) = boolean(body.get("pcap-file")) {
        o.pcap_file = v;
    }
    if let Some(Value::Sequence(list)) = body.get("types") {
        for entry in list {
            eve_type(path, entry, &mut eve, unused, ignored_types);
        }
    }
    Ok(eve)
}

/// Per-type option keys Osprey reads (`enabled` and `extended` for every type).
fn type_keys(name: &str) -> &'static [&'static str] {
    match name {
        "alert" => &[
            "enabled",
            "payload",
            "payload-printable",
            "payload-buffer-size",
            "packet",
            "metadata",
            "http-body",
            "http-body-printable",
            "tagged-packets",
        ],
        // `packethdr` (the packet's header in anomaly records) and the alerts'
        // `verdict` are not implemented: named in the warning when turned on.
        "anomaly" => &["enabled", "types"],
        "drop" => &["enabled", "flows", "alerts"],
        "stats" => &["enabled", "totals", "threads", "deltas"],
        "files" => &["enabled", "force-hash", "force-magic"],
        _ => &["enabled", "extended"],
    }
}

/// One entry of an `eve-log`'s `types` (a name, or a one-key map with its options).
fn eve_type(
    path: &str,
    entry: &Value,
    eve: &mut EveOutput,
    unused: &mut Unused<'_>,
    ignored_types: &mut Vec<String>,
) {
    let (name, opts) = match entry {
        Value::Mapping(m) => match m.iter().next() {
            Some((k, v)) => (scalar_string(k).unwrap_or_default(), Some(v)),
            None => return,
        },
        v => (scalar_string(v).unwrap_or_default(), None),
    };
    if boolean(opts.and_then(|o| o.get("enabled"))) == Some(false) {
        return;
    }
    let tpath = format!("{path}.types.{name}");
    unused.keys(&tpath, opts, type_keys(&name));
    let flag = |key: &str, default: bool| boolean(opts.and_then(|o| o.get(key))).unwrap_or(default);
    match name.as_str() {
        "alert" => {
            eve.alerts = true;
            let a = &mut eve.options.alert;
            a.payload = flag("payload", a.payload);
            a.payload_printable = flag("payload-printable", a.payload_printable);
            a.packet = flag("packet", a.packet);
            a.metadata = flag("metadata", a.metadata);
            a.http_body = flag("http-body", a.http_body);
            a.http_body_printable = flag("http-body-printable", a.http_body_printable);
            a.tagged_packets = flag("tagged-packets", a.tagged_packets);
            a.verdict = flag("verdict", a.verdict);
            if let Some(n) = opts
                .and_then(|o| o.get("payload-buffer-size"))
                .and_then(scalar_string)
                .and_then(|s| ::config::parse_size(&s))
            {
                a.payload_buffer_size = n as usize;
            }
            return;
        }
        "anomaly" => {
            let a = &mut eve.options.anomaly;
            a.packethdr = flag("packethdr", a.packethdr);
            let t = opts.and_then(|o| o.get("types"));
            unused.keys(
                &format!("{tpath}.types"),
                t,
                &["decode", "stream", "applayer"],
            );
            let kind =
                |key: &str, default: bool| boolean(t.and_then(|t| t.get(key))).unwrap_or(default);
            a.decode = kind("decode", a.decode);
            a.stream = kind("stream", a.stream);
            a.applayer = kind("applayer", a.applayer);
        }
        "drop" => {
            let all = opts.and_then(|o| o.get("flows")).and_then(scalar_string);
            eve.options.drop.all_flows = all.is_some_and(|f| f.eq_ignore_ascii_case("all"));
            eve.options.drop.alerts = flag("alerts", false);
        }
        "files" => {
            let names: Vec<String> = match opts.and_then(|o| o.get("force-hash")) {
                Some(Value::Sequence(l)) => l.iter().filter_map(scalar_string).collect(),
                Some(v) => scalar_string(v).into_iter().collect(),
                None => Vec::new(),
            };
            let f = &mut eve.options.files;
            f.magic = flag("force-magic", false);
            for n in names.iter().map(|n| n.trim().to_ascii_lowercase()) {
                match n.as_str() {
                    "md5" => f.md5 = true,
                    "sha1" => f.sha1 = true,
                    "sha256" => f.sha256 = true,
                    _ => unused.names.push(format!("{tpath}.force-hash.{n}")),
                }
            }
        }
        "stats" => {
            eve.stats = StatsRecordOptions {
                totals: flag("totals", true),
                threads: flag("threads", false),
                deltas: flag("deltas", false),
            };
        }
        _ => {}
    }
    if !eve.types.enable(&name, flag("extended", false)) {
        ignored_types.push(name);
    }
}

/// The `redis:` settings of an `eve-log` with `filetype: redis`.
fn redis(path: &str, r: Option<&Value>, unused: &mut Unused<'_>) -> Result<RedisSpec, String> {
    let mut spec = RedisSpec::default();
    let Some(r) = r else {
        return Ok(spec);
    };
    unused.keys(
        path,
        Some(r),
        &["server", "port", "mode", "key", "pipelining"],
    );
    if let Some(s) = r.get("server").and_then(scalar_string) {
        spec.server = s;
    }
    if let Some(p) = r.get("port").and_then(scalar_string) {
        spec.port = p
            .trim()
            .parse()
            .map_err(|_| format!("{path}.port: {p:?} is not a port number"))?;
    }
    if let Some(m) = r.get("mode").and_then(scalar_string) {
        spec.mode = RedisMode::parse(&m).ok_or_else(|| {
            format!("{path}.mode: {m:?} is not list, lpush, rpush, channel or publish")
        })?;
    }
    if let Some(k) = r.get("key").and_then(scalar_string) {
        spec.key = k;
    }
    let p = r.get("pipelining");
    unused.keys(&format!("{path}.pipelining"), p, &["enabled", "batch-size"]);
    if boolean(p.and_then(|p| p.get("enabled"))) == Some(true) {
        let size = p
            .and_then(|p| p.get("batch-size"))
            .and_then(scalar_string)
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(10);
        spec.pipelining = Some(size.max(1));
    }
    Ok(spec)
}

/// The alert and anomaly records are made once, with one output's options: the first
/// output that logs them. Another output asking for different options gets the same
/// records, and a notice says so.
fn check_shared_options(out: &OutputsConfig, notices: &mut Vec<String>) {
    let first_alert = out.eve.iter().position(|e| e.alerts);
    let first_anomaly = out.eve.iter().position(|e| e.wants("anomaly"));
    for (i, e) in out.eve.iter().enumerate() {
        if let Some(f) = first_alert.filter(|&f| f != i && e.alerts) {
            if e.options.alert != out.eve[f].options.alert {
                notices.push(format!(
                    "eve-log output {} asks for other alert options than eve-log output {}: \
                     both get the alert records of output {}",
                    i + 1,
                    f + 1,
                    f + 1
                ));
            }
        }
        if let Some(f) = first_anomaly.filter(|&f| f != i && e.wants("anomaly")) {
            if e.options.anomaly != out.eve[f].options.anomaly {
                notices.push(format!(
                    "eve-log output {} asks for other anomaly options than eve-log output \
                     {}: both get the anomaly records of output {}",
                    i + 1,
                    f + 1,
                    f + 1
                ));
            }
        }
        // `http: extended: yes` in one output and not in another: the records are
        // made once, extended.
        for t in app::registry::event_types() {
            let differs = out.eve[..i]
                .iter()
                .any(|f| matches!((f.types.get(t), e.types.get(t)), (Some(a), Some(b)) if a != b));
            if differs {
                notices.push(format!(
                    "eve-log output {}: `{t}: extended` differs from an earlier eve-log \
                     output's; both get the extended records",
                    i + 1
                ));
            }
        }
        if e.options.ethernet != out.eve[0].options.ethernet {
            notices.push(format!(
                "eve-log output {}: `ethernet` differs from the first eve-log output's; \
                 the first one's is used",
                i + 1
            ));
        }
    }
}

impl OutputsConfig {
    /// The record types the pipeline must produce: those of every eve-log output.
    pub fn union_types(&self) -> EveTypes {
        let mut t = EveTypes::default();
        for e in &self.eve {
            t.merge(e.types);
        }
        t
    }

    /// The options records are made with: the alert options of the first output that
    /// logs alerts, the anomaly options of the first that logs anomalies, the rest
    /// from the first output.
    pub fn record_options(&self) -> EveOptions {
        let mut o = self.eve.first().map(|e| e.options).unwrap_or_default();
        if let Some(e) = self.eve.iter().find(|e| e.alerts) {
            o.alert = e.options.alert;
        }
        if let Some(e) = self.eve.iter().find(|e| e.wants("anomaly")) {
            o.anomaly = e.options.anomaly;
        }
        // A digest one output forces is computed for all.
        for e in self.eve.iter().filter(|e| e.wants("fileinfo")) {
            o.files.md5 |= e.options.files.md5;
            o.files.sha1 |= e.options.files.sha1;
            o.files.sha256 |= e.options.files.sha256;
            o.files.magic |= e.options.files.magic;
        }
        o.community_id = self.eve.iter().any(|e| e.options.community_id);
        o
    }

    /// The run reads `input` (`-r`): a file's name goes into `pcap_filename`. Returns
    /// a notice when an output asks for `pcap-file` and the input is not one file (a
    /// directory: the records say `unknown`).
    pub fn set_input(&mut self, input: &std::path::Path) -> Option<String> {
        if input.is_file() || input == std::path::Path::new("-") {
            self.pcap_filename = Some(input.display().to_string());
            return None;
        }
        self.eve.iter().any(|e| e.options.pcap_file).then(|| {
            format!(
                "eve-log pcap-file: the files of {} are not named in the records                  (pcap_filename \"unknown\")",
                input.display()
            )
        })
    }

    /// `--eve-types LIST`: every eve-log output writes alerts and exactly these types
    /// (with no eve-log output, the default `eve.json` is written with them).
    pub fn override_types(&mut self, types: EveTypes) {
        if self.eve.is_empty() {
            self.eve = OutputsConfig::default().eve;
        }
        for e in &mut self.eve {
            e.alerts = true;
            e.types = types;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_yaml(text: &str) -> (Result<OutputsConfig, String>, Vec<String>) {
        let config = Config::parse(text, None).unwrap();
        let mut notices = Vec::new();
        (read(&config, &mut notices), notices)
    }

    #[test]
    fn several_eve_logs_fast_and_stats() {
        let (out, notices) = read_yaml(
            "outputs:\n\
             - fast:\n    enabled: yes\n    filename: alerts.txt\n    append: no\n\
             - eve-log:\n    enabled: yes\n    filename: alerts.json\n    community-id: yes\n    \
               community-id-seed: 7\n    types:\n      - alert:\n          payload: yes\n\
             - eve-log:\n    enabled: yes\n    filename: dns.json\n    types: [dns, {stats: {threads: yes}}]\n\
             - eve-log:\n    enabled: no\n    filename: off.json\n\
             - stats:\n    enabled: yes\n    threads: yes\n\
             - eve-log:\n    filename: forgot.json\n\
             stats:\n  interval: 3\n",
        );
        let out = out.unwrap();
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("without `enabled: yes`")
                && notices[0].contains("outputs.5.eve-log")
        );
        assert_eq!(out.eve.len(), 2);
        assert_eq!(
            out.eve[0].sink,
            SinkSpec::File {
                path: "alerts.json".into(),
                append: true
            }
        );
        assert!(out.eve[0].wants("alert") && !out.eve[0].wants("dns"));
        assert!(out.eve[0].options.alert.payload && out.eve[0].options.community_id);
        assert_eq!(out.eve[0].options.community_id_seed, 7);
        assert!(out.eve[1].wants("dns") && out.eve[1].wants("stats"));
        assert!(!out.eve[1].wants("alert"));
        assert!(out.eve[1].stats.threads && out.eve[1].stats.totals);
        assert_eq!(
            out.fast,
            Some(FileOutput {
                filename: "alerts.txt".into(),
                append: false
            })
        );
        let s = out.stats_log.clone().unwrap();
        assert_eq!(s.file.filename, PathBuf::from("stats.log"));
        assert!(s.file.append && s.threads && s.totals);
        assert_eq!(out.stats_interval, Some(Duration::from_secs(3)));
        assert!(out.union_types().get("dns").is_some());
    }

    #[test]
    fn unimplemented_keys_are_named() {
        let (out, notices) = read_yaml(
            "outputs:\n\
             - eve-log:\n    enabled: yes\n    filename: e.json\n    xff: {enabled: yes}\n    pcap-file: no\n    types:\n      \
               - http:\n          extended: yes\n          custom: [a]\n      - pgsql\n      \
               - alert:\n          tagged-packets: yes\n          verdict: no\n          payload: yes\n      \
               - anomaly:\n          packethdr: yes\n\
             - pcap-log:\n    enabled: yes\n\
             - file-store:\n    enabled: no\n",
        );
        out.unwrap();
        let all = notices.join("\n");
        assert!(all.contains("outputs.0.eve-log.xff"), "{all}");
        assert!(
            !all.contains("pcap-file"),
            "switched off: nothing left out: {all}"
        );
        assert!(all.contains("outputs.0.eve-log.types.http.custom"), "{all}");
        assert!(all.contains("types.anomaly.packethdr"), "{all}");
        assert!(
            !all.contains("verdict") && !all.contains("payload") && !all.contains("tagged"),
            "off or implemented: {all}"
        );
        assert!(all.contains("outputs.1.pcap-log"), "{all}");
        assert!(
            !all.contains("file-store"),
            "a disabled output is not reported: {all}"
        );
        assert!(all.contains("(ignored): pgsql"), "{all}");
    }

    #[test]
    fn files_type_turns_on_fileinfo_and_its_forced_hashes() {
        let (out, notices) = read_yaml(
            "outputs:\n\
             - eve-log:\n    enabled: yes\n    filename: e.json\n    types:\n      \
               - files:\n          force-magic: yes\n          force-hash: [md5, sha256, crc]\n",
        );
        let out = out.unwrap();
        assert!(out.eve[0].wants("fileinfo"));
        let f = out.record_options().files;
        assert!(f.md5 && f.sha256 && !f.sha1 && f.magic, "{f:?}");
        let all = notices.join("\n");
        assert!(!all.contains("force-magic"), "{all}");
        assert!(all.contains("types.files.force-hash.crc"), "{all}");
        let (out, _) = read_yaml(
            "outputs:\n - eve-log:\n    enabled: yes\n    types:\n      - files:\n          force-hash: sha1\n",
        );
        assert!(out.unwrap().record_options().files.sha1);
    }

    #[test]
    fn sinks_and_errors() {
        let (out, _) = read_yaml(
            "outputs:\n- eve-log:\n    enabled: yes\n    filetype: redis\n    redis:\n      server: 10.0.0.1\n      \
             port: 6380\n      mode: rpush\n      key: k\n      pipelining: {enabled: yes, batch-size: 5}\n\
             - eve-log:\n    enabled: yes\n    filetype: syslog\n    identity: ids\n\
             - eve-log:\n    enabled: yes\n    filetype: unix_dgram\n    filename: s.sock\n",
        );
        let out = out.unwrap();
        assert_eq!(
            out.eve[0].sink,
            SinkSpec::Redis(RedisSpec {
                server: "10.0.0.1".into(),
                port: 6380,
                mode: RedisMode::Rpush,
                key: "k".into(),
                pipelining: Some(5),
                host: None,
            })
        );
        assert_eq!(
            out.eve[1].sink,
            SinkSpec::Syslog {
                identity: "ids".into(),
                facility: "local0".into(),
                level: "Info".into()
            }
        );
        assert_eq!(
            out.eve[2].sink,
            SinkSpec::UnixDgram {
                path: "s.sock".into()
            }
        );
        let (bad, _) = read_yaml("outputs:\n- eve-log:\n    enabled: yes\n    filetype: kafka\n");
        assert!(bad.unwrap_err().contains("filetype"));
        // No outputs section: eve.json and fast.log, statistics off.
        let (none, _) = read_yaml("stats:\n  enabled: no\n");
        assert_eq!(none.unwrap(), OutputsConfig::default());
    }

    #[test]
    fn eve_types_override_and_shared_options() {
        let (out, notices) = read_yaml(
            "outputs:\n- eve-log:\n    enabled: yes\n    types: [{alert: {payload: yes}}]\n\
             - eve-log:\n    enabled: yes\n    filename: b.json\n    types: [alert, dns, http]\n\
             - eve-log:\n    enabled: yes\n    filename: c.json\n    types: [{http: {extended: yes}}]\n",
        );
        let mut out = out.unwrap();
        assert!(notices.iter().any(|n| n.contains("other alert options")));
        assert!(
            notices
                .iter()
                .any(|n| n.contains("output 3: `http: extended` differs")),
            "{notices:?}"
        );
        assert!(out.record_options().alert.payload);
        out.override_types(EveTypes::parse_list("http").unwrap());
        assert!(out
            .eve
            .iter()
            .all(|e| e.alerts && e.wants("http") && !e.wants("dns")));
    }
}

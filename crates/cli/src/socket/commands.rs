//! The commands of the socket, with Suricata's names, arguments and reply shapes
//! (`{"return": "OK"|"NOK", "message": ...}`).

use crate::signals::reload_and_report;
use crate::socket_mode::PcapQueue;
use engine::{Control, EngineConfig, SetupArgs};
use output::stats::StatsTree;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

/// How long `dump-counters` waits for the workers' fresh snapshots.
pub const COUNTERS_TIMEOUT: Duration = Duration::from_secs(1);

/// One reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// `"return": "OK"` or `"NOK"`.
    pub ok: bool,
    /// `"message"`, absent in the greeting's reply.
    pub message: Option<Value>,
}

impl Reply {
    /// A success carrying `message`.
    pub fn ok(message: impl Into<Value>) -> Reply {
        Reply {
            ok: true,
            message: Some(message.into()),
        }
    }

    /// A failure explained by `message`.
    pub fn nok(message: impl Into<Value>) -> Reply {
        Reply {
            ok: false,
            message: Some(message.into()),
        }
    }

    /// The JSON object sent to the client.
    pub fn to_json(&self) -> Value {
        // `message` first, as Suricata writes it (the order shows where keys keep it).
        let mut v = serde_json::Map::new();
        if let Some(m) = &self.message {
            v.insert("message".into(), m.clone());
        }
        v.insert("return".into(), (if self.ok { "OK" } else { "NOK" }).into());
        Value::Object(v)
    }
}

/// What the commands can see and act on.
pub struct Context {
    started: Instant,
    /// The run's control block (stop, rules, counters, reopen).
    pub control: Control,
    /// How to reload the rules.
    pub reload: SetupArgs,
    /// Suricata's runmode name (`single`, `workers`, `autofp`).
    pub running_mode: String,
    /// Suricata's capture-mode name (`PCAP_FILE`, `AF_PACKET_DEV`, `UNIX_SOCKET`).
    pub capture_mode: &'static str,
    /// The effective configuration (after `--include` and `--set`), for `conf-get`.
    pub config: Option<config::Config>,
    /// The memcaps in force: name as Suricata's `memcap-list`, bytes.
    pub memcaps: Vec<(&'static str, u64)>,
    /// The interfaces captured (live runs).
    pub ifaces: Vec<String>,
    /// The file queue of the unix-socket runmode.
    pub pcap: Option<Arc<PcapQueue>>,
    /// The datasets of the rules the run started with (a reload's replace them).
    lists: Option<detect::lists::Lists>,
}

/// The commands every mode has, in Suricata's order.
const BASE: &[&str] = &[
    "shutdown",
    "command-list",
    "help",
    "version",
    "uptime",
    "running-mode",
    "capture-mode",
    "conf-get",
    "dump-counters",
    "reload-rules",
    "ruleset-reload-rules",
    "ruleset-reload-nonblocking",
    "ruleset-reload-time",
    "ruleset-stats",
    "ruleset-failed-rules",
    "reopen-log-files",
    "memcap-show",
    "memcap-list",
    "dataset-add",
    "dataset-remove",
    "dataset-dump",
    "dataset-clear",
    "dataset-lookup",
];

/// Live runs add these.
const LIVE: &[&str] = &["iface-list", "iface-stat"];

impl Context {
    /// The context of a run set up with `reload` into `engine`.
    pub fn new(
        control: Control,
        reload: SetupArgs,
        engine: &EngineConfig,
        running_mode: String,
        capture_mode: &'static str,
    ) -> Context {
        let config = load_config(&reload);
        Context {
            started: Instant::now(),
            control,
            reload,
            running_mode,
            capture_mode,
            config,
            memcaps: memcaps(engine),
            ifaces: Vec::new(),
            pcap: None,
            lists: engine.detector.as_ref().map(|d| d.lists().clone()),
        }
    }

    /// The commands this run answers.
    pub fn commands(&self) -> Vec<&'static str> {
        let mut c = BASE.to_vec();
        if !self.ifaces.is_empty() {
            c.extend_from_slice(LIVE);
        }
        if self.pcap.is_some() {
            c.extend_from_slice(crate::socket_mode::COMMANDS);
        }
        c
    }

    /// Seconds since the run started.
    pub fn uptime(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// The counters now: the workers' live snapshot while packets are processed, else
    /// (unix-socket runmode, between files) those of the last file; `uptime` added.
    pub fn counters(&self) -> StatsTree {
        let live = match &self.pcap {
            Some(q) if !q.is_running() => None,
            _ => self.control.counters(COUNTERS_TIMEOUT),
        };
        let mut t = live
            .or_else(|| self.pcap.as_ref().and_then(|q| q.last_stats()))
            .unwrap_or_default();
        t.set("uptime", json!(self.uptime()));
        t
    }

    /// Runs command `name` with its `arguments` (an object or null); the reply, and
    /// whether the connection ends after it.
    pub fn execute(&self, name: &str, args: &Value) -> (Reply, bool) {
        if !self.commands().contains(&name) {
            return (Reply::nok("Unknown command"), false);
        }
        let reply = match name {
            "shutdown" => {
                self.control.stop();
                return (Reply::ok("Closing Osprey"), true);
            }
            "command-list" | "help" => {
                let c = self.commands();
                Reply::ok(json!({"count": c.len(), "commands": c}))
            }
            "version" => Reply::ok(format!("{} (osprey)", env!("CARGO_PKG_VERSION"))),
            "uptime" => Reply::ok(self.uptime()),
            "running-mode" => Reply::ok(self.running_mode.clone()),
            "capture-mode" => Reply::ok(self.capture_mode),
            "conf-get" => self.conf_get(args),
            "dump-counters" => Reply::ok(self.counters().to_json()),
            "reload-rules" | "ruleset-reload-rules" => {
                match reload_and_report(&self.control, &self.reload) {
                    Ok(_) => Reply::ok("done"),
                    Err(e) => Reply::nok(e),
                }
            }
            "ruleset-reload-nonblocking" => {
                let (control, reload) = (self.control.clone(), self.reload.clone());
                match std::thread::Builder::new()
                    .name("osprey-reload".into())
                    .spawn(move || reload_and_report(&control, &reload))
                {
                    Ok(_) => Reply::ok("done"),
                    Err(e) => Reply::nok(format!("cannot start the reload: {e}")),
                }
            }
            "ruleset-reload-time" => match self.control.ruleset() {
                Some(r) => {
                    let t = r.loaded_at.duration_since(UNIX_EPOCH).unwrap_or_default();
                    let ts = output::eve_timestamp(t.as_secs() as i64, t.subsec_micros());
                    Reply::ok(json!([{"id": 0, "last_reload": ts}]))
                }
                None => Reply::nok("no rules loaded"),
            },
            "ruleset-stats" => match self.control.ruleset() {
                Some(r) => Reply::ok(json!([{
                    "id": 0,
                    "rules_loaded": r.loaded,
                    "rules_failed": r.failed,
                    "rules_skipped": r.skipped,
                }])),
                None => Reply::nok("no rules loaded"),
            },
            "ruleset-failed-rules" => {
                let failed = self.control.ruleset().map_or(Vec::new(), |r| {
                    r.failed_messages
                        .into_iter()
                        .map(|m| json!({"tenant_id": 0, "message": m}))
                        .collect()
                });
                Reply::ok(Value::Array(failed))
            }
            "reopen-log-files" => {
                self.control.request_reopen();
                Reply::ok("done")
            }
            "memcap-show" => self.memcap_show(args),
            "memcap-list" => Reply::ok(
                self.memcaps
                    .iter()
                    .map(|(n, v)| json!({"name": n, "value": size_text(*v)}))
                    .collect::<Vec<_>>(),
            ),
            "iface-list" => Reply::ok(json!({"count": self.ifaces.len(), "ifaces": self.ifaces})),
            "iface-stat" => self.iface_stat(args),
            d if d.starts_with("dataset-") => {
                let lists = self.control.detector().map(|det| det.lists().clone());
                match lists.or_else(|| self.lists.clone()) {
                    Some(l) => super::datasets::command(&l, d, args),
                    None => Reply::nok("set not found or wrong type"),
                }
            }
            other => match &self.pcap {
                Some(q) => q.command(other, args),
                None => Reply::nok("Unknown command"),
            },
        };
        (reply, false)
    }

    fn conf_get(&self, args: &Value) -> Reply {
        let Some(key) = args.get("variable").and_then(Value::as_str) else {
            return Reply::nok("variable is not a string");
        };
        match self.config.as_ref().and_then(|c| c.get_str(key)) {
            Some(v) => Reply::ok(v),
            None => Reply::nok("Unable to get value"),
        }
    }

    fn memcap_show(&self, args: &Value) -> Reply {
        let Some(name) = args.get("config").and_then(Value::as_str) else {
            return Reply::nok("Incorrect argument: config is not a string");
        };
        match self.memcaps.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Reply::ok(json!({"value": size_text(*v)})),
            None => Reply::nok("Memcap value not found. Use 'memcap-list' to show all"),
        }
    }

    fn iface_stat(&self, args: &Value) -> Reply {
        let Some(iface) = args.get("iface").and_then(Value::as_str) else {
            return Reply::nok("Interface name is not a string");
        };
        if !self.ifaces.iter().any(|i| i == iface) {
            return Reply::nok("Interface not found");
        }
        // The workers' counters cover every interface of the run together.
        let t = self.counters();
        let get = |k: &str| t.get(k).unwrap_or(0);
        Reply::ok(json!({
            "pkts": get("osprey.capture.packets").max(get("decoder.pkts")),
            "drop": get("capture.kernel_drops"),
            "invalid-checksums": get("osprey.invalid_checksums"),
        }))
    }
}

/// The effective configuration, read as the run's setup read it.
fn load_config(args: &SetupArgs) -> Option<config::Config> {
    let mut c = match &args.config {
        Some(path) => config::Config::load(path).ok()?,
        None => config::Config::parse("", None).ok()?,
    };
    for inc in &args.includes {
        c.merge_file(inc).ok()?;
    }
    for kv in &args.sets {
        c.apply_set(kv).ok()?;
    }
    Some(c)
}

/// Osprey's memcaps, under Suricata's names.
fn memcaps(e: &EngineConfig) -> Vec<(&'static str, u64)> {
    vec![
        ("stream", e.flow.ssn_memcap as u64),
        ("stream-reassembly", e.flow.reassembly_memcap as u64),
        ("defrag", e.flow.defrag.memcap as u64),
    ]
}

/// A size as Suricata writes memcaps: `32mb`, `1gb`, `512kb`, or bytes.
fn size_text(v: u64) -> String {
    const K: u64 = 1024;
    match v {
        0 => "unlimited".into(),
        v if v % (K * K * K) == 0 => format!("{}gb", v / (K * K * K)),
        v if v % (K * K) == 0 => format!("{}mb", v / (K * K)),
        v if v % K == 0 => format!("{}kb", v / K),
        v => v.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A context over a fresh control block and the default settings.
    pub(crate) fn ctx() -> Context {
        Context::new(
            Control::new(),
            SetupArgs::default(),
            &EngineConfig::default(),
            "workers".into(),
            "PCAP_FILE",
        )
    }

    fn run(c: &Context, name: &str, args: Value) -> Value {
        c.execute(name, &args).0.to_json()
    }

    #[test]
    fn simple_commands() {
        let c = ctx();
        let v = run(&c, "version", Value::Null);
        assert_eq!(v["return"], "OK");
        assert!(v["message"].as_str().unwrap().contains("osprey"));
        assert_eq!(run(&c, "uptime", Value::Null)["message"], 0);
        assert_eq!(run(&c, "running-mode", Value::Null)["message"], "workers");
        assert_eq!(run(&c, "capture-mode", Value::Null)["message"], "PCAP_FILE");
        let list = run(&c, "command-list", Value::Null);
        assert_eq!(list["message"]["count"], BASE.len());
        assert_eq!(run(&c, "help", Value::Null), list);
        let unknown = run(&c, "pcap-file", json!({"filename": "x"}));
        assert_eq!(
            unknown,
            json!({"return": "NOK", "message": "Unknown command"})
        );
        assert_eq!(
            run(&c, "iface-list", Value::Null)["return"],
            "NOK",
            "not live"
        );
    }

    #[test]
    fn live_commands() {
        let mut c = ctx();
        c.ifaces = vec!["eth0".into()];
        let v = run(&c, "iface-list", Value::Null);
        assert_eq!(v["message"], json!({"count": 1, "ifaces": ["eth0"]}));
        assert_eq!(
            run(&c, "iface-stat", json!({"iface": "eth1"}))["return"],
            "NOK"
        );
        let s = run(&c, "iface-stat", json!({"iface": "eth0"}));
        assert_eq!(s["message"]["pkts"], 0, "{s}");
    }

    #[test]
    fn counters_conf_and_memcaps() {
        let c = ctx();
        let v = run(&c, "dump-counters", Value::Null);
        assert_eq!(v["return"], "OK");
        assert!(v["message"]["uptime"].is_u64(), "{v}");
        assert_eq!(run(&c, "conf-get", json!({}))["return"], "NOK");
        let v = run(&c, "conf-get", json!({"variable": "no.such.key"}));
        assert_eq!(v["message"], "Unable to get value");
        let list = run(&c, "memcap-list", Value::Null);
        assert_eq!(list["message"].as_array().unwrap().len(), 3);
        let d = EngineConfig::default().flow.defrag.memcap as u64;
        let v = run(&c, "memcap-show", json!({"config": "defrag"}));
        assert_eq!(v["message"]["value"], size_text(d));
        let v = run(&c, "memcap-show", json!({"config": "nope"}));
        assert_eq!(v["return"], "NOK");
        assert_eq!(size_text(32 << 20), "32mb");
        assert_eq!(size_text(1 << 30), "1gb");
        assert_eq!(size_text(1000), "1000");
    }

    #[test]
    fn conf_get_reads_the_effective_config() {
        let dir = std::env::temp_dir().join(format!("osprey-confget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let yaml = dir.join("s.yaml");
        std::fs::write(
            &yaml,
            "%YAML 1.1\n---\nunix-command:\n  enabled: yes\n  filename: a.sock\n",
        )
        .unwrap();
        let args = SetupArgs {
            config: Some(yaml),
            sets: vec!["unix-command.filename=b.sock".into()],
            ..SetupArgs::default()
        };
        let c = Context::new(
            Control::new(),
            args,
            &EngineConfig::default(),
            "workers".into(),
            "PCAP_FILE",
        );
        let v = run(&c, "conf-get", json!({"variable": "unix-command.filename"}));
        assert_eq!(v, json!({"return": "OK", "message": "b.sock"}));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn rules_reopen_and_shutdown() {
        let c = ctx();
        assert_eq!(run(&c, "ruleset-stats", Value::Null)["return"], "NOK");
        assert_eq!(
            run(&c, "ruleset-failed-rules", Value::Null)["message"],
            json!([])
        );
        c.control.set_ruleset(engine::RulesetInfo {
            loaded: 2,
            failed: 1,
            skipped: 3,
            failed_messages: vec!["a.rules:1:1: error: bad".into()],
            loaded_at: UNIX_EPOCH + Duration::from_secs(1_210_953_054),
        });
        let v = run(&c, "ruleset-stats", Value::Null);
        assert_eq!(
            v["message"],
            json!([{"id": 0, "rules_loaded": 2, "rules_failed": 1, "rules_skipped": 3}])
        );
        let v = run(&c, "ruleset-reload-time", Value::Null);
        assert_eq!(
            v["message"][0]["last_reload"],
            // The load time, in the local zone as every EVE time.
            output::eve_timestamp(1_210_953_054, 0)
        );
        let v = run(&c, "ruleset-failed-rules", Value::Null);
        assert_eq!(v["message"][0]["message"], "a.rules:1:1: error: bad");
        assert_eq!(run(&c, "reopen-log-files", Value::Null)["message"], "done");
        assert_eq!(c.control.reopen_generation(), 1);
        let (r, close) = c.execute("shutdown", &Value::Null);
        assert!(r.ok && close && c.control.is_stopped());
    }

    #[test]
    fn failed_reload_keeps_rules() {
        let mut c = ctx();
        c.reload = SetupArgs {
            exclusive_rules: Some(std::path::PathBuf::from("/nonexistent/osprey.rules")),
            strict: true,
            ..SetupArgs::default()
        };
        assert_eq!(run(&c, "reload-rules", Value::Null)["return"], "NOK");
        assert_eq!(c.control.rules_generation(), 0);
    }
}

//! Running the engines: Suricata 7.0.10 (an external program: `suricata` on the `PATH`,
//! with the stock configuration and an include that keeps only the alert records) and
//! Osprey (the binary given), and reading what they alerted on and which rules they
//! refused.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The configuration both engines read.
pub const SURICATA_YAML: &str = "/etc/suricata/suricata.yaml";

/// The include that makes eve.json hold only alerts (as the reference corpus was made).
pub const ALERT_ONLY_YAML: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// [`ALERT_ONLY_YAML`] for the IPS runs (`--simulate-ips`): the alerts also log their
/// `payload`, which [`AlertKey`] then compares (Suricata 7.0.10 rewrites no payload
/// there, its `replace` needs NFQ mode, but what an inline stream logs differs from
/// IDS mode's). Suricata merges an included `outputs` list into the stock one item by
/// item, so its stock `outputs.1` eve-log keeps writing `eve.json`: [`Mode::args`]
/// turns the payload on there too.
pub const IPS_ALERT_YAML: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      filename: eve.json\n      types:\n        - alert:\n            payload: yes\n";

/// How both engines run a batch: as an IDS (the default) or as an inline IPS on the
/// capture (`--simulate-ips`, alerts compared with their payloads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// `-r` alone.
    #[default]
    Ids,
    /// `-r` with `--simulate-ips`.
    SimulateIps,
}

impl Mode {
    /// The arguments the mode adds to both engines' command lines.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            Mode::Ids => &[],
            Mode::SimulateIps => &[
                "--simulate-ips",
                "--set",
                "outputs.1.eve-log.types.0.alert.payload=yes",
            ],
        }
    }
}

/// What the comparison looks at in an alert: sid, source, source port, destination,
/// destination port, protocol, pcap_cnt (absent on pseudo packets).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AlertKey {
    /// Signature id.
    pub sid: u32,
    /// Source address (empty: the alert has none, a packet whose IP header did not
    /// decode).
    pub src: String,
    /// Source port (absent for ICMP).
    pub sport: Option<u16>,
    /// Destination address.
    pub dst: String,
    /// Destination port.
    pub dport: Option<u16>,
    /// Protocol as logged (`TCP`, `UDP`, `ICMP`, `IPv6-ICMP`).
    pub proto: String,
    /// The packet's number in the capture.
    pub pcap_cnt: Option<u64>,
    /// The alert's `payload` (base64) when the run logs it: the IPS runs do
    /// ([`IPS_ALERT_YAML`]), to compare what a packet carried when it alerted.
    pub payload: Option<String>,
}

impl AlertKey {
    /// Reads one EVE record; `None` unless it is an alert. An alert on a packet whose IP
    /// header did not decode has no addresses (a `decode-event` rule's): it is kept,
    /// with empty ones.
    pub fn from_eve(v: &serde_json::Value) -> Option<AlertKey> {
        if v.get("event_type")?.as_str()? != "alert" {
            return None;
        }
        let port = |k: &str| v.get(k).and_then(|p| p.as_u64()).map(|p| p as u16);
        let addr = |k: &str| {
            v.get(k)
                .and_then(|a| a.as_str())
                .unwrap_or_default()
                .to_string()
        };
        Some(AlertKey {
            sid: v.get("alert")?.get("signature_id")?.as_u64()? as u32,
            src: addr("src_ip"),
            sport: port("src_port"),
            dst: addr("dest_ip"),
            dport: port("dest_port"),
            proto: addr("proto").to_ascii_uppercase(),
            pcap_cnt: v.get("pcap_cnt").and_then(|c| c.as_u64()),
            payload: v
                .get("payload")
                .and_then(|p| p.as_str())
                .map(str::to_string),
        })
    }

    /// The reduced record the corpus keeps in `expected.jsonl`.
    pub fn corpus_json(&self) -> serde_json::Value {
        let mut o = serde_json::Map::new();
        o.insert("signature_id".into(), self.sid.into());
        if !self.src.is_empty() {
            o.insert("src_ip".into(), self.src.clone().into());
        }
        if let Some(p) = self.sport {
            o.insert("src_port".into(), p.into());
        }
        if !self.dst.is_empty() {
            o.insert("dest_ip".into(), self.dst.clone().into());
        }
        if let Some(p) = self.dport {
            o.insert("dest_port".into(), p.into());
        }
        if !self.proto.is_empty() {
            o.insert("proto".into(), self.proto.clone().into());
        }
        if let Some(c) = self.pcap_cnt {
            o.insert("pcap_cnt".into(), c.into());
        }
        if let Some(p) = &self.payload {
            o.insert("payload".into(), p.clone().into());
        }
        serde_json::Value::Object(o)
    }
}

/// The alerts of an eve.json, in file order.
pub fn read_alerts(eve: &Path) -> std::io::Result<Vec<AlertKey>> {
    let text = std::fs::read_to_string(eve)?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| AlertKey::from_eve(&v))
        .collect())
}

/// One engine run.
#[derive(Debug, Default)]
pub struct Run {
    /// Alerts by sid.
    pub alerts: HashMap<u32, Vec<AlertKey>>,
    /// Line numbers (1-based) of the rule file the engine refused.
    pub rejected_lines: BTreeSet<usize>,
    /// Attempts it took (Suricata runs that crashed are retried).
    pub attempts: u32,
}

fn group(alerts: Vec<AlertKey>) -> HashMap<u32, Vec<AlertKey>> {
    let mut m: HashMap<u32, Vec<AlertKey>> = HashMap::new();
    for a in alerts {
        m.entry(a.sid).or_default().push(a);
    }
    for v in m.values_mut() {
        v.sort();
    }
    m
}

/// The protocols Suricata's stock configuration leaves off (`enabled: no`) that the
/// ICS families need, turned on for both engines with `--set` (their detection ports
/// stay the configuration's: Modbus 502, DNP3 20000, ENIP 44818).
pub const APP_LAYER_SETS: &[&str] = &[
    "app-layer.protocols.modbus.enabled=yes",
    "app-layer.protocols.dnp3.enabled=yes",
    "app-layer.protocols.enip.enabled=yes",
];

/// `--set` and each of [`APP_LAYER_SETS`].
pub fn app_layer_args() -> Vec<&'static str> {
    APP_LAYER_SETS.iter().flat_map(|s| ["--set", s]).collect()
}

/// The settings every run of both engines gets besides [`APP_LAYER_SETS`]: rule-relative
/// files (Lua scripts, which Suricata 7.0.10 looks up in `default-rule-path`) are found
/// in the rule file's directory, and Lua rules are allowed (`security.lua.allow-rules`,
/// off in the stock configuration).
pub fn run_sets(rules: &Path) -> Vec<String> {
    let dir = rules_dir(rules);
    let mut v: Vec<String> = APP_LAYER_SETS.iter().map(|s| s.to_string()).collect();
    v.push(format!("default-rule-path={}", dir.display()));
    v.push("security.lua.allow-rules=yes".into());
    if let Ok(extra) = EXTRA_SETS.lock() {
        v.extend(extra.iter().cloned());
    }
    v
}

/// Settings the run adds for both engines (`difftest --set KEY=VALUE`).
static EXTRA_SETS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Adds `kv` (`KEY=VALUE`) to the settings both engines get ([`run_sets`]), e.g.
/// `app-layer.protocols.http.libhtp.default-config.lzma-enabled=yes`.
pub fn add_set(kv: String) {
    if let Ok(mut v) = EXTRA_SETS.lock() {
        v.push(kv);
    }
}

/// `--set` and each of [`run_sets`].
pub fn run_args(rules: &Path) -> Vec<String> {
    run_sets(rules)
        .into_iter()
        .flat_map(|s| ["--set".to_string(), s])
        .collect()
}

/// The absolute directory of a rule file.
fn rules_dir(rules: &Path) -> PathBuf {
    let dir = rules
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// The name of the IP reputation categories file a batch writes next to its rules when
/// a case uses `iprep` ([`IPREP_FILES`] name the reputation files).
pub const IPREP_CATEGORIES: &str = "iprep-categories.txt";

/// The prefix and suffix of the reputation files next to the rules (one per case that
/// uses `iprep`); all of them are given to both engines.
pub const IPREP_FILES: (&str, &str) = ("iprep-", ".list");

/// The include both engines read: alert records only, and (when the rule file's
/// directory holds [`IPREP_CATEGORIES`]) the reputation settings naming it and every
/// reputation file there.
pub fn include_yaml(rules: &Path) -> String {
    include_yaml_in(rules, Mode::Ids)
}

/// [`include_yaml`] for a run in `mode` ([`IPS_ALERT_YAML`]'s outputs in IPS mode).
pub fn include_yaml_in(rules: &Path, mode: Mode) -> String {
    let mut y = match mode {
        Mode::Ids => ALERT_ONLY_YAML,
        Mode::SimulateIps => IPS_ALERT_YAML,
    }
    .to_string();
    let dir = rules_dir(rules);
    if dir.join(IPREP_CATEGORIES).is_file() {
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(IPREP_FILES.0) && n.ends_with(IPREP_FILES.1))
            .collect();
        files.sort();
        y.push_str(&format!(
            "reputation-categories-file: {}\ndefault-reputation-path: {}\nreputation-files:\n",
            dir.join(IPREP_CATEGORIES).display(),
            dir.display()
        ));
        for f in files {
            y.push_str(&format!("  - {f}\n"));
        }
    }
    y
}

/// Whether `suricata` can be run.
pub fn suricata_available() -> bool {
    Command::new("suricata")
        .arg("-V")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The line numbers in Suricata's "error parsing signature ... at line N" messages and
/// in its "Skipping signature due to missing requirements: ... at line N" ones (a rule
/// whose `requires` is not met is not loaded either; Osprey's detector skips it too).
pub fn suricata_rejections(log: &str) -> BTreeSet<usize> {
    log.lines()
        .filter(|l| {
            l.contains("error parsing signature")
                || l.contains("Skipping signature due to missing requirements")
        })
        .filter_map(|l| l.rsplit("at line ").next()?.trim().parse().ok())
        .collect()
}

/// Runs Suricata on `pcap` with `rules`, logging into `dir` (created); a run that does
/// not exit with 0 is retried, up to `tries` times.
pub fn run_suricata(pcap: &Path, rules: &Path, dir: &Path, tries: u32) -> Result<Run, String> {
    run_suricata_in(pcap, rules, dir, tries, Mode::Ids)
}

/// [`run_suricata`] in `mode`.
pub fn run_suricata_in(
    pcap: &Path,
    rules: &Path,
    dir: &Path,
    tries: u32,
    mode: Mode,
) -> Result<Run, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let include = dir.join("alert-only.yaml");
    std::fs::write(&include, include_yaml_in(rules, mode)).map_err(|e| e.to_string())?;
    let mut last = String::new();
    for attempt in 1..=tries.max(1) {
        let _ = std::fs::remove_file(dir.join("eve.json"));
        let _ = std::fs::remove_file(dir.join("suricata.log"));
        let out = Command::new("suricata")
            .arg("-c")
            .arg(SURICATA_YAML)
            .arg("--include")
            .arg(&include)
            .args(["--set", "unix-command.enabled=no"])
            .args(run_args(rules))
            .args(mode.args())
            .args(["-k", "none", "--runmode", "single", "-r"])
            .arg(pcap)
            .arg("-S")
            .arg(rules)
            .arg("-l")
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run suricata: {e}"))?;
        // The skipped rules of an unmet `requires` are told at the Info level, which
        // only the log file holds.
        let log = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout)
            + &skipped_lines(&dir.join("suricata.log"));
        if out.status.success() {
            return Ok(Run {
                alerts: group(read_alerts(&dir.join("eve.json")).map_err(|e| e.to_string())?),
                rejected_lines: suricata_rejections(&log),
                attempts: attempt,
            });
        }
        last = format!("suricata exited with {}: {}", out.status, tail(&log));
    }
    Err(last)
}

/// The "Skipping signature" lines of Suricata's log file (none when it has none).
fn skipped_lines(log: &Path) -> String {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("Skipping signature due to missing requirements"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(5)..].join("\n")
}

/// Runs Osprey (`bin`) as Suricata is run, logging into `dir` (created).
pub fn run_osprey(bin: &Path, pcap: &Path, rules: &Path, dir: &Path) -> Result<Run, String> {
    run_osprey_in(bin, pcap, rules, dir, Mode::Ids)
}

/// [`run_osprey`] in `mode`.
pub fn run_osprey_in(
    bin: &Path,
    pcap: &Path,
    rules: &Path,
    dir: &Path,
    mode: Mode,
) -> Result<Run, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let include = dir.join("alert-only.yaml");
    std::fs::write(&include, include_yaml_in(rules, mode)).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(dir.join("eve.json"));
    let out = Command::new(bin)
        .env("TZ", "UTC")
        .arg("-c")
        .arg(SURICATA_YAML)
        .arg("--include")
        .arg(&include)
        .args(run_args(rules))
        .args(mode.args())
        .args(["-k", "none", "--runmode", "single", "-r"])
        .arg(pcap)
        .arg("-S")
        .arg(rules)
        .arg("-l")
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "osprey exited with {}: {}",
            out.status,
            tail(&String::from_utf8_lossy(&out.stderr))
        ));
    }
    let mut rejected_lines = osprey_rejections(bin, rules)?;
    rejected_lines.extend(run_rejections(&String::from_utf8_lossy(&out.stderr), rules));
    Ok(Run {
        alerts: group(read_alerts(&dir.join("eve.json")).map_err(|e| e.to_string())?),
        rejected_lines,
        attempts: 1,
    })
}

/// Keywords whose rules `osprey rules check` (no configuration, no files) cannot judge:
/// Lua rules need `security.lua.allow-rules`, lists need their files and settings.
/// Their refusals are read from the run itself ([`run_rejections`]).
const RUN_JUDGED: &[&str] = &["lua", "luajit", "dataset", "datarep", "iprep"];

/// The lines of `rules` an Osprey run refused, from its messages (`osprey: error:
/// FILE:LINE:COL: ...` for a parse error, `osprey: warning: FILE:LINE: rule G:S
/// skipped: ...` for a rule the detector skipped).
pub fn run_rejections(stderr: &str, rules: &Path) -> BTreeSet<usize> {
    let at = format!("{}:", rules.display());
    stderr
        .lines()
        .filter(|l| l.starts_with("osprey: error: ") || l.contains(" skipped: "))
        .filter_map(|l| {
            let rest = &l[l.find(&at)? + at.len()..];
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            n.parse().ok()
        })
        .collect()
}

/// The lines of `rules` Osprey refuses: parse errors and rules its detector skips
/// (`osprey rules check --json`).
pub fn osprey_rejections(bin: &Path, rules: &Path) -> Result<BTreeSet<usize>, String> {
    let out = Command::new(bin)
        .args(["rules", "check", "--json"])
        .arg(rules)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| format!("osprey rules check printed no JSON: {}", tail(&text)))?;
    let mut lines = BTreeSet::new();
    let errors = v["diagnostics"].as_array().into_iter().flatten();
    for d in errors.filter(|d| d["severity"] == "error") {
        if let Some(l) = d["line"].as_u64() {
            lines.insert(l as usize);
        }
    }
    for d in v["detector"]["rules"].as_array().into_iter().flatten() {
        if RUN_JUDGED.contains(&d["keyword"].as_str().unwrap_or("")) {
            continue;
        }
        if let Some(l) = d["line"].as_u64() {
            lines.insert(l as usize);
        }
    }
    Ok(lines)
}

/// A fresh directory `name` under `base`.
pub fn fresh_dir(base: &Path, name: &str) -> std::io::Result<PathBuf> {
    let d = base.join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_read_from_suricata_messages() {
        let log = "E: detect-offset: invalid value for offset: -1.\nE: detect: error parsing signature \"alert tcp any any -> any any (sid:3;)\" from file /x/t.rules at line 3\nE: detect: error parsing signature \"x\" from file t.rules at line 17\n";
        assert_eq!(
            suricata_rejections(log).into_iter().collect::<Vec<_>>(),
            vec![3, 17]
        );
        let skipped = "Info: detect: Skipping signature due to missing requirements: alert udp any any -> any any (requires:version >= 8; sid:1;) from file dt/test.rules at line 4\n";
        assert_eq!(
            suricata_rejections(skipped).into_iter().collect::<Vec<_>>(),
            vec![4]
        );
    }

    #[test]
    fn run_rejections_are_read_from_osprey_messages() {
        let rules = Path::new("/x/b.rules");
        let err = "osprey: error: /x/b.rules:5:59: error: invalid value [dataset] (sid 5): x\n\
                   osprey: warning: /x/b.rules:12: rule 1:7 skipped: failed `lua`: y\n\
                   osprey: warning: /x/other.rules:3: rule 1:8 skipped: failed `lua`: y\n\
                   osprey: 6 rules loaded, 2 failed, 0 unsupported (0.00 s)\n";
        assert_eq!(
            run_rejections(err, rules).into_iter().collect::<Vec<_>>(),
            vec![5, 12]
        );
    }

    #[test]
    fn the_include_names_reputation_files_when_the_rules_have_them() {
        let dir = std::env::temp_dir().join(format!("difftest-iprep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rules = dir.join("t.rules");
        assert_eq!(include_yaml(&rules), ALERT_ONLY_YAML);
        std::fs::write(dir.join(IPREP_CATEGORIES), "1,a,b\n").unwrap();
        std::fs::write(dir.join("iprep-2.list"), "10.0.0.1,1,3\n").unwrap();
        std::fs::write(dir.join("iprep-10.list"), "10.0.0.2,1,3\n").unwrap();
        let y = include_yaml(&rules);
        assert!(
            y.ends_with("reputation-files:\n  - iprep-10.list\n  - iprep-2.list\n"),
            "{y}"
        );
        assert!(y.contains("reputation-categories-file: "));
        let sets = run_sets(&rules);
        assert!(sets.contains(&"security.lua.allow-rules=yes".to_string()));
        assert!(sets.iter().any(|s| s.starts_with("default-rule-path=/")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn alert_keys_read_eve_and_write_corpus_records() {
        let v: serde_json::Value = serde_json::from_str(r#"{"event_type":"alert","src_ip":"10.0.0.1","dest_ip":"10.0.0.2","proto":"IPv6-ICMP","pcap_cnt":4,"alert":{"signature_id":7}}"#).unwrap();
        let k = AlertKey::from_eve(&v).unwrap();
        assert_eq!((k.sid, k.sport, k.pcap_cnt), (7, None, Some(4)));
        assert_eq!(k.proto, "IPV6-ICMP");
        assert!(k.corpus_json().get("src_port").is_none());
        // A decoder-event alert on a packet without an IP header: no addresses.
        let v: serde_json::Value = serde_json::from_str(
            r#"{"event_type":"alert","pcap_cnt":9,"alert":{"signature_id":8}}"#,
        )
        .unwrap();
        let k = AlertKey::from_eve(&v).unwrap();
        assert_eq!((k.sid, k.src.as_str(), k.pcap_cnt), (8, "", Some(9)));
        assert!(k.corpus_json().get("src_ip").is_none());
        let flow: serde_json::Value = serde_json::from_str(r#"{"event_type":"flow"}"#).unwrap();
        assert!(AlertKey::from_eve(&flow).is_none());
    }
}

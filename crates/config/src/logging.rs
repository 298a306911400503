//! The `logging:` section of suricata.yaml: the default level and the console, file and
//! syslog outputs. Only the keys read here count as used; any other key of the section
//! (`default-log-format`, `default-output-filter`, an output's `format` or `type` ...)
//! is left for [`Config::unused_keys`](crate::Config::unused_keys) to name once.

use crate::Config;

/// Suricata's log levels, most severe first (`emergency`, `alert` and `critical` read
/// as [`LogLevel::Error`], as Suricata 7 folds them into it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Something failed.
    Error,
    /// Something is probably wrong.
    Warning,
    /// What an operator wants to see (the default console level).
    Notice,
    /// Progress and settings (`-v`).
    Info,
    /// Performance figures (`-vv`).
    Perf,
    /// Configuration details (`-vvv`).
    Config,
    /// Developer detail (`-vvvv`).
    Debug,
}

impl LogLevel {
    /// Every level, most severe first.
    pub const ALL: [LogLevel; 7] = [
        LogLevel::Error,
        LogLevel::Warning,
        LogLevel::Notice,
        LogLevel::Info,
        LogLevel::Perf,
        LogLevel::Config,
        LogLevel::Debug,
    ];

    /// Reads a level name as Suricata does (case-insensitive).
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "emergency" | "alert" | "critical" | "error" => LogLevel::Error,
            "warning" => LogLevel::Warning,
            "notice" => LogLevel::Notice,
            "info" => LogLevel::Info,
            "perf" => LogLevel::Perf,
            "config" => LogLevel::Config,
            "debug" => LogLevel::Debug,
            _ => return None,
        })
    }

    /// The name Suricata prints (`Notice`, `Warning` ...).
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "Error",
            LogLevel::Warning => "Warning",
            LogLevel::Notice => "Notice",
            LogLevel::Info => "Info",
            LogLevel::Perf => "Perf",
            LogLevel::Config => "Config",
            LogLevel::Debug => "Debug",
        }
    }

    /// The level `-v` given `count` times asks for: Notice, Info, Perf, Config, Debug.
    pub fn from_verbosity(count: u8) -> LogLevel {
        LogLevel::ALL[(2 + usize::from(count)).min(6)]
    }
}

/// `logging.outputs: - console:`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsoleOutput {
    /// Its own `level` (else the default level).
    pub level: Option<LogLevel>,
}

/// `logging.outputs: - file:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOutput {
    /// `filename`, relative to the log directory unless absolute (default `osprey.log`,
    /// Osprey's `suricata.log`).
    pub filename: String,
    /// Its own `level` (else the default level).
    pub level: Option<LogLevel>,
    /// `append` (default yes): keep what the file holds.
    pub append: bool,
}

/// `logging.outputs: - syslog:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyslogOutput {
    /// `facility` (default `local5`, as Suricata).
    pub facility: String,
    /// Its own `level` (else the default level).
    pub level: Option<LogLevel>,
}

/// The `logging:` section as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoggingSettings {
    /// `logging.default-log-level`.
    pub default_level: Option<LogLevel>,
    /// Whether the section lists `outputs` at all (without, Suricata logs to the console).
    pub outputs_listed: bool,
    /// The console output, when enabled.
    pub console: Option<ConsoleOutput>,
    /// The file output, when enabled.
    pub file: Option<FileOutput>,
    /// The syslog output, when enabled.
    pub syslog: Option<SyslogOutput>,
    /// Values that could not be read (one line each, for a warning).
    pub problems: Vec<String>,
}

impl LoggingSettings {
    /// Reads `logging:` from `config`, marking the keys it understands as used.
    pub fn read(config: &Config) -> LoggingSettings {
        let mut s = LoggingSettings::default();
        let level = |key: &str, problems: &mut Vec<String>| {
            let v = config.get_str(key)?;
            let l = LogLevel::parse(&v);
            if l.is_none() && !v.trim().is_empty() {
                problems.push(format!("{key}: unknown log level {v:?}"));
            }
            l
        };
        s.default_level = level("logging.default-log-level", &mut s.problems);
        s.outputs_listed = config.get_present("logging.outputs");
        // A disabled output is read whole (nothing below it matters, so nothing is
        // reported unused).
        let enabled = |out: &str| {
            let key = format!("logging.outputs.{out}");
            if !config.get_present(&key) {
                return false;
            }
            let on = config.get_bool(&format!("{key}.enabled")).unwrap_or(true);
            if !on {
                config.get(&key);
            }
            on
        };
        if enabled("console") {
            s.console = Some(ConsoleOutput {
                level: level("logging.outputs.console.level", &mut s.problems),
            });
        }
        if enabled("file") {
            s.file = Some(FileOutput {
                filename: config
                    .get_str("logging.outputs.file.filename")
                    .filter(|f| !f.trim().is_empty())
                    .unwrap_or_else(|| "osprey.log".into()),
                level: level("logging.outputs.file.level", &mut s.problems),
                append: config
                    .get_bool("logging.outputs.file.append")
                    .unwrap_or(true),
            });
        }
        if enabled("syslog") {
            s.syslog = Some(SyslogOutput {
                facility: config
                    .get_str("logging.outputs.syslog.facility")
                    .unwrap_or_else(|| "local5".into()),
                level: level("logging.outputs.syslog.level", &mut s.problems),
            });
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STOCK: &str = "logging:
  default-log-level: info
  default-output-filter:
  outputs:
  - console:
      enabled: yes
  - file:
      enabled: yes
      level: perf
      filename: suricata.log
      append: no
      type: json
  - syslog:
      enabled: no
      facility: local5
      format: \"[%i] <%d> -- \"
";

    #[test]
    fn stock_section() {
        let c = Config::parse(STOCK, None).unwrap();
        let s = LoggingSettings::read(&c);
        assert_eq!(s.default_level, Some(LogLevel::Info));
        assert!(s.outputs_listed);
        assert_eq!(s.console, Some(ConsoleOutput { level: None }));
        assert_eq!(
            s.file,
            Some(FileOutput {
                filename: "suricata.log".into(),
                level: Some(LogLevel::Perf),
                append: false,
            })
        );
        assert_eq!(s.syslog, None);
        assert!(s.problems.is_empty());
        // What Osprey does not implement is left for the unused-keys warning.
        let unused = c.unused_keys();
        assert!(
            unused.contains(&"logging.default-output-filter".to_string()),
            "{unused:?}"
        );
        assert!(
            unused.contains(&"logging.outputs.1.file.type".to_string()),
            "{unused:?}"
        );
        assert!(
            !unused
                .iter()
                .any(|k| k.contains("filename") || k.contains("level")),
            "{unused:?}"
        );
    }

    #[test]
    fn defaults_and_bad_levels() {
        let c = Config::parse(
            "logging:\n  default-log-level: loud\n  outputs:\n  - file: {}\n  - syslog:\n      level: debug\n",
            None,
        )
        .unwrap();
        let s = LoggingSettings::read(&c);
        assert_eq!(s.default_level, None);
        assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
        assert!(s.problems[0].contains("loud"));
        assert_eq!(s.console, None);
        let f = s.file.unwrap();
        assert_eq!((f.filename.as_str(), f.append), ("osprey.log", true));
        let sl = s.syslog.unwrap();
        assert_eq!(
            (sl.facility.as_str(), sl.level),
            ("local5", Some(LogLevel::Debug))
        );
        let none = LoggingSettings::read(&Config::parse("", None).unwrap());
        assert!(!none.outputs_listed && none.console.is_none());
    }

    #[test]
    fn levels() {
        assert_eq!(LogLevel::from_verbosity(0), LogLevel::Notice);
        assert_eq!(LogLevel::from_verbosity(1), LogLevel::Info);
        assert_eq!(LogLevel::from_verbosity(3), LogLevel::Config);
        assert_eq!(LogLevel::from_verbosity(200), LogLevel::Debug);
        assert_eq!(LogLevel::parse("Critical"), Some(LogLevel::Error));
        assert!(LogLevel::Error < LogLevel::Notice);
        for l in LogLevel::ALL {
            assert_eq!(LogLevel::parse(l.name()), Some(l));
        }
    }
}

//! Turning what the user gave (configuration file, `--set`, rule files) into an
//! [`EngineConfig`]: variables, class types, thresholds, rules compiled into a
//! detector, and the engine settings Osprey reads from a suricata.yaml.

use crate::config::{ChecksumMode, EngineConfig};
use ::config::Config;
use detect::{DetectOptions, Detector};
use rules::classification::Classifications;
use rules::threshold::ThresholdConfig;
use rules::{LoadOptions, RuleSet, Severity};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Suricata's default `classification.config`, used when the configuration names none.
const DEFAULT_CLASSIFICATION: &str = include_str!("../../../etc/classification.config");

/// What the command line asked for.
#[derive(Clone, Debug, Default)]
pub struct SetupArgs {
    /// `-c FILE`.
    pub config: Option<PathBuf>,
    /// `--include FILE` (merged over `-c`).
    pub includes: Vec<PathBuf>,
    /// `--set key=value`, in order.
    pub sets: Vec<String>,
    /// `-S FILE`: the only rule file.
    pub exclusive_rules: Option<PathBuf>,
    /// `-s FILE`: rule files added to the configuration's.
    pub extra_rules: Vec<PathBuf>,
    /// `--strict-rules`.
    pub strict: bool,
    /// `-k`.
    pub checksum: ChecksumMode,
    /// `-l DIR`.
    pub log_dir: Option<PathBuf>,
    /// `--mpm NAME`.
    pub mpm: Option<String>,
    /// `--eve-types LIST` (`alert,http,dns,tls`): replaces the event types of the
    /// configuration's `eve-log` output.
    pub eve_types: Option<String>,
    /// `--simulate-ips`: run as an inline IPS on a capture file (verdicts take effect,
    /// `stream.inline: auto` is inline, exception policies may drop).
    pub ips: bool,
}

/// The outcome of setting up.
pub struct Setup {
    /// The engine configuration to run with.
    pub engine: EngineConfig,
    /// Messages for the user (one line each): ignored keys, rule problems, summary.
    pub notices: Vec<String>,
    /// Rules loaded into the detector.
    pub rules_loaded: usize,
    /// Rules that failed to parse or validate.
    pub rules_failed: usize,
    /// Rules skipped because detection does not support them.
    pub rules_unsupported: usize,
    /// Time spent loading and compiling rules.
    pub load_time: std::time::Duration,
}

/// Reads the configuration and rules; errors are fatal (one line).
pub fn setup(args: &SetupArgs) -> Result<Setup, String> {
    build(args, false).map(|(s, _)| s)
}

/// [`setup`], plus the per-rule engine analysis (`--engine-analysis`) of the rules and
/// the detector built from them.
pub fn analyze(args: &SetupArgs) -> Result<(Setup, Vec<detect::analysis::RuleReport>), String> {
    build(args, true).map(|(s, a)| (s, a.unwrap_or_default()))
}

fn build(
    args: &SetupArgs,
    analyze: bool,
) -> Result<(Setup, Option<Vec<detect::analysis::RuleReport>>), String> {
    let start = std::time::Instant::now();
    let mut notices = Vec::new();
    let config = load_config(args)?;

    let mut engine = EngineConfig {
        checksum: args.checksum,
        log_dir: args.log_dir.clone(),
        ips: args.ips,
        ..EngineConfig::default()
    };
    apply_engine_settings(&config, &mut engine);
    engine.decoder = crate::decoder_settings::read(&config, &mut notices);
    // The binary set its log outputs up from `logging:` (see [`logging_settings`]); read
    // here too so the section's keys count as used and bad values are reported.
    notices.extend(::config::LoggingSettings::read(&config).problems);
    let mut outputs = crate::outputs::config::read(&config, &mut notices)?;
    if let Some(list) = &args.eve_types {
        let types = output::EveTypes::parse_list(list).map_err(|e| format!("--eve-types: {e}"))?;
        outputs.override_types(types);
    }
    engine.eve_types = outputs.union_types();
    engine.eve_options = outputs.record_options();
    let forced = engine.eve_options.files;
    engine.app.files.md5 |= forced.md5;
    engine.app.files.sha1 |= forced.sha1;
    engine.app.files.sha256 |= forced.sha256;
    engine.app.files.magic |= forced.magic;
    engine.outputs = outputs;

    let classifications = match config.classification_file() {
        Some(path) if path.exists() => {
            let (c, diags) = Classifications::load(&path).map_err(|d| d.to_string())?;
            notices.extend(diags.iter().map(ToString::to_string));
            c
        }
        _ => Classifications::parse(DEFAULT_CLASSIFICATION).0,
    };
    let vars = config.vars();

    let mut detect_opts = DetectOptions::default();
    if let Some(name) = &args.mpm {
        detect_opts.mpm_kind = mpm::Kind::from_name(name)
            .filter(|k| k.is_available())
            .ok_or_else(|| format!("--mpm {name}: unknown or unavailable matcher"))?;
    }
    if let Some(n) = config.get_size("packet-alert-max") {
        detect_opts.packet_alert_max = n.clamp(1, 1000) as usize;
    }
    if let Some(n) = config.get_size("pcre.match-limit") {
        detect_opts.pcre_limits.match_limit = n.clamp(1, u64::from(u32::MAX)) as u32;
    }
    if let Some(n) = config.get_size("pcre.match-limit-recursion") {
        detect_opts.pcre_limits.depth_limit = n.clamp(1, u64::from(u32::MAX)) as u32;
    }
    if let Some(order) = config.get_list("action-order") {
        let parsed: Option<Vec<_>> = order
            .iter()
            .map(|a| detect::ActionClass::parse(a))
            .collect();
        match parsed {
            Some(o) if !o.is_empty() => detect_opts.action_order = o,
            _ => notices.push(format!(
                "action-order {order:?} not understood; using the default"
            )),
        }
    }
    if let Some(path) = config.threshold_file() {
        match ThresholdConfig::load(&path) {
            Ok((t, diags)) => {
                notices.extend(diags.iter().map(ToString::to_string));
                detect_opts.thresholds = t;
            }
            Err(d)
                if args.config.is_some()
                    || args.sets.iter().any(|s| s.starts_with("threshold-file")) =>
            {
                notices.push(d.to_string())
            }
            Err(_) => {}
        }
    }

    detect_opts.lists = crate::lists::read(&config, &mut notices);
    // Lua rules: `security.lua` (7.0's allow-rules; 8.0's limits when set).
    detect_opts.lua.allow_rules = config.get_bool("security.lua.allow-rules") == Some(true);
    detect_opts.lua.rule_path = config.default_rule_path();
    if let Some(n) = config.get_size("security.lua.max-instructions") {
        detect_opts.lua.max_instructions = n.max(1);
    }
    if let Some(n) = config.get_size("security.lua.max-bytes") {
        detect_opts.lua.max_bytes = n.clamp(1, 1 << 40) as usize;
    }
    let rule_files = rule_files(args, &config, &mut notices);
    tracing::debug!(
        target: "config",
        "configuration {}; rule files: {}",
        config
            .path()
            .map_or("(defaults)".into(), |p| p.display().to_string()),
        rule_files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let load_opts = LoadOptions {
        strict: args.strict,
        classifications: Some(classifications.clone()),
        ..LoadOptions::default()
    };
    let (set, diags) = RuleSet::load(&rule_files, &vars, &load_opts);
    let mut failed = 0;
    for d in &diags {
        if d.severity == Severity::Error {
            failed += 1;
        }
        notices.push(d.to_string());
    }
    if args.strict && failed > 0 {
        return Err(format!("{failed} rule error(s) with --strict-rules"));
    }
    let (detector, ddiags) = Detector::build(&set.rules, &detect_opts, &vars);
    let no_geoip = detect_opts.lists.geoip().is_none();
    let geoip_skipped = ddiags.iter().filter(|d| no_geoip && d.keyword == "geoip");
    if geoip_skipped.clone().count() > 0 {
        notices.push(format!(
            "{} rule(s) with geoip skipped: no GeoIP database (geoip-database) loaded",
            geoip_skipped.count()
        ));
    }
    for d in ddiags
        .iter()
        .filter(|d| !(no_geoip && d.keyword == "geoip"))
    {
        let at = set.rules.get(d.rule).map_or(String::new(), |r| {
            let file = r
                .file
                .as_ref()
                .map_or("<rules>".into(), |f| f.display().to_string());
            format!("{file}:{}: ", r.line)
        });
        let what = match d.kind {
            detect::DiagKind::Unsupported => "unsupported",
            detect::DiagKind::Failed => "failed",
        };
        notices.push(format!(
            "{at}rule {}:{} skipped: {what} `{}`: {}",
            d.gid, d.sid, d.keyword, d.message
        ));
    }
    let analysis =
        analyze.then(|| detect::analysis::analyze(&set.rules, &diags, &detector, &ddiags));
    let st = detector.stats().clone();
    if args.strict && st.rules_unsupported + st.rules_failed > 0 {
        return Err(format!(
            "{} rule(s) unsupported or failed with --strict-rules",
            st.rules_unsupported + st.rules_failed
        ));
    }
    let unused = config.unused_keys();
    if !unused.is_empty() {
        notices.push(format!(
            "configuration keys not used by Osprey (ignored): {}",
            unused.join(", ")
        ));
    }
    let needs = detector.file_needs();
    engine.app.files.md5 |= needs.md5;
    engine.app.files.sha1 |= needs.sha1;
    engine.app.files.sha256 |= needs.sha256;
    engine.app.files.magic |= needs.magic;
    crate::file_store::setup(&mut engine, needs.store, &mut notices)?;
    crate::tls_store::setup(&mut engine, &mut notices)?;
    engine.detector = Some(Arc::new(detector));
    engine.classifications = Some(classifications);
    let setup = Setup {
        engine,
        notices,
        rules_loaded: st.rules_loaded,
        rules_failed: failed + st.rules_failed,
        rules_unsupported: st.rules_unsupported,
        load_time: start.elapsed(),
    };
    Ok((setup, analysis))
}

/// The `logging:` section of the configuration the arguments name, read before
/// [`setup`] so that the binary can open its log outputs first.
pub fn logging_settings(args: &SetupArgs) -> Result<::config::LoggingSettings, String> {
    Ok(::config::LoggingSettings::read(&load_config(args)?))
}

/// The configuration the arguments name: `-c` (or [`crate::default_config`]), `--include` files
/// merged in order, then the `--set` overrides (what `--dump-config` prints).
pub fn load_config(args: &SetupArgs) -> Result<Config, String> {
    let mut config = match &args.config {
        Some(path) => Config::load(path).map_err(|d| d.to_string())?,
        None => crate::default_config(),
    };
    for inc in &args.includes {
        config.merge_file(inc).map_err(|d| d.to_string())?;
    }
    for kv in &args.sets {
        config
            .apply_set(kv)
            .map_err(|e| format!("--set {kv}: {e}"))?;
    }
    Ok(config)
}

/// `-S` alone, else the configuration's rule files plus `-s`. A configured rule file
/// that does not exist is skipped with a notice, as Suricata warns and goes on.
fn rule_files(args: &SetupArgs, config: &Config, notices: &mut Vec<String>) -> Vec<PathBuf> {
    if let Some(only) = &args.exclusive_rules {
        return vec![only.clone()];
    }
    let (mut files, missing): (Vec<PathBuf>, Vec<PathBuf>) = config
        .rule_files()
        .into_iter()
        .partition(|p| Path::new(p).exists());
    notices.extend(missing.iter().map(|p| {
        format!(
            "rule file {} (from the configuration) not found; skipped",
            p.display()
        )
    }));
    files.extend(args.extra_rules.iter().cloned());
    files
}

/// The suricata.yaml keys that change what the pipeline does.
pub(crate) fn apply_engine_settings(config: &Config, engine: &mut EngineConfig) {
    // `af-packet:` is read by the live modes (`crate::inline::af_packet_plan`),
    // `unix-command:` by the binary's command socket.
    let _ = config.get("af-packet");
    let _ = config.get("unix-command");
    if let Some(secs) = config.get_str("shutdown-grace") {
        match secs.trim().parse::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 => {
                engine.shutdown_grace = std::time::Duration::from_secs_f64(s.min(86_400.0));
            }
            _ => tracing::warn!("shutdown-grace {secs:?}: not a number of seconds; using 5"),
        }
    }
    // These `pcap-file:` keys are read by the command line's file input (`-r DIR`).
    for key in [
        "continuous",
        "recursive",
        "delete-when-done",
        "delay",
        "poll-interval",
    ] {
        let _ = config.get(&format!("pcap-file.{key}"));
    }
    if let Some(b) = config.get_bool("stream.midstream") {
        engine.flow.tcp.midstream = b;
    }
    // `stream.inline: auto` (Suricata's default) is inline only in IPS mode.
    engine.flow.inline = match config.get_str("stream.inline") {
        Some(v) if v.eq_ignore_ascii_case("auto") => engine.ips,
        Some(_) => config.get_bool("stream.inline").unwrap_or(engine.ips),
        None => engine.ips,
    };
    if let Some(b) = config.get_bool("vlan.use-for-tracking") {
        engine.flow.vlan_tracking = b;
    }
    engine.flow.timeouts = crate::flow_timeouts::read(config);
    if let Some(b) = config.get_bool("stream.async-oneside") {
        engine.flow.tcp.async_oneside = b;
    }
    if let Some(b) = config.get_bool("stats.stream-events") {
        engine.flow.stream_event_stats = b;
    }
    let master =
        crate::exception::master(config.get_str("exception-policy").as_deref(), engine.ips);
    let midstream = crate::exception::midstream(
        config.get_str("stream.midstream-policy").as_deref(),
        master,
        engine.ips,
        engine.flow.tcp.midstream,
    );
    engine.flow.midstream_bypass = midstream.passes_flow();
    engine.flow.midstream_drop = midstream.drops();
    engine.flow.midstream_policy_name = midstream.stat_name().unwrap_or("bypass");
    engine.exceptions =
        crate::exception::Policies::resolve(|k| config.get_str(k), master, engine.ips);
    if let Some(memcap) = config.get_size("stream.memcap") {
        engine.flow.ssn_memcap = memcap as usize;
    }
    crate::memcaps::flow_settings(config, &mut engine.flow);
    crate::memcaps::defrag_settings(config, &mut engine.flow.defrag);
    engine.flow.host_policy = crate::host_os::read(config);
    if let Some(depth) = config.get_size("stream.reassembly.depth") {
        engine.flow.reassembly.depth = depth;
    }
    for (k, key) in ["toserver-chunk-size", "toclient-chunk-size"]
        .iter()
        .enumerate()
    {
        if let Some(size) = config.get_size(&format!("stream.reassembly.{key}")) {
            engine.flow.reassembly.raw_chunk[k] = size;
        }
    }
    if let Some(memcap) = config.get_size("stream.reassembly.memcap") {
        engine.flow.reassembly_memcap = memcap as usize;
    }
    // The application-layer memcaps (0 or unset: none, as Suricata), one budget each
    // shared by every worker.
    let app_cap = |p: &str| {
        let key = format!("app-layer.protocols.{p}.memcap");
        config
            .get_size(&key)
            .map_or(0, |v| v.min(usize::MAX as u64) as usize)
    };
    engine.app.memcaps = app::memcap::AppMemcaps::new(app_cap("http"), app_cap("ftp"));
    let http = "app-layer.protocols.http.libhtp.default-config";
    let size = |k: &str| config.get_size(&format!("{http}.{k}")).map(|v| v as usize);
    // 0 is no limit, as Suricata 7.0.10 reads it (with `response-body-limit: 0` it
    // logs and inspects whole bodies).
    let body_limit = |v: usize| if v == 0 { usize::MAX } else { v };
    if let Some(v) = size("request-body-limit") {
        engine.app.request_body_limit = body_limit(v);
    }
    if let Some(v) = size("response-body-limit") {
        engine.app.response_body_limit = body_limit(v);
    }
    if let Some(v) = size("response-body-decompress-layer-limit") {
        engine.app.response_body_decompress_layer_limit = v;
    }
    lzma_config(config, http, &mut engine.app.lzma);
    if let Some(v) = size("request-body-minimal-inspect-size") {
        engine.app.request_body_minimal_inspect_size = v;
    }
    if let Some(v) = size("request-body-inspect-window") {
        engine.app.request_body_inspect_window = v;
    }
    if let Some(v) = size("response-body-minimal-inspect-size") {
        engine.app.response_body_minimal_inspect_size = v;
    }
    if let Some(v) = size("response-body-inspect-window") {
        engine.app.response_body_inspect_window = v;
    }
    engine.app.http_body_inline = body_inline(config, http, engine.ips);
    smtp_mime(config, &mut engine.app.smtp_mime);
    engine.app.opt_in = opt_in(config);
    for &(proto, _) in app::stream_depth::CONFIGURABLE {
        let key = format!("app-layer.protocols.{}.stream-depth", proto.name());
        if let Some(v) = config.get_size(&key) {
            engine.app.stream_depths.set(proto, v);
        }
    }
}

/// The opt-in protocols (`app::registry::opt_in`) `app-layer.protocols.<name>.enabled:
/// yes` turns on, as registry bits.
fn opt_in(config: &Config) -> u64 {
    let mut on = 0;
    for (i, d) in app::registry::protocols().iter().enumerate().take(64) {
        let key = format!("app-layer.protocols.{}.enabled", d.proto.name());
        if app::registry::opt_in(d.proto) && config.get_bool(&key) == Some(true) {
            on |= 1 << i;
        }
    }
    on
}

/// `app-layer.protocols.smtp.mime`: how SMTP messages are decoded.
/// libhtp's lzma options under `http` (`libhtp.default-config`), as Suricata 7.0.10
/// reads them: `lzma-enabled` is a boolean (one lzma layer) or the number of lzma
/// layers; `lzma-memlimit` and `compression-bomb-limit` are sizes.
/// libhtp's `http-body-inline` (`auto`, the default: inline in IPS mode): HTTP bodies
/// are inspected as they arrive, without waiting for the minimal inspect sizes
/// (Suricata 7.0.10 in IPS mode alerts on a body's first packet; difftest
/// `filekw/get-chunked-*` with `--simulate-ips`).
fn body_inline(config: &Config, http: &str, ips: bool) -> bool {
    let key = format!("{http}.http-body-inline");
    match config.get_str(&key) {
        Some(v) if v.eq_ignore_ascii_case("auto") => ips,
        Some(_) => config.get_bool(&key).unwrap_or(ips),
        None => ips,
    }
}

fn lzma_config(config: &Config, http: &str, l: &mut app::http::LzmaLimits) {
    let key = format!("{http}.lzma-enabled");
    match config.get_bool(&key) {
        Some(b) => l.layers = usize::from(b),
        None => {
            if let Some(n) = config
                .get_str(&key)
                .and_then(|v| v.trim().parse::<i8>().ok())
            {
                l.layers = n.max(0) as usize;
            }
        }
    }
    if let Some(v) = config.get_size(&format!("{http}.lzma-memlimit")) {
        l.memlimit = v.min(usize::MAX as u64) as usize;
    }
    if let Some(v) = config.get_size(&format!("{http}.compression-bomb-limit")) {
        l.bomb_limit = v.min(usize::MAX as u64) as usize;
    }
}

fn smtp_mime(config: &Config, m: &mut app::smtp::mime::MimeConfig) {
    let key = |k: &str| format!("app-layer.protocols.smtp.mime.{k}");
    for (k, v) in [
        ("decode-mime", &mut m.decode_mime),
        ("decode-base64", &mut m.decode_base64),
        ("decode-quoted-printable", &mut m.decode_quoted_printable),
        ("extract-urls", &mut m.extract_urls),
        ("log-url-scheme", &mut m.log_url_scheme),
        ("body-md5", &mut m.body_md5),
    ] {
        if let Some(b) = config.get_bool(&key(k)) {
            *v = b;
        }
    }
    if let Some(v) = config.get_size(&key("header-value-depth")) {
        m.header_value_depth = v as usize;
    }
    if let Some(v) = config.get_list(&key("extract-urls-schemes")) {
        m.extract_urls_schemes = v
            .iter()
            .map(|s| s.to_ascii_lowercase().into_bytes())
            .collect();
    }
}

#[cfg(test)]
mod lzma_tests {
    use super::*;

    fn limits(yaml: &str) -> app::http::LzmaLimits {
        let config = Config::parse(yaml, None).expect("the yaml parses");
        let mut l = app::http::LzmaLimits::default();
        lzma_config(
            &config,
            "app-layer.protocols.http.libhtp.default-config",
            &mut l,
        );
        l
    }

    #[test]
    fn http_body_inline_is_auto_inline_in_ips_mode() {
        let http = "app-layer.protocols.http.libhtp.default-config";
        let head = "%YAML 1.1\n---\napp-layer:\n  protocols:\n    http:\n      libhtp:\n        default-config:\n";
        let with = |v: &str| {
            Config::parse(&format!("{head}          http-body-inline: {v}\n"), None)
                .expect("the yaml parses")
        };
        let none = Config::parse(head, None).expect("the yaml parses");
        for ips in [false, true] {
            assert_eq!(body_inline(&none, http, ips), ips);
            assert_eq!(body_inline(&with("auto"), http, ips), ips);
            assert!(body_inline(&with("yes"), http, ips));
            assert!(!body_inline(&with("no"), http, ips));
        }
    }

    #[test]
    fn lzma_options_as_suricata_names_them() {
        let head = "%YAML 1.1\n---\napp-layer:\n  protocols:\n    http:\n      libhtp:\n        default-config:\n";
        assert_eq!(limits(head), app::http::LzmaLimits::default());
        let on = limits(&format!(
            "{head}          lzma-enabled: yes\n          lzma-memlimit: 2mb\n          compression-bomb-limit: 512kb\n"
        ));
        assert_eq!(
            (on.layers, on.memlimit, on.bomb_limit),
            (1, 2 << 20, 512 << 10)
        );
        assert_eq!(
            limits(&format!("{head}          lzma-enabled: 3\n")).layers,
            3
        );
        assert_eq!(
            limits(&format!("{head}          lzma-enabled: no\n")).layers,
            0
        );
    }
}

//! The configuration Osprey runs with when no `-c` file is given: every suricata.yaml
//! key the engine reads, with the value it uses by default (what `--dump-config`
//! prints without `-c`). Built from the engine's own defaults, so the two cannot
//! drift; a test reads it back through the same code as a configuration file.

use crate::config::EngineConfig;
use ::config::Config;
use detect::{ActionClass, DetectOptions};

/// The default configuration as a [`Config`] (keys Osprey reads, defaults' values).
pub fn default_config() -> Config {
    let e = EngineConfig::default();
    let d = DetectOptions::default();
    let http = "app-layer.protocols.http.libhtp.default-config";
    let mut entries: Vec<(String, String)> = vec![
        ("stream.memcap".into(), e.flow.ssn_memcap.to_string()),
        ("stream.midstream".into(), e.flow.tcp.midstream.to_string()),
        (
            "stream.async-oneside".into(),
            e.flow.tcp.async_oneside.to_string(),
        ),
        ("stream.inline".into(), "auto".into()),
        (
            "stream.reassembly.memcap".into(),
            e.flow.reassembly_memcap.to_string(),
        ),
        (
            "stream.reassembly.depth".into(),
            e.flow.reassembly.depth.to_string(),
        ),
        (
            "stream.reassembly.toserver-chunk-size".into(),
            e.flow.reassembly.raw_chunk[0].to_string(),
        ),
        (
            "stream.reassembly.toclient-chunk-size".into(),
            e.flow.reassembly.raw_chunk[1].to_string(),
        ),
        (
            "vlan.use-for-tracking".into(),
            e.flow.vlan_tracking.to_string(),
        ),
        ("exception-policy".into(), "auto".into()),
        ("packet-alert-max".into(), d.packet_alert_max.to_string()),
        (
            "shutdown-grace".into(),
            e.shutdown_grace.as_secs().to_string(),
        ),
        (
            "pcre.match-limit".into(),
            d.pcre_limits.match_limit.to_string(),
        ),
        (
            "pcre.match-limit-recursion".into(),
            d.pcre_limits.depth_limit.to_string(),
        ),
    ];
    let a = &e.app;
    for (k, v) in [
        ("request-body-limit", a.request_body_limit),
        ("response-body-limit", a.response_body_limit),
        (
            "response-body-decompress-layer-limit",
            a.response_body_decompress_layer_limit,
        ),
        (
            "request-body-minimal-inspect-size",
            a.request_body_minimal_inspect_size,
        ),
        ("request-body-inspect-window", a.request_body_inspect_window),
        (
            "response-body-minimal-inspect-size",
            a.response_body_minimal_inspect_size,
        ),
        (
            "response-body-inspect-window",
            a.response_body_inspect_window,
        ),
    ] {
        entries.push((format!("{http}.{k}"), v.to_string()));
    }
    entries.extend(crate::flow_timeouts::entries(&e.flow.timeouts));
    // The tunnel decoders' ports of the stock suricata.yaml (Teredo on 3544 only: with
    // no `ports` set, Suricata tries Teredo on every UDP packet).
    for (name, ports) in [
        ("teredo", &e.decoder.teredo_port),
        ("vxlan", &e.decoder.vxlan_port),
        ("geneve", &e.decoder.geneve_port),
    ] {
        let (key, value) = match ports {
            wire::TunnelPorts::Off => ("enabled", "false".to_string()),
            wire::TunnelPorts::Any => ("ports", "any".to_string()),
            wire::TunnelPorts::List(l) => (
                "ports",
                l.iter().map(u16::to_string).collect::<Vec<_>>().join(","),
            ),
        };
        entries.push((format!("decoder.{name}.{key}"), value));
    }
    let order: Vec<&str> = d.action_order.iter().map(|c| action_name(*c)).collect();
    let mut config = Config::parse(&format!("action-order: [{}]\n", order.join(", ")), None)
        .expect("the default action order is valid YAML");
    for (k, v) in entries {
        config
            .set(&k, &v)
            .expect("default configuration keys are well formed");
    }
    config
}

fn action_name(c: ActionClass) -> &'static str {
    match c {
        ActionClass::Pass => "pass",
        ActionClass::Drop => "drop",
        ActionClass::Reject => "reject",
        ActionClass::Alert => "alert",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_read_back_as_the_defaults() {
        let config = default_config();
        // IDS and IPS mode: the defaults a run takes without a file, with this one.
        for ips in [false, true] {
            let mut applied = EngineConfig {
                ips,
                ..EngineConfig::default()
            };
            crate::setup::apply_engine_settings(&config, &mut applied);
            let mut d = EngineConfig {
                ips,
                ..EngineConfig::default()
            };
            crate::setup::apply_engine_settings(&Config::default(), &mut d);
            // `flow-timeouts` is the one setting whose fallback differs: a file without
            // it gets Suricata's compiled-in timeouts, a run without `-c` the stock
            // file's (see `flow_timeouts`).
            assert_eq!(applied.flow.timeouts, flow::Config::default().timeouts);
            assert_eq!(d.flow.timeouts, crate::flow_timeouts::BUILT_IN);
            d.flow.timeouts = applied.flow.timeouts;
            assert_eq!(format!("{:?}", applied.flow), format!("{:?}", d.flow));
            assert_eq!(format!("{:?}", applied.app), format!("{:?}", d.app));
            assert_eq!(
                format!("{:?}", applied.exceptions),
                format!("{:?}", d.exceptions)
            );
        }
        // The per-condition exception policies are left out: unset, they follow the
        // master switch (`--set exception-policy=...`).
        let mut c = default_config();
        c.set("exception-policy", "drop-flow").unwrap();
        let mut e = EngineConfig {
            ips: true,
            ..EngineConfig::default()
        };
        crate::setup::apply_engine_settings(&c, &mut e);
        assert!(e.flow.midstream_drop, "midstream follows the master switch");
        let order = config.get_list("action-order").unwrap();
        let parsed: Vec<_> = order.iter().filter_map(|a| ActionClass::parse(a)).collect();
        assert_eq!(parsed, DetectOptions::default().action_order);
        assert_eq!(
            config.get_size("packet-alert-max"),
            Some(DetectOptions::default().packet_alert_max as u64)
        );
    }

    #[test]
    fn smtp_mime_settings_are_read() {
        let mut c = Config::default();
        let key = |k: &str| format!("app-layer.protocols.smtp.mime.{k}");
        c.set(&key("extract-urls"), "yes").unwrap();
        c.set(&key("decode-base64"), "no").unwrap();
        c.set(&key("header-value-depth"), "300").unwrap();
        c.set(&key("extract-urls-schemes"), "HTTPS").unwrap();
        c.set(&key("log-url-scheme"), "yes").unwrap();
        let mut e = EngineConfig::default();
        crate::setup::apply_engine_settings(&c, &mut e);
        let m = &e.app.smtp_mime;
        assert!(m.extract_urls && m.log_url_scheme && m.decode_mime && !m.decode_base64);
        assert_eq!(m.header_value_depth, 300);
        assert_eq!(m.extract_urls_schemes, [b"https".to_vec()]);
    }

    #[test]
    fn a_run_without_config_reads_every_default_key() {
        let setup = crate::setup(&crate::SetupArgs::default()).unwrap();
        assert!(
            !setup
                .notices
                .iter()
                .any(|n| n.contains("not used by Osprey")),
            "{:?}",
            setup.notices
        );
    }

    #[test]
    fn a_missing_configured_rule_file_is_reported() {
        let dir = std::env::temp_dir().join(format!("osprey-missing-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("present.rules"),
            "alert ip any any -> any any (sid:1;)\n",
        )
        .unwrap();
        let yaml = format!(
            "%YAML 1.1\n---\ndefault-rule-path: {}\nrule-files:\n  - present.rules\n  - absent.rules\n",
            dir.display()
        );
        std::fs::write(dir.join("osprey.yaml"), yaml).unwrap();
        let args = crate::SetupArgs {
            config: Some(dir.join("osprey.yaml")),
            ..crate::SetupArgs::default()
        };
        let setup = crate::setup(&args).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(setup.rules_loaded, 1);
        let missing: Vec<_> = setup
            .notices
            .iter()
            .filter(|n| n.contains("not found"))
            .collect();
        assert_eq!(missing.len(), 1, "{:?}", setup.notices);
        assert!(missing[0].contains("absent.rules"), "{missing:?}");
    }
}

//! `decoder.*` settings: where the tunnel decoders run (`decoder.teredo`,
//! `decoder.vxlan`, `decoder.geneve`: `enabled` and `ports`), read as Suricata 7.0.10
//! reads them. A decoder is enabled unless `enabled` is false; `ports` is a port, a
//! list, `any` or a port variable (`$TEREDO_PORTS`, from `vars.port-groups`). Without
//! `ports`, Teredo runs on every UDP port (bug-5464-verdict-03: a configuration with no
//! `decoder:` section), VXLAN on 4789 and Geneve on 6081.

use config::Config;
use wire::{DecoderConfig, TunnelPorts};

/// The decoder settings of `config` (checksum checking is set by the caller); a port
/// setting that does not parse keeps the decoder's default and is reported in `notices`.
pub(crate) fn read(config: &Config, notices: &mut Vec<String>) -> DecoderConfig {
    let d = DecoderConfig::default();
    DecoderConfig {
        teredo_port: tunnel(config, "teredo", TunnelPorts::Any, notices),
        vxlan_port: tunnel(config, "vxlan", d.vxlan_port.clone(), notices),
        geneve_port: tunnel(config, "geneve", d.geneve_port.clone(), notices),
        ..d
    }
}

fn tunnel(
    config: &Config,
    name: &str,
    unset: TunnelPorts,
    notices: &mut Vec<String>,
) -> TunnelPorts {
    if config.get_bool(&format!("decoder.{name}.enabled")) == Some(false) {
        return TunnelPorts::Off;
    }
    let key = format!("decoder.{name}.ports");
    let Some(items) = config.get_list(&key) else {
        return unset;
    };
    let resolved: Vec<String> = items
        .iter()
        .map(|v| match v.trim().strip_prefix('$') {
            Some(var) => config
                .get_str(&format!("vars.port-groups.{var}"))
                .unwrap_or_else(|| v.clone()),
            None => v.clone(),
        })
        .collect();
    let joined = resolved.join(",");
    TunnelPorts::parse(&joined).unwrap_or_else(|| {
        notices.push(format!(
            "{key}: '{joined}' is not a port, a list of up to 4 ports or 'any'; using {unset:?}"
        ));
        unset
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_yaml(yaml: &str) -> (DecoderConfig, Vec<String>) {
        let c = Config::parse(yaml, None).expect("yaml");
        let mut notes = Vec::new();
        (read(&c, &mut notes), notes)
    }

    #[test]
    fn tunnel_ports_as_suricata_reads_them() {
        let (d, n) = read_yaml("%YAML 1.1\n---\nvars:\n  port-groups:\n    TEREDO_PORTS: 3544\n");
        assert_eq!(
            d.teredo_port,
            TunnelPorts::Any,
            "no decoder section: any port"
        );
        assert_eq!(d.vxlan_port, TunnelPorts::one(4789));
        assert_eq!(d.geneve_port, TunnelPorts::one(6081));
        assert!(n.is_empty());
        let (d, n) = read_yaml(
            "%YAML 1.1\n---\nvars:\n  port-groups:\n    TEREDO_PORTS: 3544\n\
             decoder:\n  teredo:\n    enabled: true\n    ports: $TEREDO_PORTS\n\
             \x20 vxlan:\n    enabled: false\n  geneve:\n    ports: [6081, 7000]\n",
        );
        assert_eq!(d.teredo_port, TunnelPorts::one(3544));
        assert_eq!(d.vxlan_port, TunnelPorts::Off);
        assert_eq!(d.geneve_port, TunnelPorts::List(vec![6081, 7000]));
        assert!(n.is_empty());
        let (d, n) = read_yaml("%YAML 1.1\n---\ndecoder:\n  teredo:\n    ports: nope\n");
        assert_eq!(d.teredo_port, TunnelPorts::Any);
        assert_eq!(n.len(), 1);
    }
}

//! The UDP ports a tunnel decoder looks at (`decoder.teredo.ports`,
//! `decoder.vxlan.ports`, `decoder.geneve.ports`), as Suricata 7.0.10 reads them: a
//! port, a list of up to 4 ports (`[3544, 1234]`), or `any`; Teredo with no `ports`
//! configured runs on every UDP packet (suricata.yaml: "If no ports are given, or the
//! value is set to 'any', Teredo detection runs on _all_ UDP packets").

/// Where a tunnel decoder runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TunnelPorts {
    /// Disabled (`enabled: no`).
    Off,
    /// Every UDP port.
    Any,
    /// These ports (Suricata keeps up to 4).
    List(Vec<u16>),
}

impl TunnelPorts {
    /// One port.
    pub fn one(port: u16) -> TunnelPorts {
        TunnelPorts::List(vec![port])
    }

    /// Whether the decoder runs on `port`.
    pub fn has(&self, port: u16) -> bool {
        match self {
            TunnelPorts::Off => false,
            TunnelPorts::Any => true,
            TunnelPorts::List(l) => l.contains(&port),
        }
    }

    /// Parses a port setting: `3544`, `[3544, 1234]`, `3544,1234` or `any`; `None`
    /// when a port is not a number from 1 to 65535 or there are more than 4.
    pub fn parse(s: &str) -> Option<TunnelPorts> {
        let s = s.trim();
        let inner = s
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .unwrap_or(s);
        if inner.trim().eq_ignore_ascii_case("any") {
            return Some(TunnelPorts::Any);
        }
        let ports: Vec<u16> = inner
            .split(',')
            .map(|p| p.trim().parse::<u16>().ok().filter(|&p| p > 0))
            .collect::<Option<_>>()?;
        (!ports.is_empty() && ports.len() <= 4).then_some(TunnelPorts::List(ports))
    }
}

#[cfg(test)]
mod tests {
    use super::TunnelPorts;

    #[test]
    fn parses_suricata_port_settings() {
        assert_eq!(TunnelPorts::parse("3544"), Some(TunnelPorts::one(3544)));
        assert_eq!(
            TunnelPorts::parse("[3544, 1234]"),
            Some(TunnelPorts::List(vec![3544, 1234]))
        );
        assert_eq!(TunnelPorts::parse(" any "), Some(TunnelPorts::Any));
        assert_eq!(TunnelPorts::parse("[any]"), Some(TunnelPorts::Any));
        assert_eq!(TunnelPorts::parse("70000"), None);
        assert_eq!(TunnelPorts::parse("0"), None);
        assert_eq!(TunnelPorts::parse("1,2,3,4,5"), None);
        assert_eq!(TunnelPorts::parse("$TEREDO_PORTS"), None);
        assert!(TunnelPorts::Any.has(53));
        assert!(!TunnelPorts::Off.has(3544));
        assert!(TunnelPorts::one(3544).has(3544));
        assert!(!TunnelPorts::one(3544).has(3545));
    }
}

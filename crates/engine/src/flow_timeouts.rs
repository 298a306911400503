//! `flow-timeouts:`, the per-protocol flow timeouts (seconds), read from the
//! configuration. A key the configuration does not set takes Suricata 7's compiled-in
//! value, not the stock suricata.yaml's: TCP new 30, established 300, closed 10 (checked
//! by running Suricata 7.0.10 on captures with gaps on either side of each value, with a
//! configuration without `flow-timeouts`; ips/firewall-06-tls-sni-enforce depends on the
//! closed one). A run without `-c` reads the stock values, which `defaults.rs` lists.

use ::config::Config;
use flow::Timeouts;

/// The protocol sections, in the order of `flow::Config::timeouts`.
const PROTOS: [&str; 4] = ["tcp", "udp", "icmp", "default"];

/// Suricata's compiled-in timeouts, in the order of [`PROTOS`].
pub(crate) const BUILT_IN: [Timeouts; 4] = {
    let other = Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
        bypassed: 100,
        emergency_bypassed: 50,
    };
    let tcp = Timeouts {
        new: 30,
        established: 300,
        closed: 10,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 5,
        bypassed: 100,
        emergency_bypassed: 50,
    };
    [tcp, other, other, other]
};

/// The keys of one protocol section and the field each one sets.
fn fields(t: &mut Timeouts) -> [(&'static str, &mut u32); 8] {
    [
        ("new", &mut t.new),
        ("established", &mut t.established),
        ("closed", &mut t.closed),
        ("emergency-new", &mut t.emergency_new),
        ("emergency-established", &mut t.emergency_established),
        ("emergency-closed", &mut t.emergency_closed),
        ("bypassed", &mut t.bypassed),
        ("emergency-bypassed", &mut t.emergency_bypassed),
    ]
}

/// The timeouts `config` gives, each key it lacks at Suricata's compiled-in value.
/// A value that is not a number is left at that default and named in a warning.
pub(crate) fn read(config: &Config) -> [Timeouts; 4] {
    let mut out = BUILT_IN;
    for (proto, t) in PROTOS.iter().zip(out.iter_mut()) {
        for (key, field) in fields(t) {
            let path = format!("flow-timeouts.{proto}.{key}");
            let Some(v) = config.get_str(&path) else {
                continue;
            };
            match v.trim().parse::<u32>() {
                Ok(n) => *field = n,
                Err(_) => tracing::warn!("{path}: {v:?} is not a number of seconds, ignored"),
            }
        }
    }
    out
}

/// The `flow-timeouts.*` keys and values of `timeouts` (the default configuration's).
pub(crate) fn entries(timeouts: &[Timeouts; 4]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (proto, t) in PROTOS.iter().zip(timeouts.iter()) {
        let mut t = *t;
        for (key, field) in fields(&mut t) {
            out.push((format!("flow-timeouts.{proto}.{key}"), field.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_take_the_compiled_in_values() {
        let c = Config::parse("flow-timeouts:\n  tcp:\n    new: 60\n", None).unwrap();
        let t = read(&c);
        assert_eq!(t[0].new, 60);
        assert_eq!((t[0].established, t[0].closed), (300, 10));
        assert_eq!(t[1], BUILT_IN[1]);
        let none = Config::parse("stream:\n  midstream: false\n", None).unwrap();
        assert_eq!(read(&none), BUILT_IN);
    }

    #[test]
    fn the_stock_values_round_trip_through_the_default_configuration() {
        let stock = flow::Config::default().timeouts;
        let mut c = Config::parse("{}\n", None).unwrap();
        for (k, v) in entries(&stock) {
            c.set(&k, &v).unwrap();
        }
        assert_eq!(read(&c), stock);
    }
}

//! `flow-timeouts`: how long an idle flow lives, per protocol (`default`, `tcp`, `udp`,
//! `icmp`) and flow state (`new`, `established`, `closed`, and the `emergency-*` values
//! used while the flow table is in emergency mode).
//!
//! A key the configuration does not set takes Suricata's built-in value, which is not
//! the value the stock `suricata.yaml` writes (TCP: 30/300/10 s built in, 60/600/60 s
//! in the stock file; measured with Suricata 7.0.10 on a case whose own yaml has no
//! `flow-timeouts`: an established TCP flow idle 302 s and a closed one idle 11 s start
//! anew). A run without `-c` reads the stock values from [`crate::default_config`].

use ::config::Config;
use flow::Timeouts;

/// The protocols' sections, in the order of the tracker's `timeouts` array.
const SECTIONS: [&str; 4] = ["tcp", "udp", "icmp", "default"];

/// Suricata's built-in timeouts, for keys no configuration sets.
const BUILT_IN: [Timeouts; 4] = [
    Timeouts {
        new: 30,
        established: 300,
        closed: 10,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 5,
    },
    Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
    },
    Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
    },
    Timeouts {
        new: 30,
        established: 300,
        closed: 0,
        emergency_new: 10,
        emergency_established: 100,
        emergency_closed: 0,
    },
];

/// The keys of one section with the field each sets.
fn fields(t: &mut Timeouts) -> [(&'static str, &mut u32); 6] {
    [
        ("new", &mut t.new),
        ("established", &mut t.established),
        ("closed", &mut t.closed),
        ("emergency-new", &mut t.emergency_new),
        ("emergency-established", &mut t.emergency_established),
        ("emergency-closed", &mut t.emergency_closed),
    ]
}

/// Reads `flow-timeouts.*` into the tracker's timeouts (built-in values for the keys
/// the configuration leaves out).
pub(crate) fn apply(config: &Config, flow: &mut flow::Config) {
    for (i, section) in SECTIONS.iter().enumerate() {
        let mut t = BUILT_IN[i];
        for (key, field) in fields(&mut t) {
            if let Some(v) = config.get_size(&format!("flow-timeouts.{section}.{key}")) {
                *field = v.min(u64::from(u32::MAX)) as u32;
            }
        }
        flow.timeouts[i] = t;
    }
}

/// The stock `suricata.yaml`'s `flow-timeouts`, as `(key, value)` entries for
/// [`crate::default_config`] (the tracker's own defaults are those values).
pub(crate) fn stock_entries() -> Vec<(String, String)> {
    let defaults = flow::Config::default().timeouts;
    let mut out = Vec::new();
    for (i, section) in SECTIONS.iter().enumerate() {
        let mut t = defaults[i];
        for (key, field) in fields(&mut t) {
            out.push((format!("flow-timeouts.{section}.{key}"), field.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_keys_take_the_built_in_values() {
        let c = Config::parse("flow-timeouts:\n  tcp:\n    established: 120\n", None).unwrap();
        let mut f = flow::Config::default();
        apply(&c, &mut f);
        assert_eq!(f.timeouts[0].established, 120);
        assert_eq!((f.timeouts[0].new, f.timeouts[0].closed), (30, 10));
        assert_eq!(f.timeouts[1], BUILT_IN[1]);
        // A run without a file: the stock values, which are the tracker's defaults.
        let mut stock = Config::default();
        for (k, v) in stock_entries() {
            stock.set(&k, &v).unwrap();
        }
        let mut g = flow::Config::default();
        g.timeouts = BUILT_IN;
        apply(&stock, &mut g);
        assert_eq!(g.timeouts, flow::Config::default().timeouts);
        assert_eq!((g.timeouts[0].established, g.timeouts[0].closed), (600, 60));
    }
}

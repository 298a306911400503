//! The `flow:` settings that size the flow table and its emergency mode: `flow.memcap`
//! (how many flows the engine holds, one budget for every worker), `flow.hash-size`
//! and `flow.emergency-recovery`; the `defrag:` settings (`memcap`, `hash-size`,
//! `trackers`, `max-frags`, `prealloc`, `timeout`), whose limits are for every worker
//! together too.

use ::config::Config;

/// Memory one flow entry counts against `flow.memcap` (so that Suricata's default,
/// 128 MB, holds the tracker's default number of flows).
pub(crate) const FLOW_ENTRY_BYTES: u64 = 512;

/// Reads the `flow:` settings into the tracker's configuration.
pub(crate) fn flow_settings(config: &Config, flow: &mut flow::Config) {
    if let Some(memcap) = config.get_size("flow.memcap") {
        flow.max_flows = (memcap / FLOW_ENTRY_BYTES).clamp(1, u32::MAX as u64 - 1) as usize;
    }
    if let Some(size) = config.get_size("flow.hash-size") {
        flow.hash_size = size.clamp(1, 1 << 31) as usize;
    }
    if let Some(pct) = config.get_size("flow.emergency-recovery") {
        flow.emergency_recovery = pct.min(100) as u8;
    }
}

/// Reads the `defrag:` settings into the defragmenter's limits (unset keys keep
/// Suricata's defaults: 32 MB, 65,535 trackers and fragments, 60 s).
pub(crate) fn defrag_settings(config: &Config, d: &mut flow::DefragConfig) {
    let count = |k: &str| {
        config
            .get_size(&format!("defrag.{k}"))
            .map(|v| v.clamp(1, u32::MAX as u64) as usize)
    };
    if let Some(memcap) = config.get_size("defrag.memcap") {
        d.memcap = memcap.min(usize::MAX as u64) as usize;
    }
    if let Some(n) = count("hash-size") {
        d.hash_size = n;
    }
    if let Some(n) = count("trackers") {
        d.max_trackers = n;
    }
    if let Some(n) = count("max-frags") {
        d.max_held = n;
    }
    if let Some(b) = config.get_bool("defrag.prealloc") {
        d.prealloc = b;
    }
    if let Some(t) = config.get_size("defrag.timeout") {
        d.timeout_secs = t.clamp(1, u32::MAX as u64) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_settings_are_read() {
        let c = Config::parse(
            "flow:\n  memcap: 1mb\n  hash-size: 4096\n  emergency-recovery: 40\n",
            None,
        )
        .unwrap();
        let mut f = flow::Config::default();
        flow_settings(&c, &mut f);
        assert_eq!(f.max_flows, 2048);
        assert_eq!(f.hash_size, 4096);
        assert_eq!(f.emergency_recovery, 40);
        let mut d = flow::Config::default();
        let before = d.max_flows;
        flow_settings(&Config::parse("flow: {}\n", None).unwrap(), &mut d);
        assert_eq!(d.max_flows, before);
        assert_eq!(
            before as u64 * FLOW_ENTRY_BYTES,
            128 << 20,
            "the default is Suricata's"
        );
    }

    #[test]
    fn defrag_settings_are_read() {
        let c = Config::parse(
            "defrag:\n  memcap: 2mb\n  hash-size: 1024\n  trackers: 100\n  max-frags: 500\n  \
             prealloc: yes\n  timeout: 30\n",
            None,
        )
        .unwrap();
        let mut d = flow::DefragConfig::default();
        defrag_settings(&c, &mut d);
        assert_eq!(d.memcap, 2 << 20);
        assert_eq!(d.hash_size, 1024);
        assert_eq!(d.max_trackers, 100);
        assert_eq!(d.max_held, 500);
        assert!(d.prealloc);
        assert_eq!(d.timeout_secs, 30);
        // The stock configuration's values are Suricata's defaults.
        let stock = std::path::Path::new("/etc/suricata/suricata.yaml");
        if let Ok(text) = std::fs::read_to_string(stock) {
            let mut s = flow::DefragConfig::default();
            defrag_settings(&Config::parse(&text, None).unwrap(), &mut s);
            assert_eq!(
                (s.memcap, s.max_trackers, s.max_held),
                (32 << 20, 65535, 65535)
            );
            assert_eq!((s.hash_size, s.prealloc, s.timeout_secs), (65536, true, 60));
        }
    }
}

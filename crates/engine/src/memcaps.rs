//! The `flow:` settings that size the flow table and its emergency mode: `flow.memcap`
//! (how many flows the engine holds, one budget for every worker), `flow.hash-size`
//! and `flow.emergency-recovery`.

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
}

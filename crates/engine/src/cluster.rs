//! Several sensors on one link: the `af-packet:` entry's `cluster-type` and `defrag`
//! (the fanout group's mode and flags, which every process of the group must share),
//! and the top-level `sensor-name` that names a sensor in its EVE records.
//!
//! Every live socket joins its fanout group, even in a process with one worker, so
//! several one-worker processes share a link (Suricata 7 joins only with more than one
//! thread per interface; a Suricata sensor with two threads and the same `cluster-id`,
//! `cluster-type` and `defrag` shares the group with Osprey sensors).

#[cfg(target_os = "linux")]
use capture::{Fanout, FanoutKind};

/// The fanout mode an `af-packet:` entry asks for: `cluster-type` (default
/// `cluster_flow`) and `defrag` (`PACKET_FANOUT_FLAG_DEFRAG` only with `defrag: yes`,
/// as Suricata, which recommends it for `cluster_flow`). An unknown or unsupported
/// `cluster-type` is an error.
#[cfg(target_os = "linux")]
pub(crate) fn fanout(cluster_type: Option<&str>, defrag: Option<bool>) -> Result<Fanout, String> {
    let kind = match cluster_type {
        None => FanoutKind::Flow,
        Some(t) => FanoutKind::parse(t).ok_or_else(|| {
            format!(
                "af-packet cluster-type `{t}`: Osprey knows cluster_flow, cluster_cpu, \
                 cluster_qm, cluster_round_robin, cluster_random (cluster_rollover is \
                 cluster_flow; cluster_ebpf is not supported)"
            )
        })?,
    };
    if cluster_type.is_some_and(|t| t.trim().eq_ignore_ascii_case("cluster_rollover")) {
        tracing::warn!("af-packet: cluster_rollover is deprecated; using cluster_flow instead");
    }
    let defrag = defrag.unwrap_or(false);
    if kind == FanoutKind::Flow && !defrag {
        tracing::warn!(
            "af-packet: defrag is recommended with cluster_flow (fragments of one \
             datagram may otherwise reach different sockets)"
        );
    }
    Ok(Fanout { kind, defrag })
}

/// The `sensor-name` of the configuration (a non-empty string), written as `host` in
/// every EVE record.
pub(crate) fn sensor_name(config: &::config::Config) -> Option<String> {
    config
        .get_str("sensor-name")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn cluster_type_and_defrag_as_suricata_reads_them() {
        assert_eq!(
            fanout(None, None).unwrap(),
            Fanout {
                kind: FanoutKind::Flow,
                defrag: false
            }
        );
        assert_eq!(
            fanout(Some("cluster_flow"), Some(true)).unwrap(),
            Fanout::default()
        );
        assert_eq!(
            fanout(Some("cluster_qm"), Some(true)).unwrap().kind,
            FanoutKind::Qm
        );
        assert_eq!(
            fanout(Some("cluster_rollover"), None).unwrap().kind,
            FanoutKind::Flow
        );
        let err = fanout(Some("cluster_ebpf"), None).unwrap_err();
        assert!(err.contains("cluster_ebpf"), "{err}");
        assert!(fanout(Some("flow"), None).is_err());
    }

    #[test]
    fn sensor_name_is_a_non_empty_string() {
        let c = |y: &str| ::config::Config::parse(y, None).unwrap();
        assert_eq!(
            sensor_name(&c("sensor-name: probe-1\n")).as_deref(),
            Some("probe-1")
        );
        assert_eq!(sensor_name(&c("sensor-name: 42\n")).as_deref(), Some("42"));
        assert_eq!(sensor_name(&c("sensor-name: ''\n")), None);
        assert_eq!(sensor_name(&c("outputs: []\n")), None);
    }
}

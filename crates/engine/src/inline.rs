//! Live inline IPS: two interfaces joined through Osprey, as Suricata's AF_PACKET
//! `copy-mode: ips` with `copy-iface` does. Each worker holds its own
//! [`capture::Bridge`] (both interfaces' rings in one fanout hash group per interface,
//! so a worker sees both directions of its flows), runs every frame it reads through its
//! [`Pipeline`], and sends the frame out of the other interface only when the frame's
//! IPS verdict is accept: a dropped packet (or a packet of a dropped flow) goes no
//! further, a `reject` also sends a TCP reset or an ICMP unreachable
//! ([`wire::reject`]). In `copy-mode: tap` every frame is forwarded and verdicts only
//! show in the logs.
//!
//! [`af_packet_plan`] reads the suricata.yaml `af-packet:` list the way Suricata's
//! `--af-packet[=IFACE]` does.

use crate::alerts::Outputs;
use crate::config::EngineConfig;
use crate::run::{RunError, RunReport};
use crate::runtime::live::{live_setup, run_per_source};
use crate::runtime::worker::{serve, WorkerResult};
use crate::runtime::RunOptions;
use crate::verdict::FrameVerdict;
use crate::SetupArgs;
use ::config::Config;
use capture::{Bridge, Frame, LiveOptions};
use detect::Reject;
use std::sync::Arc;
use std::time::Instant;
use wire::reject::{build_reject, RejectTo};

/// What crosses an inline bridge (Suricata's `copy-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyMode {
    /// `ips`: a frame is forwarded only when its verdict is accept; rejects are sent.
    Ips,
    /// `tap`: every frame is forwarded; verdicts are logged, not applied.
    Tap,
}

impl CopyMode {
    /// Parses a `copy-mode` value (`ips`, `tap`; anything else is not inline).
    pub fn parse(value: &str) -> Option<CopyMode> {
        match value.trim().to_ascii_lowercase().as_str() {
            "ips" => Some(CopyMode::Ips),
            "tap" => Some(CopyMode::Tap),
            _ => None,
        }
    }
}

/// Two interfaces joined inline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinePair {
    /// The first interface (`Frame::interface` 0).
    pub a: String,
    /// The second interface (`Frame::interface` 1).
    pub b: String,
    /// What crosses.
    pub mode: CopyMode,
}

impl InlinePair {
    /// Parses `A:B` (the `--af-packet-ips` value), in IPS mode.
    pub fn parse(value: &str) -> Result<InlinePair, String> {
        match value.split_once(':') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() && a != b && !b.contains(':') => {
                Ok(InlinePair {
                    a: a.to_string(),
                    b: b.to_string(),
                    mode: CopyMode::Ips,
                })
            }
            _ => Err(format!(
                "`{value}`: expected two different interfaces as IFACE_A:IFACE_B"
            )),
        }
    }
}

/// Per-worker counters of the bridge, reported under `osprey.inline.*`.
#[derive(Clone, Copy, Debug, Default)]
struct InlineCounters {
    forwarded: u64,
    forward_errors: u64,
    dropped: u64,
    rejects_sent: u64,
    reject_errors: u64,
}

impl InlineCounters {
    fn add_to(&self, stats: &mut output::stats::StatsTree) {
        stats.add("osprey.inline.forwarded", self.forwarded);
        stats.add("osprey.inline.forward_errors", self.forward_errors);
        stats.add("osprey.inline.dropped", self.dropped);
        stats.add("osprey.inline.rejects_sent", self.rejects_sent);
        stats.add("osprey.inline.reject_errors", self.reject_errors);
    }
}

/// Runs the engine inline between `pair.a` and `pair.b` with `opts.threads` workers
/// until `opts.control` is stopped. `config.ips` should be on for [`CopyMode::Ips`]
/// (verdicts take effect only then). Needs CAP_NET_RAW; the interfaces should have
/// receive offloads (GRO, LRO) off, as for Suricata's IPS mode.
pub fn run_bridge(
    pair: &InlinePair,
    live: &LiveOptions,
    config: &EngineConfig,
    opts: &RunOptions,
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    // The second interface takes the next fanout group id (see `Bridge`): keep the
    // pair in range.
    let (workers, live) = live_setup(live, opts, 0x7fff);
    let mut bridges = Vec::with_capacity(workers);
    for _ in 0..workers {
        bridges.push(Bridge::open(&pair.a, &pair.b, &live)?);
    }
    let mode = pair.mode;
    run_per_source(
        bridges,
        "osprey-ips",
        config,
        opts,
        start,
        |k, mut bridge, c, out| bridge_worker(k, &mut bridge, mode, c, out, opts),
    )
}

/// One worker: read a batch from either side, inspect each frame, forward or drop it.
fn bridge_worker(
    k: usize,
    bridge: &mut Bridge,
    mode: CopyMode,
    config: &EngineConfig,
    outputs: Arc<Outputs>,
    opts: &RunOptions,
) -> Result<WorkerResult, RunError> {
    let mut counters = InlineCounters::default();
    let mut answer = Vec::new();
    let mut result = serve(
        k,
        bridge,
        config,
        outputs,
        &opts.control,
        |p, batch, bridge| {
            p.process_frames_then(
                || batch.iter(),
                |frame, verdict| act(bridge, mode, frame, verdict, &mut answer, &mut counters),
            )
        },
    )?;
    counters.add_to(&mut result.stats);
    Ok(result)
}

/// Carries out a frame's verdict on the wire.
fn act(
    bridge: &mut Bridge,
    mode: CopyMode,
    frame: &Frame<'_>,
    verdict: FrameVerdict,
    answer: &mut Vec<u8>,
    counters: &mut InlineCounters,
) {
    if mode == CopyMode::Tap || !verdict.drop {
        if bridge.forward(frame) {
            counters.forwarded += 1;
        } else {
            counters.forward_errors += 1;
        }
        return;
    }
    counters.dropped += 1;
    let Some((reject, packet)) = verdict.reject else {
        return;
    };
    let came_in = frame.interface;
    let goes_on = came_in ^ 1;
    let targets: &[(RejectTo, u32)] = match reject {
        Reject::Src => &[(RejectTo::Source, came_in)],
        Reject::Dst => &[(RejectTo::Destination, goes_on)],
        Reject::Both => &[
            (RejectTo::Source, came_in),
            (RejectTo::Destination, goes_on),
        ],
    };
    for &(to, side) in targets {
        if !build_reject(frame.data, &packet, to, answer) {
            continue;
        }
        if bridge.send(side, answer) {
            counters.rejects_sent += 1;
        } else {
            counters.reject_errors += 1;
        }
    }
}

/// What `--af-packet[=IFACE]` runs, read from the configuration's `af-packet:` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AfPacketPlan {
    /// The interface captured on.
    pub interface: String,
    /// `copy-mode: ips|tap` with `copy-iface`: the inline pair (else passive capture).
    pub inline: Option<InlinePair>,
    /// `threads` (none for `auto` or unset).
    pub threads: Option<usize>,
    /// `cluster-id`: the fanout group id.
    pub cluster_id: Option<u16>,
    /// `cluster-type` and `defrag`: the fanout group's mode and flags.
    pub fanout: capture::Fanout,
    /// `block-size`.
    pub block_size: Option<u32>,
    /// `disable-promisc: yes` turns promiscuous mode off.
    pub promiscuous: bool,
    /// Keys of the entry Osprey does not use (`bpf-filter`, `use-mmap`, ...), for a
    /// notice.
    pub ignored_keys: Vec<String>,
}

impl AfPacketPlan {
    /// The capture options this plan changes, applied over `base`.
    pub fn live_options(&self, base: &LiveOptions) -> LiveOptions {
        let mut o = base.clone();
        if let Some(g) = self.cluster_id {
            o.fanout_group = Some(g);
        }
        o.fanout = self.fanout;
        if let Some(b) = self
            .block_size
            .filter(|b| b.is_power_of_two() && *b >= 4096)
        {
            o.block_size = b;
        }
        o.promiscuous = self.promiscuous;
        o
    }
}

/// One entry of the `af-packet:` list.
#[derive(Clone, Debug, Default)]
struct Entry {
    interface: String,
    copy_mode: Option<String>,
    copy_iface: Option<String>,
    threads: Option<String>,
    cluster_id: Option<u16>,
    cluster_type: Option<String>,
    defrag: Option<bool>,
    block_size: Option<u64>,
    disable_promisc: bool,
    ignored_keys: Vec<String>,
}

/// The `af-packet:` entry keys Osprey reads.
const KNOWN_KEYS: &[&str] = &[
    "interface",
    "copy-mode",
    "copy-iface",
    "threads",
    "cluster-id",
    "block-size",
    "cluster-type",
    "defrag",
    "disable-promisc",
];

fn entries(config: &Config) -> Vec<Entry> {
    let mut out = Vec::new();
    // Bounded: a hostile configuration cannot make this loop forever.
    for i in 0..1024 {
        let key = |k: &str| format!("af-packet.{i}.{k}");
        let Some(interface) = config.get_str(&key("interface")) else {
            if config.get(&format!("af-packet.{i}")).is_none() {
                break;
            }
            continue;
        };
        out.push(Entry {
            interface,
            copy_mode: config.get_str(&key("copy-mode")),
            copy_iface: config.get_str(&key("copy-iface")),
            threads: config.get_str(&key("threads")),
            cluster_id: config
                .get_size(&key("cluster-id"))
                .and_then(|v| u16::try_from(v).ok()),
            cluster_type: config.get_str(&key("cluster-type")),
            defrag: config.get_bool(&key("defrag")),
            block_size: config.get_size(&key("block-size")),
            disable_promisc: config.get_bool(&key("disable-promisc")).unwrap_or(false),
            ignored_keys: config
                .get(&format!("af-packet.{i}"))
                .and_then(|v| v.as_mapping())
                .map(|m| {
                    m.keys()
                        .filter_map(|k| k.as_str())
                        .filter(|k| !KNOWN_KEYS.contains(k))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    out
}

/// Reads the `af-packet:` list of the configuration `args` name (`-c`, `--include`,
/// `--set`) as Suricata's `--af-packet[=IFACE]` does: with `iface`, its entry (or the
/// `default` entry's settings for it); without, the one interface listed, or the two
/// interfaces of one `copy-mode: ips|tap` pair. An entry with `copy-mode` and
/// `copy-iface` makes the run inline between the two (both directions: the reverse
/// entry, which Suricata also needs, may be left out). Osprey runs one interface or one
/// inline pair per process: anything more is an error.
pub fn af_packet_plan(args: &SetupArgs, iface: Option<&str>) -> Result<AfPacketPlan, String> {
    if args.config.is_none() {
        return Err("--af-packet needs a configuration file (-c) with an af-packet: list; or use -i IFACE or --af-packet-ips A:B".into());
    }
    let config = crate::setup::load_config(args)?;
    plan_from_entries(&entries(&config), iface)
}

fn plan_from_entries(all: &[Entry], iface: Option<&str>) -> Result<AfPacketPlan, String> {
    let listed: Vec<&Entry> = all.iter().filter(|e| e.interface != "default").collect();
    let entry = match iface {
        Some(name) => match listed.iter().find(|e| e.interface == name) {
            Some(e) => (*e).clone(),
            None => match all.iter().find(|e| e.interface == "default") {
                Some(d) => Entry {
                    interface: name.to_string(),
                    ..d.clone()
                },
                None => Entry {
                    interface: name.to_string(),
                    ..Entry::default()
                },
            },
        },
        None => {
            let Some(first) = listed.first() else {
                return Err("the configuration has no af-packet: interface".into());
            };
            let partner = |e: &Entry| {
                e.copy_mode
                    .as_deref()
                    .and_then(CopyMode::parse)
                    .and(e.copy_iface.clone())
            };
            let same_pair = |e: &Entry| {
                let p = partner(first);
                e.interface == first.interface
                    || (p.as_deref() == Some(e.interface.as_str())
                        && partner(e).is_none_or(|q| q == first.interface))
            };
            if let Some(extra) = listed.iter().find(|e| !same_pair(e)) {
                return Err(format!(
                    "af-packet: Osprey runs one interface or one inline pair per process; \
                     `{}` is more (give --af-packet=IFACE to pick one)",
                    extra.interface
                ));
            }
            (*first).clone()
        }
    };
    let inline = match (
        entry.copy_mode.as_deref().and_then(CopyMode::parse),
        &entry.copy_iface,
    ) {
        (Some(mode), Some(b)) => {
            let pair = InlinePair::parse(&format!("{}:{b}", entry.interface))
                .map_err(|e| format!("af-packet copy-iface: {e}"))?;
            Some(InlinePair { mode, ..pair })
        }
        (Some(_), None) => {
            return Err(format!(
                "af-packet: `{}` has copy-mode but no copy-iface",
                entry.interface
            ))
        }
        (None, _) => None,
    };
    Ok(AfPacketPlan {
        interface: entry.interface.clone(),
        inline,
        threads: entry
            .threads
            .as_deref()
            .and_then(|t| t.trim().parse::<usize>().ok())
            .filter(|n| *n > 0),
        cluster_id: entry.cluster_id,
        fanout: crate::cluster::fanout(entry.cluster_type.as_deref(), entry.defrag)?,
        block_size: entry.block_size.and_then(|b| u32::try_from(b).ok()),
        promiscuous: !entry.disable_promisc,
        ignored_keys: entry.ignored_keys.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(yaml: &str, iface: Option<&str>) -> Result<AfPacketPlan, String> {
        let config = Config::parse(yaml, None).map_err(|d| d.to_string())?;
        plan_from_entries(&entries(&config), iface)
    }

    const PAIR: &str = "af-packet:\n  - interface: eth0\n    threads: 2\n    cluster-id: 97\n    copy-mode: ips\n    copy-iface: eth1\n  - interface: eth1\n    threads: 2\n    cluster-id: 98\n    copy-mode: ips\n    copy-iface: eth0\n  - interface: default\n    threads: auto\n";

    #[test]
    fn suricata_ips_pair_is_one_bridge() {
        let p = plan(PAIR, None).unwrap();
        assert_eq!(
            p.inline,
            Some(InlinePair {
                a: "eth0".into(),
                b: "eth1".into(),
                mode: CopyMode::Ips
            })
        );
        assert_eq!(
            (p.threads, p.cluster_id, p.promiscuous),
            (Some(2), Some(97), true)
        );
        assert!(p.ignored_keys.is_empty());
        let more = format!("{PAIR}    bpf-filter: port 80\n    use-mmap: yes\n");
        let p = plan(&more, Some("eth9")).unwrap();
        assert_eq!(p.ignored_keys, ["bpf-filter", "use-mmap"]);
        let p = plan(PAIR, Some("eth1")).unwrap();
        assert_eq!(p.inline.unwrap().b, "eth0");
    }

    #[test]
    fn one_sided_tap_and_passive_entries() {
        let tap = "af-packet:\n  - interface: a\n    copy-mode: tap\n    copy-iface: b\n";
        let p = plan(tap, None).unwrap();
        assert_eq!(p.inline.unwrap().mode, CopyMode::Tap);
        let passive = "af-packet:\n  - interface: a\n    threads: auto\n    disable-promisc: yes\n";
        let p = plan(passive, None).unwrap();
        assert_eq!((p.inline, p.threads, p.promiscuous), (None, None, false));
        // An interface not listed takes the default entry's settings.
        let p = plan(PAIR, Some("eth9")).unwrap();
        assert_eq!((p.interface.as_str(), p.inline), ("eth9", None));
    }

    #[test]
    fn unrunnable_configurations_are_errors() {
        assert!(plan("af-packet: []\n", None).is_err());
        assert!(plan("outputs: []\n", None).is_err());
        let two = "af-packet:\n  - interface: a\n  - interface: b\n";
        assert!(plan(two, None).unwrap_err().contains("one interface"));
        assert_eq!(plan(two, Some("b")).unwrap().interface, "b");
        let no_peer = "af-packet:\n  - interface: a\n    copy-mode: ips\n";
        assert!(plan(no_peer, None).unwrap_err().contains("copy-iface"));
        let to_self = "af-packet:\n  - interface: a\n    copy-mode: ips\n    copy-iface: a\n";
        assert!(plan(to_self, None).is_err());
    }

    #[test]
    fn pair_option_parses() {
        let p = InlinePair::parse("veth0:veth1").unwrap();
        assert_eq!(
            (p.a.as_str(), p.b.as_str(), p.mode),
            ("veth0", "veth1", CopyMode::Ips)
        );
        for bad in ["veth0", "a:a", ":b", "a:", "a:b:c"] {
            assert!(InlinePair::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cluster_type_and_defrag_set_the_fanout_group() {
        let y = "af-packet:\n  - interface: va\n    cluster-id: 77\n    cluster-type: cluster_qm\n    defrag: yes\n";
        let p = plan(y, None).unwrap();
        assert!(p.ignored_keys.is_empty(), "{:?}", p.ignored_keys);
        let o = p.live_options(&LiveOptions::default());
        assert_eq!(o.fanout_group, Some(77));
        assert_eq!(
            o.fanout,
            capture::Fanout {
                kind: capture::FanoutKind::Qm,
                defrag: true
            }
        );
        let bad = "af-packet:\n  - interface: va\n    cluster-type: cluster_ebpf\n";
        assert!(plan(bad, None).unwrap_err().contains("cluster_ebpf"));
    }
}

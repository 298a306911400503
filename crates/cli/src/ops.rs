//! Operating a run: choosing the input (file or live), running the engine with signals,
//! the command socket and periodic statistics in place.

use crate::args::RunArgs;
use engine::{Control, EngineConfig, RunOptions, RunReport, SetupArgs};
use std::path::Path;
use std::time::Duration;

/// Live input: one interface read passively, or two joined inline.
#[derive(Debug)]
pub enum Live {
    /// `-i IFACE`, or `--af-packet` on an entry without `copy-mode`.
    Passive {
        /// The interface.
        iface: String,
        /// The `af-packet:` entry it came from.
        plan: Option<engine::AfPacketPlan>,
    },
    /// `--af-packet-ips A:B`, or `--af-packet` on an entry with `copy-mode: ips|tap`.
    Inline {
        /// The two interfaces.
        pair: engine::InlinePair,
        /// The `af-packet:` entry it came from.
        plan: Option<engine::AfPacketPlan>,
    },
}

impl Live {
    /// True when verdicts take effect (inline in `copy-mode: ips`).
    pub fn is_ips(&self) -> bool {
        matches!(self, Live::Inline { pair, .. } if pair.mode == engine::CopyMode::Ips)
    }

    fn plan(&self) -> Option<&engine::AfPacketPlan> {
        match self {
            Live::Passive { plan, .. } | Live::Inline { plan, .. } => plan.as_ref(),
        }
    }
}

/// Exactly one input: `-r`, `-i`, `--af-packet` or `--af-packet-ips`.
pub fn check_inputs(args: &RunArgs) -> Result<(), String> {
    let given = [
        args.read.is_some(),
        args.interface.is_some(),
        args.af_packet.is_some(),
        args.af_packet_ips.is_some(),
    ];
    match given.iter().filter(|g| **g).count() {
        0 => Err(
            "no input: give a capture file with -r FILE, an interface with -i IFACE, \
                  --af-packet (with -c) or --af-packet-ips A:B (see --help)"
                .into(),
        ),
        1 => Ok(()),
        _ => Err("give one input: -r FILE, -i IFACE, --af-packet or --af-packet-ips".into()),
    }
}

/// The live input `args` ask for (`None` for a capture file); `--af-packet` reads the
/// configuration `setup` names.
pub fn live_input(args: &RunArgs, setup: &SetupArgs) -> Result<Option<Live>, String> {
    if let Some(iface) = &args.interface {
        return Ok(Some(Live::Passive {
            iface: iface.clone(),
            plan: None,
        }));
    }
    if let Some(pair) = &args.af_packet_ips {
        let pair = engine::InlinePair::parse(pair).map_err(|e| format!("--af-packet-ips {e}"))?;
        return Ok(Some(Live::Inline { pair, plan: None }));
    }
    let Some(iface) = &args.af_packet else {
        return Ok(None);
    };
    let iface = Some(iface.as_str()).filter(|i| !i.is_empty());
    let plan = engine::af_packet_plan(setup, iface).map_err(|e| format!("--af-packet: {e}"))?;
    if !plan.ignored_keys.is_empty() {
        tracing::warn!(
            "af-packet keys not used by Osprey (ignored): {}",
            plan.ignored_keys.join(", ")
        );
    }
    Ok(Some(match plan.inline.clone() {
        Some(pair) => Live::Inline {
            pair,
            plan: Some(plan),
        },
        None => Live::Passive {
            iface: plan.interface.clone(),
            plan: Some(plan),
        },
    }))
}

/// Runs the engine over the capture file (`source`) or the `live` input, with signals,
/// the command socket and periodic statistics in place; `ruleset` is the account of the
/// loaded rules the socket's `ruleset-*` commands give until a reload.
pub fn execute(
    args: &RunArgs,
    source: Option<Box<dyn capture::Source>>,
    live: Option<Live>,
    config: &EngineConfig,
    setup_args: &SetupArgs,
    ruleset: engine::RulesetInfo,
    log_dir: &Path,
) -> Result<RunReport, String> {
    let control = Control::new();
    control.set_ruleset(ruleset);
    crate::signals::install_signals(&control, setup_args.clone())?;
    crate::daemon::on_started(&control);
    let _services = crate::socket::for_run(args, &control, setup_args, config, live.as_ref())?;
    let periodic_stats = match args.stats_interval {
        Some(secs) if secs.is_finite() && secs > 0.0 => {
            Some((Duration::from_secs_f64(secs), log_dir.join("stats.json")))
        }
        Some(secs) => {
            return Err(format!(
                "--stats-interval {secs}: must be a positive number of seconds"
            ))
        }
        None => None,
    };
    let yaml_threads = live.as_ref().and_then(Live::plan).and_then(|p| p.threads);
    let opts = RunOptions {
        threads: args
            .threads
            .or(yaml_threads)
            .or(single_runmode(args.runmode.as_deref()))
            .unwrap_or(0),
        pin_cores: true,
        control,
        periodic_stats,
        readers: args.readers.unwrap_or(0),
    };
    if let Some(mut source) = source {
        let total = crate::inputs::expected_bytes(args);
        let bar = crate::progress::Bar::new(total, !args.no_progress);
        source.stop_on(opts.control.stop_flag());
        let mut report = engine::run(source.as_mut(), config, &opts, |p| bar.update(p.bytes))
            .map_err(|e| e.to_string())?;
        bar.finish();
        crate::inputs::add_capture_counters(&mut report.stats, &report.capture);
        print_stage_times(&report);
        save_datasets(&opts.control, config);
        return Ok(report);
    }
    let Some(live) = live else {
        return Err("no input".into());
    };
    let base = match live.plan() {
        Some(plan) => plan.live_options(&capture::LiveOptions::default()),
        None => capture::LiveOptions::default(),
    };
    let report = match &live {
        Live::Passive { iface, .. } => {
            let opts_live = capture::LiveOptions {
                filter: crate::filter::bpf_filter(args, iface)?,
                ..base
            };
            tracing::info!(
                "capturing on {iface} with {} worker(s); SIGINT or SIGTERM stops",
                opts.worker_count()
            );
            engine::run_live(iface, &opts_live, config, &opts)
        }
        Live::Inline { pair, .. } => {
            if args.bpf.is_some() || !args.filter.is_empty() || args.inputs.filter_file.is_some() {
                // Frames the kernel filters out never reach the bridge: they would be
                // dropped, not let through.
                return Err(
                    "a capture filter cannot be used inline: the traffic it leaves \
                            out would not be forwarded"
                        .into(),
                );
            }
            let opts_live = base;
            tracing::info!(
                "capturing on {} and {} inline ({}) with {} worker(s); SIGINT or \
                 SIGTERM stops",
                pair.a,
                pair.b,
                match pair.mode {
                    engine::CopyMode::Ips => "ips: dropped packets are not forwarded",
                    engine::CopyMode::Tap => "tap: every packet is forwarded",
                },
                opts.worker_count()
            );
            engine::run_bridge(pair, &opts_live, config, &opts)
        }
    }
    .map_err(|e| e.to_string())?;
    print_stage_times(&report);
    save_datasets(&opts.control, config);
    Ok(report)
}

/// Writes the datasets that have a `save`/`state` file (at shutdown, as Suricata).
pub fn save_datasets(control: &Control, config: &EngineConfig) {
    let Some(det) = control.detector().or_else(|| config.detector.clone()) else {
        return;
    };
    let (saved, errors) = det.lists().save_all();
    for p in saved {
        tracing::debug!("dataset saved to {}", p.display());
    }
    for e in errors {
        tracing::warn!("{e}");
    }
}

/// With `--stage-timing`: CPU time per stage, summed over the workers.
fn print_stage_times(report: &RunReport) {
    let Some(times) = report.stage_times else {
        return;
    };
    let total = times.total().as_secs_f64().max(1e-9);
    for (name, d) in times.named() {
        tracing::info!(
            "stage {name:<7} {:>9.3} s  {:>5.1}%",
            d.as_secs_f64(),
            100.0 * d.as_secs_f64() / total
        );
    }
}

/// Suricata's `--runmode single` runs one packet thread: without `--threads`, Osprey
/// then runs one worker (the corpus and the benchmarks compare with that mode, and
/// results must not depend on how many cores the machine has).
fn single_runmode(runmode: Option<&str>) -> Option<usize> {
    (runmode == Some("single")).then_some(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runmode_single_is_one_worker() {
        assert_eq!(single_runmode(Some("single")), Some(1));
        assert_eq!(single_runmode(Some("autofp")), None);
        assert_eq!(single_runmode(None), None);
    }

    #[test]
    fn live_inputs() {
        use clap::Parser;
        let parse = |args: &[&str]| crate::args::Cli::try_parse_from(args).unwrap().run;
        let none = parse(&["osprey"]);
        assert!(check_inputs(&none).unwrap_err().contains("no input"));
        let two = parse(&["osprey", "-i", "eth0", "--af-packet-ips", "a:b"]);
        assert!(check_inputs(&two).unwrap_err().contains("one input"));
        let pair = parse(&["osprey", "--af-packet-ips", "a:b"]);
        let live = live_input(&pair, &SetupArgs::default()).unwrap().unwrap();
        assert!(live.is_ips());
        let bad = parse(&["osprey", "--af-packet-ips", "a"]);
        assert!(live_input(&bad, &SetupArgs::default()).is_err());
        // --af-packet reads the configuration: none given is an error that says so.
        let yaml = parse(&["osprey", "--af-packet"]);
        let e = live_input(&yaml, &SetupArgs::default()).unwrap_err();
        assert!(e.contains("-c"), "{e}");
        let passive = parse(&["osprey", "-i", "eth0"]);
        let live = live_input(&passive, &SetupArgs::default())
            .unwrap()
            .unwrap();
        assert!(!live.is_ips());
    }
}

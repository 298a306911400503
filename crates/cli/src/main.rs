//! The `osprey` binary: argument parsing and dispatch. Logic lives in the library crates.

/// `print!` to standard output that ends the process quietly when stdout is a pipe its
/// reader closed (`osprey ... | head -1`) instead of panicking. Everything a command
/// writes to files is written before it prints, so nothing is lost.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*), false) };
}

/// [`out!`] with a newline, as `println!`.
macro_rules! outln {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*), true) };
}

mod alloc_tune;
mod analysis_out;
mod args;
mod daemon;
mod filter;
mod gen_cmd;
mod hunt_cmd;
mod info;
mod inputs;
mod logging;
mod metrics;
mod ops;
mod progress;
mod rules_cmd;
mod signals;
mod socket;
mod socket_mode;
mod socket_unit;
mod summary;
mod unit_input;

/// mimalloc replaces glibc malloc for every allocation of the process (opt-in feature
/// `mimalloc`; off by default: measured in bench/RESULTS.md, issue 29, it grew peak RSS).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use args::{ChecksumArg, Cli, Command, RunArgs};
use clap::Parser;
use engine::{ChecksumMode, SetupArgs};
use std::path::PathBuf;
use std::process::ExitCode;

/// Writes `args` (and a newline) to standard output; a closed pipe ends the process with
/// status 0, any other write error with status 1 and a message.
fn write_stdout(args: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    let written = o
        .write_fmt(args)
        .and_then(|()| if newline { o.write_all(b"\n") } else { Ok(()) })
        .and_then(|()| o.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            tracing::error!("cannot write to standard output: {e}");
            std::process::exit(1)
        }
    }
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    logging::init(cli.run.verbose);
    engine::panics::exit_on_panic();
    let result = match cli.command {
        Some(Command::Rules(cmd)) => rules_command(cmd),
        Some(Command::Bench(cmd)) => bench_command(cmd),
        Some(Command::Gen(a)) => gen_cmd::run(&a).map(|()| ExitCode::SUCCESS),
        Some(Command::Hunt(a)) => hunt_cmd::run(&a),
        None => inputs::resolve_pcap_flag(&mut cli.run).and_then(|()| run(&cli.run)),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            tracing::error!("{msg}");
            daemon::report_failure(&msg);
            ExitCode::FAILURE
        }
    }
}

/// `--gpu MODE`: `on` probes for a GPU (without a usable one it is an error); `auto` only
/// looks for the driver's device nodes and leaves the probe to the background set-up
/// ([`gpu::GpuMode::resolve_deferred`]). The line that says what runs where is printed by
/// [`gpu_offload`] once the rules are loaded.
fn gpu_select(mode: &str) -> Result<(gpu::GpuMode, gpu::Backend, String), String> {
    let mode: gpu::GpuMode = mode.parse().map_err(|e: gpu::OffloadError| e.to_string())?;
    let (backend, line) = mode.resolve_deferred(0).map_err(|e| e.to_string())?;
    Ok((mode, backend, line))
}

/// Set up GPU offload of the payload prefilter for the loaded rules and say in one line
/// what runs where. With `auto`, a GPU that cannot be set up leaves matching on the CPU.
/// The `--simulate-*` options: acted on with `--qa-simulation` (as Suricata's QA
/// builds do), otherwise accepted and ignored with a notice (as its release builds do).
fn simulate_options(args: &RunArgs) -> Result<engine::exception::Simulate, String> {
    let options = [
        (
            "--simulate-packet-tcp-reassembly-memcap",
            &args.simulate_reassembly_memcap,
        ),
        (
            "--simulate-packet-defrag-memcap",
            &args.simulate_defrag_memcap,
        ),
        (
            "--simulate-applayer-error-at-offset-ts",
            &args.simulate_applayer_error_ts,
        ),
        (
            "--simulate-applayer-error-at-offset-tc",
            &args.simulate_applayer_error_tc,
        ),
        ("--simulate-packet-flow-memcap", &args.simulate_flow_memcap),
        (
            "--simulate-packet-tcp-ssn-memcap",
            &args.simulate_ssn_memcap,
        ),
    ];
    let mut values = [None; 6];
    for (k, (flag, value)) in options.iter().enumerate() {
        let Some(v) = value else { continue };
        if !args.qa_simulation {
            tracing::warn!(
                "{flag} ignored (as in Suricata's release builds; --qa-simulation acts on it)"
            );
            continue;
        }
        values[k] = Some(
            v.trim()
                .parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {v}"))?,
        );
    }
    Ok(engine::exception::Simulate {
        reassembly_memcap: values[0],
        defrag_memcap: values[1],
        applayer_error_ts: values[2],
        applayer_error_tc: values[3],
        flow_memcap: values[4],
        ssn_memcap: values[5],
    })
}

fn gpu_offload(
    (mode, backend, line): (gpu::GpuMode, gpu::Backend, String),
    args: &RunArgs,
    config: &engine::EngineConfig,
) -> Result<Option<std::sync::Arc<engine::GpuOffload>>, String> {
    let policy = match args.gpu_policy.as_str() {
        "kargus" => engine::GpuPolicy::Kargus,
        "always" => engine::GpuPolicy::Always,
        "measured" => engine::GpuPolicy::Measured,
        other => {
            return Err(format!(
                "--gpu-policy takes measured, kargus or always, not {other:?}"
            ))
        }
    };
    let mut settings = engine::GpuSettings {
        policy,
        ..Default::default()
    };
    if let Some(n) = args.gpu_size_threshold {
        settings.balance.size_threshold = n;
    }
    settings.device.sim_latency = std::time::Duration::from_micros(args.gpu_sim_latency);
    if let Some(name) = &args.gpu_kernel {
        settings.device.layout = gpu::cpu::AcLayout::parse(name)?;
    }
    settings.late = match args.gpu_late.as_str() {
        "wait" => engine::LateResults::Wait,
        "cpu" => engine::LateResults::Cpu,
        other => return Err(format!("--gpu-late takes wait or cpu, not {other:?}")),
    };
    let (Some(det), false) = (config.detector.as_ref(), backend == gpu::Backend::Cpu) else {
        if mode != gpu::GpuMode::Off {
            tracing::info!("{line}");
        }
        return Ok(None);
    };
    let cache = match &args.gpu_cache {
        Some(d) if d.as_os_str() == "none" => None,
        Some(d) => Some(gpu::cache::DiskCache::new(d)),
        None => gpu::cache::DiskCache::default_dir().map(gpu::cache::DiskCache::new),
    };
    let where_ = cache.as_ref().map_or("no cache".into(), |c| {
        format!("cache {}", c.dir().display())
    });
    tracing::info!(
        "{line}; payload prefilter offload set up in the background ({where_}, {policy:?} balancing): the CPU matches until it is ready"
    );
    let off = engine::GpuOffload::start(det, &backend, settings, cache);
    match (args.gpu_setup.as_str(), &off) {
        ("background", _) | (_, None) => {}
        ("wait", Some(g)) => match g.wait() {
            Ok(()) => {}
            Err(e) if mode == gpu::GpuMode::On => return Err(format!("--gpu on: {e}")),
            Err(e) => tracing::warn!("GPU offload not set up ({e}): running on the CPU"),
        },
        (other, _) => {
            return Err(format!(
                "--gpu-setup takes background or wait, not {other:?}"
            ))
        }
    }
    Ok(off)
}

/// The end of a run with GPU offload: its set-up's outcome (an error with `--gpu on`)
/// and its engine-wide counters into `stats`.
fn gpu_finish(
    gpu: Option<&std::sync::Arc<engine::GpuOffload>>,
    mode: &str,
    stats: &mut output::stats::StatsTree,
) -> Result<(), String> {
    let Some(g) = gpu else { return Ok(()) };
    match g.finish() {
        Some(Ok(())) => tracing::info!(
            "GPU offload was ready after {} ms ({}{} MiB of tables)",
            g.setup_time().unwrap_or_default().as_millis(),
            g.device().map_or(String::new(), |d| format!(
                "{}, device {}, compute {}.{}, {} MiB; ",
                d.name,
                d.ordinal,
                d.compute_capability.0,
                d.compute_capability.1,
                d.total_mem >> 20
            )),
            g.device_bytes() >> 20
        ),
        Some(Err(e)) if mode == "on" => return Err(format!("--gpu on: {e}")),
        Some(Err(e)) => tracing::warn!("GPU offload not set up ({e}): everything ran on the CPU"),
        None => {
            tracing::info!("the run ended before the GPU set-up did: everything ran on the CPU")
        }
    }
    for (k, v) in g.counters() {
        stats.add(k, v);
    }
    Ok(())
}

/// The settings of setting up a run from `args`, logging into `log_dir`.
fn setup_args(args: &RunArgs, log_dir: Option<PathBuf>) -> SetupArgs {
    SetupArgs {
        config: args.config.clone(),
        includes: args.include.clone(),
        sets: args.set.clone(),
        exclusive_rules: args.exclusive_rules.clone(),
        extra_rules: args.extra_rules.clone(),
        strict: args.strict_rules,
        checksum: match args.checksum {
            ChecksumArg::All => ChecksumMode::All,
            ChecksumArg::None => ChecksumMode::None,
        },
        log_dir,
        mpm: args.mpm.clone(),
        eve_types: args.eve_types.clone(),
        ips: args.simulate_ips,
    }
}

/// Logs the setup's notices and its one-line account of the rules.
fn report_setup(setup: &engine::Setup) {
    for notice in &setup.notices {
        logging::setup_notice(notice);
    }
    tracing::info!(
        "{} rules loaded, {} failed, {} unsupported ({:.2} s)",
        setup.rules_loaded,
        setup.rules_failed,
        setup.rules_unsupported,
        setup.load_time.as_secs_f64()
    );
}

/// `osprey -T ...`: loads the configuration and the rules as a run would, reports, and
/// exits 0 when every rule loaded (unsupported ones are reported, not fatal), else 1.
fn test_config(args: &RunArgs) -> Result<ExitCode, String> {
    let setup = engine::setup(&setup_args(args, None))?;
    report_setup(&setup);
    if setup.rules_failed > 0 {
        tracing::error!(
            "configuration test failed: {} rules did not load",
            setup.rules_failed
        );
        return Ok(ExitCode::FAILURE);
    }
    tracing::info!("configuration provided was successfully loaded; exiting");
    Ok(ExitCode::SUCCESS)
}

/// The detection run: `osprey -r FILE ...`.
fn run(args: &RunArgs) -> Result<ExitCode, String> {
    if let Some(code) = info::run(args)? {
        return Ok(code);
    }
    if args.test_config {
        return test_config(args);
    }
    if socket_mode::wanted(args) {
        return socket_mode::run(args, setup_args(args, None));
    }
    let input = args.read.as_ref();
    logging::refuse_nfqueue(args.nfqueue.as_deref())?;
    ops::check_inputs(args)?;
    unit_input::check(args)?;
    let log_dir = engine::outputs::log_dir(&setup_args(args, None), args.log_dir.as_deref())?;
    let log_settings = engine::logging_settings(&setup_args(args, Some(log_dir.clone())))?;
    let _service = daemon::start(&args.daemon, &log_settings, args.verbose, &log_dir)?;
    alloc_tune::start();
    tracing::debug!(
        "Osprey {}; log directory {}",
        env!("CARGO_PKG_VERSION"),
        log_dir.display()
    );
    let gpu = gpu_select(&args.gpu)?;

    let source = match input {
        Some(path) => Some(inputs::open_file_input(args, path)?),
        None => None,
    };
    let setup_args = setup_args(args, Some(log_dir.clone()));
    let live = ops::live_input(args, &setup_args)?;
    let setup_args = SetupArgs {
        ips: setup_args.ips || live.as_ref().is_some_and(ops::Live::is_ips),
        ..setup_args
    };
    let early_stop = signals::catch_early_stop()?;
    let setup = engine::setup(&setup_args)?;
    report_setup(&setup);
    if signals::stopped_early(&early_stop) {
        return Ok(ExitCode::SUCCESS);
    }
    let simulate = simulate_options(args)?;
    tracing::debug!(target: "perf", "rules compiled in {:.3} s", setup.load_time.as_secs_f64());
    let ruleset = engine::RulesetInfo::of(&setup);
    let mut config = setup.engine;
    if let Some(notice) = input.and_then(|path| config.outputs.set_input(path)) {
        tracing::warn!("{notice}");
    }
    config.stage_timing = args.stage_timing;
    config.simulate = simulate;
    config.gpu = gpu_offload(gpu, args, &config)?;
    // fast.log is appended to: this run's alerts are what it adds.
    let fast_log = config
        .outputs
        .fast
        .as_ref()
        .map(|f| log_dir.join(&f.filename));
    let fast_from = fast_log
        .as_ref()
        .and_then(|p| p.metadata().ok())
        .map_or(0, |m| m.len());
    let report = ops::execute(args, source, live, &config, &setup_args, ruleset, &log_dir)?;

    let mut stats = report.stats;
    stats.set(
        "detect.engines",
        serde_json::json!([{
            "id": 0,
            "rules_loaded": setup.rules_loaded,
            "rules_failed": setup.rules_failed,
            "rules_skipped": setup.rules_unsupported,
        }]),
    );
    stats.add("osprey.rules.unsupported", setup.rules_unsupported as u64);
    gpu_finish(config.gpu.as_ref(), &args.gpu, &mut stats)?;
    if let Some(g) = config.gpu.take() {
        // Device memory, pinned buffers and the CUDA context go with the process.
        engine::GpuOffload::keep_until_exit(g);
    }
    let report = engine::RunReport { stats, ..report };
    let stats_path = log_dir.join("stats.json");
    report
        .stats
        .write_file(&stats_path)
        .map_err(|e| format!("cannot write {}: {e}", stats_path.display()))?;
    out!("{}", summary::render(&report));
    if let Some(fast_log) = fast_log {
        print_alerts(&fast_log, fast_from);
    }
    // The process ends next: its rule set's memory goes back to the OS with it, instead
    // of being freed allocation by allocation (about a twentieth of the CPU of an ET Open
    // run over sv-ether.pcap). Nothing of the detector acts when dropped.
    if let Some(detector) = config.detector.take() {
        std::mem::forget(detector);
    }
    // Every packet was inspected, but some records could not be written: say so.
    let failures = report
        .stats
        .get("osprey.output.write_failures")
        .unwrap_or(0);
    if failures > 0 {
        tracing::error!(
            "{failures} writes to the output files failed (osprey.output.*.dropped in stats.json)"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the alerts of the run (the first of them when there are many): the lines
/// of `fast_log` after its first `from` bytes.
fn print_alerts(fast_log: &std::path::Path, from: u64) {
    const SHOWN: usize = 20;
    let Ok(bytes) = std::fs::read(fast_log) else {
        return;
    };
    let text = String::from_utf8_lossy(bytes.get(from as usize..).unwrap_or_default());
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        outln!("alerts: none");
        return;
    }
    outln!("alerts: {} (fast.log: {})", lines.len(), fast_log.display());
    for line in lines.iter().take(SHOWN) {
        outln!("  {line}");
    }
    if lines.len() > SHOWN {
        outln!("  ... {} more", lines.len() - SHOWN);
    }
}

fn bench_command(cmd: args::BenchCommand) -> Result<ExitCode, String> {
    match cmd {
        args::BenchCommand::Gpu {
            rules,
            batch_sizes,
            packet_sizes,
            seconds,
            backend,
            kernels,
            pcap,
            profile_states,
            max_packets,
            synthetic,
        } => {
            if profile_states {
                let opts = tools::gpu_profile::ProfileOptions {
                    rules,
                    pcaps: pcap,
                    max_packets,
                    synthetic,
                };
                outln!("{}", tools::gpu_profile::profile_states(&opts)?);
                return Ok(ExitCode::SUCCESS);
            }
            if pcap.len() > 1 {
                return Err(
                    "bench gpu takes one --pcap (several only with --profile-states)".into(),
                );
            }
            let opts = tools::bench_gpu::BenchGpuOptions {
                rules,
                batch_sizes,
                packet_sizes,
                seconds,
                backend,
                kernels: tools::bench_gpu::parse_kernels(&kernels)?,
                pcap: pcap.into_iter().next(),
                ..Default::default()
            };
            let report = tools::bench_gpu::bench_gpu(&opts)?;
            outln!("{report}");
            Ok(ExitCode::SUCCESS)
        }
        args::BenchCommand::Engine {
            pcap,
            rules,
            threads,
            mpm,
            runs,
            json,
        } => {
            let opts = tools::BenchEngineOptions {
                rules,
                threads,
                mpm,
                runs: runs.max(1),
                ..tools::BenchEngineOptions::default()
            };
            let reports = tools::bench_engine_many(&opts, &pcap)?;
            if json && reports.len() == 1 {
                outln!("{}", reports[0].to_json());
            } else if json {
                let v: Vec<String> = reports.iter().map(|r| r.to_json()).collect();
                outln!("[{}]", v.join(",\n"));
            } else {
                for r in &reports {
                    out!("{r}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        args::BenchCommand::Mpm {
            rules,
            pcap,
            runs,
            engines,
            buffer,
            json,
            model,
            parallel,
        } => {
            if parallel {
                let opts = tools::bench_mpm::ParallelOptions {
                    rules,
                    pcap: pcap.unwrap_or_default(),
                    runs: runs.max(1),
                    ..Default::default()
                };
                let report = tools::bench_mpm::bench_parallel(&opts)?;
                if json {
                    outln!("{}", report.to_json());
                } else {
                    out!("{report}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            if model {
                let opts = tools::bench_mpm::ModelOptions {
                    runs: runs.max(1),
                    ..Default::default()
                };
                let report = tools::bench_mpm::bench_model(&opts)?;
                if json {
                    outln!("{}", report.to_json());
                } else {
                    out!("{report}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let opts = tools::BenchMpmOptions {
                rules,
                pcap: pcap.unwrap_or_default(),
                runs: runs.max(1),
                engines,
                buffer,
                ..tools::BenchMpmOptions::default()
            };
            let report = tools::bench_mpm(&opts)?;
            if json {
                outln!("{}", report.to_json());
            } else {
                out!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn rules_command(cmd: args::RulesCommand) -> Result<ExitCode, String> {
    match cmd {
        args::RulesCommand::Check { json, files } => Ok(rules_cmd::check(json, &files)),
    }
}

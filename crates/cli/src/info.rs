//! Checking and listing, as Suricata's options of the same names: `-V`, `--build-info`,
//! `--list-keywords`, `--list-app-layer-protos`, `--list-runmodes`, `--dump-config` and
//! `--engine-analysis` (written by [`crate::analysis_out`]). Each prints (or writes) and
//! ends the process; the content comes from the registries of the library crates.

use crate::args::RunArgs;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of this module (flattened into the run options).
#[derive(Debug, Args, Default)]
pub struct InfoArgs {
    /// Print the version and exit.
    #[arg(short = 'V', long = "version")]
    pub version: bool,

    /// Print the version, the features of this build and what this machine offers it
    /// (SIMD level, GPU), then exit.
    #[arg(long = "build-info")]
    pub build_info: bool,

    /// List the rule keywords and exit: names (no value), `all` (with descriptions),
    /// `csv` (Suricata's columns), or one keyword NAME in detail.
    #[arg(
        long = "list-keywords",
        value_name = "all|csv|NAME",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ""
    )]
    pub list_keywords: Option<String>,

    /// List the application-layer protocols Osprey parses and exit.
    #[arg(long = "list-app-layer-protos")]
    pub list_app_layer_protos: bool,

    /// List the run modes and what each means for Osprey, then exit.
    #[arg(long = "list-runmodes")]
    pub list_runmodes: bool,

    /// Print the effective configuration (`-c` or the built-in defaults, then
    /// `--include` and `--set`) as `key = value` lines and exit.
    #[arg(long = "dump-config")]
    pub dump_config: bool,

    /// Load the rules, write a per-rule report (rules.json, rules_fast_pattern.txt) to
    /// the log directory and exit.
    #[arg(long = "engine-analysis")]
    pub engine_analysis: bool,
}

/// Runs the option of this module that `args` holds, if any: `Some(exit code)` when one
/// ran (the process should end), `None` when the run goes on.
pub fn run(args: &RunArgs) -> Result<Option<ExitCode>, String> {
    let info = &args.info;
    if info.version {
        outln!("{}", version_line());
    } else if info.build_info {
        build_info();
    } else if let Some(which) = &info.list_keywords {
        return list_keywords(which).map(Some);
    } else if info.list_app_layer_protos {
        outln!("=========Supported App Layer Protocols=========");
        for p in app::registry::protocols() {
            outln!("{}", p.proto.name());
        }
    } else if info.list_runmodes {
        list_runmodes();
    } else if info.dump_config {
        let config = engine::load_config(&crate::setup_args(args, None))?;
        for (k, v) in config.dump() {
            outln!("{k} = {v}");
        }
    } else if info.engine_analysis {
        let dir = args.log_dir.clone().unwrap_or_else(|| PathBuf::from("."));
        return crate::analysis_out::run(&crate::setup_args(args, Some(dir.clone())), &dir)
            .map(Some);
    } else {
        return Ok(None);
    }
    Ok(Some(ExitCode::SUCCESS))
}

/// `This is Osprey version 0.1.0 RELEASE`, as Suricata's first line.
fn version_line() -> String {
    let build = if cfg!(debug_assertions) {
        "DEBUG"
    } else {
        "RELEASE"
    };
    format!(
        "This is Osprey version {} {build}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The SIMD extensions this CPU has that the matchers can use, widest first.
fn simd_found() -> Vec<&'static str> {
    let mut found = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($feat:tt => $name:literal),*) => {
                $(if std::arch::is_x86_feature_detected!($feat) { found.push($name); })*
            };
        }
        probe!("avx512bw" => "AVX512BW", "avx512f" => "AVX512F", "avx2" => "AVX2",
            "bmi1" => "BMI1", "popcnt" => "POPCNT", "sse4.2" => "SSE_4_2",
            "sse4.1" => "SSE_4_1", "sse3" => "SSE_3", "sse2" => "SSE_2");
    }
    found
}

/// One `  name:   value` line of the configuration block (Suricata's column).
fn row(name: &str, value: impl std::fmt::Display) {
    outln!("  {:<41}{value}", format!("{name}:"));
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn build_info() {
    use mpm::Kind;
    outln!("{}", version_line());
    let mut features = vec!["PCAP_FILE", "PCAPNG_FILE"];
    if cfg!(target_os = "linux") {
        features.extend(["AF_PACKET", "HAVE_PACKET_FANOUT", "AF_PACKET_IPS"]);
    }
    features.extend([
        "UNIX_SOCKET",
        "PCRE2",
        "PCRE_JIT",
        "GPU_CUDA_RUNTIME",
        "RUST",
    ]);
    outln!("Features: {} ", features.join(" "));
    outln!("SIMD support: {} ", simd_found().join(" "));
    outln!(
        "{}-bits, {}-endian architecture",
        usize::BITS,
        if cfg!(target_endian = "little") {
            "Little"
        } else {
            "Big"
        }
    );
    outln!(
        "Target: {}-{}, {} build",
        std::env::consts::ARCH,
        std::env::consts::OS,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    let (pcre_major, pcre_minor) = pcre2::version();
    let vpatch = if Kind::VpatchAvx512.is_available() {
        "AVX-512"
    } else if Kind::VpatchAvx2.is_available() {
        "AVX2"
    } else {
        "scalar (no AVX2 on this CPU)"
    };
    let gpu_line = match gpu::probe(0) {
        Ok(d) => format!(
            "yes ({}, compute {}.{}, {} MiB)",
            d.name,
            d.compute_capability.0,
            d.compute_capability.1,
            d.total_mem >> 20
        ),
        Err(e) => format!("no ({})", e.0),
    };
    outln!("");
    outln!("Osprey Configuration:");
    row("AF_PACKET support", yes(cfg!(target_os = "linux")));
    row("AF_PACKET inline (IPS/TAP)", yes(cfg!(target_os = "linux")));
    row("Unix socket enabled", "yes");
    row("Detection enabled", "yes");
    outln!("");
    row("PCRE2 version", format!("{pcre_major}.{pcre_minor}"));
    row("PCRE jit", yes(pcre2::is_jit_available()));
    row("Hyperscan support", "no");
    row("Hyperscan in benchmarks", yes(cfg!(feature = "hyperscan")));
    row(
        "libpcap",
        "linked, for its capture-filter compiler only (pcap and pcapng files are read by \
         Osprey's own reader)",
    );
    row("Default multi-pattern matcher", Kind::fastest().name());
    row("V-PATCH SIMD path", vpatch);
    let mpms: Vec<&str> = Kind::available().iter().map(|k| k.name()).collect();
    row("Multi-pattern matchers", mpms.join(", "));
    row(
        "GPU support compiled",
        "yes (CUDA, libcuda and libnvrtc loaded at run time)",
    );
    row("GPU usable", gpu_line);
    outln!("");
    row(
        "Configuration without -c",
        "built-in defaults (osprey --dump-config)",
    );
}

fn list_keywords(which: &str) -> Result<ExitCode, String> {
    let all = rules::keywords::all;
    let features = |k: &rules::keywords::Keyword, sep: &str| {
        let f = k.features();
        if f.is_empty() {
            "none".to_owned()
        } else {
            f.join(sep)
        }
    };
    match which {
        "" => {
            outln!("=====Supported keywords=====");
            for k in all() {
                outln!("- {}", k.name);
            }
        }
        "all" => {
            for k in all() {
                outln!("{}:", k.name);
                outln!("\tDescription: {}", k.description);
                outln!("\tFeatures: {}", features(k, ","));
                if !k.aliases.is_empty() {
                    outln!("\tAliases: {}", k.aliases.join(", "));
                }
                outln!("\tDocumentation: {}", k.doc_url());
            }
        }
        "csv" => {
            outln!("name;description;app layer;features;documentation");
            for k in all() {
                outln!(
                    "{};{};{};{};{};",
                    k.name,
                    k.description,
                    app_layer(k),
                    features(k, ":"),
                    k.doc_url()
                );
            }
        }
        name => {
            let Some(k) = rules::keywords::find(&name.to_ascii_lowercase()) else {
                eprintln!("osprey: non existing keyword: {name}");
                return Ok(ExitCode::FAILURE);
            };
            outln!("= {} =", k.name);
            outln!("Description: {}", k.description);
            outln!("Features: {}", features(k, ","));
            if !k.aliases.is_empty() {
                outln!("Aliases: {}", k.aliases.join(", "));
            }
            if !k.protos.is_empty() {
                outln!("App layer: {}", app_layer(k));
            }
            outln!("Documentation: {}", k.doc_url());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The protocols a keyword needs, comma-separated; `Unset` (Suricata's word) for none.
fn app_layer(k: &rules::keywords::Keyword) -> String {
    if k.protos.is_empty() {
        return "Unset".into();
    }
    let names: Vec<&str> = k.protos.iter().map(|p| p.name()).collect();
    names.join(",")
}

/// Osprey's run modes, in the table Suricata prints: each input (Suricata's type
/// names) with the `--runmode` values it accepts and what they mean here.
const RUNMODES: &[(&str, &[(&str, &str)])] = &[
    (
        "PCAP_FILE",
        &[
            ("single", "-r FILE: one worker thread reads the capture and runs the whole pipeline"),
            ("autofp", "-r FILE (default): a reader thread sends each flow's packets to one of --threads workers"),
        ],
    ),
    (
        "AF_PACKET_DEV",
        &[
            ("workers", "-i IFACE / --af-packet (default): each worker owns an AF_PACKET fanout socket (flow hash) and runs the whole pipeline"),
            ("single", "one worker, one socket"),
            ("autofp", "accepted: runs as workers (the kernel's fanout already keeps a flow on one worker)"),
        ],
    ),
    (
        "AF_PACKET_IPS",
        &[
            ("workers", "--af-packet-ips A:B or af-packet copy-mode ips/tap: inline bridge, a frame is forwarded once its verdict allows"),
        ],
    ),
    (
        "UNIX_SOCKET",
        &[
            ("single", "--unix-socket without -r/-i: captures given over the socket are read one by one"),
            ("autofp", "as single, each capture read by the workers of -r"),
        ],
    ),
];

fn list_runmodes() {
    let rule = "-".repeat(88);
    outln!(
        "------------------------------------- Runmodes ------------------------------------------"
    );
    outln!("| RunMode Type      | Custom Mode       | Description ");
    outln!("|{rule}");
    for (kind, modes) in RUNMODES {
        for (i, (mode, what)) in modes.iter().enumerate() {
            if i > 0 {
                outln!("|                   {}", "-".repeat(69));
            }
            let first = if i == 0 { *kind } else { "" };
            outln!("| {first:<17} | {mode:<17} | {what} ");
        }
        outln!("|{rule}");
    }
}

//! Command-line arguments, following Suricata's names where Suricata has them.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Osprey: a fast network intrusion detection system that reads Suricata and Snort rules.
///
/// Run like Suricata: `osprey -r trace.pcap -S rules.rules -l logdir`. As in Suricata,
/// an option given twice takes its last value.
#[derive(Debug, Parser)]
#[command(name = "osprey", args_override_self = true)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    /// Tools: rule checking, benchmarks.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Options of the detection run (the default mode).
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options of a detection run.
#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// Read packets from a pcap or pcapng file (`-` for standard input).
    #[arg(short = 'r', value_name = "FILE")]
    pub read: Option<PathBuf>,

    /// Use only the rules in FILE (ignores the rule files of the configuration).
    #[arg(short = 'S', value_name = "FILE")]
    pub exclusive_rules: Option<PathBuf>,

    /// Load the rules in FILE in addition to the configuration's rule files.
    #[arg(short = 's', value_name = "FILE")]
    pub extra_rules: Vec<PathBuf>,

    /// Directory for stats.json and the other logs (default: the working directory).
    #[arg(short = 'l', value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Checksum validation: `all` drops packets with invalid checksums, `none` inspects
    /// them anyway (Suricata's `-k`).
    #[arg(
        short = 'k',
        value_enum,
        value_name = "all|none",
        default_value = "all"
    )]
    pub checksum: ChecksumArg,

    /// Configuration file (a suricata.yaml is accepted).
    #[arg(short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Extra configuration file merged on top of `-c` (Suricata's `--include`).
    #[arg(long = "include", value_name = "FILE")]
    pub include: Vec<PathBuf>,

    /// Set a configuration key, e.g. `--set stream.midstream=true` (repeatable). Keys
    /// Osprey does not use are reported once as ignored.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// Suricata's run mode (`single`, `autofp`, `workers`): `single` means one worker
    /// unless `--threads` says otherwise; the others are accepted for compatibility
    /// (Osprey always runs its own pipeline).
    #[arg(long = "runmode", value_name = "MODE")]
    pub runmode: Option<String>,

    /// Behave as an inline IPS on a pcap file, as Suricata's flag does.
    #[arg(long = "simulate-ips")]
    pub simulate_ips: bool,

    /// Test the configuration and the rules, then exit (Suricata's `-T`): status 0 when
    /// every rule loads (rules Osprey cannot inspect yet are reported, not fatal), 1 when
    /// a rule fails to parse or the configuration cannot be read.
    #[arg(short = 'T')]
    pub test_config: bool,

    /// Make any rule error fatal instead of skipping the rule.
    #[arg(long = "strict-rules")]
    pub strict_rules: bool,

    /// Accepted for Suricata compatibility: initialisation errors are already reported.
    #[arg(long = "init-errors-fatal", hide = true)]
    pub init_errors_fatal: bool,

    /// Suricata's fault-injection test options (`--simulate-packet-tcp-reassembly-memcap=N`
    /// and friends: the packet numbered N, or the app-layer data at stream offset N,
    /// hits the condition and its exception policy applies). Suricata acts on them in
    /// its debug/QA builds only; its release builds, the reference of the corpus, accept
    /// and ignore them. Osprey does the same unless `--qa-simulation` is given.
    #[arg(
        long = "simulate-packet-tcp-reassembly-memcap",
        hide = true,
        value_name = "N"
    )]
    pub simulate_reassembly_memcap: Option<String>,
    /// See `simulate_reassembly_memcap`.
    #[arg(long = "simulate-packet-defrag-memcap", hide = true, value_name = "N")]
    pub simulate_defrag_memcap: Option<String>,
    /// See `simulate_reassembly_memcap`.
    #[arg(
        long = "simulate-applayer-error-at-offset-ts",
        hide = true,
        value_name = "N"
    )]
    pub simulate_applayer_error_ts: Option<String>,
    /// See `simulate_reassembly_memcap`.
    #[arg(
        long = "simulate-applayer-error-at-offset-tc",
        hide = true,
        value_name = "N"
    )]
    pub simulate_applayer_error_tc: Option<String>,
    /// See `simulate_reassembly_memcap`.
    #[arg(long = "simulate-packet-flow-memcap", hide = true, value_name = "N")]
    pub simulate_flow_memcap: Option<String>,
    /// See `simulate_reassembly_memcap`.
    #[arg(long = "simulate-packet-tcp-ssn-memcap", hide = true, value_name = "N")]
    pub simulate_ssn_memcap: Option<String>,
    /// Act on the `--simulate-*` options, as Suricata's debug/QA builds do.
    #[arg(long = "qa-simulation")]
    pub qa_simulation: bool,

    /// Multi-pattern matcher for the prefilters: ac-full, ac-full-32, ac-compact, and the
    /// others this build has (default: the fastest available).
    #[arg(long = "mpm", value_name = "NAME")]
    pub mpm: Option<String>,

    /// GPU offload of pattern matching: `off`; `auto` (a GPU when one works, else the CPU,
    /// said in one log line); `on` (no usable GPU is an error); `cpu-sim` (the whole
    /// offload path — batch buffers, dispatcher thread, balancing — with a CPU executor
    /// in place of the GPU: for testing without one).
    #[arg(long = "gpu", value_name = "MODE", default_value = "auto")]
    pub gpu: String,

    /// How cycles are given to the GPU: `measured` (the workload-queue thresholds of
    /// Kargus §5.2, then only where the measured cost per packet says the GPU pays),
    /// `kargus` (the thresholds alone) or `always` (every batch; payloads below the size
    /// threshold stay on the CPU).
    #[arg(long = "gpu-policy", value_name = "POLICY", default_value = "measured")]
    pub gpu_policy: String,

    /// Payloads shorter than this many bytes are never offloaded (Kargus §5.1; default 82).
    #[arg(long = "gpu-size-threshold", value_name = "BYTES")]
    pub gpu_size_threshold: Option<usize>,

    /// With `--gpu cpu-sim`: each device batch is held this many microseconds before its
    /// results go back, a simulated transfer and kernel round trip (testing that workers
    /// go on with their packets meanwhile and that the dispatcher merges their batches).
    #[arg(long = "gpu-sim-latency", value_name = "MICROS", default_value_t = 0)]
    pub gpu_sim_latency: u64,

    /// What a worker does at a packet whose GPU batch is not back yet: `wait` for it, or
    /// `cpu`: match that payload on the CPU (the same matches) and never stall on the
    /// device.
    #[arg(long = "gpu-late", value_name = "WHAT", default_value = "wait")]
    pub gpu_late: String,

    /// The Aho-Corasick kernel version: `packet-per-block-32` (default), `packet-per-thread`,
    /// `packet-per-block-N`, `hot-NK` or `hot16-NK` (the shallowest states' rows in N KiB
    /// of shared memory); `osprey bench gpu --kernel` measures them.
    #[arg(long = "gpu-kernel", value_name = "NAME")]
    pub gpu_kernel: Option<String>,

    /// Directory caching the GPU set-up (compiled kernels, matcher tables) by GPU
    /// architecture and rule-set hash; `none`: no cache. Default: `/var/lib/osprey/gpu`
    /// when run as root, else `$XDG_CACHE_HOME/osprey/gpu` (or `~/.cache/osprey/gpu`).
    #[arg(long = "gpu-cache", value_name = "DIR")]
    pub gpu_cache: Option<PathBuf>,

    /// When the GPU set-up runs: `background` (the CPU matches until the GPU is ready) or
    /// `wait` (packets wait for it: set-up on the critical path, for measurements).
    #[arg(long = "gpu-setup", value_name = "WHEN", default_value = "background")]
    pub gpu_setup: String,

    /// EVE event types written to eve.json, comma-separated: `alert,http,dns,tls`
    /// (`http-extended`, `tls-extended` add Suricata's extended fields). Alerts are
    /// always written. Replaces the types of the configuration's `eve-log` output.
    #[arg(long = "eve-types", value_name = "LIST")]
    pub eve_types: Option<String>,

    /// Capture live from network interface IFACE (AF_PACKET, one fanout socket per
    /// worker; needs CAP_NET_RAW). Runs until SIGINT or SIGTERM.
    #[arg(short = 'i', value_name = "IFACE")]
    pub interface: Option<String>,

    /// Capture with AF_PACKET as the configuration's `af-packet:` list says (Suricata's
    /// `--af-packet[=IFACE]`): one interface passively, or inline between `interface`
    /// and `copy-iface` with `copy-mode: ips` (only accepted packets are forwarded) or
    /// `tap` (all are). With IFACE, that interface's entry (or the `default` one).
    #[arg(
        long = "af-packet",
        value_name = "IFACE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ""
    )]
    pub af_packet: Option<String>,

    /// Run as an inline IPS between two interfaces, A:B (AF_PACKET copy mode, as
    /// `copy-mode: ips` with `copy-iface`): a packet is forwarded to the other interface
    /// only when no `drop`/`reject` verdict stops it; `reject` sends a TCP reset or ICMP
    /// unreachable. Needs CAP_NET_RAW; turn GRO/LRO off on both interfaces.
    #[arg(long = "af-packet-ips", value_name = "A:B")]
    pub af_packet_ips: Option<String>,

    /// Worker threads (default: one per available core).
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,

    /// Offline readers: 1, one reader thread hashes and dispatches every frame; N ≥ 2,
    /// the reader only walks the records of a mapped capture and N dispatcher threads
    /// hash and dispatch its chunks in turn (pipes and compressed input keep one
    /// reader). Default: 1 up to 4 workers, then one per 4 workers. Results do not
    /// depend on it.
    #[arg(long = "readers", value_name = "N")]
    pub readers: Option<usize>,

    /// Live capture: keep only frames this classic BPF program accepts (a file holding
    /// the output of `tcpdump -ddd EXPRESSION`). A filter expression can also follow the
    /// options (or come from `-F FILE`); libpcap compiles it in-process.
    #[arg(long = "bpf", value_name = "FILE")]
    pub bpf: Option<PathBuf>,

    /// Rewrite stats.json every SECS seconds while running.
    #[arg(long = "stats-interval", value_name = "SECS")]
    pub stats_interval: Option<f64>,

    /// Listen for commands on this unix socket, Suricata's protocol (`suricatasc`
    /// works). Without `-r`/`-i`: Suricata's unix-socket runmode, files sent with
    /// `pcap-file`. Without PATH: the configuration's `unix-command.filename`, else
    /// /var/run/osprey/osprey-command.socket (write `--unix-socket=PATH`).
    #[arg(
        long = "unix-socket",
        value_name = "PATH",
        num_args = 0..=1,
        default_missing_value = ""
    )]
    pub unix_socket: Option<String>,

    /// Serve the counters for Prometheus at http://ADDR/metrics (e.g. 127.0.0.1:9090).
    #[arg(long = "metrics-listen", value_name = "ADDR")]
    pub metrics_listen: Option<String>,

    /// Measure the time spent in each pipeline stage and print it in the summary.
    #[arg(long = "stage-timing")]
    pub stage_timing: bool,

    /// Capture filter expression (tcpdump syntax), e.g. `tcp port 80`: for `-r` the
    /// frames it rejects are not packets of the run, for `-i` the kernel drops them.
    #[arg(value_name = "FILTER", trailing_var_arg = true)]
    pub filter: Vec<String>,

    /// More log output: `-v` Info, `-vv` Perf, `-vvv` Config, `-vvvv` Debug (as
    /// Suricata; the default is Notice).
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Suricata's NFQUEUE inline mode: refused (Osprey runs inline with
    /// `--af-packet-ips` or `--af-packet` and `copy-mode`).
    #[arg(short = 'q', value_name = "QID")]
    pub nfqueue: Option<String>,

    /// Daemon mode: `-D`, `--pidfile`, `--user`, `--group`.
    #[command(flatten)]
    pub daemon: crate::daemon::DaemonArgs,

    /// Never draw a progress bar, even on a terminal.
    #[arg(long = "no-progress")]
    pub no_progress: bool,

    /// `-F`, `--pcap`, `--pcap-file-*`.
    #[command(flatten)]
    pub inputs: crate::inputs::InputArgs,
    /// `-V`, `--build-info`, `--list-*`, `--dump-config`, `--engine-analysis`.
    #[command(flatten)]
    pub info: crate::info::InfoArgs,
    /// `--flow-hash-bucket`, `--pcap-file-list` (a retro-hunt work unit).
    #[command(flatten)]
    pub unit: crate::unit_input::UnitArgs,
}

/// `-k` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ChecksumArg {
    /// Validate checksums; drop packets whose checksums are wrong.
    #[default]
    All,
    /// Do not drop packets with bad checksums.
    None,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rule tools.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Write synthetic traffic (pcap) with attack flows built from rules, and the alerts
    /// it must raise (OUT.expected.jsonl).
    Gen(crate::gen_cmd::GenArgs),
    /// Retro-hunt: run rules over a capture archive on a Dask cluster (runs the Python
    /// package `osprey_hunt`; `osprey hunt --help` gives its options).
    Hunt(crate::hunt_cmd::HuntArgs),
}

/// `osprey bench ...`
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// The whole engine over a capture held in memory: throughput (captured and wire
    /// Gbit/s, Mpps), time per stage, read-to-verdict latency, peak RSS.
    Engine {
        /// Captures to replay, one after the other (each read into memory first); the
        /// rules are loaded once.
        #[arg(long, required = true, num_args = 1..)]
        pcap: Vec<PathBuf>,
        /// Rule files.
        #[arg(long, num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Multi-pattern matcher (as `--mpm` of a run).
        #[arg(long)]
        mpm: Option<String>,
        /// Timed runs (the median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Print JSON instead of text (an object; an array with several captures).
        #[arg(long)]
        json: bool,
    },
    /// Multi-pattern matchers on rule contents over the TCP/UDP payloads of a capture
    /// (each payload scanned separately) and over 1 MB of random bytes, one core.
    Mpm {
        /// Rule files whose contents are the patterns.
        #[arg(long, required_unless_present = "model", num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Capture whose payloads are the haystacks.
        #[arg(long, required_unless_present = "model")]
        pcap: Option<PathBuf>,
        /// Runs per engine (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Only these engines (comma-separated names, e.g. ac-full,vpatch).
        #[arg(long, value_delimiter = ',')]
        engines: Vec<String>,
        /// Only the contents of this inspection buffer (e.g. http.uri).
        #[arg(long)]
        buffer: Option<String>,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Instead: the S-PATCH/V-PATCH performance model (V-PATCH paper §5), predicted
        /// vs measured cost per byte for 1k-20k random patterns over random bytes.
        #[arg(long)]
        model: bool,
        /// Instead: one buffer of the capture's payloads concatenated (and one of random
        /// bytes), 64 MiB each, scanned by DFC, S-PATCH and V-PATCH cut into chunks over 1
        /// and 2 threads (the fast patterns of the rules); throughput and speedup.
        #[arg(long, conflicts_with = "model")]
        parallel: bool,
    },
    /// GPU offload: Aho-Corasick and regex-DFA throughput, kernel-only and end-to-end,
    /// against batch and packet size, both kernel layouts, 16- and 32-bit tables, with
    /// the rules' fast patterns; bytes moved and table lookups per point. Without a GPU
    /// the CPU executor stands in (and the JSON says so). Prints JSON.
    Gpu {
        /// Rule files (their fast patterns; their regexes that have a DFA).
        #[arg(long, required = true, num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Packets per batch.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "512,2048,8192,32768,65536"
        )]
        batch_sizes: Vec<usize>,
        /// Payload bytes per packet.
        #[arg(long, value_delimiter = ',', default_value = "64,256,512,1024,1514")]
        packet_sizes: Vec<usize>,
        /// Seconds each point is timed for.
        #[arg(long, default_value_t = 0.2)]
        seconds: f64,
        /// `auto` (a GPU when one works, else the CPU executor) or `cpu-sim`.
        #[arg(long, default_value = "auto")]
        backend: String,
        /// Aho-Corasick kernel versions: packet-per-thread, packet-per-block-N, hot-NK,
        /// hot16-NK (hot rows in N KiB of shared memory), comma-separated.
        #[arg(long = "kernel", default_value = tools::bench_gpu::ALL_KERNELS)]
        kernels: String,
        /// Batches from this capture's TCP/UDP payloads instead of synthetic ones; with
        /// `--profile-states`, a capture to profile (repeatable).
        #[arg(long)]
        pcap: Vec<PathBuf>,
        /// Instead of timing kernels, simulate their table lookups on the CPU and report
        /// where they fall: by state depth, in the shallowest or hottest states that fit
        /// 48/100/228 KiB of shared memory, table bytes per packet (JSON).
        #[arg(long)]
        profile_states: bool,
        /// `--profile-states`: payloads at most per capture.
        #[arg(long, default_value_t = 50_000)]
        max_packets: usize,
        /// `--profile-states`: also profile this many of the bench's synthetic 1,514-byte
        /// payloads.
        #[arg(long, default_value_t = 0)]
        synthetic: usize,
    },
}

/// `osprey rules ...`
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Parse and validate rule files; print diagnostics and a summary.
    Check {
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// Rule files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn repeated_option_takes_last_value() {
        let cli =
            Cli::try_parse_from(["osprey", "-r", "a.pcap", "-k", "all", "-k", "none"]).unwrap();
        assert_eq!(cli.run.checksum, ChecksumArg::None);
        let cli = Cli::try_parse_from(["osprey", "-r", "a.pcap", "-r", "b.pcap"]).unwrap();
        assert_eq!(cli.run.read.unwrap(), PathBuf::from("b.pcap"));
    }

    #[test]
    fn corpus_style_arguments_parse() {
        let cli = Cli::try_parse_from([
            "osprey",
            "-r",
            "input.pcap",
            "-S",
            "test.rules",
            "-l",
            "out",
            "-k",
            "none",
            "--set",
            "stream.midstream=true",
            "--runmode=single",
            "--simulate-ips",
            "--simulate-packet-tcp-reassembly-memcap=4",
            "--set",
            "a.b=c",
            "-c",
            "suricata.yaml",
        ])
        .unwrap();
        assert_eq!(cli.run.set, vec!["stream.midstream=true", "a.b=c"]);
        assert!(cli.run.simulate_ips);
        assert_eq!(cli.run.runmode.as_deref(), Some("single"));
    }

    #[test]
    fn af_packet_options_parse() {
        let cli = Cli::try_parse_from(["osprey", "--af-packet", "-c", "s.yaml"]).unwrap();
        assert_eq!(cli.run.af_packet.as_deref(), Some(""));
        let cli = Cli::try_parse_from(["osprey", "--af-packet=eth0", "-c", "s.yaml"]).unwrap();
        assert_eq!(cli.run.af_packet.as_deref(), Some("eth0"));
        let cli = Cli::try_parse_from(["osprey", "--af-packet-ips", "a:b", "-S", "r"]).unwrap();
        assert_eq!(cli.run.af_packet_ips.as_deref(), Some("a:b"));
    }

    #[test]
    fn unix_socket_path_is_optional() {
        let cli = Cli::try_parse_from(["osprey", "--unix-socket", "-S", "r"]).unwrap();
        assert_eq!(cli.run.unix_socket.as_deref(), Some(""));
        let cli = Cli::try_parse_from(["osprey", "--unix-socket=/tmp/s"]).unwrap();
        assert_eq!(cli.run.unix_socket.as_deref(), Some("/tmp/s"));
    }

    #[test]
    fn subcommand_parses() {
        let cli = Cli::try_parse_from(["osprey", "rules", "check", "--json", "x.rules"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Rules(RulesCommand::Check { json: true, .. }))
        ));
    }
}

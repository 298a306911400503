//! Settings of a run, as the command line and configuration file give them.

/// Checksum validation, Suricata's `-k` / `checksum-validation`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChecksumMode {
    /// Verify checksums; packets with a wrong IPv4, TCP, UDP or ICMP checksum are
    /// counted and not passed to the flow and detection stages (Suricata's `-k all`).
    #[default]
    All,
    /// Do not verify checksums: every packet is inspected (`-k none`).
    None,
}

/// Everything the pipeline needs to know about a run.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Checksum validation.
    pub checksum: ChecksumMode,
    /// Frames read per batch (1 to 128; Kargus and MIDeA batch at this size).
    pub batch_size: usize,
    /// Flow table, TCP and defragmentation settings.
    pub flow: flow::Config,
    /// Application-layer limits.
    pub app: app::Config,
    /// Compiled rules; `None` runs without detection.
    pub detector: Option<std::sync::Arc<detect::Detector>>,
    /// Class types, for the alerts' `category`.
    pub classifications: Option<rules::classification::Classifications>,
    /// Where `eve.json` and `fast.log` go; `None` writes no alert files.
    pub log_dir: Option<std::path::PathBuf>,
    /// EVE event types written besides alerts (`http`, `dns`, `tls`).
    pub eve_types: output::EveTypes,
    /// Options of the `eve-log` output (alert payloads, anomaly kinds, community id).
    pub eve_options: output::EveOptions,
    /// The outputs (`outputs:` section): eve-logs, fast.log, stats.log.
    pub outputs: crate::outputs::OutputsConfig,
    /// Measure the time spent in each stage ([`StageTimes`](crate::StageTimes)); costs
    /// two clock reads per stage call.
    pub stage_timing: bool,
    /// Inline IPS mode (`--simulate-ips`): drop, reject and pass verdicts take effect.
    pub ips: bool,
    /// GPU offload of the payload prefilter (`--gpu`); `None`: everything on the CPU.
    pub gpu: Option<std::sync::Arc<crate::offload::GpuOffload>>,
    /// Exception policies of the memory caps and app-layer errors.
    pub exceptions: crate::exception::Policies,
    /// Conditions forced at given packets (Suricata's `--simulate-*` options).
    pub simulate: crate::exception::Simulate,
    /// After a stop (signal, socket `shutdown`), how long workers go on inspecting what
    /// was already queued; what is left then is counted (`osprey.shutdown.dropped`)
    /// and not inspected (`shutdown-grace`, seconds; default 5).
    pub shutdown_grace: std::time::Duration,
    /// The `file-store` output's store, shared by the workers (made by the setup).
    pub file_store: Option<std::sync::Arc<output::FileStore>>,
    /// The `tls-store` output, shared by the workers (made by the setup).
    pub tls_store: Option<std::sync::Arc<output::TlsStore>>,
    /// Decoder settings from `decoder.*` (tunnel ports); `checksum` sets its checksum
    /// checking.
    pub decoder: wire::DecoderConfig,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            checksum: ChecksumMode::All,
            batch_size: capture::BATCH_SIZE,
            flow: flow::Config::default(),
            app: app::Config::default(),
            detector: None,
            classifications: None,
            log_dir: None,
            eve_types: output::EveTypes::default(),
            eve_options: output::EveOptions::default(),
            outputs: crate::outputs::OutputsConfig::default(),
            stage_timing: false,
            ips: false,
            gpu: None,
            exceptions: crate::exception::Policies::default(),
            simulate: crate::exception::Simulate::default(),
            shutdown_grace: std::time::Duration::from_secs(5),
            file_store: None,
            tls_store: None,
            decoder: wire::DecoderConfig::default(),
        }
    }
}

//! The `osprey` binary: argument parsing and dispatch. Logic lives in the library crates.

mod args;
mod progress;
mod summary;

use args::{ChecksumArg, Cli, Command, RunArgs};
use clap::Parser;
use engine::{ChecksumMode, EngineConfig};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Rules(cmd)) => rules_command(cmd),
        None => run(&cli.run),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("osprey: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The detection run: `osprey -r FILE ...`.
fn run(args: &RunArgs) -> Result<ExitCode, String> {
    let Some(input) = args.read.as_ref() else {
        return Err("no input: give a capture file with -r FILE (see --help)".into());
    };
    let log_dir = args.log_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&log_dir)
        .map_err(|e| format!("cannot create log directory {}: {e}", log_dir.display()))?;

    let config = EngineConfig {
        checksum: match args.checksum {
            ChecksumArg::All => ChecksumMode::All,
            ChecksumArg::None => ChecksumMode::None,
        },
        ..EngineConfig::default()
    };

    let mut source = capture::open(input).map_err(|e| e.to_string())?;
    let total = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let bar = progress::Bar::new(total, !args.no_progress);
    let report = engine::run_offline(source.as_mut(), &config, |p| bar.update(p.bytes))
        .map_err(|e| e.to_string())?;
    bar.finish();

    let stats_path = log_dir.join("stats.json");
    report
        .stats
        .write_file(&stats_path)
        .map_err(|e| format!("cannot write {}: {e}", stats_path.display()))?;
    print!("{}", summary::render(&report));
    Ok(ExitCode::SUCCESS)
}

fn rules_command(cmd: args::RulesCommand) -> Result<ExitCode, String> {
    match cmd {
        args::RulesCommand::Check { json, files } => {
            let _ = (json, files);
            Err("rules check is not available yet".into())
        }
    }
}

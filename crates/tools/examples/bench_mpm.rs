//! Runs [`tools::bench_mpm`] until the `osprey bench mpm` subcommand exists:
//! `cargo run --release -p tools --example bench_mpm -- --rules FILE... --pcap FILE [--json] [--runs N] [--engines a,b] [--sets fast,all] [--buffer http.uri]`
//! or `... -- --model [--runs N] [--json]` (the §5 performance model), or
//! `... -- --parallel --rules FILE... --pcap FILE [--runs N] [--json]` (chunked multi-thread scan)

use std::path::PathBuf;

fn main() {
    let mut opts = tools::BenchMpmOptions::default();
    let mut json = false;
    let mut model = false;
    let mut parallel = false;
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rules" => {
                while let Some(f) = args.next_if(|x| !x.starts_with("--")) {
                    opts.rules.push(PathBuf::from(f));
                }
            }
            "--pcap" => opts.pcap = args.next().map(PathBuf::from).unwrap_or_default(),
            "--runs" => opts.runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(5),
            "--engines" => {
                opts.engines = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--buffer" => opts.buffer = args.next(),
            "--sets" => {
                opts.sets = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--json" => json = true,
            "--model" => model = true,
            "--parallel" => parallel = true,
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    if parallel {
        let popts = tools::bench_mpm::ParallelOptions {
            rules: opts.rules.clone(),
            pcap: opts.pcap.clone(),
            runs: opts.runs,
            ..Default::default()
        };
        match tools::bench_mpm::bench_parallel(&popts) {
            Ok(r) if json => println!("{}", r.to_json()),
            Ok(r) => print!("{r}"),
            Err(e) => {
                eprintln!("bench mpm --parallel: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if model {
        let mopts = tools::bench_mpm::ModelOptions {
            runs: opts.runs,
            ..Default::default()
        };
        match tools::bench_mpm::bench_model(&mopts) {
            Ok(r) if json => println!("{}", r.to_json()),
            Ok(r) => print!("{r}"),
            Err(e) => {
                eprintln!("bench mpm --model: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    match tools::bench_mpm(&opts) {
        Ok(r) if json => println!("{}", r.to_json()),
        Ok(r) => print!("{r}"),
        Err(e) => {
            eprintln!("bench mpm: {e}");
            std::process::exit(1);
        }
    }
}

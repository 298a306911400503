//! The `osprey` binary: argument parsing and dispatch. Logic lives in the library crates.

mod args;

use args::Cli;
use clap::Parser;

fn main() {
    let cli = Cli::parse();
    let _ = cli;
}

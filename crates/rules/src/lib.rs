//! Osprey's rule language: Snort 2.9 / Suricata 7 rules parsed into a typed model,
//! variables, validation with file:line:column diagnostics. (suricata.yaml is read by
//! the `config` crate.)
//!
//! Entry points: [`parse_rule`] for one rule, [`RuleSet::load`] for files,
//! [`check::check_files`] for `osprey rules check`, [`keywords::all`] for the keywords
//! known.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod ast;
pub mod buffers;
pub mod byte_opts;
pub mod check;
pub mod classification;
pub mod dates;
pub mod diag;
pub mod frames;
pub mod header;
pub mod keywords;
pub mod lexer;
pub mod log_config;
pub mod parser;
mod print;
pub mod reference;
pub mod ruleset;
pub mod tag;
pub mod threshold;
pub mod values;
pub mod vars;

pub use ast::*;
pub use buffers::{Buffer, Transform};
pub use diag::{Diagnostic, Reason, Severity};
pub use header::{AddrExpr, AddrSet, AddrUse, IpNet, PortExpr, PortSet};
pub use parser::parse_rule;
pub use ruleset::{LoadOptions, LoadStats, LoadedRule, RuleSet};
pub use vars::Vars;

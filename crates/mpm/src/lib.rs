//! Multi-pattern matchers for Osprey: find every occurrence of many byte patterns in a
//! haystack, as a textbook Aho-Corasick automaton reports them (overlapping, every pattern
//! that ends at an offset).
//!
//! One facade, [`Matcher`], hides the implementations; [`Builder`] picks one by [`Kind`]:
//!
//! - [`Kind::AcFull`] / [`Kind::AcFull32`]: full DFA, one table load per byte, 16-bit state
//!   ids when they fit (Kargus §4.5);
//! - [`Kind::AcCompact`]: banded goto rows and failure links, tens of times smaller
//!   (MIDeA §3.2.2);
//! - [`Kind::Dfc`], [`Kind::Spatch`], [`Kind::Vpatch`] (and the forced [`Kind::VpatchAvx2`],
//!   [`Kind::VpatchAvx512`]): filter-then-verify with small bitmap filters and per-length
//!   hash tables (DFC; S-PATCH and V-PATCH, whose filtering round uses AVX2/AVX-512
//!   gathers chosen at run time). S-PATCH and V-PATCH keep the patterns whose first two
//!   (case-folded) bytes are equal out of their filters and report them from the runs of
//!   one byte in closed form (on IDS traffic most matches are `|00|` runs), verify short
//!   patterns from per-window lists and long ones by 4- or 8-byte keys.
//!   [`parallel::scan_parallel`] splits one large buffer over threads; [`model`] is the
//!   performance model of the V-PATCH paper (§5).
//!
//! Case: every automaton is built over ASCII-lowercased patterns; a case-sensitive pattern
//! with letters is checked against its exact bytes when the automaton reports it (MIDeA
//! §3.2.2, Gnort §3.3). [`DfaTables`] exports a full DFA as plain arrays for other backends
//! (the GPU), and [`PlainDfa`] carries one regex's DFA to them. [`naive`] is the reference
//! every backend is tested against, with the shared cases in [`testutil`].
//!
//! ```
//! use mpm::{Kind, Matcher, Pattern};
//! let pats = [Pattern::new(&b"he"[..], 1), Pattern::nocase(&b"SHE"[..], 2)];
//! let m = Matcher::new(Kind::AcFull, &pats).unwrap();
//! let mut found = Vec::new();
//! m.scan(b"ushers", &mut |m| found.push((m.pattern, m.end)));
//! assert_eq!(found, vec![(2, 4), (1, 4)]);
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod acfull;
mod compact;
mod dfa;
mod dfc;
mod error;
mod kind;
mod long;
mod matcher;
pub mod model;
pub mod naive;
pub mod parallel;
mod pattern;
mod plain;
mod report;
mod runs;
mod short;
mod spatch;
pub mod testutil;
mod trie;
mod unique;
mod verify;
#[allow(unsafe_code)] // SIMD intrinsics, in small commented functions
mod vpatch;

pub use dfa::DfaTables;
pub use error::BuildError;
pub use kind::Kind;
pub use matcher::{Builder, Limits, Matcher};
pub use pattern::{Match, Pattern, PatternInfo, PatternStore};
pub use plain::{InvalidDfa, PlainDfa};
pub use unique::{ScanCounts, Seen};

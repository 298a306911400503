//! Why a matcher could not be built.

use crate::Kind;
use std::fmt;

/// A matcher build failure. Size limits are checked before memory is allocated, so a pattern
/// set too large for a backend gives this error instead of exhausting memory.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// A pattern with no bytes (an empty pattern would match at every offset).
    EmptyPattern {
        /// The pattern's id.
        id: u32,
    },
    /// More automaton states than the backend or the configured limit allows.
    TooManyStates {
        /// States needed (or an upper bound on them).
        states: usize,
        /// The limit.
        limit: usize,
    },
    /// The tables would use more memory than the configured limit.
    TooLarge {
        /// Bytes the tables would need.
        bytes: usize,
        /// The limit ([`crate::Builder::memory_limit`]).
        limit: usize,
    },
    /// This backend is not available in this build or on this CPU.
    Unsupported {
        /// The backend asked for.
        kind: Kind,
        /// Why it is not available.
        reason: &'static str,
    },
    /// A backend-specific failure (for example an error from an external library).
    Backend {
        /// The backend.
        kind: Kind,
        /// Its message.
        message: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::EmptyPattern { id } => write!(f, "pattern {id} is empty"),
            BuildError::TooManyStates { states, limit } => {
                write!(f, "automaton needs {states} states, limit is {limit}")
            }
            BuildError::TooLarge { bytes, limit } => {
                write!(f, "tables need {bytes} bytes, memory limit is {limit}")
            }
            BuildError::Unsupported { kind, reason } => {
                write!(f, "matcher {} unavailable: {reason}", kind.name())
            }
            BuildError::Backend { kind, message } => {
                write!(f, "matcher {}: {message}", kind.name())
            }
        }
    }
}

impl std::error::Error for BuildError {}

//! Diagnostics: every problem found in a rule or a configuration file, with where it is,
//! which keyword it concerns and why.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The rule (or file) was not loaded.
    Error,
    /// Loaded, but something is worth fixing.
    Warning,
}

/// Why a rule failed or was flagged: the categories a summary groups diagnostics by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// Malformed rule text (header, option syntax, quoting, escaping).
    Syntax,
    /// A keyword nobody here implements.
    UnsupportedKeyword,
    /// A keyword value that does not parse or is out of range.
    InvalidValue,
    /// Options that contradict each other or a modifier with nothing to modify.
    Semantic,
    /// A `pcre` whose pattern does not compile.
    InvalidPcre,
    /// The rule has no `sid`.
    MissingSid,
    /// Another rule has the same gid:sid.
    DuplicateSid,
    /// `$VAR` not defined, or an address/port expression that matches nothing.
    Variable,
    /// A file could not be read.
    Io,
    /// A configuration file problem.
    Config,
}

impl Reason {
    /// Short stable name used in summaries and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Syntax => "syntax error",
            Reason::UnsupportedKeyword => "unsupported keyword",
            Reason::InvalidValue => "invalid value",
            Reason::Semantic => "invalid combination",
            Reason::InvalidPcre => "invalid pcre",
            Reason::MissingSid => "missing sid",
            Reason::DuplicateSid => "duplicate sid",
            Reason::Variable => "bad variable or address",
            Reason::Io => "i/o error",
            Reason::Config => "configuration error",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem, located at file:line:column (1-based; 0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Category.
    pub reason: Reason,
    /// File the problem is in, if any.
    pub file: Option<Arc<Path>>,
    /// 1-based line (0: unknown).
    pub line: u32,
    /// 1-based column (0: unknown).
    pub column: u32,
    /// Keyword concerned (`content`, `sid`, header field name ...), if any.
    pub keyword: Option<String>,
    /// Human explanation.
    pub message: String,
    /// sid of the rule concerned, when known.
    pub sid: Option<u32>,
}

impl Diagnostic {
    /// An error with no location yet (the loader fills it in).
    pub fn error(reason: Reason, keyword: Option<&str>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            reason,
            file: None,
            line: 0,
            column: 0,
            keyword: keyword.map(str::to_owned),
            message: message.into(),
            sid: None,
        }
    }

    /// A warning with no location yet.
    pub fn warning(reason: Reason, keyword: Option<&str>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(reason, keyword, message)
        }
    }

    /// Sets the position (builder style).
    pub fn at(mut self, line: u32, column: u32) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    /// Sets the file (builder style).
    pub fn in_file(mut self, file: Option<Arc<Path>>) -> Self {
        self.file = file;
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{}:{}:{}: ", p.display(), self.line, self.column)?,
            None => write!(f, "{}:{}: ", self.line, self.column)?,
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: {}", self.reason)?;
        if let Some(k) = &self.keyword {
            write!(f, " [{k}]")?;
        }
        if let Some(s) = self.sid {
            write!(f, " (sid {s})")?;
        }
        write!(f, ": {}", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_location_keyword_and_reason() {
        let d = Diagnostic::error(
            Reason::InvalidValue,
            Some("depth"),
            "depth 2 shorter than content",
        )
        .at(3, 17)
        .in_file(Some(Arc::from(Path::new("a.rules"))));
        let s = d.to_string();
        assert_eq!(
            s,
            "a.rules:3:17: error: invalid value [depth]: depth 2 shorter than content"
        );
        assert!(d.is_error());
        assert!(!Diagnostic::warning(Reason::Config, None, "x").is_error());
    }
}

//! Suricata 7's `config` rule keyword: `config: logging disable, type <t>, scope <s>;`
//! asks that what the rule matched not be logged (the transaction is skipped by the
//! transaction loggers: its EVE `http`, `dns`, `tls` ... records).
//!
//! The grammar is Suricata 7.0.10's, measured by running it: exactly three
//! comma-separated pairs of words (`[A-z_]+`, case-sensitive), the subsystem `logging`
//! with the action `disable`, then `type tx|flow` and `scope tx|flow` in that order.
//! Anything else is refused with the message Suricata prints. The keyword is kept as
//! an [`Opt::Keyword`] once checked; [`LogConfig::parse`] gives the typed value to the
//! detection engine. Suricata 7.0.10 behaves the same for the four type/scope pairs
//! (the matched transaction is not logged), so the type and scope are kept only to be
//! printed back.
//!
//! The `config` rule *action* (`config dns any any -> ...`) is the `alert` action
//! with `noalert` (no alert, the keyword's change still applies); the rule parser
//! reads it ([`config_action`]).

use crate::ast::Opt;
use crate::diag::Reason;
use crate::keywords::Ctx;
use crate::parser::state::State;

/// What a `config:` sub-setting applies to (`type` and `scope` take the same words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `tx`: the transaction the rule matched.
    Tx,
    /// `flow`: the flow.
    Flow,
}

/// A checked `config: logging disable, type <type>, scope <scope>` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogConfig {
    /// `type`: which logging is affected.
    pub kind: Unit,
    /// `scope`: what the change applies to.
    pub scope: Unit,
}

/// The name of the keyword.
pub const NAME: &str = "config";

impl LogConfig {
    /// Parses a `config` value as Suricata 7.0.10 does, with its error messages.
    pub fn parse(value: &str) -> Result<LogConfig, &'static str> {
        const PICKY: &str = "config is rather picky at this time";
        let mut words = [""; 6];
        let mut parts = value.split(',');
        for pair in words.chunks_mut(2) {
            let part = parts.next().ok_or(PICKY)?;
            let (a, b) = word_pair(part).ok_or(PICKY)?;
            pair[0] = a;
            pair[1] = b;
        }
        if parts.next().is_some() {
            return Err(PICKY);
        }
        let unit = |w: &str| match w {
            "tx" => Ok(Unit::Tx),
            "flow" => Ok(Unit::Flow),
            _ => Err("only 'tx' and 'flow' supported at this time"),
        };
        if words[0] != "logging" {
            return Err("only 'logging' supported at this time");
        }
        if words[1] != "disable" {
            return Err("only 'disable' supported at this time");
        }
        if words[2] != "type" {
            return Err("only 'type' supported at this time");
        }
        let kind = unit(words[3])?;
        if words[4] != "scope" {
            return Err("only 'scope' supported at this time");
        }
        let scope = unit(words[5])?;
        Ok(LogConfig { kind, scope })
    }
}

/// `\s*word\s+word\s*`, each word of `[A-z_]` (the ASCII range `A` to `z`, as
/// Suricata's pattern has it).
fn word_pair(s: &str) -> Option<(&str, &str)> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c');
    let is_word = |w: &str| !w.is_empty() && w.bytes().all(|b| (b'A'..=b'z').contains(&b));
    let s = s.trim_matches(is_space);
    let (a, b) = s.split_once(is_space)?;
    let b = b.trim_start_matches(is_space);
    (is_word(a) && is_word(b)).then_some((a, b))
}

/// Whether a rule's action word is `config` (the `alert` action with `noalert`; any
/// case, as Suricata reads actions).
pub fn config_action(action: &str) -> bool {
    action.eq_ignore_ascii_case(NAME)
}

/// The keyword's parse function: checks the value, keeps it as an [`Opt::Keyword`].
pub(crate) fn keyword(st: &mut State, c: &Ctx<'_>) {
    match LogConfig::parse(c.val) {
        Ok(_) => st.options.push(Opt::Keyword {
            name: NAME,
            value: Some(c.val.to_owned()),
        }),
        Err(e) => st.err(c.o.value_off, Reason::InvalidValue, c.kw, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_suricata_accepts() {
        let tx = LogConfig {
            kind: Unit::Tx,
            scope: Unit::Tx,
        };
        for v in [
            "logging disable, type tx, scope tx",
            "logging disable,type tx,scope tx",
            "  logging   disable ,  type   tx ,  scope   tx  ",
        ] {
            assert_eq!(LogConfig::parse(v), Ok(tx), "{v}");
        }
        assert_eq!(
            LogConfig::parse("logging disable, type flow, scope tx"),
            Ok(LogConfig {
                kind: Unit::Flow,
                scope: Unit::Tx
            })
        );
        assert_eq!(
            LogConfig::parse("logging disable, type tx, scope flow"),
            Ok(LogConfig {
                kind: Unit::Tx,
                scope: Unit::Flow
            })
        );
    }

    #[test]
    fn refuses_with_suricatas_messages() {
        let picky = "config is rather picky at this time";
        let units = "only 'tx' and 'flow' supported at this time";
        for (v, e) in [
            ("logging disable", picky),
            ("logging", picky),
            ("logging disable, type tx", picky),
            ("logging disable, scope tx", picky),
            ("logging disable type tx scope tx", picky),
            ("logging disable, type tx, scope tx, type tx", picky),
            ("logging disable, type tx1, scope tx", picky),
            ("\"logging disable, type tx, scope tx\"", picky),
            ("", picky),
            ("logging disable, type packet, scope packet", units),
            ("logging disable, type foo, scope tx", units),
            ("logging disable, type tx, scope packet", units),
            (
                "logging enable, type tx, scope tx",
                "only 'disable' supported at this time",
            ),
            (
                "tracking disable, type tx, scope tx",
                "only 'logging' supported at this time",
            ),
            (
                "LOGGING DISABLE, TYPE TX, SCOPE TX",
                "only 'logging' supported at this time",
            ),
            (
                "logging_x disable, type tx, scope tx",
                "only 'logging' supported at this time",
            ),
            (
                "logging disable, scope tx, type tx",
                "only 'type' supported at this time",
            ),
            (
                "logging disable, foo tx, scope tx",
                "only 'type' supported at this time",
            ),
            (
                "logging disable, type tx, bar tx",
                "only 'scope' supported at this time",
            ),
        ] {
            assert_eq!(LogConfig::parse(v), Err(e), "{v}");
        }
    }

    #[test]
    fn config_is_an_action_word() {
        assert!(config_action("config"));
        assert!(config_action("Config"));
        assert!(!config_action("alert"));
    }

    #[test]
    fn the_config_action_is_alert_with_noalert() {
        let r = crate::parse_rule(
            "config dns any any -> any any (dns.query; content:\"a\"; \
             config: logging disable, type tx, scope tx; sid:1;)",
        )
        .unwrap();
        assert_eq!(r.action, crate::Action::Alert);
        assert!(r.options.iter().any(|o| matches!(o, Opt::NoAlert)));
        assert!(r.options.iter().any(
            |o| matches!(o, Opt::Keyword { name, value: Some(v) } if *name == NAME && v.contains("scope tx"))
        ));
        let plain = crate::parse_rule("alert dns any any -> any any (sid:1;)").unwrap();
        assert!(!plain.options.iter().any(|o| matches!(o, Opt::NoAlert)));
    }

    #[test]
    fn bad_values_are_errors_at_the_value() {
        let text = "alert dns any any -> any any (config: logging disable; sid:1;)";
        let diags = crate::parse_rule(text).unwrap_err();
        let d = diags.iter().find(|d| d.is_error()).expect("an error");
        assert!(d.message.contains("config is rather picky"), "{d:?}");
        assert_eq!(d.keyword.as_deref(), Some("config"));
        // The column of the value (1-based; line 1 of a lone rule).
        assert_eq!(
            d.column as usize,
            text.find("logging").unwrap() + 1,
            "{d:?}"
        );
    }
}
